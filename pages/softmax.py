"""Softmax up close: why ÷√d_k, why subtract the max, and how a fused kernel gets the same numbers
tile by tile.

Thin: the shared settings (ctx) -> the page's URL values, declared in lessons.softmax.URL_KEYS and settled by
ui.url_state (a bad value shows a notice here and is corrected in the URL) -> the lesson's functions (computed once
per inputs for the whole server, ui.cache.shared) -> its notes and tables (text keys and numbers, worded here by
ui.words.word), one line chart (ui.linecharts.show_lines, built by charts.lines) and heatmaps handed as data to
ui.heatmaps.show_heatmap. Three sections as lazy tabs, the open one in the URL (`soft_tab`).
"""

import streamlit as st

import i18n
from charts import lines
from core.limits import TILE_BLOCK_MAX, TILE_BLOCK_MIN
from i18n import plain
from lessons import softmax as L
from lessons.url import key_default
from ui import url_state
from ui.cache import shared
from ui.heatmaps import show_heatmap
from ui.linecharts import show_lines
from ui.live_part import live_part
from ui.sections import lazy_tabs
from ui.shell import PageContext, page_context
from ui.tables import show_table_in_text
from ui.words import word

ctx = page_context()
t = ctx.t

SECTIONS = L.SECTIONS  # soft_tab
KEPT = "soft_kept"  # the page's values while the widgets showing them are in a closed tab
# How each of the lesson's notes is shown: (Streamlit element, icon); "caption" has no icon.
NOTES = {
    "softmax.scale.blocked": ("warning", ":material/block:"),
    "softmax.scale.d_k_1": ("info", ":material/info:"),
    "softmax.scale.order": ("info", ":material/lightbulb:"),
    "softmax.scale.var_back": ("info", ":material/functions:"),
    "softmax.scale.var_off": ("info", ":material/info:"),
    "softmax.scale.var_d_k_1": ("info", ":material/info:"),
    "softmax.scale.saturated": ("info", ":material/lightbulb:"),
    "softmax.scale.not_saturated": ("caption", None),
    "softmax.scale.try_big": ("caption", None),
    "softmax.scale.grad": ("caption", None),
    "softmax.scale.grad_one_key": ("caption", None),
    "softmax.scale.order_broken": ("warning", ":material/info:"),
    "softmax.scale.check": ("success", ":material/check_circle:"),
    "softmax.max.scores_inf": ("error", ":material/error:"),
    "softmax.max.naive_broken": ("error", ":material/error:"),
    "softmax.max.sum_overflow": ("error", ":material/error:"),
    "softmax.max.sum_underflow": ("error", ":material/error:"),
    "softmax.max.naive_ok": ("info", ":material/info:"),
    "softmax.max.safe_ok": ("success", ":material/check_circle:"),
    "softmax.max.safe_off": ("warning", ":material/warning:"),
    "softmax.tiles.equal": ("success", ":material/check_circle:"),
    "softmax.tiles.not_equal": ("error", ":material/error:"),
}


def kept() -> dict:
    return url_state.kept(KEPT)


def settle(c: PageContext) -> dict:
    """The page's values, valid for the settings of `c`, in session state before any widget is drawn
    (ui.url_state.settle: a link's bad value gets a notice and is corrected in the URL)."""
    if kept().pop("restart", False):
        st.session_state["soft_step"] = kept()["soft_step"] = 1
    return url_state.settle(L.WIDGET_KEYS, L.env_of(c.settings, c.custom_text, c.run()), t=t, store=KEPT)


def keep_value(key: str) -> None:
    url_state.keep_value(KEPT, key)


def blocks_changed(key: str) -> None:
    """A new block size makes a new walk: start it at step 1 (settle() moves the step before its slider, now a
    new widget with a new range, is drawn)."""
    keep_value(key)
    kept()["restart"] = True


def move_step(delta: int, n: int) -> None:
    st.session_state["soft_step"] = kept()["soft_step"] = L.moved_step(st.session_state.get("soft_step"), delta, n)


def head_control(where, s) -> None:
    where.selectbox(
        t("softmax.ctl.head"),
        L.head_options(s),
        key="soft_head",
        bind="query-params",
        on_change=keep_value,
        args=("soft_head",),
    )


def row_control(where, s) -> None:
    where.slider(
        t("softmax.ctl.row"),
        *L.key_range("soft_row", s),
        value=key_default(L.URL_KEYS, "soft_row", L.env_of(s)),  # the last row, as a link without soft_row opens
        key="soft_row",
        bind="query-params",
        help=t("softmax.ctl.row.help"),
        on_change=keep_value,
        args=("soft_row",),
    )


