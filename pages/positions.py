"""Positions: attention alone cannot tell word order, and how sinusoids, a learned table and RoPE fix it.

Thin: the shared settings (page_context) -> the page's URL values (lessons.positions.parse_url: a bad value
is corrected with a notice here and written back) -> the lesson's plain data -> drawn. Every number comes
from lessons/positions.py (tested there); heatmaps go to ui.heatmaps.show_heatmap as data.
"""

import math

import numpy as np
import pandas as pd
import streamlit as st

import i18n
from core import pretrained
from core.limits import (
    ROPE_BASE_MAX,
    ROPE_D_K_MAX,
    ROPE_D_K_MIN,
    ROPE_DISTANCE_MAX,
    ROPE_GRID_MAX,
    SHUFFLE_SEED_MAX,
    SHUFFLE_SEED_MIN,
)
from i18n import plain
from lessons import positions as L
from lessons import scenario
from lessons.url import Fix, as_url
from ui import url_state
from ui.cache import shared
from ui.heatmaps import show_heatmap
from ui.models import load_real_model
from ui.sections import lazy_tabs
from ui.shell import page_context

ctx = page_context()
t, s = ctx.t, ctx.settings
SK = (s.d_model, s.num_heads, s.seq_len, s.mask, s.seed, s.lang, ctx.custom_text)  # the same key as other pages
KEPT = "pos_kept"  # values of widgets drawn inside a tab, kept while their tab is closed
# pos_model and pos_example are written to the URL by their widget's callback (their labels are translated, the
# URL keeps the neutral value); the others are bound to their widget; the tab id is ui.sections.lazy_tabs' own.
BY_CALLBACK = ("pos_model", "pos_example")
WIDGET_KEYS = tuple(k for k in L.URL_KEYS if k.name != "pos_tab")


load_real = load_real_model  # the real heads model, one read-only copy per server (ui/models.py)


def real_model() -> pretrained.Pretrained | None:
    """The real model, or None after saying why it could not be loaded (its files failed their check)."""
    try:
        with st.spinner(t("pos.loading")):
            return load_real()
    except pretrained.ModelIntegrityError as e:
        st.error(t("pos.real_missing", error=plain(str(e), limit=200)), icon=":material/gpp_bad:")
        return None


def kept() -> dict:
    return url_state.kept(KEPT)


# ---------------------------------------------------------------- URL values -> valid widget state
def notice(fix: Fix, from_link: bool) -> str | None:
    """A link's corrections are shown; so are the ones the lesson explains (a typed odd d_k, a base <= 1)."""
    if from_link or fix.reason in ("odd_d_k", "base_at_most_1"):
        return t(f"pos.fix.{fix.reason}", param=fix.key, given=plain(fix.given), used=fix.used)
    return None


def settle() -> L.PageValues:
    """Every page key (declared in lessons.positions.URL_KEYS), corrected by ui.url_state.settle before any
    widget is drawn: a link's bad value gets a notice and is corrected in the URL."""
    values = url_state.settle(WIDGET_KEYS, {"settings": s}, t=t, store=KEPT, url_first=BY_CALLBACK, notice=notice)
    return L.parse_url(values, s)


def keep(key: str) -> None:
    url_state.keep_value(KEPT, key)


def choose(key: str, options: tuple, label_of, label: str, widget: str = "segmented_control", **kw):
    """A choice whose options are shown in the reader's language while the URL keeps the neutral value: the
    widget (`<key>_pick`) is not bound; its callback writes the value to the URL (Streamlit binds the *shown*
    text of a bound selection widget, which would put Chinese into a link)."""
    pick = f"{key}_pick"
    st.session_state[pick] = kept()[key]

    def picked() -> None:
        value = st.session_state.get(pick)
        if value in options:
            kept()[key] = value
            st.query_params[key] = as_url(value)

    if widget == "segmented_control":
        kw.setdefault("required", True)
    getattr(st, widget)(label, options, key=pick, format_func=label_of, on_change=picked, **kw)
    return kept()[key]


