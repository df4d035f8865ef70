"""Line and bar charts (not heatmaps) as plain descriptions, and the JSON spec static/plots.js draws of one.

A `LineChart` is what a page shows: worded series (lines or bars; the page words the lesson's keys and hands the
text in), axes, log scales, ticks, categories and how a hovered value prints. `spec(chart, ...)` is what the
browser draws (static/plots.js: SVG at the box's width, hover, PNG/SVG download), `table(chart)` its series as
the table view's columns. The builders below turn a lesson's data into a LineChart: the KV cache's memory and
timing charts, Softmax up close's q·k variance, Why many heads' training loss. ui/linecharts.py shows one with
the display options; the heads page's bars are ui/heads_charts.py's, the positions page's lines its own.

Like the rest of the charts package: imports core and lessons only, never streamlit, plotly, pages or ui.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from charts.payload import Say

MIN_FONT = 13  # px: no text on a chart smaller (static/plots.js and static/heatmaps.js use the same 13)
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
    decimals: int | None = None  # a hovered y printed with this many decimals (None: its shortest form)
    thousands: bool = False  # ... with thousands separators
    suffix: str = ""  # ... followed by this (a unit: " ms")
    in_table: bool = True  # False: a guide line (e.g. the guessing level) left out of the table view and hover
    kind: str = "line"  # "line" | "bar"
    colors: tuple[str, ...] = ()  # bars: a colour per bar (the current h darker)
    axis: int = 1  # 2: measured on the right-hand axis (LineChart.y2_title)
    stack: str = ""  # bars of the same stack sit on top of each other
    errors: tuple[tuple[float, float], ...] = ()  # (low, high) a point, drawn as a whisker
    texts: tuple[str, ...] = ()  # a point's hover text, instead of its printed y
    sizes: tuple[float, ...] = ()  # a marker's diameter a point (px)


@dataclass(frozen=True)
class LineChart:
    series: tuple[Series, ...]
    title: str = ""
    x_title: str = ""
    y_title: str = ""
    x_log: bool = False
    y_log: bool = False
    x_ticks: tuple[tuple[float, str], ...] = ()  # (value, label) pairs; () = the renderer picks them
    y_ticks: tuple[tuple[float, str], ...] = ()
    x_range: tuple[float, float] | None = None
    y_range: tuple[float, float] | None = None
    height: int = 360
    x_categories: tuple[str, ...] = ()  # a category axis (bars against h): x values are these labels
    x_hover: tuple[str, ...] = ()  # a category's name in the hover box (default: the category)
    x_thousands: bool = False  # a hovered x printed with thousands separators
    y_zero: bool = False  # the y axis starts at 0 (bars: a flat row means 'the same')
    y_thousands: bool = False  # y tick labels with thousands separators
    y2_title: str = ""  # a second y axis on the right, for the series with axis=2
    y2_thousands: bool = False


def _axis(title: str, log: bool, ticks, rng, **extra) -> dict:
    axis: dict = {"title": title, "type": "log" if log else "linear", **extra}
    if ticks:
        axis["ticks"] = [[v, label] for v, label in ticks]
    if rng is not None:
        axis["range"] = list(rng)
    return axis


SPEC_POINTS = 200  # a line with more points is sent every k-th point (plenty for a chart; the table view has all)


def _number(v) -> float | int | None:
    """A value as the browser gets it: an integer exactly (a count, a context length), any other number at 5
    significant digits (finer than any tick or hover prints, on a log axis too; a 513-point line at full float
    precision weighed ~3x as much), None for no value."""
    v = float(v)
    if not math.isfinite(v):
        return None
    if v.is_integer() and abs(v) < 2**53:
        return int(v)
    return float(f"{v:.5g}")


def _every(n: int) -> list[int]:
    """The indices sent of a line of n points: all, or every k-th with the last kept."""
    k = max(1, math.ceil(n / SPEC_POINTS))
    idx = list(range(0, n, k))
    if n and idx[-1] != n - 1:
        idx.append(n - 1)
    return idx


def spec(chart: LineChart, *, alt: str, file: str, image_format: str = "png", download: str = "") -> dict:
    """What static/plots.js draws: the chart as JSON-ready dicts (series, axes, words), with its accessible name
    `alt`, the downloaded file's name `file` (no extension) and format, and the download button's label."""
    x = _axis(chart.x_title, chart.x_log, chart.x_ticks, chart.x_range, fmt={"sep": chart.x_thousands})
    if chart.x_categories:
        x.update(type="category", categories=list(chart.x_categories))
        if chart.x_hover:
            x["hoverLabel"] = list(chart.x_hover)
    series = []
    for s in chart.series:
        keep = (
            _every(len(s.x)) if s.kind == "line" and not s.errors and not s.texts and not s.sizes else range(len(s.x))
        )
        d: dict = {
            "name": s.name,
            "kind": s.kind,
            "x": [s.x[i] if isinstance(s.x[i], str) else _number(s.x[i]) for i in keep],
            "y": [_number(s.y[i]) for i in keep],
            "fmt": {"d": s.decimals, "sep": s.thousands, "suffix": s.suffix},
        }
        for key, value in (
            ("color", s.color),
            ("dash", s.dash),
            ("markers", s.markers),
            ("colors", list(s.colors)),
            ("stack", s.stack),
            ("err", [list(e) for e in s.errors]),
            ("texts", list(s.texts)),
            ("sizes", list(s.sizes)),
        ):
            if value:
                d[key] = value
        if s.width != 2:
            d["width"] = s.width
        if s.axis != 1:
            d["axis"] = s.axis
        if not s.in_table:
            d["hover"] = False
        series.append(d)
    out = {
        "title": chart.title,
        "alt": alt,
        "file": file,
        "format": image_format if image_format in ("png", "svg") else "png",
        "download": download,
        "height": chart.height,
        "x": x,
        "y": _axis(chart.y_title, chart.y_log, chart.y_ticks, chart.y_range, zero=chart.y_zero, sep=chart.y_thousands),
        "series": series,
    }
    if chart.y2_title:
        out["y2"] = _axis(chart.y2_title, False, (), None, zero=True, sep=chart.y2_thousands)
    return out


def table(chart: LineChart, digits: int = 4) -> tuple[str, list, dict[str, list]]:
    """The table view: (x title, the x values of every series in order, {series name: its y at each x or None})."""
    shown = [s for s in chart.series if s.in_table]
    xs = list(chart.x_categories) if chart.x_categories else sorted({x for s in shown for x in s.x})
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
                decimals=3,
                thousands=True,
                suffix=" GiB",
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
        x_thousands=True,
    )


def timing_chart(res, t: Say) -> LineChart:
    """KV cache, timing: total milliseconds after n generated tokens, with and without the cache
    (lessons.kv_cache.TimingResult)."""
    x = tuple(range(1, res.tokens + 1))
    series = tuple(
        Series(name, x, tuple(float(v) * 1000 for v in values.tolist()), decimals=2, suffix=" ms")
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
    steps' loss if higher): the live curve and the finished one share it."""
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
                decimals=4,
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
    )


