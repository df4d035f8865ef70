"""Masks lab in a real browser: clicking a cell of the hand-drawn mask blocks it, another section uses the
same grid, and the link keeps both."""

from __future__ import annotations

import re

import pytest
from chart_reader import BROWSER_CHART as CHART
from conftest import click_mask_cell, open_app, wait_idle
from playwright.sync_api import expect

from core import i18n

pytestmark = pytest.mark.browser


def weight_cell(page, key: int):
    """The weight of `key` in the inspected row (the last column of the inspector table)."""
    return page.locator(".st-key-masks_inspector tbody tr").nth(key).locator("td").last


def open_section(page, sid: str) -> None:
    page.get_by_role("tab", name=i18n.t(f"masks.tab.{sid}", "en")).click()
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
    page.goto(page.url)
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
        assert boxes[0]["y"] + boxes[0]["height"] <= boxes[1]["y"] and boxes[1]["y"] + boxes[1]["height"] <= boxes[2]["y"]
        click_mask_cell(page, 2, 1)
        expect(page).to_have_url(re.compile(r"masks_grid=1000\.1100\.1010\.0111"))
    finally:
        context.close()
