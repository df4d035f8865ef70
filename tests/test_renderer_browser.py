"""static/heatmaps.js, the one heatmap renderer, in Chromium on the app's own pages: each cell is painted in its
colour, the hover prints the value at the chart's decimals, the chart updates in place, and nothing is cut off."""

from __future__ import annotations

import pytest
from conftest import open_app, sidebar_slider, wait_idle
from playwright.sync_api import expect

import i18n
from lessons import scenario
from lessons import walkthrough as W
from lessons.settings import Settings
from lessons.walkthrough.heatmaps import as_printed

pytestmark = pytest.mark.browser
CHART = ROUTE = ".al-chart"  # static/heatmaps.js's chart box


def ready(page, nth: int = 0, css: str = CHART):
    chart = page.locator(css).nth(nth)
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


def route(page, nth: int = 0):
    return ready(page, nth, ROUTE)


def hover_text(page, chart, layer: int, r: int, c: int) -> str:
    x, y = chart.evaluate("(box, a) => box.__alChart.cellPoint(...a)", [layer, r, c])
    page.mouse.move(x, y)
    tip = chart.locator(".al-tip")
    expect(tip).to_be_visible()
    return tip.inner_text()


def test_cells_are_painted_in_their_colour_and_hover_prints_the_value(page, server):
    open_app(page, server, "walkthrough", lang="en", walk_step="softmax", d_model=64, num_heads=4, seq_len=5)
    chart = route(page)
    run = scenario.run(Settings(64, 4, 5, "none", 0, "en"))
    w = run.trace.weights[0]  # (h, T, T)
    header = chart.evaluate(
        "box => { const h = box.__alChart.header; return {lo: h.vmin, hi: h.vmax, scale: h.colours.scale}; }"
    )
    half = chart.evaluate("box => [box.__alChart.g.cw / 2, box.__alChart.g.ch / 2]")
    for head, r, c in ((0, 0, 0), (0, 2, 3), (3, 4, 1)):  # a panel a head
        x, y = chart.evaluate("(box, a) => box.__alChart.cellPoint(...a)", [head, r, c])
        x, y = x + half[0] - 1, y + half[1] - 1  # the cell's middle (its edge is the white line between cells)
        got = chart.evaluate("(box, p) => box.__alChart.pixel(...p)", [x, y])
        want = expected_rgb(header["scale"], round(float(w[head, r, c]), 4), header["lo"], header["hi"])
        assert all(abs(g - e) <= 3 for g, e in zip(got, want)), (head, r, c, got, want)
    text = hover_text(page, chart, 0, 2, 3)
    tokens = W.axis_labels(run.tokens)
    q, k = i18n.t("walk.axis.query", "en"), i18n.t("walk.axis.key", "en")
    assert text.splitlines() == ["head 0", f"{q} {tokens[2]}", f"{k} {tokens[3]}", f"{float(w[0, 2, 3]):.4f}"]


def test_a_blocked_score_hovers_with_the_fill_value(page, server):
    open_app(
        page, server, "walkthrough", lang="en", walk_step="mask", mask="causal", d_model=64, num_heads=4, seq_len=5
    )
    chart = page.locator(ROUTE)
    expect(chart).to_have_count(2)  # the mask grid, and the heads' masked scores
    scores = route(page, 1)
    blocked = i18n.t("display.blocked", "en")
    run = scenario.run(Settings(64, 4, 5, "causal", 0, "en"))
    # the chart's decimals: 3 once a kept score passes |3.2767| (as_printed; unit-variance q, k make scores wider)
    decimals = as_printed([run.trace.masked_scores[0]])[1]
    assert scores.evaluate("box => box.__alChart.header.decimals") == decimals
    assert hover_text(page, scores, 1, 0, 3).splitlines()[-1] == f"{blocked} (-1000000000.{'0' * decimals})"
    kept = hover_text(page, scores, 0, 3, 1).splitlines()[-1]
    assert kept == f"{float(run.trace.masked_scores[0, 0, 3, 1]):.{decimals}f}"


