"""Walkthrough page: the source shown per step, the shapes, URL handling, the drill-down maths."""

from __future__ import annotations

import ast
import json
import math
import textwrap

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from chart_reader import charts
from conftest import ROOT, run_app

from core import figures, i18n, scenario
from core import walkthrough as W
from core.attention import AttentionTrace, build_input
from core.settings import sanitize
from core.masks import full_grid
from core.validation import check_mask


def settings(**kw):
    s, fixes = sanitize({k: str(v) for k, v in kw.items()})
    assert not fixes
    return s


# ------------------------------------------------------------------ the source of each step
def assigned(code: str) -> set[str]:
    return {t.id for node in ast.walk(ast.parse(code)) if isinstance(node, ast.Assign)
            for target in node.targets for t in ast.walk(target) if isinstance(t, ast.Name)}


def test_steps_cover_the_whole_trace_in_order():
    fields = [f for step in W.STEPS for f in step.fields]
    assert fields == ["x", *AttentionTrace.names()]


@pytest.mark.parametrize("name", W.STEP_NAMES)
def test_source_shown_is_the_file_text_and_assigns_the_step_tensor(name):
    source = W.step_source(name)
    lines = (ROOT / source.path).read_text(encoding="utf-8").splitlines()[source.start - 1:source.end]
    assert source.code == textwrap.dedent("\n".join(lines))  # the real lines, not a copy
    step = W.STEP_BY_NAME[name]
    assert set(step.fields) <= assigned(source.code)
    assert assigned(source.code) <= set(step.fields) | {"x"}  # and nothing but this step's tensors


@pytest.mark.parametrize("mask", ["none", "causal"])
def test_running_the_shown_source_reproduces_the_traced_tensor(mask):
    """Execute each step's displayed code on the previous tensors: it must give the traced value."""
    s = settings(d_model=16, num_heads=4, seq_len=5, mask=mask)
    run = scenario.run(s)
    tr = run.trace
    T = s.seq_len
    ns = {"torch": torch, "math": math, "F": F, "self": run.model, "query": run.x, "key": run.x, "value": run.x,
          "B": 1, "T_q": T, "T_k": T, "h": s.num_heads, "d_k": s.d_k, "T": T, "settings": s,
          "build_input": build_input,
          "mask": None if run.mask is None else check_mask(run.mask, 1, s.num_heads, T, T)}
    ns.update({f: getattr(tr, f) for f in AttentionTrace.names()})
    # The seed's MHA has h_kv = h K/V heads, and the scores read the K/V each query head uses (here k_heads itself).
    ns.update(h_kv=run.model.num_kv_heads, k_heads_expanded=tr.k_heads_expanded, v_heads_expanded=tr.v_heads_expanded)
    for step in W.STEPS:
        local = dict(ns)
        for f in step.fields:
            local.pop(f, None)
        with torch.no_grad():
            exec(compile(W.step_source(step.name).code, step.name, "exec"), local)
        for f in step.fields:
            expected = run.x if f == "x" else getattr(tr, f)
            assert torch.equal(local[f], expected), (step.name, f)


# ------------------------------------------------------------------ the page
def texts(at, kind):
    return [e.value for e in getattr(at, kind)]


@pytest.mark.parametrize("d_model, num_heads, seq_len, mask", [(16, 2, 4, "none"), (32, 8, 6, "causal")])
def test_all_steps_view_shows_every_step_with_its_shape(d_model, num_heads, seq_len, mask):
    at = run_app("walkthrough", walk_view="all", d_model=d_model, num_heads=num_heads, seq_len=seq_len, mask=mask)
    assert not at.exception
    headings = texts(at, "subheader")
    markdown = "\n".join(texts(at, "markdown"))
    run = scenario.run(settings(d_model=d_model, num_heads=num_heads, seq_len=seq_len, mask=mask))
    for n, step in enumerate(W.STEPS, start=1):
        title = f"{n}. {i18n.t(f'walk.{step.name}.title', 'en')}"
        formula = i18n.t(f"walk.{step.name}.latex", "en")
        if step.name == "input":  # the step whose tensors are drawn: its own heading and formula elements
            assert title in headings and f"$$\n{formula}\n$$" in texts(at, "latex")
        else:  # the others: heading, formula and text in one markdown element each (the shape in another)
            assert f"### {title}\n\n$$\n{formula}\n$$" in markdown
        for field, shape in W.step_shapes(run, step.name):
            assert f"`{field}` &nbsp; `{shape.text()}`" in markdown, (field, shape.text())
    d_k = d_model // num_heads
    assert f"(B, h, T_q, d_k) = (1, {num_heads}, {seq_len}, {d_k})" in markdown
    assert texts(at, "code") == [W.step_source(name).code for name in W.STEP_NAMES]  # shown = extracted
    assert any("torch.nn.MultiheadAttention" in x for x in texts(at, "success"))
    assert i18n.t("walk.drill.title", "en") in [e.label for e in at.expander]  # the cell's story, one click away


