"""Read-only tensors and modules for objects shared by every session of the server.

`st.cache_resource` hands the *same* object to every session. If one page wrote into a cached
tensor in place (`w[0] = 0`, `x.add_(1)`, `model.W_q.weight.copy_(...)`), every other student
would see the change. Frozen objects make such a write fail loudly, before anything is written:

- a tensor becomes a `ReadOnlyTensor`: reading, slicing and any out-of-place maths work as before
  (results are ordinary tensors, unless they share its memory: views stay read-only); an in-place
  op, `x[i] = v`, or `out=` into it raises `ReadOnlyError`. `.numpy()` gives a read-only array.
  (torch's own inference tensors were tried first: torch 2.13 raises *after* writing into them.)
- a module's parameters become read-only buffers with the same names, so `model.W_q.weight`,
  `state_dict()` and the forward pass are unchanged, but nothing can train or edit them.
- frozen dataclasses, tuples, lists and dicts are rebuilt with their tensors frozen (lists
  become tuples, dicts read-only mappings).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import MappingProxyType
from typing import Any

import numpy as np
import torch
import torch.nn as nn

# Attribute a frozen module keeps: the names of its buffers that were parameters before freezing.
FROZEN_PARAMETERS = "_frozen_parameter_names"


class ReadOnlyError(RuntimeError):
    pass


_WRITERS = {"__setitem__", "__delitem__", "set_", "resize_", "resize_as_", "share_memory_", "storage"}


def _same_memory(a: torch.Tensor, b: torch.Tensor) -> bool:
    try:
        return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()
    except (RuntimeError, NotImplementedError):
        return False


class ReadOnlyTensor(torch.Tensor):
    """A tensor that refuses every write (see the module docstring)."""

    @classmethod
    def __torch_function__(
        cls, func: Callable[..., Any], types: Any, args: tuple[Any, ...] = (), kwargs: dict[str, Any] | None = None
    ) -> Any:
        kwargs = kwargs or {}
        name = getattr(func, "__name__", "")
        target = args[0] if args else None
        in_place = name.endswith("_") and not name.startswith("__")
        if isinstance(target, ReadOnlyTensor) and (
            name in _WRITERS or in_place or name in ("__iadd__", "__isub__", "__imul__", "__itruediv__")
        ):
            raise ReadOnlyError(f"this tensor is shared by every session and read-only ({name}); clone() it first")
        out = kwargs.get("out")
        if any(isinstance(o, ReadOnlyTensor) for o in (out if isinstance(out, (tuple, list)) else (out,))):
            raise ReadOnlyError("out= into a read-only shared tensor")
        with torch._C.DisableTorchFunctionSubclass():
            result = func(*args, **kwargs)
        sources = [a for a in args if isinstance(a, ReadOnlyTensor)]
        if name == "numpy":
            result.flags.writeable = False
            return result
        if (
            isinstance(result, torch.Tensor)
            and not isinstance(result, ReadOnlyTensor)
            and any(_same_memory(result, s) for s in sources)
        ):
            return result.as_subclass(ReadOnlyTensor)  # a view (x[0], x.T, x.detach(), x.data) stays read-only
        return result


@contextmanager
def reading() -> Iterator[None]:
    """Inside, ops on read-only tensors skip the checks above, and their results are plain tensors: for a function
    that only reads a shared value, op after op (each check costs a few microseconds in Python: the heads page's
    block_slices at 512/16/32 makes ~110 ops, 3.4 -> 1.2 ms). Write nothing inside, and let no tensor made inside
    leave the function: a view of a shared tensor made here is writable (return numbers, strings or copies)."""
    with torch._C.DisableTorchFunctionSubclass():
        yield


def freeze_tensor(t: torch.Tensor) -> torch.Tensor:
    if isinstance(t, ReadOnlyTensor):
        return t
    # A copy: nobody keeps a writable alias of the shared memory.
    return t.detach().clone().as_subclass(ReadOnlyTensor)


def freeze_module(module: nn.Module) -> nn.Module:
    """The same module (changed in place, returned) with every parameter and buffer read-only."""
    for sub in module.modules():
        was_parameter = set(getattr(sub, FROZEN_PARAMETERS, ()))
        for name, p in list(sub._parameters.items()):
            if p is None:
                continue
            del sub._parameters[name]
            sub.register_buffer(name, freeze_tensor(p))
            was_parameter.add(name)
        # Which buffers were learned weights (core.accounting.weight_count counts them; parameters() no longer does).
        object.__setattr__(sub, FROZEN_PARAMETERS, frozenset(was_parameter))
        for name, b in list(sub._buffers.items()):
            if b is not None:
                sub._buffers[name] = freeze_tensor(b)
    module.eval()
    return module


# Values freeze() leaves as they are without looking further: they hold no tensor (a tuple of them is kept whole).
_PLAIN = frozenset({str, int, float, bool, bytes, complex, type(None)})
# Kept as they are too, found by their exact type before the checks below (a softmax tiles walk at 512/16/32 holds ~650
# of them): a NumPy array (the lessons hand read-only copies; no tensor inside) and a read-only mapping (freeze's own
# output for a dict: freeze never looks inside one).
_KEPT = frozenset({np.ndarray, MappingProxyType})


@functools.lru_cache(maxsize=256)  # bounded: a page file run again defines its classes again
def _init_fields(kind: type) -> tuple[str, ...]:
    """The fields a dataclass is rebuilt with (dataclasses.fields() builds its tuple anew on every call)."""
    return tuple(f.name for f in dataclasses.fields(kind) if f.init)


def freeze(obj: Any) -> Any:
    """`obj` with every tensor and module inside it read-only (see the module docstring)."""
    # The cache freezes every value it keeps, so this walk runs on every new value a step makes (a softmax tiles
    # walk at 512/16/32: ~12,000 objects, most of them labels): plain values first, and a dataclass or tuple with
    # nothing to freeze inside is kept as it is (rebuilt, a dataclass would run its __post_init__ checks again).
    kind: Any = type(obj)
    if kind in _PLAIN or kind in _KEPT:
        return obj
    if isinstance(obj, torch.Tensor):
        return freeze_tensor(obj)
    if isinstance(obj, nn.Module):
        return freeze_module(obj)
    if isinstance(obj, tuple):
        if all(type(x) in _PLAIN for x in obj):
            return obj
        items = tuple(freeze(x) for x in obj)
        return obj if all(a is b for a, b in zip(items, obj)) else items
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        changes = {}
        for name in _init_fields(kind):
            old = getattr(obj, name)
            new = freeze(old)
            if new is not old:
                changes[name] = new
        return dataclasses.replace(obj, **changes) if changes else obj
    if isinstance(obj, list):
        return tuple(freeze(x) for x in obj)  # a shared list could be appended to
    if isinstance(obj, dict):
        return MappingProxyType({k: freeze(v) for k, v in obj.items()})
    return obj


def is_frozen(obj: object) -> bool:
    """True when no tensor reachable through `obj` (as `freeze` walks it) can be written in place."""
    if isinstance(obj, torch.Tensor):
        return isinstance(obj, ReadOnlyTensor)
    if isinstance(obj, nn.Module):
        return not any(True for _ in obj.parameters()) and all(isinstance(b, ReadOnlyTensor) for b in obj.buffers())
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return all(is_frozen(getattr(obj, f.name)) for f in dataclasses.fields(obj))
    if isinstance(obj, list):
        return False
    if isinstance(obj, tuple):
        return all(is_frozen(x) for x in obj)
    if isinstance(obj, (dict, MappingProxyType)):
        return not isinstance(obj, dict) and all(is_frozen(v) for v in obj.values())
    return True
