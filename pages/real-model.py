"""Real heads: all-MiniLM-L6-v2's attention, computed layer by layer by our own MultiHeadAttention.

Thin: the model (core/pretrained.py, one copy per server: ui/models.py) -> the page's keys (lessons.real_heads
.URL_KEYS, settled by ui.url_state) -> the lesson (lessons/real_heads.py: the reading of a sentence, patterns,
links, ablations, heatmaps as plain data) -> text, tables and heatmaps (ui.heatmaps.show_heatmap)."""

import streamlit as st

import i18n
from charts import diagrams
from charts.lines import LineChart, Series
from core import pretrained
from lessons import real_heads as R
from lessons.source import source_text
from lessons.url import names
from ui import free_text, url_state
from ui.cache import shared
from ui.heatmaps import show_heatmap
from ui.linecharts import show_lines
from ui.models import load_real_model
from ui.sections import lazy_tabs
from ui.shell import page_context

ctx = page_context()
t = ctx.t

# Layers and heads both count from 0, like the code (weights[layer, head]) and the heads on every other page;
# the page says so beside the layer control.
LAYERS, HEADS = list(R.LAYERS), list(R.HEADS)
# The page's sections as tabs, in the order a teacher would show them: only the open one is built and drawn
# (the browser pays one or two frames per plotly chart on every redraw; ui/sections.py).
VIEWS = R.VIEWS  # real_tab
KEPT = "real_kept"  # the page's values while the widgets showing them are in a closed tab (ui.url_state)


load_model = load_real_model  # one copy for the whole server (ui/models.py), shared with Positions


def use_example() -> None:
    choice = st.session_state.get("real_example")
    if choice:
        st.session_state["real_text"] = choice
        free_text.check("real_text", "real_text")  # the text a later too-long one falls back to
    st.session_state["real_example"] = None


def show_head(layer: int, head: int) -> None:
    st.session_state["real_layer"] = url_state.kept(KEPT)["real_layer"] = layer
    st.session_state["real_head"] = url_state.kept(KEPT)["real_head"] = head
    st.query_params["real_tab"] = "head"  # the tab with the enlarged head (ui/sections: the URL decides)


def keep(key: str) -> None:
    url_state.keep_value(KEPT, key)


def mapping_table(lang: str) -> str:
    """BERT's parameter names and ours, as a Markdown table (static text: nothing for the browser to lay out)."""
    rows = [f"| `{bert}` | `{ours}` |" for bert, ours in R.mapping_rows()]
    head = f"| {i18n.t('real.mapping.bert', lang)} | {i18n.t('real.mapping.ours', lang)} |"
    return "\n".join([head, "|---|---|", *rows])


def view_label(view: str, lang: str) -> str:
    return i18n.t(f"real.view.{view}", lang)


st.title(t("page.real-model"))
# the intro and why the sidebar does not apply: one element (each element a step re-sends costs a render)
st.markdown(f"{t('real.intro')}\n\n:small[:gray[{t('real.sidebar_note')}]]")

try:
    with st.spinner(t("real.loading")):
        model = load_model()
except pretrained.ModelIntegrityError as e:
    st.error(f"{t('real.refused')} {e}", icon=":material/gpp_bad:")
    st.stop()
cfg = model.cfg
params, att = shared("real-params", (model.sha256,), lambda: (R.param_count(model), R.attention_param_share(model)))
with st.expander(t("real.provenance"), icon=":material/verified:"):  # where the weights come from, on request
    st.caption(
        t(
            "real.loaded",
            params=params,
            att=att,
            sha=f"{model.sha256[:12]}…{model.sha256[-4:]}",
            seconds=model.load_seconds,
        )
        + " "
        + t("real.source")
    )

# ---------------------------------------------------------------- 1. the sentence
st.header(t("real.text.header"))
default_text = pretrained.EXAMPLES[0][0]
st.pills(t("real.examples"), [text for text, _, _ in pretrained.EXAMPLES], key="real_example", on_change=use_example)
if "real_text" not in st.session_state:
    free_text.url_text("real_text", "real_text")  # a too-long link value is refused before the box reads it
text = st.text_area(
    t("real.text"),
    value=default_text,
    key="real_text",
    bind="query-params",
    height=80,
    help=t("real.text.help", limit=pretrained.MAX_TOKENS),
    max_chars=free_text.max_chars("real_text"),
    on_change=free_text.check,
    args=("real_text", "real_text", default_text),
)
free_text.show_refusal("real_text", ctx.lang)
st.caption(t("real.english_only"))

