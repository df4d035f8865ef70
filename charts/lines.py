"""Line charts (not heatmaps) as plain descriptions, and the plotly figure of one as a plain dict.

A `LineChart` is what a page shows: worded series (the page words the lesson's keys and hands the text in),
axes, log scales, ticks and a hover format. `figure(chart)` is its plotly figure as JSON-ready dicts (no plotly
import here: st.plotly_chart takes a dict), `table(chart)` its series as the table view's columns. The
builders below turn a lesson's data into a LineChart: the KV cache's memory and timing charts, Softmax up
close's q·k variance, Why many heads' training loss. ui/linecharts.py shows one with the display options.

Like the rest of the charts package: imports core and lessons only, never streamlit, plotly, pages or ui.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

MIN_FONT = 13  # px: no text on a chart smaller (core.figures.MIN_FONT)
HEAD_COLORS = {1: "#d62728", 2: "#1f77b4", 4: "#2ca02c"}  # Why many heads: one colour per head count
CHANCE_COLOR = "#888888"


@dataclass(frozen=True)
class Series:
    name: str  # worded: the legend entry and the table column
    x: tuple[float, ...]
    y: tuple[float, ...]
    markers: bool = False
    dash: str = ""  # "" (solid) | "dash" | "dot"
    color: str = ""  # "" = the palette's next colour
    width: int = 2
    hover: str = ""  # plotly hovertemplate of a point, e.g. "%{x} → %{y:.2f} ms"; "" = plotly's own
    in_table: bool = True  # False: a guide line (e.g. the guessing level) left out of the table view


@dataclass(frozen=True)
class LineChart:
    series: tuple[Series, ...]
    title: str = ""
    x_title: str = ""
    y_title: str = ""
    x_log: bool = False
    y_log: bool = False
    x_ticks: tuple[tuple[float, str], ...] = ()  # (value, label) pairs; () = plotly's own
    y_ticks: tuple[tuple[float, str], ...] = ()
    x_range: tuple[float, float] | None = None
    y_range: tuple[float, float] | None = None
    height: int = 360
    unified_hover: bool = False  # one hover box for every series at an x


def _axis(title: str, log: bool, ticks, rng) -> dict:
    axis: dict = {"title": {"text": title, "font": {"size": MIN_FONT + 1}}, "tickfont": {"size": MIN_FONT}}
    if log:
        axis["type"] = "log"
    if ticks:
        axis["tickvals"] = [v for v, _ in ticks]
        axis["ticktext"] = [s for _, s in ticks]
    if rng is not None:
        axis["range"] = [math.log10(v) for v in rng] if log else list(rng)
    return axis


def figure(chart: LineChart) -> dict:
    """The plotly figure of `chart` as a dict (data + layout), ready for st.plotly_chart."""
    data = []
    for s in chart.series:
        line: dict = {"width": s.width}
        if s.dash:
            line["dash"] = s.dash
        if s.color:
            line["color"] = s.color
        trace = {
            "type": "scatter",
            "x": list(s.x),
            "y": list(s.y),
            "name": s.name,
            "mode": "lines+markers" if s.markers else "lines",
            "line": line,
        }
        if s.hover:
            trace["hovertemplate"] = s.hover + "<extra>" + s.name + "</extra>"
        elif not s.in_table:
            trace["hoverinfo"] = "skip"
        data.append(trace)
    layout = {
        "height": chart.height,
        "margin": {"l": 10, "r": 10, "t": 50 if chart.title else 30, "b": 10},
        "legend": {"orientation": "h", "yanchor": "bottom", "y": 1.02, "x": 0, "font": {"size": MIN_FONT}},
        "font": {"size": MIN_FONT},
        "xaxis": _axis(chart.x_title, chart.x_log, chart.x_ticks, chart.x_range),
        "yaxis": _axis(chart.y_title, chart.y_log, chart.y_ticks, chart.y_range),
    }
    if chart.title:
        layout["title"] = {"text": chart.title, "font": {"size": MIN_FONT + 3}}
        layout["legend"]["y"] = -0.3
        layout["legend"]["yanchor"] = "top"
    if chart.unified_hover:
        layout["hovermode"] = "x unified"
    return {"data": data, "layout": layout}


def table(chart: LineChart, digits: int = 4) -> tuple[str, list, dict[str, list]]:
    """The table view: (x title, the x values of every series in order, {series name: its y at each x or None})."""
    shown = [s for s in chart.series if s.in_table]
    xs = sorted({x for s in shown for x in s.x})
    columns = {}
    for s in shown:
        at = dict(zip(s.x, s.y))
        columns[s.name] = [None if at.get(x) is None else round(float(at[x]), digits) for x in xs]
    return chart.x_title, xs, columns


def thin(losses, max_points: int = 400) -> tuple[list[int], list[float]]:
    """(steps, losses) with at most about max_points points (every k-th step, the last one kept)."""
    n = len(losses)
    stride = max(1, math.ceil(n / max_points))
    idx = list(range(0, n, stride))
    if n and idx[-1] != n - 1:
        idx.append(n - 1)
    return [i + 1 for i in idx], [float(losses[i]) for i in idx]


# ---------------------------------------------------------------- the pages' charts
Say = Callable[..., str]  # a page's ctx.t


def memory_chart(view, t: Say) -> LineChart:
    """KV cache, memory: cache bytes (GiB) over context length, one line per h_kv (lessons.kv_cache.MemoryView)."""
    # Only the contexts the model takes (view.shown): past its maximum context no cache exists to draw.
    contexts = tuple(int(c) for c, ok in zip(view.contexts.tolist(), view.shown.tolist()) if ok)
    series = []
    for line in view.lines:
        name = t("kv.mem.line", kv=line.kv_heads, kind=line.kind.upper()) + (t("kv.mem.actual") if line.actual else "")
        series.append(
            Series(
                name,
                contexts,
                tuple(float(b) / 2**30 for b, ok in zip(line.bytes.tolist(), view.shown.tolist()) if ok),
                markers=True,
                width=3 if line.actual else 2,
                hover="%{x:,} → %{y:,.3f} GiB",
            )
        )
    ticks = tuple((c, f"{c // 1024}k" if c >= 1024 else str(c)) for c in contexts)
    lows = [y for s in series for y in s.y if y > 0]
    y_ticks = ()
    if lows:  # every power of ten the lines cross, printed plainly (0.001, 1, 1000)
        lo, hi = math.floor(math.log10(min(lows))), math.ceil(math.log10(max(lows)))
        y_ticks = tuple((10.0**k, f"{10.0**k:g}") for k in range(lo, hi + 1))
    return LineChart(
        tuple(series),
        x_title=t("kv.mem.axis.x"),
        y_title="GiB",
        x_log=True,
        y_log=True,
        x_ticks=ticks,
        y_ticks=y_ticks,
        height=380,
    )


def timing_chart(res, t: Say) -> LineChart:
    """KV cache, timing: total milliseconds after n generated tokens, with and without the cache
    (lessons.kv_cache.TimingResult)."""
    x = tuple(range(1, res.tokens + 1))
    series = tuple(
        Series(name, x, tuple(float(v) * 1000 for v in values.tolist()), hover="%{x} → %{y:.2f} ms")
        for name, values in ((t("kv.time.with"), res.total_with), (t("kv.time.without"), res.total_without))
    )
    return LineChart(series, x_title=t("kv.time.axis.x"), y_title=t("kv.time.axis.y"))


def variance_chart(vc, t: Say) -> LineChart:
    """Softmax up close: Var(q·k) and Var(q·k/√d_k) over d_k, log-log, against the line Var = d_k
    (lessons.softmax.VarianceCurve)."""
    x = tuple(int(v) for v in vc.d_ks.tolist())
    series = (
        Series(
            t("softmax.scale.chart.line"), x, tuple(map(float, vc.expected.tolist())), dash="dash", color=CHANCE_COLOR
        ),
        Series(t("softmax.scale.chart.measured"), x, tuple(map(float, vc.variance.tolist())), markers=True),
        Series(t("softmax.scale.chart.scaled"), x, tuple(map(float, vc.scaled_variance.tolist())), markers=True),
    )
    return LineChart(
        series,
        title=t("softmax.scale.chart.title"),
        x_title=t("softmax.scale.chart.x"),
        y_title=t("softmax.scale.chart.y"),
        x_log=True,
        y_log=True,
        x_ticks=tuple((v, str(v)) for v in x),
        y_ticks=tuple((v, str(v)) for v in x[::2]),
    )


def loss_chart(curves: Sequence, *, steps: int, chance: float, t: Say) -> LineChart:
    """Why many heads: the training loss of each run (lessons.why_heads.Curve, labels worded by the page) on one
    chart, with the guessing level ln(VOCAB) as a dotted line; y from 0 to the guessing level x 1.15 (or the first
    steps' loss if higher), the live curve's scale (charts/live_curve.py)."""
    series = [
        Series(
            t("why.loss.chance"), (1, steps), (chance, chance), dash="dot", color=CHANCE_COLOR, width=1, in_table=False
        )
    ]
    for c in curves:
        xs, ys = thin(c.losses)
        series.append(
            Series(
                c.label,
                tuple(xs),
                tuple(ys),
                color=HEAD_COLORS.get(c.num_heads, ""),
                dash="dash" if c.dashed else "",
                hover="%{x}: %{y:.4f}",
            )
        )
    return LineChart(
        tuple(series),
        title=t("why.loss.title"),
        x_title=t("why.loss.x"),
        y_title=t("why.loss.y"),
        x_range=(0, steps + 1),
        y_range=(0, loss_top(curves, chance)),
        height=340,
        unified_hover=True,
    )


def loss_top(curves: Sequence, chance: float) -> float:
    """The loss axis' top: the guessing level x 1.15, or the first 50 steps' highest loss x 1.05 if higher."""
    return max([chance * 1.15] + [max(c.losses[:50]) * 1.05 for c in curves if len(c.losses)])


__all__ = [
    "HEAD_COLORS",
    "LineChart",
    "Series",
    "figure",
    "loss_chart",
    "loss_top",
    "memory_chart",
    "table",
    "thin",
    "timing_chart",
    "variance_chart",
]