def test_bad_url_values_are_corrected_with_a_warning():
    at = run_app("walkthrough", walk_view="present", walk_step="99", walk_i="abc", walk_head="-3", walk_cellcharts="maybe",
                 walk_drill="1e400")
    assert not at.exception
    warnings = "\n".join(texts(at, "warning"))
    assert "walk_step" in warnings and "walk_i" in warnings and "walk_head" in warnings
    assert "walk_cellcharts" in warnings and "walk_drill = “1e400” is not valid; using false" in warnings
    assert at.header[0].value == f"10. {i18n.t('walk.output.title', 'en')}"  # step 99 -> the last step


def test_step_link_by_number_in_chinese():
    at = run_app("walkthrough", walk_step="5", lang="zh", walk_view="nonsense")
    assert not at.exception
    assert f"5. {i18n.t('walk.scale.title', 'zh')}" in texts(at, "subheader")
    assert len(at.warning) == 1  # only the view was wrong; "5" is a valid step number
    assert at.session_state["walk_step"] == "scale"


def test_drill_down_cell_from_the_url_and_next_button():
    at = run_app("walkthrough", walk_step="softmax", mask="causal", walk_head="1", walk_i="3", walk_j="2")
    assert not at.exception
    story = W.cell_story(scenario.run(settings(mask="causal")), 1, 3, 2)
    assert any(f"{story.weight:.4f}" in x for x in texts(at, "latex"))
    at.button(key="walk_next").click().run()
    assert at.session_state["walk_step"] == "mix"
    assert f"8. {i18n.t('walk.mix.title', 'en')}" in texts(at, "subheader")


def chart_specs(at) -> list:
    return charts(at)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_all_steps_view_draws_the_chosen_steps_tensors_and_a_button_for_every_other(lang):
    """Ten steps with formula, code and shape; the tensors of ONE step (a chart per step would cost the
    browser 1-2 frames each on every redraw); every other step offers a button that draws its own."""
    at = run_app("walkthrough", walk_view="all", walk_step="scores", d_model=32, num_heads=4, seq_len=6, lang=lang)
    assert not at.exception
    specs = chart_specs(at)
    assert len(specs) == 1 and "-scores-" in specs[0].file  # the chosen step's heads
    assert [t for t in specs[0].titles] == [f"{i18n.t('walk.axis.head', lang)} {i}" for i in range(4)]
    buttons = {b.key: b for b in at.button if b.key and b.key.startswith("walk_show_")}
    assert set(buttons) == {f"walk_show_{n}" for n in W.STEP_NAMES if n != "scores"}
    assert buttons["walk_show_mix"].label == i18n.t("walk.all.show", lang, n=8)
    assert len(at.code) == len(W.STEPS)
    assert any(i18n.t("walk.split.mistake", lang, T=6) in m for m in texts(at, "markdown"))  # kept when compact
    at.button(key="walk_show_mix").click().run()
    assert not at.exception and at.session_state["walk_step"] == "mix"
    assert at.query_params.get("walk_step") == "mix"  # a teacher's link opens the same step
    (mix,) = chart_specs(at)  # head_outputs: a (T, d_v) panel per head
    assert mix.titles == [f"{i18n.t('walk.axis.head', lang)} {i}" for i in range(4)]
    assert "walk_show_scores" in {b.key for b in at.button} and "walk_show_mix" not in {b.key for b in at.button}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_projection_step_shows_q_k_v_side_by_side_until_they_are_too_wide(lang):
    """Three charts while a third of the page still has pixels for every column; wider, one at a time with
    a Q/K/V choice, at full width and on the colour scale all three share."""
    small = run_app("walkthrough", walk_step="project", d_model=W.SIDE_BY_SIDE_MAX, num_heads=4, seq_len=6,
                    lang=lang)
    assert not small.exception
    assert len(chart_specs(small)) == 3
    at = run_app("walkthrough", walk_step="project", d_model=512, num_heads=16, seq_len=32, lang=lang)
    assert not at.exception
    (q,) = chart_specs(at)
    run = scenario.run(settings(d_model=512, num_heads=16, seq_len=32))
    lo, hi = W.step_zrange(run, "project")
    layer = q.heatmaps[0]
    assert (layer["zmin"], layer["zmax"]) == (lo, hi) and q.z().shape == (32, 512)
    assert np.allclose(q.z(), W.step_tensor(run, "q").numpy(), atol=5.1e-5)  # what the hover prints
    assert i18n.t("walk.project.one", lang, d_model=512) in texts(at, "caption")
    at.segmented_control(key="walk_role").set_value("V").run()
    assert not at.exception
    (v,) = chart_specs(at)
    assert "-v-" in v.file and np.allclose(v.z(), W.step_tensor(run, "v").numpy(), atol=5.1e-5)


