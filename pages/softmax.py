"""Softmax up close (issue 22): why ÷√d_k, why subtract the max, and how a fused kernel gets the same numbers
tile by tile.

Thin: the shared settings (ctx) -> the page's URL values, declared in lessons.softmax.URL_KEYS and settled by
ui.url_state (a bad value shows a notice here and is corrected in the URL) -> the lesson's functions (computed once
per inputs for the whole
server, ui.cache.shared) -> text, tables, one line chart (ui.linecharts.show_lines, built by charts.lines) and
heatmaps handed as data to
ui.heatmaps.show_heatmap. Three sections as lazy tabs, the open one in the URL (`soft_tab`).
"""

import streamlit as st

import i18n
from charts import lines
from core.limits import TILE_BLOCK_MAX, TILE_BLOCK_MIN
from i18n import plain
from lessons import scenario
from lessons import softmax as L
from ui import url_state
from ui.cache import shared
from ui.heatmaps import show_heatmap
from ui.linecharts import show_lines
from ui.sections import lazy_tabs
from ui.shell import page_context

ctx = page_context()
t, s = ctx.t, ctx.settings
# The same key as the other pages' run (pages/heads.py): one run per settings for the whole server.
SK = (s.d_model, s.num_heads, s.seq_len, s.mask, s.seed, s.lang, ctx.custom_text)
run = shared("run", SK, lambda: scenario.run(s, custom_text=ctx.custom_text))

SECTIONS = ("scale", "max", "tiles")  # soft_tab (lessons/softmax.py SECTIONS; a literal for the fuzz test)
SATURATED = 0.9  # a ÷1 row whose largest weight is below this is not one-hot yet: the page suggests a larger d_k
KEPT = "soft_kept"  # the page's values while the widgets showing them are in a closed tab
WIDGET_KEYS = tuple(k for k in L.URL_KEYS if k.name != "soft_tab")  # the tab id is ui.sections.lazy_tabs' own


def kept() -> dict:
    return url_state.kept(KEPT)


def settle() -> dict:
    """The page's values, valid for the current settings, in session state before any widget is drawn
    (ui.url_state.settle: a link's bad value gets a notice and is corrected in the URL)."""
    if kept().pop("restart", False):
        st.session_state["soft_step"] = kept()["soft_step"] = 1
    return url_state.settle(WIDGET_KEYS, L.env_of(s, ctx.custom_text), t=t, store=KEPT)


def keep_value(key: str) -> None:
    url_state.keep_value(KEPT, key)


def blocks_changed(key: str) -> None:
    """A new block size makes a new walk: start it at step 1 (settle() moves the step before its slider, now a
    new widget with a new range, is drawn)."""
    keep_value(key)
    kept()["restart"] = True


def move_step(delta: int, n: int) -> None:
    step = min(max(int(st.session_state.get("soft_step") or 1) + delta, 1), n)
    st.session_state["soft_step"] = kept()["soft_step"] = step


def head_control(where=st) -> None:
    where.selectbox(
        t("softmax.ctl.head"),
        list(range(s.num_heads)),
        key="soft_head",
        bind="query-params",
        on_change=keep_value,
        args=("soft_head",),
    )


def row_control(where=st) -> None:
    where.slider(
        t("softmax.ctl.row"),
        0,
        s.seq_len - 1,
        key="soft_row",
        bind="query-params",
        help=t("softmax.ctl.row.help"),
        on_change=keep_value,
        args=("soft_row",),
    )


def number(v: float) -> str:
    """A value in a table: 6 significant digits, inf / nan as they are (the overflow is the point)."""
    return f"{float(v):.6g}"


st.title(t("page.softmax"))
st.markdown(t("softmax.intro"))
values = settle()
open_id, tabs = lazy_tabs("soft_tab", SECTIONS, lambda sid, lang: i18n.t(f"softmax.tab.{sid}", lang), ctx.lang)
pv = L.PageValues.of({"soft_tab": open_id, **values})


