"""The "Heads and shapes" lesson as plain data and figures: what changes with h, and what it costs.

- `shape_flow` / `shape_flow_html`: the whole layer as boxes, each labelled with its live
  shape (from core.accounting.tensor_shapes); boxes whose shape depends on h are coloured
  apart from those that never change, and, given the previous h, the changed ones say what
  they were.
- `cost_rows`, `cost_figures`: the accounting per step and against h (all divisors of d_model).
- `time_forward`, `timing_figure`: a live measurement of the forward pass for every h.
- `block_slices`, `param_split`: one big W^Q cut into h column blocks is exactly the heads' W_i^Q.
- `single_vs_multi`, `head_focus`: the same input through h = 1 and through h heads.

No Streamlit here: the page (pages/heads.py) only draws what these return.
"""

from __future__ import annotations

import math
import re
import statistics
import time
from html import escape
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import plotly.graph_objects as go
import torch
from plotly.subplots import make_subplots

from core.accounting import Shape, Totals, step_costs, tensor_shapes, totals, weight_count
from core.attention import AttentionTrace, MultiHeadAttention, build_input, build_model
from core.figures import SIGNED_SCALE
from core.threads import single_thread
from core.validation import divisors

# Colours of the shape-flow boxes: warm = shape depends on h, cool grey = same for every h.
DEPENDS_FILL, DEPENDS_LINE = "#fde4c8", "#d9730d"
SAME_FILL, SAME_LINE = "#e6ecf5", "#5b6b82"
CHANGED_LINE = "#b03a00"
CURRENT_COLOR, OTHER_COLOR = "#2a6fdb", "#a9bedf"  # bars: the current h vs the other h
MACS_COLOR, ELEMENTWISE_COLOR, MEMORY_COLOR = "#2a6fdb", "#e8893a", "#c0504d"

# ---------------------------------------------------------------- the shape flow

# (name, column centre, row, width in columns): X on top, Q/K/V side by side, the score
# steps under Q and K, V running down on the right until it meets the weights.
FLOW_LAYOUT = (
    ("x", 1.0, 0, 1.0),
    ("q", 0.0, 1, 0.94), ("k", 1.0, 1, 0.94), ("v", 2.0, 1, 0.94),
    ("q_heads", 0.0, 2, 0.94), ("k_heads", 1.0, 2, 0.94), ("v_heads", 2.0, 2, 0.94),
    ("scores", 0.5, 3, 1.94),
    ("scaled_scores", 0.5, 4, 1.94),
    ("masked_scores", 0.5, 5, 1.94),
    ("weights", 0.5, 6, 1.94),
    ("head_outputs", 1.0, 7, 2.94),
    ("concat", 1.0, 8, 2.94),
    ("output", 1.0, 9, 2.94),
)


def depends_on_h(shape: Shape) -> bool:
    """A shape changes with h exactly when it has a head axis or a per-head width."""
    return "h" in shape.axes or "d_k" in shape.axes


@dataclass(frozen=True)
class FlowBox:
    name: str  # "x" or an AttentionTrace field
    shape: Shape  # at the current h
    prev_shape: Shape | None  # at the previous h, when one was given and valid
    x: float  # centre column
    row: int
    width: float  # in columns

    @property
    def depends_on_h(self) -> bool:
        return depends_on_h(self.shape)

    @property
    def changed(self) -> bool:
        return self.prev_shape is not None and self.prev_shape.sizes != self.shape.sizes


def shape_flow(d_model: int, h: int, T_q: int, T_k: int | None = None, *, B: int = 1,
               prev_h: int | None = None) -> list[FlowBox]:
    """Every box of the diagram with its live shape; `prev_h` (if it divides d_model) adds the old shapes."""
    T_k = T_q if T_k is None else T_k
    shapes = tensor_shapes(B, T_q, T_k, d_model, h)
    prev = None
    if isinstance(prev_h, int) and not isinstance(prev_h, bool) and prev_h >= 1 and d_model % prev_h == 0 \
            and prev_h != h:
        prev = tensor_shapes(B, T_q, T_k, d_model, prev_h)
    return [FlowBox(name, shapes[name], prev[name] if prev else None, x, row, width)
            for name, x, row, width in FLOW_LAYOUT]


