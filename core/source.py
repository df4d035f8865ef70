"""The source text of the app's own code, for the pages that show it, read once per process.

Why a lock: on Python 3.11 `ast.parse` (which `inspect.getsource` uses for a class, and the
walkthrough uses to find a step's lines) can fail when two threads parse at once with
"SystemError: AST constructor recursion depth mismatch" (CPython gh-106905). Streamlit runs every
session's script in its own thread, and the 8-session browser test hit it on the Real heads page.
So every parse goes through PARSE_LOCK, each object is read once, and app.py reads them all when
the server process starts (`warm`), before a class arrives.
"""

from __future__ import annotations

import functools
import inspect
import threading

PARSE_LOCK = threading.RLock()


@functools.lru_cache(maxsize=None)
def _source(obj) -> str:
    return inspect.getsource(obj)


def source_text(obj) -> str:
    """inspect.getsource(obj), parsed under PARSE_LOCK and cached for the process."""
    with PARSE_LOCK:
        return _source(obj)


def shown_sources() -> list:
    """Every object whose source a page shows (warming these keeps parsing out of page runs)."""
    from core import pretrained

    return [pretrained.EncoderLayer, pretrained.without_heads]


def warm() -> None:
    """Read every shown source once (app.py, once per process)."""
    from core import walkthrough

    for obj in shown_sources():
        source_text(obj)
    for step in walkthrough.STEPS:
        walkthrough.step_source(step.name)
