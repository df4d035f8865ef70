"""Masks lab: what a mask does to the weights (lessons.masks_lab), its heatmaps as data, and the page (AppTest)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from chart_reader import heatmaps
from conftest import run_app, sections, tables
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

import i18n
from charts import table
from core.masks import mask_to_text
from lessons import masks_lab as lab
from lessons.settings import Settings


def cfg(seq_len=6, d_model=16, num_heads=4, mask="none", lang="en"):
    return Settings(d_model, num_heads, seq_len, mask, 0, lang)


def check_blocked(run: lab.LabRun) -> None:
    """Blocked cells weigh exactly 0; a fully blocked row is uniform (-1e9) or NaN (-inf); kept rows sum to 1."""
    w = run.trace.weights  # (B, h, T_q, T_k)
    T_k = w.shape[-1]
    for b in range(run.batch):
        for i in range(w.shape[2]):
            keep = run.keep[b, i]
            row = w[b, :, i]  # (h, T_k)
            if keep.any():
                assert (row[:, ~keep] == 0).all()
                assert torch.allclose(row.sum(-1), torch.ones(row.shape[0]), atol=1e-5)
            elif run.setup.fill == "-inf":
                assert torch.isnan(row).all() and run.nan_rows[b, i]
            else:
                assert torch.allclose(row, torch.full_like(row, 1.0 / T_k))
    assert lab.blocked_cells_ok(run)


KINDS = [(), ("causal",), ("padding",), ("custom",), ("causal", "padding"), ("causal", "padding", "custom")]


@pytest.mark.parametrize("parts", KINDS, ids=lambda p: "+".join(p) or "none")
@pytest.mark.parametrize("fill", lab.FILLS)
@pytest.mark.parametrize("cross, T_k, lengths", [(False, 6, (4,)), (False, 6, (6, 0)), (True, 3, (2, 3))])
def test_blocked_cells_get_weight_zero_for_every_kind(parts, fill, cross, T_k, lengths):
    grid, _ = lab.parse_grid(None, 6, T_k)
    run = lab.run_lab(cfg(), lab.LabSetup(parts, 6, T_k, cross, lengths, grid, fill))
    assert run.trace.weights.shape == (run.batch, 4, 6, T_k)
    check_blocked(run)
    if parts == ():
        assert run.mask is None and run.keep.all()


@hsettings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(2, 7), st.integers(2, 7), st.data(), st.sampled_from(lab.FILLS), st.booleans())
def test_any_hand_drawn_grid_blocks_its_cells(T_q, T_k, data, fill, with_padding):
    bits = data.draw(st.lists(st.booleans(), min_size=T_q * T_k, max_size=T_q * T_k))
    grid = torch.tensor(bits).reshape(T_q, T_k)
    text = mask_to_text(grid)
    parsed, fitted = lab.parse_grid(text, T_q, T_k)
    assert fitted and torch.equal(parsed, grid)  # the URL text round-trips
    parts = ("padding", "custom") if with_padding else ("custom",)
    lengths = (data.draw(st.integers(0, T_k)),)
    run = lab.run_lab(cfg(seq_len=T_q), lab.LabSetup(parts, T_q, T_k, True, lengths, parsed, fill))
    check_blocked(run)


def test_fully_blocked_row_never_raises_and_is_explained():
    off = torch.zeros(4, 4, dtype=torch.bool)
    for fill, expect_nan in (("-1e9", False), ("-inf", True)):
        run = lab.run_lab(cfg(seq_len=4), lab.LabSetup(("custom",), 4, 4, custom_grid=off, fill=fill))
        assert run.blocked_rows.all()
        assert bool(torch.isnan(run.trace.output).any()) == expect_nan
        assert bool(run.nan_rows.all()) == expect_nan
        demo = lab.full_row_demo(run, head=3)
        assert demo.actual and (demo.seq, demo.query) == (0, 0)
        assert torch.allclose(demo.weights["-1e9"], torch.full((4,), 0.25))
        assert torch.isnan(demo.weights["-inf"]).all() and torch.isnan(demo.shifted["-inf"]).all()
        assert (demo.shifted["-1e9"] == 0).all()
    # no blocked row: the demo is a "what if" on query 0
    run = lab.run_lab(cfg(seq_len=4), lab.LabSetup(("causal",), 4, 4))
    assert not lab.full_row_demo(run, 0).actual


@pytest.mark.parametrize("fill", lab.FILLS)
def test_wrong_polarity_attends_to_the_future(fill):
    T = 6
    bug = lab.polarity_bug(cfg(seq_len=T), fill)
    assert torch.equal(bug.stored.bool(), ~bug.intended)  # True = blocked
    assert torch.equal(bug.seen_keep, ~bug.intended)  # the seed's code keeps exactly what should be hidden
    rows = bug.summary(head=1)
    for r in rows[:-1]:
        assert r["correct_future"] == 0 and math.isclose(r["correct_past"], 1, abs_tol=1e-5)
        assert r["bug_past"] == 0 and math.isclose(r["bug_future"], 1, abs_tol=1e-5)
    assert (bug.bug[:, 0, 0] == 0).all()  # query 0 can no longer see itself
    last = bug.bug[1, T - 1]  # no future: the whole row is blocked
    if fill == "-inf":
        assert torch.isnan(last).all() and rows[-1]["bug_nan"]
    else:
        assert torch.allclose(last, torch.full((T,), 1.0 / T))


def test_grid_edits_and_url_text():
    T_q, T_k = 3, 4
    default = mask_to_text(lab.parse_grid(None, T_q, T_k)[0])
    once = lab.edit_grid("", T_q, T_k, "toggle", (1, 3))
    assert once != default and lab.edit_grid(once, T_q, T_k, "toggle", (1, 3)) == default
    assert lab.edit_grid(once, T_q, T_k, "all_on") == "1111.1111.1111"
    assert lab.edit_grid(once, T_q, T_k, "all_off") == "0000.0000.0000"
    assert lab.edit_grid(None, T_q, T_k, "causal") == "1000.1100.1110"
    assert lab.edit_grid("1000.1100.1110", T_q, T_k, "invert") == "0111.0011.0001"
    grid, fitted = lab.parse_grid("10.01", T_q, T_k)  # wrong size: default grid, reported
    assert not fitted and mask_to_text(grid) == default
    with pytest.raises(ValueError):
        lab.edit_grid(None, T_q, T_k, "toggle", (3, 0))
    assert lab.shown_values(torch.tensor([[True, False]]), "block").tolist() == [[0, 1]]


def marked(hm, panel=0) -> list[list[str]]:
    """What each cell of a Heatmap prints instead of its number ("" where it has no mark)."""
    marks = hm.panels[panel].marks
    rows, cols = hm.panels[panel].values.shape
    if marks is None:
        return [[""] * cols for _ in range(rows)]
    return [["" if k == 0 else hm.marks[k - 1].cell for k in row] for row in marks.tolist()]


def test_heatmaps_show_fill_and_nan():
    off = torch.zeros(2, 3, dtype=torch.bool)
    run = lab.run_lab(cfg(seq_len=2), lab.LabSetup(("custom",), 2, 3, True, custom_grid=off, fill="-inf"))
    view = lab.lab_view(run, 0, 0, "keep", clickable=True)
    assert marked(view.scores) == [["-inf"] * 3] * 2  # blocked cells are labelled with the fill value
    assert view.scores.panels[0].blocked.all()  # and drawn hatched, their hover says "blocked (-inf)"
    assert np.isnan(view.weights.panels[0].values).all() and marked(view.weights) == [["NaN"] * 3] * 2
    assert view.weights.panels[0].blocked.all()  # hatched: a fully blocked row (else an invisible gap)
    assert view.mask.clickable and not view.scores.clickable and not view.weights.clickable
    assert marked(view.mask) == [["0"] * 3] * 2  # nothing kept: the stored 0 of "1 = keep"
    assert view.mask.marks[0].hover.key == "masks.hover.mask.keep"
    # the table view prints the same words (charts/table.py reads the marks)
    assert table.tables(view.scores)[0].rows == [["-inf"] * 3] * 2
    assert table.tables(view.weights)[0].rows == [["NaN"] * 3] * 2


# ---------------------------------------------------------------- the page (AppTest)
def weight_column(at, table=0):
    df = tables(at)[table].value
    return df[df.columns[-1]].tolist()


@pytest.mark.app
def test_page_custom_grid_round_trips_through_the_url():
    at = run_app("masks", mask="custom", seq_len=3, masks_grid="100.110.011")  # the first section: the editor
    assert not at.exception
    assert at.text_input(key="masks_grid").value == "100.110.011"
    at.button(key="masks_btn_invert").click().run()
    assert not at.exception
    assert at.query_params["masks_grid"] in ("011.001.100", ["011.001.100"])
    # Another section (a click on its tab) uses the same grid, and the link keeps it.
    at.query_params["masks_tab"] = "row"
    at.run()
    assert not at.exception and not heatmaps(at)
    assert at.query_params["masks_grid"] in ("011.001.100", ["011.001.100"])
    assert at.query_params["masks_tab"] in ("row", ["row"])
    assert weight_column(at)[1:] == ["0", "0"]  # the inspected row is query 2 = "100": only key 0 is kept
    again = run_app("masks", mask="custom", seq_len=3, masks_grid="100.110.011", masks_tab="row")
    weights = weight_column(again)  # row 2, "011": key 0 blocked
    assert weights[0] == "0" and "0" not in weights[1:]
    back = run_app("masks", mask="custom", seq_len=3, masks_grid="011.001.100")
    assert back.text_input(key="masks_grid").value == "011.001.100"


@pytest.mark.app
def test_page_fully_blocked_inf_and_bad_url_values_never_crash():
    params = dict(mask="custom", seq_len=3, masks_grid="000.000.000", masks_fill="-inf", masks_head="7")
    at = run_app("masks", **params, masks_tab="row")
    assert not at.exception
    assert weight_column(at) == ["NaN"] * 3
    full = run_app("masks", **params, masks_tab="full")
    assert any("NaN" in w.value for w in full.warning)
    bad = run_app(
        "masks",
        mask="padding",
        seq_len=4,
        masks_grid="garbage",
        masks_tk="999",
        masks_pad="-5",
        masks_head="abc",
        masks_fill="nan",
        masks_cross="true",
        masks_extra="bogus",
        masks_batch="3",
        masks_tab="<b>x</b>",
        lang="zh",
    )
    assert not bad.exception
    assert len(bad.warning) >= 5
    assert any("masks_tab" in w.value and "grid" in w.value for w in bad.warning)  # the section: back to the first
    assert bad.query_params["masks_tab"] in ("grid", ["grid"])


@pytest.mark.app
def test_page_batch_of_two_and_cross_attention():
    at = run_app(
        "masks",
        mask="causal",
        seq_len=4,
        masks_extra="padding",
        masks_batch="2",
        masks_len0="3",
        masks_len1="1",
        masks_cross="true",
        masks_tk="5",
        masks_polarity="block",
    )
    assert not at.exception
    assert at.slider(key="masks_tk").value == 5
    assert any("(2, 1, 4, 5)" in c.value for c in at.caption)  # mask shape broadcast to (B, h, T_q, T_k)


@pytest.mark.app
def test_the_drawn_grid_is_used_by_the_other_pages():
    """Draw on the Masks lab, then open the walkthrough: its mask step counts the same blocked cells."""
    at = run_app("masks", mask="custom", seq_len=3, masks_grid="100.010.001", lang="en")
    assert not at.exception
    at.switch_page("pages/walkthrough.py")
    at.query_params.update({"walk_step": "mask"})
    at.run()
    assert not at.exception
    text = " ".join(m.value for m in at.markdown) + " ".join(c.value for c in at.caption)
    assert "6 of 9 cells blocked" in text  # the diagonal grid, not the default local window (3 of 9)


# ---------------------------------------------------------------- sections and the one chart
SECTION_CHARTS = {"grid": 3, "row": 0, "full": 0, "polarity": 2}


@pytest.mark.app
@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("section", list(SECTION_CHARTS))
def test_each_section_opens_from_the_link_and_draws_only_its_own_content(section, lang):
    at = run_app("masks", mask="causal", seq_len=5, masks_tab=section, lang=lang)
    assert not at.exception
    assert sections(at) == [i18n.t(f"masks.tab.{sid}", lang) for sid in SECTION_CHARTS]
    assert len(heatmaps(at)) == SECTION_CHARTS[section]
    heading = {"grid": "masks.figures", "row": "masks.row", "full": "masks.full", "polarity": "masks.pol"}[section]
    # a section's heading is a subheader, or the first line of the markdown element that says it with its text
    said = [m.value.split("\n", 1)[0].removeprefix("### ") for m in at.main.markdown if m.value.startswith("### ")]
    assert [h.value for h in at.main.subheader] + said == [i18n.t(heading, lang)]
    assert at.query_params["masks_tab"] in (section, [section])


def test_the_three_charts_hold_mask_scores_and_weights_of_the_run():
    grid, _ = lab.parse_grid("1000.1100.1110.0111", 4, 4)
    run = lab.run_lab(
        cfg(seq_len=4), lab.LabSetup(("custom", "padding"), 4, 4, lengths=(3,), custom_grid=grid, fill="-inf")
    )
    view = lab.lab_view(run, 0, 2, "block", clickable=True)
    keep = run.keep[0]
    # the mask: light = keep (state 0), dark = blocked (state 1); each cell prints the 0/1 stored under "block"
    mask = view.mask
    assert mask.role == "state" and mask.states == lab.MASK_STATES and mask.clickable
    assert np.array_equal(mask.panels[0].values, (~keep).numpy().astype(np.float32))
    assert marked(mask) == [[str(v) for v in r] for r in lab.shown_values(keep, "block").tolist()]
    assert {m.hover.key for m in mask.marks} == {"masks.hover.mask.block"}
    # the masked scores: the run's numbers, blocked cells hatched and printed "-inf"
    scores = view.scores
    assert scores.role == "signed" and np.array_equal(scores.panels[0].blocked, (~keep).numpy())
    assert torch.equal(torch.from_numpy(scores.panels[0].values.copy()), run.trace.masked_scores[0, 2])
    assert all(marked(scores)[r][c] == ("-inf" if not keep[r, c] else "") for r in range(4) for c in range(4))
    kept = run.trace.masked_scores[0, 2][keep]
    assert scores.vmax == -scores.vmin == pytest.approx(float(kept.abs().max()))  # symmetric over the kept scores
    # the weights: the run's numbers on 0..1
    weights = view.weights
    assert weights.role == "weights" and (weights.vmin, weights.vmax) == (0.0, 1.0)
    assert torch.equal(torch.from_numpy(weights.panels[0].values.copy()), run.trace.weights[0, 2])
    assert [p.title.key for h in (mask, scores, weights) for p in h.panels] == [
        "masks.fig.mask.block",
        "masks.fig.scores",
        "masks.fig.weights",
    ]
    assert mask.panels[0].row_labels == lab.axis_labels(run.q_labels[0])
    assert scores.panels[0].col_labels == lab.axis_labels(run.k_labels[0])
    # what a lesson hands out cannot be changed (it is shared by every session)
    with pytest.raises(ValueError):
        weights.panels[0].values[0, 0] = 5


@pytest.mark.app
def test_the_polarity_code_is_an_element_a_step_of_t_leaves_as_it_was():
    """Both ways to write the fill are code blocks: a step of T leaves their element as it was (the browser does not
    highlight them again), and the bug's setup, in the next element, says the new T."""

    def shown(T):
        at = run_app("masks", mask="causal", seq_len=T, masks_tab="polarity", lang="en")
        assert not at.exception
        return [m.value for m in at.main.markdown]

    before, after = shown(5), shown(6)
    code = [i for i, text in enumerate(before) if "# keep: 1 = keep" in text]
    assert len(code) == 1 and before[code[0]] == after[code[0]]
    assert before[code[0]].count("```python") == 2 and "masked_fill(mask, " in before[code[0]]
    setup = [i for i, text in enumerate(after) if i != code[0] and "**" + i18n.t("masks.bug", "en") + "**" in text]
    assert setup == [code[0] + 1]
    assert i18n.t("masks.bug.setup", "en", T=6, fill=lab.FILLS[0]) in after[setup[0]]


