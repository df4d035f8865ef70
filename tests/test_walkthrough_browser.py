"""Walkthrough page in a real browser: num_heads re-splits every shape; a click on the weights drills down."""

import re

import pytest
from chart_reader import BROWSER_CHART as CHART
from conftest import open_app, sidebar_slider, wait_idle
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


def shape(page, text):
    return page.get_by_text(text, exact=True).first


def test_moving_num_heads_changes_the_shapes_on_the_page(page, server):
    open_app(page, server, "walkthrough", walk_step="split", d_model=64, num_heads=2, seq_len=8)
    expect(shape(page, "(B, h, T_q, d_k) = (1, 2, 8, 32)")).to_be_visible()
    expect(page.get_by_text("head 1 ← columns 32–63")).to_be_visible()
    slider = sidebar_slider(page, 1)
    for h, d_k in ((4, 16), (8, 8)):
        slider.focus()
        page.keyboard.press("ArrowRight")
        wait_idle(page)
        expect(shape(page, f"(B, h, T_q, d_k) = (1, {h}, 8, {d_k})")).to_be_visible()
        expect(shape(page, f"(B, T_q, h, d_k) = (1, 8, {h}, {d_k})")).to_be_visible()  # the view in the chain
        expect(page.get_by_text(f"head {h - 1} ← columns {64 - d_k}–63")).to_be_visible()
    expect(page).to_have_url(re.compile(r"num_heads=8"))
    expect(page).to_have_url(re.compile(r"walk_step=split"))


def test_clicking_a_weight_cell_drills_down(page, server):
    open_app(page, server, "walkthrough", walk_step="softmax", d_model=64, num_heads=4, seq_len=8, mask="causal")
    expect(page.get_by_text("Head 0, query a = 7")).to_have_count(0)  # the cell's story: one click away
    page.get_by_text("Follow one cell", exact=True).click()
    wait_idle(page)
    expect(page.get_by_text("Head 0, query a = 7")).to_be_visible()
    expect(page).to_have_url(re.compile(r"walk_drill=true"))
    charts = page.locator(CHART)
    expect(charts).to_have_count(1)  # the page of heads; the cell's story is text until its charts are asked for
    page.get_by_text("Show this cell's charts").click()
    wait_idle(page)
    expect(charts).to_have_count(4)
    expect(page).to_have_url(re.compile(r"walk_cellcharts=true"))
    drill = charts.nth(1)  # after the per-head weights: one head's weights, a click target per cell
    drill.scroll_into_view_if_needed()
    page.wait_for_function("box => box.__alChart && box.__alChart.g", arg=drill.element_handle())
    assert drill.evaluate("box => box.__alChart.header.clickable") is True
    x, y = drill.evaluate("box => box.__alChart.cellPoint(0, 2, 1)")  # row 2, column 1
    page.mouse.click(x, y)
    wait_idle(page)
    expect(page.get_by_text("Head 0, query a = 2 (“sat”), key b = 1 (“cat”)")).to_be_visible()
    expect(page).to_have_url(re.compile(r"walk_i=2"))
    expect(page).to_have_url(re.compile(r"walk_j=1"))


def test_all_steps_view_draws_a_steps_tensors_on_a_click(page, server):
    open_app(page, server, "walkthrough", walk_view="all", d_model=64, num_heads=4, seq_len=8, lang="zh")
    charts = page.locator(CHART)
    expect(charts).to_have_count(1)  # step 1's X; the other nine steps: formula, code, shape
    expect(page.locator("[data-testid=stCode]")).to_have_count(10)
    button = page.get_by_role("button", name="画出第 7 步的张量")
    button.scroll_into_view_if_needed()
    button.click()
    wait_idle(page)
    expect(page).to_have_url(re.compile(r"walk_step=softmax"))
    expect(charts).to_have_count(1)
    page.wait_for_function(
        "box => box.__alChart && box.__alChart.drawn.includes('头 0')",  # the weights of every head
        arg=charts.first.element_handle(),
    )
    expect(page.get_by_role("button", name="画出第 1 步的张量")).to_be_visible()  # step 1 now offers its button


def test_a_steps_code_wraps_its_long_line_on_a_phone_and_can_be_copied(page, server):
    """The step's code is a fenced block inside its markdown (ui/code.py): on a phone its 100-character line wraps
    inside the box, as the code element it replaced did, instead of running out of it, and it keeps a copy button."""
    page.set_viewport_size({"width": 390, "height": 900})
    open_app(page, server, "walkthrough", walk_step="scores", d_model=64, num_heads=4, seq_len=8)
    code = page.locator(".al-code [data-testid=stCode]")
    expect(code).to_have_count(1)
    expect(code).to_contain_text("torch.matmul(q_heads, k_heads_expanded.transpose(-2, -1))")
    code.scroll_into_view_if_needed()
    page.wait_for_function(
        "el => el.scrollWidth <= el.clientWidth + 1 && el.getBoundingClientRect().height > 60",
        arg=code.locator("pre, code").first.element_handle(),
    )
    code.hover()
    expect(code.get_by_role("button")).to_have_count(1)  # copy
