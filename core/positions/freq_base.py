"""The frequency base shared by the sinusoidal table and RoPE, and its check (core/positions/__init__.py says why
it must be above 1)."""

from __future__ import annotations

import math

from core.limits import (
    ROPE_BASE_MAX,
)

ROPE_BASE = 10_000.0  # the RoFormer paper's and Llama 1/2's base
SINUSOID_BASE = 10_000.0  # the 10000 of "Attention Is All You Need"


def check_base(base: float) -> float:
    if isinstance(base, bool) or not isinstance(base, (int, float)) or not math.isfinite(base):
        raise ValueError(f"base must be a finite number above 1, got {base!r}")
    if base <= 1:
        raise ValueError(
            f"base must be above 1, got {base}: pair i turns by base^(-2i/d_k) radians per position, "
            f"so a base above 1 gives every pair its own speed, from 1 down to about 1/base. With base 1 "
            f"every pair turns at the same 1 radian per position and the score repeats every "
            f"2 pi = 6.28 positions; below 1 the later pairs spin faster instead of slower, so no pair "
            f"turns slowly enough to tell far positions apart (and 0 or less gives no number at all)"
        )
    if base > ROPE_BASE_MAX:
        raise ValueError(f"base must be at most {ROPE_BASE_MAX:g} (limit in core/limits.py), got {base}")
    return float(base)
