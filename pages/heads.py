"""Heads and shapes: what changes when h changes (the shapes), and why the cost does not.

Thin: the shared settings (ctx) -> the page's keys (lessons.heads.URL_KEYS, settled by ui.url_state) ->
lessons.heads (plain data; heatmaps as lessons.heatmap.Heatmap) -> text, tables, heatmaps
(ui.heatmaps.show_heatmap) and the cost/timing bar and line charts (ui.heads_charts)."""

import streamlit as st
import torch

import i18n
from charts import diagrams
from core.accounting import totals_over_heads
from lessons import heads as H
from lessons.heads import MAX_PICK, PER_PAGE, page_of_heads
from lessons.url import names
from ui import heads_charts, url_state, work_queue
from ui.cache import shared
from ui.heatmaps import show_heatmap
from ui.linecharts import show_lines
from ui.live_part import live_part
from ui.sections import lazy_tabs
from ui.shell import PageContext, page_context
from ui.tables import show_table, show_table_in_text
from ui.words import word

ctx = page_context()
t = ctx.t
# d_model and h (a step of either reruns the whole page); what a step of seq_len or the seed changes is read in the
# page's live part, from its PageContext (ui/live_part.py)
d, h = ctx.settings.d_model, ctx.settings.num_heads
TIMING_REPEATS = 5
KEPT = "heads_kept"  # the page's values while the widgets showing them are in a closed tab
WIDGET_KEYS = tuple(k for k in H.URL_KEYS if k.name != "heads_tab")  # the tab id is ui.sections.lazy_tabs' own
LINKED = names(WIDGET_KEYS)


def head_name(i: int) -> str:
    return f"{t('common.head')} {i}"


def settle(s) -> dict:
    """The grid's page and picked heads and the sliced head, valid for settings `s` before any widget is drawn
    (ui.url_state.settle: a link's bad value gets a notice; a value new settings put out of range moves quietly).
    A new d_model or h starts the page and the pick again from the first page of heads."""
    if st.session_state.get("heads_pick_for") != (d, h) and "heads_pick_for" in st.session_state:
        url_state.forget(KEPT, H.NEW_MODEL_KEYS)
    st.session_state["heads_pick_for"] = (d, h)
    return url_state.settle(WIDGET_KEYS, {"settings": s}, t=t, store=KEPT)


def keep(key: str) -> None:
    url_state.keep_value(KEPT, key)


def page_changed() -> None:
    st.session_state["heads_pick"] = page_of_heads(h, st.session_state.get("heads_page") or 0, PER_PAGE)
    keep("heads_page")
    keep("heads_pick")


def focus_values(c: PageContext) -> torch.Tensor:
    """(h,) each head's focus (lessons.heads.head_focus), shared by the grid and the one-vs-many sections."""
    return shared("heads_focus_values", c.key, lambda: H.head_focus(c.run().trace.weights[0]))


def box_titles(boxes, mask: str) -> dict[str, str]:
    titles = {b.name: t(f"heads.box.{b.name}") for b in boxes if b.name != "masked_scores"}
    titles["masked_scores"] = t("heads.box.masked_scores", mask=t(f"mask.{mask}"))  # worded, not the URL id
    return titles


st.title(t("page.heads"))
st.write(t("heads.intro"))
values = settle(ctx.settings)
# One section at a time (ui/sections.py): each draws one or two charts, not the page's nine.
SECTIONS = H.SECTIONS
open_id, tabs = lazy_tabs("heads_tab", SECTIONS, lambda sid, lang: i18n.t(f"heads.tab.{sid}", lang), ctx.lang)


def live(draw) -> None:
    """The open section in the page's live part (ui/live_part.py), under the sentence that says the settings: a step
    of seq_len or the seed reruns it alone, and the title and the section chooser are not sent again. Rerun alone
    (a step, or a widget inside it), the page's values are settled again first. `draw(c, values, prev)` reads the
    settings from `c`; `prev` is the h shown before the latest change of h (tracked on every run, the live part's
    alone too, so the shapes section can say what changed)."""

    def part(c: PageContext, alone: bool) -> None:
        s = c.settings
        st.info(t("heads.now", d_model=d, h=h, d_k=s.d_k, T=s.seq_len), icon=":material/view_column:")
        prev, st.session_state["heads_last"], st.session_state["heads_prev_h"] = H.track_h(
            st.session_state.get("heads_last"), st.session_state.get("heads_prev_h"), d, s.seq_len, h
        )
        draw(c, settle(s) if alone else values, prev)
        # The grid's page and picks and the sliced head are in the link a student shares (their widgets show
        # worded options, so none is bound to it: Streamlit would write the words), at their default left out.
        url_state.relink(WIDGET_KEYS, KEPT, {"settings": s}, exact=LINKED)

    live_part(part, ctx)


