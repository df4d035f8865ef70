"""Real heads: all-MiniLM-L6-v2's attention, computed layer by layer by our own MultiHeadAttention."""

import html

import pandas as pd
import streamlit as st

from core import pretrained
from core.figures import color_range, heads_figure, matrix_figure
from core.frozen import freeze
from ui.charts import show_chart
from core.source import source_text
from ui.shell import drop_url_value, page_context, url_values

ctx = page_context()
t = ctx.t

LAYERS = list(range(1, 7))  # shown from 1, like the issue and the papers
HEADS = list(range(12))  # shown from 0, like the other pages
DEFAULT_LAYER, DEFAULT_HEAD = 4, 1  # with the first example, this head links "it" to "animal"


@st.cache_resource(show_spinner=False)
def load_model() -> pretrained.Pretrained:
    """Once per server process (~0.3 s). It runs in this session's own script thread, so other pages and
    sessions keep running; only a second session opening this page at the same moment waits for it.
    Shared by every session, so frozen: an in-place write into a weight raises instead of leaking."""
    return freeze(pretrained.load())


def use_example() -> None:
    choice = st.session_state.get("real_example")
    if choice:
        st.session_state["real_text"] = choice
    st.session_state["real_example"] = None


def show_head(layer: int, head: int) -> None:
    st.session_state["real_layer"] = layer + 1
    st.session_state["real_head"] = head


def token_chips(tokens: list[str]) -> str:
    """The tokens as small boxes: [UNK] red, [CLS]/[SEP] blue (HTML-escaped, so any token is safe)."""
    def chip(i: int, tok: str) -> str:
        color = "#d62728" if tok == pretrained.UNK else "#1f77b4" if tok in pretrained.SPECIAL_TOKENS else "#888"
        return (f'<span title="{i}" style="border:1px solid {color};color:{color};border-radius:4px;'
                f'padding:1px 5px;font-family:monospace;white-space:pre">{html.escape(tok)}</span>')
    return ('<div style="display:flex;flex-wrap:wrap;gap:4px">'
            + "".join(chip(i, tok) for i, tok in enumerate(tokens)) + "</div>")


def settle(key: str, valid: list, default) -> None:
    """A page widget's state must be one of its options before the widget is drawn."""
    if key in st.session_state and st.session_state[key] not in valid:
        st.session_state[key] = default
    elif key not in st.session_state and key in st.query_params and url_values(key) not in ([str(v)] for v in valid):
        drop_url_value(key)  # a mangled link: the widget starts at its default instead of failing


st.title(t("page.real-model"))
st.write(t("real.intro"))
st.caption(t("real.sidebar_note"))

try:
    with st.spinner(t("real.loading")):
        model = load_model()
except pretrained.ModelIntegrityError as e:
    st.error(f"{t('real.refused')} {e}", icon=":material/gpp_bad:")
    st.stop()
cfg = model.cfg
st.caption(t("real.loaded", params=pretrained.param_count(model), att=pretrained.attention_param_share(model),
             sha=f"{model.sha256[:12]}…{model.sha256[-4:]}", seconds=model.load_seconds) + " " + t("real.source"))

# ---------------------------------------------------------------- 1. the sentence
st.header(t("real.text.header"))
default_text = pretrained.EXAMPLES[0][0]
st.pills(t("real.examples"), [text for text, _, _ in pretrained.EXAMPLES], key="real_example",
         on_change=use_example)
text = st.text_area(t("real.text"), value=default_text, key="real_text", bind="query-params", height=80,
                    help=t("real.text.help", limit=pretrained.MAX_TOKENS))
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
st.html(token_chips(tokens))
st.caption(t("real.tokens.about"))

batch = model.batch([encoded])
run = model.run(batch)
weights = run.weights[:, 0]  # (layers, h, T, T) for this one sentence

# ---------------------------------------------------------------- 2. one layer's heads
st.header(t("real.maps.header"))
settle("real_layer", LAYERS, DEFAULT_LAYER)
settle("real_head", HEADS, DEFAULT_HEAD)
c1, c2 = st.columns([3, 2])
layer = c1.segmented_control(t("real.layer"), LAYERS, key="real_layer", bind="query-params", default=DEFAULT_LAYER,
                             required=True)
hide = c2.toggle(t("real.hide"), key="real_hide", bind="query-params", help=t("real.hide.help"))
L = int(layer) - 1
layer_weights = weights[L]  # (h, T, T)
labels = tokens
if hide:
    if any(tok not in pretrained.SPECIAL_TOKENS for tok in tokens):
        layer_weights = pretrained.hide_special(layer_weights, tokens)
    else:
        st.info(t("real.no_words"))