if not (text or "").strip():
    st.warning(t("real.empty"), icon=":material/edit_off:")
    text = default_text
try:
    encoded = model.encode(text)
except pretrained.TextTooLong as e:
    if e.n_tokens is None:
        st.error(t("real.too_long_chars", n=e.n_chars, limit=pretrained.MAX_CHARS), icon=":material/block:")
    else:
        st.error(t("real.too_long", n=e.n_tokens, limit=pretrained.MAX_TOKENS), icon=":material/block:")
    st.stop()

tokens, n = encoded.tokens, len(encoded.tokens)
if pretrained.has_cjk(text):
    st.warning(t("real.cjk", unk=encoded.unknown, n=n), icon=":material/translate:")
elif encoded.unknown:
    st.info(t("real.unk", unk=encoded.unknown, n=n))
st.write(t("real.tokens", n=n, limit=pretrained.MAX_TOKENS))
st.html(diagrams.token_chips_html(tokens))
st.caption(t("real.tokens.about"))

# Everything that depends only on the sentence, once per sentence for the whole server (frozen, shared):
# a slider step in the sidebar (d_model, h, ...) changes nothing here and reruns cost almost nothing.
reading = shared("real-reading", (model.sha256, encoded.text), lambda: R.read(model, encoded))
if st.session_state.get("real_link_text") not in (None, encoded.text):  # a new sentence: the link tab's pair is its own
    url_state.forget(KEPT, names(R.LINK_KEYS))
st.session_state["real_link_text"] = encoded.text
weights = reading.weights  # (layers, h, T, T) for this one sentence

# ---------------------------------------------------------------- 2. the heads, one tab at a time
st.success(t("real.check", w=reading.check["weights"], o=reading.check["outputs"]), icon=":material/check_circle:")
st.header(t("real.maps.header"))
# The layer, head and blanking (lessons.real_heads.HEAD_KEYS), valid before any widget is drawn: a link's bad value
# gets a notice here and leaves the URL; the head is kept while its tab is closed.
url_state.settle(R.HEAD_KEYS, {}, t=t, store=KEPT)
c1 = c2 = st.container(horizontal=True, vertical_alignment="center")  # one container, not three (columns)
layer = c1.segmented_control(
    t("real.layer"),
    LAYERS,
    default=R.DEFAULT_LAYER,  # the link leaves the default layer out, as it does every default
    key="real_layer",
    bind="query-params",
    required=True,
    on_change=keep,
    args=("real_layer",),
)
hide = c2.toggle(
    t("real.hide"), key="real_hide", bind="query-params", help=t("real.hide.help"), on_change=keep, args=("real_hide",)
)
L = int(layer)
st.caption(t("real.numbering"))
# Only the open tab runs and draws (ui/sections.py): one heatmap at most per redraw.
view, tabs = lazy_tabs("real_tab", VIEWS, view_label, ctx.lang)
tab = tabs[view]

if view in ("grid", "head"):
    blank = hide and R.has_words(tokens)
    if hide and not blank:
        tab.info(t("real.no_words"))
    blanked = " " + t("real.grid.blanked") if hide else ""

if view == "grid":
    tab.caption(t("real.grid.caption", layer=layer) + blanked + " " + t("real.grid.hover"))
    grid = shared(
        "real-grid", (model.sha256, encoded.text, L, blank), lambda: R.grid_heatmap(weights, L, tokens, blank=blank)
    )
    with tab:  # 12 heads of up to 64 x 64: int16 codes of the printed numbers (half of float32's bytes)
        show_heatmap(grid, key="real_grid", t=t, compact=True)
    tab.info(t("real.special.about", share=reading.special_share[L]), icon=":material/info:")

elif view == "head":
    head = tab.select_slider(
        t("real.head"),
        HEADS,
        value=R.DEFAULT_HEAD,
        key="real_head",
        bind="query-params",
        on_change=keep,
        args=("real_head",),
    )
    tab.caption(t("real.big.caption", layer=layer) + blanked)
    big = shared(
        "real-head",
        (model.sha256, encoded.text, L, blank, int(head)),
        lambda: R.head_heatmap(weights, L, int(head), tokens, blank=blank),
    )
    with tab:
        show_heatmap(big, key="real_big", t=t)

