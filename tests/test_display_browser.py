"""Display options in a real browser: the camera button saves a real PNG / SVG (offline, made in the
page: by the app's canvas renderer for heatmaps, by static/plots.js for line and bar charts), every chart offers it,
and the keyboard reaches and works the controls."""

from __future__ import annotations

import re
import struct
import xml.etree.ElementTree as ET
from urllib.parse import urlsplit

import pytest
from chart_reader import BROWSER_CHART as CHART
from conftest import open_app, wait_idle
from playwright.sync_api import expect

from lessons import scenario
from lessons.settings import Settings

pytestmark = pytest.mark.browser

DOWNLOAD = ".al-download"  # the chart's own download button (static/heatmaps.js, static/plots.js)
FOCUSED_KEY = """() => { const k = document.activeElement && document.activeElement.closest('[class*="st-key-"]');
  return k ? [...k.classList].find(c => c.startsWith('st-key-')).slice(7) : null; }"""
# The focused element's label, inside a shadow root too (the canvas charts' download button lives in one).
FOCUSED_LABEL = """() => { let a = document.activeElement;
  while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
  return a ? (a.getAttribute('aria-label') || '') : ''; }"""


def offline(page, server) -> list[str]:
    """Block every request that leaves the app's own address; returns the list of those tried."""
    tried: list[str] = []
    own = urlsplit(server.url).netloc

    def handle(route):
        if urlsplit(route.request.url).netloc == own:
            route.continue_()
        else:
            tried.append(route.request.url)
            route.abort()

    page.route("**/*", handle)
    return tried


def save_first_chart(page):
    chart = page.locator(CHART).first
    chart.scroll_into_view_if_needed()
    chart.hover()
    with page.expect_download() as info:
        chart.locator(DOWNLOAD).click()
    download = info.value
    with open(download.path(), "rb") as f:
        return chart, download.suggested_filename, f.read()


def test_camera_button_saves_a_real_png_at_twice_the_size(page, server):
    tried = offline(page, server)  # the image is made in the page: no internet needed
    open_app(page, server, "walkthrough", lang="en", walk_step="softmax", d_model=64, num_heads=4, seq_len=5)
    chart, name, data = save_first_chart(page)
    assert name == "attention-lab-weights.png"  # the chart route's file name: the chart, not the settings
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])  # the IHDR chunk
    shown = chart.locator(".al-canvas, svg").first.bounding_box()  # the canvas's frame: the chart as shown
    assert width == pytest.approx(2 * shown["width"], abs=4)  # scale 2: sharp on a projector
    assert height == pytest.approx(2 * shown["height"], abs=4)
    assert tried == []


def test_svg_setting_makes_the_camera_button_save_a_real_svg(page, server):
    tried = offline(page, server)
    open_app(
        page,
        server,
        "walkthrough",
        lang="zh",
        walk_step="softmax",
        d_model=64,
        num_heads=4,
        seq_len=5,
        image_format="svg",
    )
    _, name, data = save_first_chart(page)
    assert name.endswith(".svg")
    root = ET.fromstring(data.decode("utf-8"))
    assert root.tag.endswith("svg")
    texts = "".join(root.itertext())
    assert "头 0" in texts and "头 3" in texts  # the panels' titles, as vector text
    assert tried == []


@pytest.mark.parametrize(
    "path,params,at_least",
    [
        # the all-steps view draws one step's tensors; with the cell's charts on: mask grid, scores, three of the cell
        ("walkthrough", dict(walk_view="all", walk_step="mask", mask="causal", walk_cellcharts="true", seq_len=5), 5),
        ("heads", dict(seq_len=5, heads_tab="single"), 1),
        ("heads", dict(seq_len=5, heads_tab="cost"), 3),  # the bar charts (static/plots.js)
        ("masks", dict(mask="custom", seq_len=5), 1),  # mask | scores | weights: one chart per section
        ("masks", dict(masks_tab="polarity", seq_len=5), 2),
        ("real-model", dict(), 1),  # one chart per section (real_tab)
    ],
)
def test_every_chart_on_the_page_offers_the_download(page, server, path, params, at_least):
    open_app(page, server, path, lang="en", **params)
    charts = page.locator(CHART)
    expect(charts.nth(at_least - 1)).to_be_attached(timeout=60_000)
    n = charts.count()
    for i in range(n):
        chart = charts.nth(i)
        chart.scroll_into_view_if_needed()
        expect(chart.locator(DOWNLOAD)).to_have_count(1, timeout=30_000)


