"""floor_page.py without its sidebar (only the step's slider) and with its navigation hidden: what the sidebar of a
page the walkthrough's size costs a step. benchmarks/step_profile.py --variant; issue 31."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import numpy as np
import streamlit as st

import i18n
from lessons.heatmap import Heatmap, Panel, text, value_range
from ui import heatmaps

t = lambda key, **kw: i18n.t(key, "en", **kw)  # noqa: E731
STEPS = ["input", "project", "split", "scores", "scale", "mask", "softmax", "mix", "concat", "output"]
CODE = "\n".join(
    f"    q = self.w_q(x).view(B, T, self.h, self.d_k).transpose(1, 2)  # (B, h, T, d_k) line {i}" for i in range(8)
)


def walkthrough() -> None:
    st.markdown("### Walkthrough\nOne step of multi-head attention at a time, with every tensor's shape.")
    st.segmented_control("View", ["One step", "All steps", "Presenter"], default="One step", key="view")
    st.segmented_control("Step", STEPS, default="input", key="step")
    st.segmented_control("Role", ["Student", "Teacher"], default="Student", key="role")
    st.segmented_control("Heads", [f"head {i}" for i in range(10)], default="head 0", key="heads")
    left, right = st.columns(2)
    left.button("Previous", key="prev")
    right.button("Next", key="next")
    st.markdown(
        "#### 1. Input\n$$X \\in \\mathbb{R}^{B \\times T \\times d_{model}}$$\n\n```python\n" + CODE + "\n```",
        unsafe_allow_html=False,
    )
    page()


@st.fragment(key="settings")
def settings() -> None:
    st.slider("value", 0, 100, 50, key="floor", on_change=lambda: st.rerun("page"))


@st.fragment(key="page")
def page() -> None:
    v = st.session_state.floor
    n = 4 + v % 8  # tokens: the app's default seq_len is 8
    st.markdown(f"floor value = {v}\n\nThe input X has shape (1, {n}, 64): {n} tokens of 64 numbers each.")
    x = np.random.default_rng(n).standard_normal((n, 64)).astype(np.float32)
    lo, hi = value_range("signed", [x])
    tokens = tuple(f"t{i}" for i in range(n))
    heatmaps.show_heatmap(
        Heatmap(
            name="input",
            role="signed",
            vmin=lo,
            vmax=hi,
            decimals=4,
            row_axis=text("walk.axis.token"),
            col_axis=text("walk.axis.col"),
            panels=(Panel(values=x, row_labels=tokens),),
        ),
        key="input",
        t=t,
    )
    st.markdown(f"Checked against PyTorch: max difference 0 at seq_len {n}.")
    with st.expander("Show the numbers"):
        st.markdown(f"{n} rows")


st.set_page_config(layout="wide")
pages = [st.Page(walkthrough, title="Walkthrough", url_path="walkthrough", default=True)] + [
    st.Page(lambda: None, title=f"Page {i}", url_path=f"page{i}") for i in range(10)
]
nav = st.navigation(pages, position="hidden")
with st.sidebar:
    st.header("Settings")
    settings()
nav.run()
