"""The "Positions" page under AppTest: every section in zh and en at the smallest and largest shared settings
and every mask, the numbers printed equal lessons/positions/'s, and every page key's bad URL value is
corrected with a notice (no exception)."""

from __future__ import annotations

import numpy as np
import pytest
from chart_reader import heatmaps
from conftest import heatmap_tables, in_both_languages, run_app, tables

from core.pretrained import EXAMPLES
from i18n import plain
from i18n import t as tr
from lessons import positions as L
from lessons.settings import Settings

SECTIONS = L.TABS
# (d_model, num_heads, seq_len, mask): the smallest and largest of every shared setting, every mask
SHARED = [(8, 1, 2, "none"), (8, 8, 2, "causal"), (512, 64, 32, "padding"), (512, 1, 32, "none"), (64, 4, 8, "custom")]


@pytest.fixture(scope="module")
def real():
    from core import pretrained

    return pretrained.load()


def texts(elements) -> list[str]:
    # i18n.t prints the minus of "8.94e-08" as a non-breaking hyphen (a phone never breaks the number): read it back
    return [str(e.value).replace("\u2011", "-") for e in elements]


def same_heatmaps(at, *expected) -> None:
    """The chart route's heatmaps on screen are the lesson's Heatmaps: every panel's values, and the words."""
    drawn = heatmaps(at)
    assert len(drawn) == len(expected)
    for got, hm in zip(drawn, expected):
        assert len(got.arrays) == len(hm.panels)
        for i, panel in enumerate(hm.panels):
            np.testing.assert_array_equal(got.values(i), panel.values)
        assert got.header["row_axis"] == tr(hm.row_axis.key, "en")


def everything(at) -> str:
    """All text the page printed (markdown, captions, notices, tables) as one string."""
    parts = []
    for kind in ("markdown", "caption", "success", "error", "warning", "info", "title", "subheader"):
        parts += [str(e.value) for e in getattr(at, kind)]
    for table in tables(at):
        parts.append(table.value.to_string())
    return "\n".join(parts).replace("\u2011", "-")  # i18n.t's non-breaking hyphen in "1.2e-08", read back


def settings_of(d, h, T, mask, lang="en") -> Settings:
    return Settings(d_model=d, num_heads=h, seq_len=T, mask=mask, seed=0, lang=lang)


def open_page(lang, d, h, T, mask, **params):
    at = run_app("positions", timeout=240, lang=lang, d_model=d, num_heads=h, seq_len=T, mask=mask, seed=0, **params)
    assert not at.exception, [e.value for e in at.exception]
    return at


@pytest.mark.app
@pytest.mark.parametrize(
    "section,shared,lang",
    in_both_languages(SECTIONS, SHARED),
    ids=[f"{s}-{'-'.join(map(str, v))}-{lang}" for s, v, lang in in_both_languages(SECTIONS, SHARED)],
)
def test_every_section_opens(section, shared, lang):
    d, h, T, mask = shared
    at = open_page(lang, d, h, T, mask, pos_tab=section)
    assert texts(at.markdown)[0].startswith(f"# {tr('page.positions', lang)}\n\n")  # the page's title, then its intro
    # the section's heading opens the markdown element that says what it is about
    assert any(m.startswith(f"### {tr(f'pos.{section}.title', lang)}\n\n") for m in texts(at.markdown))
    assert not at.warning  # a clean link corrects nothing
    if section == "shuffle":
        assert at.number_input(key="pos_shuffle").value == 1
        assert at.toggle(key="pos_causal").value is False
        heads = [w for w in at.get("select_slider") if w.key == "pos_head"]
        assert len(heads) == (1 if h > 1 else 0)  # the head, when there is one to choose
        assert not heads or heads[0].options == [str(i) for i in range(h)]


