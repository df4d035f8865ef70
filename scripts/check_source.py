"""Project rules that a linter reads from the source (run by scripts/check.sh, like ruff and import-linter).

Each prints `file:line: rule` and the script fails if any broke:
- raw HTML (st.html, unsafe_allow_html=True) is built only from literals, our own translations and escaping builders;
- every st.cache_resource / ui.cache.shared function is in the audit below and returns frozen objects;
- no lesson writes markup (lessons return plain data; charts/diagrams.py draws);
- each file of a lesson package stays readable in a sitting (at most 400 lines).
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

# Each shared cache, and why what it returns cannot leak between sessions.
CACHE_AUDIT = {
    "app.py:_tune_process": "returns True (process settings only)",
    "pages/walkthrough.py:computed": "returns freeze((run, check))",
    "ui/models.py:load_real_model": "returns freeze(pretrained.load()) (Real heads and Positions share it)",
    "pages/why-heads.py:result_store": "ResultStore: locked, put() stores frozen RunResults",
    "pages/quiz.py:question_set": "returns freeze((questions, tokens))",
    "ui/cache.py:shared": "returns freeze(build()) (byte-bounded, core/limits.SHARED_CACHE_BYTES)",
}
# Builders that html.escape every text part (tests/test_limits_isolation.py feeds them markup).
SAFE_HTML_BUILDERS = {"token_chips_html", "shape_flow_html", "focus_html", "live_loss_html"}


def rel(path: Path) -> str:
    return str(path.relative_to(ROOT))


def cached_functions(tree: ast.AST) -> list[ast.FunctionDef]:
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            for dec in node.decorator_list:
                target = dec.func if isinstance(dec, ast.Call) else dec
                if (isinstance(target, ast.Attribute) and target.attr in ("cache_resource", "cache_data")) or (
                    isinstance(target, ast.Name) and target.id == "shared_function"
                ):
                    out.append(node)
    return out


def safe_value(node: ast.AST) -> bool:
    """Never user text: translations of our own strings (t/i18n.t), numbers, escaped text, our constants."""
    if isinstance(node, ast.Call):
        name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        return name in {"t", "escape", "len", "int", "float"} | SAFE_HTML_BUILDERS
    if isinstance(node, ast.Name):
        return node.id in {"where", "HIDDEN_CSS"}  # walkthrough: where = t("walk.step_of", ...); ui.choice.HIDDEN_CSS
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
    found = []
    for fn in cached_functions(tree):
        where = f"{rel(path)}:{fn.name}"
        if where not in CACHE_AUDIT:
            found.append(f"{where}: a new shared cache: make what it returns read-only and audit it here")
        elif "freeze(" in CACHE_AUDIT[where] and "freeze(" not in ast.unparse(fn):
            found.append(f"{where}: the audit says it returns freeze(...), it does not")
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


def main() -> int:
    found = lessons()
    for path in APP_FILES:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found += raw_html(path, tree) + caches(path, tree)
    print("\n".join(found) if found else "source rules: raw HTML, shared caches, lessons' markup and sizes: ok")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
