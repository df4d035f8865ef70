"""The Heads and shapes page: lessons/heads/ (diagram labels, costs, block slicing, timing, heatmaps as plain
data), ui/heads_charts.py (the bar and line charts) and the page itself."""

from __future__ import annotations

import math
import re
import string

import numpy as np
import pytest
import torch
from chart_reader import charts, heatmaps
from conftest import finish_queued_job, run_app, sections, tables

from charts import diagrams
from core.attention import AttentionTrace, build_input, build_model
from i18n import STRINGS, t
from i18n.strings.heads import STRINGS as HEADS_STRINGS
from lessons import heads as H
from ui import heads_charts


def traced(d_model: int, h: int, T: int, seed: int = 0):
    model = build_model(d_model, h, seed)
    x = build_input(1, T, d_model, seed)
    with torch.no_grad():
        _, trace = model.forward_with_trace(x, x, x)
    return model, x, trace


def flow_labels(html: str) -> dict[str, str]:
    return diagrams.flow_box_texts(html)


# ---------------------------------------------------------------- the shape-flow diagram
@pytest.mark.parametrize("d_model,h,T", [(8, 1, 2), (64, 4, 8), (64, 16, 5), (512, 64, 3)])
def test_flow_labels_equal_traced_shapes(d_model, h, T):
    _, x, trace = traced(d_model, h, T)
    boxes = H.shape_flow(d_model, h, T)
    html = diagrams.shape_flow_html(boxes, {}, legend_depends="d", legend_same="s", h=h)
    labels = flow_labels(html)
    assert set(labels) == {"x", *AttentionTrace.names()}  # every traced tensor has its box
    for name, label in labels.items():
        tensor = x if name == "x" else getattr(trace, name)
        assert diagrams.parse_sizes(label) == tuple(tensor.shape), name
        box = next(b for b in boxes if b.name == name)
        assert f"({', '.join(box.shape.axes)})" in label  # the named axes are written too
        assert box.depends_on_h == (("h" in box.shape.axes) or ("d_k" in box.shape.axes))


def test_flow_marks_what_changed_since_the_previous_h():
    boxes = H.shape_flow(64, 8, 8, prev_h=4)
    changed = {b.name for b in boxes if b.changed}
    assert changed == {b.name for b in boxes if b.depends_on_h}
    assert changed == {
        "q_heads",
        "k_heads",
        "v_heads",
        "scores",
        "scaled_scores",
        "masked_scores",
        "weights",
        "head_outputs",
    }
    html = diagrams.shape_flow_html(
        boxes, {}, legend_depends="d", legend_same="s", legend_changed="c", was="was {sizes}", h=8
    )
    labels = flow_labels(html)
    assert "was (1, 4, 8, 16)" in labels["q_heads"] and "(1, 8, 8, 8)" in labels["q_heads"]
    assert "was" not in labels["concat"]
    assert "al-changed" in html and ">c</span>" in html  # the legend explains the thick border
    kinds = {
        name: ("al-dep" if "al-dep" in html.split(f"data-name='{name}'")[0].rsplit("<div", 1)[1] else "al-same")
        for name in labels
    }
    assert {n for n, k in kinds.items() if k == "al-dep"} == {b.name for b in boxes if b.depends_on_h}
    # a previous h that cannot split d_model (or is the same h) is ignored, never an error
    for bad in (3, 8, 0, None, "4", True):
        assert not any(b.changed for b in H.shape_flow(64, 8, 8, prev_h=bad))


# ---------------------------------------------------------------- cost
def test_cost_table_equals_hand_computed_values():
    # d_model = 64, h = 4 (d_k = 16), B = 1, T = 8, with a mask
    rows = {r.step: r for r in H.cost_rows(1, 8, 8, 64, 4, masked=True)}
    linear = 64 * 64 + 64  # 4,160 parameters per projection
    for step in ("q", "k", "v", "output"):
        assert (
            (rows[step].params, rows[step].macs, rows[step].elementwise) == (4160, 8 * 64 * 64, 0) == (linear, 32768, 0)
        )
    assert rows["scores"].macs == rows["head_outputs"].macs == 4 * 8 * 8 * 16 == 4096
    for step in ("scaled_scores", "masked_scores", "weights"):
        assert rows[step].elementwise == 4 * 8 * 8 == 256
    for step in ("q_heads", "k_heads", "v_heads", "concat"):
        assert (rows[step].params, rows[step].macs, rows[step].elementwise) == (0, 0, 0)
    assert rows["scores"].shape.text() == "(B, h, T_q, T_k) = (1, 4, 8, 8)"
    tot = H.totals_for(8, 64, 4, masked=True)
    assert (tot.params, tot.macs, tot.elementwise, tot.weights_bytes) == (16640, 139264, 768, 1024)
    assert sum(r.params for r in rows.values()) == tot.params and sum(r.macs for r in rows.values()) == tot.macs
    assert H.totals_for(8, 64, 4, masked=False).elementwise == 512


