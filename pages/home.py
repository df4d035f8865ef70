"""Home: what multi-head attention is (the seed's formulas), the current settings, links to every page."""

import streamlit as st

from core.accounting import tensor_shapes
from lessons import scenario
from lessons.walkthrough import reference_check
from ui.cache import shared
from ui.shell import page_context

ctx = page_context()
t, s = ctx.t, ctx.settings

st.title(t("app.title"))
# Static teaching text as few elements as it reads: the browser redraws every element of the page on a
# settings step (each costs even unchanged, blocks more), and none of these change with the settings.
st.markdown(
    "\n\n".join(
        [
            f"**{t('app.tagline')}**",
            f"### {t('home.what')}",
            t("home.intro"),
            t("home.formula_heads"),
            # One notation on every page, the code's names: the input X, head i's slices q_i, k_i, v_i of the
            # projections q = XW^Q + b^Q, ... (the seed's QW^Q_i with Q = X, plus nn.Linear's bias), heads numbered
            # from 0; the functions' names are the seed's in each language (头_i, 注意力, 拼接, 多头 in Chinese).
            f"$${t('home.split.latex')}$$",
            f"$${t('home.head.latex')}$$",
            t("home.formula_concat"),
            f"$${t('home.multihead.latex')}$$",
            f":small[:gray[{t('home.dims')}]]",
            f"### {t('home.pages')}",
        ]
    )
)
with st.container(horizontal=True, gap="small"):  # the page cards wrap: two or three a row, one on a phone
    for page in (
        "walkthrough",
        "heads",
        "masks",
        "real-model",
        "why-heads",
        "softmax",
        "positions",
        "kv-cache",
        "quiz",
    ):
        with st.container(border=True, width=360):
            st.page_link(f"pages/{page}.py", label=f"**{t(f'page.{page}')}**")
            st.caption(t(f"page.{page}.blurb"))

st.info(
    t("home.current", d_model=s.d_model, h=s.num_heads, d_k=s.d_k, T=s.seq_len, mask=t(f"mask.{s.mask}"), seed=s.seed),
    icon=":material/tune:",
)


def reference_diff() -> tuple[float, int]:
    """Our MultiHeadAttention against PyTorch's nn.MultiheadAttention for these settings (same weights, input),
    over the rows that keep a key, and how many rows keep none (they differ by design: lessons.walkthrough)."""
    check = reference_check(scenario.run(s, custom_text=ctx.custom_text))
    return check.output_diff, check.blocked_rows


def shapes_table(lang: str) -> str:
    """Every tensor's shape as a Markdown table (static text: cheap to send and to draw)."""
    shapes = tensor_shapes(1, s.seq_len, s.seq_len, s.d_model, s.num_heads)
    rows = [f"| `{name}` | {shape.text()} |" for name, shape in shapes.items()]
    return "\n".join([f"| {t('home.col.tensor')} | {t('common.shape')} |", "|---|---|", *rows])


# Once per distinct setting for the whole server (the numbers do not depend on the language): a class on the
# teacher's link, and every rerun that changes no setting, reuse it.
diff = shared("home-check", (s.d_model, s.num_heads, s.seq_len, s.mask, s.seed, ctx.custom_text), reference_diff)
diff, blocked_rows = diff
st.success(
    t("home.check", diff=diff) + (t("home.check_blocked", n=blocked_rows) if blocked_rows else ""),
    icon=":material/check_circle:",
)

with st.expander(t("home.shapes"), expanded=False):
    st.markdown(shapes_table(ctx.lang))

st.markdown(f"### {t('home.teacher')}\n\n{t('home.teacher.text')}")
