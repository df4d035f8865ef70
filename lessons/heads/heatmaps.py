"""The attention heatmaps as plain descriptions (lessons.heatmap.Heatmap, drawn by ui.heatmaps.show_heatmap):
one colour range for a set of heads (`data_range`, `signed_range`), the grid of chosen heads (`heads_heatmap`, a
lessons.heatmap.head_grid) and the single full-width head beside the chosen heads (`single_vs_heads_heatmap`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np
import torch

from lessons.heatmap import Heatmap, Panel, head_grid, readonly, text


def data_range(values: torch.Tensor | np.ndarray) -> tuple[float, float]:
    """min..max over the finite values (NaN, inf and a mask's -1e9 are skipped), widened by 1 when flat:
    one colour range for a whole set of heads, even those not drawn. (In numpy: a shared, read-only tensor
    pays a Python hook per torch operation.)"""
    a = np.asarray(values.detach().cpu().numpy() if hasattr(values, "detach") else values, dtype=np.float32)
    ok = np.isfinite(a) & (np.abs(a) < 1e8)
    if not ok.all():
        a = a[ok]
    if a.size == 0:
        return -1.0, 1.0
    lo, hi = float(a.min()), float(a.max())
    return (lo, hi) if lo < hi else (lo - 1.0, hi + 1.0)


def signed_range(values: torch.Tensor | np.ndarray) -> tuple[float, float]:
    """data_range made symmetric about 0 (signed values: weights of a projection)."""
    lo, hi = data_range(values)
    m = max(abs(lo), abs(hi))
    return -m, m


def heads_heatmap(
    name: str,
    weights: torch.Tensor,
    heads: Sequence[int],
    tokens: Sequence[str],
    *,
    vrange: tuple[float, float],
    columns: int = 0,
) -> Heatmap:
    """Attention weights (h, T_q, T_k) of the chosen heads, one panel per head titled "head i"
    (text "heads.hm.head"), rows the queries and columns the keys (their tokens as labels): a
    lessons.heatmap.head_grid."""
    labels = tuple(str(tok) for tok in tokens)
    rows, cols = weights.shape[-2], weights.shape[-1]
    return head_grid(
        name,
        [weights[i] for i in heads],
        heads,
        title=lambda i: text("heads.hm.head", i=i),
        role="weights",
        vrange=vrange,
        row_axis=text("common.query"),
        col_axis=text("common.key"),
        row_labels=labels[:rows],
        col_labels=labels[:cols],
        panel_columns=columns,
    )


def single_vs_heads_heatmap(
    name: str,
    single: torch.Tensor,
    weights: torch.Tensor,
    heads: Sequence[int],
    tokens: Sequence[str],
    *,
    d_model: int,
    vrange: tuple[float, float],
) -> Heatmap:
    """The single full-width head's (T_q, T_k) weights as the first panel (text "heads.hm.single"), then the
    chosen heads of `weights` (h, T_q, T_k): one chart, so every panel has one cell size and one colour range
    and the eye compares like with like (two charts side by side drew the one head at a third of the size)."""
    grid = heads_heatmap(name, weights, heads, tokens, vrange=vrange)
    labels = tuple(str(tok) for tok in tokens)
    one = Panel(
        values=readonly(single),
        title=text("heads.hm.single", d=d_model),
        row_labels=labels[: single.shape[0]],
        col_labels=labels[: single.shape[1]],
    )
    return replace(grid, panels=(one, *grid.panels))
