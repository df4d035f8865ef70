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

# ------------------------------------------------------------------ palettes
# A palette gives one colour scale per role: weights (0..1, sequential), signed values (scores,
# projections: diverging around 0) and the mask (keep / blocked). The builders below draw with the
# default palette's scales; `restyle` swaps them for another palette's (the heatmaps are found by
# their scale, so no builder needs the option).
#   colorblind (default): Viridis for weights (perceptually uniform, no near-white end, readable by
#     every colour-vision deficiency and in greyscale print), ColorBrewer's RdBu (reversed) for
#     signed values: a colour-blind-safe diverging scale whose white middle means "about 0".
#   contrast (projector): washed-out light tones vanish on a projector, so weights go from light grey
#     to black, and signed values from dark blue through mid grey to dark orange (blue/orange: the
#     pair every colour-vision deficiency still tells apart; both ends are dark).
PALETTES = ("colorblind", "contrast")  # URL values (the display option `palette`)
DEFAULT_PALETTE = "colorblind"
MASK_SCALE = [[0.0, "#444444"], [1.0, "#f4f4f4"]]  # 0 = blocked (dark), 1 = keep (light)
SCALES = {
    "colorblind": {"weights": "Viridis", "signed": "RdBu_r", "mask": MASK_SCALE},
    "contrast": {"weights": [[0.0, "#e6e6e6"], [1.0, "#000000"]],
                 "signed": [[0.0, "#08306b"], [0.5, "#bdbdbd"], [1.0, "#7f2704"]],
                 "mask": [[0.0, "#000000"], [1.0, "#d4d4d4"]]},  # keep: grey, not the page's white
}
WEIGHTS_SCALE = SCALES[DEFAULT_PALETTE]["weights"]
SIGNED_SCALE = SCALES[DEFAULT_PALETTE]["signed"]
CELL_TEXT_MAX = 12  # numbers are printed in the cells of panels up to 12 x 12 (larger: unreadable)
MIN_FONT = 13  # px: smallest text in a figure (a projector at the back of a room, a phone)


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

    Drawn as ONE heatmap trace: the panels are tiled into one array with empty (NaN) cells between
    them, and each head's title is an annotation. The browser pays per chart and per subplot
    (~17 ms each): 8 heads as make_subplots cost ~8x one tiled trace. The axes are categories with
    one entry per column/row of the tiling, so hover still names the key and the query.

    `zrange` should come from all heads (color_range(per_head)) so panels stay comparable even
    when only a page of heads is drawn.
    """
    heads = list(heads)
    zmin, zmax = zrange or color_range(per_head, signed=signed)
    scale = colorscale or (SIGNED_SCALE if signed else WEIGHTS_SCALE)
    n_rows, n_cols = grid_shape(max(1, len(heads)), max_cols)
    R, C = int(per_head.shape[-2]), int(per_head.shape[-1])
    gap_c = max(1, math.ceil(C * 0.08))  # columns of empty cells between panels
    gap_r = max(1, math.ceil(R * 0.22))  # rows between panel rows: room for the titles
    width, height = n_cols * C + (n_cols - 1) * gap_c, n_rows * R + (n_rows - 1) * gap_r
    values = per_head.detach().float()
    z = torch.full((height, width), float("nan"))
    for n, h in enumerate(heads):
        r, c = divmod(n, n_cols)
        y0, x0 = r * (R + gap_r), c * (C + gap_c)
        z[y0:y0 + R, x0:x0 + C] = values[h].clamp(min=zmin, max=zmax)  # (R, C); -1e9 etc. clipped for colour
    # Category names must be unique per column: the same label in another panel column gets zero-width
    # spaces appended (invisible), and the gaps get names of their own.
    xs, ys = axis_labels(x_labels), axis_labels(y_labels)
    x_cats = [xs[i % (C + gap_c)] + "\u200b" * (i // (C + gap_c)) if i % (C + gap_c) < C else "\u2009" * (i + 1)
              for i in range(width)]
    y_cats = [ys[i % (R + gap_r)] + "\u200b" * (i // (R + gap_r)) if i % (R + gap_r) < R else "\u2009" * (i + 1)
              for i in range(height)]
    # Where the colour was clipped (a mask's -1e9, -inf, NaN), hover and the table view need the exact value.
    shown = values[heads] if heads else values[:0]
    exact = bool(torch.isfinite(shown).all() and (shown >= zmin).all() and (shown <= zmax).all())
    custom = None
    if not exact:
        custom = [[""] * width for _ in range(height)]
        for n, h in enumerate(heads):
            r, c = divmod(n, n_cols)
            y0, x0 = r * (R + gap_r), c * (C + gap_c)
            for i, row in enumerate(_text_matrix(values[h])):
                custom[y0 + i][x0:x0 + C] = row
    heat = go.Heatmap(z=z.numpy().astype("float32"), x=x_cats, y=y_cats, zmin=zmin, zmax=zmax, colorscale=scale,
                      showscale=True, xgap=1 if C <= 16 else 0, ygap=1 if R <= 16 else 0, hoverongaps=False,
                      customdata=custom,
                      hovertemplate=f"{y_title} %{{y}}<br>{x_title} %{{x}}<br>"
                                    + ("%{z:.4f}" if exact else "%{customdata}") + "<extra></extra>")
    titles = [dict(x=(n % n_cols) * (C + gap_c) + (C - 1) / 2, y=(n // n_cols) * (R + gap_r) - 0.5,
                   yanchor="bottom", text=f"{head_label} {h}", showarrow=False, font=dict(size=13))
              for n, h in enumerate(heads)]
    # Query labels beside the first column, key labels under the last row: every one (up to T = 32); on a
    # crowded axis the canvas renderer thins them to every k-th that fits, so a large T keeps its tokens.
    y_ticks = [y_cats[r * (R + gap_r) + i] for r in range(n_rows) for i in range(R)] if R <= 32 else []
    x_ticks = [x_cats[c * (C + gap_c) + i] for c in range(n_cols) for i in range(C)] if C <= 32 else []
    fig = go.Figure(heat)
    # Where each head's panel sits in the tiling: the table view, cell numbers and the accessible
    # name read the panels back from here (one trace, but h matrices to a student).
    tiles = [dict(title=f"{head_label} {h}", row=(n // n_cols) * (R + gap_r), col=(n % n_cols) * (C + gap_c))
             for n, h in enumerate(heads)]
    fig.update_layout(height=60 + panel_height * n_rows, margin=dict(l=10, r=10, t=40, b=10), annotations=titles,
                      plot_bgcolor="rgba(0,0,0,0)",
                      meta=dict(tiles=tiles, rows=R, cols=C, per_row=n_cols,
                                y_labels=axis_labels(y_labels), x_labels=axis_labels(x_labels)))
    fig.update_yaxes(title=y_title)  # query / key stay named at any T (the hover is not the only place)
    fig.update_xaxes(title=x_title)
    fig.update_yaxes(type="category", autorange=False, range=[height - 0.5, -0.5 - max(1.0, gap_r * 0.8)],
                     tickmode="array", tickvals=y_ticks, ticktext=[v.rstrip("\u200b") for v in y_ticks],
                     showticklabels=bool(y_ticks), ticks="", showgrid=False, zeroline=False, fixedrange=True)
    fig.update_xaxes(type="category", range=[-0.5, width - 0.5], tickmode="array", tickvals=x_ticks,
                     ticktext=[v.rstrip("\u200b") for v in x_ticks], tickangle=-45, showticklabels=bool(x_ticks),
                     ticks="", showgrid=False, zeroline=False, fixedrange=True)
    return fig


def page_of_heads(num_heads: int, page: int, per_page: int = 8) -> list[int]:
    """The heads shown on one page of a large head grid (page counts from 0, clamped)."""
    pages = max(1, math.ceil(num_heads / per_page))
    page = min(max(0, page), pages - 1)
    return list(range(page * per_page, min(num_heads, (page + 1) * per_page)))


# ------------------------------------------------------------------ display options (palette, cell numbers, fonts)
def palette_name(name) -> str:
    return name if name in PALETTES else DEFAULT_PALETTE


def scale(role: str, palette: str = DEFAULT_PALETTE):
    """The colour scale of a role ('weights', 'signed', 'mask') in a palette (unknown palette: the default)."""
    return SCALES[palette_name(palette)][role]


def _validated(colorscale) -> tuple:
    """A scale as plotly stores it on a trace (a name becomes its list of stops), to compare scales."""
    return tuple(tuple(stop) for stop in go.Heatmap(colorscale=colorscale).colorscale)


_ROLE_OF = {_validated(s): role for p in PALETTES for role, s in SCALES[p].items()}


def role_of(trace) -> str | None:
    """'weights' / 'signed' / 'mask' for a heatmap drawn with a palette's scale, else None
    (e.g. the head colours of a band, the grey of blocked cells)."""
    if getattr(trace, "type", None) != "heatmap" or trace.colorscale is None:
        return None
    return _ROLE_OF.get(tuple(tuple(stop) for stop in trace.colorscale))


def _special(x) -> tuple[float | None, str | None]:
    """(the value as a float, None), or (None, how to print it) for text, NaN and infinities."""
    try:
        v = float(x)
    except (TypeError, ValueError):
        return None, str(x)
    if math.isnan(v):
        return None, "NaN"
    if math.isinf(v):
        return None, "-inf" if v < 0 else "inf"
    return v, None


def short_number(x) -> str:
    """A cell's number in 4-5 characters: 0.25, -1.37, 12.3, -1e+09, NaN, -inf."""
    v, printed = _special(x)
    if v is None:
        return printed
    if abs(v) >= 1e4:
        return f"{v:.0e}"
    if abs(v) >= 100:
        return f"{v:.0f}"
    if abs(v) >= 10:
        return f"{v:.1f}"
    return f"{v:.2f}"


