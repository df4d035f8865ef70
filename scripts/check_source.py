"""Project rules that a linter reads from the source (run by scripts/check.sh, like ruff and import-linter).

Each prints `file:line: rule` and the script fails if any broke:
- raw HTML (st.html, unsafe_allow_html=True) is built only from literals, our own translations and escaping builders;
- no st.cache_resource (any client's clear_cache empties it); every ui.cache.process_wide value is audited below;
- no lesson writes markup (lessons return plain data; charts/diagrams.py draws);
- each file of a lesson package stays readable in a sitting (at most 400 lines), its package's docstring names
  it (the map a newcomer reads first), and every lesson package is in import-linter's no-cycles contract;
- every file in pages/ is a page of the navigation (ui/navigation.PAGES), so none is left unreachable;
- private Streamlit (its runtime, web, navigation and proto modules, the private names ui/seam registers, its DOM
  test ids) is touched only in ui/seam, and no plotly private figure attribute is read anywhere.
"""

from __future__ import annotations

import ast
import re
import sys
import tomllib
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
SAFE_HTML_BUILDERS = {"token_chips_html", "shape_flow_html", "focus_html", "class_bars_html"}
# Builders of our own text only (no user text reaches them): the walkthrough's step listing (i18n/'s titles and
# formulas, core's source in a fenced block inside our div).
OWN_TEXT_BUILDERS = {"listing_markdown"}


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
        return name in {"t", "escape", "len", "int", "float"} | SAFE_HTML_BUILDERS | OWN_TEXT_BUILDERS
    if isinstance(node, ast.Name):
        # walkthrough: where = t("walk.step_of", ...); ui.choice.HIDDEN_CSS; ui.tables.CSS; ui.code.WRAP_CSS
        return node.id in {"where", "HIDDEN_CSS", "TABLE_CSS", "BAR_CSS", "BIG_CSS", "WRAP_CSS"}  # our style sheets
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


def lesson_packages() -> list[str]:
    """Each lesson package's docstring names its files, and import-linter checks its modules for cycles."""
    found = []
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    no_cycles = next(c for c in contracts["contracts"] if c["id"] == "no-cycles")["ancestors"]
    for init in sorted((ROOT / "lessons").glob("*/__init__.py")):
        package = init.parent
        if f"lessons.{package.name}" not in no_cycles:
            found.append(f"{rel(package)}: a lesson package missing from pyproject.toml's no-cycles contract")
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or ""
        found += [
            f"{rel(init)}: its docstring does not name {path.name} (say what the file holds)"
            for path in sorted(package.glob("*.py"))
            if path.name != "__init__.py" and path.name not in doc
        ]
    return found


def pages() -> list[str]:
    """Every file in pages/ is in the navigation (app.py draws it from ui/navigation.PAGES)."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from ui import navigation

    listed = {file for file, *_ in navigation.PAGES}
    return [
        f"{rel(path)}: not in ui/navigation.PAGES (no link reaches it)"
        for path in sorted((ROOT / "pages").glob("*.py"))
        if rel(path) not in listed
    ]


# Streamlit modules only ui/seam may import (streamlit.errors, streamlit.components and the top level are public).
PRIVATE_MODULES = ("streamlit.runtime", "streamlit.web", "streamlit.navigation", "streamlit.proto")
PLOTLY_PRIVATE = {"_data", "_layout", "_grid_ref", "_validate"}  # retired reads of plotly's figure internals


def seam_private_names() -> set[str]:
    """The attribute names ui/seam registers as private Streamlit (its ENTRIES), e.g. _can_be_called."""
    sys.path.insert(0, str(ROOT))
    from ui import seam

    # Common words drop out: st.query_params is public, and "states" or "serializer" name other things too; the private
    # route to them (get_session_state, widget_metadata) is what counts.
    common = {"query_params", "states", "serializer", "deserializer"}
    return {
        name.removeprefix("self.")
        for where, name in seam.PRIVATE_NAMES
        if where.startswith("streamlit.") and name.removeprefix("self.").isidentifier()
    } - common


def private_streamlit(path: Path, tree: ast.AST, names: set[str]) -> list[str]:
    """Private Streamlit outside ui/seam, and plotly private attributes anywhere (file:line: what)."""
    found = []
    in_seam = "seam" in path.relative_to(ROOT).parts
    for node in ast.walk(tree):
        modules = (
            [node.module or ""]
            if isinstance(node, ast.ImportFrom)
            else [a.name for a in node.names]
            if isinstance(node, ast.Import)
            else []
        )
        for module in modules:
            if not in_seam and module.startswith(PRIVATE_MODULES):
                found.append(f"{rel(path)}:{node.lineno}: imports {module}: private Streamlit belongs in ui/seam")
        attr = node.attr if isinstance(node, ast.Attribute) else node.arg if isinstance(node, ast.keyword) else None
        if attr in PLOTLY_PRIVATE:
            found.append(f"{rel(path)}:{node.lineno}: {attr}: a plotly private attribute")
        elif attr in names and not in_seam:
            found.append(f"{rel(path)}:{node.lineno}: {attr}: a private Streamlit name (ui/seam registers it)")
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and "data-testid" in node.value:
            if not in_seam:
                found.append(f"{rel(path)}:{node.lineno}: a Streamlit DOM test id: use ui/seam's selectors")
    return found


def main() -> int:
    found = lessons() + lesson_packages() + pages()
    names = seam_private_names()
    for path in [*APP_FILES, ROOT / "serve.py"]:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found += raw_html(path, tree) + caches(path, tree) + private_streamlit(path, tree, names)
    for path in [*sorted((ROOT / "static").glob("*.js")), *sorted((ROOT / "ui").rglob("*.js"))]:
        if "seam" not in path.relative_to(ROOT).parts and "data-testid" in path.read_text(encoding="utf-8"):
            found.append(f"{rel(path)}: a Streamlit DOM test id: use ui/seam's selectors")
    print(
        "\n".join(found)
        if found
        else "source rules: raw HTML, shared caches, lessons' markup, sizes and maps, pages, private Streamlit: ok"
    )
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