@pytest.mark.app
@pytest.mark.parametrize("causal", (False, True))
@pytest.mark.parametrize("shared", SHARED[:4], ids=lambda v: "-".join(map(str, v)))
def test_shuffle_prints_the_lessons_numbers(shared, causal):
    d, h, T, mask = shared
    at = open_page(
        "en", d, h, T, mask, pos_tab="shuffle", pos_shuffle=7, pos_causal=str(causal).lower(), pos_head=h - 1
    )
    v = L.shuffle_view(settings_of(d, h, T, mask), 7, causal, h - 1)
    if causal and T > 1:
        broken = texts(at.error)
        assert len(broken) == 1 and f"{v.output_gap:.2e}" in broken[0] and f"{v.weights_gap:.2e}" in broken[0]
        assert f"{v.free_output_gap:.2e}" in broken[0]
        front = next(m for m in texts(at.markdown) if "counter-example" in m)
        assert f"{v.front_self_before:.4f}" in front and "1.0000" in front and f"head {h - 1}" in front
    else:
        ok = texts(at.success)
        assert len(ok) == 1 and f"{v.output_gap:.2e}" in ok[0] and f"{v.weights_gap:.2e}" in ok[0]
        assert v.output_gap <= 1e-5
    moves = ", ".join(f"{i}←{int(p)}" for i, p in enumerate(v.perm) if v.moved[i])
    assert any(moves in m for m in texts(at.markdown))
    assert f"{float(v.row_gaps.max()):.2e}" in everything(at)
    same_heatmaps(at, v.x, v.weights, v.output)


@pytest.mark.app
def test_shuffle_button_draws_the_next_seed_and_keeps_it_in_state():
    at = open_page("en", 64, 4, 8, "none", pos_tab="shuffle", pos_shuffle=41)
    before = next(m for m in texts(at.markdown) if m.startswith("The shuffle moved"))
    at.button(key="pos_shuffle_again").click().run()
    assert not at.exception
    assert at.number_input(key="pos_shuffle").value == 42
    after = next(m for m in texts(at.markdown) if m.startswith("The shuffle moved"))
    v = L.shuffle_view(settings_of(64, 4, 8, "none"), 42, False, 0)
    assert after != before and ", ".join(f"{i}←{int(p)}" for i, p in enumerate(v.perm) if v.moved[i]) in after


