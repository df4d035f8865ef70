"""Shared helpers of the KV cache sections: a tensor as one panel of a `lessons.heatmap.Heatmap` (its axes as
keys, its colour groups), a wide heatmap cut to its first columns, a heatmap's matrix, and the token labels.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt
import torch

from lessons.heatmap import Heatmap, Panel, Rect, Text, readonly, text, value_range
from lessons.scenario import PAD, padding_length
from lessons.settings import Settings
from lessons.tokens import tokens as sentence_tokens


@dataclass(frozen=True)
class Axis:
    """One axis of a heatmap as the lesson builds it: what its entries are, their labels, their colour groups."""

    key: str  # token | query_head | kv_head | column | dim (worded as i18n/strings "kv.axis.<key>")
    labels: tuple  # str tokens or int indices, one per row/column
    groups: tuple[int, ...] = ()  # colour group (K/V head) of each entry, when the page colours by group


def one_panel(
    name: str,
    values: torch.Tensor | npt.ArrayLike,
    rows: Axis,
    cols: Axis,
    role: str,
    *,
    blocked: np.ndarray | None = None,
    title: Text | None = None,
    rects: tuple[Rect, ...] = (),
    every_row: bool = False,
) -> Heatmap:
    """One panel as lessons.heatmap.Heatmap: the renderer's plain description (labels as text, axes as keys).
    `every_row`: every row labelled however many columns (Heatmap.every_row)."""
    a = readonly(values)
    vmin, vmax = value_range(role, [a])
    panel = Panel(
        a,
        title=title,
        row_labels=tuple(map(str, rows.labels)),
        col_labels=tuple(map(str, cols.labels)),
        blocked=blocked,
        row_groups=rows.groups,
        col_groups=cols.groups,
    )
    return Heatmap(
        name,
        (panel,),
        role,
        vmin,
        vmax,
        text(f"kv.axis.{rows.key}"),
        text(f"kv.axis.{cols.key}"),
        rects=rects,
        every_row=every_row,
    )


def frozen_array(t: torch.Tensor) -> np.ndarray:
    out = t.detach().to(torch.float32 if t.dtype != torch.bool else torch.bool).cpu().numpy().copy()
    out.setflags(write=False)  # plain data a page reads; a write by mistake raises
    return out


def signed_map(
    name: str, values: torch.Tensor, rows: Axis, cols: Axis, rects: tuple[Rect, ...] = (), every_row: bool = False
) -> Heatmap:
    return one_panel(name, values, rows, cols, "signed", rects=rects, every_row=every_row)


def weights_map(name: str, values: torch.Tensor, rows: Axis, cols: Axis) -> Heatmap:
    return one_panel(name, values, rows, cols, "weights")


def mask_map(name: str, values: torch.Tensor, rows: Axis, cols: Axis) -> Heatmap:
    return one_panel(name, values.to(torch.float32), rows, cols, "mask")


def first_columns(hm: Heatmap, n: int) -> Heatmap:
    """The same heatmap cut to its first n columns (a wide projection or cache drawn within a step's byte budget).

    The colour range stays the full matrix's, so the cut shows the same colours as the whole would.
    """
    if n < 1:
        raise ValueError(f"n must be at least 1, got {n!r}")
    panels = tuple(
        Panel(
            readonly(p.values[:, :n]),
            title=p.title,
            row_labels=p.row_labels,
            col_labels=p.col_labels[:n],
            blocked=None if p.blocked is None else p.blocked[:, :n],
            row_groups=p.row_groups,
            col_groups=p.col_groups[:n],
        )
        for p in hm.panels
    )
    rects = tuple(Rect(r.panel, r.r0, r.r1, r.c0, min(r.c1, n), r.style) for r in hm.rects if r.c0 < n)
    return replace(hm, panels=panels, rects=rects)


def values_of(hm: Heatmap) -> np.ndarray:
    """The matrix of a one-panel heatmap (what the page prints and the tests compare)."""
    return hm.panels[0].values


def page_tokens(settings: Settings) -> list[str]:
    """The token labels every page shows for these settings ([PAD] at the end with the padding mask)."""
    T = settings.seq_len
    toks = sentence_tokens(T, settings.lang)
    if settings.mask == "padding":
        real = padding_length(T)
        toks = toks[:real] + [PAD] * (T - real)
    return toks
