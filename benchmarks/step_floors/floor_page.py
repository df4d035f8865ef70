"""The floor at the walkthrough's size: floor_cb's step (a slider in a "settings" fragment whose callback reruns
only a "page" fragment) on a page with the elements the walkthrough's step view has, drawn by plain Streamlit calls
with no computation: a sidebar with the app's navigation (11 pages) and settings, the step's choosers, its code and
formula, a heatmap and its closed expander. The step re-sends what the app's seq_len step re-sends at input (a
markdown, the heatmap, a markdown, an expander: 4 elements + 2 containers).

So it prices Streamlit's own cost of a step on a page that big: if it costs what the app's step costs, the gap to
the one-slider floor is the page's size, not the app's work. benchmarks/step_profile.py --variant; issue 31.
"""

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


LISTING_IN_PAGE = False  # draw(listing_in_page=True): the step's heading, formula and code re-sent every step
# The walkthrough's input step's text as the app sends it on a seq_len step (English, the defaults; {n} = T).
APP_TEXT = (
    "Self-attention: the query, key and value inputs are all the same matrix X, one row of d_model numbers per token."
    " Here X comes from the random seed; the tokens only name the rows. In the formula, query, key and value are"
    " forward's three arguments (the seed text calls them Q, K, V); their projections q, k, v are step 2.\n\n"
    "**Shape**  \n`x` &nbsp; `(B, T_q, d_model) = (1, {n}, 64)`\n\n:small[:gray[Shape pipeline: 1 · input `1×{n}×64`"
    " → 2 · project `1×{n}×64` → 3 · split `1×4×{n}×16` → 4 · scores `1×4×{n}×{n}` → 5 · scale `1×4×{n}×{n}` → 6 ·"
    " mask `1×4×{n}×{n}` → 7 · softmax `1×4×{n}×{n}` → 8 · weighted sum `1×4×{n}×16` → 9 · concat `1×{n}×64` → 10 ·"
    " output `1×{n}×64`]]\n\n:small[:green[:material/verified: Checked live: this page's result equals"
    " torch.nn.MultiheadAttention with the same weights. Max abs difference: 0.00e+00 for the output, 0.00e+00 for"
    " the attention weights.]]"
)


def listing() -> None:
    st.markdown(
        "#### 1. Input\n$$X \\in \\mathbb{R}^{B \\times T \\times d_{model}}$$\n\n```python\n" + CODE + "\n```",
        unsafe_allow_html=False,
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
    if not LISTING_IN_PAGE:
        listing()
    page()


@st.fragment(key="settings")
def settings() -> None:
    st.slider("value", 0, 100, 50, key="floor", on_change=lambda: st.rerun("page"))


@st.fragment(key="page")
def page() -> None:
    v = st.session_state.floor
    n = 4 + v % 8  # tokens: the app's default seq_len is 8
    if LISTING_IN_PAGE:  # as the app's page fragment does: the step's listing, then its own text of the step
        listing()
        st.markdown(f"floor value = {v}\n\n" + APP_TEXT.replace("{n}", str(n)))
    else:
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


def draw(sidebar: bool = True, listing_in_page: bool = False) -> None:
    """The page; without `sidebar` only the step's slider is in the sidebar and the navigation is hidden
    (floor_page_main.py: what the sidebar costs); `listing_in_page` (floor_page_listing.py): the step's formula and
    code are re-sent with every step and its text is the app's, as the app's step sends them."""
    global LISTING_IN_PAGE
    LISTING_IN_PAGE = listing_in_page
    st.set_page_config(layout="wide")
    pages = [st.Page(walkthrough, title="Walkthrough", url_path="walkthrough", default=True)] + [
        st.Page(lambda: None, title=f"Page {i}", url_path=f"page{i}") for i in range(10)
    ]
    nav = st.navigation(pages, position="sidebar" if sidebar else "hidden")
    with st.sidebar:
        if sidebar:
            st.segmented_control("语言 · Language", ["en", "zh"], default="en", key="lang")
        st.header("Settings")
        settings()
        if sidebar:
            st.select_slider("d_model", [16, 32, 64, 128, 256, 512], value=64, key="d_model")
            st.select_slider("Heads", [1, 2, 4, 8, 16], value=4, key="num_heads")
            st.caption("d_k = d_model / h = 64 / 4 = 16")
            st.selectbox("Mask", ["none", "causal", "padding"], key="mask")
            st.caption("No mask: every token sees every token.")
            st.number_input("Seed", 0, 10_000, 0, key="seed")
            st.caption("Share this link: it keeps every setting.")
            st.header("Display")
            st.segmented_control("Numbers", ["values", "colour"], default="values", key="numbers")
            st.segmented_control("Colours", ["blue", "red", "grey", "green"], default="blue", key="colours")
            st.segmented_control("Size", ["small", "medium"], default="small", key="size")
            st.segmented_control("Theme", ["light", "dark", "auto", "print"], default="light", key="theme")
            st.checkbox("Large text", key="large")
            st.checkbox("High contrast", key="contrast")
            st.segmented_control("Motion", ["on", "off", "auto", "slow"], default="on", key="motion")
            st.header("Class")
            st.button("Start a class", key="class")
            st.page_link(pages[1], label="Join a class")
    nav.run()


if __name__ == "__main__":
    draw()
