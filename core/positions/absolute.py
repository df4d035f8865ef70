"""2. Absolute positions, added to X: the sinusoidal table, the real model's learned table, how alike two
positions' rows are, and adding a table to X."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from core.limits import (
    D_MODEL_CHOICES,
    SINUSOID_POSITIONS_MAX,
    check_range,
)
from core.positions.freq_base import SINUSOID_BASE, check_base
from core.pretrained import Pretrained, position_table


def sinusoidal_table(n_positions: int, d_model: int, base: float = SINUSOID_BASE) -> torch.Tensor:
    """(n_positions, d_model): Vaswani et al.'s fixed position vectors, float32.

        PE[pos, 2i]   = sin(pos / base^(2i / d_model))      even columns
        PE[pos, 2i+1] = cos(pos / base^(2i / d_model))      odd columns: the same angle

    Each pair of columns is a clock turning at its own speed, from 1 radian per position (i = 0)
    down to ~1/base: nearby positions get similar vectors, far ones different. Computed in float64
    and rounded once, so every entry is the formula's value to float32 precision.
    """
    check_range("n_positions", n_positions, 1, SINUSOID_POSITIONS_MAX)
    check_range("d_model", d_model, 1, max(D_MODEL_CHOICES))
    check_base(base)
    pos = torch.arange(n_positions, dtype=torch.float64)[:, None]  # (P, 1)
    two_i = torch.arange(0, d_model, 2, dtype=torch.float64)  # (ceil(d/2),)  = 0, 2, 4, ...
    angles = pos / base ** (two_i / d_model)  # (P, ceil(d/2))
    table = torch.empty(n_positions, d_model, dtype=torch.float64)
    table[:, 0::2] = torch.sin(angles)  # columns 0, 2, 4, ...
    table[:, 1::2] = torch.cos(angles[:, : d_model // 2])  # columns 1, 3, 5, ... (one fewer if d is odd)
    return table.to(torch.float32)


def learned_table(model: Pretrained) -> torch.Tensor:
    """(512, 384): the real heads model's learned position table (`core.pretrained.position_table`).

    Detached: the page reads it, never trains it. (In the model, row p is added to the token vector
    at position p and the sum goes through a LayerNorm, see core/pretrained.py.)
    """
    return position_table(model).detach()


def position_similarity(table: torch.Tensor, n_positions: int | None = None) -> torch.Tensor:
    """(P, P): cosine similarity between the position vectors of positions 0..P-1 of a table.

    Shows what a table encodes: for the sinusoids, a band along the diagonal (neighbours alike);
    for a learned table, whatever training made of it.
    """
    if table.dim() != 2:
        raise ValueError(f"a position table must be (positions, d_model), got shape {tuple(table.shape)}")
    P = table.shape[0] if n_positions is None else check_range("n_positions", n_positions, 1, table.shape[0])
    rows = F.normalize(table[:P].float(), dim=-1)  # (P, d_model), each row of length 1
    return rows @ rows.T  # (P, P)


def add_positions(x: torch.Tensor, table: torch.Tensor) -> torch.Tensor:
    """(B, T, d_model): X + table[0..T-1], the token at position p gets row p added.

    The table must be as wide as X (a 384-wide learned table fits only a 384-wide model) and have
    at least T rows.
    """
    if x.dim() != 3 or table.dim() != 2:
        raise ValueError(
            f"x must be (B, T, d_model) and the table (positions, d_model), "
            f"got {tuple(x.shape)} and {tuple(table.shape)}"
        )
    T, d_model = x.shape[1], x.shape[2]
    if table.shape[1] != d_model:
        raise ValueError(
            f"the position table is {table.shape[1]} wide but X is {d_model} wide: "
            f"a position vector is added to a token vector, so both need the same width"
        )
    if table.shape[0] < T:
        raise ValueError(f"the position table has {table.shape[0]} rows, fewer than the {T} tokens")
    return x + table[:T].to(x.dtype)[None]  # (1, T, d_model) broadcast over the batch