zrange = color_range(layer_weights, signed=False)
st.caption(t("real.grid.caption", layer=layer) + (" " + t("real.grid.blanked") if hide else "")
           + " " + t("real.grid.hover"))
grid = heads_figure(layer_weights, HEADS, labels, labels, head_label=t("common.head"), zrange=zrange,
                    x_title=t("common.key"), y_title=t("common.query"), panel_height=220)
grid.update_xaxes(showticklabels=False).update_yaxes(showticklabels=False)  # 12 small panels: tokens on hover
show_chart(grid, name=f"MiniLM-layer{layer}-heads", key="real_grid")
st.info(t("real.special.about", share=float(pretrained.special_share(weights[L], tokens).mean())),
        icon=":material/info:")

head = st.select_slider(t("real.head"), HEADS, key="real_head", bind="query-params", value=DEFAULT_HEAD)
show_chart(matrix_figure(layer_weights[head], labels, labels, zrange=zrange, x_title=t("common.key"),
                         y_title=t("common.query"), title=t("real.big.title", layer=layer, head=head)),
           name=f"MiniLM-layer{layer}-head{head}", key="real_big")

# ---------------------------------------------------------------- 3. what heads learned
st.header(t("real.patterns.header"))
st.caption(t("real.patterns.about"))
scores = pretrained.pattern_scores(weights, tokens)
for name in pretrained.PATTERNS:
    (bl, bh, score), = pretrained.best_heads(scores[name], 1)
    row = st.container(horizontal=True, vertical_alignment="center")
    row.write(f"{t(f'real.pattern.{name}')} — {t('real.best', layer=bl + 1, head=bh, score=score)}")
    row.button(t("real.show"), key=f"real_show_{name}", on_click=show_head, args=(bl, bh))

st.subheader(t("real.link.header"))
st.caption(t("real.link.about"))
positions = list(range(n))
if st.session_state.get("real_link_text") != encoded.text:  # a new sentence: start from its own pair
    st.session_state["real_from"], st.session_state["real_to"] = pretrained.default_link(encoded)
    st.session_state["real_link_text"] = encoded.text
settle("real_from", positions, 0)
settle("real_to", positions, 0)
c1, c2 = st.columns(2)
q = c1.selectbox(t("real.link.from"), positions, key="real_from", format_func=lambda i: f"{i}: {tokens[i]}")
k = c2.selectbox(t("real.link.to"), positions, key="real_to", format_func=lambda i: f"{i}: {tokens[i]}")
st.write(t("real.link.result", q=tokens[q], k=tokens[k]))
for rank, (bl, bh, score) in enumerate(pretrained.best_heads(pretrained.link_scores(weights, q, k), 3)):
    row = st.container(horizontal=True, vertical_alignment="center")
    row.write(t("real.best", layer=bl + 1, head=bh, score=score))
    row.button(t("real.show"), key=f"real_link_show_{rank}", on_click=show_head, args=(bl, bh))

# ---------------------------------------------------------------- 4. our own core
st.header(t("real.core.header"))
st.write(t("real.core.about"))
check = pretrained.reference_check(model, run)
st.success(t("real.check", w=check["weights"], o=check["outputs"]), icon=":material/check_circle:")
st.caption(t("real.check.tests"))
with st.expander(t("real.code")):
    st.table({t("real.mapping.bert"): [f"{k}.weight/.bias" for k in pretrained.BERT_TO_OURS],
              t("real.mapping.ours"): list(pretrained.BERT_TO_OURS.values())})
    st.code(source_text(pretrained.EncoderLayer) + "\n\n" + source_text(pretrained.without_heads),
            language="python")

# ---------------------------------------------------------------- 5. ablation
st.header(t("real.ablate.header"))
st.write(t("real.ablate.about", layer=layer))
off = st.pills(t("real.ablate.heads", layer=layer), HEADS, selection_mode="multi", key="real_off",
               bind="query-params")
if not off:
    st.caption(t("real.ablate.none"))
else:
    result = pretrained.ablate(model, batch, run, L, off)
    m1, m2 = st.columns(2)
    m1.metric(t("real.ablate.embedding"), f"{result.embedding_cosine:.4f}")
    m2.metric(t("real.ablate.layer_change", layer=layer), f"{result.layer_change:.1%}")
    st.caption(t("real.ablate.tokens", layer=layer))
    frame = pd.DataFrame({t("real.ablate.col_layer", layer=layer): result.token_change,
                          t("real.ablate.col_final"): result.final_token_change},
                         index=[f"{i}:{tok}" for i, tok in enumerate(tokens)])
    st.bar_chart(frame, sort=False, stack=False, height=280)
