"""The page's heatmaps as lessons.heatmap.Heatmap: the mask with its stored 0/1 as marks, the masked scores with
their blocked cells and fill value, the weights with NaN marked, and the polarity bug's two charts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from lessons.heatmap import Heatmap, Mark, Panel, Text, axis_labels, readonly, text, value_range
from lessons.masks_lab.bug import PolarityBug
from lessons.masks_lab.choices import shown_values
from lessons.masks_lab.run import LabRun

# ------------------------------------------------------------------ heatmaps (plain data: lessons.heatmap)
MASK_STATES = ("masks.state.keep", "masks.state.blocked")  # the mask chart's codes: 0 = keep (light), 1 = blocked


def _mask_marks(polarity: str) -> tuple[Mark, Mark]:
    """Marks 1 and 2: the stored 0 and 1 under `polarity`, printed in the cell and worded in the hover
    ('mask = 0 (1 = keep)')."""
    zero, one = (Mark(str(v), text(f"masks.hover.mask.{polarity}", v=v)) for v in (0, 1))
    return zero, one


def mask_heatmap(
    keep: torch.Tensor | None,
    polarity: str,
    q_labels: Sequence[str],
    k_labels: Sequence[str],
    *,
    title: Text | None,
    name: str,
    clickable: bool = False,
    panels: Sequence[tuple[torch.Tensor | None, str, Text | None]] | None = None,
) -> Heatmap:
    """The mask as a grid: light = keep, dark = blocked (states, with a worded legend); each cell prints the
    number stored under `polarity` (1 = keep, or 1 = blocked). `panels`: several masks side by side
    [(keep, polarity, title)], else the one given."""
    rows, cols = axis_labels(q_labels), axis_labels(k_labels)
    specs = panels or [(keep, polarity, title)]
    marks: list[Mark] = []
    out: list[Panel] = []
    for keep_p, pol, title_p in specs:
        hover = marks[0].hover if marks else None  # every mask mark is worded (_mask_marks)
        if hover is None or hover.key != f"masks.hover.mask.{pol}":
            base = len(marks)
            marks.extend(_mask_marks(pol))
        else:
            base = 0
        k = torch.as_tensor(keep_p).bool()
        codes = shown_values(k, pol).numpy().astype(np.uint8) + 1 + base  # mark number (1-based)
        codes.setflags(write=False)
        out.append(Panel(values=readonly((~k).float()), title=title_p, row_labels=rows, col_labels=cols, marks=codes))
    return Heatmap(
        name=name,
        panels=tuple(out),
        role="state",
        vmin=0.0,
        vmax=1.0,
        decimals=0,
        row_axis=text("common.query"),
        col_axis=text("common.key"),
        clickable=clickable,
        states=MASK_STATES,
        marks=tuple(marks),
    )


def score_range(run: LabRun, head: int) -> tuple[float, float]:
    """One signed colour range for every sequence of head `head`: over the kept (unmasked) scores."""
    m = run.trace.masked_scores[:, head]  # (B, T_q, T_k)
    kept = m[run.keep & torch.isfinite(m)]
    return value_range("signed", [kept.numpy()])


def scores_heatmap(
    masked: torch.Tensor,
    keep: torch.Tensor,
    fill: str,
    q_labels: Sequence[str],
    k_labels: Sequence[str],
    *,
    title: Text | None,
    name: str,
    zrange: tuple[float, float],
) -> Heatmap:
    """Masked scores: kept cells coloured by value (signed), blocked cells hatched grey and printed with the
    fill value ('-1e9' or '-inf'), which their hover names too."""
    keep = torch.as_tensor(keep).bool()
    blocked = (~keep).numpy()
    blocked.setflags(write=False)
    marks = blocked.astype(np.uint8)  # mark 1 on every blocked cell: the fill value
    marks.setflags(write=False)
    panel = Panel(
        values=readonly(masked),
        title=title,
        row_labels=axis_labels(q_labels),
        col_labels=axis_labels(k_labels),
        blocked=blocked,
        marks=marks,
    )
    return Heatmap(
        name=name,
        panels=(panel,),
        role="signed",
        vmin=zrange[0],
        vmax=zrange[1],
        decimals=4,
        row_axis=text("common.query"),
        col_axis=text("common.key"),
        marks=(Mark(fill),),
    )


def weights_heatmap(
    weights_list: Sequence[torch.Tensor],
    q_labels: Sequence[str],
    k_labels: Sequence[str],
    *,
    titles: Sequence[Text | None],
    name: str,
) -> Heatmap:
    """Softmax weights on 0..1, one panel per matrix given; a NaN cell (a fully blocked row under -inf) is drawn
    as blocked (hatched: every key of its row is) and prints NaN (cell and hover: 'blocked (NaN)')."""
    rows, cols = axis_labels(q_labels), axis_labels(k_labels)
    panels: list[Panel] = []
    for w, title in zip(weights_list, titles):
        values = readonly(w)
        nan = np.isnan(values)
        marks: np.ndarray | None = None
        blocked: np.ndarray | None = None
        if nan.any():
            marks = nan.astype(np.uint8)
            marks.setflags(write=False)
            blocked = nan.copy()
            blocked.setflags(write=False)
        panels.append(Panel(values=values, title=title, row_labels=rows, col_labels=cols, blocked=blocked, marks=marks))
    return Heatmap(
        name=name,
        panels=tuple(panels),
        role="weights",
        vmin=0.0,
        vmax=1.0,
        decimals=4,
        row_axis=text("common.query"),
        col_axis=text("common.key"),
        marks=(Mark("NaN"),),
    )


@dataclass(frozen=True)
class LabView:
    """Sequence b's three charts of the first section: the mask, the masked scores, the weights (one head)."""

    mask: Heatmap
    scores: Heatmap
    weights: Heatmap


