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

import numpy as np
import torch

_SKIP = (types.ModuleType, type, types.FunctionType, types.BuiltinFunctionType, types.MethodType)
_MAX_DEPTH = 24


def nbytes(value: object) -> int:
    """Bytes held by `value` and everything it refers to (each object and tensor storage counted once)."""
    seen: set[int] = set()
    storages: set[tuple[int, int]] = set()
    total = 0
    stack = [(value, 0)]
    while stack:
        obj, depth = stack.pop()
        if obj is None or isinstance(obj, (bool, int, float, complex)) or isinstance(obj, _SKIP):
            total += 0 if obj is None or isinstance(obj, _SKIP) else sys.getsizeof(obj)
            continue
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        if isinstance(obj, torch.Tensor):
            storage = obj.untyped_storage()
            key = (storage.data_ptr(), storage.nbytes())
            if key not in storages:
                storages.add(key)
                total += storage.nbytes()
            total += 200  # the tensor object
            continue
        if isinstance(obj, np.ndarray):
            total += obj.nbytes + 112
            continue
        if isinstance(obj, (bytes, bytearray, memoryview, str)):
            total += sys.getsizeof(obj)
            continue
        if type(obj).__module__.startswith("pandas") and hasattr(obj, "memory_usage"):
            usage = obj.memory_usage(deep=True)
            total += int(usage.sum() if hasattr(usage, "sum") else usage)
            continue
        total += sys.getsizeof(obj, 64)
        if depth >= _MAX_DEPTH:
            continue
        if isinstance(obj, (dict, types.MappingProxyType)):  # core/frozen turns dicts into read-only mappings
            stack.extend((x, depth + 1) for kv in obj.items() for x in kv)
        elif isinstance(obj, (list, tuple, set, frozenset)):
            stack.extend((x, depth + 1) for x in obj)
        else:
            attrs = getattr(obj, "__dict__", None)
            if isinstance(attrs, dict):
                stack.append((attrs, depth + 1))
            for slot in getattr(type(obj), "__slots__", ()) or ():
                if isinstance(slot, str) and hasattr(obj, slot):
                    stack.append((getattr(obj, slot), depth + 1))
    return total