def _sizes(shape: Shape) -> str:
    return f"({', '.join(str(s) for s in shape.sizes)})"


def _axes(shape: Shape) -> str:
    return f"({', '.join(shape.axes)})"


def parse_sizes(box_text: str) -> tuple[int, ...]:
    """The live sizes written in a box of shape_flow_html (its bold third line), back as integers: for tests."""
    inner = re.search(r"class='al-sizes'>\(([^)]*)\)</b>", box_text).group(1)
    return tuple(int(p) for p in inner.split(","))


def _grid_span(x: float, width: float) -> tuple[int, int]:
    """A FLOW_LAYOUT box (centre column, width in columns) as (first grid column, span) on a 6-column grid."""
    first = round((x - width / 2 + 0.5) * 2) + 1
    return first, max(1, round(width * 2))


# One class per role; the page injects this once with the diagram. Boxes whose shape depends on h are
# drawn as a small stack of cards (one per head, up to 4) by box-shadows.
FLOW_CSS = f"""
.al-flow{{display:grid;grid-template-columns:repeat(6,minmax(0,1fr));column-gap:14px;row-gap:26px;
  font-size:13px;line-height:1.3;color:#1b1f24;max-width:760px;margin:4px 0 8px}}
.al-box{{position:relative;border-radius:6px;padding:5px 6px;text-align:center;min-width:0;overflow-wrap:anywhere}}
.al-box::before{{content:"↓";position:absolute;top:-25px;left:50%;transform:translateX(-50%);color:#4a5566;font-size:17px;line-height:1}}
.al-box.al-top::before{{content:none}}
.al-same{{background:{SAME_FILL};border:1.2px solid {SAME_LINE}}}
.al-dep{{background:{DEPENDS_FILL};border:1.2px solid {DEPENDS_LINE}}}
.al-changed{{border:3.5px solid {CHANGED_LINE};padding:3px 4px}}
.al-axes{{color:#555}}
.al-was{{color:{CHANGED_LINE};font-size:13px}}
.al-wire{{border-left:1.6px solid #4a5566;margin-left:50%;margin-top:-26px;margin-bottom:-26px}}
.al-legend{{display:flex;flex-wrap:wrap;gap:6px 18px;font-size:13px;margin:2px 0 10px}}
.al-key{{display:inline-block;width:14px;height:14px;border-radius:3px;vertical-align:-2px;margin-right:6px}}
"""


def _stack_shadow(h: int) -> str:
    """The heads behind a per-head box: up to three offset cards, up and to the right."""
    cards = [f"{4 * k}px {-4 * k}px 0 -1px {DEPENDS_FILL}, {4 * k}px {-4 * k}px 0 0 {DEPENDS_LINE}"
             for k in range(1, min(max(h, 1), 4))]
    return f"box-shadow:{', '.join(cards)};" if cards else ""


