"""Section 4: the real model's learned position table, its cosine similarity next to a sinusoidal table's."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from core import positions as P
from core.limits import SINUSOID_POSITIONS_MAX
from core.pretrained import Pretrained
from lessons.heatmap import Heatmap, Text, text
from lessons.positions.common import SIMILARITY_SIDE_MAX, SPANS, Table, _heatmap, _np


# ================================================================ 4. the real model's learned table
@dataclass(frozen=True)
class LearnedView:
    """How the real model's 512 learned position vectors resemble each other (cosine), next to sinusoids."""

    table_shape: tuple[int, int]  # (512, 384)
    first_values: np.ndarray  # row 0's first 4 numbers (the checkpoint's, as the proofs check)
    span: int  # positions 0..span-1
    stride: int  # every stride-th position is a row/column of the heatmaps (1 up to SIMILARITY_SIDE_MAX positions)
    positions: np.ndarray  # the positions shown
    # (n, n) cosine similarity, rows and cols position numbers: panel 0 the learned table, panel 1 a 384-wide
    # sinusoidal table (a fixed formula) for comparison
    similarity: Heatmap
    learned_neighbour: float  # mean cosine of positions p and p+1, p in 0..span-2 (at full resolution)
    learned_far: float  # mean cosine of pairs at least span/2 apart
    sinusoidal_neighbour: float
    sinusoidal_far: float


def _near_far(sim: torch.Tensor) -> tuple[float, float]:
    n = sim.shape[0]
    gap = (torch.arange(n)[:, None] - torch.arange(n)[None, :]).abs()
    return float(torch.diagonal(sim, 1).mean()), float(sim[gap >= n // 2].mean())


def learned_view(real: Pretrained, span: int) -> LearnedView:
    """Section 4. `span` is one of SPANS (parse_pos_span); above SIMILARITY_SIDE_MAX positions the heatmap
    shows every (span / SIMILARITY_SIDE_MAX)-th one, so the page never sends more than 64 x 64 cells a panel."""
    if span not in SPANS:
        raise ValueError(f"span must be one of {SPANS}, got {span!r}")
    table = P.learned_table(real)  # (512, 384)
    sines = P.sinusoidal_table(min(span, SINUSOID_POSITIONS_MAX), table.shape[1])  # (span, 384)
    stride = max(1, span // SIMILARITY_SIDE_MAX)
    shown = torch.arange(0, span, stride)
    sim_l = P.position_similarity(table, span)  # (span, span)
    sim_s = P.position_similarity(sines)
    labels = tuple(str(int(p)) for p in shown)
    ln, lf = _near_far(sim_l)
    sn, sf = _near_far(sim_s)
    return LearnedView(
        table_shape=(int(table.shape[0]), int(table.shape[1])),
        first_values=_np(table[0, :4]),
        span=span,
        stride=stride,
        positions=_np(shown),
        similarity=_heatmap(
            f"position-similarity-{span}",
            [
                (_np(sim_l[shown][:, shown]), labels, labels, "pos.kind.learned"),
                (_np(sim_s[shown][:, shown]), labels, labels, "pos.kind.sinusoidal"),
            ],
            "similarity",
            -1.0,
            1.0,
            "position",
            "position",
        ),
        learned_neighbour=ln,
        learned_far=lf,
        sinusoidal_neighbour=sn,
        sinusoidal_far=sf,
    )


def learned_numbers(v: LearnedView) -> dict[str, dict[str, object]]:
    """The numbers of the section's caption (`pos.learned.shape`), as the page prints them."""
    first = ", ".join(f"{x:.4f}" for x in v.first_values)
    shape = {"rows": v.table_shape[0], "cols": v.table_shape[1], "first": first, "last": v.span - 1, "stride": v.stride}
    return {"shape": shape}


def similarity_table(v: LearnedView) -> Table:
    """The mean cosine of neighbouring positions and of positions at least span/2 apart, learned vs sinusoidal."""
    return Table(
        (
            (text("pos.learned.col.table"), (text("pos.kind.learned"), text("pos.kind.sinusoidal"))),
            (text("pos.learned.col.near"), (f"{v.learned_neighbour:.3f}", f"{v.sinusoidal_neighbour:.3f}")),
            (text("pos.learned.col.far", half=v.span // 2), (f"{v.learned_far:.3f}", f"{v.sinusoidal_far:.3f}")),
        )
    )


def learned_shape(v: LearnedView) -> Text:
    """The section's caption: the table's shape, row 0's first numbers, the positions shown (all of them at stride
    1, else every stride-th)."""
    shape = learned_numbers(v)["shape"]
    return text("pos.learned.shape" if v.stride > 1 else "pos.learned.shape_all", **shape)


def learned_read(v: LearnedView) -> Text:
    """How to read the heatmaps, chosen by the table beside them: when neighbours are more alike than far positions
    in both tables, the cells near the diagonal take the +1 end of the colour bar (the similarity scale is
    diverging: +1 its darkest red, or darkest orange in the high-contrast palette, 0 its palest middle); else the
    sentence says the learned table shows no such fall-off."""
    kw = {
        "near": f"{v.learned_neighbour:.3f}",
        "far": f"{v.learned_far:.3f}",
        "half": v.span // 2,
    }
    both = v.learned_neighbour > v.learned_far and v.sinusoidal_neighbour > v.sinusoidal_far
    return text("pos.learned.read" if both else "pos.learned.read_flat", **kw)