def head_slider(n_heads: int) -> int:
    """The head to show (pos_head) of a model with `n_heads` heads; nothing to choose with one head.

    The key is shared by the sections (the add section's real model has 12 heads, the shared one h): a head
    out of this section's range is clamped here, quietly, before the widget is drawn."""
    head = st.session_state.get("pos_head")
    head = min(max(head, 0), n_heads - 1) if isinstance(head, int) else 0
    if st.session_state.get("pos_head") != head:
        st.session_state["pos_head"] = kept()["pos_head"] = head
    if n_heads > 1:
        st.select_slider(
            t("pos.head"), list(range(n_heads)), key="pos_head", bind="query-params", on_change=keep, args=("pos_head",)
        )
    return head


def gap(value: float) -> str:
    """A max abs difference as printed everywhere on this page (tests read it back)."""
    return f"{value:.2e}"


# ---------------------------------------------------------------- the page
st.title(t("page.positions"))
st.markdown(t("pos.intro"))
values = settle()
run = shared("run", SK, lambda: scenario.run(s, custom_text=ctx.custom_text))


def bad_tab(given: str, used: str) -> None:
    st.warning(t("pos.fix.unreadable", param="pos_tab", given=plain(given), used=used), icon=":material/build:")


SECTIONS = ("shuffle", "add", "rope", "learned")  # = lessons.positions.TABS, written out for tests/test_fuzz_app.py
assert SECTIONS == L.TABS
open_id, tabs = lazy_tabs(
    "pos_tab", SECTIONS, lambda sid, lang: i18n.t(f"pos.tab.{sid}", lang), ctx.lang, on_bad_url=bad_tab
)


# ---------------------------------------------------------------- 1. shuffle the words
def next_shuffle() -> None:
    current = st.session_state.get("pos_shuffle", values.shuffle)
    current = current if isinstance(current, int) else values.shuffle
    st.session_state["pos_shuffle"] = kept()["pos_shuffle"] = current % SHUFFLE_SEED_MAX + 1


def shuffle_section() -> None:
    st.subheader(t("pos.shuffle.title"))
    st.markdown(t("pos.shuffle.about"))
    c1, c2, c3 = st.columns([2, 1, 2], vertical_alignment="bottom")
    c1.number_input(
        t("pos.shuffle.seed"),
        SHUFFLE_SEED_MIN,
        SHUFFLE_SEED_MAX,
        step=1,
        key="pos_shuffle",
        bind="query-params",
        on_change=keep,
        args=("pos_shuffle",),
        help=t("pos.shuffle.seed.help"),
    )
    c2.button(t("pos.shuffle.again"), key="pos_shuffle_again", on_click=next_shuffle, icon=":material/shuffle:")
    c3.toggle(
        t("pos.shuffle.causal"),
        key="pos_causal",
        bind="query-params",
        on_change=keep,
        args=("pos_causal",),
        help=t("pos.shuffle.causal.help"),
    )
    head = head_slider(s.num_heads)
    causal = values.causal
    v = shared(
        "pos_shuffle_view",
        (SK, values.shuffle, causal, head),
        lambda: L.shuffle_view(s, values.shuffle, causal, head, run),
    )
    for note in v.notes:
        st.caption(t(f"pos.note.{note}", mask=t(f"mask.{s.mask}")))
    moves = ", ".join(f"{i}←{int(p)}" for i, p in enumerate(v.perm) if v.moved[i])
    st.markdown(t("pos.shuffle.perm", moves=moves, n=int(v.moved.sum()), T=v.T))
    if v.equal:
        st.success(
            t("pos.shuffle.equal", out=gap(v.output_gap), w=gap(v.weights_gap), x=gap(v.x_moved_gap)),
            icon=":material/check_circle:",
        )
    else:
        st.error(
            t("pos.shuffle.broken", out=gap(v.output_gap), w=gap(v.weights_gap), free=gap(v.free_output_gap)),
            icon=":material/block:",
        )
        st.markdown(
            t(
                "pos.shuffle.front",
                token=v.tokens[v.front],
                before=f"{v.front_self_before:.4f}",
                after=f"{v.front_self_after:.4f}",
                h=v.head,
            )
        )
    st.caption(t("pos.shuffle.x", dims=v.dims_shown, d=v.d_model))
    show_heatmap(v.x, key="pos_x", t=t)
    st.caption(t("pos.shuffle.weights", h=v.head))
    show_heatmap(v.weights, key="pos_weights", t=t)
    st.caption(t("pos.shuffle.output", dims=v.dims_shown, d=v.d_model, row=gap(float(v.row_gaps.max()))))
    show_heatmap(v.output, key="pos_output", t=t)


