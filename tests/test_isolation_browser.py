"""A class at once: 8 browser sessions on one server, driven interleaved, each with its own settings,
its own hand-drawn mask on the Masks lab and its own ablated heads on the Real heads page. Every
session must see only its own, on the page and in its link."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlparse

import pytest
from conftest import IDLE, click_mask_cell, current_link, wait_idle
from playwright.sync_api import expect

import i18n
from core.masks import mask_to_text
from lessons.scenario import default_custom_grid

pytestmark = pytest.mark.browser

# (d_model, num_heads, seq_len, seed, lang, clicked cell of the mask grid, ablated head on layer 4)
SESSIONS = [
    (16, 2, 4, 11, "en", (0, 3), 0),
    (32, 4, 5, 12, "zh", (1, 4), 1),
    (64, 8, 6, 13, "en", (2, 5), 2),
    (128, 16, 4, 14, "zh", (3, 0), 3),
    (256, 1, 5, 15, "en", (4, 0), 5),
    (512, 32, 6, 16, "zh", (5, 1), 7),
    (8, 8, 4, 17, "en", (0, 1), 9),
    (64, 2, 5, 18, "zh", (4, 4), 11),
]


def expected_grid(T: int, cell) -> str:
    grid = default_custom_grid(T, T).clone()
    grid[cell] = ~grid[cell]
    return mask_to_text(grid)


def sidebar(page):
    return page.locator("[data-testid=stSidebar]")


def started(page) -> None:
    """After an action: wait until Streamlit has picked it up and finished (the run may be quick)."""
    wait_idle(page)


def query(page) -> dict:
    return {k: v[-1] for k, v in parse_qs(urlparse(current_link(page)).query).items()}


def check_own_settings(page, s) -> None:
    d, h, T, seed, lang, _, _ = s
    expect(sidebar(page).get_by_text(i18n.t("settings.d_k", lang, d_model=d, h=h, d_k=d // h))).to_be_visible()
    expect(sidebar(page).get_by_role("spinbutton")).to_have_value(str(seed))
    q = query(page)
    for key, value in (("d_model", d), ("num_heads", h), ("seq_len", T), ("seed", seed)):
        assert q.get(key, str(value)) == str(value), (key, page.url)  # absent = the default, never another's


def test_eight_students_at_once_see_only_their_own(server, browser):
    contexts = [browser.new_context(viewport={"width": 1300, "height": 1000}, locale="en-US") for _ in SESSIONS]
    pages = [c.new_page() for c in contexts]
    try:
        for p in pages:
            p.set_default_timeout(120_000)
        # 1. Everyone opens the Masks lab with their own settings, all at once.
        for p, (d, h, T, seed, lang, _, _) in zip(pages, SESSIONS):
            p.goto(
                f"{server.url}/masks?d_model={d}&num_heads={h}&seq_len={T}&seed={seed}&lang={lang}&mask=custom",
                wait_until="commit",
            )
        for p in pages:
            p.wait_for_selector(".st-key-masks_click_0 .al-chart canvas")
            wait_idle(p)

        # 2. Everyone toggles a different cell of their hand-drawn mask, interleaved.
        for p, s in zip(pages, SESSIONS):
            click_mask_cell(p, *s[5])
        for p, s in zip(pages, SESSIONS):
            grid = expected_grid(s[2], s[5])
            expect(p.locator(".st-key-masks_grid input")).to_have_value(grid)
            expect(p).to_have_url(re.compile(rf"masks_grid={re.escape(grid)}"))
            started(p)
            check_own_settings(p, s)

        # 3. Everyone goes to Real heads (same session) and switches off a different head, interleaved.
        for p, s in zip(pages, SESSIONS):
            sidebar(p).get_by_role("link", name=i18n.t("page.real-model", s[4])).click()
        for p, s in zip(pages, SESSIONS):  # the ablation is one tab of the page (ui/sections.lazy_tabs)
            p.get_by_role("radio", name=i18n.t("real.view.ablate", s[4])).click()
        for p in pages:
            p.wait_for_selector(".st-key-real_off")
            wait_idle(p)
        for p, s in zip(pages, SESSIONS):
            p.locator(".st-key-real_off button").filter(has_text=re.compile(rf"^{s[6]}$")).click()
        for p, s in zip(pages, SESSIONS):
            expect(p).to_have_url(re.compile(rf"real_off={s[6]}(&|$)"))
            wait_idle(p)
            active = p.locator(".st-key-real_off button[aria-pressed=true]")
            expect(active).to_have_count(1)
            expect(active).to_have_text(str(s[6]))
            check_own_settings(p, s)

        # 4. Back on the Masks lab, everyone's own grid is still there (kept in their own session).
        for p, s in zip(pages, SESSIONS):
            sidebar(p).get_by_role("link", name=i18n.t("page.masks", s[4])).click()
        for p, s in zip(pages, SESSIONS):
            p.wait_for_selector(".st-key-masks_grid input")
            wait_idle(p)
            expect(p.locator(".st-key-masks_grid input")).to_have_value(expected_grid(s[2], s[5]))
            check_own_settings(p, s)
            assert p.locator(IDLE).count() == 1
    finally:
        for c in contexts:
            c.close()