elif view == "patterns":
    tab.caption(t("real.patterns.about", min=R.PATTERN_MIN))
    found, missing = R.patterns_found(reading.best)
    for name in found:  # only heads that follow a pattern at PATTERN_MIN or more
        bl, bh, score = reading.best[name]
        row = tab.container(horizontal=True, vertical_alignment="center")
        row.write(f"{t(f'real.pattern.{name}')} — {t('real.best', layer=bl, head=bh, score=score)}")
        row.button(t("real.show"), key=f"real_show_{name}", on_click=show_head, args=(bl, bh))
    if missing:
        best_of = t("real.list_sep").join(
            f"{t(f'real.pattern.{name}')} ({reading.best[name][2]:.2f})" for name in missing
        )
        tab.caption(t("real.patterns.missing", min=R.PATTERN_MIN, which=best_of))

elif view == "link":
    tab.caption(t("real.link.about"))
    with tab:  # lessons.real_heads.LINK_KEYS: tokens of this sentence
        url_state.settle(R.LINK_KEYS, {"n_tokens": n, "link": reading.link}, t=t, store=KEPT)
    c1 = c2 = tab.container(horizontal=True)  # one container, not three (columns)
    labels = R.token_labels(tokens, ": ")  # "3: animal"
    q = c1.selectbox(t("real.link.from"), list(range(n)), key="real_from", format_func=labels.__getitem__)
    k = c2.selectbox(t("real.link.to"), list(range(n)), key="real_to", format_func=labels.__getitem__)
    # Not bound (Streamlit would write the shown "3: animal"): the page writes the two token numbers into the link.
    url_state.relink(R.LINK_KEYS, KEPT, {"n_tokens": n, "link": reading.link}, exact=names(R.LINK_KEYS))
    tab.write(t("real.link.result", q=i18n.plain(tokens[q], 40), k=i18n.plain(tokens[k], 40)))  # tokens: user text
    for rank, (bl, bh, score) in enumerate(R.best_heads(R.link_scores(weights, q, k), 3)):
        row = tab.container(horizontal=True, vertical_alignment="center")
        row.write(t("real.best", layer=bl, head=bh, score=score))
        row.button(t("real.show"), key=f"real_link_show_{rank}", on_click=show_head, args=(bl, bh))

elif view == "ablate":
    tab.write(t("real.ablate.about", layer=layer))
    off = tab.pills(
        t("real.ablate.heads", layer=layer), HEADS, selection_mode="multi", key="real_off", bind="query-params"
    )
    if not off:
        tab.caption(t("real.ablate.none"))
    else:
        heads_off = R.heads_off(off)
        result = shared(
            "real-ablation",
            (model.sha256, encoded.text, L, heads_off),
            lambda: R.ablate(model, reading.batch, reading.run, L, heads_off),
        )
        m1 = m2 = tab.container(horizontal=True)  # one container, not three (columns)
        m1.metric(t("real.ablate.embedding"), f"{result.embedding_cosine:.4f}")
        m2.metric(t("real.ablate.layer_change", layer=layer), f"{result.layer_change:.1%}")
        # Is that a big change? The same number of heads of this layer, not chosen (every single head, or
        # random sets), computed once per sentence, layer and number for the whole server.
        base = shared(
            "real-ablation-base",
            (model.sha256, encoded.text, L, len(heads_off)),
            lambda: R.ablation_baseline(model, reading.batch, reading.run, L, len(heads_off)),
        )
        if base is not None:
            key = "real.ablate.context.one" if base.k == 1 else "real.ablate.context.many"
            tab.info(t(key, layer=layer, **base.context(result.layer_change)), icon=":material/balance:")
        tab.caption(t("real.ablate.tokens", layer=layer))
        labels = tuple(R.token_labels(tokens))
        show_lines(
            LineChart(
                tuple(
                    Series(name, labels, tuple(float(v) for v in values), kind="bar", color=color, decimals=4)
                    for name, values, color in (
                        (t("real.ablate.col_layer", layer=layer), result.token_change, "#1f77b4"),
                        (t("real.ablate.col_final"), result.final_token_change, "#ff7f0e"),
                    )
                ),
                x_categories=labels,
                y_zero=True,
                height=320,
            ),
            name=f"ablation-layer{layer}",
            key="real_ablate_chart",
            t=t,
            title=t("real.ablate.tokens", layer=layer),
            where=tab,
        )

else:  # "core"
    tab.write(t("real.core.about"))
    tab.caption(t("real.check.tests"))
    tab.markdown(mapping_table(ctx.lang))
    tab.caption(t("real.code"))
    tab.code(source_text(pretrained.EncoderLayer) + "\n\n" + source_text(pretrained.without_heads), language="python")