def test_the_cell_story_is_one_closed_expander_until_opened_or_linked():
    """Closed, the drill-down is one element (its selectors, formulas and table cost the browser on every
    redraw even while hidden); a link to a cell, or walk_drill=true, opens it."""
    closed = run_app("walkthrough", walk_step="softmax")
    assert not closed.exception and not closed.latex[1:] and not closed.table
    assert [e.label for e in closed.expander][0] == i18n.t("walk.drill.title", "en")
    assert {s.key for s in closed.selectbox} & {"walk_head", "walk_i", "walk_j"} == set()
    for link in (dict(walk_drill="true"), dict(walk_j="1"), dict(walk_cellcharts="false")):
        opened = run_app("walkthrough", walk_step="softmax", **link)
        assert not opened.exception and len(opened.table) == 1
        assert {"walk_head", "walk_i", "walk_j"} <= {s.key for s in opened.selectbox}


def test_the_cell_story_is_text_and_a_table_its_charts_on_request():
    run = scenario.run(settings(mask="causal"))
    at = run_app("walkthrough", walk_step="softmax", mask="causal", walk_head="1", walk_i="3", walk_j="2")
    assert not at.exception
    assert len(chart_specs(at)) == 1  # the weights of the page of heads; the cell's story has no chart
    story = W.cell_story(run, 1, 3, 2)
    (table,) = at.table
    rows = table.value.values.tolist()
    assert list(table.value.columns) == [i18n.t(f"walk.drill.col.{k}", "en") for k in W.STORY_COLUMNS]
    assert len(rows) == run.settings.seq_len
    assert rows[2][0] == "▶ 2" and rows[2][-1] == f"{story.weight:.4f}"  # the chosen key, marked
    assert rows[5][:2] == ["5", "mat"] and rows[5][3:5] == ["0", "-1e+09"]  # causal: query 3 cannot see key 5
    assert [float(r[-1]) for r in rows] == pytest.approx(story.row_weights.tolist(), abs=1e-4)
    at.toggle(key="walk_cellcharts").set_value(True).run()
    assert not at.exception and len(chart_specs(at)) == 4  # weights of head 1 (clickable), q·k, the mix of V
    assert len(chart_specs(run_app("walkthrough", walk_step="softmax", walk_cellcharts="true"))) == 4  # by link


def test_a_figure_shared_by_every_session_is_never_restyled_in_place():
    run = scenario.run(settings(d_model=32, num_heads=4, seq_len=6, mask="causal"))
    labels = {k: k for k in ("token", "col", "query", "key", "head")}
    shared = W.per_head(run, "masked_scores", [0, 1, 2, 3], zrange=W.step_zrange(run, "mask"), labels=labels,
                        signed=True)
    spec = lambda fig: json.loads(fig.to_json(validate=False))  # noqa: E731
    before = spec(shared)
    mine = W.session_copy(shared)
    assert spec(mine) == before and mine is not shared
    figures.restyle(mine, palette="contrast", cell_text=True)  # what show_chart does for one student
    assert spec(mine) != before
    assert spec(shared) == before  # the other students' figure is unchanged
    assert [t for t, *_ in figures.figure_tables(mine)] == [t for t, *_ in figures.figure_tables(shared)]


def test_moving_h_leaves_the_input_chart_unchanged():
    """X does not depend on h: same figure and same config (file name), so the browser does not redraw it."""
    first, second = (run_app("walkthrough", d_model=64, num_heads=h, seq_len=8) for h in (4, 8))
    a, b = charts(first)[0], charts(second)[0]
    assert a.text == b.text and a.kind == "canvas"
    assert "x-d64-T8" in a.file


# ------------------------------------------------------------------ core maths and figures
@pytest.mark.parametrize("mask", ["none", "causal", "padding"])
def test_cell_story_matches_the_trace(mask):
    run = scenario.run(settings(d_model=32, num_heads=4, seq_len=6, mask=mask))
    for head, i, j in ((0, 0, 0), (3, 5, 1), (2, 4, 5)):
        story = W.cell_story(run, head, i, j)
        assert story.check < 1e-5
        assert story.weight == pytest.approx(float(run.trace.weights[0, head, i, j]), abs=1e-6)
        assert story.row_weights.sum().item() == pytest.approx(1.0, abs=1e-5)
        if not story.kept:
            assert story.masked == run.model.fill_value and story.weight < 1e-6
    with pytest.raises(ValueError):
        W.cell_story(run, 4, 0, 0)