# ---------------------------------------------------------------- 2. add positions
def add_section() -> None:
    st.subheader(t("pos.add.title"))
    st.markdown(t("pos.add.about"))
    model = choose("pos_model", L.MODELS, lambda m: t(f"pos.model.{m}"), t("pos.model"))
    c1, c2 = st.columns(2)
    with c1:
        if model == "real":
            choose(
                "pos_example",
                tuple(range(len(pretrained.EXAMPLES))),
                lambda i: pretrained.EXAMPLES[i][0],
                t("pos.example"),
                widget="selectbox",
            )
        head = head_slider(L.heads_of(s, model))
    with c2:
        st.number_input(
            t("pos.base"),
            min_value=1.0,
            max_value=ROPE_BASE_MAX,
            step=1000.0,
            key="pos_base",
            bind="query-params",
            on_change=keep,
            args=("pos_base",),
            help=t("pos.base.help"),
        )
    base = values.base
    if model == "real":
        real = real_model()
        if real is None:
            return
        v = shared(
            "pos_add_real",
            (s.lang, head, base, values.shuffle, values.example),
            lambda: L.add_view(s, "real", head, base, values.shuffle, real=real, example=values.example),
        )
    else:
        v = shared(
            "pos_add_random",
            (SK, head, base, values.shuffle),
            lambda: L.add_view(s, "random", head, base, values.shuffle, run=run),
        )
    st.caption(t(f"pos.add.model.{model}", h=v.num_heads, d=v.d_model, dk=v.d_k, T=len(v.tokens)))
    for note in v.notes:
        st.caption(t(f"pos.note.{note}", mask=t(f"mask.{s.mask}")))
    for k in v.kinds:
        if not k.available:
            st.info(
                t(f"pos.reason.{k.reason}", width=v.table_width, d=v.d_model, dk=v.d_k, max=ROPE_D_K_MAX),
                icon=":material/info:",
            )
    st.caption(t("pos.add.heatmap", h=v.head))
    show_heatmap(v.side_by_side, key="pos_side", t=t)
    rows = [k for k in v.kinds if k.available]
    table = {
        t("pos.add.col.kind"): [t(f"pos.kind.{k.kind}") + (" ★" if k.trained else "") for k in rows],
        t("pos.add.col.shuffle"): [gap(k.shuffle_gap) for k in rows],
        t("pos.add.col.change"): [gap(k.change) for k in rows],
        t("pos.add.col.added"): [f"{k.added_norm:.3f}" for k in rows],
    }
    if v.twin is not None:
        table[t("pos.add.col.twin", a=v.tokens[v.twin[0]], b=v.tokens[v.twin[1]])] = [gap(k.twin_gap) for k in rows]
    st.table(table, hide_index=True)
    st.caption(t("pos.add.table", token=f"{v.token_norm:.3f}"))
    if model == "real":
        st.caption(t("pos.add.trained"))
    st.markdown(t("pos.add.kinds"))


# ---------------------------------------------------------------- 3. RoPE is about distance
def angle_svg(pv: L.PairView) -> str:
    """The pair (q_a, q_b) of q at position 0 and at `position`, on their circle, with the angle between.
    Only numbers go into the SVG (no text), so it is safe to hand to st.image."""
    r = max(pv.length_before, 1e-9)
    size, c = 220, 110
    scale = 90 / r
    bx, by = pv.before[0] * scale, -pv.before[1] * scale
    ax, ay = pv.after[0] * scale, -pv.after[1] * scale
    # the positions' points as one path of zero-length round-capped strokes: ~14 bytes a point, not ~70
    marks = "".join(f"M{c + float(x) * scale:.1f} {c - float(y) * scale:.1f}h0" for x, y in pv.path)
    dots = f'<path d="{marks}" stroke="#999" stroke-width="5" stroke-linecap="round"/>'
    # the angle turned (reduced to one turn), counter-clockwise from the blue arrow to the red one, radius 34
    start = math.atan2(pv.before[1], pv.before[0])
    end = start + math.radians(pv.angle_deg_reduced)
    x0, y0 = c + 34 * math.cos(start), c - 34 * math.sin(start)
    x1, y1 = c + 34 * math.cos(end), c - 34 * math.sin(end)
    large = 1 if pv.angle_deg_reduced > 180 else 0
    arc = (
        f'<path d="M{x0:.1f} {y0:.1f}A34 34 0 {large} 0 {x1:.1f} {y1:.1f}" fill="none" stroke="#ff7f0e" '
        f'stroke-width="3"/>'
        if pv.angle_deg_reduced > 0.5
        else ""
    )
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{size}" height="{size}" viewBox="0 0 {size} {size}">'
        f'<circle cx="{c}" cy="{c}" r="90" fill="none" stroke="#bbb" stroke-dasharray="4 3"/>{dots}'
        f'<line x1="{c}" y1="{c}" x2="{c + bx:.1f}" y2="{c + by:.1f}" stroke="#1f77b4" stroke-width="4"/>'
        f'<line x1="{c}" y1="{c}" x2="{c + ax:.1f}" y2="{c + ay:.1f}" stroke="#d62728" stroke-width="4"/>'
        f'{arc}<circle cx="{c}" cy="{c}" r="4" fill="#333"/></svg>'
    )


