"""The KV cache page in a real browser: a deep link opens the decode view it names, "Next token" redraws it one
step on (and writes the step into the address bar), and a heatmap's hover prints the cache's exact value."""

from __future__ import annotations

import re

import pytest
from conftest import open_app, pick_option, wait_idle
from playwright.sync_api import expect

import i18n
from lessons import kv_cache as K
from lessons.settings import Settings

LINK = dict(
    lang="en", d_model=16, num_heads=4, seq_len=5, mask="causal", kv_tab="decode", kv_heads=2, kv_step=3, kv_head=3
)


def hover_text(page, chart, panel: int, r: int, c: int) -> str:
    chart.scroll_into_view_if_needed()  # cellPoint is in viewport coordinates: the cell must be on screen
    x, y = chart.evaluate("(box, a) => box.__alChart.cellPoint(...a)", [panel, r, c])
    page.mouse.move(x, y)
    tip = chart.locator(".al-tip")
    expect(tip).to_be_visible()
    return tip.inner_text()


@pytest.mark.browser
def test_a_deep_link_opens_the_step_and_next_token_redraws(server, page):
    open_app(page, server, "kv-cache", **LINK)
    expect(page.get_by_role("heading", name="KV cache, MQA, GQA")).to_be_visible()
    expect(page.get_by_role("radio", name="2 Decoding", checked=True)).to_be_visible()
    now = page.get_by_text("= (B, h_kv, t, d_k)")
    expect(now).to_contain_text("(1, 2, 3, 4)")
    expect(now).to_contain_text("Query head 3 reads K/V head 1, shared by query heads 2, 3")
    page.get_by_role("button", name="Next token").click()
    wait_idle(page)
    expect(now).to_contain_text("(1, 2, 4, 4)")
    expect(page).to_have_url(re.compile(r"kv_step=4"))
    view = K.decode_view(Settings(16, 4, 5, "causal", 0, "en"), 2, 4, 3)
    expect(page.get_by_text(i18n.nobreak(f"output max abs difference {view.output_max_abs_diff:.2e}"))).to_be_visible()


@pytest.mark.browser
def test_the_cache_heatmap_hover_shows_the_exact_value(server, page):
    open_app(page, server, "kv-cache", **LINK)
    view = K.decode_view(Settings(16, 4, 5, "causal", 0, "en"), 2, 3, 3)
    k_cache = page.locator(".al-chart").nth(1)  # q_row, k_cache, v_cache, ...
    expect(k_cache).to_be_visible()
    values = K.values_of(view.k_cache)
    for r, c in ((2, 0), (0, 3)):
        lines = hover_text(page, k_cache, 0, r, c).splitlines()
        assert lines[-1] == f"{float(values[r, c]):.4f}", lines
        assert lines[-3] == f"token {view.k_cache.panels[0].row_labels[r]}" and lines[-2] == f"dimension (d_k) {c}"


@pytest.mark.browser
def test_on_a_phone_the_q_and_k_strips_label_every_token_row(server, browser):
    """Issue 29 item 4: on a phone the sharing section's Q (T, d_model) and K strips were square cells a few px
    tall with every third token named; every token row is labelled now."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-US")
    page = context.new_page()
    try:
        open_app(page, server, "kv-cache", lang="en", d_model=64, num_heads=8, seq_len=32, kv_tab="sharing", kv_heads=2)
        charts = page.locator(".al-chart")
        expect(charts).to_have_count(3)  # Q, K, the weights
        tokens = K.page_tokens(Settings(64, 8, 32, "none", 0, "en"))
        for k in range(2):
            box = charts.nth(k)
            box.scroll_into_view_if_needed()
            yk, rows, drawn = box.evaluate("el => [el.__alChart.g.yk, el.__alChart.panels[0].rows, el.__alChart.drawn]")
            assert (yk, rows) == (1, 32)
            assert set(tokens) <= set(drawn)
    finally:
        context.close()


@pytest.mark.browser
def test_the_model_box_shows_names_and_the_link_keeps_the_slug(server, page):
    """Issue 29.6: the memory section's boxes showed "llama-3-8b" and "131072"; they show the model's name and the
    number with separators, and a pick writes the language-neutral slug and number into the address bar."""
    open_app(page, server, "kv-cache", lang="zh", kv_tab="memory")
    expect(page.locator(".st-key-kv_model_shown").get_by_role("combobox")).to_have_value("Llama-3-8B")
    pick_option(page, "kv_model_shown", "GPT-2 small")
    wait_idle(page)
    expect(page).to_have_url(re.compile(r"kv_model=gpt2-small"))
    pick_option(page, "kv_context_shown", "131,072")
    wait_idle(page)
    expect(page).to_have_url(re.compile(r"kv_context=131072"))
    expect(page.get_by_text("上下文 131,072 个词元时", exact=False)).to_be_visible()
