"""The walkthrough's steps: what each one computes, the code line that computes it, its shapes,
its figures, and the drill-down story of one attention cell. Pure Python + torch + plotly.

The source shown for a step is read from the running code (inspect + ast), so the page can
never show a line that is not the one computing the tensor.
"""

from __future__ import annotations

import ast
import functools
import inspect
import math
import re
import textwrap
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import plotly.colors
import plotly.graph_objects as go
import torch

from core import figures, scenario
from core.accounting import Shape, tensor_shapes
from core.attention import AttentionTrace, MultiHeadAttention
from core.masks import full_grid
from core.reference import max_abs_diff, torch_reference
from core.settings import clamp_int
from core.source import PARSE_LOCK

ROOT = Path(__file__).resolve().parent.parent

# ------------------------------------------------------------------ the steps


@dataclass(frozen=True)
class Step:
    name: str  # URL value (walk_step=...), language-neutral
    fields: tuple[str, ...]  # the tensors it produces: AttentionTrace fields, or "x"
    per_head: bool  # the tensor has a head axis


STEPS: tuple[Step, ...] = (
    Step("input", ("x",), False),
    Step("project", ("q", "k", "v"), False),
    Step("split", ("q_heads", "k_heads", "v_heads"), True),
    Step("scores", ("scores",), True),
    Step("scale", ("scaled_scores",), True),
    Step("mask", ("masked_scores",), True),
    Step("softmax", ("weights",), True),
    Step("mix", ("head_outputs",), True),
    Step("concat", ("concat",), False),
    Step("output", ("output",), False),
)
STEP_NAMES: tuple[str, ...] = tuple(s.name for s in STEPS)
STEP_BY_NAME = {s.name: s for s in STEPS}
VIEWS = ("step", "all", "present")
DRILL_STEPS = ("scores", "scale", "mask", "softmax", "mix")  # steps whose story the drill-down tells
ROLES = ("q", "k", "v")


# Q, K and V side by side in the projection step up to this d_model (three charts of 128 columns keep about
# two pixels a column on a laptop); wider, one at a time at full width, which also keeps a step's bytes
# under the 64 KB target (three 32 x 512 matrices of 4-decimal values are ~96 KB).
SIDE_BY_SIDE_MAX = 128
# The cell story's mix of V (T_k + 1 rows x d_k) prints each value in its hover up to this many cells; a wider
# head (d_k 256, 512: columns under 2 px) is drawn by colour, which halves what it sends (one byte a cell),
# so the story with its charts stays under a step's 64 KB. Its last row, head_i's output, is exact at the mix step.
MIX_EXACT_CELLS = 8192


def step_index(name: str) -> int:
    return STEP_NAMES.index(name)


# ------------------------------------------------------------------ URL values


@dataclass(frozen=True)
class Parsed:
    value: object
    ok: bool  # False: the raw value was corrected (say so)


def parse_step(raw) -> Parsed:
    """A step from a URL value: its name, or its number 1..10 (clamped). Anything else: the first step."""
    if raw is None or raw == "":
        return Parsed(STEP_NAMES[0], True)
    text = str(raw).strip().lower()
    if text in STEP_NAMES:
        return Parsed(text, True)
    try:
        number = int(float(text))
    except (ValueError, OverflowError):
        return Parsed(STEP_NAMES[0], False)
    clamped = min(max(number, 1), len(STEPS))
    return Parsed(STEP_NAMES[clamped - 1], clamped == number)


def parse_view(raw) -> Parsed:
    if raw is None or raw == "":
        return Parsed(VIEWS[0], True)
    text = str(raw).strip().lower()
    return Parsed(text, True) if text in VIEWS else Parsed(VIEWS[0], False)


def parse_index(raw, n: int, default: int = 0) -> Parsed:
    """An index 0..n-1 from a URL value; out of range is clamped, garbage gives `default`."""
    if raw is None or raw == "":
        return Parsed(default, True)
    return Parsed(*clamp_int(raw, 0, n - 1, default))


def parse_flag(raw) -> Parsed:
    """An on/off URL value as Streamlit writes a bound toggle ('true' / 'false'); anything else: off."""
    if raw is None or raw == "":
        return Parsed(False, True)
    if isinstance(raw, bool):
        return Parsed(raw, True)
    text = str(raw).strip().lower()
    if text in ("true", "false"):
        return Parsed(text == "true", True)
    return Parsed(False, False)


