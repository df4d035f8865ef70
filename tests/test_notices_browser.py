"""Issue 24.3 in Chromium: markup in a link's values shows in the notices as the characters typed.

Before the fix the display options' notices put the raw value into markdown: an image fetched from the
link's host, a "Sign in" link, red text, a KaTeX formula 97,000 px tall, a notice reversed by U+202E.
"""

from __future__ import annotations

from urllib.parse import urlencode

import pytest
from conftest import IDLE, wait_idle

from i18n import literal

pytestmark = pytest.mark.browser

QUERY = {
    "palette": "![i](http://evil.example/x.png)",
    "cell_numbers": "[Sign in](http://evil.example/login)",
    "table_view": "$\\rule{1px}{97000px}$",
    "image_format": ":red[RED] text",
    "seed": "\u202eEVIL\x00",
    "masks_tab": "<img src=http://evil.example/y.png>",
    "lang": "en",
}


@pytest.mark.parametrize("path", ["", "masks"])
def test_markup_in_link_values_shows_literally_in_notices(path, server, browser):
    context = browser.new_context(viewport={"width": 1300, "height": 1000}, locale="en-US")
    page = context.new_page()
    asked = []
    page.on("request", lambda r: asked.append(r.url))
    page.goto(f"{server.url}/{path}?{urlencode(QUERY)}")
    page.wait_for_selector("[data-testid=stAlert]")
    wait_idle(page)
    page.wait_for_selector(IDLE)
    alerts = page.locator("[data-testid=stAlert]")
    html = " ".join(alerts.evaluate_all("els => els.map(e => e.innerHTML)"))
    text = " ".join(alerts.all_inner_texts())
    assert "<img" not in html and "<a " not in html and "katex" not in html, html
    assert "color:" not in html.replace("color: inherit", ""), html[:2000]
    keys = [k for k in QUERY if k != "lang" and (path == "masks" or k != "masks_tab")]
    for key in keys:
        assert literal(QUERY[key]) in text, (key, literal(QUERY[key]), text)
    assert "\u202e" not in text and "\x00" not in text
    assert max(alerts.evaluate_all("els => els.map(e => e.getBoundingClientRect().height)")) < 200
    assert not [u for u in asked if "evil.example" in u.split("?")[0]], asked  # nothing fetched from that host
    context.close()
