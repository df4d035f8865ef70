"""Serving attention: the KV cache, and K/V heads shared by query heads (MQA, GQA). Thin: lessons/kv_cache.py
computes every number; this file reads the settings and the page's URL values, calls it and shows the result."""

import streamlit as st

import i18n
from charts import lines
from core.validation import divisors
from i18n import plain
from lessons import kv_cache as K
from lessons import scenario
from ui import url_state
from ui.cache import shared
from ui.heatmaps import show_heatmap
from ui.linecharts import show_lines
from ui.sections import lazy_tabs
from ui.shell import page_context

ctx = page_context()
t, s = ctx.t, ctx.settings
d, h, T, d_k = s.d_model, s.num_heads, s.seq_len, s.d_k
SK = (d, h, T, s.mask, s.seed, s.lang, ctx.custom_text)
BIG = 4096  # values above which a view draws one of two same-shaped matrices (a step's payload budget)
WEIGHT_PANELS = 8  # query heads drawn in the sharing view (fewer when T is long: BIG values at most)
CACHE_DIMS = 64  # dims of the cache drawn in the decode view


def fmt_bytes(n: int) -> str:
    """Bytes in binary units, as every number on this page (the same text in both languages)."""
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            v = n / size
            return f"{v:,.0f} {unit}" if v == int(v) else f"{v:,.2f} {unit}"
    return f"{n:,} B"


# ------------------------------------------------------------------ URL values -> valid widget state
KEPT = "kv_kept"  # the page's values while the widgets showing them are in a closed tab
WIDGET_KEYS = tuple(k for k in K.URL_KEYS if k.name != "kv_tab")  # the tab id is ui.sections.lazy_tabs' own


def notice(fix, from_link: bool) -> str | None:
    """A link's bad value is named and corrected; a value the new settings moved (a step past a shorter T) quietly."""
    return t("kv.bad_url", param=fix.key, given=plain(fix.given), used=fix.used) if from_link else None


def keep(key: str) -> None:
    url_state.keep_value(KEPT, key)


st.title(t("page.kv-cache"))
st.write(t("kv.intro"))
# Every page key (lessons.kv_cache.URL_KEYS), valid for these settings, in session state before its widget is drawn.
v = url_state.settle(WIDGET_KEYS, {"settings": s}, t=t, store=KEPT, notice=notice)

# The K/V heads control: above the tabs, every section reads it.
options = list(divisors(h))
if len(options) > 1:
    st.select_slider(
        t("kv.control", h=h),
        options,
        key="kv_heads",
        bind="query-params",
        on_change=keep,
        args=("kv_heads",),
        help=t("kv.control.help"),
    )
