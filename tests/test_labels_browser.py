"""Issue 20 in a real browser: translated labels keep language-neutral values in the address bar, and the
presenter view fits a 1440×900 and a 1920×1080 projector (formula, shape and heatmap in view at once, large
type including the tick labels, the sidebar collapsed, ← → step)."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlparse

import pytest
from conftest import IDLE, current_link, open_app, pick_option, wait_idle
from playwright.sync_api import expect
from waits import wait_quiet

pytestmark = pytest.mark.browser


def query(page) -> dict:
    return {k: v[0] for k, v in parse_qs(urlparse(current_link(page)).query).items()}


def neutral(page) -> None:
    """Nothing but ASCII in the address bar's query (a Chinese label would be percent-encoded UTF-8)."""
    q = urlparse(current_link(page)).query
    assert "%E" not in q.upper() and all(ord(ch) < 128 for ch in q), page.url


def test_chinese_walkthrough_labels_write_neutral_values_into_the_link(page, server):
    open_app(page, server, "walkthrough", lang="zh", walk_step="scale")
    title = page.get_by_role("heading", name="逐步计算", exact=True)
    view = page.locator(".st-key-walk_view_shown")
    expect(title).to_be_visible()
    assert title.bounding_box()["y"] < view.bounding_box()["y"]  # the page title comes first
    expect(page.get_by_text("单步：一次看一步", exact=False)).to_be_visible()  # the legend of the three views
    page.locator(".st-key-walk_step_shown").get_by_role("radio", name="8 · 加权求和").click()
    wait_idle(page)
    expect(page).to_have_url(re.compile(r"walk_step=mix"))
    expect(page.get_by_role("heading", name=re.compile("^8. 对 V 加权求和"))).to_be_visible()
    view.get_by_role("radio", name="演示模式").click()
    wait_idle(page)
    expect(page).to_have_url(re.compile(r"walk_view=present"))
    neutral(page)
    page.goto(current_link(page))  # the same link opened fresh shows the Chinese labels again
    wait_idle(page)
    expect(page.locator(".st-key-walk_step_shown").get_by_role("radio", name="8 · 加权求和")).to_be_checked()
    expect(page.locator(".st-key-walk_view_shown").get_by_role("radio", name="演示模式")).to_be_checked()


def test_chinese_sidebar_labels_write_neutral_values_into_the_link(page, server):
    open_app(page, server, "", lang="zh")
    pick_option(page, "mask_shown", "填充掩码")
    wait_idle(page)
    expect(page).to_have_url(re.compile(r"mask=padding"))
    expect(page.locator(".st-key-mask_shown").get_by_role("combobox")).to_have_value("填充掩码")
    expect(page.get_by_text("当前设置：", exact=False)).to_contain_text("掩码：填充掩码")
    page.locator(".st-key-palette_shown").get_by_role("radio", name="高对比度").click()
    wait_idle(page)
    expect(page).to_have_url(re.compile(r"palette=contrast"))
    neutral(page)
    page.goto(current_link(page))
    wait_idle(page)
    expect(page.locator(".st-key-mask_shown").get_by_role("combobox")).to_have_value("填充掩码")
    expect(page.locator(".st-key-palette_shown").get_by_role("radio", name="高对比度")).to_be_checked()


def test_masks_lab_keep_block_in_chinese_keeps_a_neutral_link(page, server):
    open_app(page, server, "masks", lang="zh", mask="causal", seq_len=4)
    page.locator(".st-key-masks_polarity_shown").get_by_role("radio", name="1 = 屏蔽").click()
    wait_idle(page)
    expect(page).to_have_url(re.compile(r"masks_polarity=block"))
    expect(page.get_by_text("正在使用的掩码：因果掩码（解码器）", exact=True)).to_be_visible()
    neutral(page)


@pytest.mark.parametrize("width,height", [(1440, 900), (1920, 1080)])
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_presenter_view_fits_the_projector(browser, server, width, height, lang):
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    page.set_default_timeout(60_000)
    try:
        open_app(page, server, "walkthrough", lang=lang, walk_view="present", walk_step="split", mask="causal")
        sidebar = page.locator("[data-testid=stSidebar]")
        assert sidebar.bounding_box() is None or sidebar.bounding_box()["x"] + sidebar.bounding_box()["width"] <= 0
        for step in ("split", "mask", "softmax"):  # softmax last: the keys below step on from it
            if step != "split":
                page.goto(re.sub(r"walk_step=\w+", f"walk_step={step}", current_link(page)))
                wait_idle(page)
            present = page.locator(".st-key-walk_present")
            chart = present.locator(".al-chart").last
            expect(chart).to_be_visible()
            page.wait_for_function("el => el.__alChart && el.__alChart.g", arg=chart.element_handle())
            wait_quiet(page)  # the chart re-fits while what is above it settles
            formula = present.locator(".katex-display").first
            shape = present.get_by_text(re.compile(r"\(B, h, T_q, [a-zA-Z_]+\) = \(1, 4, 8, \d+\)")).first
            for what, box in (
                ("formula", formula.bounding_box()),
                ("shape", shape.bounding_box()),
                ("heatmap", chart.bounding_box()),
            ):
                assert box and box["y"] >= 0 and box["y"] + box["height"] <= height + 1, (step, what, box)
            drawn = chart.evaluate("el => { const g = el.__alChart.g; return [g.size, g.height]; }")
            assert drawn[0] >= 20, drawn  # every text of the chart, tick labels included: 13 px × 1.6
            assert drawn[1] >= (220 if step == "split" else 300), (step, drawn)  # split: below its band
            size = present.locator("[data-testid=stMarkdownContainer] p").first.evaluate(
                "el => parseFloat(getComputedStyle(el).fontSize)"
            )
            assert size >= 22
        expect(page.get_by_text("Follow one cell")).to_have_count(0)
        expect(page.get_by_text("追踪一个格子")).to_have_count(0)

        # ← → step like the buttons (the focus on the page, not in a widget)
        page.wait_for_function("() => typeof window.__alStepKeys === 'function'")  # ui/keys.py is listening
        page.locator(".st-key-walk_present h2").first.click()
        page.keyboard.press("ArrowRight")
        expect(page).to_have_url(re.compile(r"walk_step=mix"))
        wait_idle(page)
        page.keyboard.press("ArrowRight")
        expect(page).to_have_url(re.compile(r"walk_step=concat"))
        wait_idle(page)
        page.keyboard.press("ArrowLeft")
        expect(page).to_have_url(re.compile(r"walk_step=mix"))
        page.wait_for_selector(IDLE)
        neutral(page)
    finally:
        context.close()
