"""Serving attention: the KV cache, and K/V heads shared by query heads (MQA, GQA).

Thin: the shared settings (ctx) -> the page's URL values, declared in lessons.kv_cache.URL_KEYS and settled by
ui.url_state (a link's bad value shows a notice and is corrected in the URL) -> each section's view (the numbers,
computed once per inputs for the whole server, ui.cache.shared) and what the page shows of it
(`lessons.kv_cache.<section>_shown`: captions as Text, tables, heatmaps within a step's budget) -> drawn here.
Four sections as lazy tabs, the open one in the URL (`kv_tab`).
"""

from collections.abc import Callable

import streamlit as st

import i18n
from charts import lines
from core.work_queue import Control
from i18n import plain
from lessons import kv_cache as K
from lessons.heatmap import Text
from lessons.url import key_default
from ui import url_state, work_queue
from ui.cache import shared
from ui.choice import labelled
from ui.heatmaps import show_heatmap
from ui.linecharts import show_lines
from ui.live_part import live_part
from ui.sections import lazy_tabs
from ui.shell import PageContext, page_context
from ui.tables import show_table, show_table_in_text
from ui.words import word

ctx = page_context()
t, s = ctx.t, ctx.settings
d, h, T = s.d_model, s.num_heads, s.seq_len
SK = ctx.key  # (d_model, h, T, mask, seed, lang, custom text): every page's
KEPT = "kv_kept"  # the page's values while the widgets showing them are in a closed tab
WIDGET_KEYS = tuple(k for k in K.URL_KEYS if k.name != "kv_tab")  # the tab id is ui.sections.lazy_tabs' own
CHECKED = ":material/check_circle:"


def notice(fix, from_link: bool) -> str | None:
    """A link's bad value is named and corrected; a value the new settings moved (a step past a shorter T) quietly."""
    return t("kv.bad_url", param=fix.key, given=plain(fix.given), used=fix.used) if from_link else None


def keep(key: str) -> None:
    url_state.keep_value(KEPT, key)


def say(*words) -> str:
    """The lesson's words (Text keys with their values, or language-neutral text) in the reader's language."""
    return "".join(word(w, t) for w in words)


def worded(columns: K.Table) -> dict:
    return {say(c.header): [say(x) if isinstance(x, Text) else x for x in c.cells] for c in columns}


def table(columns: K.Table) -> None:
    show_table(worded(columns))


def check(ok: bool, *words: Text) -> None:
    """One box for checks that came out alike (each a paragraph)."""
    (st.success if ok else st.error)("\n\n".join(say(w) for w in words), icon=CHECKED)


st.markdown(f"# {t('page.kv-cache')}\n\n{t('kv.intro')}")  # title and intro: one element, which no step changes
# Every page key (lessons.kv_cache.URL_KEYS), valid for these settings, in session state before its widget is drawn.
v = url_state.settle(WIDGET_KEYS, {"settings": s}, t=t, store=KEPT, notice=notice)

# The K/V heads control: above the tabs, every section reads it.
options = list(K.kv_heads_choices(h))
if len(options) > 1:
    st.select_slider(
        t("kv.control", h=h),
        options,
        value=K.default_kv_heads(h),  # the link leaves out exactly the value a link without kv_heads opens at
        key="kv_heads",
        bind="query-params",
        on_change=keep,
        args=("kv_heads",),
        help=t("kv.control.help"),
    )
kv_heads = v["kv_heads"]  # the widget shows the settled value
st.caption(t("kv.control.ends") + " " + say(K.kind_text(h, kv_heads)))


def tab_label(sid: str, lang: str) -> str:
    return i18n.t(f"kv.tab.{sid}", lang)


def on_bad_tab(given: str, used: str) -> None:
    st.warning(t("kv.bad_url", param="kv_tab", given=plain(given), used=used), icon=":material/build:")


SECTIONS = K.SECTIONS
open_id, tabs = lazy_tabs("kv_tab", SECTIONS, tab_label, ctx.lang, on_bad_url=on_bad_tab)