def test_the_polarity_bug_is_two_charts_of_two_panels():
    bug = lab.polarity_bug(cfg(seq_len=5), "-1e9")
    view = lab.bug_view(bug, 1)
    assert [p.title.key for p in view.masks.panels] == ["masks.bug.stored", "masks.bug.seen"]
    assert [p.title.key for p in view.weights.panels] == ["masks.fig.correct", "masks.fig.bug"]
    stored, seen = view.masks.panels
    assert np.array_equal(stored.values, (~bug.intended).numpy().astype(np.float32))  # dark = blocked
    assert marked(view.masks, 0)[0][0] == "0"  # stored as True = blocked: query 0 keeps key 0 -> 0
    assert marked(view.masks, 0) == [[str(v) for v in r] for r in bug.stored.tolist()]
    assert np.array_equal(seen.values, (~bug.seen_keep).numpy().astype(np.float32))
    assert marked(view.masks, 1) == [[str(v) for v in r] for r in bug.seen_keep.int().tolist()]
    right, wrong = view.weights.panels
    assert torch.equal(torch.from_numpy(right.values.copy()), bug.correct[1])
    assert torch.equal(torch.from_numpy(wrong.values.copy()), bug.bug[1])
    tables = table.tables(view.weights)
    assert tables[1].rows[3][4] == f"{float(bug.bug[1, 3, 4]):.4f}"