# ---------------------------------------------------------------- 1. shape flow
def shapes_section(c: PageContext, values: dict, prev: int | None) -> None:
    T = c.settings.seq_len
    # the heading and what the diagram shows: one element (each element a step re-sends costs the browser a render)
    st.markdown(f"### {t('heads.flow.title')}\n\n:small[:gray[{t('heads.flow.about')}]]")
    boxes = H.shape_flow(d, h, T, prev_h=prev)
    titles = box_titles(boxes, c.settings.mask)
    if prev:
        st.success(t("heads.flow.changed", prev=prev, h=h), icon=":material/compare_arrows:")
    else:
        st.caption(t("heads.flow.try"))
    st.html(
        diagrams.shape_flow_html(
            boxes,
            titles,
            h=h,
            legend_depends=t("heads.flow.legend.depends"),
            legend_same=t("heads.flow.legend.same"),
            legend_changed=t("heads.flow.legend.changed", prev=prev) if prev else "",
            was=t("heads.flow.was", sizes="{sizes}"),
            numbers=t("heads.flow.numbers", n="{n}"),
        )
    )


# ---------------------------------------------------------------- 2. every head
def heads_section(c: PageContext, values: dict, prev: int | None) -> None:
    SK, T, run = c.key, c.settings.seq_len, c.run()
    weights = run.trace.weights[0]  # (h, T, T)
    zrange = shared("heads_range", SK, lambda: H.data_range(weights))  # over all heads, even those not drawn
    about = t("heads.grid.about", lo=zrange[0], hi=zrange[1], h=h)
    st.markdown(f"### {t('heads.grid.title')}\n\n:small[:gray[{about}]]")  # one element
    if h > PER_PAGE:

        def page_label(p: int) -> str:
            first, last = H.heads_on_page(h, p)
            return t("common.heads_range", first=first, last=last, h=h)

        st.selectbox(
            t("common.page_of_heads"),
            list(range(H.head_pages(h))),
            key="heads_page",
            format_func=page_label,
            on_change=page_changed,
            help=t("heads.grid.page.help"),
        )
    picks = st.multiselect(
        t("heads.grid.pick"),
        list(range(h)),
        key="heads_pick",
        format_func=head_name,
        max_selections=MAX_PICK,
        help=t("heads.grid.pick.help", n=MAX_PICK, d=min(h, PER_PAGE)),
        on_change=keep,
        args=("heads_pick",),
    )
    picks = sorted(i for i in picks if 0 <= i < h)
    focus = focus_values(c)
    if h > PER_PAGE:
        st.caption(t("heads.grid.overview", h=h, u=1 / T))
        st.html(
            diagrams.focus_html(
                focus, picks, uniform=1 / T, axis_title=t("heads.grid.focus_axis"), head_label=t("common.head")
            )
        )
    if picks:
        grid = shared(
            "heads_grid",
            SK + (tuple(picks),),
            lambda: H.heads_heatmap(f"weights-d{d}-h{h}-T{T}", weights, picks, run.tokens, vrange=zrange),
        )
        # 16 heads of 32 x 32 weights as float32 pass the 64 KB a step may cost: int16 codes of the printed numbers
        show_heatmap(grid, key="heads_grid", t=t, compact=len(picks) * T * T * 4 > 48_000)
    else:
        st.warning(t("heads.grid.empty"), icon=":material/touch_app:")


