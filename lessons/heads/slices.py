"""The "slice" section: one big W^Q cut into h column blocks is exactly the heads' W_i^Q (`block_slices`,
`slice_check`), the first numbers side by side (`slice_numbers`) and the two heatmaps (`slice_heatmaps`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from core.attention import MultiHeadAttention
from core.frozen import reading
from lessons.heads.heatmaps import signed_range
from lessons.heatmap import Heatmap, Panel, Rect, readonly, text


@dataclass(frozen=True)
class BlockSlice:
    head: int
    cols: tuple[int, int]  # columns first .. last+1 of the big W (seed orientation d_model x d_model)
    weight_diff: float  # max |W[:, cols] - W_i| (0.0: the very same numbers)
    bias_diff: float  # max |b[cols] - b_i|
    output_diff: float  # max |Q_i - (X W_i + b_i)|, Q_i the head's slice of the traced q_heads


def full_weight(model: MultiHeadAttention, role: str = "q") -> torch.Tensor:
    """The seed's W^Q (or W^K, W^V): (d_model in, d_model out); nn.Linear stores its transpose."""
    return {"q": model.W_q, "k": model.W_k, "v": model.W_v}[role].weight.detach().T


def block_slices(
    model: MultiHeadAttention, x: torch.Tensor, per_head: torch.Tensor, role: str = "q"
) -> list[BlockSlice]:
    """For every head: cut the big W into column blocks and compare with model.head_projection.

    `per_head` is the traced (B, h, T, d_k) tensor of that role (trace.q_heads for 'q').
    """
    layer = {"q": model.W_q, "k": model.W_k, "v": model.W_v}[role]
    d_k = model.d_k
    out = []
    with torch.no_grad(), reading():  # the shared run is only read, and only floats leave
        W = full_weight(model, role)  # (d_model, d_model)
        for i in range(model.num_heads):
            cols = (i * d_k, (i + 1) * d_k)
            w_i, b_i = model.head_projection(role, i)  # (d_model, d_k), (d_k,)
            w_diff = float((W[:, cols[0] : cols[1]] - w_i).abs().max())
            b_diff = 0.0 if b_i is None else float((layer.bias[cols[0] : cols[1]] - b_i).abs().max())
            direct = x @ w_i + (0 if b_i is None else b_i)  # (B, T, d_k): this head's own projection
            o_diff = float((per_head[:, i] - direct).abs().max())
            out.append(BlockSlice(i, cols, w_diff, b_diff, o_diff))
    return out


def slice_check(slices: Sequence[BlockSlice]) -> dict[str, float]:
    """The largest difference over all heads: weights (w), biases (b), outputs (o). 0.0: the very same numbers."""
    return {
        "w": max(b.weight_diff for b in slices),
        "b": max(b.bias_diff for b in slices),
        "o": max(b.output_diff for b in slices),
    }


def slice_numbers(model: MultiHeadAttention, head: int, *, rows: int = 4, cols: int = 4) -> dict[str, list]:
    """The first `rows` x `cols` numbers of head `head`'s block of the big W^Q beside the same of W_i^Q, column by
    column (6 decimals): the same numbers."""
    out = {}
    with reading():  # only strings leave
        W, w_i = full_weight(model, "q"), model.head_projection("q", head)[0].detach()  # (d_model, d_model), (.., d_k)
        d_model, d_k = w_i.shape
        n_rows, n_cols, c0 = min(d_model, rows), min(d_k, cols), head * d_k
        for j in range(n_cols):
            out[f"W^Q[:, {c0 + j}]"] = [f"{float(W[r, c0 + j]):.6f}" for r in range(n_rows)]
            out[f"W_{head}^Q[:, {j}]"] = [f"{float(w_i[r, j]):.6f}" for r in range(n_rows)]
    return out


def _no_negative_zero(values: np.ndarray, decimals: int = 4) -> np.ndarray:
    """`values` with the few tiny negatives that would print as "-0.0000" set to 0: the page sends these
    heatmaps as int16 codes of their printed numbers (ui.heatmaps compact, 16 x 512 twice at h = 1 passes
    64 KB as float32), and a code has no signed zero. Every other value is untouched."""
    tiny = (values < 0) & (values > -0.5 * 10.0**-decimals)
    if not tiny.any():
        return values
    out = np.where(tiny, np.float32(0.0), values).astype(np.float32)
    out.setflags(write=False)
    return out


def weight_blocks_heatmap(
    W: torch.Tensor, d_k: int, head: int, *, vrange: tuple[float, float], rows_shown: int
) -> Heatmap:
    """The first `rows_shown` rows of the big W (d_model in x d_model out): every head's block of d_k
    columns outlined (and marked by a colour strip above its columns), `head`'s block as the current one."""
    view = _no_negative_zero(readonly(W[:rows_shown]))
    n_rows, n_cols = view.shape
    h = max(1, n_cols // d_k)
    rects = tuple(Rect(0, 0, n_rows, i * d_k, (i + 1) * d_k, "done") for i in range(h) if i != head)
    rects += (Rect(0, 0, n_rows, head * d_k, (head + 1) * d_k, "current"),)
    panel = Panel(
        values=view,
        title=text("heads.hm.big", i=int(head)),
        row_labels=tuple(str(r) for r in range(n_rows)),
        col_labels=tuple(str(c) for c in range(n_cols)),
        col_groups=tuple(c // d_k for c in range(n_cols)),
    )
    return Heatmap(
        name=f"W_q-d{n_cols}-h{h}",
        panels=(panel,),
        role="signed",
        vmin=float(vrange[0]),
        vmax=float(vrange[1]),
        row_axis=text("heads.axis.in"),
        col_axis=text("heads.axis.out"),
        rects=rects,
    )


def head_weight_heatmap(
    w_i: torch.Tensor, head: int, *, vrange: tuple[float, float], rows_shown: int, first_col: int
) -> Heatmap:
    """W_i (d_model x d_k), its first `rows_shown` rows; the columns are labelled with the big W's column
    numbers (first_col ...), so a hover reads the same cell in both charts."""
    view = _no_negative_zero(readonly(w_i[:rows_shown]))
    n_rows, n_cols = view.shape
    panel = Panel(
        values=view,
        title=text("heads.hm.small", i=int(head)),
        row_labels=tuple(str(r) for r in range(n_rows)),
        col_labels=tuple(str(first_col + c) for c in range(n_cols)),
    )
    d_model = w_i.shape[0]
    return Heatmap(
        name=f"W_q-head{head}-d{d_model}-h{d_model // max(1, n_cols)}",
        panels=(panel,),
        role="signed",
        vmin=float(vrange[0]),
        vmax=float(vrange[1]),
        row_axis=text("heads.axis.in"),
        col_axis=text("heads.axis.dk"),
    )


def slice_heatmaps(model: MultiHeadAttention, head: int, *, rows_shown: int) -> tuple[Heatmap, Heatmap]:
    """The slice section's two heatmaps, in one colour range (the big W^Q's, symmetric about 0): the first
    `rows_shown` rows of W^Q with every head's block outlined, and head `head`'s own W_i^Q."""
    W = full_weight(model, "q")  # (d_model, d_model)
    w_i = model.head_projection("q", head)[0].detach()  # (d_model, d_k)
    vrange = signed_range(W)
    return (
        weight_blocks_heatmap(W, model.d_k, head, vrange=vrange, rows_shown=rows_shown),
        head_weight_heatmap(w_i, head, vrange=vrange, rows_shown=rows_shown, first_col=head * model.d_k),
    )
