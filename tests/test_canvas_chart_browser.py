"""static/heatmap.js in Chromium, on the app's own pages: each cell is painted in its colour, the hover
prints what plotly's would, a click target answers, the chart updates in place, and nothing is cut off."""

from __future__ import annotations

import pytest
from conftest import open_app, sidebar_slider, wait_idle
from playwright.sync_api import expect

from core import figures, i18n, scenario
from core import walkthrough as W
from core.settings import Settings

pytestmark = pytest.mark.browser
CHART = ".al-heatmap"


def ready(page, nth: int = 0):
    chart = page.locator(CHART).nth(nth)
    chart.scroll_into_view_if_needed()
    page.wait_for_function("box => box.__alChart && box.__alChart.g", arg=chart.element_handle())
    return chart


def expected_rgb(stops, v: float, lo: float, hi: float) -> tuple[int, int, int]:
    """The colour plotly gives v: linear in RGB between the scale's stops."""
    from plotly.colors import hex_to_rgb

    t = min(1.0, max(0.0, (v - lo) / ((hi - lo) or 1)))
    for (t0, c0), (t1, c1) in zip(stops, stops[1:]):
        if t <= t1:
            f = (t - t0) / ((t1 - t0) or 1)
            a, b = hex_to_rgb(c0), hex_to_rgb(c1)
            return tuple(round(a[i] + (b[i] - a[i]) * f) for i in range(3))
    return hex_to_rgb(stops[-1][1])


def hover_text(page, chart, layer: int, r: int, c: int) -> str:
    x, y = chart.evaluate("(box, a) => box.__alChart.cellPoint(...a)", [layer, r, c])
    page.mouse.move(x, y)
    tip = chart.locator(".al-tip")
    expect(tip).to_be_visible()
    return tip.inner_text()


def test_cells_are_painted_in_their_colour_and_hover_prints_the_value(page, server):
    open_app(page, server, "walkthrough", lang="en", walk_step="softmax", d_model=64, num_heads=4, seq_len=5)
    chart = ready(page)
    run = scenario.run(Settings(64, 4, 5, "none", 0, "en"))
    w = run.trace.weights[0]  # (h, T, T)
    layer = chart.evaluate("box => { const l = box.__alChart.scene.layers[0]; return {lo: l.zmin, hi: l.zmax, "
                           "scale: l.scale, cols: l.cols}; }")
    for head, r, c in ((0, 0, 0), (0, 2, 3), (3, 4, 1)):
        col = head * (5 + 1) + c  # heads tile side by side with one empty column between them (5 keys)
        x, y = chart.evaluate("(box, a) => box.__alChart.cellPoint(...a)", [0, r, col])
        got = chart.evaluate("(box, p) => box.__alChart.pixel(...p)", [x, y])
        want = expected_rgb(layer["scale"], float(w[head, r, c]), layer["lo"], layer["hi"])
        assert all(abs(g - e) <= 3 for g, e in zip(got, want)), (head, r, c, got, want)
    text = hover_text(page, chart, 0, 2, 3)
    tokens = figures.axis_labels(run.tokens)
    q, k = i18n.t("walk.axis.query", "en"), i18n.t("walk.axis.key", "en")
    assert text.splitlines() == [f"{q} {tokens[2]}", f"{k} {tokens[3]}", f"{float(w[0, 2, 3]):.4f}"]


def test_a_blocked_score_hovers_with_the_fill_value(page, server):
    open_app(page, server, "walkthrough", lang="en", walk_step="mask", mask="causal", d_model=64, num_heads=4,
             seq_len=5)
    chart = page.locator(CHART)
    expect(chart).to_have_count(2)  # the mask grid, and the tiled masked scores
    scores = ready(page, 1)
    assert hover_text(page, scores, 1, 0, 3).splitlines()[-1] == "-1e+09"  # row 0 cannot see key 3
    kept = hover_text(page, scores, 0, 3, 1).splitlines()[-1]
    run = scenario.run(Settings(64, 4, 5, "causal", 0, "en"))
    assert kept == f"{float(run.trace.masked_scores[0, 0, 3, 1]):.4f}"


def test_a_slider_step_repaints_the_same_canvas(page, server):
    open_app(page, server, "heads", lang="en", heads_tab="heads")
    chart = ready(page)
    canvas = chart.locator("canvas").element_handle()
    before = chart.evaluate("box => box.__alChart.scene.layers[0].cols")
    thumb = sidebar_slider(page, 2)  # seq_len 8 -> 9
    thumb.focus()
    page.keyboard.press("ArrowRight")
    wait_idle(page)
    page.wait_for_function("(a) => a[0].__alChart.scene.layers[0].cols !== a[1]", arg=[chart.element_handle(), before])
    assert canvas.evaluate("c => c.isConnected")  # kept in place (keyed), not mounted anew
    labels = chart.evaluate("box => box.__alChart.drawn")
    assert "8:was" in labels  # the new token's label is painted