def lines_chart(x, series: dict) -> tuple[pd.DataFrame, dict]:
    """A line chart of several series against the distance, as (data, Vega-Lite spec).

    Why not st.line_chart: it sends the data long (a row per point, each with its series' translated name):
    the fall-off's 3 x 513 points weighed 67 KB, over the 64 KB a view may send. Here the data go wide as
    float32 with neutral column names (~8 KB), and the chart folds them and words them (pos.series.<name>)."""
    data = pd.DataFrame(
        {"x": np.asarray(x, dtype=np.float32), **{name: np.asarray(y, dtype=np.float32) for name, y in series.items()}}
    )
    labels = [{"series": name, "label": t(f"pos.series.{name}")} for name in series]
    spec = {
        "transform": [
            {"fold": list(series), "as": ["series", "y"]},
            {"lookup": "series", "from": {"data": {"values": labels}, "key": "series", "fields": ["label"]}},
        ],
        "mark": {"type": "line", "point": len(data) <= 130, "tooltip": True},
        "encoding": {
            "x": {"field": "x", "type": "quantitative", "title": t("pos.axis.distance")},
            "y": {"field": "y", "type": "quantitative", "title": t("pos.axis.score")},
            "color": {
                "field": "label",
                "type": "nominal",
                "title": None,
                "sort": [d["label"] for d in labels],
                "legend": {"orient": "bottom", "direction": "vertical", "labelLimit": 400},
            },
        },
    }
    return data, spec


