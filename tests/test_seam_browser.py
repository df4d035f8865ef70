"""The real server with the seam off (ATTENTION_LAB_SEAM=off): no script in the page, and the app still works."""

from __future__ import annotations

import re

import pytest
from conftest import ROOT, open_app, sidebar_slider, wait_idle
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
    # Entry `keyed_css` (on with any version): the presenter view's captions keep 1.1rem through our own class.
    open_app(page, server_seam_off, "walkthrough", walk_view="present", walk_step="project", d_model=512, lang="en")
    expect(page.locator(".st-key-walk_present .walk-note p").first).to_have_css("font-size", "17.6px", timeout=30_000)
    expect(present_text(page)).to_have_css("font-size", "24px")  # the presenter's text 1.5rem


def present_text(page):
    """A paragraph of the presenter view's step text (a markdown element, not a caption): the shapes'."""
    return page.locator(".st-key-walk_present p").filter(has_text=i18n.t("walk.shape", "en")).first


def test_the_css_on_our_own_classes_gives_the_presenter_view_its_look(page, server):
    """Behaviour canary (seam entry `keyed_css`): what the app's CSS, aimed at our st-key-<key> classes and at
    the DOM around them, gives the presenter view. Fails when Streamlit changes that DOM (the wrapper around a
    keyed block, the <main> landmark's padded first child, a pills group's ARIA role)."""
    open_app(page, server, "walkthrough", walk_view="present", walk_step="softmax", lang="en")
    page.wait_for_function("() => typeof window.__alStepKeys === 'function'")  # ui/keys.py is listening
    probe = """() => {
        const size = s => { const e = document.querySelector(s); return e && getComputedStyle(e).fontSize; };
        const main = document.querySelector('main');
        return {
            top: main && getComputedStyle(main.firstElementChild).paddingTop,
            pills: size('.st-key-walk_step_shown button p'),
            carriers: document.querySelectorAll("[class*='_al_hidden']").length,
            gaps: [...document.querySelectorAll("[class*='_al_hidden']")]
                .filter(e => e.parentElement.getBoundingClientRect().height > 0 ||
                             getComputedStyle(e.parentElement).display !== 'none').length,
        };
    }"""
    page.wait_for_function(f"() => ({probe})().top === '72px'", timeout=30_000)  # the page's style can land late
    look = page.evaluate(probe)
    assert look["top"] == "72px", look  # 4.5rem above the view selector (Streamlit's own 6rem elsewhere)
    assert look["pills"] == "16.8px", look  # 1.05rem
    assert look["carriers"] >= 2 and look["gaps"] == 0, look  # each hidden carrier's wrapper hidden with it: no gap
    # ← → inside the step pills move the focus there and do not step the walkthrough as well: after → in the
    # pills and ← on the page, the step is the one before (a step from the pills too would end where it began)
    page.locator(".st-key-walk_step_shown button[aria-checked=true]").focus()
    page.keyboard.press("ArrowRight")
    page.wait_for_function("() => document.activeElement && document.activeElement.textContent.includes('8 ·')")
    page.locator(".st-key-walk_present h2").first.click()
    page.keyboard.press("ArrowLeft")
    expect(page).to_have_url(re.compile(r"walk_step=mask"))
    wait_idle(page)
    # a caption in the presenter view keeps 1.1rem (project at d_model 512 draws one beside its chart)
    open_app(page, server, "walkthrough", walk_view="present", walk_step="project", d_model=512, lang="en")
    expect(page.locator(".st-key-walk_present .walk-note p").first).to_have_css("font-size", "17.6px")
    expect(present_text(page)).to_have_css("font-size", "24px")
