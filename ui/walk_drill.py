"""The walkthrough's drill-down: one cell's story, scores to mix (lessons/walkthrough/story.py), below the page.

app.py draws it in the page's tail fragment, above the downloads section (ui/downloads.py): a step of a setting reruns
that fragment only while the story is open. Closed, it is the same after the step and is not sent again (a closed
expander sent again is rendered again by the browser, ~3 ms of every step of the steps that tell the story:
benchmarks/README.md, 2026-12-05, "The cell's story below the page"). Its own choices (the cell, its charts) rerun
that fragment alone, not the page above it. The one-step view of a step that tells the story (W.DRILL_STEPS) and the
all-steps view show it; the page (pages/walkthrough.py) settles its URL keys before anything is drawn.
"""

from __future__ import annotations

import streamlit as st

from lessons import walkthrough as W
from lessons.heatmap import Heatmap
from lessons.url import key_default
from ui import walk_nav
from ui.cache import shared
from ui.heatmaps import show_heatmap
from ui.shell import PageContext, current_settings
from ui.tables import show_table
from ui.words import word

OPEN_KEY = "walk_drill"  # the expander's open state, bound to the URL
# A class's follow that changes one of these reruns the story's fragment even while it is closed: it opens or closes
# it, or shows or hides it (the view, the step). The cell's keys only matter open (is_open), and move with T (the
# default query is the last), so a followed step of T does not send the closed story again.
RERUN_KEYS = frozenset((OPEN_KEY,)) | walk_nav.SHOWN_KEYS
FOLLOW = "walk_follow"  # the cell a click on the weights chose, applied before the cell's selectboxes exist


def shown() -> bool:
    """The chosen view and step tell the story (valid once the page has settled its URL keys)."""
    view = walk_nav.view()
    return view == "all" or (view == "step" and walk_nav.step().name in W.DRILL_STEPS)


def is_open() -> bool:
    """The story is drawn and open: a step of a setting must redraw it with the new run."""
    return shown() and bool(st.session_state.get(OPEN_KEY))


def section() -> None:
    """One cell's story in a lazy expander: closed, it is one element; open, its selectors, formulas and table cost
    the browser as much as the rest of the step (measured: a step at 512/16/32 ~40% faster without them), so they
    exist only while it is open. Open/closed is in the URL (walk_drill)."""
    if not shown():
        return
    ctx = PageContext(current_settings())
    box = st.expander(
        ctx.t("walk.drill.title"), key=OPEN_KEY, on_change="rerun", bind="query-params", icon=":material/my_location:"
    )
    if not box.open:
        return
    # A click on the weights (show_heatmap's Selection, seen after the selectboxes were drawn) was kept and the app
    # run again: now, before the selectboxes exist, it becomes the followed cell.
    if FOLLOW in st.session_state:
        st.session_state["walk_i"], st.session_state["walk_j"] = st.session_state.pop(FOLLOW)
    with box:
        _inside(ctx)


def _chart(hm: Heatmap, key: str, ctx: PageContext):
    return show_heatmap(hm, key=key, t=ctx.t, compact=True)


def _inside(ctx: PageContext) -> None:
    t, run, key = ctx.t, ctx.run(), ctx.key
    h, T = ctx.settings.num_heads, ctx.settings.seq_len
    st.caption(t("walk.drill.help"))
    cell = st.container(horizontal=True)  # the three selectors in one container, not four
    head = cell.selectbox(t("walk.drill.head"), list(range(h)), key="walk_head", bind="query-params")
    # Each box starts at its key's declared default: the link leaves out exactly the value a link without it opens at.
    last = key_default(W.URL_KEYS, "walk_i", {"settings": ctx.settings})
    i = cell.selectbox(t("walk.drill.i"), list(range(T)), index=last, key="walk_i", bind="query-params")
    j = cell.selectbox(t("walk.drill.j"), list(range(T)), key="walk_j", bind="query-params")
    head, i, j = int(head or 0), int(i or 0), int(j or 0)
    # The cell's three charts (clickable weights, q and k, the mix of V) on request: the story itself is
    # text and a table, which the browser draws for free; three more charts would triple a redraw.
    charts = st.toggle(t("walk.drill.charts"), key="walk_cellcharts", bind="query-params")
    story = shared("walk.story", key + (head, i, j), lambda: W.cell_story(run, head, i, j))
    if charts:
        left, right = st.columns([2, 3], gap="medium")
        with left:
            st.caption(t("walk.drill.chart", head=head))
            picked = _chart(
                shared("walk.drill", key + (head, i, j), lambda: W.drill_heatmap(run, head, i, j)), "walk_click", ctx
            )
            if picked is not None and (picked.row, picked.col) != (i, j):  # follow the clicked cell
                st.session_state[FOLLOW] = (picked.row, picked.col)  # applied before the selectboxes
                st.rerun()
        with right:
            _story_text(story, charts, ctx, run.tokens, masked=run.mask is not None)
    else:
        _story_text(story, charts, ctx, run.tokens, masked=run.mask is not None)
    # One static HTML table (ui/tables.py), scrolling sideways on a phone; its columns built once per cell and
    # language for every session.
    columns = shared(
        "walk.story_table",
        key + (head, i, j),
        lambda: dict(zip([t(f"walk.drill.col.{k}") for k in W.STORY_COLUMNS], zip(*W.story_rows(story, run.tokens)))),
    )
    show_table(columns)
    st.markdown(word(W.summary_text(story, run.tokens), t))
    if charts:
        st.caption(t("walk.drill.mixchart"))
        _chart(shared("walk.mix", key + (head, i), lambda: W.mix_heatmap(story, run.tokens)), "walk_mix", ctx)
    st.caption(t("walk.drill.check", diff=story.check))


def _story_text(story: W.CellStory, charts: bool, ctx: PageContext, tokens, masked: bool) -> None:
    """Steps 1-5 of one cell's story: formulas with its numbers (the q/k chart only with the charts on). Its
    sentences and formulas go out as few markdown elements as the captions and the chart between them allow (each
    element costs the browser a render on every step while the story is open)."""
    t = ctx.t
    run_of: list[str] = []  # the sentences and formulas since the last caption or chart

    def flush() -> None:
        if run_of:
            st.markdown("\n\n".join(run_of))
            run_of.clear()

    for part in W.story_parts(story, tokens, masked=masked):
        if part.kind == "vectors" and charts:
            flush()
            st.caption(t("walk.drill.vectors"))
            cell = ctx.key + (story.head, story.i, story.j)
            _chart(shared("walk.qk", cell, lambda: W.vectors_heatmap(story)), "walk_qk", ctx)
        elif part.kind == "latex":
            run_of.append(f"$$\n{part.body}\n$$")
        elif part.kind == "caption":
            flush()
            st.caption(part.body)
        elif part.kind != "vectors":
            run_of.append(f"**{word(part.body, t)}**" if part.kind == "title" else word(part.body, t))
    flush()
