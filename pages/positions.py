"""Positions: attention alone cannot tell word order, and how sinusoids, a learned table and RoPE fix it.

Thin: the shared settings (page_context) -> the page's URL values (lessons.positions.URL_KEYS, settled by
ui.url_state: a bad value is corrected with a notice and written back) -> the lesson's plain data -> drawn.
Every number, printed as the page prints it, comes from lessons/positions/ (tested there: `*_numbers`,
`add_table`, `similarity_table`, `angle_svg`); heatmaps go to ui.heatmaps.show_heatmap as data, the two line
charts are charts.lines.distance_chart descriptions drawn by ui.linecharts.show_lines.
"""

import streamlit as st

import i18n
from charts.diagrams import angle_svg
from charts.lines import distance_chart
from core import pretrained
from i18n import plain
from lessons import positions as L
from lessons.url import Fix, as_url, key_default, key_range
from ui import tables, url_state
from ui.cache import shared
from ui.heatmaps import show_heatmap
from ui.linecharts import show_lines
from ui.live_part import live_part
from ui.models import load_real_model
from ui.sections import lazy_tabs
from ui.shell import PageContext, page_context
from ui.words import word

ctx = page_context()
t, s = ctx.t, ctx.settings
KEPT = "pos_kept"  # values of widgets drawn inside a tab, kept while their tab is closed
# pos_model and pos_example are written to the URL by their widget's callback (their labels are translated, the
# URL keeps the neutral value); the others are bound to their widget; the tab id is ui.sections.lazy_tabs' own.
BY_CALLBACK = ("pos_model", "pos_example")
WIDGET_KEYS = tuple(k for k in L.URL_KEYS if k.name != "pos_tab")


def real_model() -> pretrained.Pretrained | None:
    """The real model, or None after saying why it could not be loaded (its files failed their check)."""
    try:
        with st.spinner(t("pos.loading")):
            return load_real_model()  # one read-only copy per server (ui/models.py)
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


def settle(settings) -> L.PageValues:
    """Every page key (declared in lessons.positions.URL_KEYS), corrected by ui.url_state.settle before any
    widget is drawn: a link's bad value gets a notice and is corrected in the URL."""
    env = {"settings": settings}
    values = url_state.settle(WIDGET_KEYS, env, t=t, store=KEPT, url_first=BY_CALLBACK, notice=notice)
    return L.parse_url(values, settings)


def keep(key: str) -> None:
    url_state.keep_value(KEPT, key)


def span(key: str) -> tuple:
    """The lo..hi a widget offers: its URL key's own range (lessons.positions.URL_KEYS), so widget and link agree."""
    return key_range(L.URL_KEYS, key, {"settings": s})


def bound(key: str) -> dict:
    """The arguments of a widget bound to the URL under one of the lesson's keys (URL_KEYS: declared there, settled
    above) whose value is kept while its tab is closed."""
    assert key in L.URL_KEY, key
    # It starts at the key's declared default: Streamlit leaves a bound widget's own default out of the link, and a
    # link without the key opens at the declared one (a shuffle 0 reopened as shuffle 1).
    default = key_default(L.URL_KEYS, key, {"settings": s})
    return {"key": key, "value": default, "bind": "query-params", "on_change": keep, "args": (key,)}


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
    head = L.head_within(st.session_state.get("pos_head"), n_heads)
    if st.session_state.get("pos_head") != head:
        st.session_state["pos_head"] = kept()["pos_head"] = head
    if n_heads > 1:
        st.select_slider(t("pos.head"), list(range(n_heads)), **bound("pos_head"))
    return head


def base_input(where) -> None:
    """RoPE's base (pos_base), in the add and the RoPE section."""
    where.number_input(t("pos.base"), *span("pos_base"), step=1000.0, help=t("pos.base.help"), **bound("pos_base"))


def show_table(table: L.Table) -> None:
    """A lesson's table: its titles and Text cells worded in the page's language, its printed numbers as they are."""
    tables.show_table({word(title, t): [word(cell, t) for cell in cells] for title, cells in table.columns})


def section_head(section: str) -> None:
    """A section's heading and what it is about: one markdown element (each element a step re-sends costs the
    browser a render)."""
    st.markdown(f"### {t(f'pos.{section}.title')}\n\n{t(f'pos.{section}.about')}")


def row():
    """Widgets side by side in ONE container (columns would be one container and one more per column)."""
    return st.container(horizontal=True, vertical_alignment="bottom")


def distance_lines(name: str, x, series: dict, height: int) -> None:
    show_lines(distance_chart(x, series, t, height), name=f"rope-{name}", key=f"pos_{name}_chart", t=t)


# ---------------------------------------------------------------- the page
st.markdown(f"# {t('page.positions')}\n\n{t('pos.intro')}")  # title and intro: one element, which no step changes
values = settle(s)