# ---------------------------------------------------------------- 1. why divide by sqrt(d_k)
def scale_section() -> None:
    st.subheader(t("softmax.scale.title"))
    st.latex(
        r"\operatorname{Var}(q\cdot k)=\sum_{i=1}^{d_k}\operatorname{Var}(q_i k_i)=d_k"
        r"\qquad\operatorname{Var}\!\left(\frac{q\cdot k}{\sqrt{d_k}}\right)=1"
    )
    vc = shared("soft_variance", (s.d_k,), lambda: L.variance_curve(s))  # the same draws for every seed
    st.caption(t("softmax.scale.variance", draws=vc.draws, seed=vc.seed))
    show_lines(lines.variance_chart(vc, t), name=f"qk-variance-seed{vc.seed}", key="soft_variance_chart", t=t)
    i = vc.current_index
    st.caption(
        t("softmax.scale.variance_now", d_k=s.d_k, var=float(vc.variance[i]), scaled=float(vc.scaled_variance[i]))
    )
    st.markdown(t("softmax.scale.row"))
    left, right = st.columns(2)
    head_control(left)
    row_control(right)
    head, row = st.session_state["soft_head"], st.session_state["soft_row"]
    sr = shared("soft_scale_row", SK + (head, row), lambda: L.scale_row(s, head, row, run, ctx.custom_text))
    st.caption(t("softmax.ctl.row_token", row=row, token=plain(sr.token)))
    show_heatmap(sr.heatmap, key="soft_scale_hm", t=t)
    st.table(
        {
            t("softmax.scale.col.divisor"): list(L.SCALE_LABELS),
            t("softmax.scale.col.value"): [f"{v.divisor:.4g}" for v in sr.variants],
            t("softmax.scale.col.entropy"): [f"{v.entropy:.4f}" for v in sr.variants],
            t("softmax.scale.col.max"): [f"{v.max_weight:.4f}" for v in sr.variants],
            t("softmax.scale.col.grad"): [f"{v.gradient:.4f}" for v in sr.variants],
            t("softmax.scale.col.mean_entropy"): [f"{v.mean_entropy:.4f}" for v in sr.variants],
            t("softmax.scale.col.mean_max"): [f"{v.mean_max_weight:.4f}" for v in sr.variants],
        },
        hide_index=True,
    )
    st.caption(t("softmax.scale.table_about", max_entropy=sr.max_entropy))
    e1, e2, e3 = (v.entropy for v in sr.variants)
    if sr.row_blocked:
        st.warning(t("softmax.scale.blocked"), icon=":material/block:")
    elif sr.divisors_equal:
        st.info(t("softmax.scale.d_k_1"), icon=":material/info:")
    elif sr.order_holds:
        st.info(t("softmax.scale.order", e1=e1, e2=e2, e3=e3), icon=":material/lightbulb:")
        if sr.variants[0].max_weight < SATURATED:
            st.caption(t("softmax.scale.try_big", top=sr.variants[0].max_weight, d_k=s.d_k))
    else:
        st.warning(t("softmax.scale.order_broken", e1=e1, e2=e2, e3=e3), icon=":material/info:")
    st.success(t("softmax.scale.check", diff=sr.model_diff), icon=":material/check_circle:")


