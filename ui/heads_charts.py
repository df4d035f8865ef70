"""The Heads page's bar and line charts (cost against h, measured time against h) as charts.lines.LineChart
descriptions, drawn like every line and bar chart by ui.linecharts.show_lines (static/plots.js). Not heatmaps:
those are lessons.heatmap.Heatmap descriptions drawn by ui.heatmaps.show_heatmap. Built from the lesson's plain
data (core.accounting.Totals, lessons.heads.Timing); every word is passed in by the page.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from charts.diagrams import CURRENT_COLOR, OTHER_COLOR
from charts.lines import LineChart, Series
from core.accounting import Totals
from lessons.heads import Timing, human_bytes

MACS_COLOR, ELEMENTWISE_COLOR, MEMORY_COLOR = "#2a6fdb", "#e8893a", "#c0504d"


def cost_words(t: Callable[..., str]) -> dict[str, str]:
    """cost_charts' words in the page's language (`t`: the page's ctx.t)."""
    return {
        "params_title": t("heads.cost.chart.params"),
        "ops_title": t("heads.cost.chart.ops"),
        "memory_title": t("heads.cost.chart.memory"),
        "macs_name": t("heads.cost.macs"),
        "elementwise_name": t("heads.cost.elementwise"),
        "axis_title": t("heads.cost.axis"),
        "memory_name": t("heads.cost.memory"),
    }


def timing_words(t: Callable[..., str]) -> dict[str, str]:
    """timing_chart's words in the page's language."""
    return {
        "measured_name": t("heads.time.measured"),
        "predicted_name": t("heads.time.predicted"),
        "axis_title": "h",  # the timing table's column, too
        "ms_title": t("heads.time.ms"),
        "ops_title": t("heads.time.ops"),
    }


def _h_axis(rows: Sequence[Totals]) -> tuple[tuple[str, ...], tuple[tuple[str, str], ...], tuple[str, ...]]:
    """The h axis: the categories (each h), their tick labels (h, its d_k on a second line) and hover names."""
    cats = tuple(str(r.h) for r in rows)
    return cats, tuple((str(r.h), f"{r.h}\n{r.d_k}") for r in rows), tuple(f"h = {r.h}, d_k = {r.d_k}" for r in rows)


def _bar_colors(rows: Sequence[Totals], current_h: int, base: str = OTHER_COLOR, current: str = CURRENT_COLOR):
    return tuple(current if r.h == current_h else base for r in rows)


def cost_charts(
    rows: Sequence[Totals],
    current_h: int,
    *,
    params_title: str,
    ops_title: str,
    memory_title: str,
    macs_name: str,
    elementwise_name: str,
    axis_title: str,
    memory_name: str = "memory",
) -> tuple[LineChart, LineChart, LineChart]:
    """(parameters, operations: multiply-adds + element-wise ops stacked, memory of the attention weights), each
    against h. Linear y axes from 0, so a flat bar row really means 'the same' and growth looks like growth. The
    current h is drawn darker; the tick under each h is its d_k."""
    cats, ticks, hover = _h_axis(rows)
    axis = dict(x_categories=cats, x_ticks=ticks, x_hover=hover, x_title=axis_title, y_zero=True, y_thousands=True)
    whole = {"decimals": 0, "thousands": True}  # counts: whole numbers with thousands separators

    def bars(name: str, values, light: str, dark: str, **style) -> Series:
        """One bar a category; the current h's bar `dark`, the others `light`."""
        return Series(name, cats, tuple(values), kind="bar", colors=_bar_colors(rows, current_h, light, dark), **style)

    params = LineChart(
        (bars(params_title, (r.params for r in rows), OTHER_COLOR, CURRENT_COLOR, **whole),),
        title=params_title,
        height=250,
        **axis,
    )
    ops = LineChart(
        (
            bars(macs_name, (r.macs for r in rows), "#9fb8e3", MACS_COLOR, stack="ops", **whole),
            bars(elementwise_name, (r.elementwise for r in rows), "#f3c29b", ELEMENTWISE_COLOR, stack="ops", **whole),
        ),
        title=ops_title,
        height=290,
        **axis,
    )
    top = max(r.weights_bytes for r in rows)
    unit, size = ("MiB", 1 << 20) if top >= 8 << 20 else ("KiB", 1 << 10) if top >= 4 << 10 else ("B", 1)
    memory = LineChart(
        (
            bars(
                memory_name,
                (r.weights_bytes / size for r in rows),
                "#e6b3b1",
                MEMORY_COLOR,
                texts=tuple(human_bytes(r.weights_bytes) for r in rows),
            ),
        ),
        title=memory_title,
        y_title=unit,
        height=540,
        **axis,
    )
    return params, ops, memory


def timing_chart(
    timings: Sequence[Timing],
    rows: Sequence[Totals],
    current_h: int,
    *,
    measured_name: str,
    predicted_name: str,
    axis_title: str,
    ms_title: str = "ms",
    ops_title: str = "ops",
) -> LineChart:
    """Measured median time (whiskers from min to max) beside the predicted operation count (right axis),
    against h; the current h's point larger."""
    by_h = {r.h: r for r in rows}
    tim = [t for t in timings if t.h in by_h]
    cats = tuple(str(t.h) for t in tim)
    return LineChart(
        (
            Series(
                measured_name,
                cats,
                tuple(t.median_ms for t in tim),
                markers=True,
                color=CURRENT_COLOR,
                width=3,
                decimals=3,
                suffix=" ms",
                errors=tuple((t.min_ms, t.max_ms) for t in tim),
                sizes=tuple(12 if t.h == current_h else 8 for t in tim),
            ),
            Series(
                predicted_name,
                cats,
                tuple(by_h[t.h].macs + by_h[t.h].elementwise for t in tim),
                markers=True,
                color=ELEMENTWISE_COLOR,
                dash="dash",
                axis=2,
                decimals=0,
                thousands=True,
            ),
        ),
        x_categories=cats,
        x_hover=tuple(f"h = {c}" for c in cats),
        x_title=axis_title,
        y_title=ms_title,
        y_zero=True,
        y2_title=ops_title,
        y2_thousands=True,
        height=400,
    )


__all__ = ["cost_charts", "cost_words", "timing_chart", "timing_words"]
