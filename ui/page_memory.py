"""A session keeps its settings and small state, not its page's runs: the page's large values are let go after
each run of the page, so a class's sessions do not each hold a run.

Why: Streamlit runs a page file in a namespace of its own, and every function the page defines keeps that
namespace alive (its __globals__). The page hands such functions to its widgets (on_click, on_change,
format_func, a tab's label function through ui/sections.py, ...), and the session keeps each widget's callback
and serde until the next run: so every session held its last run, model and figures, outside the
byte-bounded shared cache (ui/cache.py); a class at large settings grew the server by a GB
(benchmarks/README.md, "A class stepping at once").

What: ui/shell.page_context() (called first by every page) remembers the calling page's namespace; when the
page's run ends (ui/seam.run_page), every value in it that holds more than PAGE_VALUE_BYTES (a run, a model,
a figure, a table) is removed from it. What a callback reads later is still there: modules, functions,
classes, the page context, keys and small values. A callback must not read a page's large value: pass what
it needs as args (tests/test_server_safety.py runs every page at 512/16/32 and checks every callback's global
names are still there after the release).
"""

from __future__ import annotations

import gc
import sys
import threading
import types

import numpy as np
import torch

PAGE_VALUE_BYTES = 16 * 1024  # a page-level value larger than this is dropped when the page's run ends
_KEEP_TYPES = (types.ModuleType, type, types.FunctionType, types.BuiltinFunctionType, types.MethodType)
_SCALARS = frozenset({int, float, bool, complex, type(None)})
_local = threading.local()  # per script thread: the namespaces of the pages this run has drawn


def remember(namespace: dict) -> None:
    """A page's namespace (its globals), to be released when the page's run ends."""
    pages = getattr(_local, "pages", None)
    if pages is None:
        pages = _local.pages = []
    if not any(ns is namespace for ns in pages):
        pages.append(namespace)


def release() -> int:
    """Drop the large values of the pages remembered in this thread; how many values were dropped."""
    pages = getattr(_local, "pages", None) or []
    _local.pages = []
    dropped = 0
    for namespace in pages:
        for name, value in list(namespace.items()):
            if name.startswith("__") or isinstance(value, _KEEP_TYPES):
                continue
            if _larger_than(value, PAGE_VALUE_BYTES):
                del namespace[name]
                dropped += 1
    return dropped


def _larger_than(value, limit: int) -> bool:
    """Does `value` hold more than `limit` bytes (tensor storages, arrays, objects)? Stops as soon as it
    does, so a model or a run costs a few steps, not a walk over all of it (core/sizes.nbytes would)."""
    if type(value) in _SCALARS:  # most of a page's names (its sizes, flags and keys): nothing to walk
        return False
    if type(value) in (str, bytes):
        return sys.getsizeof(value) > limit
    total, seen, stack = 0, set(), [value]
    while stack:
        obj = stack.pop()
        if id(obj) in seen or isinstance(obj, _KEEP_TYPES):
            continue
        seen.add(id(obj))
        if isinstance(obj, torch.Tensor):
            total += obj.untyped_storage().nbytes()
        elif isinstance(obj, np.ndarray):
            total += obj.nbytes
        else:
            total += sys.getsizeof(obj, 64)
            stack.extend(gc.get_referents(obj))
        if total > limit:
            return True
    return False
