"""One way to show a line or bar chart (not a heatmap): `show_lines(chart, name=..., key=..., t=ctx.t)`.

`chart` is a charts.lines.LineChart (the page builds it from the lesson's data). This applies the sidebar's
display options (ui/display.py): with the table view on, the series as one HTML table (ui/tables.py); else the
chart drawn by static/plots.js in a components.v2 component, updated in place on a rerun (its key stays), with
hover, a download button saving PNG or SVG per `image_format` (file name from `name`) and an accessible name.

The route was chosen by measurement over plotly (st.plotly_chart) and Vega-Lite (st.vega_lite_chart): the
browser's work a step and the first visit's bytes (benchmarks/README.md, "The chart route, A/B"); Streamlit turns
vega-embed's download actions off.
"""

from __future__ import annotations

import contextlib

import streamlit as st

from charts import lines
from charts.payload import Say, file_name
from ui import display
from ui.renderers import renderer_component
from ui.tables import show_table

COMPONENT = "attention_lab.plots"
PLOTS = renderer_component(COMPONENT, "plots.js")


def table_columns(chart: lines.LineChart) -> dict[str, list]:
    """The table view: the x column, then one column per series (empty where a series has no point)."""
    x_title, xs, columns = lines.table(chart)
    return {x_title or "x": xs, **columns}


def show_lines(
    chart: lines.LineChart, *, name: str, key: str, t: Say, title: str | None = None, where=None, live: bool = False
):
    """Draw `chart` with the session's display options, inside `where` (e.g. an st.empty or a column) when given.
    `title` is its accessible name when the chart shows no title of its own. `live`: one of many redraws within a
    run, each under its own key in one of two places taken in turn; the browser shows the newest drawn of them
    (static/plots.js), so the curve never blinks out between two."""
    options = display.current()
    spoken = chart.title or title
    # an st.empty holds one element: the table view's caption and table go into one container in it; a live
    # chart straight in (a container put where a container was would keep the old one's other children)
    holder = where if where is None or (live and not options.table_view) else where.container()
    with holder if holder is not None else contextlib.nullcontext():
        if options.table_view:
            caption = " · ".join(x for x in (spoken, chart.y_title) if x)  # what, and in which unit
            if caption:
                st.caption(caption)
            return show_table(table_columns(chart), label=spoken or "")
        spec = lines.spec(
            chart,
            alt=(f"{spoken}: " if spoken else "") + t("display.alt.chart"),
            file=file_name(name),
            image_format=options.image_format,
            download=t("display.download", fmt=options.image_format.upper()),
        )
        return PLOTS(data={**spec, "live": True} if live else spec, key=key)


__all__ = ["COMPONENT", "show_lines", "table_columns"]
