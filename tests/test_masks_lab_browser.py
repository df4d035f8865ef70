"""Masks lab in a real browser: clicking a cell of the hand-drawn mask blocks it, and the link keeps it."""

from __future__ import annotations

import re

import pytest
from conftest import open_app, wait_idle
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


def weight_cell(page, key: int):
    """The weight of `key` in the inspected row (the last column of the inspector table)."""
    return page.locator(".st-key-masks_inspector tbody tr").nth(key).locator("td").last


def click_cell(page, row: int, col: int, n_rows: int, n_cols: int) -> None:
    plot = page.locator(".st-key-masks_click_0 .nsewdrag").first  # the plot area of the mask grid
    plot.scroll_into_view_if_needed()
    box = plot.bounding_box()
    x = box["x"] + (col + 0.5) * box["width"] / n_cols
    y = box["y"] + (row + 0.5) * box["height"] / n_rows
    page.mouse.move(x, y)
    page.mouse.click(x, y)


def test_clicking_a_cell_blocks_it_and_the_link_keeps_it(server, page):
    # T = 4, default hand-drawn grid "1000.1100.1110.0111"; the inspector shows query 2, which sees keys 0..2
    open_app(page, server, "masks", mask="custom", seq_len=4, lang="en")
    expect(weight_cell(page, 1)).not_to_have_text("0")

    click_cell(page, 2, 1, 4, 4)
    expect(page).to_have_url(re.compile(r"masks_grid=1000\.1100\.1010\.0111"))
    wait_idle(page)
    expect(weight_cell(page, 1)).to_have_text("0")  # blocked: exactly 0 after the softmax
    expect(weight_cell(page, 0)).not_to_have_text("0")
    expect(page.locator(".st-key-masks_grid input")).to_have_value("1000.1100.1010.0111")

    # The shared link draws the same mask for the next person.
    page.goto(page.url)
    wait_idle(page)
    expect(page.locator(".st-key-masks_grid input")).to_have_value("1000.1100.1010.0111")
    expect(weight_cell(page, 1)).to_have_text("0")

    # Clicking the same cell again keeps it once more (one click = one toggle).
    click_cell(page, 2, 1, 4, 4)
    expect(page).to_have_url(re.compile(r"masks_grid=1000\.1100\.1110\.0111"))
    wait_idle(page)
    expect(weight_cell(page, 1)).not_to_have_text("0")