def shape_flow_html(boxes: Sequence[FlowBox], titles: dict[str, str], *, legend_depends: str,
                    legend_same: str, legend_changed: str = "changed", was: str = "was {sizes}",
                    numbers: str = "{n} numbers", h: int = 1) -> str:
    """The layer as a flow of labelled boxes in plain HTML/CSS (one `data-name` box per tensor).

    HTML, not a chart: a redraw of text and boxes costs the browser almost nothing, where the same
    diagram as a plotly figure of shapes cost ~200 ms per slider step (benchmarks/bench_browser.py),
    and on a phone the text wraps instead of shrinking. Boxes whose shape depends on h are warm-coloured
    and stacked (one card per head, up to 4); the others are grey. Changed boxes get a thick border and a
    'was' line. Hovering a box shows the number of values it holds.
    """
    by_name = {b.name: b for b in boxes}
    cells = []
    for b in boxes:
        first, span = _grid_span(b.x, b.width)
        kind = "al-dep" if b.depends_on_h else "al-same"
        classes = " ".join(c for c in ("al-box", kind, "al-changed" if b.changed else "",
                                       "al-top" if b.row == 0 else "") if c)
        title = titles.get(b.name, b.name)
        tip = f"{title}: {b.shape.text()}, " + numbers.format(n=f"{b.shape.numel:,}")
        lines = [f"<b>{escape(title)}</b>", f"<span class='al-axes'>{escape(_axes(b.shape))}</span>",
                 f"<b class='al-sizes'>{_sizes(b.shape)}</b>"]
        if b.changed:
            lines.append(f"<span class='al-was'>{escape(was.format(sizes=_sizes(b.prev_shape)))}</span>")
        style = f"grid-column:{first}/span {span};grid-row:{b.row + 1};" + (_stack_shadow(h) if b.depends_on_h else "")
        cells.append(f"<div class='{classes}' data-name='{b.name}' title='{escape(tip, quote=True)}' "
                     f"style='{style}'>{'<br>'.join(lines)}</div>")
    # V skips the score rows: a wire down its column from v_heads to head_outputs.
    v, out = by_name["v_heads"], by_name["head_outputs"]
    first, span = _grid_span(v.x, v.width)
    if out.row - v.row > 1:
        cells.append(f"<div class='al-wire' style='grid-column:{first}/span {span};"
                     f"grid-row:{v.row + 2}/{out.row + 1}'></div>")
    legend = [(legend_depends, f"background:{DEPENDS_FILL};border:1.5px solid {DEPENDS_LINE}"),
              (legend_same, f"background:{SAME_FILL};border:1.5px solid {SAME_LINE}")]
    if any(b.changed for b in boxes):
        legend.append((legend_changed, f"background:{DEPENDS_FILL};border:3px solid {CHANGED_LINE}"))
    keys = "".join(f"<span><span class='al-key' style='{css}'></span>{escape(text)}</span>" for text, css in legend)
    return (f"<style>{FLOW_CSS}</style><div class='al-legend'>{keys}</div>"
            f"<div class='al-flow' role='list'>{''.join(cells)}</div>")


def flow_box_texts(html: str) -> dict[str, str]:
    """Each box's text in shape_flow_html's output, by tensor name: for tests."""
    return {m.group(1): m.group(2) for m in re.finditer(r"data-name='([^']+)'[^>]*>(.*?)</div>", html)}


# ---------------------------------------------------------------- cost


@dataclass(frozen=True)
class CostRow:
    step: str  # AttentionTrace field
    shape: Shape  # the tensor this step produces
    params: int
    macs: int
    elementwise: int


def cost_rows(B: int, T_q: int, T_k: int, d_model: int, h: int, *, masked: bool) -> list[CostRow]:
    """core.accounting.step_costs joined with the shape each step produces."""
    shapes = tensor_shapes(B, T_q, T_k, d_model, h)
    return [CostRow(c.step, shapes[c.step], c.params, c.macs, c.elementwise)
            for c in step_costs(B, T_q, T_k, d_model, h, masked=masked)]


def all_head_counts(d_model: int) -> list[int]:
    """Every h that divides d_model (the cost chart's x axis), beyond the slider's limit too."""
    return divisors(d_model)


NBSP = "\u00a0"


def shape_table(rows, titles: dict, *, step: str, axes: str, sizes: str) -> dict:
    """The cost rows' output shapes as a table of three columns: step, named axes, sizes. Inside a shape the
    spaces do not break ("(1, 4, 8, 16)" stays on one line): a phone wraps the step's words instead."""
    return {step: [titles[r.step] for r in rows],
            axes: ["(" + ("," + NBSP).join(r.shape.axes) + ")" for r in rows],
            sizes: ["(" + ("," + NBSP).join(str(n) for n in r.shape.sizes) + ")" for r in rows]}


def ratio_text(value: int | float, base: int | float) -> str:
    """'×4' for value = 4·base, '×1' when equal (no float noise such as ×1.0000001)."""
    if base == 0:
        return "–"
    r = value / base
    return f"×{r:.0f}" if abs(r - round(r)) < 1e-9 else f"×{r:.2f}"


def human_bytes(n: int) -> str:
    for unit, size in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            v = n / size
            return f"{v:.0f} {unit}" if v == int(v) else f"{v:.1f} {unit}"
    return f"{n} B"


