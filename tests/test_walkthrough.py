"""Walkthrough page: the source shown per step, the shapes, URL handling, the drill-down maths, and the
heatmaps the lesson hands to the chart route (lessons/walkthrough/ -> ui.heatmaps.show_heatmap)."""

from __future__ import annotations

import dataclasses
import math
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from chart_reader import heatmaps
from conftest import ROOT, run_app, tables

import i18n
from charts import payload, table
from core.attention import AttentionTrace, MultiHeadAttention, build_input
from core.masks import full_grid
from core.validation import check_mask
from i18n import plain
from lessons import scenario, url
from lessons import walkthrough as W
from lessons.heatmap import text
from lessons.settings import sanitize
from lessons.walkthrough.heatmaps import as_printed
from ui.words import in_language


def settings(**kw):
    s, fixes = sanitize({k: str(v) for k, v in kw.items()})
    assert not fixes
    return s


# ------------------------------------------------------------------ the source of each step
def test_steps_cover_the_whole_trace_in_order():
    fields = [f for step in W.STEPS for f in step.fields]
    assert fields == ["x", *AttentionTrace.names()]


def lines_run(work, code) -> set[int]:
    """The line numbers of `code`'s file that run while `work()` runs (sys.settrace's line events)."""
    ran: set[int] = set()

    def trace(frame, event, arg):
        if frame.f_code.co_filename != code.co_filename:
            return None
        if event == "line":
            ran.add(frame.f_lineno)
        return trace

    sys.settrace(trace)
    try:
        work()
    finally:
        sys.settrace(None)
    return ran


@pytest.mark.parametrize("mask", ["none", "causal"])
def test_the_lines_shown_are_the_lines_that_compute_the_trace(mask):
    """Where each step says its code comes from is the file and the lines that run when the lesson computes its
    tensors: every shown statement's first line runs, and no shown line lies outside the function that runs it."""
    s = settings(d_model=16, num_heads=4, seq_len=5, mask=mask)
    ran_in = {f: lines_run(lambda: scenario.run(s), f.__code__) for f in (scenario.run, MultiHeadAttention._attend)}
    for step in W.STEPS:
        func = scenario.run if step.fields == ("x",) else MultiHeadAttention._attend
        shown = W.step_source(step.name)
        code = func.__code__
        assert (ROOT / shown.path).resolve() == Path(code.co_filename).resolve(), step.name
        assert shown.function == func.__qualname__
        ran = ran_in[func]
        body = {line for _, _, line in code.co_lines() if line is not None}
        assert shown.start in ran, (step.name, shown.start, sorted(ran))
        assert code.co_firstlineno < shown.start <= shown.end <= max(body), step.name


@pytest.mark.parametrize("mask", ["none", "causal"])
def test_running_the_shown_source_reproduces_the_traced_tensor(mask):
    """Execute each step's displayed code on the previous tensors: it must give the traced value, and set nothing
    but this step's tensors (the code shown under a step is that step's, all of it)."""
    s = settings(d_model=16, num_heads=4, seq_len=5, mask=mask)
    run = scenario.run(s)
    tr = run.trace
    T = s.seq_len
    ns = {
        "torch": torch,
        "math": math,
        "F": F,
        "self": run.model,
        "query": run.x,
        "key": run.x,
        "value": run.x,
        "B": 1,
        "T_q": T,
        "T_k": T,
        "h": s.num_heads,
        "d_k": s.d_k,
        "T": T,
        "settings": s,
        "build_input": build_input,
        "mask": None if run.mask is None else check_mask(run.mask, 1, s.num_heads, T, T),
    }
    ns.update({f: getattr(tr, f) for f in AttentionTrace.names()})
    # The seed's MHA has h_kv = h K/V heads, and the scores read the K/V each query head uses (here k_heads itself).
    ns.update(h_kv=run.model.num_kv_heads, k_heads_expanded=tr.k_heads_expanded, v_heads_expanded=tr.v_heads_expanded)
    for step in W.STEPS:
        local = dict(ns)
        for f in step.fields:
            local.pop(f, None)
        before = dict(local)
        with torch.no_grad():
            exec(compile(W.step_source(step.name).code, step.name, "exec"), local)
        written = {k for k, v in local.items() if k != "__builtins__" and (k not in before or v is not before[k])}
        assert set(step.fields) <= written <= set(step.fields) | {"x"}, (step.name, written)
        for f in step.fields:
            expected = run.x if f == "x" else getattr(tr, f)
            assert torch.equal(local[f], expected), (step.name, f)


# ------------------------------------------------------------------ the page
def texts(at, kind):
    return [e.value for e in getattr(at, kind)]


def listings(at) -> list[str]:
    """The code listings in page order: a code element's source, or a fenced python block inside a markdown element
    (the browser draws both with the same highlighter)."""
    out: list[str] = []

    def visit(node) -> None:
        if node.type == "code":
            out.append(node.value)
        elif node.type == "markdown":
            out.extend(m.group(2) for m in re.finditer(r"(`{3,})python\n(.*?)\n\1", str(node.value), re.S))
        for key in sorted(getattr(node, "children", {})):
            visit(node.children[key])

    visit(at.main)
    return out