# ---------------------------------------------------------------- 3. cost
def cost_section(c: PageContext, values: dict, prev: int | None) -> None:
    T, masked = c.settings.seq_len, c.settings.mask != "none"
    titles = box_titles(H.shape_flow(d, h, T), c.settings.mask)
    # The title, the four numbers beside h = 1, what two of them count and what the next table counts: ONE element (four
    # metric cards in a row were six elements and a container, each re-sent and drawn again on every step of T).
    metrics = H.cost_metrics(T, d, h, masked=masked)
    numbers = {t("heads.cost.col.what"): [t(f"heads.cost.{m.name}") for m in metrics]}
    numbers[t("heads.cost.col.at", h=h)] = [m.shown for m in metrics]
    if h > 1:  # at h = 1 the two columns would be one
        numbers[t("heads.cost.col.at", h=1)] = [m.base for m in metrics]
        numbers[t("heads.cost.col.vs_one")] = [t("heads.cost.cell.same") if m.same else m.ratio for m in metrics]
    helps = " ".join(f"**{t(f'heads.cost.{k}')}**: {t(f'heads.cost.{k}.help')}" for k in ("elementwise", "memory"))
    show_table_in_text(
        f"### {t('heads.cost.title')}",
        numbers,
        f":small[:gray[{helps}]]\n\n:small[:gray[{t('heads.cost.table', T=T)}]]",
        label=t("heads.cost.title"),
    )
    rows = H.cost_rows(1, T, T, d, h, masked=masked)
    # Static tables, not st.dataframe: a data grid costs the browser far more to draw on every redraw
    # (measured in benchmarks/), and these few rows need no scrolling or sorting. Two narrow tables, not one
    # of five columns: on a phone (390 px) a shape squeezed beside four numbers wrapped over 3-4 lines.
    show_table(
        H.shape_table(
            rows, titles, step=t("heads.cost.col.step"), axes=t("heads.cost.col.axes"), sizes=t("heads.cost.col.shape")
        )
    )
    numbers = H.cost_columns(rows, H.totals_for(T, d, h, masked=masked))
    steps = [titles[r.step] for r in rows] + [t("heads.cost.total")]
    show_table({t("heads.cost.col.step"): steps, **{t(f"heads.cost.col.{k}"): v for k, v in numbers.items()}})

    over_h = totals_over_heads(1, T, T, d, masked=masked)
    st.caption(t("heads.cost.chart", d_model=d))
    params, ops, memory = heads_charts.cost_charts(over_h, h, **heads_charts.cost_words(t))
    left, right = st.columns(2)
    # The parameters do not depend on T: their chart's file name leaves T out, so a step of T sends the chart
    # unchanged and the browser does not draw it again (the other two change with T).
    for where, chart, name, file in (
        (left, params, "params", f"params-d{d}"),
        (left, ops, "ops", f"ops-d{d}-T{T}"),
        (right, memory, "memory", f"memory-d{d}-T{T}"),
    ):
        show_lines(chart, name=file, key=f"heads_{name}_chart", t=t, where=where)
    st.info("\n\n".join(word(x, t) for x in H.cost_takeaway(T, d, h, masked=masked)), icon=":material/lightbulb:")


# ---------------------------------------------------------------- 4. timing
TICKET = "heads_time_ticket"  # this session's place in the server's heavy-work queue (ui/work_queue.py)


def timing_work(T: int, seed: int, heads: list[int]):
    """Timing the forward pass for every h in `heads` at these settings, for the queue (core/work_queue.py):
    progress per h, stopped between samples when nobody waits any more."""

    def work(control):
        def progress(done: int, total: int, hh: int) -> None:
            control.progress(done, total, hh)

        return H.time_forward(d, T, seed, heads, repeats=TIMING_REPEATS, on_progress=progress, check=control.check)

    return work


def timing_running(job) -> str:
    done, total = job.progress
    if not total or job.detail is None:
        return t("queue.running")
    return t("heads.time.progress", h=job.detail, i=done + 1, n=total)


def timing_section(c: PageContext, values: dict, prev: int | None) -> None:
    s, T, masked = c.settings, c.settings.seq_len, c.settings.mask != "none"
    about = t("heads.time.about", d_model=d, T=T, repeats=TIMING_REPEATS)
    st.markdown(f"### {t('heads.time.title')}\n\n:small[:gray[{about}]]")  # heading + what is timed: one element
    timing_key = (d, T, s.seed)
    over_h = totals_over_heads(1, T, T, d, masked=masked)
    # This session's timings by (d, T, seed), and this one once the queue has run it.
    job, cache, loads = work_queue.collect_into(TICKET, t, "heads_timings", "heads_timing_loads", lambda j: j.key[1:4])
    work_queue.show_outcome(job, t)
    heads = [r.h for r in over_h]
    work_queue.ask_button(
        TICKET,
        t("heads.time.again") if timing_key in cache else t("heads.time.run"),
        "heads_time_run",
        work_queue.job(("heads-timing", *timing_key, tuple(heads)), timing_work(T, s.seed, heads), "timing"),
    )
    work_queue.watch(TICKET, t, running=timing_running)
    timings = cache.get(timing_key)
    if timings:
        unmasked = totals_over_heads(1, T, T, d, masked=False)  # the timing runs without a mask
        show_lines(
            heads_charts.timing_chart(timings, unmasked, h, **heads_charts.timing_words(t)),
            name=f"timing-d{d}-T{T}",
            title=t("heads.time.title"),
            key="heads_timing_chart",
            t=t,
        )
        columns = H.timing_columns(timings, unmasked)
        columns["ops"] = [f"{n:,}" for n in columns["ops"]]
        show_table({k if k in ("h", "d_k") else t(f"heads.time.col.{k}"): v for k, v in columns.items()})
        load = work_queue.load_note(loads.get(timing_key), t)
        if load is not None:
            st.caption(load)
    else:
        st.caption(t("heads.time.none"))
    st.info(word(H.timing_noise(T, d), t), icon=":material/info:")