def test_a_slider_step_repaints_the_same_canvas(page, server):
    """The heads page's grid (now the chart route's renderer, static/heatmaps.js) is keyed: a step repaints it in
    place, with the new token's label."""
    open_app(page, server, "heads", lang="en", heads_tab="heads")
    chart = page.locator(".al-chart").first
    page.wait_for_function("box => box.__alChart && box.__alChart.header", arg=chart.element_handle())
    canvas = chart.locator("canvas").first.element_handle()
    before = chart.evaluate("box => box.__alChart.panels[0].cols")
    thumb = sidebar_slider(page, 2)  # seq_len 8 -> 9
    thumb.focus()
    page.keyboard.press("ArrowRight")
    wait_idle(page)
    page.wait_for_function("(a) => a[0].__alChart.panels[0].cols !== a[1]", arg=[chart.element_handle(), before])
    assert canvas.evaluate("c => c.isConnected")  # kept in place (keyed), not mounted anew
    labels = chart.evaluate("box => box.__alChart.drawn")
    assert "was" in labels  # the new token's label is painted


@pytest.mark.parametrize("width", [1400, 390])
def test_nothing_is_cut_off_at_the_edges(browser, server, width):
    """Tick labels, titles and the colour bar fit inside the canvas: its outermost pixels stay white."""
    context = browser.new_context(viewport={"width": width, "height": 900}, locale="zh-CN")
    page = context.new_page()
    try:
        open_app(page, server, "walkthrough", lang="zh", walk_step="mask", mask="causal", seq_len=8)
        chart = ready(page, 1)  # the heads' masked scores
        box = chart.bounding_box()
        assert box["width"] <= width
        edges = chart.evaluate("""box => {
            // the chart's own rows: the canvas below them is hidden by its frame (draw keeps a taller backing store)
            const c = box.__alChart.canvas, ctx = c.getContext('2d'), w = c.width;
            const h = Math.round(box.__alChart.g.height * devicePixelRatio);
            const strips = [ctx.getImageData(0, 0, 2, h), ctx.getImageData(w - 2, 0, 2, h),
                            ctx.getImageData(0, h - 2, w, 2)];
            return strips.map(s => {
                let dark = 0;
                for (let i = 0; i < s.data.length; i += 4) if (s.data[i] < 200) dark++;
                return dark;
            });
        }""")
        assert edges == [0, 0, 0], edges
        assert "查询" in chart.evaluate("box => box.__alChart.drawn.join('|')")  # the y title, in Chinese
    finally:
        context.close()


def test_a_packed_scene_hovers_exactly_at_the_largest_settings(page, server):
    """d_model 512, T 32: X, with values beyond 3.2767, goes as int16 thousandths
    (lessons/walkthrough/heatmaps.as_printed, charts/payload compact), and the split step's heads as panels naming
    Q's own columns: the hover prints every value as Python does at the chart's decimals."""
    run = scenario.run(Settings(512, 16, 32, "none", 0, "en"))
    x = W.step_tensor(run, "x")  # (T, d_model)
    big = (x.abs() >= 3.2767).nonzero()
    assert len(big), "the example has values beyond int16 ten-thousandths"
    r, c = (int(v) for v in big[0])
    open_app(page, server, "walkthrough", lang="en", walk_step="input", d_model=512, num_heads=16, seq_len=32)
    chart = route(page)
    assert chart.evaluate("box => box.__alChart.header.decimals") == 3
    assert hover_text(page, chart, 0, r, c).splitlines()[-1] == f"{float(x[r, c]):.3f}"
    assert hover_text(page, chart, 0, 2, 7).splitlines()[-1] == f"{float(x[2, 7]):.3f}"
    open_app(page, server, "walkthrough", lang="en", walk_step="split", d_model=512, num_heads=16, seq_len=32)
    expect(page.locator(ROUTE)).to_have_count(1)  # no whole-Q band at d_model 512: each head's strip says whose
    panels = route(page)
    col = i18n.t("walk.axis.col", "en")
    q = W.step_tensor(run, "q")
    d = panels.evaluate("box => box.__alChart.header.decimals")
    assert hover_text(page, panels, 1, 5, 4).splitlines()[-2:] == [
        f"{col} 36",
        f"{float(q[5, 36]):.{d}f}",
    ]  # head 1's column 4 is Q's column 36


