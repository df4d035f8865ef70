"""No user text is ever run as HTML: script and onerror payloads through every URL parameter and every
text box of every page execute nothing, open no dialog, and show as plain text where they are echoed."""

from __future__ import annotations

import re
from urllib.parse import urlencode

import pytest
from conftest import wait_idle
from playwright.sync_api import expect
from test_fuzz_app import PAGES, SHARED_KEYS
from waits import wait_quiet

import i18n
from lessons import url_keys as URL_KEYS

pytestmark = pytest.mark.browser

PAYLOADS = [
    "<script>window.__xss=1</script>",
    '<img src=x onerror="window.__xss=1">',
    '<svg onload="window.__xss=1"></svg>',
    '[click](javascript:window.__xss=1) **<b onmouseover="window.__xss=1">b</b>**',
    '<iframe srcdoc="<script>parent.__xss=1</script>"></iframe>',
    '"><img src=x onerror=window.__xss=1>',
]


def attacked(page) -> bool:
    return page.evaluate("() => window.__xss !== undefined || document.querySelector('iframe[srcdoc]') !== null")


@pytest.fixture
def xss_page(page):
    page.set_viewport_size({"width": 1300, "height": 1000})
    page.set_default_timeout(90_000)
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.dialogs = dialogs
    return page


@pytest.mark.parametrize("file,url", PAGES, ids=[u or "home" for _, u in PAGES])
def test_payloads_in_every_url_parameter(file, url, server, xss_page):
    page = xss_page
    keys = sorted(set(SHARED_KEYS) | {URL_KEYS.GRID} | set(URL_KEYS.PAGE_KEYS[url]))  # the keys the page reads
    assert len(keys) >= len(PAYLOADS)  # so one link carries every payload
    # One link a page, each key with another payload; the pairing turns with the page, so a key every page reads
    # (the shared settings) meets a different payload on each.
    turn = [u for _, u in PAGES].index(url)
    query = {k: PAYLOADS[(i + turn) % len(PAYLOADS)] for i, k in enumerate(keys)}
    page.goto(f"{server.url}/{url}?{urlencode(query)}")
    page.wait_for_selector("[data-testid=stMain] [data-testid=stAlert]")
    wait_idle(page)
    page.mouse.move(200, 300)
    page.mouse.move(700, 500)  # hover-triggered handlers would fire now
    assert not attacked(page), (file, query)
    assert not page.dialogs
    # Echoed as text: the notice (top of the main area) quotes the bad value literally (shortened to 21
    # characters); a value longer than the key can hold is not quoted, only named.
    fits = len(query["seed"]) <= URL_KEYS.max_chars("seed")
    given = (
        query["seed"][:21]
        if fits
        else i18n.t("notice.url_too_long", "en", key="seed", limit=URL_KEYS.max_chars("seed"))
    )
    expect(page.locator("[data-testid=stMain] [data-testid=stAlert]").filter(has_text=given).first).to_be_visible()


# The sidebar's boxes (app.py's settings: the mask's select box) are the same widgets, drawn by the same code, on
# every page, and a select box's search text never reaches the server (Escape closes it): once attacked on one
# page, attacking them again on each other page repeats it. A sidebar box is attacked on the first page this run
# shows it (a test run alone attacks all of its own); a box only one page draws is attacked there, every time.
_ATTACKED_SIDEBAR_BOXES: set[str] = set()
# A box's place and widget key: (in the sidebar, its st-key-... class or None).
_BOX_ID = """e => { const k = e.closest('[class*="st-key-"]');
    const key = k ? [...k.classList].find(c => c.startsWith('st-key-')) : null;
    return [!!e.closest('[data-testid=stSidebar]'), key]; }"""


@pytest.mark.parametrize("file,url", PAGES, ids=[u or "home" for _, u in PAGES])
def test_payloads_in_every_text_box(file, url, server, xss_page):
    page = xss_page
    opened = {"masks": "?mask=custom", "real-model": ""}.get(url, "")
    page.goto(f"{server.url}/{url}{opened}")
    wait_idle(page)
    page.wait_for_selector(
        {"masks": ".st-key-masks_grid input", "real-model": ".st-key-real_text textarea"}.get(
            url, "[data-testid=stMain] h1"
        )
    )
    wait_idle(page)
    boxes = page.locator(
        "[data-testid=stMain] input[type=text], [data-testid=stMain] textarea, "
        "[data-testid=stSidebar] input[type=text], [data-testid=stSidebar] textarea"
    )
    count = boxes.count()
    if url in ("masks", "real-model"):
        assert count >= 1, f"{url}: its text box was not found"
    quiet = False  # nothing has changed the page since it last stopped changing
    for i in range(count):
        in_sidebar, key = boxes.nth(i).evaluate(_BOX_ID)
        if in_sidebar and key is not None:
            if key in _ATTACKED_SIDEBAR_BOXES:
                continue
            _ATTACKED_SIDEBAR_BOXES.add(key)
        for payload in PAYLOADS:
            box = boxes.nth(i)
            wait_idle(page)
            if not quiet:
                wait_quiet(page)  # the previous payload's rerun has redrawn its section before this box is looked at
            if not box.is_visible() or not box.is_editable():
                continue
            combo = box.get_attribute("role") == "combobox"  # a select's search box: typed text only filters
            quiet = combo  # Escape in a select's search sends nothing: no rerun to wait for before the next payload
            box.fill(payload)
            box.press(
                "Escape" if combo else "Control+Enter" if box.evaluate("e => e.tagName") == "TEXTAREA" else "Enter"
            )
            wait_idle(page)
            page.mouse.move(300, 300)
            assert not attacked(page), (url, i, payload)
            assert not page.dialogs
            if not combo:
                # Kept as typed (text, not markup), or refused whole by a box whose limit it passes (Streamlit's text
                # box takes no text beyond its max_chars: the class code's 12, the nickname's 24).
                expect(boxes.nth(i)).to_have_value(re.compile(f"^(|{re.escape(payload)})$"))
    if url == "real-model":
        # The sentence is echoed as tokens: the chips show '<', 'script', '>' as text.
        expect(page.locator("span[title]").filter(has_text="<").first).to_be_visible()
    assert not attacked(page)