def _cell_values(trace, use_custom: bool = True) -> list[list]:
    """The exact values behind a heatmap's colours: the hover text where the colour was clipped
    (masked cells, NaN), else z. (`use_custom` False: a figure whose customdata names something else,
    e.g. tiled columns' column numbers.)"""
    import numpy as np

    z = np.asarray(trace.z, dtype=float)
    custom = trace.customdata
    if custom is not None and use_custom:
        custom = np.asarray(custom, dtype=object)
        if custom.shape == z.shape:
            return custom.tolist()
    return z.tolist()


def _is_nan(x) -> bool:
    try:
        return math.isnan(float(x))
    except (TypeError, ValueError):
        return False


def has_cell_text_layer(fig: go.Figure) -> bool:
    """A figure that prints its own cell numbers (a text-only scatter, or heatmaps built with their text:
    the Masks lab's)."""
    return any((t.type == "scatter" and t.mode == "text") or (t.type == "heatmap" and t.texttemplate)
               for t in fig.data)


def restyle(fig: go.Figure, *, palette: str = DEFAULT_PALETTE, cell_text: bool = False,
            max_cells: int = CELL_TEXT_MAX, min_font: int = MIN_FONT) -> go.Figure:
    """The display options applied to a built figure, in place (and returned):

    - every weights / signed / mask heatmap gets `palette`'s scale for its role;
    - `cell_text`: each such panel of at most `max_cells` x `max_cells` prints its numbers, judged per
      panel (4 heads of 8 tokens print: each is 8 x 8); the canvas renderer sizes the text to the cells and,
      where they are too narrow on the screen to read, says so under the chart (see `cell_numbers_skipped`
      for panels too large to print at all);
    - the figure's base font is at least `min_font` + 1 px (axes, legends, hover).
    Cheap: no trace is added (the browser pays ~17 ms per chart, more per trace).
    """
    palette = palette_name(palette)
    own_text = has_cell_text_layer(fig)
    traces = [(t, role_of(t)) for t in fig.data]
    panels = sum(1 for t, role in traces if role and role != "mask")
    tiling = _tiling(fig)
    for trace, role in traces:
        if role is None:
            continue
        if palette != DEFAULT_PALETTE:  # (a figure built for the default palette: swap its scales)
            trace.colorscale = scale(role, palette)
        shape = getattr(trace.z, "shape", None) or (len(trace.z), len(trace.z[0]) if len(trace.z) else 0)
        if tiling:  # one trace holding h tiled panels (heads_figure): judge by one panel
            shape = (tiling["rows"], tiling["cols"])
        if cell_text and not own_text and role != "mask" and shape[0] <= max_cells and shape[1] <= max_cells:
            values = _cell_values(trace, use_custom=not (tiling and tiling.get("custom") == "columns"))
            z = trace.z
            # An empty (NaN) cell, e.g. a blocked score drawn on the dark background, keeps no text.
            trace.text = [["" if _is_nan(z[r][c]) else short_number(v) for c, v in enumerate(row)]
                          for r, row in enumerate(values)]
            trace.texttemplate = "%{text}"
    _readable_fonts(fig, min_font)
    return fig


