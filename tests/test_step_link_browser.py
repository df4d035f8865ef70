"""The link carries exactly the current seq_len and seed after every step, though no widget writes them there.

seq_len and the seed are not bound to the URL (a bound widget's step makes Streamlit's browser client rewrite the
address and re-render the whole app before it sends the step): the server writes them into the link at the end of
each run. Every step must leave the link with the value the sidebar shows, and without the key at its default,
whether the steps come one at a time or as fast as the browser sends them (runs overlap then: a run's request
can carry a link older than one the server has written since).
"""

from __future__ import annotations

import re

import pytest
from conftest import IDLE, sidebar_slider
from playwright.sync_api import expect

from lessons.settings import DEFAULTS

pytestmark = pytest.mark.browser

COUNT_SENDS = """
const send = WebSocket.prototype.send;
window.__sent = 0;
WebSocket.prototype.send = function (data) { window.__sent += 1; return send.call(this, data); };
"""
FIRST_RUN_MS = 120_000  # a deep link's first run on a loaded 2-core machine (the server may be cold)


def link_says(key: str, value: int):
    """A pattern for the page's URL: `key` once, with exactly `value`; absent at its default."""
    if value == DEFAULTS[key]:
        return re.compile(rf"^(?!.*[?&]{key}=)")
    return re.compile(rf"^(?!.*[?&]{key}=.*[?&]{key}=)(?=.*[?&]{key}={value}(&|$))")


def press(page, control, key: str) -> None:
    """One key press on `control`, returning as soon as its rerun request has been sent (not waiting for the run)."""
    sent = page.evaluate("window.__sent")
    control.focus()
    page.keyboard.press(key)
    page.wait_for_function("n => window.__sent > n", arg=sent)


@pytest.fixture
def step_page(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, locale="en-US")
    context.add_init_script(COUNT_SENDS)
    page = context.new_page()
    page.set_default_timeout(60_000)
    yield page
    context.close()


def open_link(page, server, path: str, seq_len: int, seed: int):
    page.goto(f"{server.url}/{path}?seq_len={seq_len}&seed={seed}&d_model=128", wait_until="commit")
    slider = sidebar_slider(page, 2)
    expect(slider).to_have_value(str(seq_len), timeout=FIRST_RUN_MS)
    page.wait_for_selector(IDLE, timeout=FIRST_RUN_MS)
    expect(page).to_have_url(link_says("seq_len", seq_len))
    expect(page).to_have_url(link_says("seed", seed))
    return slider, page.locator("[data-testid=stSidebar]").get_by_role("spinbutton")


def settled_link_says(page, key: str, value: int, d_model: int | None = 128) -> None:
    """The link says `value` now, and still after the last run has ended (no late message takes it back)."""
    expect(page).to_have_url(link_says(key, value))
    page.wait_for_selector(IDLE)
    expect(page).to_have_url(link_says(key, value))
    if d_model is not None:
        expect(page).to_have_url(re.compile(rf"[?&]d_model={d_model}(&|$)"))  # a bound setting stays in the link


@pytest.mark.parametrize("path", ["heads", "walkthrough"])
def test_each_step_leaves_the_link_with_exactly_the_value_shown(step_page, server, path):
    page = step_page
    slider, seed = open_link(page, server, path, 6, 3)
    for key, value in (("ArrowRight", 7), ("ArrowRight", 8), ("ArrowLeft", 7), ("ArrowLeft", 6)):
        press(page, slider, key)
        expect(slider).to_have_value(str(value))
        settled_link_says(page, "seq_len", value)  # 8: the default, left out of the link
    for value in (42, 0, 5):  # 0: the default
        seed.fill(str(value))
        seed.press("Enter")
        settled_link_says(page, "seed", value)
        expect(seed).to_have_value(str(value))
    settled_link_says(page, "seq_len", 6)


def test_steps_as_fast_as_sent_leave_the_link_with_the_last_value(step_page, server):
    """Runs overlap: each request carries the link as the browser had it, often older than the server's writes."""
    page = step_page
    slider, seed = open_link(page, server, "heads", 6, 3)
    for keys, value in (
        (["ArrowRight", "ArrowRight", "ArrowLeft"], 7),
        (["ArrowRight", "ArrowLeft", "ArrowRight", "ArrowRight"], 9),
        (["ArrowLeft"], 8),
        (["ArrowLeft", "ArrowRight", "ArrowLeft", "ArrowRight"], 8),
        (["ArrowLeft", "ArrowLeft", "ArrowRight"], 7),
    ):
        for key in keys:
            press(page, slider, key)
        expect(slider).to_have_value(str(value))
        settled_link_says(page, "seq_len", value)
    seed.fill("77")
    seed.press("Enter")
    press(page, slider, "ArrowRight")
    expect(slider).to_have_value("8")
    settled_link_says(page, "seed", 77)
    settled_link_says(page, "seq_len", 8)


def test_a_step_back_sent_before_the_last_steps_link_arrived_is_not_lost(step_page, server):
    """6 -> 7, the link says 7; then 8 and back to 7 at once: the request for 7 carries the link's 7 (the run for 8
    has not answered yet), and the run for 8 writes 8 after it was sent. The link must end at 7, not 8."""
    page = step_page
    slider, _ = open_link(page, server, "heads", 6, 3)
    value = 6
    for _ in range(4):
        press(page, slider, "ArrowRight")
        value += 1
        expect(page).to_have_url(link_says("seq_len", value))  # the request of the next press carries this link
        press(page, slider, "ArrowRight")
        press(page, slider, "ArrowLeft")  # sent before the run for value + 1 has written its link
        expect(slider).to_have_value(str(value))
        settled_link_says(page, "seq_len", value)


def test_steps_add_no_history_entry_and_back_goes_to_the_previous_page(step_page, server):
    """The server's writes of the link replace the browser's history entry (ui/seam entry `link_in_place`): a step
    adds none, so Back goes to the page before, not to an older seq_len the next run would write over again."""
    import i18n

    page = step_page
    page.goto(f"{server.url}/walkthrough?seed=3", wait_until="commit")
    page.wait_for_selector(IDLE, timeout=FIRST_RUN_MS)
    page.locator("[data-testid=stSidebar]").get_by_role("link", name=i18n.t("page.heads", "en")).click()
    expect(page).to_have_url(re.compile(r"/heads\?"))
    page.wait_for_selector(IDLE)
    slider = sidebar_slider(page, 2)
    expect(slider).to_have_value(str(DEFAULTS["seq_len"]))
    entries = page.evaluate("history.length")
    for key, value in (("ArrowRight", 9), ("ArrowRight", 10), ("ArrowLeft", 9)):
        press(page, slider, key)
        expect(slider).to_have_value(str(value))
        settled_link_says(page, "seq_len", value, d_model=None)
    assert page.evaluate("history.length") == entries
    page.go_back()
    expect(page).to_have_url(re.compile(r"/walkthrough\?"))
    page.wait_for_selector(IDLE)
    expect(page).to_have_url(link_says("seed", 3))
