"""The Heads and shapes page in a real browser: moving num_heads redraws the shape labels."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from chart_reader import BROWSER_CHART as CHART
from conftest import open_app, sidebar_slider, wait_idle


@pytest.mark.browser
def test_num_heads_slider_changes_the_diagram_labels(server, page):
    open_app(page, server, "heads", d_model=64, num_heads=4, seq_len=8)
    flow = page.locator(".al-flow")  # the shape flow is HTML (core/heads.shape_flow_html), not a chart
    expect(flow.locator("[data-name=q_heads]")).to_contain_text("(1, 4, 8, 16)")
    expect(flow.get_by_text("(1, 8, 8, 8)")).to_have_count(0)

    thumb = sidebar_slider(page, 1)  # num_heads: 4 -> 8
    thumb.focus()
    thumb.press("ArrowRight")
    wait_idle(page)

    expect(flow.locator("[data-name=q_heads]")).to_contain_text("(1, 8, 8, 8)")
    expect(flow.locator("[data-name=q_heads]")).to_contain_text("was (1, 4, 8, 16)")
    expect(flow.locator("[data-name=q_heads]")).to_have_class("al-box al-dep al-changed")
    expect(flow.locator("[data-name=concat]")).to_contain_text("(1, 8, 64)")  # unchanged boxes stay
    expect(flow.locator("[data-name=concat]")).not_to_contain_text("was")


@pytest.mark.browser
def test_a_section_tab_opens_its_charts_and_goes_into_the_url(server, page):
    open_app(page, server, "heads", d_model=64, num_heads=4, seq_len=8)
    expect(page.locator(CHART)).to_have_count(0)  # shapes: HTML only
    page.get_by_role("tab", name="3 Cost").click()
    wait_idle(page)
    expect(page.locator(CHART)).to_have_count(2)
    expect(page.locator(".al-flow")).to_have_count(0)  # the closed section is not drawn at all
    expect(page).to_have_url(re.compile(r"[?&]heads_tab=cost"))


@pytest.mark.browser
def test_a_shared_link_opens_the_same_section_in_the_other_language(server, page):
    open_app(page, server, "heads", d_model=64, num_heads=16, seq_len=8, heads_tab="heads", lang="zh")
    expect(page.get_by_role("tab", name="2 所有头")).to_have_attribute("aria-selected", "true")
    expect(page.locator(CHART)).to_have_count(1)  # the grid (the focus overview is HTML)
    expect(page.locator(".al-focus [data-head]")).to_have_count(16)