def note(text) -> None:
    """One of the lesson's notes (a text key and its numbers), worded and shown as NOTES says."""
    notes([text])


def notes(texts, lead: tuple[str, ...] = ()) -> None:
    """The lesson's notes in order, each as NOTES says; captions in a row (`lead`, worded, first) go out as ONE
    caption element, a paragraph each (each element a step re-sends costs the browser a render)."""
    captions = list(lead)
    for text in texts:
        kind, icon = NOTES[text.key]
        if kind == "caption":
            captions.append(word(text, t))
            continue
        if captions:
            st.caption("\n\n".join(captions))
            captions = []
        getattr(st, kind)(word(text, t), icon=icon)
    if captions:
        st.caption("\n\n".join(captions))


def widget_row():
    """Widgets side by side in ONE container (columns would be one container and one more per column, each
    re-sent on a step)."""
    return st.container(horizontal=True, vertical_alignment="bottom")


def small(text: str) -> str:
    """Caption style inside a markdown element (one element instead of a markdown and a caption)."""
    return f":small[:gray[{text}]]"


def worded(columns) -> dict:
    """One of the lesson's tables (headers and cells: text keys or numbers) in the reader's language."""
    return {word(c.header, t): [word(x, t) for x in c.cells] for c in columns}


st.markdown(f"# {t('page.softmax')}\n\n{t('softmax.intro')}")  # title and intro: one element, which no step changes
settle(ctx)
open_id, tabs = lazy_tabs("soft_tab", SECTIONS, lambda sid, lang: i18n.t(f"softmax.tab.{sid}", lang), ctx.lang)


def live(draw) -> None:
    """The rest of a section, below what no step changes, in the page's live part (ui/live_part.py): a step of seq_len
    or the seed reruns it alone, and none of what is above it is sent again. Rerun alone, the page's values are
    settled again for the new settings first (a row or a step past the new T is moved back). The controls whose
    range follows T (the row, the tile step) are drawn inside it."""

    def part(c: PageContext, alone: bool) -> None:
        if alone:
            settle(c)
        draw(c)

    live_part(part, ctx)


# ---------------------------------------------------------------- 1. why divide by sqrt(d_k)
def scale_section() -> None:
    live(scale_live)


def scale_live(c: PageContext) -> None:
    s, SK, run = c.settings, c.key, c.run()
    vc = shared("soft_variance", (s.d_k,), lambda: L.variance_curve(s))  # the same draws for every seed
    # heading, formula and how the chart was drawn: one element (each element a step re-sends costs a render)
    formula = (
        r"\operatorname{Var}(q\cdot k)=\sum_{i=1}^{d_k}\operatorname{Var}(q_i k_i)=d_k"
        r"\qquad\operatorname{Var}\!\left(\frac{q\cdot k}{\sqrt{d_k}}\right)=1"
    )
    st.markdown(
        f"### {t('softmax.scale.title')}\n\n$${formula}$$\n\n"
        + small(t("softmax.scale.variance", draws=vc.draws, seed=vc.seed))
    )
    show_lines(lines.variance_chart(vc, t), name=f"qk-variance-seed{vc.seed}", key="soft_variance_chart", t=t)
    rv = shared("soft_run_variance", SK, lambda: L.run_variance(s, run, c.custom_text))
    # what the chart measured at this d_k, what this run's variances are and their table: one element
    before = small(word(L.variance_now(vc), t)) + "\n\n" + t("softmax.scale.run")
    show_table_in_text(before, worded(L.variance_table(rv)))
    note(L.variance_note(rv, vc.draws))
    st.markdown(t("softmax.scale.row"))
    widgets = widget_row()
    head_control(widgets, s)
    row_control(widgets, s)
    head, row = st.session_state["soft_head"], st.session_state["soft_row"]
    sr = shared("soft_scale_row", SK + (head, row), lambda: L.scale_row(s, head, row, run, c.custom_text))
    st.caption(t("softmax.ctl.row_token", row=row, token=plain(sr.token)))
    show_heatmap(sr.heatmap, key="soft_scale_hm", t=t)
    hint = None
    if L.wants_hint(s, sr):  # d_k 512 at the same T, mask and seed: one run more, shared by the whole server
        hint = shared("soft_big_hint", (s.seq_len, s.mask, s.seed, c.custom_text), lambda: L.big_hint(s, c.custom_text))
    # the table, what it shows and the captions among the notes that follow it: one element; then the other notes
    rest = list(L.scale_notes(sr, hint))
    said = [t("softmax.scale.table_about", max_entropy=sr.max_entropy)]
    while rest and NOTES[rest[0].key][0] == "caption":
        said.append(word(rest.pop(0), t))
    show_table_in_text("", worded(L.scale_table(sr)), "\n\n".join(small(x) for x in said))
    notes(rest)


