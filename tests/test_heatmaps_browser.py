"""The chart route in a real browser (tests/heatmap_app.py served by Streamlit, drawn by static/heatmaps.js):
hover reads the exact value with the Heatmap's decimals, a click returns (panel, row, col) to the page
and the chart is updated in place, the download button saves the chosen format, a phone stacks the panels,
the table view replaces the chart."""

from __future__ import annotations

import re

import numpy as np
import pytest
from conftest import ROOT, wait_idle
from playwright.sync_api import expect
from servers import Server

pytestmark = pytest.mark.browser
TOKENS = ("the", "cat", "sat", "on", "the", "mat")
CHART = ".al-chart"


@pytest.fixture(scope="module")
def test_server():
    (ROOT / "test-results").mkdir(exist_ok=True)
    s = Server(ROOT / "tests" / "heatmap_app.py", log_dir=ROOT / "test-results")
    yield s
    s.stop()


def arrays(seed: int = 0):
    """What tests/heatmap_app.py draws for `seed` (the same generator calls, in the same order)."""
    rng = np.random.default_rng(seed)
    w = rng.random((4, 6, 6)).astype(np.float32)
    w /= w.sum(-1, keepdims=True)
    return w, rng.standard_normal((32, 512)).astype(np.float32)


def open_page(page, server, **params) -> None:
    query = "&".join(f"{k}={v}" for k, v in params.items())
    page.goto(f"{server.url}/?{query}")
    wait_idle(page)
    expect(page.locator(CHART)).to_have_count(2 if params.get("table_view") != "true" else 0)


def hover(page, chart: int, panel: int, row: int, col: int) -> str:
    box = page.locator(CHART).nth(chart)
    x, y = box.evaluate(f"el => el.__alChart.cellPoint({panel}, {row}, {col})")
    page.mouse.move(x, y)
    tip = box.locator(".al-tip")
    expect(tip).to_be_visible()
    return tip.inner_text()


def test_hover_reads_the_exact_value(page, test_server):
    w, wide = arrays()
    open_page(page, test_server)
    assert hover(page, 0, 2, 3, 4) == f"head\nquery on\nkey the\n{float(w[2, 3, 4]):.4f}"
    # a blocked cell (panel 1 is causal): the word, then the value
    assert hover(page, 0, 1, 0, 3) == f"head\nquery the\nkey on\nblocked ({float(w[1, 0, 3]):.4f})"
    # the 32 x 512 signed matrix, 3 decimals, numbered labels
    assert hover(page, 1, 0, 17, 300) == f"token 17\ncolumn 300\n{float(wide[17, 300]):.3f}"
    drawn = page.locator(CHART).nth(1).evaluate("el => el.__alChart.drawn")
    assert "column (a label every 12)" in drawn or any(t.startswith("column (a label every") for t in drawn)


def test_click_returns_the_cell_and_updates_in_place(page, test_server):
    open_page(page, test_server)
    expect(page.get_by_text("picked: none")).to_be_visible()
    chart = page.locator(CHART).first
    chart.evaluate("el => { el.__mark = 'kept'; }")
    x, y = chart.evaluate("el => el.__alChart.cellPoint(3, 5, 1)")
    page.mouse.click(x, y)
    expect(page.get_by_text("picked: 3,5,1")).to_be_visible()
    wait_idle(page)
    assert page.locator(CHART).first.evaluate("el => el.__mark") == "kept"  # the same element, redrawn
    x, y = chart.evaluate("el => el.__alChart.cellPoint(0, 0, 2)")
    page.mouse.click(x, y)
    expect(page.get_by_text("picked: 0,0,2")).to_be_visible()


def test_new_data_redraws_the_same_chart(page, test_server):
    open_page(page, test_server)
    charts = page.locator(CHART)
    charts.first.evaluate("el => { el.__mark = 'kept'; }")
    charts.nth(1).evaluate("el => { el.__mark = 'kept'; }")
    page.get_by_role("button", name="new data").click()
    expect(page.get_by_text("seed: 1")).to_be_visible()
    wait_idle(page)
    w, wide = arrays(1)
    assert hover(page, 0, 0, 1, 2) == f"head\nquery cat\nkey sat\n{float(w[0, 1, 2]):.4f}"
    assert hover(page, 1, 0, 31, 511) == f"token 31\ncolumn 511\n{float(wide[31, 511]):.3f}"
    assert charts.first.evaluate("el => el.__mark") == "kept" and charts.nth(1).evaluate("el => el.__mark") == "kept"


@pytest.mark.parametrize("fmt, magic", [("png", b"\x89PNG"), ("svg", b"<svg")])
def test_download_button_saves_the_chosen_format(page, test_server, fmt, magic):
    open_page(page, test_server, image_format=fmt)
    chart = page.locator(CHART).first
    chart.hover()
    button = chart.locator(".al-download")
    assert button.get_attribute("aria-label") == f"Download this chart ({fmt.upper()})"
    with page.expect_download() as info:
        button.click()
    download = info.value
    assert download.suggested_filename == f"attention-lab-test-weights.{fmt}"
    body = open(download.path(), "rb").read()
    assert body.startswith(magic) and len(body) > 2000
    if fmt == "svg":
        assert b">query</text>" in body and b"<title>head: heatmap, 4 panel(s) of 6" in body


def test_phone_stacks_panels_and_zh_words(browser, test_server):
    context = browser.new_context(viewport={"width": 390, "height": 900}, locale="zh-CN")
    pg = context.new_page()
    try:
        open_page(pg, test_server, lang="zh")
        layout = pg.locator(CHART).first.evaluate(
            "el => ({per: el.__alChart.g.per, slots: el.__alChart.g.slots.map(s => [s.x, s.y]),"
            " width: el.clientWidth, drawn: el.__alChart.drawn})"
        )
        assert layout["per"] == 1 and layout["width"] <= 390
        xs, ys = [s[0] for s in layout["slots"]], [s[1] for s in layout["slots"]]
        assert len(set(xs)) == 1 and ys == sorted(ys) and len(set(ys)) == 4
        assert "查询" in layout["drawn"] and "键" in layout["drawn"]
        # every token labelled: 6 rows fit
        assert all(layout["drawn"].count(t) >= 4 for t in ("cat", "sat", "mat"))
    finally:
        context.close()


def test_table_view_replaces_the_chart(page, test_server):
    open_page(page, test_server, table_view="true")
    frames = page.locator("[data-kind=heatmap] table")  # HTML tables (ui/tables.py), one per panel
    expect(frames).to_have_count(5)
    assert page.locator(CHART).count() == 0
    assert frames.first.locator("caption").inner_text() == "head"  # the panel's title names its table
    # a printed value is text the page shows (tests/test_heatmaps_app.py checks every value's decimals)
    expect(frames.first.locator("tbody tr").nth(2).locator("td").nth(6)).to_have_text(re.compile(r"^-?\d\.\d{4}$"))