def live(draw) -> None:
    """The rest of a section, below its heading and the controls no step changes, in the page's live part
    (ui/live_part.py): a step of seq_len or the seed reruns it alone, and none of what is above it is sent again.
    `draw(c, values)` reads the settings from `c` (h and the K/V heads, which such a step leaves, from the page);
    rerun alone, the page's values are settled again for the new T first (a decode step past it moves back)."""

    def part(c: PageContext, alone: bool) -> None:
        draw(c, url_state.settle(WIDGET_KEYS, {"settings": c.settings}, t=t, store=KEPT, notice=notice) if alone else v)

    live_part(part, ctx)


# ------------------------------------------------------------------ 1. which query heads share which K/V head
def sharing_section() -> None:
    live(sharing_live)


def sharing_live(c: PageContext, _values: dict) -> None:
    s, SK, T = c.settings, c.key, c.settings.seq_len

    def build() -> K.SharingView:
        # The MHA trace of these settings is the run every page shares (one model built, not two).
        mha = c.run().trace if kv_heads < h else None
        return K.sharing_view(s, kv_heads, custom_text=c.custom_text, mha=mha)

    shown = K.sharing_shown(shared("kv_sharing", (*SK, kv_heads), build))
    # heading, what it shows and the groups: one element, which a step of T or the seed leaves as it was (the browser
    # does not lay the groups' table out again); the shapes, which T changes, the next
    heading = f"### {t('kv.share.title')}\n\n{t('kv.share.about')}"
    shapes = f":small[:gray[{say(shown.shapes)}]]"
    if shown.groups is None:  # MHA: nothing is shared (a table of h rows "i | i" would say only that)
        st.markdown(f"{heading}\n\n:small[:gray[{t('kv.share.none', h=h)}]]\n\n{shapes}")
    else:
        show_table_in_text(heading, worded(shown.groups))
        st.markdown(shapes)
    if shown.q is not None:  # side by side, widths in proportion: K is narrower than Q by the group size
        left, right = st.columns(list(shown.widths))
        with left:
            st.caption(say(shown.q_caption))
            show_heatmap(shown.q, key="kv_q", t=t)
        with right:
            st.caption(say(*shown.k_caption))
            show_heatmap(shown.k, key="kv_k", t=t)
    else:
        st.caption(f"{say(shown.q_caption)}\n\n{say(*shown.k_caption)}")  # two captions in a row: one element
        show_heatmap(shown.k, key="kv_k", t=t)
    st.caption(f"{t('kv.share.v_same')}\n\n{say(shown.weights_caption)}")  # two captions in a row: one element
    show_heatmap(shown.weights, key="kv_weights", t=t)
    show_table_in_text(t("kv.share.table", T=T), worded(shown.table))
    if shown.leaders is not None and shown.leaders_ok == shown.sdpa_ok:  # both checks in one box: one element
        check(shown.sdpa_ok, shown.sdpa, shown.leaders)
    else:
        check(shown.sdpa_ok, shown.sdpa)
        if shown.leaders is not None:
            check(shown.leaders_ok, shown.leaders)


# ------------------------------------------------------------------ 2. decoding one token at a time
def next_token(T: int) -> None:
    step = st.session_state.get("kv_step")
    st.session_state["kv_step"] = url_state.kept(KEPT)["kv_step"] = min(T, (step if isinstance(step, int) else 1) + 1)


def decode_section() -> None:
    st.markdown(f"### {t('kv.dec.title')}\n\n{t('kv.dec.about')}")  # one element: each costs a render on a step
    live(decode_live)