@pytest.mark.app
def test_value_numbers_follow_the_numbers_in_the_cells_option_the_mask_digits_stay():
    off = run_app("masks", mask="causal", seq_len=4, lang="en")
    drawn = heatmaps(off)
    assert [d.header["cell_numbers"] for d in drawn] == [False] * 3
    assert any("Numbers in the cells" in c.value for c in off.caption)
    mask = drawn[0]  # its 0/1 travel as marks, printed whatever the option
    assert [m["cell"] for m in mask.header["marks"]] == ["0", "1"]
    assert (mask.arrays[0]["marks"] - 1).tolist() == [[1, 0, 0, 0], [1, 1, 0, 0], [1, 1, 1, 0], [1, 1, 1, 1]]
    assert mask.header["marks"][0]["hover"] == "mask = 0 (1 = keep)"
    on = run_app("masks", mask="causal", seq_len=4, lang="en", cell_numbers="true")
    drawn = heatmaps(on)
    assert [d.header["cell_numbers"] for d in drawn] == [True] * 3
    weights = drawn[2].values()
    assert weights[0][1] == 0 and weights[0][0] == 1  # query 0 sees only itself
    scores = drawn[1]
    assert scores.header["marks"] == [{"cell": "-1e9", "hover": "-1e9"}] and scores.arrays[0]["blocked"][0, 1]