def rope_section() -> None:
    st.subheader(t("pos.rope.title"))
    st.markdown(t("pos.rope.about"))
    c1, c2, c3 = st.columns(3)
    c1.number_input(
        t("pos.dk"),
        ROPE_D_K_MIN,
        ROPE_D_K_MAX,
        step=2,
        key="pos_dk",
        bind="query-params",
        on_change=keep,
        args=("pos_dk",),
        help=t("pos.dk.help", dk=s.d_k),
    )
    c2.number_input(
        t("pos.base"),
        min_value=1.0,
        max_value=ROPE_BASE_MAX,
        step=1000.0,
        key="pos_base",
        bind="query-params",
        on_change=keep,
        args=("pos_base",),
        help=t("pos.base.help"),
    )
    c3.slider(t("pos.grid"), 2, ROPE_GRID_MAX, key="pos_grid", bind="query-params", on_change=keep, args=("pos_grid",))
    d_k = values.d_k
    head = head_slider(s.num_heads) if d_k == s.d_k else 0
    v = shared(
        "pos_rope",
        (SK, d_k, values.base, head, values.grid, values.pair, values.at),
        lambda: L.rope_view(s, d_k, values.base, head, values.grid, values.pair, values.at, run),
    )
    for note in v.notes:
        st.info(t(f"pos.note.{note}", dk=s.d_k, used=d_k), icon=":material/info:")
    if v.source == "scenario":
        st.caption(t("pos.rope.source.scenario", q=v.q_token, k=v.k_token, h=v.head, dk=v.d_k))
    else:
        st.caption(t("pos.rope.source.random", dk=v.d_k, seed=s.seed))
    if v.constant_on_diagonals:
        st.success(
            t("pos.rope.equal", spread=gap(v.diagonal_spread), plain=f"{v.plain_score:.4f}", diag=gap(v.diagonal_gap)),
            icon=":material/check_circle:",
        )
    else:
        st.error(t("pos.rope.not_equal", spread=gap(v.diagonal_spread)), icon=":material/block:")
    left, right = st.columns(2)
    with left:
        st.caption(t("pos.rope.grid", n=values.grid))
        show_heatmap(v.grid, key="pos_rope_grid", t=t)
    with right:
        st.caption(t("pos.rope.absolute", spread=f"{v.absolute_spread:.4f}"))
        show_heatmap(v.absolute_grid, key="pos_abs_grid", t=t)
    st.caption(t("pos.rope.by_distance"))
    st.vega_lite_chart(
        *lines_chart(v.by_distance.x, {"lowest": v.by_distance_low, "highest": v.by_distance_high}), height=260
    )
    # one pair of dimensions turning
    st.markdown(f"#### {t('pos.pair.title')}")
    half = d_k // 2
    p1, p2 = st.columns(2)
    if half > 1:
        p1.slider(t("pos.pair"), 0, half - 1, key="pos_pair", bind="query-params", on_change=keep, args=("pos_pair",))
    p2.number_input(
        t("pos.at"), 0, ROPE_DISTANCE_MAX, step=1, key="pos_at", bind="query-params", on_change=keep, args=("pos_at",)
    )
    pv = v.pair
    a, b = st.columns([1, 2], vertical_alignment="center")
    a.image(angle_svg(pv), width=220)
    b.markdown(
        t(
            "pos.pair.numbers",
            i=pv.pair,
            a=pv.dims[0],
            b=pv.dims[1],
            m=pv.position,
            dk=d_k,
            base=f"{v.base:g}",
            theta=f"{pv.theta:.6g}",
            angle=f"{pv.angle:.4f}",
            turns=f"{pv.turns:.3f}",
            deg=f"{pv.angle_deg_reduced:.1f}",
            b0=f"{pv.before[0]:.4f}",
            b1=f"{pv.before[1]:.4f}",
            a0=f"{pv.after[0]:.4f}",
            a1=f"{pv.after[1]:.4f}",
            lb=f"{pv.length_before:.4f}",
            la=f"{pv.length_after:.4f}",
            last=values.grid - 1,
        )
    )
    # fall-off with distance
    st.markdown(f"#### {t('pos.falloff.title')}")
    st.caption(t("pos.falloff.about", samples=v.falloff_samples, dk=d_k, sq=f"{math.sqrt(d_k):.2f}"))
    st.vega_lite_chart(
        *lines_chart(
            v.falloff_matched.x,
            {"matched": v.falloff_matched.y, "expected": v.falloff_expected.y, "unrelated": v.falloff_unrelated.y},
        ),
        height=280,
    )


# ---------------------------------------------------------------- 4. the real model's learned table
def learned_section() -> None:
    st.subheader(t("pos.learned.title"))
    st.markdown(t("pos.learned.about"))
    st.select_slider(t("pos.span"), L.SPANS, key="pos_span", bind="query-params", on_change=keep, args=("pos_span",))
    real = real_model()
    if real is None:
        return
    v = shared("pos_learned", (values.span,), lambda: L.learned_view(real, values.span))
    st.caption(
        t(
            "pos.learned.shape",
            rows=v.table_shape[0],
            cols=v.table_shape[1],
            first=", ".join(f"{x:.4f}" for x in v.first_values),
            last=v.span - 1,
            stride=v.stride,
        )
    )
    show_heatmap(v.similarity, key="pos_similarity", t=t)
    st.table(
        {
            t("pos.learned.col.table"): [t("pos.kind.learned"), t("pos.kind.sinusoidal")],
            t("pos.learned.col.near"): [f"{v.learned_neighbour:.3f}", f"{v.sinusoidal_neighbour:.3f}"],
            t("pos.learned.col.far", half=v.span // 2): [f"{v.learned_far:.3f}", f"{v.sinusoidal_far:.3f}"],
        },
        hide_index=True,
    )
    st.caption(t("pos.learned.read"))


SECTION_BODIES = {"shuffle": shuffle_section, "add": add_section, "rope": rope_section, "learned": learned_section}
with tabs[open_id]:
    SECTION_BODIES[open_id]()
