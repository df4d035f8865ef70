"""Plotly figure builders shared by every page: pure functions from tensors to figures.

Conventions: a matrix is drawn with its first row at the top (like a printed matrix),
tokens label the axes, hover shows the exact value, and every panel of one figure
shares one colour scale so panels can be compared by colour.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import plotly.graph_objects as go
import torch
from plotly.subplots import make_subplots

WEIGHTS_SCALE = "Blues"  # attention weights: 0..1, white = ignored
SIGNED_SCALE = "RdBu_r"  # scores and projections: blue < 0 < red
MASK_SCALE = [[0.0, "#444444"], [1.0, "#f4f4f4"]]  # 0 = blocked (dark), 1 = keep (light)


def _finite_range(values: torch.Tensor) -> tuple[float, float]:
    """min/max over the finite entries (masked cells hold -1e9 or -inf and would flatten the colours)."""
    finite = values[torch.isfinite(values) & (values.abs() < 1e8)]
    if finite.numel() == 0:
        return -1.0, 1.0
    lo, hi = float(finite.min()), float(finite.max())
    return (lo, hi) if lo < hi else (lo - 1.0, hi + 1.0)


def color_range(values: torch.Tensor, *, signed: bool) -> tuple[float, float]:
    """One colour range for a whole step: symmetric around 0 for signed data."""
    lo, hi = _finite_range(values.detach().float())
    if signed:
        m = max(abs(lo), abs(hi))
        return -m, m
    return lo, hi


def _text_matrix(m: torch.Tensor) -> list[list[str]]:
    def fmt(x: float) -> str:
        if math.isnan(x):
            return "NaN"
        if math.isinf(x):
            return "-inf" if x < 0 else "inf"
        if abs(x) >= 1e8:
            return f"{x:.0e}"
        return f"{x:.4f}"

    return [[fmt(x) for x in row] for row in m.tolist()]


def axis_labels(tokens: Sequence[str]) -> list[str]:
    """'3:cat': position and token, so repeated tokens stay distinct categories on an axis."""
    return [f"{i}:{tok}" for i, tok in enumerate(tokens)]


def heatmap_trace(matrix: torch.Tensor, x_labels: Sequence[str], y_labels: Sequence[str], *,
                  zmin: float, zmax: float, colorscale=WEIGHTS_SCALE, showscale: bool = True,
                  x_title: str = "", y_title: str = "", clipped: bool = True) -> go.Heatmap:
    """One heatmap; values outside [zmin, zmax] (e.g. the -1e9 of a mask) are clipped for colour only.

    z goes to plotly as a numpy array: nested lists are validated cell by cell (~0.5 s for 32 x 512).
    Hover shows the exact value; only when colour and value differ (clipped, NaN, inf) does it need
    the per-cell text.
    """
    m = matrix.detach().float()
    z = m.clamp(min=zmin, max=zmax) if clipped else m
    z = torch.where(torch.isnan(m), torch.full_like(m, float("nan")), z)
    exact = bool(torch.equal(torch.nan_to_num(z), torch.nan_to_num(m)) and torch.isfinite(m).all())
    where = f"{y_title} %{{y}}<br>{x_title} %{{x}}<br>"
    return go.Heatmap(
        z=z.numpy(), x=axis_labels(x_labels), y=axis_labels(y_labels), zmin=zmin, zmax=zmax,
        colorscale=colorscale, showscale=showscale, xgap=1, ygap=1,
        customdata=None if exact else _text_matrix(m),
        hovertemplate=where + ("%{z:.4f}" if exact else "%{customdata}") + "<extra></extra>",
    )


def click_targets(n_rows: int, n_cols: int, x_labels, y_labels, *, name: str = "cell",
                  hover_text: Sequence[str] | None = None, hovertemplate: str | None = None) -> go.Scatter:
    """An invisible marker on every cell: plotly heatmaps send no click selection, scatters do.

    The markers must take the hover (hoverinfo 'skip' would also drop the click): give them the
    cell's text, or leave hoverinfo 'none'. customdata is [row, col].
    """
    x, y = axis_labels(x_labels), axis_labels(y_labels)
    xs, ys, cd = [], [], []
    for r in range(n_rows):
        for c in range(n_cols):
            xs.append(x[c])
            ys.append(y[r])
            cd.append([r, c])
    size = max(6, min(30, int(420 / max(n_rows, n_cols))))
    hover = dict(text=list(hover_text), hovertemplate=hovertemplate) if hover_text is not None \
        else dict(hoverinfo="none")
    return go.Scatter(x=xs, y=ys, customdata=cd, mode="markers", name=name, showlegend=False,
                      marker=dict(size=size, opacity=0.0, symbol="square"),
                      selected=dict(marker=dict(opacity=0.0)), unselected=dict(marker=dict(opacity=0.0)),
                      **hover)


def matrix_figure(matrix: torch.Tensor, x_labels, y_labels, *, title: str = "", signed: bool = False,
                  zrange: tuple[float, float] | None = None, colorscale=None, x_title: str = "",
                  y_title: str = "", clickable: bool = False, height: int | None = None) -> go.Figure:
    """A single 2-D tensor as a heatmap, first row at the top; `clickable` adds a marker per cell
    (selection customdata = [row, col]) that also carries the hover with the exact value."""
    zmin, zmax = zrange or color_range(matrix, signed=signed)
    scale = colorscale or (SIGNED_SCALE if signed else WEIGHTS_SCALE)
    heat = heatmap_trace(matrix, x_labels, y_labels, zmin=zmin, zmax=zmax, colorscale=scale,
                         x_title=x_title, y_title=y_title)
    rows, cols = matrix.shape
    fig = go.Figure(heat)
    if clickable:
        exact = [v for row in _text_matrix(matrix.detach().float()) for v in row]
        fig.add_trace(click_targets(rows, cols, x_labels, y_labels, hover_text=exact,
                                    hovertemplate=f"{y_title} %{{y}}<br>{x_title} %{{x}}<br>%{{text}}<extra></extra>"))
        fig.update_traces(hoverinfo="skip", hovertemplate=None, selector=dict(type="heatmap"))
        # Fixed ranges: the markers must not pad the axes around the heatmap.
        fig.update_yaxes(range=[rows - 0.5, -0.5], autorange=False)
        fig.update_xaxes(range=[-0.5, cols - 0.5], autorange=False)
        fig.update_layout(dragmode=False, hovermode="closest")
    else:
        fig.update_yaxes(autorange="reversed")
    fig.update_layout(title=title, height=height or max(260, min(720, 90 + 22 * rows)),
                      margin=dict(l=10, r=10, t=40 if title else 10, b=10), clickmode="event+select")
    fig.update_yaxes(title=y_title, type="category", fixedrange=True)
    fig.update_xaxes(title=x_title, type="category", fixedrange=True, tickangle=-45 if len(x_labels) > 8 else 0)
    return fig


def grid_shape(n: int, max_cols: int = 4) -> tuple[int, int]:
    cols = min(n, max_cols)
    return math.ceil(n / cols), cols


def heads_figure(per_head: torch.Tensor, heads: Sequence[int], x_labels, y_labels, *,
                 head_label: str = "head", signed: bool = False,
                 zrange: tuple[float, float] | None = None, colorscale=None, max_cols: int = 4,
                 x_title: str = "", y_title: str = "", panel_height: int = 230) -> go.Figure:
    """Small multiples: one panel per chosen head of a (h, rows, cols) tensor, one shared colour scale.

    `zrange` should come from all heads (color_range(per_head)) so panels stay comparable even
    when only a page of heads is drawn.
    """
    heads = list(heads)
    zmin, zmax = zrange or color_range(per_head, signed=signed)
    scale = colorscale or (SIGNED_SCALE if signed else WEIGHTS_SCALE)
    n_rows, n_cols = grid_shape(len(heads), max_cols)
    fig = make_subplots(rows=n_rows, cols=n_cols, subplot_titles=[f"{head_label} {h}" for h in heads],
                        horizontal_spacing=0.04, vertical_spacing=0.12 / max(1, n_rows - 1) if n_rows > 1 else 0.1)
    for i, h in enumerate(heads):
        r, c = divmod(i, n_cols)
        fig.add_trace(heatmap_trace(per_head[h], x_labels, y_labels, zmin=zmin, zmax=zmax, colorscale=scale,
                                    showscale=(i == 0), x_title=x_title, y_title=y_title), row=r + 1, col=c + 1)
    n = len(heads)
    fig.update_yaxes(autorange="reversed", type="category", fixedrange=True)
    fig.update_xaxes(type="category", tickangle=-45, fixedrange=True)
    for i in range(n):
        r, c = divmod(i, n_cols)
        # Query labels only in the first column (they would run into the panel on the left),
        # key labels only where no panel sits below (slanted, they would hit the titles below).
        fig.update_yaxes(showticklabels=c == 0 and len(y_labels) <= 16, row=r + 1, col=c + 1)
        fig.update_xaxes(showticklabels=i + n_cols >= n and len(x_labels) <= 16, row=r + 1, col=c + 1)
    fig.update_layout(height=60 + panel_height * n_rows, margin=dict(l=10, r=10, t=40, b=10))
    return fig


def page_of_heads(num_heads: int, page: int, per_page: int = 8) -> list[int]:
    """The heads shown on one page of a large head grid (page counts from 0, clamped)."""
    pages = max(1, math.ceil(num_heads / per_page))
    page = min(max(0, page), pages - 1)
    return list(range(page * per_page, min(num_heads, (page + 1) * per_page)))