def test_cost_over_every_divisor_params_and_macs_flat_memory_grows():
    all_h = H.all_head_counts(64)
    assert all_h == [1, 2, 4, 8, 16, 32, 64]
    totals = [H.totals_for(8, 64, h, masked=False) for h in all_h]
    assert len({r.params for r in totals}) == 1 and len({r.macs for r in totals}) == 1
    assert [r.weights_bytes for r in totals] == [h * 8 * 8 * 4 for h in all_h]
    params, ops, memory = heads_charts.cost_charts(
        totals,
        4,
        params_title="p",
        ops_title="o",
        memory_title="m",
        macs_name="mac",
        elementwise_name="e",
        axis_title="h",
    )
    assert list(params.series[0].x) == list(ops.x_categories) == [str(h) for h in all_h]
    assert [s.stack for s in ops.series] == ["ops", "ops"]  # multiply-adds and element-wise ops stacked
    assert memory.series[0].texts[0] == H.human_bytes(totals[0].weights_bytes)  # the hover prints the bytes
    assert H.ratio_text(768, 192) == "×4" and H.ratio_text(5, 5) == "×1" and H.human_bytes(1024) == "1 KiB"


# ---------------------------------------------------------------- one big projection = h small ones
@pytest.mark.parametrize("d_model,h", [(64, 1), (64, 8), (8, 8), (32, 4)])
def test_block_slicing_gives_each_heads_projection_exactly(d_model, h):
    model, x, trace = traced(d_model, h, 5)
    W = H.full_weight(model, "q")  # (d_model, d_model), the seed's orientation
    d_k = d_model // h
    for i in range(h):
        w_i, b_i = model.head_projection("q", i)
        assert torch.equal(W[:, i * d_k : (i + 1) * d_k], w_i)
        assert torch.equal(model.W_q.bias[i * d_k : (i + 1) * d_k], b_i)
    checks = H.block_slices(model, x, trace.q_heads, "q")
    assert [c.head for c in checks] == list(range(h))
    assert all(c.weight_diff == 0.0 and c.bias_diff == 0.0 for c in checks)
    assert max(c.output_diff for c in checks) < 1e-5  # X·W_i + b_i is the head's slice of Q