def parse_page(raw, n_pages: int) -> Parsed:
    """A 1-based page number 1..n_pages (st.pagination counts from 1)."""
    if raw is None or raw == "":
        return Parsed(1, True)
    return Parsed(*clamp_int(raw, 1, n_pages, 1))


# ------------------------------------------------------------------ the source of each step


@dataclass(frozen=True)
class Source:
    path: str  # relative to the repository, e.g. "core/attention.py"
    function: str  # e.g. "MultiHeadAttention._attend"
    start: int  # first line number in the file
    end: int  # last line number in the file
    code: str  # the lines, dedented

    def where(self) -> str:
        lines = f"{self.start}" if self.start == self.end else f"{self.start}–{self.end}"
        return f"{self.path} · {self.function} · {lines}"


def _assigned_names(node: ast.AST) -> set[str]:
    """Every plain name assigned anywhere inside `node` (a = ..., a, b = ...)."""
    names = set()
    for sub in ast.walk(node):
        if isinstance(sub, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = sub.targets if isinstance(sub, ast.Assign) else [sub.target]
            for target in targets:
                for t in ast.walk(target):
                    if isinstance(t, ast.Name):
                        names.add(t.id)
    return names


def statements_assigning(func, names) -> list[tuple[int, int]]:
    """(first, last) file line of every top-level statement of `func` that assigns one of `names`.

    A statement is a direct child of the function body, so an `if/else` that assigns the
    name in both branches is returned whole (e.g. the mask step).
    """
    lines, first = inspect.getsourcelines(func)
    tree = ast.parse(textwrap.dedent("".join(lines)))
    body = tree.body[0].body
    wanted = set(names)
    found = []
    for stmt in body:
        if _assigned_names(stmt) & wanted:
            found.append((first + stmt.lineno - 1, first + stmt.end_lineno - 1))
    return found


def _source_for(func, names: tuple[str, ...]) -> Source:
    with PARSE_LOCK:  # ast.parse is not thread-safe on Python 3.11 (core/source.py)
        return _source_for_unlocked(func, names)


@functools.lru_cache(maxsize=None)
def _source_for_unlocked(func, names: tuple[str, ...]) -> Source:
    spans = statements_assigning(func, names)
    if not spans:
        raise LookupError(f"no statement of {func.__qualname__} assigns {names}")
    start, end = spans[0][0], spans[-1][1]
    path = Path(inspect.getsourcefile(func)).resolve()
    file_lines = path.read_text(encoding="utf-8").splitlines()
    code = textwrap.dedent("\n".join(file_lines[start - 1:end]))
    try:
        rel = str(path.relative_to(ROOT))
    except ValueError:
        rel = path.name
    return Source(rel, func.__qualname__, start, end, code)


def step_source(name: str) -> Source:
    """The exact lines of core that compute this step's tensor(s)."""
    step = STEP_BY_NAME[name]
    if step.fields == ("x",):
        return _source_for(scenario.run, ("x",))
    return _source_for(MultiHeadAttention._attend, step.fields)


# ------------------------------------------------------------------ shapes


def shapes(run: scenario.Scenario) -> dict[str, Shape]:
    s = run.settings
    return tensor_shapes(1, s.seq_len, s.seq_len, s.d_model, s.num_heads)


def step_shapes(run: scenario.Scenario, name: str) -> list[tuple[str, Shape]]:
    """(tensor name, shape) of every tensor the step produces."""
    all_shapes = shapes(run)
    return [(f, all_shapes[f]) for f in STEP_BY_NAME[name].fields]


def reshape_chain(run: scenario.Scenario, name: str) -> list[tuple[str, Shape]]:
    """The view/transpose path of the split and concat steps: (operation, shape after it)."""
    s = run.settings
    B, T, d, h, d_k = 1, s.seq_len, s.d_model, s.num_heads, s.d_k
    flat = Shape(("B", "T_q", "d_model"), (B, T, d))
    viewed = Shape(("B", "T_q", "h", "d_k"), (B, T, h, d_k))
    heads = Shape(("B", "h", "T_q", "d_k"), (B, h, T, d_k))
    if name == "split":
        return [("q", flat), (f"view({B}, {T}, {h}, {d_k})", viewed), ("transpose(1, 2)", heads)]
    if name == "concat":
        return [("head_outputs", heads), ("transpose(1, 2).contiguous()", viewed),
                (f"view({B}, {T}, {d})", flat)]
    return []


def pipeline(run: scenario.Scenario) -> list[tuple[str, str]]:
    """(step name, compact sizes) for the whole chain, e.g. ('split', '1×4×8×16')."""
    all_shapes = shapes(run)
    return [(step.name, "×".join(str(n) for n in all_shapes[step.fields[0]].sizes)) for step in STEPS]


# ------------------------------------------------------------------ per-step numbers


def step_tensor(run: scenario.Scenario, field: str) -> torch.Tensor:
    """The tensor without its batch axis: (T, d_model) or (h, T, ·)."""
    value = run.x if field == "x" else getattr(run.trace, field)
    return value[0]


def sqrt_dk(run: scenario.Scenario) -> float:
    return math.sqrt(run.settings.d_k)


def split_max_diff(trace: AttentionTrace, h: int, d_k: int) -> float:
    """max |q_heads[:, i] - q[:, :, i*d_k:(i+1)*d_k]| over every head and role: 0 if the split is a pure cut."""
    diff = 0.0
    for whole, heads in ((trace.q, trace.q_heads), (trace.k, trace.k_heads), (trace.v, trace.v_heads)):
        for i in range(h):
            block = whole[:, :, i * d_k:(i + 1) * d_k]  # (B, T, d_k)
            diff = max(diff, float((heads[:, i] - block).abs().max()))
    return diff


def concat_max_diff(trace: AttentionTrace, h: int, d_k: int) -> float:
    """max |concat[:, :, i*d_k:(i+1)*d_k] - head_outputs[:, i]|: head i fills its own columns again."""
    return max(float((trace.concat[:, :, i * d_k:(i + 1) * d_k] - trace.head_outputs[:, i]).abs().max())
               for i in range(h))


def row_sum_deviation(trace: AttentionTrace) -> float:
    """Largest |sum of a row of weights - 1| (NaN rows ignored)."""
    dev = (trace.weights.sum(dim=-1) - 1).abs()
    dev = dev[~torch.isnan(dev)]
    return float(dev.max()) if dev.numel() else 0.0


def blocked_count(run: scenario.Scenario) -> tuple[int, int]:
    """(blocked cells, all cells) of the (T_q, T_k) grid."""
    T = run.settings.seq_len
    grid = full_grid(run.mask, 1, T, T)[0]
    return int((~grid).sum()), T * T


@dataclass(frozen=True)
class ReferenceCheck:
    output_diff: float
    weights_diff: float


def reference_check(run: scenario.Scenario) -> ReferenceCheck:
    """Our result against torch.nn.MultiheadAttention holding the same weights, computed now."""
    out, weights = torch_reference(run.model, run.x, run.x, run.x, run.mask)
    return ReferenceCheck(max_abs_diff(run.trace.output, out), max_abs_diff(run.trace.weights, weights))


# ------------------------------------------------------------------ heads shown


def heads_per_page(seq_len: int) -> int:
    """How many head panels one page shows: 8 (two rows of four; at a large T the renderer thins the token
    labels to what fits, so 8 panels of 32 x 32 still read)."""
    return 8


def head_pages(num_heads: int, seq_len: int) -> int:
    return max(1, math.ceil(num_heads / heads_per_page(seq_len)))


# ------------------------------------------------------------------ figures


def session_copy(fig: go.Figure) -> go.Figure:
    """A session's own copy of a figure cached for every session (ui.cache.shared): show_chart restyles
    the figure it is given in place (palette, cell numbers), so the shared one is never handed out.
    An unvalidated rebuild from the figure's own property dicts (the cached figure was validated when it
    was built): new trace and layout objects, the arrays inside shared, which restyle only replaces,
    never writes into. ~1 ms against 5-20 ms to build a heatmap figure again."""
    copy = go.Figure({"data": fig._data, "layout": fig._layout}, _validate=False)
    copy._grid_ref = getattr(fig, "_grid_ref", None)  # make_subplots' panel map: the table view's titles
    return copy


def head_colors(h: int) -> list[str]:
    palette = plotly.colors.qualitative.Dark24 if h > 10 else plotly.colors.qualitative.Plotly
    return [palette[i % len(palette)] for i in range(h)]


def _relabel(fig: go.Figure, x=None, y=None, trace_type: str = "heatmap") -> go.Figure:
    """Replace the 'i:token' axis labels of figures' heatmaps (e.g. columns are features, not tokens)."""
    patch = {}
    if x is not None:
        patch["x"] = list(x)
    if y is not None:
        patch["y"] = list(y)
    fig.update_traces(patch, selector=dict(type=trace_type))
    return fig


def _columns(n: int, offset: int = 0) -> list[str]:
    return [str(offset + c) for c in range(n)]


def dense_trace(m: torch.Tensor, x, y, *, zrange, colorscale=figures.SIGNED_SCALE, x_title: str = "",
                y_title: str = "", showscale: bool = True) -> go.Heatmap:
    """A heatmap of a wide matrix (e.g. T × 512) from a numpy array: plotly validates and copies nested
    lists element by element (~0.5 s for 16k cells), an array in a few ms, and sends it packed.
    Hover shows the exact value; nothing here is clipped (zrange covers the whole step)."""
    return go.Heatmap(z=m.detach().float().numpy(), x=list(x), y=list(y), zmin=zrange[0], zmax=zrange[1],
                      colorscale=colorscale, showscale=showscale, xgap=0, ygap=0,
                      hovertemplate=f"{y_title} %{{y}}<br>{x_title} %{{x}}<br>%{{z:.4f}}<extra></extra>")


def matrix(run, field: str, *, zrange, labels: dict, title: str = "", height=None,
           showscale: bool = True) -> go.Figure:
    """A (T, d_model) tensor, tokens down, columns across, first row at the top."""
    m = step_tensor(run, field)
    fig = go.Figure(dense_trace(m, range(m.shape[1]), figures.axis_labels(run.tokens), zrange=zrange,
                                x_title=labels["col"], y_title=labels["token"], showscale=showscale))
    T = m.shape[0]
    fig.update_layout(title=title, height=height or max(260, min(720, 90 + 22 * T)),
                      margin=dict(l=10, r=10, t=40 if title else 10, b=10))
    fig.update_yaxes(autorange="reversed", type="category", title=labels["token"], tickfont=dict(size=13))
    fig.update_xaxes(title=labels["col"], showgrid=False, zeroline=False)
    return fig


TOKEN_GRIDS = ("scores", "scaled_scores", "masked_scores", "weights")  # (h, T_q, T_k): tokens on both axes


def per_head(run, field: str, heads, *, zrange, labels: dict, signed: bool, colorscale=None,
             panel_height: int = 230, global_columns: bool = False, max_cols: int = 4) -> go.Figure:
    """Panels of a (h, T, ·) tensor for the chosen heads (a page of them), one colour scale for all heads.

    Like figures.heads_figure, built from arrays (fast at T=32, d_k=512). Blocked cells of the masked
    scores (the -1e9 fill) are left empty on a dark background, like the mask grid; hover gives -1e+09.
    """
    m = step_tensor(run, field).detach().float()
    heads = list(heads)
    grid = field in TOKEN_GRIDS
    y = figures.axis_labels(run.tokens)
    colors = head_colors(run.settings.num_heads)
    scale = colorscale or (figures.SIGNED_SCALE if signed else figures.WEIGHTS_SCALE)
    if grid:
        # Token × token panels as ONE tiled heatmap (figures.heads_figure): the browser pays ~17 ms per
        # subplot (8 heads as subplots: ~8 frames a redraw).
        fig = figures.heads_figure(m, heads, run.tokens, run.tokens, head_label=labels["head"], zrange=zrange,
                                   colorscale=scale, max_cols=max_cols, x_title=labels["key"],
                                   y_title=labels["query"], panel_height=panel_height)
        for h, annotation in zip(heads, fig.layout.annotations):  # titles in their head's colour
            annotation.font = dict(color=colors[h], size=13)
        if field == "masked_scores" and bool((m[heads] <= -1e8).any()):
            _blocked_overlay(fig, m, heads, fill=run.model.fill_value, x_title=labels["key"], y_title=labels["query"])
        # Without a mask the masked scores equal the scaled ones: the field keeps the two charts distinct
        # for Streamlit (identical figures would get the same element id).
        fig.update_layout(meta={**fig.layout.meta, "field": field})  # (meta also holds the tiling)
        return fig
    return tiled_columns(m, heads, y, zrange=zrange, colorscale=scale, colors=colors, labels=labels,
                         panel_height=panel_height, global_columns=global_columns, max_cols=max_cols, field=field)


def tiled_columns(m: torch.Tensor, heads, y_labels: list[str], *, zrange, colorscale, colors, labels: dict,
                  panel_height: int, global_columns: bool, max_cols: int, field: str) -> go.Figure:
    """Panels of a (h, T, d_k) tensor whose columns are features (Q, K, V split into heads, the heads'
    outputs) as ONE heatmap on one pair of axes, like figures.heads_figure: tokens down, each panel's columns
    across, empty cells between panels. Columns sit on a numeric axis (panel n's column c at
    n * (C + gap) + c) and are named by their number in the hover (customdata) and the tick labels: the
    head's own columns of d_model with `global_columns`, else 0 .. d_k - 1."""
    heads = list(heads)
    n_rows, n_cols = figures.grid_shape(max(1, len(heads)), max_cols)
    R, C = int(m.shape[-2]), int(m.shape[-1])
    gap_c = max(1, math.ceil(C * 0.08))
    gap_r = max(1, math.ceil(R * 0.22))  # room for the titles above each row of panels
    width, height = n_cols * C + (n_cols - 1) * gap_c, n_rows * R + (n_rows - 1) * gap_r
    z = np.full((height, width), np.nan, dtype="float32")
    column = np.full((height, width), -1, dtype="int64")
    tiles, titles, tick_pos, tick_text = [], [], [], []
    first_of = {h: (h * C if global_columns else 0) for h in heads}
    for n, h in enumerate(heads):
        r, c = divmod(n, n_cols)
        y0, x0 = r * (R + gap_r), c * (C + gap_c)
        z[y0:y0 + R, x0:x0 + C] = m[h].numpy()
        column[y0:y0 + R, x0:x0 + C] = np.arange(first_of[h], first_of[h] + C)[None, :]
        names = [str(first_of[h] + j) for j in range(C)]
        tiles.append(dict(title=f"{labels['head']} {h}", row=y0, col=x0, x_labels=names))
        titles.append(dict(x=x0 + (C - 1) / 2, y=y0 - 0.5, yanchor="bottom", text=f"{labels['head']} {h}",
                           showarrow=False, font=dict(color=colors[h], size=13)))
        if r == n_rows - 1 or n + n_cols >= len(heads):  # under the last panel of each column
            for j in canvas_ticks(C):
                tick_pos.append(x0 + j)
                tick_text.append(str(first_of[h] + j))
    ys = list(y_labels)  # already 'i:token'
    y_cats = [ys[i % (R + gap_r)] + "\u200b" * (i // (R + gap_r)) if i % (R + gap_r) < R else "\u2009" * (i + 1)
              for i in range(height)]
    y_ticks = [y_cats[r * (R + gap_r) + i] for r in range(n_rows) for i in range(R)] if R <= 16 else []
    heat = go.Heatmap(z=z, x0=0, dx=1, y=y_cats, zmin=zrange[0], zmax=zrange[1], colorscale=colorscale,
                      showscale=True, xgap=0, ygap=0, hoverongaps=False, customdata=column,
                      hovertemplate=f"{labels['token']} %{{y}}<br>{labels['col']} %{{customdata}}<br>%{{z:.4f}}"
                                    "<extra></extra>")
    fig = go.Figure(heat)
    fig.update_layout(height=60 + panel_height * n_rows, margin=dict(l=10, r=10, t=40, b=10), annotations=titles,
                      plot_bgcolor="rgba(0,0,0,0)",
                      meta=dict(tiles=tiles, rows=R, cols=C, per_row=n_cols, field=field, y_labels=ys,
                                x_labels=[str(j) for j in range(C)], custom="columns"))  # customdata: not values
    fig.update_yaxes(type="category", autorange=False, range=[height - 0.5, -0.5 - max(1.0, gap_r * 0.8)],
                     tickmode="array", tickvals=y_ticks, ticktext=[v.rstrip("\u200b") for v in y_ticks],
                     showticklabels=bool(y_ticks), ticks="", showgrid=False, zeroline=False, fixedrange=True)
    fig.update_xaxes(type="linear", range=[-0.5, width - 0.5], autorange=False, tickmode="array", tickvals=tick_pos,
                     ticktext=tick_text, title=labels["col"], showgrid=False, zeroline=False, fixedrange=True)
    return fig


def canvas_ticks(n: int) -> list[int]:
    """A panel's labelled columns: 0, a round step, ..., never crowded (about 3 a panel)."""
    step = next(s for s in (1, 2, 5, 10, 20, 25, 50, 100, 200, 250) if n / s <= 3.5)
    return list(range(0, n, step))


def _blocked_overlay(fig: go.Figure, m: torch.Tensor, heads, *, fill: float, x_title: str, y_title: str) -> None:
    """Blocked cells of tiled masked scores (heads_figure) as the mask grid shows them: the score's cell
    left empty, and a second trace on the same axes paints it dark (the mask colour, so the palette
    option restyles it), its hover giving the -1e9 that enters the softmax. Two traces, one subplot."""
    heat, tiling = fig.data[0], fig.layout.meta
    R, C = tiling["rows"], tiling["cols"]
    z = heat.z.copy()  # (tiled rows, tiled cols) float32
    over = np.full(z.shape, np.nan, dtype="float32")
    for tile, h in zip(tiling["tiles"], heads):
        blocked = (m[h] <= -1e8).numpy()  # (R, C)
        r, c = tile["row"], tile["col"]
        z[r:r + R, c:c + C][blocked] = np.nan
        over[r:r + R, c:c + C][blocked] = 0.0
    heat.z = z
    fig.add_trace(go.Heatmap(z=over, x=heat.x, y=heat.y, zmin=0, zmax=1, colorscale=figures.MASK_SCALE,
                             showscale=False, hoverongaps=False, xgap=heat.xgap, ygap=heat.ygap,
                             hovertemplate=f"{y_title} %{{y}}<br>{x_title} %{{x}}<br>{fill:.0e}<extra></extra>"))


def head_band_figure(run, field: str, *, zrange, labels: dict, height: int | None = None,
                     values: bool = True) -> go.Figure:
    """Q (or concat) as T × d_model, with a coloured band on top showing which columns belong to which head.

    One pair of axes (the app's canvas draws it; no subplots): the band is a few rows of head numbers above
    the tokens, lines mark where each head's columns end. `values=False`: the band alone (which head owns
    which column), for a step whose head panels below already show the values."""
    s = run.settings
    h, d_k, d = s.num_heads, s.d_k, s.d_model
    T = s.seq_len
    colors = head_colors(h)
    band_rows = max(1, round(T * 0.12)) if values else 3
    band_y = [labels["head"] + "\u200b" * i for i in range(band_rows)]  # one category per row of the band
    owner = (torch.arange(d) // d_k)[None].expand(band_rows, d)  # column -> head
    scale = []
    for i, c in enumerate(colors):
        scale += [[i / h, c], [(i + 1) / h, c]]
    band = go.Heatmap(
        z=owner.numpy(), x=list(range(d)), y=band_y, zmin=-0.5, zmax=h - 0.5,
        colorscale=scale if h > 1 else [[0, colors[0]], [1, colors[0]]], showscale=False,
        customdata=(torch.arange(d) % d_k)[None].expand(band_rows, d).numpy(),
        hovertemplate=f"{labels['col']} %{{x}} → {labels['head']} %{{z}}, {labels['col']} %{{customdata}}"
                      "<extra></extra>")
    traces = [band]
    if values:
        m = step_tensor(run, field)  # (T, d_model)
        traces.append(dense_trace(m, range(d), figures.axis_labels(run.tokens), zrange=zrange,
                                  x_title=labels["col"], y_title=labels["token"]))
    fig = go.Figure(traces)
    line = dict(color="black", width=1.5 if h <= 16 else 0.8)
    first, last = (band_rows - 0.5, band_rows + T - 0.5) if values else (-0.5, band_rows - 0.5)
    fig.update_layout(  # block boundaries (across the matrix, or the band), head numbers on the band (set at once)
        shapes=[dict(type="line", xref="x", yref="y", x0=i * d_k - 0.5, x1=i * d_k - 0.5, y0=first, y1=last,
                     line=line) for i in range(1, h)],
        annotations=[dict(x=(i + 0.5) * d_k - 0.5, y=(band_rows - 1) / 2, xref="x", yref="y", text=str(i),
                          showarrow=False, font=dict(color="white", size=13)) for i in range(h)] if h <= 16 else [])
    if values:
        fig.update_yaxes(type="category", autorange="reversed", title=labels["token"], tickfont=dict(size=13),
                         tickmode="array", tickvals=figures.axis_labels(run.tokens),
                         ticktext=figures.axis_labels(run.tokens))
    else:
        fig.update_yaxes(type="category", autorange="reversed", showticklabels=False, ticks="")
    fig.update_xaxes(range=[-0.5, d - 0.5], title=labels["col"], showgrid=False, zeroline=False)
    fig.update_layout(height=height or (max(280, min(640, 120 + 18 * s.seq_len)) if values else 130),
                      margin=dict(l=10, r=10, t=10, b=10))
    return fig


def mask_figure(run, labels: dict, height: int | None = None) -> go.Figure:
    T = run.settings.seq_len
    grid = full_grid(run.mask, 1, T, T)[0].float()
    fig = figures.matrix_figure(grid, run.tokens, run.tokens, zrange=(0, 1), colorscale=figures.MASK_SCALE,
                                x_title=labels["key"], y_title=labels["query"], height=height)
    fig.update_traces(showscale=False, selector=dict(type="heatmap"))
    return fig


def step_zrange(run, name: str) -> tuple[float, float]:
    """One colour range for the whole step (all heads, all of Q/K/V)."""
    step = STEP_BY_NAME[name]
    values = torch.cat([step_tensor(run, f).reshape(-1) for f in step.fields])
    if name == "softmax":
        finite = values[~torch.isnan(values)]
        return 0.0, float(finite.max()) if finite.numel() else 1.0
    return figures.color_range(values, signed=True)


def drill_figure(run, head: int, i: int, j: int, labels: dict, height: int | None = None) -> go.Figure:
    """The weights of one head, clickable, with the chosen cell outlined."""
    w = run.trace.weights[0, head]  # (T_q, T_k)
    fig = figures.matrix_figure(w, run.tokens, run.tokens, zrange=(0.0, 1.0), x_title=labels["key"],
                                y_title=labels["query"], clickable=True, height=height)
    labels_axis = figures.axis_labels(run.tokens)
    fig.add_trace(go.Scatter(x=[labels_axis[j]], y=[labels_axis[i]], mode="markers", showlegend=False, hoverinfo="skip",
                             marker=dict(size=16, symbol="square-open", color="#d62728", line=dict(width=3))))
    fig.update_xaxes(tickangle=-45)
    return fig


# ------------------------------------------------------------------ drill-down: one cell's story


@dataclass(frozen=True)
class CellStory:
    head: int
    i: int  # query position
    j: int  # key position
    d_k: int
    columns: tuple[int, int]  # the head's columns of Q/K/V: first, last
    q_i: torch.Tensor  # (d_k,) row i of Q, this head's columns
    k_j: torch.Tensor  # (d_k,)
    products: torch.Tensor  # (d_k,) q_i * k_j
    dot: float  # q_i . k_j
    sqrt_dk: float
    scaled: float  # dot / sqrt(d_k)
    kept: bool  # mask says keep
    fill_value: float
    masked: float  # what enters the softmax
    row_scaled: torch.Tensor  # (T_k,) the whole row i, scaled
    row_kept: torch.Tensor  # (T_k,) bool
    row_masked: torch.Tensor  # (T_k,)
    row_max: float
    row_exp: torch.Tensor  # (T_k,) exp(row - max)
    row_sum: float
    row_weights: torch.Tensor  # (T_k,)
    weight: float  # row_weights[j]
    v: torch.Tensor  # (T_k, d_k) this head's value rows
    contributions: torch.Tensor  # (T_k, d_k) weight_j' * v_j'
    out: torch.Tensor  # (d_k,) the head's output row i
    check: float  # max |recomputed - trace| over dot, scaled, weights row and output row


def cell_story(run: scenario.Scenario, head: int, i: int, j: int) -> CellStory:
    """Recompute one cell of one head by hand, from Q/K/V's columns, and check it against the trace."""
    s, tr = run.settings, run.trace
    T, d_k = s.seq_len, s.d_k
    if not (0 <= head < s.num_heads and 0 <= i < T and 0 <= j < T):
        raise ValueError(f"cell (head={head}, i={i}, j={j}) outside h={s.num_heads}, T={T}")
    cols = slice(head * d_k, (head + 1) * d_k)
    q_i = tr.q[0, i, cols]  # (d_k,)  this head's columns of row i of Q
    K = tr.k[0, :, cols]  # (T_k, d_k)
    V = tr.v[0, :, cols]  # (T_k, d_k)
    k_j = K[j]
    products = q_i * k_j
    dot = float(products.sum())
    root = math.sqrt(d_k)
    row_scaled = (K @ q_i) / root  # (T_k,)
    row_kept = full_grid(run.mask, 1, T, T)[0, i]  # (T_k,)
    fill = run.model.fill_value
    row_masked = torch.where(row_kept, row_scaled, torch.full_like(row_scaled, fill))
    row_max = float(row_masked.max())
    row_exp = torch.exp(row_masked - row_max)
    row_sum = float(row_exp.sum())
    row_weights = row_exp / row_sum
    contributions = row_weights[:, None] * V  # (T_k, d_k)
    out = contributions.sum(dim=0)
    check = max(
        abs(dot - float(tr.scores[0, head, i, j])),
        abs(dot / root - float(tr.scaled_scores[0, head, i, j])),
        max_abs_diff(row_weights, tr.weights[0, head, i]),
        max_abs_diff(out, tr.head_outputs[0, head, i]),
    )
    return CellStory(head, i, j, d_k, (cols.start, cols.stop - 1), q_i, k_j, products, dot, root, dot / root,
                     bool(row_kept[j]), fill, float(row_masked[j]), row_scaled, row_kept, row_masked, row_max,
                     row_exp, row_sum, row_weights, float(row_weights[j]), V, contributions, out, check)


def dot_terms(story: CellStory, shown: int = 3) -> str:
    """'(0.1234)(−0.5000) + (…)(…) + … ' — the first terms of the dot product, then the count."""
    terms = [f"({a:.3f})·({b:.3f})" for a, b in zip(story.q_i[:shown].tolist(), story.k_j[:shown].tolist())]
    text = " + ".join(terms)
    if story.d_k > shown:
        text += f" + … ({story.d_k})"
    return text


def vectors_figure(story: CellStory, labels: dict, height: int = 200) -> go.Figure:
    """q_i, k_j and their element-wise product as three rows over the head's d_k columns."""
    rows = torch.stack([story.q_i, story.k_j, story.products])  # (3, d_k)
    names = [f"q_{story.i}", f"k_{story.j}", f"q_{story.i}⊙k_{story.j}"]
    first = story.columns[0]
    fig = figures.matrix_figure(rows, _columns(story.d_k, first), names, signed=True, x_title=labels["col"],
                                height=height)
    return _relabel(fig, x=_columns(story.d_k, first), y=names)


def mix_figure(story: CellStory, tokens, labels: dict) -> go.Figure:
    """weight_j' · v_j' for every key j' (rows), and their sum, the head's output row i (last row)."""
    m = torch.cat([story.contributions, story.out[None]])  # (T_k + 1, d_k)
    y = [f"{w:.3f}·v_{k} ({tok})" for k, (w, tok) in enumerate(zip(story.row_weights.tolist(), tokens))]
    y.append(f"Σ = head_{story.head}[{story.i}]")
    first = story.columns[0]
    fig = figures.matrix_figure(m, _columns(story.d_k, first), y, signed=True, x_title=labels["col"])
    fig = _relabel(fig, x=_columns(story.d_k, first), y=y)
    fig.update_yaxes(tickfont=dict(size=13))
    if m.numel() > MIX_EXACT_CELLS:  # colour only: its row and column in the hover, no value
        fig.data[0].hovertemplate = re.sub(r"<br>%\{z[^}]*\}", "", fig.data[0].hovertemplate)
    return fig


def story_rows(story: CellStory, tokens) -> list[list[str]]:
    """Row i of the softmax, key by key, as text: key (the chosen one marked ▶), token, scaled score, mask,
    the value entering the softmax, e^(s - m), weight. Text for a static table: a data grid costs the
    browser frames on every redraw, and a pandas Styler ~20 ms of server time a rerun (32 rows)."""
    def num(v: float) -> str:
        return f"{v:.0e}" if v <= -1e8 else f"{v:.4f}"

    return [[("▶ " if k == story.j else "") + str(k), str(tok), num(float(story.row_scaled[k])),
             str(int(story.row_kept[k])), num(float(story.row_masked[k])), f"{float(story.row_exp[k]):.4f}",
             f"{float(story.row_weights[k]):.4f}"] for k, tok in enumerate(tokens)]


STORY_COLUMNS = ("key", "token", "scaled", "mask", "masked", "exp", "weight")


def top_contributions(story: CellStory, tokens, n: int = 3) -> list[tuple[int, str, float]]:
    """The n keys with the largest weights in row i: (position, token, weight)."""
    w = torch.nan_to_num(story.row_weights, nan=0.0)
    order = torch.argsort(w, descending=True)[:n].tolist()
    return [(k, tokens[k], float(story.row_weights[k])) for k in order]