def test_large_settings_page_the_heads_with_one_colour_scale():
    run = scenario.run(settings(d_model=512, num_heads=16, seq_len=32))
    per_page = W.heads_per_page(32)
    assert per_page <= 8 and W.head_pages(16, 32) == math.ceil(16 / per_page)
    zrange = W.step_zrange(run, "scores")
    labels = {k: k for k in ("token", "col", "query", "key", "head")}
    fig = W.per_head(run, "scores", [4, 5, 6, 7], zrange=zrange, labels=labels, signed=True)
    maps = [tr for tr in fig.data if tr.type == "heatmap"]
    assert len(maps) == 1 and (maps[0].zmin, maps[0].zmax) == zrange  # one tiled trace for the page of heads
    assert [a.text for a in fig.layout.annotations] == ["head 4", "head 5", "head 6", "head 7"]
    all_scores = run.trace.scores
    assert zrange[1] == pytest.approx(float(all_scores.abs().max()))  # over all 16 heads, not the page


def test_blocked_scores_are_empty_cells_on_a_dark_overlay_in_one_tiled_chart():
    run = scenario.run(settings(d_model=32, num_heads=4, seq_len=5, mask="causal"))
    labels = {k: k for k in ("token", "col", "query", "key", "head")}
    fig = W.per_head(run, "masked_scores", range(4), zrange=W.step_zrange(run, "mask"), labels=labels, signed=True)
    scores, blocked = fig.data
    assert sorted(k for k in fig.to_plotly_json()["layout"] if k.startswith("xaxis")) == ["xaxis"]  # one subplot
    assert figures.role_of(blocked) == "mask" and "-1e+09" in blocked.hovertemplate
    grid = full_grid(run.mask, 1, 5, 5)[0]  # (T_q, T_k) True = keep
    for tile, h in zip(fig.layout.meta["tiles"], range(4)):
        r, c = tile["row"], tile["col"]
        z = torch.tensor(scores.z[r:r + 5, c:c + 5].tolist())
        over = torch.tensor(blocked.z[r:r + 5, c:c + 5].tolist())
        assert torch.equal(torch.isnan(z), ~grid) and torch.equal(~torch.isnan(over), ~grid)
        assert torch.allclose(z[grid], run.trace.masked_scores[0, h][grid])  # kept scores exact
    exact = figures.figure_tables(fig)  # the table view still gives the -1e9 that enters the softmax
    assert exact[0][3][0][4] == "-1e+09" and len(exact) == 4


def test_url_parsers_clamp():
    assert W.parse_step("softmax") == W.Parsed("softmax", True)
    assert W.parse_step("0") == W.Parsed("input", False)
    assert W.parse_step("x" * 100) == W.Parsed("input", False)
    assert W.parse_index("7", 4) == W.Parsed(3, False)
    assert W.parse_index("nan", 4) == W.Parsed(0, False)
    assert W.parse_index("2", 4) == W.Parsed(2, True)
    assert W.parse_page("9", 3) == W.Parsed(3, False) and W.parse_page("abc", 3) == W.Parsed(1, False)
    assert W.parse_flag("true") == W.Parsed(True, True) and W.parse_flag(" False ") == W.Parsed(False, True)
    assert W.parse_flag("1e400") == W.Parsed(False, False)  # noqa: E501 and W.parse_flag(None) == W.Parsed(False, True)


def test_the_mix_of_v_prints_its_values_until_a_head_is_too_wide_to_hover():
    """The cell story's weights · V: every value in the hover up to MIX_EXACT_CELLS; a head of 512 columns
    (h = 1 at d_model 512) is drawn by colour alone, its hover naming the row and column."""
    from core import canvas_chart as cc

    labels = {k: k for k in ("token", "col", "query", "key", "head")}
    for h, exact in ((16, True), (1, False)):
        run = scenario.run(settings(d_model=512, num_heads=h, seq_len=32))
        story = W.cell_story(run, 0, 3, 2)
        layer = cc.to_scene(W.mix_figure(story, run.tokens, labels))["layers"][0]
        assert ("%{z" in layer["hover"]) is exact and ("z4" in layer) is exact and ("levels" in layer) is not exact
        assert "%{y}" in layer["hover"] and "%{x}" in layer["hover"]
        assert layer["rows"] == 33 and layer["cols"] == 512 // h
