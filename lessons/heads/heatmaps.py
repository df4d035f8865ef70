"""The attention heatmaps as plain descriptions (lessons.heatmap.Heatmap, drawn by ui.heatmaps.show_heatmap):
one colour range for a set of heads (`data_range`, `signed_range`), the grid of chosen heads (`heads_heatmap`, a
lessons.heatmap.head_grid) and the single full-width head (`one_head_heatmap`)."""

from __future__ import annotations

from collections.abc import Sequence

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


def one_head_heatmap(
    name: str, weights: torch.Tensor, tokens: Sequence[str], *, vrange: tuple[float, float]
) -> Heatmap:
    """One (T_q, T_k) matrix of weights (the single full-width head), rows queries, columns keys."""
    labels = tuple(str(tok) for tok in tokens)
    panel = Panel(
        values=readonly(weights), row_labels=labels[: weights.shape[0]], col_labels=labels[: weights.shape[1]]
    )
    return Heatmap(
        name=name,
        panels=(panel,),
        role="weights",
        vmin=float(vrange[0]),
        vmax=float(vrange[1]),
        row_axis=text("common.query"),
        col_axis=text("common.key"),
    )