def lab_view(run: LabRun, b: int, head: int, polarity: str, *, clickable: bool = False) -> LabView:
    """Sequence b's mask (clickable: the hand-drawn grid), masked scores and weights of head `head`."""
    T_q, T_k = run.setup.T_q, run.setup.T_k
    ql, kl = run.q_labels[b], run.k_labels[b]
    keep = run.keep[b]
    tag = f"seq{b}-{polarity}-head{head}-T{T_q}x{T_k}"
    return LabView(
        mask=mask_heatmap(
            keep,
            polarity,
            ql,
            kl,
            title=text(f"masks.fig.mask.{polarity}"),
            name=f"mask-{tag}",
            clickable=clickable,
        ),
        scores=scores_heatmap(
            run.trace.masked_scores[b, head],
            keep,
            run.setup.fill,
            ql,
            kl,
            title=text("masks.fig.scores", h=head),
            name=f"masked-scores-{tag}",
            zrange=score_range(run, head),
        ),
        weights=weights_heatmap(
            [run.trace.weights[b, head]], ql, kl, titles=[text("masks.fig.weights", h=head)], name=f"weights-{tag}"
        ),
    )


@dataclass(frozen=True)
class BugView:
    """The polarity bug's two charts: the stored mask beside what the seed's code keeps of it, then the right
    weights beside the wrong ones (head `head`). Two panels a chart stay readable on a phone."""

    masks: Heatmap
    weights: Heatmap


def bug_view(bug: PolarityBug, head: int) -> BugView:
    labels = bug.labels
    T = len(labels)
    return BugView(
        masks=mask_heatmap(
            None,
            "block",
            labels,
            labels,
            title=None,
            name=f"polarity-bug-masks-T{T}",
            panels=[(bug.intended, "block", text("masks.bug.stored")), (bug.seen_keep, "keep", text("masks.bug.seen"))],
        ),
        weights=weights_heatmap(
            [bug.correct[head], bug.bug[head]],
            labels,
            labels,
            titles=[text("masks.fig.correct", h=head), text("masks.fig.bug", h=head)],
            name=f"polarity-bug-weights-head{head}-T{T}",
        ),
    )
