"""One way to show a chart on every page: `show_chart(fig, name=...)`.

It applies the display options (ui.display): the colour palette, the numbers in the cells and
readable font sizes (core.figures.restyle), the download button's format (PNG or SVG, scale 2 for a
projector, a file name per chart), and, with the table view on, shows the heatmaps' matrices as
tables instead of the chart (built only then).
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable

import pandas as pd
import streamlit as st

from core import figures, i18n
from ui import display

FILE_PREFIX = "attention-lab"


def chart_config(image_format: str, name: str) -> dict:
    """Plotly config: the modebar on every chart, its camera button saving `image_format` offline
    (plotly.js renders the image in the browser: nothing is fetched)."""
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-") or "chart"
    return {
        "displaylogo": False,
        "displayModeBar": "hover",
        "toImageButtonOptions": {"format": image_format if image_format in display.IMAGE_FORMATS else "png",
                                 "filename": f"{FILE_PREFIX}-{safe}", "scale": 2},
    }


def _frame(rows, cols, values) -> pd.DataFrame:
    return pd.DataFrame(values, index=rows, columns=cols)


def show_tables(tables) -> None:
    """(title, row labels, column labels, values) per matrix, or DataFrames, as dataframes."""
    for item in tables:
        if isinstance(item, pd.DataFrame):
            st.dataframe(item)
            continue
        title, rows, cols, values = item
        if title:
            st.caption(title)
        frame = _frame(rows, cols, values)
        numeric = all(isinstance(v, (int, float)) for row in values for v in row)
        # Rounded to the 4 decimals the hover shows; not a Styler, which formats cell by cell (slow at 32 x 512).
        st.dataframe(frame.round(4) if numeric else frame, height=min(38 + 35 * len(rows), 420))


def describe(fig, title: str | None = None) -> str:
    """An accessible name for the chart (Streamlit's `alt`), in the session's language. It does not
    depend on the file name: a changed alt remounts the chart in the browser."""
    lang = st.session_state.get("lang") or i18n.DEFAULT_LANG
    info = figures.chart_summary(fig)
    title = title or info["title"]
    lead = f"{title}: " if title else ""
    if info["kind"] == "heatmap":
        names = ", ".join(info["names"][:8]) + (" …" if len(info["names"]) > 8 else "")
        return lead + i18n.t("display.alt.heatmap", lang, n=info["panels"], rows=info["rows"], cols=info["cols"],
                             names=f" ({names})" if names else "")
    return lead + i18n.t("display.alt.chart", lang)


def show_chart(fig, *, name: str, title: str | None = None, key: str | None = None, where=None,
               table: Callable[[], list] | None = None, **kwargs):
    """Draw `fig` with the session's display options. `name` names the downloaded file, `title` is
    spoken by a screen reader when the figure has no title of its own; `key`,
    `on_select`, `selection_mode` ... go to st.plotly_chart. With the table view on, a figure with
    heatmaps is shown as tables (`table()` when given, else the figure's own matrices)."""
    options = display.current()
    with where if where is not None else contextlib.nullcontext():
        if options.table_view:
            tables = table() if table is not None else figures.figure_tables(fig)
            if tables:
                show_tables(tables)
                return None
        figures.restyle(fig, palette=options.palette, cell_text=options.cell_numbers)
        return st.plotly_chart(fig, key=key, config=chart_config(options.image_format, name),
                               alt=describe(fig, title), **kwargs)
