"""The renderer A/B's app (benchmarks/bench_renderer.py): the heaviest heatmap view, 16 heads of 32 x 32
weights plus one 32 x 512 signed matrix, drawn by ui.heatmaps.show_heatmap. Every step of the slider is a new seed:
new data nobody has drawn yet.
(Candidate (a), plotly.js, was selected with `?renderer=plotly` at commit 9caa129; it lost and was deleted.)"""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import numpy as np
import streamlit as st

import i18n
from lessons.heatmap import Heatmap, Panel, text, value_range
from ui import heatmaps

st.set_page_config(layout="wide")
t = lambda key, **kw: i18n.t(key, "en", **kw)  # noqa: E731
seed = st.slider("seed", 0, 1000, 0, key="seed")
rng = np.random.default_rng(seed)
scores = rng.standard_normal((16, 32, 32)).astype(np.float32) * 2
weights = np.exp(scores - scores.max(-1, keepdims=True))
weights /= weights.sum(-1, keepdims=True)
tokens = tuple(f"t{i}" for i in range(32))
heads = Heatmap(
    name="weights",
    role="weights",
    vmin=0.0,
    vmax=1.0,
    decimals=4,
    clickable=True,
    row_axis=text("walk.axis.query"),
    col_axis=text("walk.axis.key"),
    panel_columns=4,
    panels=tuple(
        Panel(values=weights[h], title=text("walk.axis.head"), row_labels=tokens, col_labels=tokens) for h in range(16)
    ),
)
wide = rng.standard_normal((32, 512)).astype(np.float32)
lo, hi = value_range("signed", [wide])
signed = Heatmap(
    name="projection",
    role="signed",
    vmin=lo,
    vmax=hi,
    decimals=4,
    row_axis=text("walk.axis.token"),
    col_axis=text("walk.axis.col"),
    panels=(Panel(values=wide, row_labels=tokens),),
)
heatmaps.show_heatmap(heads, key="heads", t=t)
heatmaps.show_heatmap(signed, key="signed", t=t)
st.write(f"seed = {seed}")