# ---------------------------------------------------------------- 5. one big projection = h small ones
def slice_section(c: PageContext, values: dict, prev: int | None) -> None:
    SK, T, d_k, masked, run = c.key, c.settings.seq_len, c.settings.d_k, c.settings.mask != "none", c.run()
    st.markdown(f"### {t('heads.slice.title')}\n\n{t('heads.slice.about', d=d)}")  # heading + text: one element
    head = st.selectbox(
        t("heads.slice.head"),
        list(range(h)),
        key="heads_slice_head",
        format_func=head_name,
        on_change=keep,
        args=("heads_slice_head",),
    )
    head = head if head in range(h) else values["heads_slice_head"]
    rows_shown = min(d, 16)
    big_map, small_map = shared(
        "heads_slice_maps", SK + (head,), lambda: H.slice_heatmaps(run.model, head, rows_shown=rows_shown)
    )
    big, small = st.columns([3, 1]) if d_k * 4 <= d else st.columns([2, 1])
    with big:
        st.caption(t("heads.slice.big", rows=rows_shown, d=d, h=h, i=head))
        show_heatmap(big_map, key="heads_slice_big", t=t, compact=True)  # 16 x 512 + 16 x 512 at h = 1: < 64 KB
    with small:
        st.caption(t("heads.slice.small", i=head, d=d, dk=d_k, rows=rows_shown))
        show_heatmap(small_map, key="heads_slice_small", t=t, compact=True)
    slices = shared("heads_slices", SK, lambda: H.block_slices(run.model, run.x, run.trace.q_heads, "q"))
    st.success(t("heads.slice.check", h=h, **H.slice_check(slices)), icon=":material/check_circle:")
    st.caption(t("heads.slice.numbers", c0=head * d_k, i=head, r=min(d, 4)))
    numbers = H.slice_numbers(run.model, head)
    show_table(numbers, index=range(len(next(iter(numbers.values()), []))))
    st.caption(t("heads.slice.params"))
    columns = H.param_columns(T, d, h, masked=masked)
    show_table({k if k == "d_k" else t(f"heads.slice.col.{k}"): v for k, v in columns.items()})
    st.caption(t("heads.slice.same"))


# ---------------------------------------------------------------- 6. one head vs h heads
def single_section(c: PageContext, values: dict, prev: int | None) -> None:
    s, SK, T, d_k, run = c.settings, c.key, c.settings.seq_len, c.settings.d_k, c.run()
    st.subheader(t("heads.single.title"))
    sv = shared("heads_single", SK, lambda: H.single_vs_multi(run.model, run.x, run.mask, s.seed, multi=run.trace))
    single_w, multi_w = sv.single.weights[0], sv.multi.weights[0]  # (1, T, T), (h, T, T)
    both_range = shared("heads_single_range", SK, lambda: H.single_range(sv))
    st.write(t("heads.single.about", d=d, p1=sv.params_single, ph=sv.params_multi, h=h))
    if h == 1:
        st.info(t("heads.single.trivial"), icon=":material/info:")
    shown = H.single_heads(values["heads_pick"], h)  # the heads picked in section 2, else the first page
    st.caption(t("heads.single.layout", d=d, h=h, n=len(shown), dk=d_k))
    both = shared(
        "heads_single_both",
        SK + (tuple(shown),),
        lambda: H.single_vs_heads_heatmap(
            f"weights-one-head-vs-h{h}-d{d}-T{T}", single_w[0], multi_w, shown, run.tokens, d_model=d, vrange=both_range
        ),
    )
    show_heatmap(both, key="heads_single_both", t=t, compact=(len(shown) + 1) * T * T * 4 > 48_000)
    st.caption(t("heads.single.focus", **H.single_focus(single_w, focus_values(c))))
    if h > 1:
        st.caption(t("heads.single.why", d=d, dk=d_k))


BODIES = (shapes_section, heads_section, cost_section, timing_section, slice_section, single_section)
SECTION_BODIES = dict(zip(SECTIONS, BODIES))
with tabs[open_id]:
    live(SECTION_BODIES[open_id])

# The downloads section below: app.py draws it (ui/downloads.py TAIL_PAGES), in a fragment of its own.