def _h_axis(rows: Sequence[Totals]) -> tuple[list[str], list[str]]:
    cats = [str(r.h) for r in rows]
    ticks = [f"{r.h}<br><span style='font-size:10px;color:#666'>{r.d_k}</span>" for r in rows]
    return cats, ticks


def _bar_colors(rows: Sequence[Totals], current_h: int, base: str = OTHER_COLOR,
                current: str = CURRENT_COLOR) -> list[str]:
    return [current if r.h == current_h else base for r in rows]


def cost_figures(rows: Sequence[Totals], current_h: int, *, params_title: str, ops_title: str,
                 memory_title: str, macs_name: str, elementwise_name: str, axis_title: str,
                 memory_name: str = "memory") -> tuple[go.Figure, go.Figure]:
    """(parameters + operations against h, memory of the attention weights against h).

    Linear y axes from 0, so a flat bar row really means 'the same' and growth looks like growth.
    The current h is drawn darker; the tick under each h is its d_k.
    """
    cats, ticks = _h_axis(rows)
    compute = make_subplots(rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.14,
                            subplot_titles=[params_title, ops_title])
    compute.add_trace(go.Bar(x=cats, y=[r.params for r in rows], marker_color=_bar_colors(rows, current_h),
                             showlegend=False, hovertemplate="h = %{x}<br>%{y:,}<extra></extra>"), row=1, col=1)
    compute.add_trace(go.Bar(x=cats, y=[r.macs for r in rows], name=macs_name,
                             marker_color=_bar_colors(rows, current_h, "#9fb8e3", MACS_COLOR),
                             hovertemplate="h = %{x}<br>%{y:,}<extra>" + macs_name + "</extra>"), row=2, col=1)
    compute.add_trace(go.Bar(x=cats, y=[r.elementwise for r in rows], name=elementwise_name,
                             marker_color=_bar_colors(rows, current_h, "#f3c29b", ELEMENTWISE_COLOR),
                             hovertemplate="h = %{x}<br>%{y:,}<extra>" + elementwise_name + "</extra>"),
                      row=2, col=1)
    compute.update_layout(barmode="stack", height=460, margin=dict(l=10, r=10, t=40, b=10),
                          legend=dict(orientation="h", x=0, y=-0.22, xanchor="left", yanchor="top"))
    compute.update_xaxes(type="category", tickvals=cats, ticktext=ticks, fixedrange=True)
    compute.update_xaxes(title=axis_title, row=2, col=1)
    compute.update_yaxes(rangemode="tozero", separatethousands=True, fixedrange=True)
    top = max(r.weights_bytes for r in rows)
    unit, size = ("MiB", 1 << 20) if top >= 8 << 20 else ("KiB", 1 << 10) if top >= 4 << 10 else ("B", 1)
    memory = make_subplots(rows=1, cols=1, subplot_titles=[memory_title])
    memory.add_trace(go.Bar(x=cats, y=[r.weights_bytes / size for r in rows], name=memory_name,
                              marker_color=_bar_colors(rows, current_h, "#e6b3b1", MEMORY_COLOR),
                              customdata=[human_bytes(r.weights_bytes) for r in rows],
                              hovertemplate="h = %{x}<br>%{customdata}<extra></extra>"))
    memory.update_layout(height=460, margin=dict(l=10, r=10, t=40, b=10), showlegend=False)
    memory.update_xaxes(type="category", tickvals=cats, ticktext=ticks, title=axis_title, fixedrange=True)
    memory.update_yaxes(rangemode="tozero", title=unit, fixedrange=True)
    return compute, memory


# ---------------------------------------------------------------- timing


@dataclass(frozen=True)
class Timing:
    h: int
    d_k: int
    median_ms: float  # one forward pass, median over the repeats
    min_ms: float
    max_ms: float
    repeats: int
    inner: int  # forward calls averaged inside one repeat (short calls are batched)


