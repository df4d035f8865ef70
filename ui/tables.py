"""A table drawn from Arrow data built once per content for the whole server.

st.table of a dict builds a pandas DataFrame and converts it to Arrow on every rerun: on the softmax page's tiles
section at 512/16/32 that was the largest single cost of a step (py-spy, 40 students stepping: 46 % of the
section's samples, more than the lesson's own work; benchmarks/README.md, "Issue 30.8"). Here the Arrow bytes are
made once per distinct table (the same conversion, pandas then pyarrow) and kept in the shared, byte-bounded
cache (ui/cache.py); a step only reads them back, which is zero-copy.

The key is the table's own content (headers and the cells' repr), so it can never name the wrong table; the
cells are small worded strings and numbers, so hashing them costs far less than converting them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd
import pyarrow as pa
import streamlit as st

from ui.cache import shared


def _arrow_bytes(columns: Mapping[str, Sequence]) -> bytes:
    df = pd.DataFrame(dict(columns))
    try:
        table = pa.Table.from_pandas(df, preserve_index=False)
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError):  # a column of mixed types: shown as text, as Streamlit does
        df = df.astype({c: str for c in df.columns if df[c].dtype == object})
        table = pa.Table.from_pandas(df, preserve_index=False)
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    return sink.getvalue().to_pybytes()


def arrow_table(columns: Mapping[str, Sequence]) -> pa.Table:
    """The columns as a pyarrow Table, converted once per content for the server."""
    key = tuple((str(h), tuple(map(repr, cells))) for h, cells in columns.items())
    data = shared("arrow-table", key, lambda: _arrow_bytes(columns))
    return pa.ipc.open_stream(data).read_all()


def show_table(columns: Mapping[str, Sequence]) -> None:
    """st.table(columns, hide_index=True), without a pandas conversion when this table was drawn before."""
    st.table(arrow_table(columns), hide_index=True)