# Resolves once nothing on the page has scrolled for 150 ms (at most 5 s).
SCROLL_SETTLED = """() => new Promise(done => { let quiet;
  const again = () => { clearTimeout(quiet); quiet = setTimeout(stop, 150); };
  const stop = () => { document.removeEventListener('scroll', again, true); done(); };
  document.addEventListener('scroll', again, true); again(); setTimeout(stop, 5000); })"""


def tab_to(page, key: str, limit: int = 150) -> None:
    """Press Tab until the focus is in the widget with this key (fails if Tab never gets there), then wait until the
    scroll that brings it into view has ended, as a person's eyes would: react-aria closes an open list when its
    page scrolls, and on a loaded machine that scroll event can come after the next key has opened the list."""
    expect(page.locator(f".st-key-{key}")).to_be_visible()  # Tab cannot reach a widget the run has not drawn yet
    passed = []
    for _ in range(limit):
        page.keyboard.press("Tab")
        passed.append(page.evaluate(FOCUSED_KEY))
        if passed[-1] == key:
            page.evaluate(SCROLL_SETTLED)
            return
    raise AssertionError(f"Tab never reached {key}; it passed {passed}")


def choose(page, option: str) -> None:
    """In the focused select box: type the option, wait for it to be the only one offered, press Enter."""
    page.keyboard.type(option)
    expect(page.get_by_role("option")).to_have_count(1)
    expect(page.get_by_role("option").first).to_have_text(option)
    page.keyboard.press("Enter")