def decode_live(c: PageContext, values: dict) -> None:
    s, SK, T = c.settings, c.key, c.settings.seq_len
    step, head = values["kv_step"], values["kv_head"]  # the widgets show the settled values (the step's range is T)
    c1 = c2 = c3 = st.container(horizontal=True, vertical_alignment="bottom")  # one container, not four (columns)
    with c1:
        st.slider(
            t("kv.dec.step", T=T),
            1,
            T,
            value=K.default_step(T),  # half way, as a link without kv_step opens
            key="kv_step",
            bind="query-params",
            on_change=keep,
            args=("kv_step",),
        )
    with c2:
        st.button(
            t("kv.dec.next"),
            key="kv_next",
            on_click=next_token,
            args=(T,),
            icon=":material/skip_next:",
            disabled=step >= T,
        )
    with c3:
        st.selectbox(
            t("kv.dec.head"),
            list(range(h)),
            key="kv_head",
            bind="query-params",
            on_change=keep,
            args=("kv_head",),
            width=160,  # a head number: the step slider takes the rest of the row
        )
    view = shared("kv_decode", (*SK, kv_heads, step, head), lambda: K.decode_view(s, kv_heads, step, head))
    shown = K.decode_shown(view)
    if view.shared_mask_differs:
        st.info(t("kv.dec.mask_note", mask=t(f"mask.{view.shared_mask}")), icon=":material/info:")
    now = t(shown.now.key, tok=plain(view.new_token, 40), **shown.now.kw())  # a typed token: outside :small[]
    st.markdown(f"{now}\n\n:small[:gray[{say(shown.q_row)}]]")  # the step and what the first chart shows: one
    show_heatmap(view.q_row, key="kv_q_row", t=t)
    # The charts one under the other, no columns (each container is one more thing a step re-sends; a phone
    # stacks them anyway): the cached row and the full pass's row, the two masks' rows, meet column under column.
    st.caption(say(*shown.k_caption))
    show_heatmap(shown.k_cache, key="kv_k_cache", t=t)
    st.caption(say(*shown.v_caption))
    show_heatmap(shown.v_cache, key="kv_v_cache", t=t)
    st.caption(say(shown.scores))
    show_heatmap(view.scores_row, key="kv_scores_row", t=t)
    st.caption(say(shown.weights))
    show_heatmap(view.weights_row, key="kv_weights_row", t=t)
    st.caption(say(shown.full_weights))
    show_heatmap(view.full_weights_row, key="kv_full_weights_row", t=t)
    show_table_in_text(f":small[:gray[{say(shown.output)}]]", worded(shown.output_table))  # one element
    check(view.equal, shown.equal)
    # The step's multiply-adds (title, one row of with / without / saved), the steps so far, the first mask's title
    # and caption: one element. Three metric cards in a row container were five elements a step re-sent (A/B in
    # benchmarks/README.md, 2026-12-05: 86 -> 73 ms a step at the defaults).
    show_table_in_text(
        say(shown.cost_title),
        {t(label): [value] for label, value in shown.costs},
        f":small[:gray[{say(shown.so_far)}]]\n\n{t('kv.dec.mask.title')}\n\n:small[:gray[{say(shown.bottom_right)}]]",
        label=say(shown.cost_title).replace("**", ""),  # what a screen reader calls the table: no markdown
    )
    show_heatmap(view.mask_row, key="kv_mask_row", t=t)
    st.caption(t("kv.dec.mask.top_left"))
    show_heatmap(view.top_left_row, key="kv_top_left_row", t=t)


# ------------------------------------------------------------------ 3. memory against context length
def memory_section() -> None:
    # heading, formula and what its letters are: one element; the two choices in one row container
    st.markdown(f"### {t('kv.mem.title')}\n\n$${t('kv.mem.latex')}$$\n\n:small[:gray[{t('kv.mem.formula')}]]")
    c1 = c2 = st.container(horizontal=True)
    # The model's published name and a context length with separators (ui/choice.py): the URL keeps the slug
    # and the number, the reader sees "Llama-3-8B" and "131,072".
    labelled(
        "selectbox",
        "kv_model",
        K.MODEL_CHOICES,
        lambda m: K.PRESET_SLUGS[m].name if m in K.PRESET_SLUGS else t("kv.mem.ours_label"),
        t("kv.mem.model"),
        default=K.URL_KEY_BY_NAME["kv_model"].default,  # the link omits the default, as the lesson reads it
        host=c1,
        on_change=lambda: keep("kv_model"),
        help=t("kv.mem.model.help"),
    )
    labelled(
        "selectbox",
        "kv_context",
        K.CONTEXT_CHOICES,
        lambda n: f"{n:,}",
        t("kv.mem.context"),
        default=K.URL_KEY_BY_NAME["kv_context"].default,
        host=c2,
        on_change=lambda: keep("kv_context"),
    )
    live(lambda c, values: memory_live(c, values["kv_model"], values["kv_context"]))  # as the widgets show them


