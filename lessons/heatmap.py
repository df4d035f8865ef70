"""What a lesson hands to the renderer for one heatmap: plain data, never a figure.

A `Heatmap` is one chart: one or more panels (one per head, per kind, ...) side by side, sharing a colour
role and range. Everything the browser needs is here as numbers and language-neutral keys: the values
(numpy), the labels of rows and columns, what the axes are, how values are printed, which cells can be
clicked, and overlays (blocked cells, outlined rectangles such as the current tile, colour groups such as
the query heads that share one K/V head). The page words the keys (i18n/strings); the charts package
turns a Heatmap into the component's payload straight from the arrays; the table view, the alt text and
the downloads read the same object.

Why a description and not a plotly figure: a figure is hundreds of validated objects built on the server
for every new setting and thrown away once drawn; these are a few arrays.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    import torch

ROLES = ("weights", "signed", "mask", "similarity", "state")
# weights: 0..1 (softmax rows); signed: centred on 0 (scores, projections); mask: keep (1) / block (0);
# similarity: cosine in -1..1; state: small integer codes named by `Heatmap.states` (e.g. todo/done/skipped).


@dataclass(frozen=True)
class Text:
    """A string the page words: a key of i18n/strings and its format parameters (numbers, tokens)."""

    key: str
    params: tuple[tuple[str, object], ...] = ()

    def kw(self) -> dict:
        return dict(self.params)


def text(key: str, **params: object) -> Text:
    return Text(key, tuple(sorted(params.items())))


@dataclass(frozen=True)
class Rect:
    """An outlined block of cells in one panel: rows r0..r1-1, columns c0..c1-1 (e.g. the current tile)."""

    panel: int
    r0: int
    r1: int
    c0: int
    c1: int
    style: str = "current"  # current | done | skipped | group


@dataclass(frozen=True)
class Mark:
    """A word a cell shows instead of its number (a mask's stored 0/1, a fill value, NaN): `cell` is printed in
    the cell as is (language-neutral: digits, '-inf'), `hover` is what its hover says (worded; default `cell`)."""

    cell: str
    hover: Text | None = None


@dataclass(frozen=True)
class Panel:
    """One matrix of a chart."""

    values: np.ndarray  # (rows, cols) float; NaN = no value (printed as a gap)
    title: Text | None = None
    row_labels: tuple[str, ...] = ()  # one per row: tokens, or index numbers as text; () = 0..rows-1
    col_labels: tuple[str, ...] = ()
    blocked: np.ndarray | None = None  # (rows, cols) bool: cells a mask blocks (drawn hatched / grey)
    row_groups: tuple[int, ...] = ()  # a colour group per row (e.g. the K/V head a query head reads)
    col_groups: tuple[int, ...] = ()
    marks: np.ndarray | None = None  # (rows, cols) uint8: 0 = none, k = the Heatmap's marks[k - 1]


@dataclass(frozen=True)
class Heatmap:
    """One chart of one or more panels that share role, range, axes and printing."""

    name: str  # language-neutral id, used in download file names and test ids: "weights", "k_cache", ...
    panels: tuple[Panel, ...]
    role: str  # one of ROLES: picks the palette
    vmin: float
    vmax: float
    row_axis: Text  # what the rows are, e.g. text("axis.query")
    col_axis: Text
    decimals: int = 4  # how a value is printed in hover, cells and the table view (one number everywhere)
    clickable: bool = False  # a click on a cell selects (panel, row, col)
    rects: tuple[Rect, ...] = ()
    states: tuple[str, ...] = ()  # role "state": the key of each integer code
    panel_columns: int = 0  # panels per row on a wide screen (0 = as many as fit); a phone stacks them
    title: Text | None = None
    marks: tuple[Mark, ...] = ()  # what a marked cell prints and hovers (Panel.marks numbers them from 1)
    # Every row labelled: rows at least one label tall, cells taller than wide where the columns are many (a
    # (T, d_model) strip whose rows are the tokens a lesson follows); else cells stay square and labels thin out.
    every_row: bool = False

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise ValueError(f"role must be one of {ROLES}, got {self.role!r}")
        if not self.panels:
            raise ValueError("a heatmap needs at least one panel")
        for p in self.panels:
            if p.values.ndim != 2:
                raise ValueError(f"a panel is a 2-D matrix, got shape {p.values.shape}")
            if p.marks is not None and (
                np.shape(p.marks) != p.values.shape or int(np.max(p.marks, initial=0)) > len(self.marks)
            ):
                raise ValueError("a panel's marks must match its values and name one of the Heatmap's marks")
        if not self.vmin <= self.vmax:
            raise ValueError(f"vmin {self.vmin} > vmax {self.vmax}")


@dataclass(frozen=True)
class Selection:
    """The cell a click on a clickable Heatmap selected (ui.heatmaps.show_heatmap returns it)."""

    panel: int
    row: int
    col: int


def axis_labels(tokens: Sequence[str]) -> tuple[str, ...]:
    """'3:cat': position and token, so a repeated token ('the' twice) stays a distinct row or column of a chart
    and of a table."""
    return tuple(f"{i}:{tok}" for i, tok in enumerate(tokens))


def readonly(values: torch.Tensor | npt.ArrayLike) -> np.ndarray:
    """A read-only float32 numpy copy of a tensor or array (what a lesson hands out cannot be changed)."""
    if hasattr(values, "detach"):
        values = values.detach().cpu().numpy()
    a = np.array(values, dtype=np.float32, copy=True)
    a.setflags(write=False)
    return a


def _frozen(values: torch.Tensor | npt.ArrayLike) -> np.ndarray:
    """`values` as a read-only float32 array: as it is when it already is one (made by readonly), else a copy."""
    if isinstance(values, np.ndarray) and values.dtype == np.float32 and not values.flags.writeable:
        return values
    return readonly(values)


def head_grid(
    name: str,
    matrices: Sequence[torch.Tensor | npt.ArrayLike],
    heads: Sequence[int],
    *,
    title: Callable[[int], Text],
    role: str,
    vrange: tuple[float, float],
    row_axis: Text,
    col_axis: Text,
    row_labels: Sequence[str] = (),
    col_labels: Sequence[str] | Callable[[int], Sequence[str]] = (),
    blocked: np.ndarray | None = None,
    head_columns: bool = False,
    panel_columns: int = 0,
    decimals: int = 4,
) -> Heatmap:
    """A grid of heads: one panel per head shown (`matrices[n]` is head `heads[n]`'s (rows, cols) matrix), every
    panel on one colour range `vrange` and titled `title(head)`. `col_labels`: the same labels for every panel,
    or `col_labels(head)` each (a head's own columns of d_model); `blocked`: the cells a mask blocks, the same in
    every panel; `head_columns`: a strip in the head's colour over its panel's columns (Panel.col_groups)."""
    panels = []
    for head, matrix in zip(heads, matrices):
        values = _frozen(matrix)
        head = int(head)
        panels.append(
            Panel(
                values=values,
                title=title(head),
                row_labels=tuple(row_labels),
                col_labels=tuple(col_labels(head) if callable(col_labels) else col_labels),
                blocked=blocked,
                col_groups=(head,) * int(values.shape[1]) if head_columns else (),
            )
        )
    return Heatmap(
        name=name,
        panels=tuple(panels),
        role=role,
        vmin=float(vrange[0]),
        vmax=float(vrange[1]),
        row_axis=row_axis,
        col_axis=col_axis,
        panel_columns=panel_columns,
        decimals=decimals,
    )


def page_of_heads(h: int, page: int, per_page: int) -> list[int]:
    """The heads on page `page` (from 0, clamped) of a head grid shown `per_page` heads at a time."""
    pages = max(1, math.ceil(h / per_page))
    page = min(max(0, int(page)), pages - 1)
    return list(range(page * per_page, min(h, (page + 1) * per_page)))


def value_range(role: str, arrays: Sequence[npt.ArrayLike]) -> tuple[float, float]:
    """The colour range a role implies: 0..1 for weights and masks, -1..1 for similarity, symmetric about
    0 over the finite values for signed, 0..max for state."""
    if role in ("weights", "mask"):
        return 0.0, 1.0
    if role == "similarity":
        return -1.0, 1.0
    finite = (
        np.concatenate([np.asarray(a, dtype=np.float64)[np.isfinite(a)].ravel() for a in arrays])
        if arrays
        else np.zeros(0)
    )
    if role == "state":
        return 0.0, float(finite.max()) if finite.size else 1.0
    top = float(np.abs(finite).max()) if finite.size else 1.0
    return -(top or 1.0), (top or 1.0)


__all__ = [
    "ROLES",
    "Heatmap",
    "Mark",
    "Panel",
    "Rect",
    "Selection",
    "Text",
    "axis_labels",
    "head_grid",
    "page_of_heads",
    "readonly",
    "text",
    "value_range",
]