def headings(at) -> list[str]:
    """The steps' headings: each the first line of a markdown element that also holds the step's formula."""
    return [m.split("\n", 1)[0].lstrip("#").strip() for m in texts(at, "markdown") if re.match(r"#{2,3} \d+\. ", m)]


@pytest.mark.app
@pytest.mark.parametrize("d_model, num_heads, seq_len, mask", [(16, 2, 4, "none"), (32, 8, 6, "causal")])
def test_all_steps_view_shows_every_step_with_its_shape(d_model, num_heads, seq_len, mask):
    at = run_app("walkthrough", walk_view="all", d_model=d_model, num_heads=num_heads, seq_len=seq_len, mask=mask)
    assert not at.exception
    markdown = "\n".join(texts(at, "markdown"))
    run = scenario.run(settings(d_model=d_model, num_heads=num_heads, seq_len=seq_len, mask=mask))
    for n, step in enumerate(W.STEPS, start=1):
        title = f"{n}. {i18n.t(f'walk.{step.name}.title', 'en')}"
        formula = i18n.t(f"walk.{step.name}.latex", "en")
        # every step, the drawn one too: heading and formula in one markdown element (the shape in another)
        assert f"### {title}\n\n$$\n{formula}\n$$" in markdown
        assert f"From `{W.step_source(step.name).where()}`" in markdown  # where its code comes from
        for field, shape in W.step_shapes(run, step.name):
            assert f"`{field}` &nbsp; `{shape.text()}`" in markdown, (field, shape.text())
    d_k = d_model // num_heads
    assert f"(B, h, T_q, d_k) = (1, {num_heads}, {seq_len}, {d_k})" in markdown
    assert listings(at) == [W.step_source(name).code for name in W.STEP_NAMES]  # shown = extracted
    assert any("torch.nn.MultiheadAttention" in x for x in texts(at, "success"))
    assert i18n.t("walk.drill.title", "en") in [e.label for e in at.expander]  # the cell's story, one click away


@pytest.mark.app
def test_bad_url_values_are_corrected_with_a_warning():
    at = run_app(
        "walkthrough",
        walk_view="present",
        walk_step="99",
        walk_i="abc",
        walk_head="-3",
        walk_cellcharts="maybe",
        walk_drill="1e400",
    )
    assert not at.exception
    warnings = "\n".join(texts(at, "warning"))
    assert "walk_step" in warnings and "walk_i" in warnings and "walk_head" in warnings
    assert "walk_cellcharts" in warnings and f"walk_drill = “{plain('1e400')}” is not valid; using false" in warnings
    assert headings(at)[0] == f"10. {i18n.t('walk.output.title', 'en')}"  # step 99 -> the last step


@pytest.mark.app
def test_step_link_by_number_in_chinese():
    at = run_app("walkthrough", walk_step="5", lang="zh", walk_view="nonsense")
    assert not at.exception
    assert f"5. {i18n.t('walk.scale.title', 'zh')}" in headings(at)
    assert len(at.warning) == 1  # only the view was wrong; "5" is a valid step number
    assert at.session_state["walk_step"] == "scale"


@pytest.mark.app
def test_drill_down_cell_from_the_url_and_next_button():
    at = run_app("walkthrough", walk_step="softmax", mask="causal", walk_head="1", walk_i="3", walk_j="2")
    assert not at.exception
    story = W.cell_story(scenario.run(settings(mask="causal")), 1, 3, 2)
    assert any(f"= {story.weight:.4f}\n$$" in x for x in texts(at, "markdown"))  # the story's last formula
    at.button(key="walk_next").click().run()
    assert at.session_state["walk_step"] == "mix"
    assert f"8. {i18n.t('walk.mix.title', 'en')}" in headings(at)


@pytest.mark.app
def test_a_cell_past_fewer_heads_moves_quietly_and_stays_while_its_story_is_closed():
    """A followed cell that new settings put out of range (head 12 after h 16 -> 8) moves to the nearest valid one
    without a notice (the link did not cause it); the cell is kept while a step without the story is open."""
    at = run_app("walkthrough", walk_step="softmax", d_model=64, num_heads=16, walk_head="12", walk_i="3")
    assert not at.exception and not at.warning
    assert at.selectbox(key="walk_head").value == 12 and at.selectbox(key="walk_i").value == 3
    at.sidebar.select_slider(key="num_heads").set_value(8).run()
    assert not at.exception and not at.warning
    assert at.selectbox(key="walk_head").value == 7 and at.selectbox(key="walk_i").value == 3
    at.button(key="walk_next").click().run()  # mix: the story is still there
    at.button(key="walk_next").click().run()  # concat: no story (its selectors are not drawn)
    assert at.session_state["walk_step"] == "concat" and "walk_head" not in {s.key for s in at.selectbox}
    at.button(key="walk_prev").click().run()
    assert not at.exception and at.session_state["walk_step"] == "mix"
    assert at.selectbox(key="walk_head").value == 7 and at.selectbox(key="walk_i").value == 3