# The positions page's lines against the distance: one colour and one stroke each, so lines that coincide (the
# lowest and highest of each diagonal under RoPE) are still told apart: a wide pale line under a dark dashed one.
DISTANCE_STYLES = {
    "lowest": {"color": "#9ecae1", "width": 6},
    "highest": {"color": "#08306b", "dash": "dash"},
    "matched": {"color": "#1f77b4", "width": 3},
    "expected": {"color": "#d62728", "dash": "dash"},
    "unrelated": {"color": "#2ca02c", "dash": "dot"},
}
POINTS_MAX = 130  # a line with more points than this is drawn without a dot per point


def distance_chart(x, series: dict, t: Say, height: int = 280) -> LineChart:
    """Positions: several series (neutral names, worded `pos.series.<name>`) against the distance m − n."""
    xs = tuple(float(v) for v in x)
    return LineChart(
        tuple(
            Series(
                t(f"pos.series.{name}"),
                xs,
                tuple(float(v) for v in y),
                markers=len(xs) <= POINTS_MAX,
                decimals=4,
                **DISTANCE_STYLES.get(name, {}),
            )
            for name, y in series.items()
        ),
        x_title=t("pos.axis.distance"),
        y_title=t("pos.axis.score"),
        height=height,
    )


def loss_top(curves: Sequence, chance: float) -> float:
    """The loss axis' top: the guessing level x 1.15, or the first 50 steps' highest loss x 1.05 if higher."""
    return max([chance * 1.15] + [max(c.losses[:50]) * 1.05 for c in curves if len(c.losses)])


__all__ = [
    "HEAD_COLORS",
    "LineChart",
    "Series",
    "distance_chart",
    "spec",
    "loss_chart",
    "loss_top",
    "memory_chart",
    "table",
    "thin",
    "timing_chart",
    "variance_chart",
]