def memory_live(c: PageContext, model: str, context: int) -> None:
    s, SK = c.settings, c.key
    view = shared("kv_memory", (*SK, kv_heads, model, context), lambda: K.memory_view(s, kv_heads, model, context))
    shown = K.memory_shown(view)
    sep = "" if ctx.lang == "zh" else " "  # Chinese sentences follow each other without a space
    st.markdown(say(shown.chart) + ("" if shown.limit is None else sep + say(shown.limit)))
    chart = lines.memory_chart(view, t)
    show_lines(chart, name=f"kv-cache-memory-{model}", key="kv_memory_chart", t=t, title=t("kv.mem.title"))
    st.markdown(say(shown.table_title))
    table(shown.table)
    st.caption(t("kv.mem.sources") + " " + shown.sources)
    st.markdown(say(shown.ours))
    check(shown.check_ok, shown.check)


# ------------------------------------------------------------------ 4. live timing, on a click
TICKET = "kv_time_ticket"  # this session's place in the server's heavy-work queue (ui/work_queue.py)


def timing_work(kv: int, n: int) -> Callable[[Control], K.TimingResult]:
    """The measurement at these settings, for the queue: it reports progress and may be stopped between steps."""

    def work(control: Control) -> K.TimingResult:
        return K.measure_generation(s, kv, n, on_progress=control.progress, check=control.check)

    return work


def timing_section() -> None:
    st.subheader(t("kv.time.title"))
    st.write(t("kv.time.about"))
    st.slider(
        t("kv.time.tokens"),
        K.GEN_MIN,
        K.GEN_MAX,
        value=key_default(K.URL_KEYS, "kv_gen", {}),  # as a link without kv_gen opens
        key="kv_gen",
        bind="query-params",
        on_change=keep,
        args=("kv_gen",),
    )
    gen = v["kv_gen"]  # the widget shows the settled value
    timing_key = (d, h, kv_heads, s.seed, gen)
    # This session's timings by (d, h, kv_heads, seed, n), and this one once the queue has run it.
    job, results, loads = work_queue.collect_into(TICKET, t, "kv_timings", "kv_timing_loads", lambda j: j.key[1:])
    work_queue.show_outcome(job, t)
    work_queue.ask_button(
        TICKET,
        t("kv.time.again") if timing_key in results else t("kv.time.run"),
        "kv_time_run",
        work_queue.job(("kv-timing", *timing_key), timing_work(kv_heads, gen), "timing"),
    )
    work_queue.watch(TICKET, t, running=lambda job: t("kv.time.running", n=job.key[-1]))
    res = results.get(timing_key)
    if res is None:
        st.caption(t("kv.time.none"))
        return
    chart = lines.timing_chart(res, t)
    show_lines(
        chart,
        name=f"kv-cache-timing-d{d}-h{h}-kv{kv_heads}-n{gen}",
        key="kv_timing_chart",
        t=t,
        title=t("kv.time.title"),
    )
    shown = K.timing_shown(res)
    for column, (label, value) in zip(st.columns(3), shown.metrics):
        column.metric(say(label), value, border=True)
    st.markdown(say(shown.fit))
    st.caption(say(shown.meta))
    load = work_queue.load_note(loads.get(timing_key), t)
    if load is not None:
        st.caption(load)
    st.info(t("kv.time.why"), icon=":material/lightbulb:")


SECTION_BODIES = {
    "sharing": sharing_section,
    "decode": decode_section,
    "memory": memory_section,
    "timing": timing_section,
}
with tabs[open_id]:
    SECTION_BODIES[open_id]()
