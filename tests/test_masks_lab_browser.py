"""Masks lab in a real browser: clicking a cell of the hand-drawn mask blocks it, another section uses the
same grid, and the link keeps both."""

from __future__ import annotations

import re

import pytest
from chart_reader import BROWSER_CHART as CHART
from conftest import click_mask_cell, current_link, open_app, sidebar_slider, wait_idle
from playwright.sync_api import expect

import i18n
from lessons import masks_lab as lab
from lessons.settings import Settings

pytestmark = pytest.mark.browser


def weight_cell(page, key: int):
    """The weight of `key` in the inspected row (the last column of the inspector table)."""
    return page.locator(".st-key-masks_inspector tbody tr").nth(key).locator("td").last


def open_section(page, sid: str) -> None:
    page.get_by_role("radio", name=i18n.t(f"masks.tab.{sid}", "en")).click()
    expect(page).to_have_url(re.compile(rf"masks_tab={sid}"))
    wait_idle(page)


def test_clicking_a_cell_blocks_it_and_the_link_keeps_it(server, page):
    # T = 4, default hand-drawn grid "1000.1100.1110.0111"; the first section has the editor and the chart
    open_app(page, server, "masks", mask="custom", seq_len=4, lang="en")
    expect(page.locator(CHART)).to_have_count(3)  # mask | scores | weights: three charts side by side
    click_mask_cell(page, 2, 1)
    expect(page).to_have_url(re.compile(r"masks_grid=1000\.1100\.1010\.0111"))
    wait_idle(page)
    expect(page.locator(".st-key-masks_grid input")).to_have_value("1000.1100.1010.0111")

    # One row up close: the clicked row (query 2), key 1 now blocked: exactly 0 after the softmax
    open_section(page, "row")
    expect(page.locator(CHART)).to_have_count(0)
    expect(page).to_have_url(re.compile(r"masks_grid=1000\.1100\.1010\.0111"))
    expect(weight_cell(page, 1)).to_have_text("0")
    expect(weight_cell(page, 0)).not_to_have_text("0")

    # The shared link opens the same section with the same mask for the next person.
    page.goto(current_link(page))
    wait_idle(page)
    expect(weight_cell(page, 1)).to_have_text("0")

    # Back to the editor: the grid is still there; clicking the same cell again keeps it (one click = one toggle).
    open_section(page, "grid")
    expect(page.locator(".st-key-masks_grid input")).to_have_value("1000.1100.1010.0111")
    click_mask_cell(page, 2, 1)
    expect(page).to_have_url(re.compile(r"masks_grid=1000\.1100\.1110\.0111"))
    wait_idle(page)
    open_section(page, "row")
    expect(weight_cell(page, 1)).not_to_have_text("0")


def test_the_inspected_row_is_in_the_link_and_a_step_of_t_down_moves_it_to_the_last_row(server, page):
    """The row a student types is in the link they share (it was not: the box was not bound to it). A step of seq_len
    down reruns the section alone (ui/live_part.py): a row past the new T moves to the last row, in the box and the
    link, as on a whole-page run (it jumped to the box's default, row 2), and the link opens without a notice."""
    open_app(page, server, "masks", lang="en", masks_tab="row", seq_len=6)
    box = page.locator(".st-key-masks_row input")
    expect(box).to_have_value("2")
    box.fill("5")
    box.press("Enter")
    expect(page).to_have_url(re.compile(r"masks_row=5(&|$)"))
    expect(page.get_by_text(re.compile(r"^Query 5 "))).to_be_visible()
    for T, row in ((5, "4"), (4, "3")):
        thumb = sidebar_slider(page, 2)
        thumb.focus()
        page.keyboard.press("ArrowLeft")
        expect(page).to_have_url(re.compile(rf"seq_len={T}(&|$)"))
        expect(box).to_have_value(row)
        expect(page).to_have_url(re.compile(rf"masks_row={row}(&|$)"))
        expect(page.get_by_text(re.compile(rf"^Query {row} "))).to_be_visible()
    page.goto(current_link(page))
    wait_idle(page)
    expect(box).to_have_value("3")
    expect(page.get_by_text("is not valid here")).to_have_count(0)


