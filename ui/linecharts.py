"""One way to show a line chart (not a heatmap): `show_lines(chart, name=..., key=..., t=ctx.t)`.

`chart` is a charts.lines.LineChart (the page builds it with a charts.lines builder from the lesson's data).
This applies the sidebar's display options (ui/display.py): with the table view on, the series as a table;
else a plotly chart (st.plotly_chart with the figure as a dict) whose camera button downloads PNG or SVG per
`image_format` (scale 2, a file name per chart: `name`, with no setting in it that the chart does not depend on,
or the browser mounts the chart anew), and an accessible name.

Plotly, not Streamlit's native st.line_chart / st.vega_lite_chart: the native charts load a lighter chunk of
the Streamlit frontend (vega-embed, ~1.0 MB against plotly.js's ~4.6 MB, measured on a first visit) but
Streamlit 1.67 turns vega-embed's actions off, so they have no image download, and st.line_chart has no log axes.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable

import pandas as pd
import streamlit as st

from charts import lines
from ui import display

FILE_PREFIX = "attention-lab"
Say = Callable[..., str]


def file_name(name: str) -> str:
    """The downloaded image's file name (without extension) for a chart called `name`."""
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-") or "chart"
    return f"{FILE_PREFIX}-{safe}"


def config(image_format: str, name: str) -> dict:
    """Plotly config: the modebar on hover, its camera button saving `image_format` (rendered in the browser,
    nothing fetched)."""
    fmt = image_format if image_format in display.IMAGE_FORMATS else "png"
    return {
        "displaylogo": False,
        "displayModeBar": "hover",
        "toImageButtonOptions": {"format": fmt, "filename": file_name(name), "scale": 2},
    }


def table_frame(chart: lines.LineChart) -> pd.DataFrame:
    """The table view: one row per x, one column per series (empty where a series has no point)."""
    x_title, xs, columns = lines.table(chart)
    frame = pd.DataFrame(columns, index=xs)
    frame.index.name = x_title or None
    return frame


def show_lines(chart: lines.LineChart, *, name: str, key: str, t: Say, title: str | None = None, where=None):
    """Draw `chart` with the session's display options, inside `where` (e.g. an st.empty) when given. `title`
    is spoken by a screen reader when the chart shows no title of its own."""
    options = display.current()
    # an st.empty holds one element: the table view's caption and table go into one container in it
    with where.container() if where is not None else contextlib.nullcontext():
        if options.table_view:
            caption = " · ".join(x for x in (chart.title or title, chart.y_title) if x)  # what, and in which unit
            if caption:
                st.caption(caption)
            frame = table_frame(chart)
            return st.dataframe(frame, height=min(38 + 35 * len(frame), 420))
        spoken = chart.title or title
        alt = (f"{spoken}: " if spoken else "") + t("display.alt.chart")
        return st.plotly_chart(
            lines.figure(chart), key=key, config=config(options.image_format, name), alt=alt, width="stretch"
        )


__all__ = ["config", "file_name", "show_lines", "table_frame"]
