"""A tiny page for the chart route's browser test (tests/test_heatmaps_browser.py): three heatmaps drawn by
ui.heatmaps.show_heatmap, their values fixed so the test knows what hover must read. Served by
`streamlit run tests/heatmap_app.py` (tests/static -> ../static gives it the renderer at app/static/)."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import numpy as np
import streamlit as st

import i18n
from lessons.heatmap import Heatmap, Panel, Rect, text
from ui import display, heatmaps

st.set_page_config(layout="wide")
lang = st.query_params.get("lang", "en")
t = lambda key, **kw: i18n.t(key, lang, **kw)  # noqa: E731
display.display_sidebar(lang)

# "new data" draws the next seed's arrays: the charts must be updated in place (same elements, new values).
seed = int(st.query_params.get("seed", "0")) + st.session_state.setdefault("steps", 0)
if st.button("new data"):
    st.session_state["steps"] += 1
    seed += 1
st.markdown(f"seed: {seed}")
rng = np.random.default_rng(seed)
T = 6
tokens = ("the", "cat", "sat", "on", "the", "mat")
weights = rng.random((4, T, T)).astype(np.float32)
weights /= weights.sum(-1, keepdims=True)
causal = ~np.tril(np.ones((T, T), dtype=bool))
heads = Heatmap(
    name="test-weights",
    role="weights",
    vmin=0.0,
    vmax=1.0,
    decimals=4,
    clickable=True,
    row_axis=text("walk.axis.query"),
    col_axis=text("walk.axis.key"),
    panels=tuple(
        Panel(
            values=weights[h],
            title=text("walk.axis.head"),
            row_labels=tokens,
            col_labels=tokens,
            blocked=causal if h == 1 else None,
            row_groups=(0, 0, 1, 1, 2, 2) if h == 2 else (),
        )
        for h in range(4)
    ),
    rects=(Rect(0, 1, 3, 1, 3),),
    title=text("walk.axis.head"),
)
choice = heatmaps.show_heatmap(heads, key="hm_heads", t=t, compact=True)  # int16 codes (the other: float32)
if choice is not None:
    st.session_state["picked"] = choice
picked = st.session_state.get("picked")
st.markdown(f"picked: {picked.panel},{picked.row},{picked.col}" if picked else "picked: none")

wide = rng.standard_normal((32, 512)).astype(np.float32)
signed = Heatmap(
    name="test-signed",
    role="signed",
    vmin=-4.0,
    vmax=4.0,
    decimals=3,
    row_axis=text("walk.axis.token"),
    col_axis=text("walk.axis.col"),
    panels=(Panel(values=wide),),
)
heatmaps.show_heatmap(signed, key="hm_signed", t=t)
