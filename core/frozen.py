"""Read-only tensors and modules for objects shared by every session of the server.

`st.cache_resource` hands the *same* object to every session. If one page wrote into a cached
tensor in place (`w[0] = 0`, `x.add_(1)`, `model.W_q.weight.copy_(...)`), every other student
would see the change. Frozen objects make such a write fail loudly instead:

- a tensor becomes an inference tensor (`torch.inference_mode`): reading, slicing and any
  out-of-place maths work as before; an in-place write raises RuntimeError. (A `.numpy()`
  view is the one way around it; app code never writes through one.)
- a module's parameters become frozen buffers with the same names, so `model.W_q.weight`,
  `state_dict()` and the forward pass are unchanged, but nothing can train or edit them.
  (An nn.Parameter ignores the inference-tensor guard, hence buffers.)
- frozen dataclasses, tuples, lists and dicts are rebuilt with their tensors frozen.
"""

from __future__ import annotations

import dataclasses
from types import MappingProxyType

import torch
import torch.nn as nn


def freeze_tensor(t: torch.Tensor) -> torch.Tensor:
    if t.is_inference():
        return t
    with torch.inference_mode():
        return t.detach().clone()  # a copy: nobody holds a writable alias of the shared one


def freeze_module(module: nn.Module) -> nn.Module:
    """The same module (changed in place, returned) with every parameter and buffer read-only."""
    for sub in module.modules():
        for name, p in list(sub._parameters.items()):
            if p is None:
                continue
            del sub._parameters[name]
            sub.register_buffer(name, freeze_tensor(p))
        for name, b in list(sub._buffers.items()):
            if b is not None:
                sub._buffers[name] = freeze_tensor(b)
    module.eval()
    return module


def freeze(obj):
    """`obj` with every tensor and module inside it read-only (see the module docstring)."""
    if isinstance(obj, torch.Tensor):
        return freeze_tensor(obj)
    if isinstance(obj, nn.Module):
        return freeze_module(obj)
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        changes = {f.name: freeze(getattr(obj, f.name)) for f in dataclasses.fields(obj) if f.init}
        return dataclasses.replace(obj, **changes)
    if isinstance(obj, tuple):
        return tuple(freeze(x) for x in obj)
    if isinstance(obj, list):
        return tuple(freeze(x) for x in obj)  # a shared list could be appended to
    if isinstance(obj, dict):
        return MappingProxyType({k: freeze(v) for k, v in obj.items()})
    return obj


def is_frozen(obj) -> bool:
    """True when no tensor reachable through `obj` (as `freeze` walks it) can be written in place."""
    if isinstance(obj, torch.Tensor):
        return obj.is_inference()
    if isinstance(obj, nn.Module):
        return not any(True for _ in obj.parameters()) and all(b.is_inference() for b in obj.buffers())
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return all(is_frozen(getattr(obj, f.name)) for f in dataclasses.fields(obj))
    if isinstance(obj, list):
        return False
    if isinstance(obj, tuple):
        return all(is_frozen(x) for x in obj)
    if isinstance(obj, (dict, MappingProxyType)):
        return not isinstance(obj, dict) and all(is_frozen(v) for v in obj.values())
    return True