def time_forward(d_model: int, seq_len: int, seed: int, heads: Sequence[int] | None = None, *,
                 repeats: int = 5, sample_seconds: float = 0.004,
                 on_progress: Callable[[int, int, int], None] | None = None,
                 clock: Callable[[], float] = time.perf_counter) -> list[Timing]:
    """Time MultiHeadAttention.forward(x, x, x) (B = 1, no mask, no grad) for every h in `heads`.

    Each h: same weights (build_model), one warm-up call, then `repeats` samples; a sample is the
    mean of enough back-to-back calls to last about `sample_seconds`. Runs on one torch thread
    (core.threads.single_thread). `on_progress(done, total, h)` is called just before h is timed
    (done = how many h are finished). Wall-clock numbers: noisy, never asserted by tests.
    """
    heads = list(all_head_counts(d_model) if heads is None else heads)
    with single_thread():
        return _time_heads(d_model, seq_len, seed, heads, max(1, int(repeats)), sample_seconds, on_progress, clock)


def _time_heads(d_model, seq_len, seed, heads, repeats, sample_seconds, on_progress, clock) -> list[Timing]:
    x = build_input(1, seq_len, d_model, seed)  # (1, T, d_model), the same for every h
    out: list[Timing] = []
    for i, h in enumerate(heads):
        if on_progress is not None:
            on_progress(i, len(heads), h)
        model = build_model(d_model, h, seed)
        with torch.no_grad():
            model(x, x, x)  # warm-up
            t0 = clock()
            model(x, x, x)
            once = max(clock() - t0, 1e-7)
            inner = min(200, max(1, math.ceil(sample_seconds / once)))
            samples = []
            for _ in range(repeats):
                t0 = clock()
                for _ in range(inner):
                    model(x, x, x)
                samples.append((clock() - t0) / inner * 1000.0)
        out.append(Timing(h, d_model // h, statistics.median(samples), min(samples), max(samples), repeats, inner))
    return out


def timing_figure(timings: Sequence[Timing], rows: Sequence[Totals], current_h: int, *, measured_name: str,
                  predicted_name: str, axis_title: str, ms_title: str = "ms", ops_title: str = "ops") -> go.Figure:
    """Measured median time (bars from min to max) beside the predicted operation count, against h."""
    by_h = {r.h: r for r in rows}
    tim = [t for t in timings if t.h in by_h]
    cats, ticks = _h_axis([by_h[t.h] for t in tim])
    fig = make_subplots(specs=[[{"secondary_y": True}]])
    fig.add_trace(go.Scatter(
        x=cats, y=[t.median_ms for t in tim], name=measured_name, mode="lines+markers",
        line=dict(color=CURRENT_COLOR, width=2.5),
        marker=dict(size=[12 if t.h == current_h else 8 for t in tim], color=CURRENT_COLOR),
        error_y=dict(type="data", symmetric=False, array=[t.max_ms - t.median_ms for t in tim],
                     arrayminus=[t.median_ms - t.min_ms for t in tim], color="#7d9fd6"),
        hovertemplate="h = %{x}<br>%{y:.3f} ms<extra></extra>"), secondary_y=False)
    fig.add_trace(go.Scatter(
        x=cats, y=[by_h[t.h].macs + by_h[t.h].elementwise for t in tim], name=predicted_name,
        mode="lines+markers", line=dict(color=ELEMENTWISE_COLOR, width=2, dash="dash"),
        hovertemplate="h = %{x}<br>%{y:,}<extra></extra>"), secondary_y=True)
    fig.update_xaxes(type="category", tickvals=cats, ticktext=ticks, title=axis_title)
    fig.update_yaxes(rangemode="tozero", title=ms_title, secondary_y=False)
    fig.update_yaxes(rangemode="tozero", title=ops_title, secondary_y=True, showgrid=False, separatethousands=True)
    fig.update_layout(height=400, margin=dict(l=10, r=10, t=20, b=10),
                      legend=dict(orientation="h", x=0, y=-0.25, xanchor="left", yanchor="top"))
    return fig


# ---------------------------------------------------------------- one big projection = h small ones


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


def block_slices(model: MultiHeadAttention, x: torch.Tensor, per_head: torch.Tensor, role: str = "q") -> list[BlockSlice]:
    """For every head: cut the big W into column blocks and compare with model.head_projection.

    `per_head` is the traced (B, h, T, d_k) tensor of that role (trace.q_heads for 'q').
    """
    layer = {"q": model.W_q, "k": model.W_k, "v": model.W_v}[role]
    W = full_weight(model, role)  # (d_model, d_model)
    d_k = model.d_k
    out = []
    with torch.no_grad():
        for i in range(model.num_heads):
            cols = (i * d_k, (i + 1) * d_k)
            w_i, b_i = model.head_projection(role, i)  # (d_model, d_k), (d_k,)
            w_diff = float((W[:, cols[0]:cols[1]] - w_i).abs().max())
            b_diff = 0.0 if b_i is None else float((layer.bias[cols[0]:cols[1]] - b_i).abs().max())
            direct = x @ w_i + (0 if b_i is None else b_i)  # (B, T, d_k): this head's own projection
            o_diff = float((per_head[:, i] - direct).abs().max())
            out.append(BlockSlice(i, cols, w_diff, b_diff, o_diff))
    return out


@dataclass(frozen=True)
class ParamSplit:
    h: int
    d_k: int
    per_head: int  # d_model*d_k (+ d_k bias) numbers in W_i^Q
    total: int  # h * per_head == d_model*d_model (+ d_model): the same for every h


def param_split(d_model: int, h: int, *, bias: bool = True) -> ParamSplit:
    d_k = d_model // h
    per_head = d_model * d_k + (d_k if bias else 0)
    return ParamSplit(h, d_k, per_head, h * per_head)


def weight_blocks_figure(W: torch.Tensor, d_k: int, head: int, *, zrange: tuple[float, float], rows_shown: int,
                         head_label: str = "head", height: int = 260) -> go.Figure:
    """The first `rows_shown` rows of the big W with its h column blocks outlined, `head`'s block in bold."""
    view = W[:rows_shown].detach().float()
    n_cols = W.shape[1]
    fig = go.Figure(go.Heatmap(z=view.numpy(), x=list(range(n_cols)), y=list(range(view.shape[0])),
                               zmin=zrange[0], zmax=zrange[1], colorscale=SIGNED_SCALE, showscale=False,
                               hovertemplate="W[%{y}, %{x}] = %{z:.4f}<extra></extra>"))
    h = n_cols // d_k
    top, bottom = -0.5, view.shape[0] - 0.5
    for i in range(1, h):
        c = i * d_k - 0.5
        fig.add_shape(type="line", x0=c, x1=c, y0=top, y1=bottom, line=dict(color="#333", width=1))
    fig.add_shape(type="rect", x0=head * d_k - 0.5, x1=(head + 1) * d_k - 0.5, y0=top, y1=bottom,
                  line=dict(color="#111", width=3.5))
    if h <= 16:
        for i in range(h):
            fig.add_annotation(x=(i + 0.5) * d_k - 0.5, y=top, yshift=10, text=f"{head_label} {i}", showarrow=False,
                               font=dict(size=13, color="#111" if i == head else "#666"))
    fig.update_yaxes(autorange="reversed", title="d_model (in)", fixedrange=True)
    fig.update_xaxes(title="d_model (out)", fixedrange=True)
    fig.update_layout(height=height, margin=dict(l=10, r=10, t=30, b=10))
    return fig


def head_weight_figure(w_i: torch.Tensor, *, zrange: tuple[float, float], rows_shown: int, first_col: int,
                       height: int = 260) -> go.Figure:
    """W_i (d_model x d_k), first `rows_shown` rows; x ticks are the big W's column numbers."""
    view = w_i[:rows_shown].detach().float()
    fig = go.Figure(go.Heatmap(z=view.numpy(), x=list(range(first_col, first_col + view.shape[1])),
                               y=list(range(view.shape[0])), zmin=zrange[0], zmax=zrange[1],
                               colorscale=SIGNED_SCALE, showscale=False,
                               hovertemplate="W_i[%{y}, %{x}] = %{z:.4f}<extra></extra>"))
    fig.update_yaxes(autorange="reversed", title="d_model (in)", fixedrange=True)
    fig.update_xaxes(title="d_k", fixedrange=True)
    fig.update_layout(height=height, margin=dict(l=10, r=10, t=30, b=10))
    return fig


# ---------------------------------------------------------------- one head vs h heads


@dataclass(frozen=True)
class SingleVsMulti:
    single: AttentionTrace  # h = 1, d_k = d_model
    multi: AttentionTrace  # the current h
    same_weights: bool  # W^Q, W^K, W^V, W^O (and biases) identical in both models
    params_single: int
    params_multi: int


def _params(model: torch.nn.Module) -> int:
    return weight_count(model)  # from the layer shapes: `model` may be a frozen shared one (no parameters())


def single_vs_multi(model: MultiHeadAttention, x: torch.Tensor, mask: torch.Tensor | None, seed: int,
                    multi: AttentionTrace | None = None) -> SingleVsMulti:
    """The same X (and mask) through one full-width head and through `model`'s h heads, same weights."""
    one = build_model(model.d_model, 1, seed, bias=model.W_q.bias is not None, fill_value=model.fill_value)
    with torch.no_grad():
        _, single = one.forward_with_trace(x, x, x, mask)
        if multi is None:
            _, multi = model.forward_with_trace(x, x, x, mask)
    same = all(torch.equal(a, b) for a, b in zip(one.state_dict().values(), model.state_dict().values()))
    return SingleVsMulti(single, multi, same, _params(one), _params(model))


def head_focus(weights: torch.Tensor) -> torch.Tensor:
    """(h,) how sharply each head looks: the mean over queries of the row's largest weight.

    1 = every query attends to one key; 1/T_k = spread evenly. `weights` is (h, T_q, T_k); NaN rows are skipped.
    """
    top = weights.detach().float().amax(dim=-1)  # (h, T_q)
    return torch.nanmean(top, dim=-1)


def totals_for(seq_len: int, d_model: int, h: int, *, masked: bool) -> Totals:
    """Totals of one B = 1 self-attention call (T_q = T_k = seq_len)."""
    return totals(1, seq_len, seq_len, d_model, h, masked=masked)


def focus_html(focus: torch.Tensor, shown: Sequence[int], *, uniform: float, axis_title: str,
               head_label: str = "head", height_px: int = 120) -> str:
    """One bar per head (the overview for many heads) in plain HTML: `head_focus`, the heads on display
    darker, a dotted line at 1/T_k (a head that spreads its attention evenly). Hovering a bar gives its
    value. HTML, not a chart: it redraws at no cost in the browser (a plotly bar chart cost a frame or two).
    """
    shown = set(shown)
    n = focus.shape[0]
    values = [float(v) for v in focus]
    top = max([uniform, *[v for v in values if v == v]]) or 1.0  # NaN-free maximum (a head with no rows is NaN)
    bars = []
    for i, v in enumerate(values):
        pct = 0.0 if v != v else 100.0 * v / top
        color = CURRENT_COLOR if i in shown else OTHER_COLOR
        label = str(i) if n <= 16 or i % 4 == 0 else ""
        bars.append(f"<div class='al-col' title='{escape(head_label)} {i}: {v:.3f}' data-head='{i}'>"
                    f"<div class='al-bar' style='height:{pct:.1f}%;background:{color}'></div>"
                    f"<span class='al-tick'>{label}</span></div>")
    line = 100.0 * uniform / top
    return (f"<style>.al-focus{{display:flex;align-items:flex-end;gap:2px;height:{height_px}px;position:relative;"
            f"border-bottom:1px solid #888;margin:18px 0 22px;max-width:900px}}"
            ".al-col{flex:1 1 0;height:100%;display:flex;flex-direction:column;justify-content:flex-end;"
            "position:relative;min-width:0}.al-bar{width:100%;border-radius:2px 2px 0 0}"
            ".al-tick{position:absolute;bottom:-19px;left:50%;transform:translateX(-50%);font-size:13px;color:#444}"
            ".al-uniform{position:absolute;left:0;right:0;border-top:1.5px dotted #555}"
            ".al-focus-title{font-size:13px;color:#444;margin-top:6px}</style>"
            f"<div class='al-focus-title'>{escape(axis_title)} (▮ {top:.3f} · ┄ 1/T = {uniform:.3f})</div>"
            f"<div class='al-focus' role='img' aria-label='{escape(axis_title, quote=True)}'>{''.join(bars)}"
            f"<div class='al-uniform' style='bottom:{line:.1f}%' title='1/T = {uniform:.3f}'></div></div>"
            f"<div class='al-focus-title'>{escape(head_label)}</div>")