@pytest.mark.parametrize("width", [1400, 390])
def test_nothing_is_cut_off_at_the_edges(browser, server, width):
    """Tick labels, titles and the colour bar fit inside the canvas: its outermost pixels stay white."""
    context = browser.new_context(viewport={"width": width, "height": 900}, locale="zh-CN")
    page = context.new_page()
    try:
        open_app(page, server, "walkthrough", lang="zh", walk_step="mask", mask="causal", seq_len=8)
        chart = ready(page, 1)  # the tiled masked scores (the masks lab moved to the chart route)
        box = chart.bounding_box()
        assert box["width"] <= width
        edges = chart.evaluate("""box => {
            const c = box.__alChart.canvas, ctx = c.getContext('2d'), w = c.width, h = c.height;
            const strips = [ctx.getImageData(0, 0, 2, h), ctx.getImageData(w - 2, 0, 2, h), ctx.getImageData(0, h - 2, w, 2)];
            return strips.map(s => { let dark = 0; for (let i = 0; i < s.data.length; i += 4) if (s.data[i] < 200) dark++; return dark; });
        }""")
        assert edges == [0, 0, 0], edges
        assert "查询" in chart.evaluate("box => box.__alChart.drawn.join('|')")  # the y title, in Chinese
    finally:
        context.close()


def test_a_packed_scene_hovers_exactly_at_the_largest_settings(page, server):
    """d_model 512, T 32: X goes as int16 ten-thousandths with its few values beyond 3.2767 beside them,
    and the split step's head band as one row sent once (core/scene_wire.pack): the hover still prints
    every value as Python does."""
    run = scenario.run(Settings(512, 16, 32, "none", 0, "en"))
    x = W.step_tensor(run, "x")  # (T, d_model)
    big = (x.abs() >= 3.2767).nonzero()
    assert len(big), "the example has values beyond int16 ten-thousandths"
    r, c = (int(v) for v in big[0])
    open_app(page, server, "walkthrough", lang="en", walk_step="input", d_model=512, num_heads=16, seq_len=32)
    chart = ready(page)
    assert hover_text(page, chart, 0, r, c).splitlines()[-1] == f"{float(x[r, c]):.4f}"
    assert hover_text(page, chart, 0, 2, 7).splitlines()[-1] == f"{float(x[2, 7]):.4f}"
    open_app(page, server, "walkthrough", lang="en", walk_step="split", d_model=512, num_heads=16, seq_len=32)
    band, panels = ready(page, 0), ready(page, 1)
    col, head = i18n.t("walk.axis.col", "en"), i18n.t("walk.axis.head", "en")
    rows = band.evaluate("box => box.__alChart.scene.layers.length === 1 && box.__alChart.scene.layers[0].rows")
    assert rows > 1  # the band alone at d_model 512 (the head panels give the values)
    assert hover_text(page, band, 0, rows - 1, 100) == f"{col} 100 → {head} 3, {col} 4"  # d_k = 32
    q = W.step_tensor(run, "q")
    assert hover_text(page, panels, 0, 5, 1 * (32 + 3) + 4).splitlines()[-2:] == [
        f"{col} 36", f"{float(q[5, 36]):.4f}"]  # head 1's column 4 is Q's column 36 (panels 3 apart)


def test_per_head_panels_at_t32_keep_their_axis_titles_and_tokens(page, server):
    """Issue 20: at seq_len 32 the head panels lost the query / key titles and every token label, and only 4
    heads fit a page. Now 8 heads a page, titled axes, and tokens thinned alike in every panel."""
    open_app(page, server, "walkthrough", lang="en", walk_step="softmax", d_model=64, num_heads=8, seq_len=32)
    chart = ready(page)
    drawn = chart.evaluate("box => box.__alChart.drawn")
    run = scenario.run(Settings(64, 8, 32, "none", 0, "en"))
    tokens = figures.axis_labels(run.tokens)
    assert i18n.t("walk.axis.query", "en") in drawn and i18n.t("walk.axis.key", "en") in drawn
    assert [f"head {h}" for h in range(8)] == [t for t in drawn if t.startswith("head ")]
    assert drawn.count(tokens[0]) >= 2 + 4  # query labels of both panel rows, key labels under all 4 columns
    shown = [t for t in tokens if t in drawn]
    assert len(shown) >= 8, shown  # thinned (every k-th), not dropped as at 16 tokens and more before


@pytest.mark.parametrize("width,seq_len,note", [(1400, 8, None), (390, 8, "display.numbers.small"),
                                                (1400, 16, "display.numbers.large")])
def test_numbers_in_the_cells_print_per_panel_or_say_why_not(browser, server, width, seq_len, note):
    """Issue 20: at the defaults (4 heads x 8 tokens) "Numbers in the cells" silently printed nothing. Each head's
    panel prints its numbers; where that cannot be read (a phone) or is not done (panels over 12 x 12), the chart
    says so under it."""
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    try:
        open_app(page, server, "walkthrough", lang="en", walk_step="softmax", seq_len=seq_len, cell_numbers="true")
        chart = ready(page)
        run = scenario.run(Settings(64, 4, seq_len, "none", 0, "en"))
        value = figures.short_number(float(run.trace.weights[0, 2, 1, 3]))
        drawn = chart.evaluate("box => box.__alChart.drawn")
        shown = chart.locator(".al-note")
        if note is None:
            assert value in drawn and len([t for t in drawn if t.startswith("0.")]) >= 4 * 64
            expect(shown).to_be_hidden()
        else:
            assert len([t for t in drawn if t.startswith("0.")]) < 10  # the colour bar's ticks, no cell number
            expect(shown).to_have_text(i18n.t(note, "en", n=figures.CELL_TEXT_MAX))
    finally:
        context.close()
