"""The source text of the app's own code, for the pages that show it, read once per process.

Two lookups: `source_text(obj)` (inspect.getsource: Real heads shows a class and a function) and
`source_of(func, names)` (the exact top-level statements of `func` that assign `names`: the walkthrough's
code line of a step, lessons/walkthrough.step_source), so a page can never show a line that is not the one
computing the tensor.

Why a lock: on Python 3.11 `ast.parse` (which `inspect.getsource` uses for a class, and `source_of` uses to
find a step's lines) can fail when two threads parse at once with "SystemError: AST constructor recursion
depth mismatch" (CPython gh-106905). Streamlit runs every session's script in its own thread, and the
8-session browser test hit it on the Real heads page. So every parse goes through PARSE_LOCK, each object is
read once, and app.py reads them all when the server process starts (lessons.walkthrough.warm, which calls
`warm` here), before a class arrives.
"""

from __future__ import annotations

import ast
import functools
import inspect
import textwrap
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PARSE_LOCK = threading.RLock()


@functools.cache
def _source(obj: Callable[..., Any]) -> str:
    return inspect.getsource(obj)


def source_text(obj: Callable[..., Any]) -> str:
    """inspect.getsource(obj), parsed under PARSE_LOCK and cached for the process."""
    with PARSE_LOCK:
        return _source(obj)


def shown_sources() -> list[Callable[..., Any]]:
    """Every object whose whole source a page shows (warming these keeps parsing out of page runs)."""
    from core import pretrained

    return [pretrained.EncoderLayer, pretrained.without_heads]


def warm() -> None:
    """Read every shown source once (app.py, once per process, through lessons.walkthrough.warm)."""
    for obj in shown_sources():
        source_text(obj)


# ------------------------------------------------------------------ the lines that assign some names
@dataclass(frozen=True)
class Source:
    path: str  # relative to the repository, e.g. "core/attention.py"
    function: str  # e.g. "MultiHeadAttention._attend"
    start: int  # first line number in the file
    end: int  # last line number in the file
    code: str  # the lines, dedented

    def where(self) -> str:
        lines = f"{self.start}" if self.start == self.end else f"{self.start}–{self.end}"
        return f"{self.path} · {self.function} · {lines}"


def _assigned_names(node: ast.AST) -> set[str]:
    """Every plain name assigned anywhere inside `node` (a = ..., a, b = ...)."""
    names: set[str] = set()
    for sub in ast.walk(node):
        if isinstance(sub, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = sub.targets if isinstance(sub, ast.Assign) else [sub.target]
            for target in targets:
                for t in ast.walk(target):
                    if isinstance(t, ast.Name):
                        names.add(t.id)
    return names


def statements_assigning(func: Callable[..., Any], names: Iterable[str]) -> list[tuple[int, int]]:
    """(first, last) file line of every top-level statement of `func` that assigns one of `names`.

    A statement is a direct child of the function body, so an `if/else` that assigns the
    name in both branches is returned whole (e.g. the mask step).
    """
    lines, first = inspect.getsourcelines(func)
    tree = ast.parse(textwrap.dedent("".join(lines)))
    definition = tree.body[0]
    assert isinstance(definition, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))  # the source of `func`
    body = definition.body
    wanted = set(names)
    found: list[tuple[int, int]] = []
    for stmt in body:
        if _assigned_names(stmt) & wanted:
            assert stmt.end_lineno is not None  # ast.parse sets it on every statement
            found.append((first + stmt.lineno - 1, first + stmt.end_lineno - 1))
    return found


def source_of(func: Callable[..., Any], names: tuple[str, ...]) -> Source:
    """The lines of `func` from the first statement assigning one of `names` to the last, as in the file."""
    with PARSE_LOCK:  # ast.parse is not thread-safe on Python 3.11 (above)
        return _source_of_unlocked(func, tuple(names))


@functools.cache
def _source_of_unlocked(func: Callable[..., Any], names: tuple[str, ...]) -> Source:
    spans = statements_assigning(func, names)
    if not spans:
        raise LookupError(f"no statement of {func.__qualname__} assigns {names}")
    start, end = spans[0][0], spans[-1][1]
    source_file = inspect.getsourcefile(func)
    if source_file is None:
        raise LookupError(f"{func.__qualname__} has no source file")
    path = Path(source_file).resolve()
    file_lines = path.read_text(encoding="utf-8").splitlines()
    code = textwrap.dedent("\n".join(file_lines[start - 1 : end]))
    try:
        rel = str(path.relative_to(ROOT))
    except ValueError:
        rel = path.name
    return Source(rel, func.__qualname__, start, end, code)


__all__ = ["PARSE_LOCK", "Source", "shown_sources", "source_of", "source_text", "statements_assigning", "warm"]
