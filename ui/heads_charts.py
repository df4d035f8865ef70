"""The Heads page's bar and line charts (cost against h, measured time against h) as plotly figures, and one
way to show them: `show_plot` (st.plotly_chart with the download's format and file name from the sidebar's
display options and an accessible name). Not heatmaps: those are lessons.heatmap.Heatmap descriptions drawn
by ui.heatmaps.show_heatmap. Built from the lesson's plain data (core.accounting.Totals, lessons.heads.Timing);
every word is passed in by the page.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import plotly.graph_objects as go
import streamlit as st
from plotly.subplots import make_subplots  # (timing_figure)

from charts.diagrams import CURRENT_COLOR, OTHER_COLOR
from charts.lines import MIN_FONT
from charts.payload import file_name
from core.accounting import Totals
from lessons.heads import Timing, human_bytes
from ui import display

MACS_COLOR, ELEMENTWISE_COLOR, MEMORY_COLOR = "#2a6fdb", "#e8893a", "#c0504d"
FONT = {"size": MIN_FONT}  # every text of these charts: ticks, legend, axis titles (charts/lines.py's minimum)


def plot_config(image_format: str, name: str) -> dict:
    """Plotly config: the modebar on hover, its camera button saving `image_format` offline (plotly.js renders
    the image in the browser: nothing is fetched)."""
    return {
        "displaylogo": False,
        "displayModeBar": "hover",
        "toImageButtonOptions": {
            "format": image_format if image_format in display.IMAGE_FORMATS else "png",
            "filename": file_name(name),
            "scale": 2,
        },
    }


def show_plot(fig: go.Figure | dict, *, name: str, title: str, alt_word: str, key: str, where=None):
    """Draw a bar/line figure; `title: alt_word` is its accessible name (the same for every setting: a changed
    alt remounts the chart)."""
    options = display.current()
    target = where if where is not None else st
    return target.plotly_chart(
        fig, key=key, config=plot_config(options.image_format, name), alt=f"{title}: {alt_word}" if title else alt_word
    )


def cost_words(t: Callable[..., str]) -> dict[str, str]:
    """cost_specs' words in the page's language (`t`: the page's ctx.t)."""
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
    """timing_figure's words in the page's language."""
    return {
        "measured_name": t("heads.time.measured"),
        "predicted_name": t("heads.time.predicted"),
        "axis_title": "h",  # the timing table's column, too
        "ms_title": t("heads.time.ms"),
        "ops_title": t("heads.time.ops"),
    }


def _h_axis(rows: Sequence[Totals]) -> tuple[list[str], list[str]]:
    """The h axis: each h in bold, its d_k under it, both at the axis' tick font (MIN_FONT: no text on a chart is
    smaller; d_k as a 10 px grey line was hard to read)."""
    cats = [str(r.h) for r in rows]
    ticks = [f"<b>{r.h}</b><br>{r.d_k}" for r in rows]
    return cats, ticks


def _bar_colors(
    rows: Sequence[Totals], current_h: int, base: str = OTHER_COLOR, current: str = CURRENT_COLOR
) -> list[str]:
    return [current if r.h == current_h else base for r in rows]


def _category_axis(cats: list[str], ticks: list[str], **extra) -> dict:
    return {"type": "category", "tickvals": cats, "ticktext": ticks, "fixedrange": True, "tickfont": FONT, **extra}


def _subplot_title(text: str, y: float) -> dict:
    return {
        "font": {"size": 16},
        "showarrow": False,
        "text": text,
        "x": 0.5,
        "xanchor": "center",
        "xref": "paper",
        "y": y,
        "yanchor": "bottom",
        "yref": "paper",
    }


def cost_specs(
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
) -> tuple[dict, dict]:
    """(parameters + operations against h, memory of the attention weights against h) as plain plotly figure
    dicts (what make_subplots would build, written out: st.plotly_chart validates a dict once, where building a
    go.Figure with make_subplots and its updates, then validating it again, cost ~3 times as much per step).

    Linear y axes from 0, so a flat bar row really means 'the same' and growth looks like growth.
    The current h is drawn darker; the tick under each h is its d_k.
    """
    cats, ticks = _h_axis(rows)
    compute = {
        "data": [
            {
                "type": "bar",
                "x": cats,
                "y": [r.params for r in rows],
                "xaxis": "x",
                "yaxis": "y",
                "showlegend": False,
                "marker": {"color": _bar_colors(rows, current_h)},
                "hovertemplate": "h = %{x}<br>%{y:,}<extra></extra>",
            },
            {
                "type": "bar",
                "x": cats,
                "y": [r.macs for r in rows],
                "xaxis": "x2",
                "yaxis": "y2",
                "name": macs_name,
                "marker": {"color": _bar_colors(rows, current_h, "#9fb8e3", MACS_COLOR)},
                "hovertemplate": "h = %{x}<br>%{y:,}<extra>" + macs_name + "</extra>",
            },
            {
                "type": "bar",
                "x": cats,
                "y": [r.elementwise for r in rows],
                "xaxis": "x2",
                "yaxis": "y2",
                "name": elementwise_name,
                "marker": {"color": _bar_colors(rows, current_h, "#f3c29b", ELEMENTWISE_COLOR)},
                "hovertemplate": "h = %{x}<br>%{y:,}<extra>" + elementwise_name + "</extra>",
            },
        ],
        "layout": {
            "xaxis": _category_axis(cats, ticks, anchor="y", domain=[0.0, 1.0], matches="x2", showticklabels=False),
            "xaxis2": _category_axis(cats, ticks, anchor="y2", domain=[0.0, 1.0], title={"text": axis_title}),
            "yaxis": {
                "anchor": "x",
                "domain": [0.57, 1.0],
                "rangemode": "tozero",
                "separatethousands": True,
                "fixedrange": True,
            },
            "yaxis2": {
                "anchor": "x2",
                "domain": [0.0, 0.43],
                "rangemode": "tozero",
                "separatethousands": True,
                "fixedrange": True,
            },
            "annotations": [_subplot_title(params_title, 1.0), _subplot_title(ops_title, 0.43)],
            "barmode": "stack",
            "font": FONT,
            "height": 460,
            "margin": {"l": 10, "r": 10, "t": 40, "b": 10},
            "legend": {"orientation": "h", "x": 0, "y": -0.22, "xanchor": "left", "yanchor": "top"},
        },
    }
    top = max(r.weights_bytes for r in rows)
    unit, size = ("MiB", 1 << 20) if top >= 8 << 20 else ("KiB", 1 << 10) if top >= 4 << 10 else ("B", 1)
    memory = {
        "data": [
            {
                "type": "bar",
                "x": cats,
                "y": [r.weights_bytes / size for r in rows],
                "name": memory_name,
                "marker": {"color": _bar_colors(rows, current_h, "#e6b3b1", MEMORY_COLOR)},
                "customdata": [human_bytes(r.weights_bytes) for r in rows],
                "hovertemplate": "h = %{x}<br>%{customdata}<extra></extra>",
            }
        ],
        "layout": {
            "xaxis": _category_axis(cats, ticks, anchor="y", domain=[0.0, 1.0], title={"text": axis_title}),
            "yaxis": {
                "anchor": "x",
                "domain": [0.0, 1.0],
                "rangemode": "tozero",
                "title": {"text": unit},
                "fixedrange": True,
            },
            "annotations": [_subplot_title(memory_title, 1.0)],
            "font": FONT,
            "height": 460,
            "margin": {"l": 10, "r": 10, "t": 40, "b": 10},
            "showlegend": False,
        },
    }
    return compute, memory


def cost_figures(rows: Sequence[Totals], current_h: int, **words) -> tuple[go.Figure, go.Figure]:
    """cost_specs as go.Figure objects (for tools and tests that read a figure)."""
    compute, memory = cost_specs(rows, current_h, **words)
    return go.Figure(compute), go.Figure(memory)


def timing_figure(
    timings: Sequence[Timing],
    rows: Sequence[Totals],
    current_h: int,
    *,
    measured_name: str,
    predicted_name: str,
    axis_title: str,
    ms_title: str = "ms",
    ops_title: str = "ops",
) -> go.Figure:
    """Measured median time (bars from min to max) beside the predicted operation count, against h."""
    by_h = {r.h: r for r in rows}
    tim = [t for t in timings if t.h in by_h]
    # h alone under each point (d_k is the table's next column): with a y axis on each side a phone leaves ~19 px
    # a category at d_model = 512, where plotly turns the labels upright, and two lines upright would overlap.
    cats = [str(t.h) for t in tim]
    fig = make_subplots(specs=[[{"secondary_y": True}]])
    fig.add_trace(
        go.Scatter(
            x=cats,
            y=[t.median_ms for t in tim],
            name=measured_name,
            mode="lines+markers",
            line=dict(color=CURRENT_COLOR, width=2.5),
            marker=dict(size=[12 if t.h == current_h else 8 for t in tim], color=CURRENT_COLOR),
            error_y=dict(
                type="data",
                symmetric=False,
                array=[t.max_ms - t.median_ms for t in tim],
                arrayminus=[t.median_ms - t.min_ms for t in tim],
                color="#7d9fd6",
            ),
            hovertemplate="h = %{x}<br>%{y:.3f} ms<extra></extra>",
        ),
        secondary_y=False,
    )
    fig.add_trace(
        go.Scatter(
            x=cats,
            y=[by_h[t.h].macs + by_h[t.h].elementwise for t in tim],
            name=predicted_name,
            mode="lines+markers",
            line=dict(color=ELEMENTWISE_COLOR, width=2, dash="dash"),
            hovertemplate="h = %{x}<br>%{y:,}<extra></extra>",
        ),
        secondary_y=True,
    )
    fig.update_xaxes(type="category", tickvals=cats, title=axis_title, tickfont=FONT)
    fig.update_yaxes(rangemode="tozero", title=ms_title, secondary_y=False)
    fig.update_yaxes(rangemode="tozero", title=ops_title, secondary_y=True, showgrid=False, separatethousands=True)
    fig.update_layout(
        font=FONT,
        height=400,
        margin=dict(l=10, r=10, t=20, b=10),
        legend=dict(orientation="h", x=0, y=-0.25, xanchor="left", yanchor="top"),
    )
    return fig
