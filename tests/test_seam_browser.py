"""The real server with the seam off (ATTENTION_LAB_SEAM=off): no script in the page, and the app still works."""

from __future__ import annotations

import re

import pytest
from conftest import ROOT, open_app, sidebar_slider, wait_idle
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect
from servers import Server

import i18n
from ui import seam


@pytest.fixture
def server_seam_off(monkeypatch):
    monkeypatch.setenv(seam.SWITCH_ENV, "off")  # the server process inherits it
    (ROOT / "test-results").mkdir(exist_ok=True)
    s = Server(log_dir=ROOT / "test-results")
    yield s
    s.stop()


def test_with_the_seam_off_pages_are_streamlits_own_and_still_work(page, server_seam_off):
    cap = lambda d, h: i18n.t("settings.d_k", "en", d_model=d, h=h, d_k=d // h)  # noqa: E731
    open_app(page, server_seam_off, "heads", d_model=64, num_heads=4, lang="en")
    assert page.evaluate("typeof window.__alBatching") == "undefined"  # no client_batching.js in the page
    expect(page.get_by_role("heading", name=i18n.t("page.heads", "en"))).to_be_visible()
    expect(page.get_by_text(cap(64, 4))).to_be_visible()
    for h in (8, 4, 8):  # each step a whole-app run (no live fragment), the page redrawn with it
        thumb = sidebar_slider(page, 1)
        thumb.focus()
        page.keyboard.press("ArrowRight" if h == 8 else "ArrowLeft")
        wait_idle(page)
        expect(page.get_by_text(cap(64, h))).to_be_visible()
        expect(page.get_by_text(re.compile(rf"h = {h} heads of d_k = {64 // h}"))).to_be_visible()
    open_app(page, server_seam_off, "walkthrough", mask="everything", lang="en")  # a corrected URL value
    expect(page.get_by_role("heading", name=i18n.t("page.walkthrough", "en"))).to_be_visible()
    # corrections are said at the top of the main area (a phone never shows the sidebar's)
    expect(page.locator("[data-testid=stMain] [data-testid=stAlert]").get_by_text("everything")).to_be_visible()
    # Entry `test_ids` (on with any version): the presenter view's captions keep 1.1rem through CAPTION_SELECTOR.
    open_app(page, server_seam_off, "walkthrough", walk_view="present", lang="en")
    sizes = f"""() => [
        '.st-key-walk_present {seam.CAPTION_SELECTOR} p', '.st-key-walk_present [data-testid=stMarkdownContainer] p']
        .map(s => document.querySelector(s)).map(e => e && getComputedStyle(e).fontSize)"""
    # The page's style element can land a moment after the script is idle: wait for the sizes it sets (1.1rem, the
    # presenter's text 1.5rem), and say what was read if they never come.
    try:
        page.wait_for_function(f"() => ({sizes})().join() === '17.6px,24px'")
    except PlaywrightTimeout:
        raise AssertionError(f"presenter text sizes: {page.evaluate(sizes)}") from None


def test_every_test_id_the_css_aims_at_is_on_a_rendered_page(page, server):
    """Behaviour canary (seam entry `test_ids`): each of the app's CSS rules built on a Streamlit test id
    matches an element of a rendered page (the presenter view has them all). If Streamlit renames one, its rule
    silently matches nothing; this says which."""
    from ui.choice import HIDDEN_SUFFIX

    rules = [
        f".st-key-walk_present {seam.CAPTION_SELECTOR} p",  # pages/walkthrough.py
        f".st-key-walk_present {seam.BUTTON_GROUP_SELECTOR} button p",
        seam.MAIN_BLOCK_SELECTOR,
        f"{seam.LAYOUT_WRAPPER_SELECTOR}:has(> [class*='{HIDDEN_SUFFIX}'])",  # ui/choice.py's hidden carrier
    ]
    assert {s for s in seam.SELECTORS if not any(s in r for r in rules)} == set()  # every test id is checked
    open_app(page, server, "walkthrough", walk_view="present", lang="en")
    for rule in rules:  # the page is drawn progressively: each rule's element may come a moment later
        page.locator(rule).first.wait_for(state="attached", timeout=30_000)  # a timeout names the rule that failed
