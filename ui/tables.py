"""One way to show a static table on a page: `show_table({column: values}, label=...)`, one markdown element
holding charts.table.html's table (escaped; it scrolls inside its own box on a phone, first column kept)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

import streamlit as st

from charts import table

# The table's look: Streamlit's own table colours; on a narrow screen the box scrolls sideways and the first
# column stays in view (app.py adds this once per page).
CSS = (
    f".{table.BOX_CLASS}{{overflow-x:auto;max-width:100%;margin:0 0 1rem}}"
    f".{table.BOX_CLASS}:focus-visible{{outline:2px solid #2a6fdb;outline-offset:2px}}"
    f".{table.BOX_CLASS} table{{border-collapse:collapse;font-size:0.875rem;margin:0;width:auto}}"
    f".{table.BOX_CLASS} th,.{table.BOX_CLASS} td{{border:1px solid rgba(49,51,63,.1);padding:.25rem .5rem;"
    "text-align:left;vertical-align:top}"
    f".{table.BOX_CLASS} td{{white-space:nowrap}}"  # a number or a size stays on one line: the box scrolls
    f".{table.BOX_CLASS} th{{color:rgba(49,51,63,.6);font-weight:400}}"
    f".{table.BOX_CLASS} caption{{caption-side:top;text-align:left;color:rgba(49,51,63,.6);padding:0 0 .25rem}}"
    f".{table.BOX_CLASS} th:first-child,.{table.BOX_CLASS} td:first-child{{position:sticky;left:0;background:#fff;"
    "white-space:nowrap;box-shadow:1px 0 0 rgba(49,51,63,.1)}"
)


def show_table(columns: Mapping[str, Sequence], *, where=None, **options: Any):
    """Draw one table (inside `where`, e.g. a column, when given); `options` are charts.table.html's (label: what
    a screen reader calls it, index, index_name, caption, kind)."""
    return (where or st).markdown(table.html(columns, **options), unsafe_allow_html=True)


def show_table_in_text(
    before: str, columns: Mapping[str, Sequence], after: str = "", *, label: str = "", caption: str = "", where=None
):
    """The markdown `before` (e.g. a heading and its sentences), the table, then the markdown `after`, in ONE
    element: each element a step re-sends costs the browser a render. The element allows HTML for the table, so
    the texts are escaped (`<`, `>`, `&` print as they are; inside a markdown code span they would print escaped:
    keep them out of code spans)."""
    return (where or st).markdown(
        f"{escape(before, quote=False)}\n\n{table.html(columns, label=label, caption=caption)}\n\n"
        f"{escape(after, quote=False)}",
        unsafe_allow_html=True,
    )