# ---------------------------------------------------------------- 2. why subtract the max
def max_section() -> None:
    st.markdown(  # heading, intro and the three formulas: one element
        f"### {t('softmax.max.title')}\n\n{t('softmax.max.intro')}\n\n"
        + "\n".join(
            [  # the words in the reader's language, the formulas in LaTeX
                f"- **{t('softmax.max.col.naive')}**: " + r"$e^{s_j} \big/ \sum_k e^{s_k}$",
                f"- **{t('softmax.max.col.safe')}**: " + r"$e^{s_j-m} \big/ \sum_k e^{s_k-m},\; m=\max_k s_k$",
                f"- **{t('softmax.max.col.online')}**: " + r"$m_{\text{new}}=\max(m, s_j),\;"
                r"l\leftarrow l\,e^{m-m_{\text{new}}}+e^{s_j-m_{\text{new}}},\; m\leftarrow m_{\text{new}}$",
            ]
        )
    )
    live(max_live)


def max_live(c: PageContext) -> None:
    s, SK, run = c.settings, c.key, c.run()
    widgets = widget_row()  # inside the live part: the row's range follows T
    head_control(widgets, s)
    row_control(widgets, s)
    chosen = {"soft_head": st.session_state["soft_head"], "soft_row": st.session_state["soft_row"]}
    widgets.select_slider(
        t("softmax.ctl.gain"),
        L.GAINS,
        value=key_default(L.URL_KEYS, "soft_gain", {**L.env_of(s, c.custom_text, run), **chosen}),
        key="soft_gain",
        bind="query-params",
        help=t("softmax.ctl.gain.help"),
        on_change=keep_value,
        args=("soft_gain",),
    )
    if s.seq_len > L.WHOLE_ROW_UP_TO:  # a long row: its tables show the keys that tell the story, or every key
        widgets.toggle(
            t("softmax.ctl.all_keys"),
            key="soft_all_keys",
            bind="query-params",
            help=t("softmax.ctl.all_keys.help"),
            on_change=keep_value,
            args=("soft_all_keys",),
        )
    head, row, gain = st.session_state["soft_head"], st.session_state["soft_row"], st.session_state["soft_gain"]
    every = bool(st.session_state["soft_all_keys"])
    mr = shared("soft_max_row", SK + (head, row, gain), lambda: L.max_row(s, head, row, gain, run, c.custom_text))
    st.caption(t("softmax.ctl.row_token", row=row, token=plain(mr.token)))  # a typed token: not inside :small[]
    st.markdown(f"{word(L.row_text(mr), t)}\n\n" + small(word(L.breaks_from(mr), t)))  # one element
    if mr.row_blocked:
        st.warning(t("softmax.max.blocked"), icon=":material/block:")
    for dt in mr.dtypes:
        st.markdown(f"#### {dt.dtype}")
        for text in L.dtype_notes(mr, dt):
            note(text)
        shown = L.telling_keys(mr, dt, every)
        about = L.shown_text(shown)
        # which keys a long row's table shows: above the table in its element (a table caption would scroll
        # sideways with the table on a phone)
        show_table_in_text(small(word(about, t)) if about else "", worded(L.dtype_table(mr, dt, shown)))
    st.caption(t("softmax.max.table_about"))


# ---------------------------------------------------------------- 3. tile by tile
def tiles_section() -> None:
    formula = (
        r"\begin{gathered}m_{\text{new}}=\max\!\big(m_{\text{old}},\operatorname{rowmax}S\big),\quad "
        r"P=e^{S-m_{\text{new}}}\\ l\leftarrow e^{m_{\text{old}}-m_{\text{new}}}\,l+\operatorname{rowsum}P\\ "
        r"\text{acc}\leftarrow e^{m_{\text{old}}-m_{\text{new}}}\,\text{acc}+PV,\quad O=\text{acc}/l"
        r"\end{gathered}"
    )
    st.markdown(f"### {t('softmax.tiles.title')}\n\n{t('softmax.tiles.intro')}\n\n$${formula}$$")  # one element
    widgets = widget_row()
    head_control(widgets, ctx.settings)
    blocks = {
        "min_value": TILE_BLOCK_MIN,
        "max_value": TILE_BLOCK_MAX,
        "value": key_default(L.URL_KEYS, "soft_bq", L.env_of(ctx.settings)),  # soft_bk's too
        "help": t("softmax.ctl.blocks.help"),
    }
    widgets.slider(
        t("softmax.ctl.bq"), key="soft_bq", bind="query-params", on_change=blocks_changed, args=("soft_bq",), **blocks
    )
    widgets.slider(
        t("softmax.ctl.bk"), key="soft_bk", bind="query-params", on_change=blocks_changed, args=("soft_bk",), **blocks
    )
    live(tiles_live)