def test_keyboard_reaches_the_drill_down_and_the_chart_download(page, server):
    open_app(
        page,
        server,
        "walkthrough",
        lang="en",
        walk_step="softmax",
        d_model=64,
        num_heads=4,
        seq_len=5,
        walk_drill="true",
    )  # the cell's story open (it is a lazy expander)
    expect(page.get_by_text("Head 0, query a = 4")).to_be_visible()
    tab_to(page, "walk_i")  # the keyboard's way to the cell a click on the heatmap chooses
    choose(page, "3")
    wait_idle(page)
    expect(page.get_by_text("Head 0, query a = 3 (“on”), key b = 0")).to_be_visible()
    expect(page).to_have_url(re.compile(r"walk_i=3"))
    # Shift+Tab back to the weights chart's camera button: Enter saves the image.
    for _ in range(40):
        page.keyboard.press("Shift+Tab")
        if page.evaluate(FOCUSED_LABEL).startswith(
            "Download"
        ):  # plotly's "Download plot", the canvas's "Download this chart"
            break
    else:
        raise AssertionError("Shift+Tab never reached a chart's download button")
    with page.expect_download() as info:
        page.keyboard.press("Enter")
    with open(info.value.path(), "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"


def test_keyboard_turns_on_cell_numbers_and_the_link_carries_them(page, server):
    open_app(page, server, "walkthrough", lang="en", walk_step="softmax", d_model=64, num_heads=4, seq_len=5)
    chart = page.locator(".al-chart").first  # the weights: the chart route's heatmap, painted on a canvas
    w = scenario.run(Settings(64, 4, 5, "none", 0, "en")).trace.weights[0, 0, 0, 0]
    number = f"{round(float(w), 4):.2f}"  # a cell prints 2 decimals (static/heatmaps.js cellNumber)
    painted = "(box, n) => box.__alChart.drawn.includes(n)"  # the texts the renderer painted
    expect(chart).to_be_visible()
    assert not chart.evaluate(painted, number)
    tab_to(page, "cell_numbers")
    page.keyboard.press("Space")
    wait_idle(page)
    expect(page).to_have_url(re.compile(r"cell_numbers=true"))
    page.wait_for_function("(a) => a[0].__alChart.drawn.includes(a[1])", arg=[chart.element_handle(), number])


# The texts a chart painted that are cell numbers: 2 decimals (static/heatmaps.js cellNumber for |v| < 10), the
# colour bar's ticks left out; and the font size paintNumbers would choose (it prints nothing under 8 px; `cell` is
# its cellNumber).
CELL_NUMBERS = r"""box => { const c = box.__alChart, g = c.g, ticks = new Set(g.ticks.map(String));
  const dec = c.header.decimals, cell = v => !Number.isFinite(v) ? (Number.isNaN(v) ? "" : "-inf")
    : Math.abs(v) >= 1e4 ? v.toExponential(0)
    : v.toFixed(Math.min(dec, Math.abs(v) >= 100 ? 0 : Math.abs(v) >= 10 ? 1 : 2));
  const longest = Math.max(1, ...c.panels.flatMap(p => [...p.values].map(v => cell(v).length)));
  return {name: c.header.name, numbers: c.drawn.filter(t => /^-?\d+\.\d\d$/.test(t) && !ticks.has(t)),
          size: Math.min(g.size, g.ch * 0.62, (g.cw - 2) / (longest * 0.58)), texts: c.drawn}; }"""


def painted_numbers(page, name: str) -> dict:
    """CELL_NUMBERS of the chart route's heatmap called `name` (its payload's header name)."""
    charts = page.locator(".al-chart")  # (in the components' shadow roots: Playwright's CSS reaches them)
    expect(charts.first).to_be_attached(timeout=60_000)
    # Until a drawn chart of that name is on the page (a chart draws after the run that sends it).
    drawn = "(b, name) => !!(b.__alChart && b.__alChart.g && b.__alChart.header.name === name)"
    page.wait_for_function(
        f"""name => {{
            const all = root => [...root.querySelectorAll('*')]
                .flatMap(e => [e, ...(e.shadowRoot ? all(e.shadowRoot) : [])]);
            return all(document).some(b => b.classList.contains('al-chart') && ({drawn})(b, name));
        }}""",
        arg=name,
        polling=200,
    )
    for i in range(charts.count()):
        chart = charts.nth(i)
        if chart.evaluate(drawn, name):
            chart.scroll_into_view_if_needed()
            return chart.evaluate(CELL_NUMBERS)
    raise AssertionError(f"no chart {name}")


def test_numbers_in_the_cells_skip_blocked_cells_and_cells_too_small_to_read(page, server):
    """The renderer's rule (static/heatmaps.js paintNumbers): a number in every cell that is neither blocked nor
    marked, in one font size per panel, and nothing when that size is under 8 px (hover and tables have them)."""
    open_app(
        page,
        server,
        "walkthrough",
        lang="en",
        walk_step="mask",
        mask="causal",
        d_model=64,
        num_heads=4,
        seq_len=5,
        cell_numbers="true",
    )
    got = painted_numbers(page, "masked_scores")
    run = scenario.run(Settings(64, 4, 5, "causal", 0, "en"))
    kept = run.trace.masked_scores[0][:, ~run.trace.masked_scores[0, 0].le(-1e8)]  # (4 heads, 15 kept cells)
    assert got["size"] >= 8 and len(got["numbers"]) == 4 * 15  # the 10 blocked cells of each head print nothing
    assert not [t for t in got["texts"] if "e+" in t or "1000000000" in t]  # no -1e9 anywhere in the cells
    # the same numbers to the printed 2 decimals (a value on a rounding edge may print one unit either way: the
    # payload carries it rounded to the chart's decimals, the cell rounds that again)
    printed, wanted = sorted(map(float, got["numbers"])), sorted(float(v) for v in kept.flatten())
    assert max(abs(a - b) for a, b in zip(printed, wanted)) < 0.006, (printed, wanted)
    # 32 tokens, 4 heads side by side: cells of a few px, no numbers (too small), though the option is on
    open_app(
        page,
        server,
        "walkthrough",
        lang="en",
        walk_step="softmax",
        d_model=64,
        num_heads=4,
        seq_len=32,
        cell_numbers="true",
    )
    got = painted_numbers(page, "weights")
    assert got["size"] < 8 and got["numbers"] == []
    assert [t for t in got["texts"] if t.startswith("head ")] == [f"head {h}" for h in range(4)]  # it did paint


def test_keyboard_toggles_a_cell_of_the_hand_drawn_mask(page, server):
    # T = 4, default grid "1000.1100.1110.0111"
    open_app(page, server, "masks", lang="en", mask="custom", seq_len=4)
    tab_to(page, "masks_cell_i")
    choose(page, "2")  # row 2
    wait_idle(page)
    tab_to(page, "masks_cell_toggle")  # column stays 0
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"masks_grid=1000\.1100\.0110\.0111"))
    wait_idle(page)
    expect(page.locator(".st-key-masks_grid input")).to_have_value("1000.1100.0110.0111")