def live(draw) -> None:
    """The rest of a section, below its controls, in the page's live part (ui/live_part.py): a step of seq_len or the
    seed reruns it alone, and none of the controls above it is sent again. `draw(c, values)` reads the settings from
    `c`; rerun alone, the page's URL values are read again (a widget inside it may have moved)."""
    live_part(lambda c, alone: draw(c, settle(c.settings) if alone else values), ctx)


def bad_tab(given: str, used: str) -> None:
    st.warning(t("pos.fix.unreadable", param="pos_tab", given=plain(given), used=used), icon=":material/build:")


SECTIONS = L.TABS
open_id, tabs = lazy_tabs(
    "pos_tab", SECTIONS, lambda sid, lang: i18n.t(f"pos.tab.{sid}", lang), ctx.lang, on_bad_url=bad_tab
)


# ---------------------------------------------------------------- 1. shuffle the words
def next_shuffle() -> None:
    seed = L.next_shuffle(st.session_state.get("pos_shuffle"), values.shuffle)
    st.session_state["pos_shuffle"] = kept()["pos_shuffle"] = seed


def shuffle_section() -> None:
    section_head("shuffle")
    widgets = row()
    seed_help = t("pos.shuffle.seed.help")
    widgets.number_input(t("pos.shuffle.seed"), *span("pos_shuffle"), step=1, help=seed_help, **bound("pos_shuffle"))
    widgets.button(t("pos.shuffle.again"), key="pos_shuffle_again", on_click=next_shuffle, icon=":material/shuffle:")
    widgets.toggle(t("pos.shuffle.causal"), help=t("pos.shuffle.causal.help"), **bound("pos_causal"))
    head = head_slider(s.num_heads)
    live(lambda c, vals: shuffle_live(c, vals, head))


def shuffle_live(c: PageContext, vals: L.PageValues, head: int) -> None:
    s, causal = c.settings, vals.causal
    v = shared(
        "pos_shuffle_view",
        (c.key, vals.shuffle, causal, head),
        lambda: L.shuffle_view(s, vals.shuffle, causal, head, c.run()),
    )
    n = L.shuffle_numbers(v)
    # the notes (in caption style) and the permutation: one element
    notes = [f":small[:gray[{t(f'pos.note.{note}', mask=t(f'mask.{s.mask}'))}]]" for note in v.notes]
    st.markdown("\n\n".join([*notes, t("pos.shuffle.perm", **n["perm"])]))
    if v.equal:
        st.success(t("pos.shuffle.equal", **n["equal"]), icon=":material/check_circle:")
    else:
        st.error(t("pos.shuffle.broken", **n["broken"]), icon=":material/block:")
        st.markdown(t("pos.shuffle.front", **n["front"]))
    st.caption(t("pos.shuffle.x", **n["x"]))
    show_heatmap(v.x, key="pos_x", t=t)
    st.caption(t("pos.shuffle.weights", **n["weights"]))
    show_heatmap(v.weights, key="pos_weights", t=t)
    st.caption(t("pos.shuffle.output", **n["output"]))
    show_heatmap(v.output, key="pos_output", t=t)


# ---------------------------------------------------------------- 2. add positions
def add_section() -> None:
    section_head("add")
    model = choose("pos_model", L.MODELS, lambda m: t(f"pos.model.{m}"), t("pos.model"))
    widgets = row()  # side by side in one container (columns: one more container per column)
    with widgets:
        if model == "real":
            examples = tuple(range(len(pretrained.EXAMPLES)))
            choose("pos_example", examples, lambda i: pretrained.EXAMPLES[i][0], t("pos.example"), widget="selectbox")
        head = head_slider(L.heads_of(s, model))
        base_input(widgets)
    live(lambda c, vals: add_live(c, vals, model, head))


def add_live(c: PageContext, vals: L.PageValues, model: str, head: int) -> None:
    s, base = c.settings, vals.base
    if model == "real":
        real = real_model()
        if real is None:
            return
        v = shared(
            "pos_add_real",
            (s.lang, head, base, vals.shuffle, vals.example),
            lambda: L.add_view(s, "real", head, base, vals.shuffle, real=real, example=vals.example),
        )
    else:
        v = shared(
            "pos_add_random",
            (c.key, head, base, vals.shuffle),
            lambda: L.add_view(s, "random", head, base, vals.shuffle, run=c.run()),
        )
    n = L.add_numbers(v)
    # Captions that follow each other are one element, and the table with what follows it one more (each element a
    # step re-sends costs the browser a render).
    about = [t(f"pos.add.model.{model}", **n["model"])]
    about += [t(f"pos.note.{note}", mask=t(f"mask.{s.mask}")) for note in v.notes]
    reasons = [t(f"pos.reason.{k.reason}", **n["reason"]) for k in v.kinds if not k.available]
    if reasons:
        st.caption("\n\n".join(about))
        for reason in reasons:
            st.info(reason, icon=":material/info:")
        about = []
    st.caption("\n\n".join([*about, t("pos.add.heatmap", **n["heatmap"])]))
    show_heatmap(v.side_by_side, key="pos_side", t=t)
    after = [t("pos.add.table", **n["table"])] + ([t("pos.add.trained")] if model == "real" else [])
    table = L.add_table(v)
    tables.show_table_in_text(
        "",
        {word(title, t): [word(cell, t) for cell in cells] for title, cells in table.columns},
        "\n\n".join(f":small[:gray[{a}]]" for a in after),
    )
    # The kinds' formulas (11 of them) in an element of their own, which no step changes: inside the table's element
    # the browser typeset them again on every step (benchmarks/README.md, 2026-12-05).
    st.markdown(t("pos.add.kinds"))