# ---------------------------------------------------------------- 2. why subtract the max
def max_section() -> None:
    st.subheader(t("softmax.max.title"))
    st.markdown(t("softmax.max.intro"))
    st.markdown(
        "\n".join(
            [  # the words in the reader's language, the formulas in LaTeX
                f"- **{t('softmax.max.col.naive')}**: " + r"$e^{s_j} \big/ \sum_k e^{s_k}$",
                f"- **{t('softmax.max.col.safe')}**: " + r"$e^{s_j-m} \big/ \sum_k e^{s_k-m},\; m=\max_k s_k$",
                f"- **{t('softmax.max.col.online')}**: " + r"$m_{\text{new}}=\max(m, s_j),\;"
                r"l\leftarrow l\,e^{m-m_{\text{new}}}+e^{s_j-m_{\text{new}}},\; m\leftarrow m_{\text{new}}$",
            ]
        )
    )
    left, mid, right = st.columns(3)
    head_control(left)
    row_control(mid)
    right.select_slider(
        t("softmax.ctl.gain"),
        L.GAINS,
        key="soft_gain",
        bind="query-params",
        help=t("softmax.ctl.gain.help"),
        on_change=keep_value,
        args=("soft_gain",),
    )
    head, row, gain = st.session_state["soft_head"], st.session_state["soft_row"], st.session_state["soft_gain"]
    mr = shared("soft_max_row", SK + (head, row, gain), lambda: L.max_row(s, head, row, gain, run, ctx.custom_text))
    st.caption(t("softmax.ctl.row_token", row=row, token=plain(mr.token)))
    st.markdown(
        t("softmax.max.row", gain=gain, row_max=mr.row_max, t32=mr.dtypes[0].threshold, t16=mr.dtypes[1].threshold)
    )
    never = t("softmax.max.never")
    g32, g16 = (str(g) if g is not None else never for g in mr.first_failing_gain)
    st.caption(t("softmax.max.breaks_from", g32=g32, g16=g16))
    if mr.row_blocked:
        st.warning(t("softmax.max.blocked"), icon=":material/block:")
    for dt in mr.dtypes:
        st.markdown(f"#### {dt.dtype}")
        top = float(dt.scores[mr.kept].max()) if mr.kept.any() else float(dt.scores.max())
        if not dt.scores_finite:
            st.error(t("softmax.max.scores_inf", dtype=dt.dtype), icon=":material/error:")
        elif not dt.naive_ok and dt.exp_overflows.any():
            st.error(
                t(
                    "softmax.max.naive_broken",
                    dtype=dt.dtype,
                    n=int(dt.exp_overflows.sum()),
                    thr=dt.threshold,
                    nan=int(dt.naive_nan.sum()),
                    zero=int(dt.naive_zero.sum()),
                ),
                icon=":material/error:",
            )
        elif not dt.naive_ok:
            st.error(t("softmax.max.sum_overflow", dtype=dt.dtype), icon=":material/error:")
        else:
            st.info(
                t("softmax.max.naive_ok", dtype=dt.dtype, top=top, thr=dt.threshold, diff=dt.naive_diff),
                icon=":material/info:",
            )
        within = max(dt.safe_diff, dt.online_diff) <= dt.tolerance
        (st.success if within else st.warning)(
            t(
                "softmax.max.safe_ok" if within else "softmax.max.safe_off",
                safe=dt.safe_diff,
                online=dt.online_diff,
                tol=dt.tolerance,
            ),
            icon=":material/check_circle:" if within else ":material/warning:",
        )
        st.table(
            {
                t("softmax.max.col.key"): [
                    f"{j} {tok}" + ("" if k else " ✕")
                    for j, (tok, k) in enumerate(zip(mr.key_tokens, mr.kept.tolist()))
                ],
                "s": [number(v) for v in dt.scores],
                "exp(s)": [number(v) for v in dt.exp],
                t("softmax.max.col.naive"): [number(v) for v in dt.naive],
                t("softmax.max.col.safe"): [number(v) for v in dt.safe],
                t("softmax.max.col.online"): [number(v) for v in dt.online],
                t("softmax.max.col.exact"): [number(v) for v in dt.exact],
                t("softmax.max.col.m"): [number(v) for v in dt.online_m],
                t("softmax.max.col.l"): [number(v) for v in dt.online_l],
            },
            hide_index=True,
        )
    st.caption(t("softmax.max.table_about"))


# ---------------------------------------------------------------- 3. tile by tile
def fmt_bytes(n: int) -> str:
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            v = n / size
            return f"{v:.0f} {unit}" if v == int(v) else f"{v:.1f} {unit}"
    return f"{n} B"