def test_a_step_of_t_paints_the_new_cells_on_the_canvas_it_keeps(page, server):
    """A step of T makes the chart a few rows shorter or taller: the renderer keeps its canvas's backing store (and
    each panel's one-pixel-per-cell image) instead of making them anew (~3 ms a step at 512/16/32), paints the
    chart's part, and its frame, as tall as the chart, hides the rows below. Down a step and up again: every probed
    cell, the last row and column included, has the new run's colour, the frame is the chart's height, and the
    SVG download's cell images are exactly T x T (not the larger image kept)."""
    import base64
    import xml.etree.ElementTree as ET

    open_app(
        page,
        server,
        "walkthrough",
        lang="en",
        walk_step="softmax",
        d_model=64,
        num_heads=8,
        seq_len=32,
        image_format="svg",
    )
    chart = route(page)
    assert chart.evaluate("box => box.__alChart.g.cw < 10")  # the images route
    canvas = chart.locator("canvas").first.element_handle()
    size = canvas.evaluate("c => [c.width, c.height]")
    thumb = sidebar_slider(page, 2)
    for key, T in (("ArrowLeft", 31), ("ArrowRight", 32)):
        thumb.focus()
        page.keyboard.press(key)
        wait_idle(page)
        page.wait_for_function("(a) => a[0].__alChart.panels[0].cols === a[1]", arg=[chart.element_handle(), T])
        assert canvas.evaluate("c => c.isConnected") and canvas.evaluate("c => [c.width, c.height]") == size
        frame, height = chart.evaluate(
            "box => [box.__alChart.frame.getBoundingClientRect().height, box.__alChart.g.height]"
        )
        assert frame == pytest.approx(height, abs=0.5)
        assert canvas.evaluate("c => c.getBoundingClientRect().height") >= height  # the rest hidden by the frame
        w = scenario.run(Settings(64, 8, T, "none", 0, "en")).trace.weights[0]  # (h, T, T)
        painted_in_their_colours(
            chart, w, [(0, 0, 0), (1, T - 1, T - 1), (5, T - 1, 0), (7, 3, T - 1), (2, T // 2, T // 3)]
        )
        if T == 31:  # the SVG's cell images, from the kept (32 x 32) images: exactly 31 x 31
            chart.hover()
            with page.expect_download() as info:
                chart.locator(".al-download").click()
            root = ET.parse(info.value.path()).getroot()
            images = [e for e in root.iter() if e.tag.endswith("image")]
            assert len(images) == 8  # a panel a head
            for image in images:
                href = image.get("href") or image.get("{http://www.w3.org/1999/xlink}href")
                png = base64.b64decode(href.split(",", 1)[1])
                assert (int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")) == (31, 31)


def test_per_head_panels_at_t32_keep_their_axis_titles_and_tokens(page, server):
    """Issue 20: at seq_len 32 the head panels lost the query / key titles and every token label, and only 4
    heads fit a page. Now 8 heads a page, titled axes, and tokens thinned alike in every panel."""
    open_app(page, server, "walkthrough", lang="en", walk_step="softmax", d_model=64, num_heads=8, seq_len=32)
    chart = route(page)
    drawn = chart.evaluate("box => box.__alChart.drawn")
    run = scenario.run(Settings(64, 8, 32, "none", 0, "en"))
    tokens = W.axis_labels(run.tokens)
    for axis in ("walk.axis.query", "walk.axis.key"):  # the title, saying how its labels are thinned
        assert any(t.startswith(i18n.t(axis, "en")) for t in drawn), axis
    assert [f"head {h}" for h in range(8)] == [t for t in drawn if t.startswith("head ")]
    assert drawn.count(tokens[0]) >= 2 + 4  # query labels of both panel rows, key labels under every panel
    shown = [t for t in tokens if t in drawn]
    assert len(shown) >= 8, shown  # thinned (every k-th), not dropped as at 16 tokens and more before


def cell_colours(chart, cells) -> list[tuple[int, int, int]]:
    """The colour painted in the middle of each (panel, row, col)."""
    return chart.evaluate(
        """(box, cells) => { const c = box.__alChart, g = c.g;
            return cells.map(([i, r, k]) => { const [x, y] = c.cellPoint(i, r, k);
                return c.pixel(x + g.cw / 2 - 1, y + g.ch / 2 - 1); }); }""",
        cells,
    )


def painted_in_their_colours(chart, weights, cells) -> list[tuple[int, int, int]]:
    """Assert each probed (panel, row, col) is painted in its weight's colour on the chart's own scale (within 3 a
    channel); returns the colours read."""
    lo, hi, stops = chart.evaluate(
        "box => { const h = box.__alChart.header; return [h.vmin, h.vmax, h.colours.scale]; }"
    )
    got_all = cell_colours(chart, cells)
    for (head, r, c), got in zip(cells, got_all):
        want = expected_rgb(stops, round(float(weights[head, r, c]), 4), lo, hi)
        assert all(abs(g - e) <= 3 for g, e in zip(got, want)), (head, r, c, got, want)
    return got_all


def test_new_data_at_the_same_size_paints_every_cell_anew(page, server):
    """A redraw at the same size paints over the canvas it has (no new backing store) and refills each panel's
    one-pixel-per-cell image it keeps: a new seed at T 32 (cells too small for the white lines, so those images are
    drawn) shows every probed cell in the new run's colour, none left from the seed before, and the labels again."""
    open_app(page, server, "walkthrough", lang="en", walk_step="softmax", d_model=64, num_heads=8, seq_len=32)
    chart = route(page)
    assert chart.evaluate("box => box.__alChart.g.cw < 10")  # the images route, not one rect a cell
    canvas = chart.locator("canvas").first.element_handle()
    size = canvas.evaluate("c => [c.width, c.height]")
    cells = [(0, 3, 1), (0, 20, 7), (5, 31, 30), (7, 12, 12)]
    before = cell_colours(chart, cells)
    drawn = chart.evaluate("box => box.__alChart.draws")
    seed = page.locator("[data-testid=stSidebar]").get_by_role("spinbutton")
    seed.fill("5")
    seed.press("Enter")
    wait_idle(page)
    page.wait_for_function("(a) => a[0].__alChart.draws > a[1]", arg=[chart.element_handle(), drawn])
    assert canvas.evaluate("c => c.isConnected") and canvas.evaluate("c => [c.width, c.height]") == size
    w = scenario.run(Settings(64, 8, 32, "none", 5, "en")).trace.weights[0]  # (h, T, T)
    after = painted_in_their_colours(chart, w, cells)
    assert after != before  # the probes can tell the two seeds apart
    tokens = W.axis_labels(scenario.run(Settings(64, 8, 32, "none", 5, "en")).tokens)
    assert tokens[0] in chart.evaluate("box => box.__alChart.drawn")


@pytest.mark.parametrize("width,seq_len", [(1400, 8), (390, 8)])
def test_numbers_in_the_cells_print_per_panel(browser, server, width, seq_len):
    """Issue 20: at the defaults (4 heads x 8 tokens) "Numbers in the cells" silently printed nothing. Each head's
    panel of the heads page's grid prints its numbers (now the chart route's renderer, static/heatmaps.js: two
    decimals in a cell; a phone stacks the panels full-width, so they print there too).
    (The old renderer's note under a chart whose panels were too small or over 12 x 12 has no counterpart in the
    chart route's renderer, which leaves such cells to the hover and the table view.)"""
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    try:
        open_app(page, server, "heads", lang="en", heads_tab="heads", seq_len=seq_len, cell_numbers="true")
        chart = page.locator(".al-chart").first
        page.wait_for_function(
            "box => box.__alChart && box.__alChart.drawn && box.__alChart.drawn.length", arg=chart.element_handle()
        )
        run = scenario.run(Settings(64, 4, seq_len, "none", 0, "en"))
        value = f"{float(run.trace.weights[0, 2, 1, 3]):.2f}"
        drawn = chart.evaluate("box => box.__alChart.drawn")
        assert value in drawn and len([t for t in drawn if t.startswith("0.")]) >= 4 * seq_len * seq_len
    finally:
        context.close()
