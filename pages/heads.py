"""Heads and shapes: what changes when h changes (the shapes), and why the cost does not.

Thin: the shared settings (ctx) -> lessons.heads (plain data; heatmaps as lessons.heatmap.Heatmap) -> text,
tables, heatmaps (ui.heatmaps.show_heatmap) and the cost/timing bar and line charts (ui.heads_charts)."""

import math

import streamlit as st
import torch

import i18n
from core.accounting import totals_over_heads
from lessons import heads as H
from lessons import scenario
from lessons.heads import MAX_PICK, PER_PAGE, page_of_heads
from ui import heads_charts
from ui.cache import shared
from ui.downloads import scenario_downloads
from ui.heatmaps import show_heatmap
from ui.sections import lazy_tabs
from ui.shell import page_context

ctx = page_context()
t, s = ctx.t, ctx.settings
d, h, T, d_k = s.d_model, s.num_heads, s.seq_len, s.d_k
masked = s.mask != "none"
# What depends only on these is computed once per server (ui/cache.py): a class shares settings.
SK = (d, h, T, s.mask, s.seed, s.lang, ctx.custom_text)
run = shared("run", SK, lambda: scenario.run(s, custom_text=ctx.custom_text))
toks = run.tokens
TIMING_REPEATS = 5


def head_name(i: int) -> str:
    return f"{t('common.head')} {i}"


def previous_h() -> int | None:
    """The h shown before the latest change of h on this page (same d_model and T), else None."""
    last = st.session_state.get("heads_last")
    prev = st.session_state.get("heads_prev_h")
    if not (isinstance(last, tuple) and len(last) == 3) or last[:2] != (d, T):
        prev = None
    elif last[2] != h:
        prev = last[2]
    st.session_state["heads_last"] = (d, T, h)
    st.session_state["heads_prev_h"] = prev
    return prev if isinstance(prev, int) and prev != h and d % prev == 0 else None


def settle_pick() -> None:
    """Keep the head selection valid: a new h (or garbage) resets it to the first page of heads."""
    pick = st.session_state.get("heads_pick")
    ok = isinstance(pick, list) and all(isinstance(i, int) and 0 <= i < h for i in pick) and len(pick) <= MAX_PICK
    if st.session_state.get("heads_pick_for") != (d, h) or not ok:
        st.session_state["heads_pick"] = page_of_heads(h, 0, PER_PAGE)
        st.session_state["heads_page"] = 0
    st.session_state["heads_pick_for"] = (d, h)
    page = st.session_state.get("heads_page")
    if not isinstance(page, int) or not 0 <= page < math.ceil(h / PER_PAGE):
        st.session_state["heads_page"] = 0


def page_changed() -> None:
    st.session_state["heads_pick"] = page_of_heads(h, st.session_state.get("heads_page") or 0, PER_PAGE)


def focus_values() -> torch.Tensor:
    """(h,) each head's focus (lessons.heads.head_focus), shared by the grid and the one-vs-many sections."""
    return shared("heads_focus_values", SK, lambda: H.head_focus(run.trace.weights[0]))


def box_titles(boxes) -> dict[str, str]:
    titles = {b.name: t(f"heads.box.{b.name}") for b in boxes if b.name != "masked_scores"}
    titles["masked_scores"] = t("heads.box.masked_scores", mask=s.mask)
    return titles


st.title(t("page.heads"))
st.write(t("heads.intro"))
st.info(t("heads.now", d_model=d, h=h, d_k=d_k, T=T), icon=":material/view_column:")
prev = previous_h()  # tracked on every run, so the shapes section can say what changed since the last h
# One section at a time (ui/sections.py): each draws one or two charts, not the page's nine.
SECTIONS = (
    "shapes",
    "heads",
    "cost",
    "timing",
    "slice",
    "single",
)  # = lessons.heads.SECTIONS, a literal for tests/test_fuzz_app.py
open_id, tabs = lazy_tabs("heads_tab", SECTIONS, lambda sid, lang: i18n.t(f"heads.tab.{sid}", lang), ctx.lang)


