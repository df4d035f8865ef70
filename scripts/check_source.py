"""Project rules that a linter reads from the source (run by scripts/check.sh, like ruff and import-linter).

Each prints `file:line: rule` and the script fails if any broke:
- raw HTML (st.html, unsafe_allow_html=True) is built only from literals, our own translations and escaping builders;
- no st.cache_resource (any client's clear_cache empties it); every ui.cache.process_wide value is audited below;
- no lesson writes markup (lessons return plain data; charts/diagrams.py draws);
- each file of a lesson package stays readable in a sitting (at most 400 lines);
- private Streamlit (its runtime, its DOM test ids, the private names ui/seam lists) is touched only in ui/seam;
- no plotly private attribute is read (the app once read some; they are gone and may not come back).
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
APP_FILES = [
    ROOT / "app.py",
    *sorted((ROOT / "pages").glob("*.py")),
    *sorted((ROOT / "core").rglob("*.py")),
    *sorted((ROOT / "ui").rglob("*.py")),
]
LESSON_FILE_LINES = 400

# Each value every session reads, and why it cannot leak between sessions. ui.cache.shared / shared_function
# freeze what they keep (core/frozen.py); ui.cache.process_wide keeps what is named here, and nothing else.
PROCESS_WIDE_AUDIT = {
    "app.tune_process": "returns True (process settings only)",
    "real-model": "freeze(pretrained.load()): read-only weights (Real heads and Positions share it)",
    "why-heads.results": "ResultStore: locked, put() stores frozen RunResults",
}
# Builders that html.escape every text part (tests/test_limits_isolation.py feeds them markup).
SAFE_HTML_BUILDERS = {"token_chips_html", "shape_flow_html", "focus_html", "live_loss_html", "class_bars_html"}


def rel(path: Path) -> str:
    return str(path.relative_to(ROOT))


def process_wide_names(tree: ast.AST) -> list[tuple[int, str]]:
    """The names of the values kept with ui.cache.process_wide("name", build)."""
    return [
        (call.lineno, call.args[0].value if isinstance(call.args[0], ast.Constant) else ast.unparse(call.args[0]))
        for call in (n for n in ast.walk(tree) if isinstance(n, ast.Call))
        if getattr(call.func, "id", getattr(call.func, "attr", "")) == "process_wide" and call.args
    ]


def uses_cache_resource(tree: ast.AST) -> list[int]:
    return [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr in ("cache_resource",)]


def safe_value(node: ast.AST) -> bool:
    """Never user text: translations of our own strings (t/i18n.t), numbers, escaped text, our constants."""
    if isinstance(node, ast.Call):
        if ast.unparse(node.func) == "table.html":  # charts/table.py escapes every header and cell
            return True
        name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        return name in {"t", "escape", "len", "int", "float"} | SAFE_HTML_BUILDERS
    if isinstance(node, ast.Name):
        # walkthrough: where = t("walk.step_of", ...); ui.choice.HIDDEN_CSS; ui.tables.CSS
        return node.id in {"where", "HIDDEN_CSS", "TABLE_CSS", "BAR_CSS", "BIG_CSS"}  # our own style sheets
    if isinstance(node, ast.Attribute):
        name = ast.unparse(node)  # ui/seam's constants: Streamlit DOM names, never user text
        return name.startswith("seam.") and name.endswith("_SELECTOR")
    return False


def constant_text(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return True
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return constant_text(node.left) and constant_text(node.right)
    if isinstance(node, ast.JoinedStr):
        return all(isinstance(v, ast.Constant) or safe_value(v.value) for v in node.values)  # type: ignore[attr-defined]
    return safe_value(node)


def raw_html(path: Path, tree: ast.AST) -> list[str]:
    found = []
    for call in (n for n in ast.walk(tree) if isinstance(n, ast.Call)):
        func = call.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        unsafe = any(
            k.arg == "unsafe_allow_html" and not (isinstance(k.value, ast.Constant) and k.value.value is False)
            for k in call.keywords
        )
        is_st_html = name == "html" and isinstance(func, ast.Attribute) and getattr(func.value, "id", "") == "st"
        if (is_st_html or unsafe) and not (call.args and constant_text(call.args[0])):
            found.append(f"{rel(path)}:{call.lineno}: raw HTML built from something that may be user text")
    return found


def caches(path: Path, tree: ast.AST) -> list[str]:
    found = [
        f"{rel(path)}:{line}: st.cache_resource is emptied by any client's clear_cache: use ui.cache.process_wide"
        for line in uses_cache_resource(tree)
    ]
    for line, name in process_wide_names(tree):
        if name not in PROCESS_WIDE_AUDIT:
            found.append(f"{rel(path)}:{line}: {name!r}: a new process-wide value: make it read-only and audit it here")
    return found


def lessons() -> list[str]:
    found = []
    markup = re.compile(r"<(div|span|svg|table|style|b|br)[\s>/]")
    for path in sorted((ROOT / "lessons").rglob("*.py")):
        lines = path.read_text(encoding="utf-8").splitlines()
        found += [f"{rel(path)}:{i}: markup in a lesson" for i, line in enumerate(lines, 1) if markup.search(line)]
        if path.parent != ROOT / "lessons" and len(lines) > LESSON_FILE_LINES:
            found.append(f"{rel(path)}: {len(lines)} lines: split it by meaning (at most {LESSON_FILE_LINES})")
    return found


# Code that may name Streamlit's private parts only inside ui/seam (its JS and CSS too).
SEAM_CHECKED = sorted(
    {
        *ROOT.glob("core/**/*.py"),
        *ROOT.glob("ui/**/*.py"),
        *ROOT.glob("ui/**/*.js"),
        *ROOT.glob("pages/*.py"),
        *ROOT.glob("static/*.js"),
        ROOT / "app.py",
        ROOT / "serve.py",
    }
)
PLOTLY_PRIVATE = {"_data", "_layout", "_grid_ref", "_validate"}


def private_streamlit() -> list[str]:
    """Names of private Streamlit outside ui/seam ("query_params" and "enqueue" are public words too: the private
    route to them, get_session_state and _browser_queue, is what counts)."""
    sys.path.insert(0, str(ROOT))
    from ui import seam

    names = ["streamlit.runtime", "streamlit.navigation", "streamlit.web", "PagesManager", "data-testid"]
    names += [
        n.removeprefix("self.")
        for where, n in seam.PRIVATE_NAMES
        if where.startswith("streamlit.") and n not in ("query_params", "enqueue")
    ]
    found = []
    for path in (p for p in SEAM_CHECKED if "seam" not in p.relative_to(ROOT).parts):
        text = path.read_text(encoding="utf-8")
        for name in names:
            for m in re.finditer(rf"(?<!\w){re.escape(name)}(?!\w)", text):
                line = text.count("\n", 0, m.start()) + 1
                found.append(
                    f"{rel(path)}:{line}: private Streamlit {name!r} outside ui/seam: move it there and list it"
                )
    return found


def plotly_private(path: Path, tree: ast.AST) -> list[str]:
    found = []
    for node in ast.walk(tree):
        name = (
            node.attr
            if isinstance(node, ast.Attribute)
            else node.arg
            if isinstance(node, ast.keyword)
            else node.args[1].value
            if isinstance(node, ast.Call)
            and getattr(node.func, "id", "") == "getattr"
            and len(node.args) > 1
            and isinstance(node.args[1], ast.Constant)
            else None
        )
        if name in PLOTLY_PRIVATE:
            found.append(f"{rel(path)}:{node.lineno}: plotly's private {name!r} is read")
    return found


def main() -> int:
    found = lessons() + private_streamlit()
    for path in APP_FILES:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found += raw_html(path, tree) + caches(path, tree) + plotly_private(path, tree)
    print(
        "\n".join(found)
        if found
        else "source rules: raw HTML, shared caches, lessons' markup and sizes, private Streamlit and plotly: ok"
    )
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
