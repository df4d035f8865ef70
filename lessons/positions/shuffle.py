"""Section 1, "Shuffle the words": the shared scenario before and after a seeded shuffle of its rows."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import torch

from core import positions as P
from core.masks import causal_mask
from lessons import scenario
from lessons.heatmap import Heatmap
from lessons.positions.common import (
    DIMS_SHOWN_MAX,
    EQUAL_TOL,
    _heatmap,
    _labels,
    _np,
    _scenario,
    _signed_range,
    gap_text,
)
from lessons.settings import Settings
from lessons.tokens import tokens as sentence_tokens


# ================================================================ 1. Shuffle the words
@dataclass(frozen=True)
class ShuffleView:
    """Before and after one seeded shuffle of the shared scenario's tokens.

    perm[i] = the original row now at row i (so tokens_after[i] = tokens[perm[i]]); inverse undoes it.
    The heatmaps of the chosen mode (causal or not) for head `head`; the gaps of both modes, so the page
    can print "without the mask: 0, with it: 0.43" whichever is open.
    """

    T: int
    d_model: int
    head: int
    causal: bool
    perm: np.ndarray  # (T,) int
    inverse: np.ndarray  # (T,) int
    moved: np.ndarray  # (T,) bool: row i of the shuffled run holds a different token than row i before
    tokens: tuple[str, ...]  # labels before ("i:token")
    tokens_after: tuple[str, ...]  # labels after: the token and its ORIGINAL index, so a row can be followed
    dims_shown: int  # columns of the X and output heatmaps: min(d_model, DIMS_SHOWN_MAX)
    # Each chart has two panels, before (panel 0) and after the shuffle (panel 1), on one colour range:
    x: Heatmap  # (T, dims_shown) signed, rows tokens, cols dimensions 0..dims_shown-1
    weights: Heatmap  # (T, T) of `head`, rows queries, cols keys
    output: Heatmap  # (T, dims_shown) signed
    row_gaps: np.ndarray  # (T,) max |output_after[i] - output_before[perm[i]]| over all d_model: row i is row perm[i]
    x_moved_gap: float  # max |x_after - x_before[perm]|: the shuffle moves rows and changes no number (0 exactly)
    output_gap: float  # max |output - un-shuffled output after| in this mode
    weights_gap: float  # the same for the weights, every head
    free_output_gap: float  # without a mask (0 up to float error)
    free_weights_gap: float
    causal_output_gap: float  # with the causal mask (large: the symmetry is broken)
    causal_weights_gap: float
    equal: bool  # output_gap and weights_gap <= EQUAL_TOL in this mode
    front: int  # the original index of the token the shuffle put first
    front_self_before: float  # under the causal mask, its weight on itself where it was (head `head`)
    front_self_after: float  # and at position 0, where it sees only itself (1.0)
    notes: tuple[str, ...]  # "shared_mask_not_used" when the shared mask is not "none" (the toggle decides here)


def _before_after(
    name: str,
    before: torch.Tensor,
    after: torch.Tensor,
    labels: tuple[str, ...],
    perm: torch.Tensor,
    dims: tuple[str, ...] | None = None,
) -> Heatmap:
    """One chart of the section, written once for X, the weights and the output: panel 0 before the shuffle (rows
    in order), panel 1 after it (rows as shuffled), on one colour range. With `dims` the columns are dimensions
    (X and the output: signed, rows tokens); without, the chart is the (T, T) weights (0..1, queries x keys, the
    columns shuffled with the rows).

    What moved is marked: each token keeps its colour strip (Panel.row_groups = its original index; the weights'
    columns too) and its label "i:token" with the original i, so row perm[i] before is found at row i after.
    Every row is labelled (Heatmap.every_row): the rows are the tokens the section follows."""
    b, a = _np(before), _np(after)
    order = tuple(int(p) for p in perm)
    after_labels = tuple(labels[p] for p in order)
    panels: list[tuple[np.ndarray, tuple[str, ...], tuple[str, ...], str | None]]
    if dims is None:
        panels = [(b, labels, labels, "pos.panel.before"), (a, after_labels, after_labels, "pos.panel.after")]
        hm = _heatmap(name, panels, "weights", 0.0, 1.0, "query", "key")
    else:
        panels = [(b, labels, dims, "pos.panel.before"), (a, after_labels, dims, "pos.panel.after")]
        hm = _heatmap(name, panels, "signed", *_signed_range(b, a), "token", "dimension")
    groups = (tuple(range(len(labels))), order)
    marked = tuple(
        replace(p, row_groups=g, col_groups=g if dims is None else ()) for p, g in zip(hm.panels, groups, strict=True)
    )
    return replace(hm, panels=marked, every_row=True)


def shuffle_view(
    settings: Settings, shuffle_seed: int, causal: bool, head: int, run: scenario.Scenario | None = None
) -> ShuffleView:
    """Section 1. The shared scenario's model and X (the numbers of every other page), run on X and on
    X with its rows shuffled by `shuffle_seed`, without a mask or with the causal mask (`causal`).

    Why the page's own toggle and not the shared mask: the lesson is "no mask: equivariant; causal: broken",
    and padding / hand-drawn masks would only blur it; the shared mask is noted as not used here.
    """
    run = _scenario(settings, run)
    T, d = settings.seq_len, settings.d_model
    head = min(max(int(head), 0), settings.num_heads - 1)
    perm = P.random_permutation(T, shuffle_seed)
    inv = P.inverse_permutation(perm)
    # The scenario's own run is one of the two unshuffled runs when its mask is none or causal: not made again.
    free = P.permutation_run(run.model, run.x, perm, trace=run.trace if run.mask is None else None)
    causal_own = run.trace if run.settings.mask == "causal" else None
    masked = P.permutation_run(run.model, run.x, perm, causal_mask(T), trace=causal_own)
    shown = masked if causal else free
    words = sentence_tokens(T, settings.lang)  # the words, without the padding example's [PAD] labels
    labels = _labels(words)
    after = tuple(labels[int(p)] for p in perm)
    cut = min(d, DIMS_SHOWN_MAX)
    dims = tuple(str(j) for j in range(cut))
    row_gaps = (shown.trace_shuffled.output[0] - shown.trace.output[0, perm]).abs().amax(-1)  # (T,)
    front = int(perm[0])
    cw, cws = masked.trace.weights[0, head], masked.trace_shuffled.weights[0, head]
    return ShuffleView(
        T=T,
        d_model=d,
        head=head,
        causal=causal,
        perm=_np(perm),
        inverse=_np(inv),
        moved=_np(perm != torch.arange(T)),
        tokens=labels,
        tokens_after=after,
        dims_shown=cut,
        x=_before_after("x", run.x[0, :, :cut], shown.x_shuffled[0, :, :cut], labels, perm, dims),
        weights=_before_after(
            f"weights-head{head}", shown.trace.weights[0, head], shown.trace_shuffled.weights[0, head], labels, perm
        ),
        output=_before_after(
            "output", shown.trace.output[0, :, :cut], shown.trace_shuffled.output[0, :, :cut], labels, perm, dims
        ),
        row_gaps=_np(row_gaps),
        x_moved_gap=float((shown.x_shuffled - run.x[:, perm]).abs().max()),
        output_gap=shown.output_gap,
        weights_gap=shown.weights_gap,
        free_output_gap=free.output_gap,
        free_weights_gap=free.weights_gap,
        causal_output_gap=masked.output_gap,
        causal_weights_gap=masked.weights_gap,
        equal=shown.output_gap <= EQUAL_TOL and shown.weights_gap <= EQUAL_TOL,
        front=front,
        front_self_before=float(cw[front, front]),
        front_self_after=float(cws[0, 0]),
        notes=("shared_mask_not_used",) if settings.mask != "none" else (),
    )


def shuffle_numbers(v: ShuffleView) -> dict[str, dict[str, object]]:
    """Every number the section prints, as it prints them, by message (`pos.shuffle.<message>` words them):
    the rows the shuffle moved ("i←p": row i now holds the token from row p), gaps as gap_text, weights to 4
    places."""
    return {
        "perm": {
            "moves": ", ".join(f"{i}←{int(p)}" for i, p in enumerate(v.perm) if v.moved[i]),
            "n": int(v.moved.sum()),
            "T": v.T,
        },
        "equal": {"out": gap_text(v.output_gap), "w": gap_text(v.weights_gap), "x": gap_text(v.x_moved_gap)},
        "broken": {"out": gap_text(v.output_gap), "w": gap_text(v.weights_gap), "free": gap_text(v.free_output_gap)},
        "front": {
            "token": v.tokens[v.front],
            "before": f"{v.front_self_before:.4f}",
            "after": f"{v.front_self_after:.4f}",
            "h": v.head,
        },
        "x": {"dims": v.dims_shown, "d": v.d_model},
        "weights": {"h": v.head},
        "output": {"dims": v.dims_shown, "d": v.d_model, "row": gap_text(float(v.row_gaps.max()))},
    }