# ---------------------------------------------------------------- 3. RoPE is about distance
def rope_section() -> None:
    section_head("rope")
    widgets = row()
    widgets.number_input(t("pos.dk"), *span("pos_dk"), step=2, help=t("pos.dk.help", dk=s.d_k), **bound("pos_dk"))
    base_input(widgets)
    widgets.slider(t("pos.grid"), *span("pos_grid"), **bound("pos_grid"))
    d_k = values.d_k
    head = head_slider(s.num_heads) if L.uses_scenario(s, d_k) else 0
    live(lambda c, vals: rope_live(c, vals, d_k, head))


def rope_live(c: PageContext, vals: L.PageValues, d_k: int, head: int) -> None:
    s = c.settings
    v = shared(
        "pos_rope",
        (c.key, d_k, vals.base, head, vals.grid, vals.pair, vals.at),
        lambda: L.rope_view(s, d_k, vals.base, head, vals.grid, vals.pair, vals.at, c.run()),
    )
    n = L.rope_numbers(v)
    for note in v.notes:
        st.info(t(f"pos.note.{note}", dk=s.d_k, used=d_k), icon=":material/info:")
    if v.source == "scenario":
        st.caption(t("pos.rope.source.scenario", q=v.q_token, k=v.k_token, h=v.head, dk=v.d_k))
    else:
        st.caption(t("pos.rope.source.random", dk=v.d_k, seed=s.seed))
    if v.constant_on_diagonals:
        st.success(t("pos.rope.equal", **n["equal"]), icon=":material/check_circle:")
    else:
        st.error(t("pos.rope.not_equal", **n["not_equal"]), icon=":material/block:")
    left, right = st.columns(2)  # side by side: the contrast is seen at a glance
    with left:
        st.caption(t("pos.rope.grid", **n["grid"]))
        show_heatmap(v.grid, key="pos_rope_grid", t=t)
    with right:
        st.caption(t("pos.rope.absolute", **n["absolute"]))
        show_heatmap(v.absolute_grid, key="pos_abs_grid", t=t)
    st.caption(word(L.by_distance_text(v), t))
    distance_lines("by-distance", v.by_distance.x, {"lowest": v.by_distance_low, "highest": v.by_distance_high}, 260)
    # one pair of dimensions turning
    st.markdown(f"#### {t('pos.pair.title')}")
    widgets = row()
    if v.pairs > 1:
        widgets.slider(t("pos.pair"), 0, v.pairs - 1, **bound("pos_pair"))
    widgets.number_input(t("pos.at"), *span("pos_at"), step=1, **bound("pos_at"))
    # columns, not a row container: in a row the long text would wrap below the drawing instead of beside it
    a, b = st.columns([1, 2], vertical_alignment="center")
    a.image(angle_svg(v.pair), width=220)
    b.markdown(t("pos.pair.numbers", **n["pair"]))
    # fall-off with distance: its heading and how to read it, one element (the reading in caption style)
    st.markdown(f"#### {t('pos.falloff.title')}\n\n:small[:gray[{word(L.falloff_text(v), t)}]]")
    fall = {"matched": v.falloff_matched.y, "expected": v.falloff_expected.y, "unrelated": v.falloff_unrelated.y}
    distance_lines("falloff", v.falloff_matched.x, fall, 280)


# ---------------------------------------------------------------- 4. the real model's learned table
def learned_section() -> None:
    section_head("learned")
    st.select_slider(t("pos.span"), L.SPANS, **bound("pos_span"))
    live(lambda c, vals: learned_live(vals))  # no setting changes it: a step re-sends it as it was, nothing above it


def learned_live(vals: L.PageValues) -> None:
    real = real_model()
    if real is None:
        return
    v = shared("pos_learned", (vals.span,), lambda: L.learned_view(real, vals.span))
    st.caption(word(L.learned_shape(v), t))
    show_heatmap(v.similarity, key="pos_similarity", t=t)
    show_table(L.similarity_table(v))
    st.caption(word(L.learned_read(v), t))


SECTION_BODIES = {"shuffle": shuffle_section, "add": add_section, "rope": rope_section, "learned": learned_section}
with tabs[open_id]:
    SECTION_BODIES[open_id]()