@pytest.mark.app
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_page_words_titles_axes_and_the_mask_legend(lang):
    at = run_app("masks", mask="custom", seq_len=4, masks_polarity="block", lang=lang)
    assert not at.exception
    mask, scores, weights = heatmaps(at)
    assert mask.header["states"] == [i18n.t("masks.state.keep", lang), i18n.t("masks.state.blocked", lang)]
    assert mask.header["panels"][0]["title"] == i18n.t("masks.fig.mask.block", lang)
    assert mask.header["marks"][1]["hover"] == i18n.t("masks.hover.mask.block", lang, v=1)
    assert mask.header["clickable"] and not scores.header["clickable"]
    assert scores.header["row_axis"] == i18n.t("common.query", lang)
    assert scores.header["col_axis"] == i18n.t("common.key", lang)
    assert scores.header["blocked_word"] == i18n.t("display.blocked", lang)
    assert weights.header["panels"][0]["title"] == i18n.t("masks.fig.weights", lang, h=0)


def test_the_page_url_keys_parse_against_the_settings_and_each_other():
    """lessons.masks_lab.URL_KEYS (lessons/url.py): T_k follows masks_cross and masks_tk, the padding and the
    lengths follow T_k, the head and the row follow the settings; bad values are corrected and reported."""
    from core.limits import T_K_MAX
    from lessons import url_keys
    from lessons.url import parse

    env = {"settings": cfg(seq_len=6, num_heads=4)}
    raw = {
        "masks_cross": "true",
        "masks_tk": "999",
        "masks_pad": "-5",
        "masks_head": "9",
        "masks_fill": "nan",
        "masks_polarity": "block",
    }
    values, fixes = parse(lab.URL_KEYS, raw, env)
    assert values["masks_cross"] is True and values["masks_tk"] == T_K_MAX
    assert values["masks_pad"] == 0 and values["masks_len1"] == T_K_MAX // 2 and values["masks_len0"] == T_K_MAX
    assert (values["masks_head"], values["masks_fill"], values["masks_polarity"]) == (3, "-1e9", "block")
    assert values["masks_row"] == 2 and values["masks_seq"] == "0"
    assert {f.key for f in fixes} == {"masks_tk", "masks_pad", "masks_head", "masks_fill"}
    plain, fixes = parse(lab.URL_KEYS, {}, env)  # self-attention: T_k = seq_len
    assert not fixes and plain["masks_pad"] == lab.default_padding(6) and plain["masks_len1"] == 3
    # with the three keys that have their own handlers, every key lessons/url_keys.py lists for the page (the grid: for
    # every page; plus the row inspector's two, read from a link too)
    assert set(lab.URL_KEY_NAMES) | set(lab.OWN_HANDLERS) == {
        *url_keys.PAGE_KEYS["masks"],
        url_keys.GRID,
        "masks_row",
        "masks_seq",
    }


