"""The Positions page in a real browser: a deep link opens the view it names, a hover on a heatmap cell shows
the lesson's exact value, a widget step (the grid slider, the shuffle button) redraws and goes into the URL."""

from __future__ import annotations

import re

import pytest
from conftest import current_link, open_app, wait_idle
from playwright.sync_api import expect

import i18n
from lessons import positions as L
from lessons.settings import Settings

pytestmark = pytest.mark.browser
CHART = ".al-chart"  # ui.heatmaps' component (static/heatmaps.js)
S = Settings(d_model=64, num_heads=4, seq_len=8, mask="none", seed=0, lang="en")


def hover(page, chart: int, panel: int, row: int, col: int) -> str:
    box = page.locator(CHART).nth(chart)
    box.scroll_into_view_if_needed()
    x, y = box.evaluate(f"el => el.__alChart.cellPoint({panel}, {row}, {col})")
    page.mouse.move(x, y)
    tip = box.locator(".al-tip")
    expect(tip).to_be_visible()
    return tip.inner_text()


def test_rope_deep_link_hover_and_a_slider_step(server, page):
    open_app(
        page,
        server,
        "positions",
        d_model=64,
        num_heads=4,
        seq_len=8,
        lang="en",
        pos_tab="rope",
        pos_grid=12,
        pos_base=500,
    )
    expect(page.get_by_role("heading", name="3. RoPE is about distance")).to_be_visible()
    expect(page.locator(CHART)).to_have_count(2)  # the RoPE grid and the sinusoid contrast
    v = L.rope_view(S, S.d_k, 500.0, 0, 12, 0, 3)
    tip = hover(page, 0, 0, 7, 2).split("\n")
    assert tip[-1] == f"{float(v.grid.panels[0].values[7, 2]):.4f}"
    assert "query position m 7" in tip and "key position n 2" in tip
    tip = hover(page, 1, 0, 3, 9).split("\n")
    assert tip[-1] == f"{float(v.absolute_grid.panels[0].values[3, 9]):.4f}"
    expect(page.get_by_text(i18n.nobreak(f"{v.diagonal_spread:.2e}"), exact=False)).to_be_visible()

    thumb = page.locator("[data-testid=stMain] [data-testid=stSlider]").first.get_by_role("slider")  # pos_grid
    thumb.focus()
    thumb.press("ArrowRight")
    wait_idle(page)
    expect(page.get_by_text("16 × 16", exact=False)).to_have_count(0)
    expect(page.get_by_text("13 × 13 positions", exact=False)).to_be_visible()
    expect(page).to_have_url(re.compile(r"pos_grid=13"))
    w = L.rope_view(S, S.d_k, 500.0, 0, 13, 0, 3)
    assert hover(page, 0, 0, 12, 0).split("\n")[-1] == f"{float(w.grid.panels[0].values[12, 0]):.4f}"


def test_shuffle_button_redraws_and_the_link_reproduces_it(server, page, browser):
    open_app(page, server, "positions", d_model=64, num_heads=4, seq_len=8, lang="zh", pos_tab="shuffle", pos_shuffle=5)
    expect(page.locator(CHART)).to_have_count(3)  # X, the weights, the output: before and after each
    v5 = L.shuffle_view(S, 5, False, 0)
    assert hover(page, 1, 1, 2, 4).split("\n")[-1] == f"{float(v5.weights.panels[1].values[2, 4]):.4f}"
    page.get_by_role("button", name="再打乱一次").click()
    wait_idle(page)
    expect(page).to_have_url(re.compile(r"pos_shuffle=6"))
    v6 = L.shuffle_view(S, 6, False, 0)
    moves = ", ".join(f"{i}←{int(p)}" for i, p in enumerate(v6.perm) if v6.moved[i])
    expect(page.get_by_text(moves, exact=False)).to_be_visible()
    assert hover(page, 1, 1, 2, 4).split("\n")[-1] == f"{float(v6.weights.panels[1].values[2, 4]):.4f}"
    # the address bar, opened by another student, shows the same shuffle
    link = current_link(page)
    other = browser.new_context(viewport={"width": 1400, "height": 1000}, locale="en-US").new_page()
    other.goto(link)
    wait_idle(other)
    expect(other.get_by_text(moves, exact=False)).to_be_visible()
    other.context.close()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_on_a_phone_the_shuffle_charts_label_every_token_row(server, browser, lang):
    """Issue 29 item 4: at 390 px the X and output charts were (T, 64) strips a few px tall with every third row
    named. Now every row of the three charts is drawn with its label, in both panels, at T = 32."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-US")
    page = context.new_page()
    try:
        open_app(page, server, "positions", d_model=512, num_heads=16, seq_len=32, lang=lang, pos_tab="shuffle")
        charts = page.locator(CHART)
        expect(charts).to_have_count(3)  # X, the weights, the output
        s = Settings(d_model=512, num_heads=16, seq_len=32, mask="none", seed=0, lang=lang)
        v = L.shuffle_view(s, 1, False, 0)
        for k in range(3):
            box = charts.nth(k)
            box.scroll_into_view_if_needed()
            yk, drawn = box.evaluate("el => [el.__alChart.g.yk, el.__alChart.drawn]")
            assert yk == 1
            assert set(v.tokens) <= set(drawn) and set(v.tokens_after) <= set(drawn)
    finally:
        context.close()
