"""Attention masks in the seed's convention: 1 (True) = keep, 0 (False) = blocked.

`scores.masked_fill(mask == 0, fill_value)` runs before the softmax, so a blocked cell
gets weight exp(fill - max) ~ 0. Every builder returns a bool tensor shaped to
broadcast to (B, h, T_q, T_k).

What a fully blocked row does, by fill value (defined behaviour, tested):
- FILL_SEED = -1e9: every cell of the row becomes exactly -1e9, so the softmax sees equal
  numbers and returns uniform weights 1/T_k: the query silently attends to everything.
- FILL_NEG_INF = -inf: the softmax computes exp(-inf - (-inf)) = exp(nan), so the row is NaN,
  and the NaN flows into that query's output. Nothing raises; `fully_blocked_rows` finds them.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from core.limits import MAX_GRID_CHARS

FILL_SEED = -1e9
FILL_NEG_INF = float("-inf")
FILL_VALUES = {"-1e9": FILL_SEED, "-inf": FILL_NEG_INF}

MASK_KINDS = ("none", "causal", "padding", "custom")


def causal_mask(T_q: int, T_k: int | None = None) -> torch.Tensor:
    """(1, 1, T_q, T_k): query i may look at keys 0..i, never at later tokens (top-left aligned)."""
    T_k = T_q if T_k is None else T_k
    return torch.ones(T_q, T_k, dtype=torch.bool).tril()[None, None]  # (1, 1, T_q, T_k)


def padding_mask_from_lengths(lengths: torch.Tensor | Sequence[int], T_k: int) -> torch.Tensor:
    """(B, 1, 1, T_k): in sequence b, keys at positions >= lengths[b] are padding."""
    lengths = torch.as_tensor(lengths, dtype=torch.long).reshape(-1)  # (B,)
    if (lengths < 0).any() or (lengths > T_k).any():
        raise ValueError(f"lengths must be in 0..{T_k}, got {lengths.tolist()}")
    positions = torch.arange(T_k)  # (T_k,)
    keep = positions[None, :] < lengths[:, None]  # (B, T_k)
    return keep[:, None, None, :]  # (B, 1, 1, T_k)


def padding_mask_from_flags(is_pad: torch.Tensor | Sequence[bool] | Sequence[Sequence[bool]]) -> torch.Tensor:
    """(B, 1, 1, T_k) from a (B, T_k) or (T_k,) flag per key token, True = padding."""
    is_pad = torch.as_tensor(is_pad, dtype=torch.bool)
    if is_pad.dim() == 1:
        is_pad = is_pad[None]  # (1, T_k)
    if is_pad.dim() != 2:
        raise ValueError(f"pad flags must be (T_k,) or (B, T_k), got shape {tuple(is_pad.shape)}")
    return (~is_pad)[:, None, None, :]  # (B, 1, 1, T_k)


def custom_mask(matrix: torch.Tensor | Sequence[Sequence[int]]) -> torch.Tensor:
    """(1, 1, T_q, T_k) from a hand-drawn (T_q, T_k) grid of 1 = keep / 0 = blocked."""
    m = torch.as_tensor(matrix)
    if m.dim() != 2:
        raise ValueError(f"a custom mask must be a 2-D (T_q, T_k) grid, got shape {tuple(m.shape)}")
    return (m != 0)[None, None]  # (1, 1, T_q, T_k)


def combine(*masks: torch.Tensor | None) -> torch.Tensor | None:
    """Keep a cell only where every mask keeps it (e.g. causal AND padding)."""
    present = [m for m in masks if m is not None]
    if not present:
        return None
    out = present[0].bool()
    for m in present[1:]:
        out = out & m.bool()
    return out


def flip_polarity(mask: torch.Tensor) -> torch.Tensor:
    """Seed convention (True = keep) <-> the `True = blocked` convention of e.g. nn.MultiheadAttention."""
    return ~mask.bool()


def full_grid(mask: torch.Tensor | None, B: int, T_q: int, T_k: int) -> torch.Tensor:
    """The mask expanded to (B, T_q, T_k) for drawing (all True when there is no mask)."""
    if mask is None:
        return torch.ones(B, T_q, T_k, dtype=torch.bool)
    m = mask.bool()
    if m.dim() == 2:
        m = m[None, None]
    return m.expand(B, m.shape[1], T_q, T_k)[:, 0]  # (B, T_q, T_k)


def fully_blocked_rows(mask: torch.Tensor | None, B: int, T_q: int, T_k: int) -> torch.Tensor:
    """(B, T_q) True where a query may attend to no key at all."""
    return ~full_grid(mask, B, T_q, T_k).any(dim=-1)


def mask_to_text(grid: torch.Tensor | Sequence[Sequence[int]]) -> str:
    """A (T_q, T_k) keep-grid as URL-safe text: rows of 1/0 joined by '.', e.g. '10.11'."""
    g = torch.as_tensor(grid).bool()
    return ".".join("".join("1" if x else "0" for x in row) for row in g.tolist())


def mask_from_text(text: str, T_q: int, T_k: int) -> torch.Tensor:
    """Parse `mask_to_text` output into a (T_q, T_k) bool grid, or raise ValueError saying why."""
    if text and len(str(text)) > MAX_GRID_CHARS:  # never split an unbounded string
        raise ValueError(f"custom mask text is longer than any grid ({MAX_GRID_CHARS} characters)")
    rows = str(text).split(".") if text else []
    if len(rows) != T_q or any(len(r) != T_k for r in rows):
        raise ValueError(f"custom mask must be {T_q} rows of {T_k} characters 0/1 separated by '.'")
    if any(c not in "01" for r in rows for c in r):
        raise ValueError("custom mask may only contain 0, 1 and '.'")
    return torch.tensor([[c == "1" for c in r] for r in rows], dtype=torch.bool)  # (T_q, T_k)