@pytest.mark.parametrize("fill", lab.FILLS)
def test_the_polarity_bug_reuses_the_runs_model_and_gives_the_same_numbers(fill):
    s = cfg(seq_len=5)
    run = lab.run_lab(s, lab.LabSetup(("causal",), 5, 5, fill=fill))
    reused, built = lab.polarity_bug(s, fill, run.model), lab.polarity_bug(s, fill)
    assert torch.equal(reused.correct, built.correct)
    assert torch.equal(torch.nan_to_num(reused.bug, 7.0), torch.nan_to_num(built.bug, 7.0))
    other = lab.polarity_bug(s, "-inf" if fill == "-1e9" else "-1e9", run.model)  # another fill: its own model
    assert torch.isnan(other.bug[:, -1]).all() == (fill == "-1e9")
    rows = built.summary(2)  # the sums per query, against a plain loop over the keys
    for i, r in enumerate(rows):
        c, b = built.correct[2, i], built.bug[2, i]
        assert r["correct_past"] == pytest.approx(float(c[: i + 1].sum()), abs=1e-6)
        assert r["correct_future"] == pytest.approx(float(c[i + 1 :].sum()), abs=1e-6)
        if not r["bug_nan"]:
            assert r["bug_future"] == pytest.approx(float(b[i + 1 :].sum()), abs=1e-6)