def chart_specs(at) -> list:
    return heatmaps(at)


def titles(drawn) -> list[str]:
    return [p["title"] for p in drawn.header["panels"]]


@pytest.mark.app
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_all_steps_view_draws_the_chosen_steps_tensors_and_a_button_for_every_other(lang):
    """Ten steps with formula, code and shape; the tensors of ONE step (a chart per step would cost the
    browser 1-2 frames each on every redraw); every other step offers a button that draws its own."""
    at = run_app("walkthrough", walk_view="all", walk_step="scores", d_model=32, num_heads=4, seq_len=6, lang=lang)
    assert not at.exception
    specs = chart_specs(at)
    assert len(specs) == 1 and specs[0].header["name"] == "scores"  # the chosen step's heads
    assert titles(specs[0]) == [f"{i18n.t('walk.axis.head', lang)} {i}" for i in range(4)]
    buttons = {b.key: b for b in at.button if b.key and b.key.startswith("walk_show_")}
    assert set(buttons) == {f"walk_show_{n}" for n in W.STEP_NAMES if n != "scores"}
    assert buttons["walk_show_mix"].label == i18n.t("walk.all.show", lang, n=8)
    assert len(listings(at)) == len(W.STEPS)
    assert any(i18n.t("walk.split.mistake", lang, T=6) in m for m in texts(at, "markdown"))  # kept when compact
    at.button(key="walk_show_mix").click().run()
    assert not at.exception and at.session_state["walk_step"] == "mix"
    assert at.query_params.get("walk_step") == "mix"  # a teacher's link opens the same step
    (mix,) = chart_specs(at)  # head_outputs: a (T, d_v) panel per head
    assert titles(mix) == [f"{i18n.t('walk.axis.head', lang)} {i}" for i in range(4)]
    assert mix.header["name"] == "head_outputs" and mix.values(0).shape == (6, 8)
    assert "walk_show_scores" in {b.key for b in at.button} and "walk_show_mix" not in {b.key for b in at.button}


@pytest.mark.app
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_projection_step_shows_q_k_v_side_by_side_until_they_are_too_wide(lang):
    """Three panels side by side while a third of the page still has pixels for every column; wider, one at a
    time with a Q/K/V choice, at full width and on the colour scale all three share."""
    small = run_app("walkthrough", walk_step="project", d_model=W.SIDE_BY_SIDE_MAX, num_heads=4, seq_len=6, lang=lang)
    assert not small.exception
    (qkv,) = chart_specs(small)
    assert titles(qkv) == ["q", "k", "v"] and qkv.header["panel_columns"] == 3
    at = run_app("walkthrough", walk_step="project", d_model=512, num_heads=16, seq_len=32, lang=lang)
    assert not at.exception
    (q,) = chart_specs(at)
    run = scenario.run(settings(d_model=512, num_heads=16, seq_len=32))
    lo, hi = W.step_zrange(run, "project")
    assert (q.header["vmin"], q.header["vmax"]) == pytest.approx((lo, hi)) and q.values().shape == (32, 512)
    decimals = as_printed([W.step_tensor(run, r) for r in W.ROLES])[1]  # 3: |q| reaches 5 (unit-variance q)
    assert q.header["decimals"] == decimals
    half = 0.51 * 10.0**-decimals
    assert np.allclose(q.values(), W.step_tensor(run, "q").numpy(), atol=half)  # what the hover prints
    assert i18n.t("walk.project.one", lang, d_model=512) in texts(at, "caption")
    at.segmented_control(key="walk_role").set_value("v").run()
    assert not at.exception
    (v,) = chart_specs(at)
    assert v.header["name"] == "v" and np.allclose(v.values(), W.step_tensor(run, "v").numpy(), atol=half)


@pytest.mark.app
def test_the_cell_story_is_one_closed_expander_until_opened_or_linked():
    """Closed, the drill-down is one element (its selectors, formulas and table cost the browser on every
    redraw even while hidden); a link to a cell, or walk_drill=true, opens it."""
    closed = run_app("walkthrough", walk_step="softmax")
    assert not closed.exception and not tables(closed)
    assert not [m for m in texts(closed, "markdown") if "\\text{w}[" in m]  # none of the story's formulas
    assert [e.label for e in closed.expander][0] == i18n.t("walk.drill.title", "en")
    assert {s.key for s in closed.selectbox} & {"walk_head", "walk_i", "walk_j"} == set()
    for link in (dict(walk_drill="true"), dict(walk_j="1"), dict(walk_cellcharts="false")):
        opened = run_app("walkthrough", walk_step="softmax", **link)
        assert not opened.exception and len(tables(opened)) == 1
        assert [m for m in texts(opened, "markdown") if "\\text{w}[" in m]  # the story's formulas, now shown
        assert {"walk_head", "walk_i", "walk_j"} <= {s.key for s in opened.selectbox}