def test_on_a_phone_the_stacked_mask_panel_still_takes_a_click(browser, server):
    """Issue 20: the charts stack at 390 px; a click on the (stacked) mask chart toggles that cell."""
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    try:
        open_app(page, server, "masks", mask="custom", seq_len=4, lang="en")
        charts = page.locator(".al-chart")
        expect(charts).to_have_count(3)
        charts.nth(0).scroll_into_view_if_needed()
        boxes = [charts.nth(i).bounding_box() for i in range(3)]  # stacked: each the full width, one under another
        assert all(b["width"] > 300 for b in boxes), boxes
        assert (
            boxes[0]["y"] + boxes[0]["height"] <= boxes[1]["y"] and boxes[1]["y"] + boxes[1]["height"] <= boxes[2]["y"]
        )
        click_mask_cell(page, 2, 1)
        expect(page).to_have_url(re.compile(r"masks_grid=1000\.1100\.1010\.0111"))
    finally:
        context.close()


def ready(page, nth: int):
    chart = page.locator(CHART).nth(nth)
    chart.scroll_into_view_if_needed()
    page.wait_for_function("box => box.__alChart && box.__alChart.g", arg=chart.element_handle())
    return chart


def hover_text(page, chart, panel: int, r: int, c: int) -> str:
    x, y = chart.evaluate("(box, a) => box.__alChart.cellPoint(...a)", [panel, r, c])
    page.mouse.move(x, y)
    tip = chart.locator(".al-tip")
    expect(tip).to_be_visible()
    return tip.inner_text()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_hover_names_the_mask_value_the_fill_and_the_weight(page, server, lang):
    """The mask's cells print the stored 0/1 and hover 'mask = 0 (1 = keep)'; a blocked score hovers as blocked
    with the fill value; a weight hovers with its exact value (the run's, 4 decimals)."""
    open_app(page, server, "masks", lang=lang, mask="causal", seq_len=5, masks_fill="-inf")
    expect(page.locator(CHART)).to_have_count(3)
    mask, scores, weights = (ready(page, i) for i in range(3))
    lines = hover_text(page, mask, 0, 2, 3).splitlines()  # row 2 cannot see key 3
    assert lines[-1] == i18n.t("masks.hover.mask.keep", lang, v=0)
    assert lines[-2].startswith(i18n.t("common.key", lang) + " 3:")
    drawn = mask.evaluate("box => box.__alChart.drawn")
    assert drawn.count("1") >= 15 and drawn.count("0") >= 10  # 15 kept, 10 blocked cells print their digit
    assert i18n.t("masks.state.keep", lang) in drawn and i18n.t("masks.state.blocked", lang) in drawn  # legend
    assert hover_text(page, scores, 0, 1, 4).splitlines()[-1] == f"{i18n.t('display.blocked', lang)} (-inf)"
    assert "-inf" in scores.evaluate("box => box.__alChart.drawn")  # printed in the blocked cells
    run = lab.run_lab(Settings(64, 4, 5, "causal", 0, lang), lab.LabSetup(("causal",), 5, 5, fill="-inf"))
    assert hover_text(page, weights, 0, 2, 1).splitlines()[-1] == f"{float(run.trace.weights[0, 0, 2, 1]):.4f}"
    assert hover_text(page, scores, 0, 2, 1).splitlines()[-1] == f"{float(run.trace.masked_scores[0, 0, 2, 1]):.4f}"


def test_a_fully_blocked_row_under_inf_shows_nan(page, server):
    open_app(page, server, "masks", lang="en", mask="custom", seq_len=3, masks_grid="000.110.011", masks_fill="-inf")
    weights = ready(page, 2)
    assert hover_text(page, weights, 0, 0, 1).splitlines()[-1] == f"{i18n.t('display.blocked', 'en')} (NaN)"
    assert weights.evaluate("box => box.__alChart.drawn.filter(t => t === 'NaN').length") == 3