# ------------------------------------------------------------------ the page's tables as data
def test_the_row_table_is_the_traced_row_with_the_mask_in_the_chosen_polarity():
    run = lab.run_lab(cfg(seq_len=4), lab.LabSetup(("causal",), 4, 4, fill="-inf"))
    keep = lab.row_table(run, 0, 1, 2, "keep")
    assert list(keep) == list(lab.ROW_COLUMNS)
    assert keep["j"] == ["0", "1", "2", "3"] and keep["key"] == run.k_labels[0]
    assert keep["mask"] == ["1", "1", "0", "0"] and lab.row_table(run, 0, 1, 2, "block")["mask"] == ["0", "0", "1", "1"]
    assert keep["masked"][2:] == ["-inf", "-inf"] and keep["weight"][2:] == ["0", "0"]
    w = run.trace.weights[0, 2, 1]
    assert keep["weight"][:2] == [f"{float(w[0]):.3f}", f"{float(w[1]):.3f}"]
    assert keep["scaled"][3] == f"{float(run.trace.scaled_scores[0, 2, 1, 3]):.3f}"


def test_fully_blocked_rows_are_named_and_their_tables_shortened():
    off = torch.zeros(12, 12, dtype=torch.bool)
    run = lab.run_lab(cfg(seq_len=12), lab.LabSetup(("custom",), 12, 12, custom_grid=off, fill="-inf"))
    full = lab.full_rows(run)
    assert (full.count, full.more, full.nan, full.uniform) == (12, True, 12, "0.083")
    assert full.where == tuple((0, i, run.q_labels[0][i]) for i in range(4))
    demo = lab.full_row_demo(run, 0)
    table = lab.full_row_table(demo, "-1e9")
    assert list(table) == list(lab.FULL_COLUMNS)
    assert table["j"] == ["0", "1", "2", "3", "…", "10", "11"]
    assert table["masked_f"][0] == "-1e9" and table["shift"][0] == "0" and table["weight"][0] == "0.083"
    assert lab.full_row_table(demo, "-inf")["weight"][0] == "NaN"
    none = lab.full_rows(lab.run_lab(cfg(seq_len=4), lab.LabSetup(("causal",), 4, 4)))
    assert (none.count, none.more, none.where) == (0, False, ())
    assert lab.short(map(str, range(8))) == [str(i) for i in range(8)]  # 8 rows: nothing to leave out
    assert lab.short(map(str, range(9))) == ["0", "1", "2", "3", "…", "7", "8"]


def test_the_bug_table_and_the_reference_check():
    bug = lab.polarity_bug(cfg(seq_len=4), "-1e9")
    table = lab.bug_table(bug.summary(head=0))
    assert list(table) == list(lab.BUG_COLUMNS)
    assert table["i"] == ["0", "1", "2", "3"] and table["cp"] == ["1.000", "1.000", "1.000", "1.000"]
    assert table["bp"][0] == "0" and table["bf"][-1] == "0" and table["query"] == list(bug.labels)
    run = lab.run_lab(cfg(seq_len=4), lab.LabSetup(("causal",), 4, 4))
    assert lab.reference_diff(run) < 1e-6
    setup = lab.LabSetup(("custom",), 4, 4, custom_grid=torch.eye(4, dtype=torch.bool))
    assert setup.cache_key == (("custom",), 4, 4, False, None, mask_to_text(torch.eye(4, dtype=torch.bool)), "-1e9")