@pytest.mark.app
@pytest.mark.parametrize("shared", SHARED[:4], ids=lambda v: "-".join(map(str, v)))
def test_add_random_prints_the_lessons_table(shared):
    d, h, T, mask = shared
    at = open_page("en", d, h, T, mask, pos_tab="add", pos_base=500)
    v = L.add_view(settings_of(d, h, T, mask), "random", 0, 500.0, 1)
    table = tables(at)[0].value
    shown = [k for k in v.kinds if k.available]
    assert list(table.iloc[:, 0]) == [tr(f"pos.kind.{k.kind}", "en") for k in shown]
    assert list(table.iloc[:, 1]) == [f"{k.shuffle_gap:.2e}" for k in shown]
    assert list(table.iloc[:, 2]) == [f"{k.change:.2e}" for k in shown]
    assert any(tr("pos.reason.learned_width", "en", width=384, d=d, dk=d // h) == i for i in texts(at.info))
    same_heatmaps(at, v.side_by_side)


@pytest.mark.app
def test_the_kinds_formulas_are_an_element_a_step_of_t_leaves_as_it_was():
    """The kinds' eleven formulas are typeset once, not again on every seq_len step (benchmarks/README.md): they are
    not in the table's element, whose numbers a step changes."""
    kinds = tr("pos.add.kinds", "en")
    at = run_app("positions", lang="en", pos_tab="add", seq_len=8)
    shown = [m.value for m in at.main.markdown]
    assert kinds in shown and not any(kinds in v and v != kinds for v in shown)
    table_before = tables(at)[0].value
    at.sidebar.slider(key="seq_len").set_value(9).run()
    assert not at.exception
    assert kinds in [m.value for m in at.main.markdown]
    assert not tables(at)[0].value.equals(table_before)  # the numbers beside it did change


@pytest.mark.app
@pytest.mark.parametrize("lang", ("en", "zh"))
def test_add_real_model_prints_the_lessons_table(lang, real):
    at = open_page(lang, 64, 4, 8, "none", pos_tab="add", pos_model="real", pos_example=1, pos_head=11)
    v = L.add_view(settings_of(64, 4, 8, "none", lang), "real", 11, 10_000.0, 1, real=real, example=1)
    table = tables(at)[0].value
    assert list(table.iloc[:, 0]) == [tr(f"pos.kind.{k}", lang) + (" ★" if k == "learned" else "") for k in L.KINDS]
    assert list(table.iloc[:, 1]) == [f"{k.shuffle_gap:.2e}" for k in v.kinds]
    assert list(table.iloc[:, 4]) == [f"{k.twin_gap:.2e}" for k in v.kinds]
    assert at.select_slider(key="pos_head").value == 11
    assert at.selectbox(key="pos_example_pick").value == 1
    if lang == "en":
        same_heatmaps(at, v.side_by_side)
    assert EXAMPLES[1][0] in at.selectbox(key="pos_example_pick").options


@pytest.mark.app
@pytest.mark.parametrize(
    "shared", [(8, 8, 2, "none"), (64, 4, 8, "none"), (512, 1, 32, "causal")], ids=lambda v: "-".join(map(str, v))
)
def test_rope_prints_the_lessons_numbers(shared):
    d, h, T, mask = shared
    at = open_page("en", d, h, T, mask, pos_tab="rope", pos_grid=12, pos_at=5)
    s = settings_of(d, h, T, mask)
    d_k = L.default_dk(s)
    v = L.rope_view(s, d_k, 10_000.0, 0, 12, 0, 5)
    ok = texts(at.success)
    assert len(ok) == 1 and f"{v.diagonal_spread:.2e}" in ok[0] and f"{v.plain_score:.4f}" in ok[0]
    assert v.diagonal_spread <= 1e-5
    assert any(f"{v.absolute_spread:.4f}" in c for c in texts(at.caption))
    pair = next(m for m in texts(at.markdown) if m.startswith("Pair 0 is"))
    assert f"{v.pair.angle:.4f}" in pair and f"{v.pair.after[0]:.4f}" in pair and f"{v.pair.length_after:.4f}" in pair
    if d // h % 2:
        assert any("shared d_k = 1 is odd" in i for i in texts(at.info))
    assert at.number_input(key="pos_dk").value == d_k
    same_heatmaps(at, v.grid, v.absolute_grid)


@pytest.mark.app
def test_rope_typed_odd_dk_is_explained_and_made_even():
    at = open_page("zh", 64, 4, 8, "none", pos_tab="rope")
    at.number_input(key="pos_dk").set_value(15).run()
    assert not at.exception
    assert any("奇数" in w and "14" in w for w in texts(at.warning))
    assert at.number_input(key="pos_dk").value == 14
    at.number_input(key="pos_base").set_value(1.0).run()
    assert not at.exception
    assert any("base = 1" in w for w in texts(at.warning))
    assert at.number_input(key="pos_base").value == 10_000.0


@pytest.mark.app
@pytest.mark.parametrize("span", (16, 512))
def test_learned_prints_the_lessons_numbers(span, real):
    at = open_page("en", 64, 4, 8, "none", pos_tab="learned", pos_span=span)
    v = L.learned_view(real, span)
    table = tables(at)[0].value
    assert list(table.iloc[:, 1]) == [f"{v.learned_neighbour:.3f}", f"{v.sinusoidal_neighbour:.3f}"]
    assert list(table.iloc[:, 2]) == [f"{v.learned_far:.3f}", f"{v.sinusoidal_far:.3f}"]
    assert any("(512, 384)" in c and f"{float(v.first_values[0]):.4f}" in c for c in texts(at.caption))
    same_heatmaps(at, v.similarity)


# ---------------------------------------------------------------- bad URL values
BAD = [  # (key, raw, the value the page uses, the tab that shows it)
    ("pos_tab", "<b>x</b>", "shuffle", "shuffle"),
    ("pos_shuffle", "1e400", 99999, "shuffle"),
    ("pos_shuffle", "abc", 1, "shuffle"),
    ("pos_causal", "maybe", False, "shuffle"),
    ("pos_head", "99", 3, "shuffle"),
    ("pos_model", "fake", "random", "add"),
    ("pos_example", "-5", 0, "add"),
    ("pos_dk", "7", 6, "rope"),
    ("pos_dk", "1e9", 256, "rope"),
    ("pos_base", "0.5", 10_000.0, "rope"),
    ("pos_base", "nan", 10_000.0, "rope"),
    ("pos_grid", "999", 64, "rope"),
    ("pos_pair", "-1", 0, "rope"),
    ("pos_at", "x" * 40, 3, "rope"),
    ("pos_span", "100", 128, "learned"),
]


@pytest.mark.app
@pytest.mark.parametrize("key,raw,used,tab", BAD, ids=[f"{b[0]}={b[1][:8]}" for b in BAD])
def test_bad_url_value_is_corrected_with_a_notice(key, raw, used, tab):
    params = {"pos_tab": tab, key: raw}
    at = open_page("en", 64, 4, 8, "none", **params)
    notices = texts(at.warning)
    shown = str(used).lower() if isinstance(used, bool) else f"{used:g}" if isinstance(used, float) else str(used)
    fixes = [f for f in L.parse_url({key: raw}, settings_of(64, 4, 8, "none")).fixes if f.key == key]
    assert len(fixes) == 1 and fixes[0].used == shown  # the lesson's correction ...
    expected = tr(f"pos.fix.{fixes[0].reason}", "en", param=key, given=plain(fixes[0].given), used=shown)
    assert expected in notices, notices  # ... is the notice in the main area
    assert texts(at.markdown)[0].startswith("# Positions\n\n") and any(m.startswith("### ") for m in texts(at.markdown))
    widget = {
        "pos_shuffle": "number_input",
        "pos_causal": "toggle",
        "pos_head": "select_slider",
        "pos_dk": "number_input",
        "pos_base": "number_input",
        "pos_grid": "slider",
        "pos_pair": "slider",
        "pos_at": "number_input",
        "pos_span": "select_slider",
    }.get(key)
    if widget:
        assert getattr(at, widget)(key=key).value == used
    elif key in ("pos_model", "pos_example", "pos_tab"):
        assert at.query_params[key] == [str(used)] or at.query_params[key] == str(used)


@pytest.mark.app
def test_every_bad_value_at_once_in_chinese():
    at = open_page(
        "zh",
        512,
        64,
        32,
        "causal",
        pos_tab="nope",
        pos_shuffle="-1",
        pos_causal="2",
        pos_head="1e9",
        pos_model="x",
        pos_example="x",
        pos_dk="3",
        pos_base="-inf",
        pos_grid="1",
        pos_pair="1e9",
        pos_at="1e400",
        pos_span="x",
    )
    assert len(at.warning) == 12
    assert all("链接里的" in w or "奇数" in w or "base" in w for w in texts(at.warning))


@pytest.mark.parametrize("lang", ("en", "zh"))
def test_every_quiz_item_has_its_wording(lang):
    """The page's predict-then-reveal questions (lessons.positions.quiz_items) are worded in both languages with
    exactly their own parameters, as lessons/quiz shows them."""
    for shared in SHARED[:4]:
        s = settings_of(*shared, lang=lang)
        values = L.parse_url({}, s)
        items = L.quiz_items(s, values)
        assert len(items) == 8
        for item in items:
            prompt = tr(f"{item.key}.prompt", lang, **item.params)
            why = tr(f"{item.key}.why", lang, answer=item.answer, **item.params)
            assert "{" not in prompt and "{" not in why
            assert item.answer_type == "choice" or str(item.answer) in why  # a choice is shown by its option
            assert item.accepted and all(L.accepts(item, form) for form in item.accepted)  # every accepted form


@pytest.mark.app
def test_table_view_shows_every_panel_as_a_table():
    """With the sidebar's "tables instead of heatmaps", each panel of the RoPE section is a table of its values."""
    at = open_page("en", 64, 4, 8, "none", pos_tab="rope", pos_grid=5, table_view="true")
    assert not heatmaps(at)
    v = L.rope_view(settings_of(64, 4, 8, "none"), 16, 10_000.0, 0, 5, 0, 3)
    frames = heatmap_tables(at)
    assert len(frames) == 2 and frames[0].shape == (5, 5)
    assert frames[0].iloc[4, 1] == f"{float(v.grid.panels[0].values[4, 1]):.4f}"
    assert frames[1].iloc[0, 3] == f"{float(v.absolute_grid.panels[0].values[0, 3]):.4f}"
