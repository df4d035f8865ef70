"""How many bytes a cached value holds: the measure of every byte-bounded cache (core/limits.py budgets).

Counts what dominates a cached value's memory: tensor storages (each storage once, however many views
share it), NumPy buffers, pandas frames, bytes and strings, plus the containers and objects around them
(dicts, lists, tuples, dataclasses, objects' attributes, nn.Module parameters). Modules, classes and
functions are not counted (they are shared by the whole program). An estimate, never an undercount of
the tensors and arrays that make a run or a figure large.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Iterable

import numpy as np
import torch

_SKIP = (types.ModuleType, type, types.FunctionType, types.BuiltinFunctionType, types.MethodType)
_MAX_DEPTH = 24
_NUMBERS = frozenset({bool, int, float, complex})
_TEXT = frozenset({str, bytes})


def nbytes(value: object) -> int:
    """Bytes held by `value` and everything it refers to (each object and tensor storage counted once)."""
    # Every value the shared cache keeps is measured here, on every new value a step makes (a softmax tiles walk at
    # 512/16/32: ~3,000 objects), so the common kinds come first by exact type, and numbers and None are counted
    # where they are found instead of being pushed on the stack.
    seen: set[int] = set()
    storages: set[tuple[int, int]] = set()
    total = 0
    stack = [(value, 0)]
    push = stack.append
    getsizeof = sys.getsizeof
    while stack:
        obj, depth = stack.pop()
        kind = type(obj)
        if kind in _NUMBERS:
            total += getsizeof(obj)
            continue
        if obj is None or isinstance(obj, _SKIP):
            continue
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        if kind in _TEXT:
            total += getsizeof(obj)
            continue
        if isinstance(obj, np.ndarray):
            total += obj.nbytes + 112
            continue
        if isinstance(obj, torch.Tensor):
            storage = obj.untyped_storage()
            key = (storage.data_ptr(), storage.nbytes())
            if key not in storages:
                storages.add(key)
                total += storage.nbytes()
            total += 200  # the tensor object
            continue
        if isinstance(obj, (bytearray, memoryview, str)):
            total += getsizeof(obj)
            continue
        if kind.__module__.startswith("pandas") and hasattr(obj, "memory_usage"):
            usage = obj.memory_usage(deep=True)
            total += int(usage.sum() if hasattr(usage, "sum") else usage)
            continue
        total += getsizeof(obj, 64)
        if depth >= _MAX_DEPTH:
            continue
        depth += 1
        children: Iterable[object]
        if isinstance(obj, (dict, types.MappingProxyType)):  # core/frozen turns dicts into read-only mappings
            children = [x for kv in obj.items() for x in kv]
        elif isinstance(obj, (list, tuple, set, frozenset)):
            children = obj
        else:
            attrs = getattr(obj, "__dict__", None)
            found = [attrs] if isinstance(attrs, dict) else []
            for slot in getattr(kind, "__slots__", ()) or ():
                if isinstance(slot, str) and hasattr(obj, slot):
                    found.append(getattr(obj, slot))
            children = found
        for x in children:
            if type(x) in _NUMBERS:
                total += getsizeof(x)
            elif x is not None:
                push((x, depth))
    return total
