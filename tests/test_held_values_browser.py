"""A widget whose code the browser loads late keeps the link's value (ui/seam entry `held_values`).

Streamlit's client loads each kind of widget's code on first use. A step made right after a page loaded can re-send
the sidebar before the seed box's and the mask menu's code has arrived; those widgets then mount from the step's
element, which carries no value unless the server writes one, and start at their defaults (seed 0, no mask). The
next click sends those defaults back as if the user had chosen them: the seed and mask were reset, and a page
link clicked then was lost (the callbacks' rerun of the settings replaced the page change). Here the late code is
made certain by holding those two files back until the step is done.
"""

import re

import pytest
from conftest import sidebar_slider, wait_idle
from playwright.sync_api import expect

import i18n

pytestmark = pytest.mark.browser

LATE = re.compile(r"/static/js/(NumberInput|Selectbox)\.[^/]*\.js$")  # the seed box's and the mask menu's code


def test_a_widget_mounted_late_keeps_the_links_value(browser, server):
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, locale="en-US")
    held = []

    def hold(route):  # not answered until the step below is done
        held.append(route)

    context.route(LATE, hold)
    page = context.new_page()
    page.set_default_timeout(60_000)
    try:
        page.goto(f"{server.url}/?d_model=32&seq_len=5&mask=causal&seed=7")
        wait_idle(page)
        sidebar = page.locator("[data-testid=stSidebar]")
        expect(sidebar.get_by_role("spinbutton")).to_have_count(0)  # the seed box's code is still held back
        sidebar_slider(page, 1).focus()
        page.keyboard.press("End")  # h = 32: the settings are drawn again, before the held code arrives
        expect(sidebar.get_by_text("d_k = 32 / 32 = 1")).to_be_visible()
        wait_idle(page)
        assert held, "the browser asked for neither file: the test no longer holds anything back"
        for route in held:
            route.continue_()
        context.unroute(LATE, hold)

        expect(sidebar.get_by_role("spinbutton")).to_have_value("7")
        menu = sidebar.locator(".st-key-mask_shown").get_by_role("combobox")
        expect(menu).to_have_value(i18n.t("mask.causal", "en"))
        sidebar.get_by_role("link", name=i18n.t("page.heads", "en")).click()
        wait_idle(page)
        expect(page).to_have_url(re.compile(r"/heads\?"))
        for part in ("num_heads=32", "seq_len=5", "mask=causal", "seed=7"):  # the run's end writes the last two
            expect(page).to_have_url(re.compile(rf"[?&]{part}(&|$)"))
        expect(sidebar.get_by_role("spinbutton")).to_have_value("7")
    finally:
        context.close()
