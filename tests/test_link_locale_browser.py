"""The teacher's link is the class's view, whatever each browser's locale (issue 29 item 5).

Before: `lang` was dropped from the address bar whenever it equalled the browser's locale (Streamlit drops a bound
value equal to the widget's default, and the default was the locale), so an en-US teacher's English link opened
in Chinese for a zh-CN student, and the reverse; `walk_step=7` showed step 7, then left the address bar.
"""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse

import pytest
from conftest import IDLE, current_link, open_app, wait_idle
from playwright.sync_api import expect
from waits import wait_quiet

pytestmark = pytest.mark.browser
MAIN = "[data-testid=stMain]"


def _tab(browser, locale: str):
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, locale=locale)
    page = context.new_page()
    page.set_default_timeout(60_000)
    return context, page


def _text(page) -> list[str]:
    """The main area's visible text, line by line (blank lines and spacing are layout, not content)."""
    return [line.strip() for line in page.inner_text(MAIN).splitlines() if line.strip()]


def _link_settles(page, key: str) -> dict[str, list[str]]:
    """The address bar once it holds `key` (Streamlit writes it at the end of the run)."""
    page.wait_for_function(f"new URLSearchParams(location.search).has({key!r})", timeout=30_000)
    wait_idle(page)
    return parse_qs(urlparse(current_link(page)).query)


@pytest.mark.parametrize("teacher,student,lang", [("en-US", "zh-CN", "en"), ("zh-CN", "en-US", "zh")])
def test_the_teachers_link_opens_the_same_page_in_a_browser_of_the_other_locale(
    browser, server, teacher, student, lang
):
    t_context, t_page = _tab(browser, teacher)
    s_context, s_page = _tab(browser, student)
    try:
        open_app(t_page, server, "walkthrough", walk_step="7")  # the teacher's own language: no lang in the link
        query = _link_settles(t_page, "lang")
        assert query["lang"] == [lang]
        assert "walk_step" in query  # step 7 stays in the link, as the name the page shows
        s_page.goto(current_link(t_page))  # the link the teacher shares
        s_page.wait_for_selector(IDLE, timeout=60_000)
        wait_idle(s_page)
        assert parse_qs(urlparse(s_page.url).query)["lang"] == [lang]
        # Formulas (KaTeX) and charts finish drawing after the run: the teacher's page once it has stopped changing,
        # the student's until it shows the same (expect retries; a tooltip may come and go meanwhile).
        wait_quiet(t_page)
        expect(s_page.locator(MAIN)).to_have_text("\n".join(_text(t_page)), use_inner_text=True)
    finally:
        t_context.close()
        s_context.close()