def cell_numbers_skipped(fig: go.Figure) -> bool:
    """After restyle(cell_text=True): does the figure have a value panel whose numbers were not printed
    (larger than CELL_TEXT_MAX x CELL_TEXT_MAX)? The chart then says so under it, where the reader looks."""
    if any(t.type == "scatter" and t.mode == "text" for t in fig.data):  # prints its numbers its own way
        return False
    return any(role_of(t) not in (None, "mask") and not t.texttemplate for t in fig.data)


def table_number(x) -> str:
    """A value in the table view: 4 decimals, as the hover and the walkthrough's cell story print it
    (a number type would drop trailing zeros: 0.491 beside 0.4044); a mask's fill as -1e+09."""
    if isinstance(x, bool) or isinstance(x, int):
        return str(x)
    v, printed = _special(x)
    if v is None:
        return printed
    return f"{v:.0e}" if abs(v) >= 1e8 else f"{v:.4f}"


def _readable_fonts(fig: go.Figure, min_font: int) -> None:
    """One layout property (walking every axis and annotation of a 16-panel figure costs ~40 ms):
    the builders set no font smaller than MIN_FONT themselves (a test checks)."""
    if (fig.layout.font.size or 0) < min_font + 1:
        fig.layout.font.size = min_font + 1


# ------------------------------------------------------------------ the table view of a figure
def _subplot_titles(fig: go.Figure) -> dict[tuple[str, str], str]:
    """Subplot title per (xaxis, yaxis) of a make_subplots figure (titles sit above their panel)."""
    titles = {}
    grid = getattr(fig, "_grid_ref", None)
    if not grid:
        return titles
    refs = [ref[0] for row in grid for ref in row if ref]
    notes = [a for a in fig.layout.annotations if a.xref == "paper" and a.yref == "paper"]
    for ref, note in zip(refs, notes):  # make_subplots adds the titles in panel order
        x, y = ref.layout_keys
        titles[(x.replace("axis", ""), y.replace("axis", ""))] = note.text
    return titles


