"""Keys pressed while a deep link settles are all kept: the user presses N times, the value moves N steps.

A run the server started before a key press must not send its older value back over the one the browser has
just sent (a widget gets a value from the server only when the app changes it). The presses come as fast as
the browser sends them: each one as soon as the last one's rerun request has left for the server, so runs are
still going when the next key arrives. If a press is lost the slider never shows the target value, and the
`expect` below times out. And since values are no longer written on every run: a page change keeps them all,
in the widgets and in the link.
"""

from __future__ import annotations

import re

import pytest
from conftest import IDLE, sidebar_slider
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

# Counts the messages the browser sends to the server (a widget change is one rerun request).
COUNT_SENDS = """
const send = WebSocket.prototype.send;
window.__sent = 0;
WebSocket.prototype.send = function (data) { window.__sent += 1; return send.call(this, data); };
"""
FIRST_RUN_MS = 120_000  # a deep link's first run on a loaded 2-core machine (the server may be cold)
LINK = "d_model=128&num_heads=8&seq_len={start}&mask=causal&seed=7&palette=cividis&cell_numbers=true"


def press_as_fast_as_sent(page, control, key: str, times: int) -> None:
    """Press `key` on `control` `times` times, each press as soon as the previous one's message has been sent."""
    for _ in range(times):
        sent = page.evaluate("window.__sent")
        control.focus()
        page.keyboard.press(key)
        page.wait_for_function("n => window.__sent > n", arg=sent)


@pytest.fixture
def settling_page(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, locale="en-US")
    context.add_init_script(COUNT_SENDS)
    page = context.new_page()
    page.set_default_timeout(60_000)
    yield page
    context.close()


@pytest.mark.parametrize("path", ["heads", "walkthrough"])
def test_slider_presses_during_the_first_runs_are_all_kept(settling_page, server, path):
    page, start, presses = settling_page, 10, 20
    page.goto(f"{server.url}/{path}?{LINK.format(start=start)}", wait_until="commit")
    seq_len = sidebar_slider(page, 2)
    expect(seq_len).to_have_value(str(start), timeout=FIRST_RUN_MS)  # drawn by the first run, maybe still going
    press_as_fast_as_sent(page, seq_len, "ArrowRight", presses)
    expect(seq_len).to_have_value(str(start + presses))  # a lost press: it stays one short and this times out
    page.wait_for_selector(IDLE)
    expect(page).to_have_url(re.compile(rf"[?&]seq_len={start + presses}(&|$)"))  # the server has it too
    expect(seq_len).to_have_value(str(start + presses))


def test_typing_in_the_number_box_during_the_first_runs_is_kept(settling_page, server):
    page = settling_page
    page.goto(f"{server.url}/heads?{LINK.format(start=10)}", wait_until="commit")
    seed = page.locator("[data-testid=stSidebar]").get_by_role("spinbutton")
    expect(seed).to_have_value("7", timeout=FIRST_RUN_MS)
    press_as_fast_as_sent(page, sidebar_slider(page, 2), "ArrowRight", 3)  # runs going while the seed is typed
    seed.fill("4242")
    seed.press("Enter")
    press_as_fast_as_sent(page, sidebar_slider(page, 2), "ArrowRight", 3)
    expect(sidebar_slider(page, 2)).to_have_value("16")
    page.wait_for_selector(IDLE)
    expect(page).to_have_url(re.compile(r"[?&]seed=4242(&|$)"))
    expect(seed).to_have_value("4242")


def test_settings_and_display_options_chosen_on_a_page_survive_a_page_change(settling_page, server):
    """The values are written to session state only when they change: a page change must still keep them."""
    import i18n

    page = settling_page
    page.goto(f"{server.url}/walkthrough?table_view=true")
    page.wait_for_selector(IDLE)
    sidebar = page.locator("[data-testid=stSidebar]")
    sidebar.get_by_text(i18n.t("display.palette.contrast", "en"), exact=True).click()
    expect(page).to_have_url(re.compile(r"[?&]palette=contrast(&|$)"))
    press_as_fast_as_sent(page, sidebar_slider(page, 2), "ArrowRight", 1)
    expect(page).to_have_url(re.compile(r"[?&]seq_len=9(&|$)"))
    sidebar.get_by_role("link", name=i18n.t("page.heads", "en")).click()
    expect(page).to_have_url(re.compile(r"/heads\?"))
    page.wait_for_selector(IDLE)
    for part in ("palette=contrast", "seq_len=9", "table_view=true"):
        expect(page).to_have_url(re.compile(rf"[?&]{part}(&|$)"))
    expect(sidebar_slider(page, 2)).to_have_value("9")