kv_heads = v["kv_heads"]  # the widget shows the settled value
kind = K.attention_kind(h, kv_heads)
st.caption(t("kv.control.ends") + " " + t(f"kv.kind.{kind}", h=h, kv=kv_heads, g=h // kv_heads))


def tab_label(sid: str, lang: str) -> str:
    return i18n.t(f"kv.tab.{sid}", lang)


def on_bad_tab(given: str, used: str) -> None:
    st.warning(t("kv.bad_url", param="kv_tab", given=plain(given), used=used), icon=":material/build:")


# Written out (not K.SECTIONS) so tests/test_fuzz_app.py can read the tab ids from this file's source.
SECTIONS = ("sharing", "decode", "memory", "timing")
assert SECTIONS == K.SECTIONS
open_id, tabs = lazy_tabs("kv_tab", SECTIONS, tab_label, ctx.lang, on_bad_url=on_bad_tab)


# ------------------------------------------------------------------ 1. which query heads share which K/V head
def sharing_section() -> None:
    def build() -> K.SharingView:
        # The MHA trace of these settings is the run every page shares (one model built, not two).
        mha = shared("run", SK, lambda: scenario.run(s, custom_text=ctx.custom_text)).trace if kv_heads < h else None
        return K.sharing_view(s, kv_heads, custom_text=ctx.custom_text, mha=mha)

    view = shared("kv_sharing", (*SK, kv_heads), build)
    st.subheader(t("kv.share.title"))
    st.write(t("kv.share.about"))
    if kv_heads == h:  # MHA: nothing is shared (a table of h rows "i | i" would say only that)
        st.caption(t("kv.share.none", h=h))
    else:
        st.table(
            {
                t("kv.share.col.kv_head"): [str(j) for j in range(kv_heads)],
                t("kv.share.col.q_heads"): [", ".join(map(str, g)) for g in view.groups],
            },
            hide_index=True,
        )
    st.caption(
        t(
            "kv.share.shapes",
            T=T,
            d=d,
            w=kv_heads * d_k,
            kv=kv_heads,
            dk=d_k,
            kh=str(view.shapes["k_heads"]),
            ke=str(view.shapes["k_heads_expanded"]),
        )
    )
    width = kv_heads * d_k
    k_cols = min(width, BIG // T)  # K within a step's byte budget: its first K/V heads when wide
    k_shown = view.k if k_cols == width else K.first_columns(view.k, k_cols)
    k_caption = t("kv.share.k", T=T, w=width) + ("" if k_cols == width else t("kv.first_cols", n=k_cols))
    if T * d <= BIG:
        left, right = st.columns([max(d, 1), k_cols + 8])
        with left:
            st.caption(t("kv.share.q", T=T, d=d))
            show_heatmap(view.q, key="kv_q", t=t)
        with right:
            st.caption(k_caption)
            show_heatmap(k_shown, key="kv_k", t=t)
    else:
        st.caption(t("kv.share.q_big", T=T, d=d))
        st.caption(k_caption)
        show_heatmap(k_shown, key="kv_k", t=t)
    st.caption(t("kv.share.v_same"))
    shown = tuple(range(min(h, WEIGHT_PANELS, max(1, BIG // (T * T)))))
    st.caption(t("kv.share.weights", n=len(shown), h=h))
    show_heatmap(K.weights_heatmap(view, shown), key="kv_weights", t=t)
    st.markdown(t("kv.share.table", T=T))
    now = t("kv.share.now")
    st.table(
        {
            "h_kv": [f"{r.kv_heads}{now if r.kv_heads == kv_heads else ''}" for r in view.table],
            t("kv.share.col.kind"): [r.kind.upper() for r in view.table],
            t("kv.share.col.q"): [f"({r.q_shape[0]}, {r.q_shape[1]})" for r in view.table],
            t("kv.share.col.k"): [f"({r.k_shape[0]}, {r.k_shape[1]})" for r in view.table],
            t("kv.share.col.params"): [f"{r.kv_params:,}" for r in view.table],
            t("kv.share.col.cache"): [fmt_bytes(r.cache_bytes_per_token) for r in view.table],
        },
        hide_index=True,
    )
    box = st.success if view.sdpa_equal else st.error
    box(
        t(
            "kv.share.sdpa",
            diff=f"{view.sdpa_max_abs_diff:.2e}",
            rows=view.sdpa_rows_compared,
            tol=f"{K.SDPA_ATOL:.0e}",
        ),
        icon=":material/check_circle:",
    )
    if kv_heads < h:
        box = st.success if view.leaders_equal else st.error
        box(t("kv.share.leaders", diff=f"{view.leaders_max_abs_diff:.2e}"), icon=":material/check_circle:")


# ------------------------------------------------------------------ 2. decoding one token at a time
def next_token() -> None:
    step = st.session_state.get("kv_step")
    st.session_state["kv_step"] = url_state.kept(KEPT)["kv_step"] = min(T, (step if isinstance(step, int) else 1) + 1)


def decode_section() -> None:
    st.subheader(t("kv.dec.title"))
    st.write(t("kv.dec.about"))
    step, head = v["kv_step"], v["kv_head"]  # the widgets show the settled values
    c1, c2, c3 = st.columns([3, 1, 1], vertical_alignment="bottom")
    with c1:
        st.slider(t("kv.dec.step", T=T), 1, T, key="kv_step", bind="query-params", on_change=keep, args=("kv_step",))
    with c2:
        st.button(
            t("kv.dec.next"),
            key="kv_next",
            on_click=next_token,
            icon=":material/skip_next:",
            disabled=step >= T,
            width="stretch",
        )
    with c3:
        st.selectbox(
            t("kv.dec.head"), list(range(h)), key="kv_head", bind="query-params", on_change=keep, args=("kv_head",)
        )
    view = shared("kv_decode", (*SK, kv_heads, step, head), lambda: K.decode_view(s, kv_heads, step, head))
    if view.shared_mask_differs:
        st.info(t("kv.dec.mask_note", mask=t(f"mask.{view.shared_mask}")), icon=":material/info:")
    st.markdown(
        t(
            "kv.dec.now",
            t=step,
            tok=plain(view.new_token, 40),
            pos=step - 1,
            shape=str(view.cache_shape),
            bytes=fmt_bytes(view.cache_nbytes),
            head=head,
            kv=view.kv_head,
            group=", ".join(map(str, view.group)),
        )
    )
    st.caption(t("kv.dec.q_row", h=h, dk=d_k))
    show_heatmap(view.q_row, key="kv_q_row", t=t)
    dims = min(d_k, CACHE_DIMS)  # the cache's first dims when d_k is wide (a step's byte budget)
    cut = "" if dims == d_k else t("kv.first_cols", n=dims)
    k_cache, v_cache = (
        (view.k_cache, view.v_cache)
        if dims == d_k
        else (K.first_columns(view.k_cache, dims), K.first_columns(view.v_cache, dims))
    )
    left, right = st.columns(2)
    with left:
        st.caption(t("kv.dec.k_cache", kv=view.kv_head, t=step, dk=d_k) + cut)
        show_heatmap(k_cache, key="kv_k_cache", t=t)
    with right:
        st.caption(t("kv.dec.v_cache", kv=view.kv_head, t=step, dk=d_k) + cut)
        show_heatmap(v_cache, key="kv_v_cache", t=t)
    st.caption(t("kv.dec.scores", h=h, t=step))
    show_heatmap(view.scores_row, key="kv_scores_row", t=t)
    left, right = st.columns(2)
    with left:
        st.caption(t("kv.dec.weights", h=h, t=step))
        show_heatmap(view.weights_row, key="kv_weights_row", t=t)
    with right:
        st.caption(t("kv.dec.full_weights", r=step - 1, t=step))
        show_heatmap(view.full_weights_row, key="kv_full_weights_row", t=t)
    n = min(d, 8)
    st.caption(t("kv.dec.output", n=n, d=d, r=step - 1))
    st.table(
        {
            t("kv.dec.col.dim"): [str(i) for i in range(n)],
            t("kv.dec.col.cache"): [f"{float(v):.6f}" for v in view.output_row[:n]],
            t("kv.dec.col.full"): [f"{float(v):.6f}" for v in view.full_output_row[:n]],
        },
        hide_index=True,
    )
    box = st.success if view.equal else st.error
    box(
        t(
            "kv.dec.equal",
            out=f"{view.output_max_abs_diff:.2e}",
            w=f"{view.weights_max_abs_diff:.2e}",
            tol=f"{K.DECODE_ATOL:.0e}",
        ),
        icon=":material/check_circle:",
    )
    st.markdown(t("kv.dec.cost.title", t=step))
    m1, m2, m3 = st.columns(3)
    m1.metric(t("kv.dec.cost.with"), f"{view.cost.with_cache:,}", border=True)
    m2.metric(t("kv.dec.cost.without"), f"{view.cost.without_cache:,}", border=True)
    m3.metric(t("kv.dec.cost.saved"), f"{view.cost.saved:,}", border=True)
    st.caption(
        t(
            "kv.dec.cost.so_far",
            t=step,
            w=f"{view.cost_so_far.with_cache:,}",
            wo=f"{view.cost_so_far.without_cache:,}",
            saved=f"{view.cost_so_far.saved:,}",
        )
    )
    st.markdown(t("kv.dec.mask.title"))
    left, right = st.columns(2)
    with left:
        st.caption(t("kv.dec.mask.bottom_right", t=step))
        show_heatmap(view.mask_row, key="kv_mask_row", t=t)
    with right:
        st.caption(t("kv.dec.mask.top_left"))
        show_heatmap(view.top_left_row, key="kv_top_left_row", t=t)


# ------------------------------------------------------------------ 3. memory against context length
def memory_section() -> None:
    st.subheader(t("kv.mem.title"))
    st.latex(r"\text{bytes} = 2 \times L \times h_{kv} \times d_k \times T \times B \times \text{bytes per value}")
    st.caption(t("kv.mem.formula"))
    c1, c2 = st.columns(2)
    with c1:
        st.selectbox(
            t("kv.mem.model"),
            list(K.MODEL_CHOICES),
            key="kv_model",
            bind="query-params",
            on_change=keep,
            args=("kv_model",),
            help=t("kv.mem.model.help"),
        )
    with c2:
        st.selectbox(
            t("kv.mem.context"),
            list(K.CONTEXT_CHOICES),
            key="kv_context",
            bind="query-params",
            on_change=keep,
            args=("kv_context",),
        )
    model, context = v["kv_model"], v["kv_context"]  # the widgets show the settled values
    view = shared("kv_memory", (*SK, kv_heads, model, context), lambda: K.memory_view(s, kv_heads, model, context))
    name = t("kv.mem.ours_name") if view.model == K.OURS else view.name
    st.markdown(t("kv.mem.chart", name=name, L=view.layers, h=view.heads, dk=view.head_dim, b=view.bytes_per_value))
    show_lines(
        lines.memory_chart(view, t),
        name=f"kv-cache-memory-{model}",
        key="kv_memory_chart",
        t=t,
        title=t("kv.mem.title"),
    )
    st.markdown(t("kv.mem.table", ctx=f"{context:,}"))
    st.table(
        {
            t("kv.mem.col.model"): [p.name for p in view.presets],
            t("kv.mem.col.layers"): [p.layers for p in view.presets],
            t("kv.mem.col.heads"): [p.heads for p in view.presets],
            t("kv.mem.col.kv"): [f"{p.kv_heads} ({p.kind.upper()})" for p in view.presets],
            "d_k": [p.head_dim for p in view.presets],
            t("kv.mem.col.bytes"): [fmt_bytes(p.bytes_at_context) for p in view.presets],
            t("kv.mem.col.mha"): [fmt_bytes(p.bytes_if_mha) for p in view.presets],
            t("kv.mem.col.saving"): [f"×{p.saving:g}" for p in view.presets],
        },
        hide_index=True,
    )
    st.caption(t("kv.mem.sources") + " " + " · ".join(f"[{p.name}]({p.source})" for p in view.presets))
    st.markdown(
        t("kv.mem.ours", kv=view.ours_kv_heads, dk=d_k, ctx=f"{context:,}", b=fmt_bytes(view.ours_bytes_at_context))
    )
    box = st.success if view.ours_cache_nbytes == view.ours_formula_at_T else st.error
    box(
        t(
            "kv.mem.check",
            T=view.ours_cache_tokens,
            real=f"{view.ours_cache_nbytes:,}",
            formula=f"{view.ours_formula_at_T:,}",
        ),
        icon=":material/check_circle:",
    )


# ------------------------------------------------------------------ 4. live timing, on a click
def timing_section() -> None:
    st.subheader(t("kv.time.title"))
    st.write(t("kv.time.about"))
    st.slider(
        t("kv.time.tokens"), K.GEN_MIN, K.GEN_MAX, key="kv_gen", bind="query-params", on_change=keep, args=("kv_gen",)
    )
    gen = v["kv_gen"]  # the widget shows the settled value
    timing_key = (d, h, kv_heads, s.seed, gen)
    results = st.session_state.get("kv_timings")
    if not isinstance(results, dict):
        results = {}
    if st.button(
        t("kv.time.again") if timing_key in results else t("kv.time.run"),
        key="kv_time_run",
        icon=":material/timer:",
        type="primary",
    ):
        with st.spinner(t("kv.time.running", n=gen)):
            results[timing_key] = K.measure_generation(s, kv_heads, gen)
        st.session_state["kv_timings"] = results
        st.rerun()  # redraw with the results (and the button's new label, "again")
    res = results.get(timing_key)
    if res is None:
        st.caption(t("kv.time.none"))
        return
    show_lines(
        lines.timing_chart(res, t),
        name=f"kv-cache-timing-d{d}-h{h}-kv{kv_heads}-n{gen}",
        key="kv_timing_chart",
        t=t,
        title=t("kv.time.title"),
    )
    m1, m2, m3 = st.columns(3)
    m1.metric(t("kv.time.total_with", n=gen), f"{res.total_with[-1] * 1000:.1f} ms", border=True)
    m2.metric(t("kv.time.total_without", n=gen), f"{res.total_without[-1] * 1000:.1f} ms", border=True)
    m3.metric(t("kv.time.speedup"), f"×{res.speedup:.1f}", border=True)
    st.markdown(
        t(
            "kv.time.fit",
            ew=f"{res.exponent_with:.2f}",
            kw=t(f"kv.growth.{res.kind_with}"),
            ewo=f"{res.exponent_without:.2f}",
            kwo=t(f"kv.growth.{res.kind_without}"),
            mw=f"{res.macs_exponent_with:.2f}",
            mwo=f"{res.macs_exponent_without:.2f}",
        )
    )
    st.caption(
        t("kv.time.meta", repeats=res.repeats, wall=f"{res.wall_seconds:.2f}", diff=f"{res.outputs_max_abs_diff:.1e}")
    )
    st.info(t("kv.time.why"), icon=":material/lightbulb:")


SECTION_BODIES = {
    "sharing": sharing_section,
    "decode": decode_section,
    "memory": memory_section,
    "timing": timing_section,
}
with tabs[open_id]:
    SECTION_BODIES[open_id]()
