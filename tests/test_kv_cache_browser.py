"""The KV cache page in a real browser: a deep link opens the decode view it names, "Next token" redraws it one
step on (and writes the step into the address bar), and a heatmap's hover prints the cache's exact value."""

from __future__ import annotations

import re

import pytest
from conftest import open_app, wait_idle
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
