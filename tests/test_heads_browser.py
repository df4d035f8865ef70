"""The Heads and shapes page in a real browser: moving num_heads redraws the shape labels."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from conftest import open_app, sidebar_slider, wait_idle


@pytest.mark.browser
def test_num_heads_slider_changes_the_diagram_labels(server, page):
    open_app(page, server, "heads", d_model=64, num_heads=4, seq_len=8)
    flow = page.locator("[data-testid=stPlotlyChart]").first
    expect(flow.locator("text", has_text="(1, 4, 8, 16)").first).to_be_visible()
    expect(flow.locator("text", has_text="(1, 8, 8, 8)")).to_have_count(0)

    thumb = sidebar_slider(page, 1)  # num_heads: 4 -> 8
    thumb.focus()
    thumb.press("ArrowRight")
    wait_idle(page)

    expect(flow.locator("text", has_text="(1, 8, 8, 8)").first).to_be_visible()  # q_heads, scores, ...
    expect(flow.locator("text", has_text="was (1, 4, 8, 16)").first).to_be_visible()
    expect(flow.locator("text", has_text="(1, 8, 64)").first).to_be_visible()  # unchanged boxes stay