@pytest.mark.parametrize("scale", ["data", "unit"])
def test_a_weights_chart_draws_the_colour_range_it_says(page, server, scale):
    """At T = 32 the heads' weights sit near 1/32: by default the colour bar spans their own smallest..largest,
    its two ends printed exactly, and a line on the chart says which range is shown; weight_scale=unit gives 0..1.
    Read from the drawn chart (`__alChart`: header, layout ticks, painted texts)."""
    params = dict(lang="en", walk_step="softmax", d_model=512, num_heads=16, seq_len=32)
    open_app(page, server, "walkthrough", **params, **({"weight_scale": "unit"} if scale == "unit" else {}))
    chart = page.locator(CHART).first
    chart.scroll_into_view_if_needed()
    page.wait_for_function("box => box.__alChart && box.__alChart.g", arg=chart.element_handle())
    drawn = chart.evaluate(
        "box => { const c = box.__alChart; return {lo: c.header.vmin, hi: c.header.vmax, scale: c.header.scale,"
        " range: c.header.range, ticks: c.g.ticks, texts: c.drawn}; }"
    )
    w = scenario.run(Settings(512, 16, 32, "none", 0, "en")).trace.weights[0]
    if scale == "data":
        assert drawn["scale"] == "data" and drawn["hi"] == pytest.approx(float(w.max()), abs=1e-4)
        assert drawn["hi"] < 0.9  # most of 0..1 would be unused
        assert drawn["ticks"][0] == pytest.approx(drawn["lo"], abs=1e-4)
        assert drawn["ticks"][-1] == pytest.approx(drawn["hi"], abs=1e-4)  # the bar's top is the largest weight
        assert f"{drawn['hi']:.4f}" in drawn["range"] and "not 0 – 1" in drawn["range"]
    else:
        assert (drawn["scale"], drawn["lo"], drawn["hi"]) == ("unit", 0, 1)
        assert drawn["ticks"] == [0, 0.2, 0.4, 0.6, 0.8, 1] and drawn["range"] == "Colour range: 0 – 1"
    assert drawn["range"] in drawn["texts"]  # painted on the chart itself
    assert [str(v) for v in drawn["ticks"]] == [t for t in drawn["texts"] if t in {str(v) for v in drawn["ticks"]}][
        -len(drawn["ticks"]) :
    ]  # the bar's labels are painted
    label = chart.locator("canvas").first.get_attribute("aria-label")
    assert label.endswith(drawn["range"])  # a screen reader hears the same range