# ---------------------------------------------------------------- 1. shape flow
def shapes_section() -> None:
    st.subheader(t("heads.flow.title"))
    st.caption(t("heads.flow.about"))
    boxes = H.shape_flow(d, h, T, prev_h=prev)
    titles = box_titles(boxes)
    if prev:
        st.success(t("heads.flow.changed", prev=prev, h=h), icon=":material/compare_arrows:")
    else:
        st.caption(t("heads.flow.try"))
    st.html(
        H.shape_flow_html(
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
def heads_section() -> None:
    st.subheader(t("heads.grid.title"))
    weights = run.trace.weights[0]  # (h, T, T)
    zrange = shared("heads_range", SK, lambda: H.data_range(weights))  # over all heads, even those not drawn
    st.caption(t("heads.grid.about", lo=zrange[0], hi=zrange[1], h=h))
    settle_pick()
    if h > PER_PAGE:
        pages = math.ceil(h / PER_PAGE)

        def page_label(p: int) -> str:
            heads_on = page_of_heads(h, p, PER_PAGE)
            return t("common.heads_range", first=heads_on[0], last=heads_on[-1], h=h)

        st.selectbox(
            t("common.page_of_heads"),
            list(range(pages)),
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
    )
    picks = sorted(i for i in picks if 0 <= i < h)
    focus = focus_values()
    if h > PER_PAGE:
        st.caption(t("heads.grid.overview", h=h, u=1 / T))
        st.html(
            H.focus_html(
                focus, picks, uniform=1 / T, axis_title=t("heads.grid.focus_axis"), head_label=t("common.head")
            )
        )
    if picks:
        grid = shared(
            "heads_grid",
            SK + (tuple(picks),),
            lambda: H.heads_heatmap(f"weights-d{d}-h{h}-T{T}", weights, picks, toks, vrange=zrange),
        )
        # 16 heads of 32 x 32 weights as float32 pass the 64 KB a step may cost: int16 codes of the printed numbers
        show_heatmap(grid, key="heads_grid", t=t, compact=len(picks) * T * T * 4 > 48_000)
    else:
        st.warning(t("heads.grid.empty"), icon=":material/touch_app:")


# ---------------------------------------------------------------- 3. cost
def cost_section() -> None:
    st.subheader(t("heads.cost.title"))
    now = H.totals_for(T, d, h, masked=masked)
    one = H.totals_for(T, d, 1, masked=masked)
    titles = box_titles(H.shape_flow(d, h, T))

    def delta(value, base) -> str:
        return t("heads.cost.same") if value == base else t("heads.cost.vs_one", r=H.ratio_text(value, base))

    cols = st.columns(4)
    for col, label, value, base, shown, help_ in (
        (cols[0], t("heads.cost.params"), now.params, one.params, f"{now.params:,}", None),
        (cols[1], t("heads.cost.macs"), now.macs, one.macs, f"{now.macs:,}", None),
        (
            cols[2],
            t("heads.cost.elementwise"),
            now.elementwise,
            one.elementwise,
            f"{now.elementwise:,}",
            t("heads.cost.elementwise.help"),
        ),
        (
            cols[3],
            t("heads.cost.memory"),
            now.weights_bytes,
            one.weights_bytes,
            H.human_bytes(now.weights_bytes),
            t("heads.cost.memory.help"),
        ),
    ):
        col.metric(
            label,
            shown,
            delta(value, base),
            delta_color="off",
            delta_arrow="off" if value == base else "up",
            border=True,
            help=help_,
        )

    st.caption(t("heads.cost.table", T=T))
    rows = H.cost_rows(1, T, T, d, h, masked=masked)
    # Static tables, not st.dataframe: a data grid costs the browser far more to draw on every redraw
    # (measured in benchmarks/), and these few rows need no scrolling or sorting. Two narrow tables, not one
    # of five columns: on a phone (390 px) a shape squeezed beside four numbers wrapped over 3-4 lines.
    st.table(
        H.shape_table(
            rows, titles, step=t("heads.cost.col.step"), axes=t("heads.cost.col.axes"), sizes=t("heads.cost.col.shape")
        ),
        hide_index=True,
    )
    st.table(
        {
            t("heads.cost.col.step"): [titles[r.step] for r in rows] + [t("heads.cost.total")],
            t("heads.cost.col.params"): [f"{r.params:,}" for r in rows] + [f"{now.params:,}"],
            t("heads.cost.col.macs"): [f"{r.macs:,}" for r in rows] + [f"{now.macs:,}"],
            t("heads.cost.col.elementwise"): [f"{r.elementwise:,}" for r in rows] + [f"{now.elementwise:,}"],
        },
        hide_index=True,
    )

    over_h = totals_over_heads(1, T, T, d, masked=masked)
    st.caption(t("heads.cost.chart", d_model=d))
    compute_fig, memory_fig = heads_charts.cost_specs(
        over_h,
        h,
        params_title=t("heads.cost.chart.params"),
        ops_title=t("heads.cost.chart.ops"),
        memory_title=t("heads.cost.chart.memory"),
        macs_name=t("heads.cost.macs"),
        elementwise_name=t("heads.cost.elementwise"),
        axis_title=t("heads.cost.axis"),
        memory_name=t("heads.cost.memory"),
    )
    left, right = st.columns(2)
    alt = t("display.alt.chart")
    heads_charts.show_plot(
        compute_fig,
        name=f"cost-d{d}-T{T}",
        title=t("heads.cost.title"),
        alt_word=alt,
        key="heads_cost_chart",
        where=left,
    )
    heads_charts.show_plot(
        memory_fig,
        name=f"memory-d{d}-T{T}",
        title=t("heads.cost.chart.memory"),
        alt_word=alt,
        key="heads_memory_chart",
        where=right,
    )
    st.info(t("heads.cost.takeaway"), icon=":material/lightbulb:")


# ---------------------------------------------------------------- 4. timing
def timing_section() -> None:
    st.subheader(t("heads.time.title"))
    st.caption(t("heads.time.about", d_model=d, T=T, repeats=TIMING_REPEATS))
    timing_key = (d, T, s.seed)
    over_h = totals_over_heads(1, T, T, d, masked=masked)
    cache = st.session_state.get("heads_timings")
    if not isinstance(cache, dict):
        cache = {}
    if st.button(
        t("heads.time.again") if timing_key in cache else t("heads.time.run"),
        key="heads_time_run",
        icon=":material/timer:",
        type="primary",
    ):
        bar = st.progress(0.0, text=t("heads.time.progress", h=1, i=1, n=len(over_h)))

        def progress(done: int, total: int, hh: int) -> None:
            bar.progress(done / total, text=t("heads.time.progress", h=hh, i=done + 1, n=total))

        cache[timing_key] = H.time_forward(
            d, T, s.seed, [r.h for r in over_h], repeats=TIMING_REPEATS, on_progress=progress
        )
        st.session_state["heads_timings"] = cache
        bar.empty()
        st.rerun()  # redraw with the results (and the button's new label)
    timings = cache.get(timing_key)
    if timings:
        unmasked = totals_over_heads(1, T, T, d, masked=False)  # the timing runs without a mask
        ops = {r.h: r.macs + r.elementwise for r in unmasked}
        heads_charts.show_plot(
            heads_charts.timing_figure(
                timings,
                unmasked,
                h,
                measured_name=t("heads.time.measured"),
                predicted_name=t("heads.time.predicted"),
                axis_title=t("heads.cost.axis"),
                ms_title=t("heads.time.ms"),
                ops_title=t("heads.time.ops"),
            ),
            name=f"timing-d{d}-T{T}",
            title=t("heads.time.title"),
            alt_word=t("display.alt.chart"),
            key="heads_timing_chart",
        )
        st.dataframe(
            {
                "h": [r.h for r in timings],
                "d_k": [r.d_k for r in timings],
                t("heads.time.col.median"): [round(r.median_ms, 4) for r in timings],
                t("heads.time.col.min"): [round(r.min_ms, 4) for r in timings],
                t("heads.time.col.max"): [round(r.max_ms, 4) for r in timings],
                t("heads.time.col.ops"): [ops.get(r.h, 0) for r in timings],
            },
            hide_index=True,
            key="heads_timing_table",
            column_config={t("heads.time.col.ops"): st.column_config.NumberColumn(format="localized")},
        )
    else:
        st.caption(t("heads.time.none"))
    st.info(t("heads.time.noise"), icon=":material/info:")


# ---------------------------------------------------------------- 5. one big projection = h small ones
def slice_section() -> None:
    st.subheader(t("heads.slice.title"))
    st.write(t("heads.slice.about", d=d))
    if st.session_state.get("heads_slice_head") not in range(h):
        st.session_state["heads_slice_head"] = 0
    head = st.selectbox(t("heads.slice.head"), list(range(h)), key="heads_slice_head", format_func=head_name)
    head = head if head in range(h) else 0
    W = H.full_weight(run.model, "q")  # (d_model, d_model)
    w_i = run.model.head_projection("q", head)[0].detach()  # (d_model, d_k)
    w_range = shared("heads_w_range", SK, lambda: H.signed_range(W))
    rows_shown = min(d, 16)
    big, small = st.columns([3, 1]) if d_k * 4 <= d else st.columns([2, 1])
    with big:
        st.caption(t("heads.slice.big", rows=rows_shown, d=d, h=h, i=head))
        show_heatmap(
            shared(
                "heads_blocks",
                SK + (head,),
                lambda: H.weight_blocks_heatmap(W, d_k, head, vrange=w_range, rows_shown=rows_shown),
            ),
            key="heads_slice_big",
            t=t,
            compact=True,
        )  # 16 x 512 + 16 x 512 at h = 1: under 64 KB
    with small:
        st.caption(t("heads.slice.small", i=head, d=d, dk=d_k, rows=rows_shown))
        show_heatmap(
            shared(
                "heads_block",
                SK + (head,),
                lambda: H.head_weight_heatmap(w_i, head, vrange=w_range, rows_shown=rows_shown, first_col=head * d_k),
            ),
            key="heads_slice_small",
            t=t,
            compact=True,
        )
    slices = shared("heads_slices", SK, lambda: H.block_slices(run.model, run.x, run.trace.q_heads, "q"))
    st.success(
        t(
            "heads.slice.check",
            h=h,
            w=max(b.weight_diff for b in slices),
            b=max(b.bias_diff for b in slices),
            o=max(b.output_diff for b in slices),
        ),
        icon=":material/check_circle:",
    )
    n_rows, n_cols = min(d, 4), min(d_k, 4)
    c0 = head * d_k
    st.caption(t("heads.slice.numbers", c0=c0, i=head, r=n_rows))
    numbers = {}
    for j in range(n_cols):
        numbers[f"W^Q[:, {c0 + j}]"] = [f"{float(W[r, c0 + j]):.6f}" for r in range(n_rows)]
        numbers[f"W_{head}^Q[:, {j}]"] = [f"{float(w_i[r, j]):.6f}" for r in range(n_rows)]
    st.table(numbers)
    st.caption(t("heads.slice.params"))
    layer_params = {hh: H.totals_for(T, d, hh, masked=masked).params for hh in sorted({1, 8, h}) if d % hh == 0}
    splits = [H.param_split(d, hh) for hh in layer_params]
    st.table(
        {
            t("heads.slice.col.h"): [p.h for p in splits],
            "d_k": [p.d_k for p in splits],
            t("heads.slice.col.per_head"): [f"{d}·{p.d_k} + {p.d_k} = {p.per_head:,}" for p in splits],
            t("heads.slice.col.total"): [f"{p.h} × {p.per_head:,} = {p.total:,}" for p in splits],
            t("heads.slice.col.layer"): [f"{layer_params[p.h]:,}" for p in splits],
        },
        hide_index=True,
    )
    st.caption(t("heads.slice.same"))


# ---------------------------------------------------------------- 6. one head vs h heads
def single_section() -> None:
    st.subheader(t("heads.single.title"))
    sv = shared("heads_single", SK, lambda: H.single_vs_multi(run.model, run.x, run.mask, s.seed, multi=run.trace))
    single_w, multi_w = sv.single.weights[0], sv.multi.weights[0]  # (1, T, T), (h, T, T)
    both_range = shared("heads_single_range", SK, lambda: H.data_range(torch.cat([single_w, multi_w])))
    st.write(t("heads.single.about", d=d, p1=sv.params_single, ph=sv.params_multi, h=h))
    if h == 1:
        st.info(t("heads.single.trivial"), icon=":material/info:")
    # The heads picked in section 2 (kept in session state while that tab is closed), else the first page.
    pick = st.session_state.get("heads_pick") if st.session_state.get("heads_pick_for") == (d, h) else None
    picks = sorted(i for i in pick if isinstance(i, int) and 0 <= i < h) if isinstance(pick, list) else []
    shown = (picks or page_of_heads(h, 0, PER_PAGE))[:PER_PAGE]
    one_col, many_col = st.columns([1, 2])
    with one_col:
        st.caption(t("heads.single.one", d=d))
        show_heatmap(
            shared(
                "heads_single_one",
                SK,
                lambda: H.one_head_heatmap(f"weights-one-head-d{d}-T{T}", single_w[0], toks, vrange=both_range),
            ),
            key="heads_single_one",
            t=t,
        )
    with many_col:
        st.caption(t("heads.single.many", h=h, n=len(shown), dk=d_k))
        many = shared(
            "heads_single_many",
            SK + (tuple(shown),),
            lambda: H.heads_heatmap(f"weights-d{d}-h{h}-T{T}-shown", multi_w, shown, toks, vrange=both_range),
        )
        show_heatmap(many, key="heads_single_many", t=t, compact=len(shown) * T * T * 4 > 48_000)
    one_focus = float(H.head_focus(single_w)[0])
    focus = focus_values()
    st.caption(t("heads.single.focus", one=one_focus, lo=float(focus.min()), hi=float(focus.max())))
    if h > 1:
        st.caption(t("heads.single.why", d=d, dk=d_k))


SECTION_BODIES = {
    "shapes": shapes_section,
    "heads": heads_section,
    "cost": cost_section,
    "timing": timing_section,
    "slice": slice_section,
    "single": single_section,
}
with tabs[open_id]:
    SECTION_BODIES[open_id]()

scenario_downloads(ctx, run, page="heads")
