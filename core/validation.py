"""Checks with messages that say what is wrong and what would be valid."""

from __future__ import annotations

import torch

# The class itself accepts real model sizes; the app's sliders use tighter limits (lessons/settings.py).
MAX_D_MODEL = 8192


def divisors(n: int) -> list[int]:
    """All h that split n evenly, ascending."""
    return [d for d in range(1, n + 1) if n % d == 0]


def _is_int(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def check_model_dims(d_model: int, num_heads: int) -> None:
    if not _is_int(d_model) or not 1 <= d_model <= MAX_D_MODEL:
        raise ValueError(f"d_model must be an integer from 1 to {MAX_D_MODEL}, got {d_model!r}")
    if not _is_int(num_heads) or num_heads < 1:
        raise ValueError(f"num_heads must be a positive integer, got {num_heads!r}")
    if d_model % num_heads != 0:
        raise ValueError(
            f"d_model ({d_model}) must be divisible by num_heads ({num_heads}); "
            f"valid num_heads for d_model={d_model}: {divisors(d_model)}"
        )


def check_kv_heads(num_heads: int, num_kv_heads: object) -> int:
    """num_kv_heads as an int that divides num_heads (1 = multi-query, num_heads = plain MHA), or ValueError.

    Each group of num_heads // num_kv_heads query heads reads one K/V head, so the groups must be equal.
    """
    allowed = divisors(num_heads)
    if not _is_int(num_kv_heads) or num_kv_heads not in allowed:
        raise ValueError(
            f"num_kv_heads must divide num_heads ({num_heads}): one of {allowed} "
            f"(1 = multi-query, {num_heads} = multi-head), got {num_kv_heads!r}"
        )
    return num_kv_heads


def check_mask(mask: torch.Tensor, B: int, h: int, T_q: int, T_k: int) -> torch.Tensor:
    """Return the mask viewed as 4-D, broadcastable to (B, h, T_q, T_k), or raise ValueError.

    Accepted: (T_q, T_k), or 4-D with each axis equal to the target or 1
    (e.g. (B, 1, 1, T_k) for key padding, (1, 1, T_q, T_k) for causal).
    A 3-D mask is refused: (B, T_q, T_k) would broadcast its batch axis onto the heads.
    """
    if not isinstance(mask, torch.Tensor):
        raise ValueError(f"mask must be a torch.Tensor, got {type(mask).__name__}")
    target = (B, h, T_q, T_k)
    if mask.dim() == 2:
        mask = mask[None, None]  # (1, 1, T_q, T_k)
    elif mask.dim() != 4:
        raise ValueError(
            f"mask must be 2-D (T_q, T_k) or 4-D broadcastable to (B, h, T_q, T_k) = {target}; "
            f"got {mask.dim()}-D shape {tuple(mask.shape)}"
        )
    for size, want, axis in zip(mask.shape, target, ("B", "h", "T_q", "T_k")):
        if size not in (1, want):
            raise ValueError(
                f"mask shape {tuple(mask.shape)} does not broadcast to (B, h, T_q, T_k) = {target}: "
                f"axis {axis} is {size}, must be 1 or {want}"
            )
    return mask