def _panels(fig: go.Figure) -> list[tuple[str, go.Heatmap]]:
    """(title, heatmap) per heatmap panel (weights / signed / mask roles; a panel's overlays skipped)."""
    titles = _subplot_titles(fig)
    main = fig.layout.title.text or ""
    seen, out = set(), []
    for trace in fig.data:
        if role_of(trace) is None:
            continue
        axes = (trace.xaxis or "x", trace.yaxis or "y")
        if axes in seen:
            continue
        seen.add(axes)
        out.append((titles.get(axes) or main, trace))
    return out


def _tiling(fig: go.Figure) -> dict | None:
    """heads_figure's record of where each head's panel sits in its one tiled trace, else None."""
    meta = fig.layout.meta
    return meta if isinstance(meta, dict) and meta.get("tiles") else None


def figure_tables(fig: go.Figure) -> list[tuple[str, list, list, list[list]]]:
    """The matrices a figure draws, as (title, row labels, column labels, values), one per heatmap
    panel, for the table view. Values are the exact ones (the hover text where the colour was clipped).
    A tiled grid of heads (one trace) is cut back into one table per head (its columns named by the tile's
    own x_labels when it has them: a head's columns of d_model)."""
    tiling = _tiling(fig)
    if tiling:
        trace = next(t for t in fig.data if role_of(t) is not None)
        values, R, C = _cell_values(trace, use_custom=tiling.get("custom") != "columns"), tiling["rows"], tiling["cols"]
        return [(tile["title"], list(tiling["y_labels"]), list(tile.get("x_labels") or tiling["x_labels"]),
                 [row[tile["col"]:tile["col"] + C] for row in values[tile["row"]:tile["row"] + R]])
                for tile in tiling["tiles"]]
    return [(title, [str(v) for v in trace.y], [str(v) for v in trace.x], _cell_values(trace))
            for title, trace in _panels(fig)]


def dark_cells(values: torch.Tensor, zmin: float, zmax: float, colorscale) -> list[list[bool]]:
    """Per cell: is its colour dark (so its printed number must be white)? From the colour's relative
    luminance (WCAG), so it holds for any palette: Viridis is dark at 0, the contrast greys at 1."""
    from plotly.colors import sample_colorscale, unlabel_rgb

    stops = go.Heatmap(colorscale=colorscale).colorscale
    frac = ((values.detach().float() - zmin) / max(zmax - zmin, 1e-12)).clamp(0, 1).nan_to_num(0.0)
    flat = frac.reshape(-1).tolist()
    colors = sample_colorscale([list(s) for s in stops], flat, colortype="rgb")

    def luminance(rgb: str) -> float:
        lin = [(c / 255) / 12.92 if c / 255 <= 0.04045 else ((c / 255 + 0.055) / 1.055) ** 2.4
               for c in unlabel_rgb(rgb)]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]

    dark = [luminance(c) < 0.18 for c in colors]  # 0.18: black and white text contrast equally there
    cols = values.shape[-1]
    return [dark[r * cols:(r + 1) * cols] for r in range(len(dark) // cols)]


def chart_summary(fig: go.Figure) -> dict:
    """What a screen reader should hear about a figure: its title, how many heatmap panels of which
    size (with their titles), or the number of traces of another kind of chart."""
    title = fig.layout.title.text or ""
    if isinstance(title, str):
        title = title.replace("<b>", "").replace("</b>", "")
    tiling = _tiling(fig)
    if tiling:
        return {"kind": "heatmap", "title": title, "panels": len(tiling["tiles"]), "rows": tiling["rows"],
                "cols": tiling["cols"], "names": [tile["title"] for tile in tiling["tiles"]]}
    panels = _panels(fig)
    if panels:
        trace = panels[0][1]
        return {"kind": "heatmap", "title": title, "panels": len(panels), "rows": len(trace.y), "cols": len(trace.x),
                "names": [t for t, _ in panels if t and t != title]}
    return {"kind": "chart", "title": title, "panels": len(fig.data), "rows": 0, "cols": 0, "names": []}
