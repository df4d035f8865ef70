"""A classroom without internet: with every request to anything but the app's own address blocked,
every page shows fully, in both languages, and not one request tried to leave the machine
(no CDN, no web fonts, no analytics). Chinese text is drawn with a font installed on the machine.

The pages come from app.py's PAGES, so a page added later is covered without touching this file.
"""

from __future__ import annotations

import re
import subprocess
from urllib.parse import urlsplit

import pytest
from conftest import IDLE, in_both_languages, wait_idle
from playwright.sync_api import expect

import i18n
from ui import navigation

pytestmark = pytest.mark.browser

CJK = re.compile(r"[\u4e00-\u9fff]")


PAGES = [url for _, url, _ in navigation.PAGES]  # '' is home


class Offline:
    """A browser context that can only reach the app's origin; everything else is aborted and recorded."""

    def __init__(self, browser, server, lang: str):
        self.host, self.port = "127.0.0.1", server.port
        self.blocked: list[str] = []
        self.requests: list[tuple[str, str]] = []  # (resource type, url) of everything the page asked for
        self.sockets: list[str] = []  # the app's own websockets, let through
        self.context = browser.new_context(
            viewport={"width": 1400, "height": 1000},
            locale="zh-CN" if lang == "zh" else "en-US",
            service_workers="block",
        )
        self.context.route("**/*", self._route)
        self.context.route_web_socket(re.compile(".*"), self._route_ws)
        self.page = self.context.new_page()
        self.page.set_default_timeout(90_000)
        self.page.on("request", lambda r: self.requests.append((r.resource_type, r.url)))

    def local(self, url: str) -> bool:
        parts = urlsplit(url)
        if parts.scheme in ("data", "blob", "about"):  # in-page content, never a network request
            return True
        return parts.scheme in ("http", "ws") and parts.hostname == self.host and parts.port == self.port

    def _route(self, route):
        if self.local(route.request.url):
            route.continue_()
        else:
            self.blocked.append(route.request.url)
            route.abort("internetdisconnected")

    def _route_ws(self, ws):
        if self.local(ws.url):
            self.sockets.append(ws.url)
            ws.connect_to_server()
        else:
            self.blocked.append(ws.url)
            ws.close()

    def close(self):
        self.context.close()


@pytest.fixture
def offline(request, browser, server):
    """A browser context of the language `request.param` that can only reach the app."""
    o = Offline(browser, server, request.param)
    o.lang = request.param
    yield o
    o.close()


def title_of(url_path: str, lang: str) -> str:
    return i18n.t(f"page.{url_path or 'home'}", lang)


def check_page_shows_fully(page, url_path: str, lang: str) -> None:
    expect(page.locator(IDLE)).to_have_count(1)
    expect(page).to_have_title(re.compile(re.escape(title_of(url_path, lang))))
    heading = page.locator("h1").first
    expect(heading).to_be_visible()
    assert heading.inner_text().strip()
    expect(page.locator("[data-testid=stException]")).to_have_count(0)
    expect(page.locator("[data-testid=stAlertContentError]")).to_have_count(0)
    # every chart is drawn: plotly charts by the plotly.js Streamlit serves itself, heatmaps by the app's own
    # renderer (static/heatmaps.js, from this server)
    charts = page.locator("[data-testid=stPlotlyChart]")
    for i in range(charts.count()):
        expect(charts.nth(i).locator(".js-plotly-plot .main-svg").first).to_be_attached()
    heatmaps = page.locator(".al-chart")
    for i in range(heatmaps.count()):
        assert heatmaps.nth(i).evaluate("box => !!(box.__alChart && box.__alChart.g && box.__alChart.drawn)")
    # every image (icons, logos) actually loaded
    broken = page.evaluate("[...document.images].filter(i => !i.complete || i.naturalWidth === 0).map(i => i.src)")
    assert broken == [], broken


# Each page in one language, the languages alternating, and home in both: what a page fetches is the app's own
# scripts, styles and fonts in either language (the Chinese font's own check: the test below).
OFFLINE_VIEWS = [*in_both_languages(PAGES), (PAGES[0], "en")]


@pytest.mark.parametrize(
    "url_path,offline", OFFLINE_VIEWS, ids=[f"{p or 'home'}-{lang}" for p, lang in OFFLINE_VIEWS], indirect=["offline"]
)
def test_every_page_shows_fully_with_the_internet_blocked(offline, url_path):
    page = offline.page
    page.goto(f"http://{offline.host}:{offline.port}/{url_path}?lang={offline.lang}")
    wait_idle(page)
    check_page_shows_fully(page, url_path, offline.lang)
    page.keyboard.press("End")  # anything drawn lazily further down is fetched too
    wait_idle(page)
    assert offline.blocked == [], f"requests that tried to leave the machine: {offline.blocked}"
    assert offline.sockets, "the websocket route saw no socket: it would not notice a foreign one either"
    web_fonts = [u for kind, u in offline.requests if kind == "font"]
    assert all(offline.local(u) for u in web_fonts), web_fonts
    assert not any(re.search(r"fonts\.(googleapis|gstatic)\.com|cdn|analytics|segment", u) for _, u in offline.requests)


def installed_cjk_families() -> set[str]:
    out = subprocess.run(["fc-list", ":lang=zh", "family"], capture_output=True, text=True, check=False).stdout
    return {name.strip() for line in out.splitlines() for name in line.split(",") if name.strip()}


def test_chinese_text_is_drawn_with_a_local_cjk_font(browser, server):
    o = Offline(browser, server, "zh")
    try:
        page = o.page
        page.goto(f"{server.url}/walkthrough?lang=zh")
        wait_idle(page)
        heading = page.locator("h1").first
        expect(heading).to_have_text(re.compile(CJK.pattern))
        cdp = o.context.new_cdp_session(page)
        cdp.send("DOM.enable")
        cdp.send("CSS.enable")
        root = cdp.send("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
        node = cdp.send("DOM.querySelector", {"nodeId": root, "selector": "h1"})["nodeId"]
        fonts = cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]
        # The CJK glyphs come from a font installed on this machine (not a web font), and nothing is tofu.
        local = installed_cjk_families()
        assert local, "no CJK font installed (scripts/setup.sh installs fonts-noto-cjk)"
        cjk_fonts = [f for f in fonts if f["familyName"] in local]
        assert cjk_fonts and not any(f["isCustomFont"] for f in cjk_fonts), fonts
        cjk_chars = len(CJK.findall(heading.inner_text()))
        assert sum(f["glyphCount"] for f in cjk_fonts) >= cjk_chars, fonts
        assert o.blocked == [], o.blocked
    finally:
        o.close()