def tiles_live(c: PageContext) -> None:
    s, SK, run = c.settings, c.key, c.run()
    head, bq, bk = st.session_state["soft_head"], st.session_state["soft_bq"], st.session_state["soft_bk"]
    walk = shared("soft_walk", SK + (head, bq, bk), lambda: L.tile_walk(s, head, bq, bk, run, c.custom_text))
    n = walk.n_steps
    if n > 1:
        prev = slider = nxt = widget_row()  # one container, not three columns
        step = int(st.session_state["soft_step"])
        prev.button(
            t("softmax.ctl.prev"),
            key="soft_prev",
            on_click=move_step,
            args=(-1, n),
            disabled=step <= 1,
            icon=":material/chevron_left:",
        )
        slider.slider(
            t("softmax.ctl.step"), 1, n, key="soft_step", bind="query-params", on_change=keep_value, args=("soft_step",)
        )
        nxt.button(
            t("softmax.ctl.next"),
            key="soft_next",
            on_click=move_step,
            args=(1, n),
            disabled=step >= n,
            icon=":material/chevron_right:",
        )
    else:
        st.caption(t("softmax.ctl.one_step"))
    step = min(max(int(st.session_state["soft_step"]), 1), n)
    # The step's view (7 heatmaps' data), once per step for the server: a class steps through the same walk.
    v = shared("soft_step_view", SK + (head, bq, bk, step), lambda: L.tile_step(walk, step))
    st.markdown(word(L.step_text(walk, v), t) + "\n\n" + small(t("softmax.tiles.scores_about")))
    show_heatmap(v.scores, key="soft_scores_hm", t=t)
    # the tile's P, then its rows' table, one under the other: no columns (each container is one more thing a step
    # re-sends; a phone stacks them anyway)
    show_heatmap(v.tile_p, key="soft_tile_p_hm", t=t)
    # title, table, what the step writes and what the next chart shows: one element (each element a step re-sends
    # costs a render); a step of T leaves it as it was (the browser does not lay its table out again)
    writes = [t("softmax.tiles.writes", i=v.tile[0])] if v.current.writes_o else []
    after = "\n\n".join(small(x) for x in (*writes, t("softmax.tiles.output_about")))
    show_table_in_text(f"**{t('softmax.tiles.rows_title')}**", worded(L.tile_rows_table(walk, v)), after)
    show_heatmap(v.output_so_far, key="soft_output_hm", t=t)
    if v.is_last:
        res = shared("soft_result", SK + (head, bq, bk), lambda: L.tile_result(s, head, bq, bk, run, c.custom_text))
        show_heatmap(res.side_by_side, key="soft_result_hm", t=t)
        note(L.result_note(res, s.num_heads))
    traffic = t("softmax.tiles.traffic", **v.traffic_so_far)
    if not v.is_last:
        traffic += " " + t("softmax.tiles.result_later", n=n)

    rows = shared("soft_memory", (s.seq_len, s.d_k, s.num_heads, bq, bk), lambda: L.memory_table(s, bq, bk))
    show_table_in_text(  # the traffic so far, then the heading, what the table counts, the table and what it shows:
        # one element (the memory table changes with T as the traffic's sentence does)
        small(traffic)
        + f"\n\n### {t('softmax.mem.title')}\n\n"
        + small(t("softmax.mem.about", d_k=s.d_k, h=s.num_heads, bq=bq, bk=bk)),
        worded(L.memory_columns(rows, s.num_heads)),
        "\n\n".join(word(x, t) for x in L.traffic_notes(rows, s.d_k)),
    )


SECTION_BODIES = {"scale": scale_section, "max": max_section, "tiles": tiles_section}
with tabs[open_id]:
    SECTION_BODIES[open_id]()