def test_h1_and_h8_have_the_same_parameters_and_weights():
    for d_model in (8, 64, 512):
        one, eight = H.param_split(d_model, 1), H.param_split(d_model, 8)
        assert one.total == eight.total == d_model * d_model + d_model
        assert eight.per_head == d_model * (d_model // 8) + d_model // 8
    model, x, trace = traced(64, 8, 6)
    sv = H.single_vs_multi(model, x, None, 0, multi=trace)
    assert sv.same_weights and sv.params_single == sv.params_multi == 4 * (64 * 64 + 64)
    assert sv.single.weights.shape == (1, 1, 6, 6) and sv.multi.weights.shape == (1, 8, 6, 6)
    assert not torch.allclose(sv.single.output, sv.multi.output)  # same parameters, a different function


def test_the_single_head_and_the_heads_are_one_chart_on_one_scale():
    """Section 6 compares by eye: one chart, so one cell size and one colour range for the one head and the h."""
    model, x, trace = traced(64, 8, 6)
    sv = H.single_vs_multi(model, x, None, 0, multi=trace)
    lo, hi = H.single_range(sv)
    tokens = [f"t{i}" for i in range(6)]
    hm = H.single_vs_heads_heatmap(
        "w", sv.single.weights[0, 0], sv.multi.weights[0], [0, 7], tokens, d_model=64, vrange=(lo, hi)
    )
    assert [p.title.key for p in hm.panels] == ["heads.hm.single", "heads.hm.head", "heads.hm.head"]
    assert hm.panels[0].title.kw() == {"d": 64} and [p.title.kw() for p in hm.panels[1:]] == [{"i": 0}, {"i": 7}]
    assert np.array_equal(hm.panels[0].values, sv.single.weights[0, 0].numpy())
    assert np.array_equal(hm.panels[2].values, sv.multi.weights[0, 7].numpy())
    assert all(p.row_labels == tuple(tokens) for p in hm.panels) and (hm.vmin, hm.vmax) == (lo, hi)
    assert lo <= float(sv.single.weights.min()) and float(sv.multi.weights.max()) <= hi  # both fit the one scale
    assert t("heads.hm.single", "en", d=64) == "one head (h = 1, d_k = 64)"


def test_head_focus():
    T = 4
    uniform = torch.full((2, T, T), 1 / T)
    one_hot = torch.eye(T)[None].expand(3, T, T)
    assert torch.allclose(H.head_focus(uniform), torch.full((2,), 1 / T))
    assert torch.allclose(H.head_focus(one_hot), torch.ones(3))


# ---------------------------------------------------------------- timing (shape of the output only)
def test_time_forward_output_shape():
    threads = torch.get_num_threads()
    calls = []
    out = H.time_forward(
        8,
        2,
        0,
        [1, 2, 8],
        repeats=2,
        sample_seconds=0.0005,
        on_progress=lambda done, total, h: calls.append((done, total, h)),
    )
    assert [(r.h, r.d_k, r.repeats) for r in out] == [(1, 8, 2), (2, 4, 2), (8, 1, 2)]
    assert all(math.isfinite(r.median_ms) and 0 < r.min_ms <= r.median_ms <= r.max_ms and r.inner >= 1 for r in out)
    assert calls == [(0, 3, 1), (1, 3, 2), (2, 3, 8)]
    assert torch.get_num_threads() == threads  # the single-thread timing restores the thread count
    chart = heads_charts.timing_chart(
        out,
        [H.totals_for(2, 8, h, masked=False) for h in (1, 2, 4, 8)],
        2,
        measured_name="m",
        predicted_name="p",
        axis_title="h",
    )
    assert list(chart.series[0].x) == ["1", "2", "8"] and len(chart.series[1].y) == 3
    assert chart.series[1].axis == 2 and chart.y2_title  # the predicted operations on the right-hand axis
    assert all(lo <= m <= hi for (lo, hi), m in zip(chart.series[0].errors, chart.series[0].y))


# ---------------------------------------------------------------- strings
def test_strings_complete_in_both_languages():
    fields = lambda text: {f for _, f, _, _ in string.Formatter().parse(text) if f}  # noqa: E731
    for key, texts in HEADS_STRINGS.items():
        assert key.startswith("heads.") and set(texts) == {"zh", "en"}, key
        assert fields(texts["zh"]) == fields(texts["en"]), key
        assert STRINGS[key] is texts
    assert re.search("[\u4e00-\u9fff]", t("heads.flow.title", "zh"))
    for name in ("x", *AttentionTrace.names()):
        assert f"heads.box.{name}" in HEADS_STRINGS


# ---------------------------------------------------------------- the page (AppTest)
def open_tab(at, tab: str):
    at.query_params["heads_tab"] = tab  # what a click on the tab writes (ui/sections.py)
    return at.run()


def flow_html(at) -> str:
    return next(h.proto.body for h in at.get("html") if "al-flow" in h.proto.body)


@pytest.mark.app
def test_page_opens_on_the_shapes_section_with_no_chart():
    at = run_app("heads", d_model=64, num_heads=4, seq_len=8)
    assert not at.exception
    assert "heads_tab" not in at.query_params  # the first section; the URL is written on a click
    assert not charts(at) and not heatmaps(at)  # the diagram is HTML: a redraw costs the browser almost nothing
    assert diagrams.parse_sizes(diagrams.flow_box_texts(flow_html(at))["q_heads"]) == (1, 4, 8, 16)


@pytest.mark.app
def test_page_runs_and_survives_bad_state():
    at = run_app(None, d_model=8, num_heads=1, seq_len=2)  # home first: then plant garbage in the page's state
    for key, junk in (
        ("heads_pick", [99, "x"]),
        ("heads_slice_head", 500),
        ("heads_timings", "junk"),
        ("heads_last", "junk"),
        ("heads_prev_h", 7),
        ("heads_page", -3),
        ("heads_pick_for", None),
        ("heads_tab", 42),
    ):
        at.session_state[key] = junk
    at.switch_page("pages/heads.py")
    at.run()
    assert not at.exception
    assert "(1, 1, 2, 8)" in flow_html(at)  # the flow diagram, h = 1
    # h changes: the page says what changed, the diagram shows the old shape
    at.select_slider(key="num_heads").set_value(2).run()
    assert not at.exception
    assert any("from 1 to 2" in s.value for s in at.success)
    assert "was (1, 1, 2, 8)" in flow_html(at)
    open_tab(at, "heads")
    assert not at.exception
    assert at.multiselect(key="heads_pick").value == [0, 1]
    open_tab(at, "slice")
    assert at.selectbox(key="heads_slice_head").value == 0
    # the timing button measures every h (d_model = 8: 1, 2, 4, 8) and draws the result
    open_tab(at, "timing")
    at.button(key="heads_time_run").click().run()
    assert not at.exception
    # The timing waits its turn in the server's queue (ui/work_queue.py); the page then draws it.
    finish_queued_job(at, "heads_time_ticket", "heads_timings")
    assert not at.exception
    assert [r.h for r in at.session_state["heads_timings"][(8, 2, 0)]] == [1, 2, 4, 8]
    assert any('"ms"' in c.text for c in charts(at))


@pytest.mark.app
@pytest.mark.parametrize(
    "tab,charts", [("shapes", 0), ("heads", 1), ("cost", 3), ("timing", 0), ("slice", 2), ("single", 1)]
)
def test_each_section_draws_only_its_own_charts(tab, charts):
    at = run_app("heads", d_model=64, num_heads=16, seq_len=8, heads_tab=tab)
    assert not at.exception
    assert len(globals()["charts"](at)) + len(heatmaps(at)) == charts
    assert at.query_params["heads_tab"] == tab


@pytest.mark.app
def test_page_largest_settings_in_chinese():
    at = run_app("heads", d_model=512, num_heads=64, seq_len=32, mask="causal", lang="zh", heads_tab="heads")
    assert not at.exception
    assert at.title[0].value == "头与形状"
    assert sections(at)[0] == "1 形状流"
    assert len(at.multiselect(key="heads_pick").value) == 8  # a page of heads, not a wall of 64
    assert at.selectbox(key="heads_page").value == 0
    at.selectbox(key="heads_page").set_value(2).run()  # the third group of heads replaces the selection
    assert not at.exception
    assert at.multiselect(key="heads_pick").value == list(range(16, 24))
    open_tab(at, "shapes")
    assert "(1, 64, 32, 32)" in flow_html(at)


def test_focus_overview_bars_are_the_head_focus_values():
    focus = torch.tensor([0.25, 1.0, float("nan"), 0.5])
    html = diagrams.focus_html(focus, [1], uniform=0.25, axis_title="focus", head_label="head")
    assert [f"head {i}: " in html for i in range(4)] == [True] * 4
    assert "head 1: 1.000" in html and "head 2: nan" in html  # a head whose rows are all blocked says so
    heights = [float(x) for x in re.findall(r"class='al-bar' style='height:([0-9.]+)%", html)]
    assert heights == [25.0, 100.0, 0.0, 50.0]  # proportional to the focus, the largest bar full height
    assert f"background:{diagrams.CURRENT_COLOR}" in html.split("data-head='1'")[1].split("</div>")[0]
    assert "bottom:25.0%" in html  # the 1/T line


@pytest.mark.app
def test_the_cost_tables_fit_a_phone():
    """Issue 20: at 390 px the shapes, squeezed beside four numbers, wrapped over 3-4 lines. The shapes are a
    table of their own, their spaces non-breaking; the numbers another table of four columns."""
    rows = H.cost_rows(1, 8, 8, 64, 4, masked=True)
    titles = {r.step: r.step for r in rows}
    table = H.shape_table(rows, titles, step="step", axes="axes", sizes="sizes")
    by_step = dict(zip(table["step"], zip(table["axes"], table["sizes"])))
    assert by_step["q_heads"] == ("(B,\u00a0h,\u00a0T_q,\u00a0d_k)", "(1,\u00a04,\u00a08,\u00a016)")
    assert all(" " not in v for v in table["axes"] + table["sizes"])  # nothing to break a line at
    at = run_app("heads", lang="en", heads_tab="cost")
    assert not at.exception
    numbers, shapes, costs = (x.value for x in tables(at)[:3])
    # the four numbers beside h = 1 (one table in the text, not four metric cards)
    assert list(numbers.columns) == ["quantity", "h = 4", "h = 1", "vs h = 1"]
    assert numbers.iloc[0].tolist() == ["Parameters", "16,640", "16,640", "the same (×1)"]
    assert numbers.iloc[3].tolist() == ["Attention-weight memory", "1 KiB", "256 B", "×4"]
    assert list(shapes.columns) == ["step", "axes", "output shape"]
    assert list(costs.columns) == ["step", "parameters", "multiply-adds", "element-wise"]
    assert costs.iloc[-1].tolist() == ["total", "16,640", "139,264", "512"]


@pytest.mark.app
def test_a_step_of_t_sends_the_parameters_chart_unchanged_and_the_others_anew():
    """The parameters do not depend on T: a step of T sends their chart exactly as before (its file name leaves T
    out), so the browser does not draw it again; the operations and the memory change with T and say it."""
    before, after = (charts(run_app("heads", lang="en", heads_tab="cost", seq_len=T)) for T in (8, 9))
    files = ["attention-lab-params-d64", "attention-lab-ops-d64-T8", "attention-lab-memory-d64-T8"]
    assert [c.file for c in before] == files
    assert before[0].text == after[0].text
    assert [c.file for c in after[1:]] == ["attention-lab-ops-d64-T9", "attention-lab-memory-d64-T9"]
    assert all(b.series != a.series for b, a in zip(before[1:], after[1:]))


def test_a_number_in_scientific_notation_never_breaks_on_a_phone():
    """Issue 20: "1.34e-07" broke across lines at its hyphen on a 390 px screen."""
    import i18n

    text = i18n.t("home.check", "en", diff=1.34e-07)
    assert "1.34e\u201107" in text and "e-07" not in text
    assert i18n.t("heads.slice.check", "zh", h=4, w=0.0, b=0.0, o=2.5e-08).count("2.5e\u201108") == 1


# ---------------------------------------------------------------- the heatmaps (lessons.heatmap.Heatmap)
def test_heads_heatmap_is_the_traced_weights_one_panel_per_head():
    model, x, trace = traced(32, 8, 6)
    w = trace.weights[0]  # (h, T, T)
    tokens = [f"t{i}" for i in range(6)]
    lo, hi = H.data_range(w)
    assert (lo, hi) == (float(w.min()), float(w.max()))  # over every head, drawn or not
    hm = H.heads_heatmap("weights", w, [1, 5], tokens, vrange=(lo, hi))
    assert hm.role == "weights" and (hm.vmin, hm.vmax) == (lo, hi)
    assert [p.title.key for p in hm.panels] == ["heads.hm.head"] * 2 and [p.title.kw() for p in hm.panels] == [
        {"i": 1},
        {"i": 5},
    ]
    for panel, i in zip(hm.panels, (1, 5)):
        assert np.array_equal(panel.values, w[i].numpy()) and panel.row_labels == tuple(tokens)
    with pytest.raises(ValueError):
        hm.panels[0].values[0, 0] = 1.0  # read-only: what a lesson hands out cannot be changed
    assert t("heads.hm.head", "en", i=5) == "head 5" and t("heads.hm.head", "zh", i=5) == "头 5"


@pytest.mark.parametrize("d_model,h,head", [(64, 4, 2), (8, 8, 0), (512, 64, 63)])
def test_weight_block_heatmaps_are_the_big_w_and_the_heads_slice(d_model, h, head):
    model, _, _ = traced(d_model, h, 3)
    W = H.full_weight(model, "q")
    d_k = d_model // h
    rng = H.signed_range(W)
    assert rng == (-float(W.abs().max()), float(W.abs().max()))
    rows = min(d_model, 16)
    big = H.weight_blocks_heatmap(W, d_k, head, vrange=rng, rows_shown=rows)
    assert big.role == "signed" and big.panels[0].values.shape == (rows, d_model)
    exact = W[:rows].numpy()
    shown = big.panels[0].values
    tiny = (exact < 0) & (exact > -5e-5)  # would print "-0.0000": sent as 0 (compact codes have no signed zero)
    assert np.array_equal(shown[~tiny], exact[~tiny]) and np.all(shown[tiny] == 0.0)
    current = [r for r in big.rects if r.style == "current"]
    assert [(r.c0, r.c1, r.r0, r.r1) for r in current] == [(head * d_k, (head + 1) * d_k, 0, rows)]
    assert len(big.rects) == h  # every head's block outlined
    assert big.panels[0].col_groups == tuple(c // d_k for c in range(d_model))
    w_i = model.head_projection("q", head)[0].detach()
    small = H.head_weight_heatmap(w_i, head, vrange=rng, rows_shown=rows, first_col=head * d_k)
    assert np.array_equal(small.panels[0].values, big.panels[0].values[:, head * d_k : (head + 1) * d_k])
    assert small.panels[0].col_labels == tuple(str(head * d_k + j) for j in range(d_k))  # the big W's columns


@pytest.mark.app
def test_page_heatmaps_carry_the_runs_numbers():
    from lessons import scenario
    from lessons.settings import sanitize

    at = run_app("heads", d_model=64, num_heads=16, seq_len=8, heads_tab="heads", lang="en")
    assert not at.exception
    (grid,) = heatmaps(at)
    run = scenario.run(sanitize({"d_model": 64, "num_heads": 16, "seq_len": 8, "lang": "en"})[0])
    w = run.trace.weights[0]
    assert [p["title"] for p in grid.header["panels"]] == [f"head {i}" for i in range(8)]
    assert grid.header["row_axis"] == "query" and grid.header["col_axis"] == "key"
    for i in range(8):
        assert np.array_equal(grid.values(i), w[i].numpy())
    assert grid.header["vmin"] == pytest.approx(float(w.min())) and grid.header["vmax"] == pytest.approx(float(w.max()))
    at = run_app("heads", d_model=64, num_heads=16, seq_len=8, heads_tab="single", lang="zh")
    (both,) = heatmaps(at)  # one chart: the single head first, then the first page of 8 heads
    assert len(both.header["panels"]) == 9 and both.values(0).shape == (8, 8)
    sv = H.single_vs_multi(run.model, run.x, run.mask, 0)  # tokens differ by language; the numbers do not
    assert np.array_equal(both.values(0), sv.single.weights[0, 0].numpy())
    assert (
        both.header["panels"][0]["title"] == "单头（h = 1，d_k = 64）" and both.header["panels"][4]["title"] == "头 3"
    )
    assert np.array_equal(both.values(4), sv.multi.weights[0, 3].numpy())
    at = run_app("heads", d_model=64, num_heads=16, seq_len=8, heads_tab="slice", lang="en")
    big, small = heatmaps(at)
    assert big.header["role"] == "signed" and big.values(0).shape == (16, 64) and small.values(0).shape == (16, 4)
    exact = H.full_weight(run.model, "q")[:16].numpy()
    assert np.abs(big.values(0) - exact).max() <= 0.5e-4 + 1e-7  # the printed 4 decimals, sent as int16 codes
    assert all(p.get("codes") for p in big.header["panels"] + small.header["panels"])


@pytest.mark.app
def test_sixteen_heads_of_32_stay_under_64_kb():
    at = run_app("heads", d_model=512, num_heads=16, seq_len=32, heads_tab="heads")
    at.multiselect(key="heads_pick").set_value(list(range(16))).run()
    assert not at.exception
    (grid,) = heatmaps(at)
    assert len(grid.header["panels"]) == 16 and all(p.get("codes") for p in grid.header["panels"])
    size = len(at.get("bidi_component")[0].proto.bytes)
    assert size <= 64 * 1024, size


def settings(**kw):
    from lessons.settings import DEFAULTS, Settings

    return Settings(**{**DEFAULTS, "lang": "en", **kw})


@pytest.mark.app
def test_the_page_url_keys_are_declared_once_in_the_lesson():
    from lessons import url_keys
    from lessons.url import UrlKey, parse

    names = [k.name for k in H.URL_KEYS]
    assert names == ["heads_tab", "heads_page", "heads_pick", "heads_slice_head"]
    assert all(isinstance(k, UrlKey) for k in H.URL_KEYS) and url_keys.PAGE_KEYS["heads"] == tuple(names)
    assert H.URL_KEYS[0].choices == H.SECTIONS == ("shapes", "heads", "cost", "timing", "slice", "single")
    env = {"settings": settings(d_model=512, num_heads=64)}
    assert parse(H.URL_KEYS, {"heads_tab": "Cost"}, env)[0] == {
        "heads_tab": "cost",
        "heads_page": 0,
        "heads_pick": [0, 1, 2, 3, 4, 5, 6, 7],  # the first page of heads
        "heads_slice_head": 0,
    }
    at = run_app("heads", heads_tab="nope")
    assert not at.exception and at.query_params["heads_tab"] == "shapes"  # ui/sections: corrected, with a notice


def test_the_grid_keys_parse_to_heads_of_this_h():
    from lessons.url import parse

    env = {"settings": settings(d_model=512, num_heads=64)}
    values, fixes = parse(H.URL_KEYS, {"heads_page": "2", "heads_pick": "63, 0,5", "heads_slice_head": "9"}, env)
    assert (values["heads_page"], values["heads_pick"], values["heads_slice_head"]) == (2, [63, 0, 5], 9) and not fixes
    values, fixes = parse(H.URL_KEYS, {"heads_page": "99", "heads_pick": [3, 3], "heads_slice_head": "-4"}, env)
    assert values["heads_page"] == 7 and values["heads_slice_head"] == 0
    assert values["heads_pick"] == list(range(56, 64))  # a repeated head: the (clamped) page's heads instead
    assert {f.key: f.reason for f in fixes} == {
        "heads_page": "out_of_range",
        "heads_pick": "out_of_range",
        "heads_slice_head": "out_of_range",
    }
    for bad, reason in (
        ([64], "out_of_range"),
        (list(range(17)), "out_of_range"),
        ("x,1", "unreadable"),
        ([True], "unreadable"),
    ):
        value, fix = H.parse_pick(bad, {**env, "heads_page": 1})
        assert value == list(range(8, 16)) and fix is not None and fix.reason == reason, bad
    assert H.parse_pick([], env) == ([], None)  # nothing picked is a choice (the page asks to pick some)
    small = {"settings": settings(d_model=64, num_heads=2)}
    assert parse(H.URL_KEYS, {"heads_page": "1", "heads_slice_head": "5"}, small)[0]["heads_slice_head"] == 1


def test_the_page_numbers_are_the_accounting():
    metrics = {m.name: m for m in H.cost_metrics(8, 64, 4, masked=True)}
    assert [m.shown for m in metrics.values()] == ["16,640", "139,264", "768", "1 KiB"]
    assert metrics["params"].same and metrics["macs"].same and not metrics["memory"].same
    assert metrics["memory"].ratio == "×4" and metrics["elementwise"].ratio == "×4"  # 3·h·T² element-wise steps
    # beside each, the same count at h = 1, printed the same way
    assert [m.base for m in metrics.values()] == ["16,640", "139,264", "192", "256 B"]
    rows = H.cost_rows(1, 8, 8, 64, 4, masked=True)
    cols = H.cost_columns(rows, H.totals_for(8, 64, 4, masked=True))
    assert cols["params"][-1] == "16,640" and len(cols["macs"]) == len(rows) + 1 and cols["macs"][0] == "32,768"
    params = H.param_columns(8, 64, 4, masked=True)
    assert params["h"] == [1, 4, 8] and params["d_k"] == [64, 16, 8]
    assert params["per_head"][1] == "64·16 + 16 = 1,040" and params["total"][1] == "4 × 1,040 = 4,160"
    assert params["layer"] == ["16,640"] * 3  # the layer's parameters do not depend on h
    assert H.param_columns(8, 12, 3, masked=False)["h"] == [1, 3]  # 8 does not divide 12
    timing = [H.Timing(1, 64, 0.123456, 0.1, 0.2, 5, 1), H.Timing(4, 16, 0.5, 0.4, 0.6, 5, 1)]
    unmasked = [H.totals_for(8, 64, n, masked=False) for n in (1, 4)]
    cols = H.timing_columns(timing, unmasked)
    assert cols["median"] == [0.1235, 0.5] and cols["ops"] == [u.macs + u.elementwise for u in unmasked]
    assert H.heads_on_page(20, 2) == (16, 19) and H.head_pages(20) == 3 and H.head_pages(1) == 1
    assert H.single_heads([9, 2, 99], 16) == [2, 9] and H.single_heads([], 16) == list(range(8))


def test_the_slice_numbers_are_the_big_w_and_the_heads_own():
    model, x, trace = traced(64, 4, 5)
    numbers = H.slice_numbers(model, 2)
    W = H.full_weight(model, "q")
    assert list(numbers)[:2] == ["W^Q[:, 32]", "W_2^Q[:, 0]"] and len(numbers) == 8
    assert numbers["W^Q[:, 33]"] == numbers["W_2^Q[:, 1]"] == [f"{float(W[r, 33]):.6f}" for r in range(4)]
    check = H.slice_check(H.block_slices(model, x, trace.q_heads))
    assert (check["w"], check["b"]) == (0.0, 0.0) and 0.0 <= check["o"] < 1e-6  # the outputs: float32 rounding
    big, small = H.slice_heatmaps(model, 2, rows_shown=16)
    assert (big.vmin, big.vmax) == (small.vmin, small.vmax) == H.signed_range(W)
    assert np.array_equal(small.panels[0].values, big.panels[0].values[:, 32:48])


def test_track_h_remembers_the_h_before_the_latest_change():
    prev, last, kept = H.track_h(None, None, 64, 8, 4)
    assert (prev, last, kept) == (None, (64, 8, 4), None)  # first run
    prev, last, kept = H.track_h(last, kept, 64, 8, 8)
    assert prev == 4 and last == (64, 8, 8)
    assert H.track_h(last, kept, 64, 8, 8)[0] == 4  # a rerun at the same h keeps saying what changed
    assert H.track_h(last, kept, 64, 16, 8)[0] is None  # a new T: a new comparison
    for junk in ("junk", (64, 8, 0), (64, 8, "x"), (64, 8, True), (64, 8, 3)):
        assert H.track_h(junk, 7, 64, 8, 8)[0] is None, junk  # never an error, never an h that cannot split d


@pytest.mark.app
def test_the_page_settles_its_grid_keys_from_a_link_and_after_a_new_h():
    from lessons.url_keys import DECLARED

    at = run_app("heads", d_model=512, num_heads=64, seq_len=8, heads_tab="heads", heads_page="3", lang="en")
    assert not at.exception and DECLARED["heads"] is H.URL_KEYS
    assert at.selectbox(key="heads_page").value == 3 and at.multiselect(key="heads_pick").value == list(range(24, 32))
    assert not at.main.warning
    at = run_app("heads", d_model=512, num_heads=64, seq_len=8, heads_tab="heads", heads_pick="1,x", lang="en")
    assert not at.exception and at.multiselect(key="heads_pick").value == list(range(8))
    assert "heads_pick" not in at.query_params  # the bad value left the URL
    assert any(
        "heads_pick" in w.value and "0,1,2,3,4,5,6,7" in w.value for w in at.main.warning
    )  # said, in the main area
    at = run_app("heads", d_model=64, num_heads=8, seq_len=8, heads_tab="slice", lang="en")
    at.selectbox(key="heads_slice_head").set_value(7).run()
    at.select_slider(key="num_heads").set_value(4).run()  # a stale head: moved to the last one, quietly
    assert not at.exception and at.selectbox(key="heads_slice_head").value == 3 and not at.main.warning
    at.query_params["heads_tab"] = "heads"
    at.run()
    at.multiselect(key="heads_pick").set_value([1, 3]).run()
    at.select_slider(key="num_heads").set_value(8).run()  # a new h: its heads from the first page again
    assert not at.exception and at.multiselect(key="heads_pick").value == list(range(8))


def test_the_cost_charts_put_each_h_and_its_d_k_under_its_bar_and_mark_the_current_h():
    """The tick under each h is its d_k, on a second line at the chart's own size (static/plots.js draws every text at
    13 px or more; a 10 px inline span once was hard to read); the current h's bar is darker."""
    rows = [H.totals_for(8, 512, n, masked=True) for n in H.all_head_counts(512)]
    charts = heads_charts.cost_charts(rows, 64, **heads_charts.cost_words(lambda key, **kw: key))
    for chart in charts:
        assert len(chart.x_ticks) == 10 and chart.x_ticks[0] == ("1", "1\n512")  # h = 1, its d_k = 512 under it
        colors = chart.series[-1].colors
        assert len(set(colors)) == 2 and colors[6] != colors[0]  # h = 64 (the 7th h) drawn in its own colour
    timings = [H.Timing(r.h, 512 // r.h, 1.0, 0.5, 1.5, 5, 1) for r in rows]
    timing = heads_charts.timing_chart(timings, rows, 64, **heads_charts.timing_words(lambda key, **kw: key))
    assert not timing.x_ticks and timing.x_categories == tuple(str(r.h) for r in rows)  # h alone under each point
    assert timing.series[0].sizes[6] > timing.series[0].sizes[0]  # the current h's point larger


# ---------------------------------------------------------------- the lesson package (split by meaning)
def test_the_package_exports_what_exists_and_what_the_page_uses():
    """`__all__` names what exists (the docstring's map of files and their sizes: scripts/check_source.py)."""
    assert all(hasattr(H, n) for n in H.__all__) and len(set(H.__all__)) == len(H.__all__)
    assert {"URL_KEYS", "shape_flow", "heads_heatmap", "Timing"} <= set(H.__all__)