@pytest.mark.app
def test_the_cell_story_is_text_and_a_table_its_charts_on_request():
    run = scenario.run(settings(mask="causal"))
    at = run_app("walkthrough", walk_step="softmax", mask="causal", walk_head="1", walk_i="3", walk_j="2")
    assert not at.exception
    assert len(chart_specs(at)) == 1  # the weights of the page of heads; the cell's story has no chart
    story = W.cell_story(run, 1, 3, 2)
    (table,) = tables(at)
    rows = table.value.values.tolist()
    assert list(table.value.columns) == [i18n.t(f"walk.drill.col.{k}", "en") for k in W.STORY_COLUMNS]
    assert len(rows) == run.settings.seq_len
    assert rows[2][0] == "▶ 2" and rows[2][-1] == f"{story.weight:.4f}"  # the chosen key, marked
    assert rows[5][:2] == ["5", "mat"] and rows[5][3:5] == ["0", "-1e+09"]  # causal: query 3 cannot see key 5
    assert [float(r[-1]) for r in rows] == pytest.approx(story.row_weights.tolist(), abs=1e-4)
    at.toggle(key="walk_cellcharts").set_value(True).run()
    assert not at.exception and len(chart_specs(at)) == 4  # weights of head 1 (clickable), q·k, the mix of V
    assert len(chart_specs(run_app("walkthrough", walk_step="softmax", walk_cellcharts="true"))) == 4  # by link


def test_a_heatmap_shared_by_every_session_cannot_be_changed():
    """The page keeps each step's heatmaps once for every session (ui.cache.shared): their arrays are
    read-only, and drawing one with a session's display options writes nothing into it."""
    run = scenario.run(settings(d_model=32, num_heads=4, seq_len=6, mask="causal"))
    hm = W.heads_heatmap(run, "masked_scores", (0, 1, 2, 3), zrange=W.step_zrange(run, "mask"))
    before = [p.values.copy() for p in hm.panels]
    for p in hm.panels:
        assert not p.values.flags.writeable
        with pytest.raises(ValueError):
            p.values[0, 0] = 1.0
    payload.payload(hm, palette="contrast", cell_numbers=True, compact=True)  # what one student's view does
    assert all(np.array_equal(a, p.values) for a, p in zip(before, hm.panels))


@pytest.mark.app
def test_moving_h_leaves_the_input_chart_unchanged():
    """X does not depend on h: the same bytes reach the browser (its chart keeps its key and is not redrawn)."""
    first, second = (run_app("walkthrough", d_model=64, num_heads=h, seq_len=8) for h in (4, 8))
    a, b = heatmaps(first)[0], heatmaps(second)[0]
    assert a.header == b.header and a.header["name"] == "x" and a.header["file"] == "attention-lab-x"
    assert np.array_equal(a.values(), b.values()) and a.values().shape == (8, 64)


@pytest.mark.app
def test_the_presenter_view_asks_for_large_type_and_a_chart_that_fills_the_window():
    """walk_view=present: every chart's text 1.6x (tick labels 13 px -> 20.8 px) and the step's main chart
    as tall as the window leaves (at least 300 px; the split's heads 220 px below their band); the step view
    asks for neither."""
    at = run_app("walkthrough", walk_view="present", walk_step="split", d_model=32, num_heads=4, seq_len=8)
    band, heads = heatmaps(at)
    assert band.header["font_scale"] == heads.header["font_scale"] == 1.6
    assert band.header["fit_height"] == 0 and heads.header["fit_height"] == 220
    (main,) = heatmaps(run_app("walkthrough", walk_view="present", walk_step="softmax"))
    assert main.header["font_scale"] == 1.6 and main.header["fit_height"] == 300
    (plain_view,) = heatmaps(run_app("walkthrough", walk_step="softmax"))
    assert plain_view.header["font_scale"] == 1.0 and plain_view.header["fit_height"] == 0