def tiles_section() -> None:
    st.subheader(t("softmax.tiles.title"))
    st.markdown(t("softmax.tiles.intro"))
    st.latex(
        r"\begin{gathered}m_{\text{new}}=\max\!\big(m_{\text{old}},\operatorname{rowmax}S\big),\quad "
        r"P=e^{S-m_{\text{new}}}\\ l\leftarrow e^{m_{\text{old}}-m_{\text{new}}}\,l+\operatorname{rowsum}P\\ "
        r"\text{acc}\leftarrow e^{m_{\text{old}}-m_{\text{new}}}\,\text{acc}+PV,\quad O=\text{acc}/l"
        r"\end{gathered}"
    )
    a, b, c = st.columns(3)
    head_control(a)
    b.slider(
        t("softmax.ctl.bq"),
        TILE_BLOCK_MIN,
        TILE_BLOCK_MAX,
        key="soft_bq",
        bind="query-params",
        help=t("softmax.ctl.blocks.help"),
        on_change=blocks_changed,
        args=("soft_bq",),
    )
    c.slider(
        t("softmax.ctl.bk"),
        TILE_BLOCK_MIN,
        TILE_BLOCK_MAX,
        key="soft_bk",
        bind="query-params",
        help=t("softmax.ctl.blocks.help"),
        on_change=blocks_changed,
        args=("soft_bk",),
    )
    head, bq, bk = st.session_state["soft_head"], st.session_state["soft_bq"], st.session_state["soft_bk"]
    walk = shared("soft_walk", SK + (head, bq, bk), lambda: L.tile_walk(s, head, bq, bk, run, ctx.custom_text))
    n = walk.n_steps
    if n > 1:
        prev, slider, nxt = st.columns([1, 6, 1], vertical_alignment="bottom")
        step = int(st.session_state["soft_step"])
        prev.button(
            t("softmax.ctl.prev"),
            key="soft_prev",
            on_click=move_step,
            args=(-1, n),
            disabled=step <= 1,
            icon=":material/chevron_left:",
            width="stretch",
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
            width="stretch",
        )
    else:
        st.caption(t("softmax.ctl.one_step"))
    v = L.tile_step(walk, st.session_state["soft_step"])
    q0, q1, k0, k1 = v.cells
    st.markdown(
        t(
            "softmax.tiles.now",
            step=v.step,
            n=n,
            i=v.tile[0],
            j=v.tile[1],
            q0=q0,
            q1=q1 - 1,
            k0=k0,
            k1=k1 - 1,
            tiles=walk.n_tiles,
            skipped=v.skipped_total,
            skipped_before=v.skipped_so_far,
        )
    )
    st.caption(t("softmax.tiles.scores_about"))
    show_heatmap(v.scores, key="soft_scores_hm", t=t)
    left, right = st.columns(2)
    with left:
        show_heatmap(v.tile_p, key="soft_tile_p_hm", t=t)
    with right:
        cur = v.current
        st.markdown(f"**{t('softmax.tiles.rows_title')}**")
        st.table(
            {
                t("softmax.tiles.col.row"): [f"{r} {walk.tokens[r]}" for r in range(q0, q1)],
                t("softmax.tiles.col.m_old"): [number(x) for x in cur.m_old],
                t("softmax.tiles.col.m_new"): [number(x) for x in cur.m_new],
                t("softmax.tiles.col.rescale"): [number(x) for x in cur.rescale],
                t("softmax.tiles.col.l"): [number(x) for x in cur.l],
            },
            hide_index=True,
        )
        if cur.writes_o:
            st.caption(t("softmax.tiles.writes", i=v.tile[0]))
    st.caption(t("softmax.tiles.output_about"))
    show_heatmap(v.output_so_far, key="soft_output_hm", t=t)
    st.caption(t("softmax.tiles.traffic", **v.traffic_so_far))
    if v.is_last:
        res = shared("soft_result", SK + (head, bq, bk), lambda: L.tile_result(s, head, bq, bk, run, ctx.custom_text))
        show_heatmap(res.side_by_side, key="soft_result_hm", t=t)
        kw = dict(head=res.head_diff, all=res.all_heads_diff, sdpa=res.sdpa_diff, l=res.l_diff, tol=res.tolerance)
        if res.equal:
            st.success(
                t("softmax.tiles.equal", h=s.num_heads, steps=res.steps, skipped=res.skipped, **kw),
                icon=":material/check_circle:",
            )
        else:
            st.error(t("softmax.tiles.not_equal", **kw), icon=":material/error:")
    else:
        st.caption(t("softmax.tiles.result_later", n=n))

    st.subheader(t("softmax.mem.title"))
    st.caption(t("softmax.mem.about", d_k=s.d_k, h=s.num_heads, bq=bq, bk=bk))
    rows = shared("soft_memory", (s.seq_len, s.d_k, s.num_heads, bq, bk), lambda: L.memory_table(s, bq, bk))
    st.table(
        {
            t("softmax.mem.col.T"): [
                t("softmax.mem.current", T=f"{r.T:,}") if r.is_current else f"{r.T:,}" for r in rows
            ],
            t("softmax.mem.col.scores"): [fmt_bytes(r.scores_bytes_per_head) for r in rows],
            t("softmax.mem.col.all", h=s.num_heads): [fmt_bytes(r.scores_bytes_all_heads) for r in rows],
            t("softmax.mem.col.tile"): [fmt_bytes(r.tile_bytes) for r in rows],
            t("softmax.mem.col.ratio"): [f"{r.ratio:,.0f}×" for r in rows],
            t("softmax.mem.col.plain"): [f"{r.plain_traffic:,}" for r in rows],
            t("softmax.mem.col.tiled"): [f"{r.tiled_traffic:,}" for r in rows],
            t("softmax.mem.col.causal"): [f"{r.tiled_causal_traffic:,}" for r in rows],
            t("softmax.mem.col.skipped"): [
                f"{r.causal_skipped:,} / {r.causal_skipped + r.causal_processed:,}" for r in rows
            ],
        },
        hide_index=True,
    )


SECTION_BODIES = {"scale": scale_section, "max": max_section, "tiles": tiles_section}
with tabs[open_id]:
    SECTION_BODIES[open_id]()