def test_the_lesson_builds_no_figure_and_imports_no_streamlit():
    """lessons/walkthrough/ hands out plain data: importing it loads neither plotly nor streamlit."""
    code = (
        "import sys; import lessons.walkthrough, lessons.source; "
        "print(sorted(m for m in ('plotly', 'streamlit') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr


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
    assert W.page_of_heads(16, 1, per_page) == list(range(8, 16)) and W.page_of_heads(16, 9, 8) == list(range(8, 16))
    assert W.page_of_heads(3, 0, 8) == [0, 1, 2] and W.page_of_heads(3, -2, 8) == [0, 1, 2]
    zrange = W.step_zrange(run, "scores")
    hm = W.heads_heatmap(run, "scores", [4, 5, 6, 7], zrange=zrange)
    assert (hm.vmin, hm.vmax) == zrange and len(hm.panels) == 4  # one chart for the page of heads
    assert [(p.title.key, p.title.kw()) for p in hm.panels] == [("walk.chart.head", {"head": k}) for k in (4, 5, 6, 7)]
    for k, p in zip((4, 5, 6, 7), hm.panels):
        assert np.allclose(p.values, run.trace.scores[0, k].numpy(), atol=0.5 * 10**-hm.decimals + 1e-6)
    all_scores = run.trace.scores
    assert zrange[1] == pytest.approx(float(all_scores.abs().max()))  # over all 16 heads, not the page


def test_blocked_scores_are_hatched_cells_that_keep_the_fill_value():
    run = scenario.run(settings(d_model=32, num_heads=4, seq_len=5, mask="causal"))
    hm = W.heads_heatmap(run, "masked_scores", range(4), zrange=W.step_zrange(run, "mask"))
    grid = full_grid(run.mask, 1, 5, 5)[0].numpy()  # (T_q, T_k) True = keep
    lo, hi = W.step_zrange(run, "mask")
    assert -1e8 < lo < 0 < hi < 1e8  # the colours span the real scores, not the -1e9
    for h, p in enumerate(hm.panels):
        assert np.array_equal(p.blocked, ~grid)
        exact = run.trace.masked_scores[0, h].numpy()  # kept scores as printed (hm.decimals), the -1e9 kept
        assert np.allclose(p.values, exact, atol=0.5 * 10**-hm.decimals + 1e-6) and (p.values[~grid] == -1e9).all()
    _, arrays = payload.unpack(payload.payload(hm, compact=True))
    assert np.array_equal(arrays[0]["blocked"], ~grid)
    exact = table.tables(hm)  # the table view still gives the -1e9 that enters the softmax
    assert exact[0].rows[0][4] == "-1000000000." + "0" * hm.decimals and len(exact) == 4
    assert W.mask_heatmap(run).role == "mask" and np.array_equal(W.mask_heatmap(run).panels[0].values, grid)


def test_the_drill_heatmap_is_one_heads_weights_clickable_with_the_followed_cell_outlined():
    run = scenario.run(settings(d_model=32, num_heads=4, seq_len=6, mask="causal"))
    hm = W.drill_heatmap(run, 2, 4, 1)
    assert hm.clickable and hm.role == "weights" and (hm.vmin, hm.vmax) == (0.0, 1.0)
    assert np.array_equal(hm.panels[0].values, run.trace.weights[0, 2].numpy())
    (rect,) = hm.rects
    assert (rect.panel, rect.r0, rect.r1, rect.c0, rect.c1) == (0, 4, 5, 1, 2)
    assert hm.panels[0].row_labels[4] == f"4:{run.tokens[4]}"


def parsed(key: str, raw, s=None):
    """One page key through lessons.url.parse on the lesson's URL_KEYS: (value, was it corrected)."""
    values, fixes = url.parse(W.URL_KEYS, {key: raw}, {"settings": s or settings()})
    return values[key], any(f.key == key for f in fixes)


def test_url_parsers_clamp():
    assert parsed("walk_step", "softmax") == ("softmax", False)
    assert parsed("walk_step", "0") == ("input", True)
    assert parsed("walk_step", "x" * 100) == ("input", True)
    four = settings(seq_len=4)
    assert parsed("walk_i", "7", four) == (3, True)
    assert parsed("walk_j", "nan", four) == (0, True)
    assert parsed("walk_j", "2", four) == (2, False)
    pages = settings(d_model=64, num_heads=32, seq_len=8)  # 32 heads: four pages of 8
    assert parsed("walk_hpage", "9", pages) == (4, True) and parsed("walk_hpage", "abc", pages) == (1, True)
    assert parsed("walk_drill", "true") == (True, False) and parsed("walk_drill", "false") == (False, False)
    assert parsed("walk_cellcharts", " False ") == (False, True)  # read, and said (lessons.url: a spelling fix)
    assert parsed("walk_step", "5") == ("scale", False) and parsed("walk_step", " Softmax ") == ("softmax", False)
    assert parsed("walk_step", "99") == ("output", True)
    assert parsed("walk_view", "present") == ("present", False) and parsed("walk_view", "nonsense") == ("step", True)
    s = settings(d_model=64, num_heads=16, seq_len=8)
    assert parsed("walk_hpage", "3", s) == (2, True)  # 16 heads: two pages of 8
    assert parsed("walk_i", None, s) == (7, False)  # the last query by default
    assert parsed("walk_head", "-3", s) == (0, True)
    assert W.URL_KEY_NAMES == (
        "walk_view",
        "walk_step",
        "walk_hpage",
        "walk_head",
        "walk_i",
        "walk_j",
        "walk_cellcharts",
        "walk_drill",
    )
    assert parsed("walk_drill", "1e400") == (False, True)


def test_a_link_to_a_cell_opens_its_story_unless_its_walk_drill_is_bad():
    assert W.link_opens_drill({"walk_j": ["1"]}) and W.link_opens_drill({"walk_cellcharts": ["false"]})
    assert W.link_opens_drill({"walk_head": ["2"], "walk_drill": ["false"]})  # the cell wins over a valid value
    assert not W.link_opens_drill({"walk_drill": ["true"]})  # no cell named: the expander reads walk_drill itself
    assert not W.link_opens_drill({"walk_i": ["3"], "walk_drill": ["1e400"]})  # corrected to closed, and said
    assert not W.link_opens_drill({"walk_i": ["3"], "walk_drill": ["true", "true"]})
    assert not W.link_opens_drill({"walk_i": [], "walk_step": ["softmax"]})


def test_step_after_moves_one_step_and_stops_at_the_ends():
    assert W.step_after("softmax", 1) == "mix" and W.step_after("softmax", -1) == "mask"
    assert W.step_after("input", -1) == "input" and W.step_after("output", 1) == "output"
    assert W.step_after(None, 1) == "project" and W.step_after("nonsense", 0) == "input"


def test_the_mix_of_v_shows_a_wide_heads_first_columns_and_says_so():
    """The cell story's weights · V over the head's columns, the last row their sum (the head's output row);
    a head of 512 columns (h = 1 at d_model 512) shows its first MIX_MAX_COLUMNS, its title saying which."""
    x = W.matrix_heatmap(scenario.run(settings(d_model=512, num_heads=1, seq_len=32)), "x", zrange=(-5, 5))
    assert x.decimals == 3  # |x| passes 3.2767 here: 3 decimals, so X still travels as int16 codes
    assert payload.unpack(payload.payload(x, compact=True))[0]["panels"][0].get("codes")
    for h, cols in ((16, 32), (1, W.MIX_MAX_COLUMNS)):
        run = scenario.run(settings(d_model=512, num_heads=h, seq_len=32))
        story = W.cell_story(run, 0, 3, 2)
        hm = W.mix_heatmap(story, run.tokens)
        (p,) = hm.panels
        assert p.values.shape == (33, cols) and p.col_labels[-1] == str(cols - 1)
        atol = 0.5 * 10**-hm.decimals + 1e-6
        assert np.allclose(p.values[-1], story.out[:cols].numpy(), atol=atol)  # the sum row: head 0's output row 3
        assert np.allclose(p.values[:-1], story.contributions[:, :cols].numpy(), atol=atol)
        assert p.row_labels[-1] == "Σ = head_0[3]"
        assert (p.title is None) is (h == 16)
        header, arrays = payload.unpack(payload.payload(hm, compact=True))
        assert header["panels"][0].get("codes")  # half the bytes of float32
    assert p.title.kw() == dict(a=0, b=W.MIX_MAX_COLUMNS - 1, d_k=512)
    vec = W.vectors_heatmap(story)
    assert np.allclose(vec.panels[0].values[2], (story.q_i * story.k_j).numpy(), atol=0.5 * 10**-vec.decimals + 1e-6)
    assert vec.panels[0].col_labels[0] == "0" and len(vec.panels[0].col_labels) == 512


# ------------------------------------------------------------------ what the page shows, as the lesson's data
def test_shape_lines_are_the_shapes_and_the_reshape_chain():
    run = scenario.run(settings(d_model=32, num_heads=4, seq_len=6))
    assert W.shape_lines(run, "scores") == ["`scores` &nbsp; `(B, h, T_q, T_k) = (1, 4, 6, 6)`"]
    split = W.shape_lines(run, "split")
    assert split[0] == (
        "`q` `(B, T_q, d_model) = (1, 6, 32)` → `view(1, 6, 4, 8)` → `(B, T_q, h, d_k) = (1, 6, 4, 8)`"
        " → `transpose(1, 2)` → `(B, h, T_q, d_k) = (1, 4, 6, 8)`"
    )
    assert [line.split(" ")[0] for line in split[1:]] == ["`q_heads`", "`k_heads`", "`v_heads`"]
    present = W.shape_lines(run, "split", present=True)  # one operation a line, then q's heads alone
    assert present[1] == "→ `view(1, 6, 4, 8)` → `(B, T_q, h, d_k) = (1, 6, 4, 8)`" and len(present) == 4
    assert W.shape_lines(run, "concat", present=True)[-1].startswith("`concat` ")


def test_step_text_carries_the_runs_numbers_as_keys_and_values():
    run = scenario.run(settings(d_model=32, num_heads=4, seq_len=6, mask="causal"))
    (mask,) = W.step_text(run, "mask")
    assert mask.key == "walk.mask.text" and mask.kw() == dict(kind=text("mask.causal"), blocked=15, total=36)
    assert W.blocked_count(run) == (15, 36)  # 6 x 6 below the diagonal
    (scale,) = W.step_text(run, "scale")
    assert scale.kw() == dict(d_k=8, root=pytest.approx(math.sqrt(8)))
    assert [p.key for p in W.step_text(run, "softmax")] == ["walk.softmax.text", "walk.softmax.follow"]
    assert [p.key for p in W.step_text(run, "softmax", present=True)] == ["walk.softmax.text"]
    assert W.step_text(run, "concat")[0].kw() == dict(h=4, d_k=8, d_model=32)
    plain_run = scenario.run(settings(d_model=32, num_heads=4, seq_len=6))
    assert [p.key for p in W.step_text(plain_run, "mask")] == ["walk.mask.none"]
    assert in_language(W.step_text(run, "mask")[0], "en") == i18n.t(
        "walk.mask.text", "en", kind=i18n.t("mask.causal", "en"), blocked=15, total=36
    )


def test_a_paragraph_is_fixed_or_states_the_runs_numbers_never_both():
    """W.fixed_text is the same for every setting (its strings take no value), so the page may send it in the element
    a slider step leaves as it was; every other step's paragraph is W.run_text's, with the run's numbers."""
    runs = [
        scenario.run(settings(d_model=32, num_heads=4, seq_len=6, mask="causal")),
        scenario.run(settings(d_model=512, num_heads=16, seq_len=12, mask="none", seed=9)),
    ]
    fixed = {name for name in W.STEP_NAMES if W.fixed_text(name)}
    assert fixed == set(W.STEP_NAMES) - W.RUN_TEXT_STEPS == {"input", "project", "split", "scores", "output"}
    for name in W.STEP_NAMES:
        for run in runs:
            assert bool(W.fixed_text(name)) != bool(W.run_text(run, name))  # one of the two, never both
            assert W.step_text(run, name) == W.fixed_text(name) + W.run_text(run, name)
        for part in W.fixed_text(name):
            assert not part.kw()
            assert all("{" not in i18n.t(part.key, lang) for lang in ("zh", "en"))


@pytest.mark.app
def test_the_splits_paragraph_is_sent_once_in_the_element_a_step_leaves_as_it_was():
    """Its three formulas are typeset once, not again on every step of seq_len (benchmarks/README.md): the paragraph
    is in the listing's element, which a step of T sends unchanged, and the mistake's T in the next one."""
    said = in_language(W.fixed_text("split")[0], "en")
    at = run_app("walkthrough", lang="en", walk_step="split", seq_len=5)
    assert not at.exception

    def holding(part: str) -> list[str]:
        return [m.value for m in at.main.markdown if part in m.value]

    (listing,) = holding(said)
    assert "```python" in listing and listing.index("```python") < listing.index(said)  # after the code, as before
    (changing,) = holding("Every head sees all 5 tokens")
    at.sidebar.slider(key="seq_len").set_value(6).run()
    assert not at.exception
    assert holding(said) == [listing]  # the same element, unchanged
    assert holding("Every head sees all 6 tokens") and not holding("Every head sees all 5 tokens")
    at = run_app("walkthrough", lang="zh", walk_view="all")  # every step's paragraph once in the all-steps view too
    for name in W.STEP_NAMES:
        for part in W.fixed_text(name):
            assert len(holding(in_language(part, "zh"))) == 1, name


def test_role_choice_and_split_map():
    assert W.role_label("split", 32) == "walk.role" and W.role_label("scores", 512) is None
    assert W.role_label("project", W.SIDE_BY_SIDE_MAX) is None
    assert W.role_label("project", W.SIDE_BY_SIDE_MAX * 2) == "walk.project.role"
    assert [p.kw() for p in W.split_map((2, 3), 16)] == [dict(i=2, a=32, b=47), dict(i=3, a=48, b=63)]


def test_the_story_parts_are_the_cells_numbers_in_page_order():
    run = scenario.run(settings(d_model=32, num_heads=4, seq_len=6, mask="causal"))
    blocked = W.cell_story(run, 1, 2, 5)  # causal: query 2 cannot see key 5
    parts = W.story_parts(blocked, run.tokens, masked=True)
    assert [p.kind for p in parts] == [
        "title", "text", "vectors", "text", "latex", "caption", "text", "latex", "text", "text", "latex"
    ]  # fmt: skip
    assert parts[0].body.kw() == dict(head=1, i=2, j=5, qi=run.tokens[2], kj=run.tokens[5])
    assert parts[1].body.kw() == dict(i=2, j=5, head=1, c0=8, c1=15, d_k=8)
    assert (
        parts[4].body.endswith(f"= {blocked.dot:.4f}")
        and parts[5].body == W.dot_terms(blocked) + f" = {blocked.dot:.4f}"
    )
    assert parts[8].body.key == "walk.drill.s4_block" and parts[8].body.kw()["fill"] == run.model.fill_value
    assert "e^{-1e+09 - (" in parts[10].body and parts[10].body.endswith(f"= {blocked.weight:.4f}")
    kept = W.cell_story(run, 1, 4, 2)
    assert W.story_parts(kept, run.tokens, masked=True)[8].body.key == "walk.drill.s4_keep"
    assert W.story_parts(kept, run.tokens, masked=False)[8].body.key == "walk.drill.s4_none"
    summary = W.summary_text(kept, run.tokens)
    top = W.top_contributions(kept, run.tokens)
    assert summary.kw()["top"] == ", ".join(f"{w:.3f}·v_{k} ({tok})" for k, tok, w in top)
    assert [w for _, _, w in top] == sorted(kept.row_weights.tolist(), reverse=True)[:3]


@pytest.mark.app
def test_many_heads_the_pipeline_says_which_heads_the_pager_shows():
    """At h = 16, T = 32 a step draws a page of heads: the step's text ends with the shape pipeline and which heads
    the pager below it shows, one element with the text and shapes, and the pager follows it."""
    at = run_app("walkthrough", walk_step="scores", d_model=512, num_heads=16, seq_len=32, lang="en")
    assert not at.exception
    n = W.heads_per_page(32)
    shown = i18n.t("common.heads_range", "en", first=0, last=n - 1, h=16)
    said = [m.value for m in at.main.markdown if shown in m.value]
    assert len(said) == 1 and f"**{i18n.t('walk.shape', 'en')}**" in said[0], said
    assert said[0].index(i18n.t("walk.pipeline", "en")) < said[0].index(shown)
    assert i18n.t("walk.heads_capped", "en", h=16, n=n) in said[0]
    assert not [c for c in at.main.caption if shown in c.value]  # said once


def test_a_fenced_listing_outlasts_any_run_of_backticks_in_its_code():
    """ui.code.fenced: the code comes back whole from the markdown it is put in, whatever backticks it holds, inside
    the div whose class the app's CSS wraps."""
    from ui.code import CLASS, fenced

    for code in ("x = 1", "s = '```'\nt = '````'", "a = `b`"):
        block = fenced(code)
        assert block.startswith(f"<div class='{CLASS}'>\n\n") and block.endswith("\n\n</div>")
        fence = block.split("\n")[2].removesuffix("python")
        assert set(fence) == {"`"} and len(fence) > max(len(r) for r in re.findall("`+", code + "`"))
        assert block.split("\n", 3)[3].rsplit("\n", 3)[0] == code


@pytest.mark.parametrize("d_model,h,T", [(8, 1, 2), (32, 4, 6), (512, 16, 32)])
def test_the_split_check_compares_every_head_with_its_columns(d_model, h, T):
    """walk.split.check's number: the largest |q_heads[:, i] - q[:, :, i*d_k:(i+1)*d_k]| over every head and role,
    0 for the model's split; a head that reads other columns is caught."""
    run = scenario.run(sanitize({"d_model": d_model, "num_heads": h, "seq_len": T, "seed": 3})[0])
    trace, d_k = run.trace, d_model // h
    assert (run.settings.d_model, run.settings.num_heads, run.settings.seq_len) == (d_model, h, T)

    def by_loop(tr: AttentionTrace) -> float:
        return max(
            float((heads[:, i] - whole[:, :, i * d_k : (i + 1) * d_k]).abs().max())
            for whole, heads in ((tr.q, tr.q_heads), (tr.k, tr.k_heads), (tr.v, tr.v_heads))
            for i in range(h)
        )

    assert W.split_max_diff(trace, h, d_k) == by_loop(trace) == 0.0
    rolled = torch.roll(trace.v.detach().clone(), shifts=1, dims=-1)  # every head now reads a shifted column range
    wrong = AttentionTrace(**{**{f.name: getattr(trace, f.name) for f in dataclasses.fields(trace)}, "v": rolled})
    assert W.split_max_diff(wrong, h, d_k) == by_loop(wrong) > 0


@pytest.mark.app
@pytest.mark.parametrize("step, name", [("split", "split_max_diff"), ("concat", "concat_max_diff")])
def test_the_split_and_concat_checks_say_equal_only_for_a_difference_of_exactly_0(monkeypatch, step, name):
    """The check's sentence is chosen by the number: a cut or a re-join does no arithmetic, so any difference is
    shown as one, in red."""
    at = run_app("walkthrough", walk_view="step", walk_step=step, lang="en", d_model=32, num_heads=4)
    assert texts(at, "success") == [i18n.t(f"walk.{step}.check", "en", diff=0.0)] and not at.error
    monkeypatch.setattr(W, name, lambda *a: 2.5e-3)
    at = run_app("walkthrough", walk_view="step", walk_step=step, lang="en", d_model=32, num_heads=4)
    assert texts(at, "error") == [i18n.t(f"walk.{step}.check_off", "en", diff=2.5e-3)] and not at.success


@pytest.mark.app
def test_a_run_from_a_link_without_the_step_writes_the_step_back():
    """A run that starts from a link lacking the view and the step (a class's follow under load: CI's
    test_a_whole_class once left a student at /walkthrough?...&seq_len=6 showing the teacher's step) ends with both in
    the link again; at their defaults they stay out of it."""
    at = run_app("walkthrough", lang="en", walk_step="split", walk_view="all")
    assert not at.exception
    for key in ("walk_step", "walk_view"):
        at.query_params.pop(key, None)
    at.run()
    assert not at.exception
    link = at.query_params  # a key's value, or its values as a list
    assert link.get("walk_step") in ("split", ["split"])
    assert link.get("walk_view") in ("all", ["all"])
    at = run_app("walkthrough", lang="en")
    assert "walk_step" not in at.query_params and "walk_view" not in at.query_params
