"""The "Softmax up close" page in a real browser: a deep link opens the tile-by-tile view at its step, the Next
button redraws the next step (and writes it into the link), and a heatmap's hover prints the exact value."""

from __future__ import annotations

import re

import numpy as np
from conftest import open_app, wait_idle
from playwright.sync_api import expect

import i18n
from lessons import scenario
from lessons import softmax as L
from lessons.settings import Settings

SETTINGS = dict(d_model=64, num_heads=4, seq_len=8, mask="causal", seed=0)


def chart(page, key: str):
    box = page.locator(f".st-key-{key} .al-chart").first
    box.scroll_into_view_if_needed()
    page.wait_for_function("el => el.__alChart && el.__alChart.g", arg=box.element_handle())
    return box


def hover_text(page, box, panel: int, r: int, c: int) -> str:
    box.evaluate("el => el.scrollIntoView({block: 'center'})")  # the whole chart on screen: the point is visible
    x, y = box.evaluate("(el, a) => el.__alChart.cellPoint(...a)", [panel, r, c])
    page.mouse.move(x, y)
    tip = box.locator(".al-tip")
    expect(tip).to_be_visible()
    return tip.inner_text()


def test_a_deep_link_opens_the_step_and_next_redraws_the_following_one(server, page):
    open_app(
        page, server, "softmax", lang="en", soft_tab="tiles", soft_head=1, soft_bq=4, soft_bk=4, soft_step=2, **SETTINGS
    )
    main = page.locator("[data-testid=stMain]")
    expect(main).to_contain_text("Step 2 of 3: query tile 1 (rows 4–7) × key tile 0 (keys 0–3)")
    expect(main).to_contain_text("4 tiles in all, 1 skipped")
    expect(main).not_to_contain_text("The tiled result equals")
    page.locator(".st-key-soft_next button").click()
    wait_idle(page)
    expect(main).to_contain_text("Step 3 of 3: query tile 1 (rows 4–7) × key tile 1 (keys 4–7)")
    s = Settings(**SETTINGS, lang="en")
    res = L.tile_result(s, 1, 4, 4, scenario.run(s))
    expect(main).to_contain_text(i18n.nobreak(f"this head max |difference| {res.head_diff:.2e}"))
    expect(page).to_have_url(re.compile(r"[?&]soft_step=3(&|$)"))
    expect(page.locator(".st-key-soft_next button")).to_be_disabled()


def test_hover_on_a_heatmap_shows_the_exact_value(server, page):
    open_app(
        page, server, "softmax", lang="zh", soft_tab="tiles", soft_head=2, soft_bq=3, soft_bk=4, soft_step=2, **SETTINGS
    )
    s = Settings(**SETTINGS, lang="zh")
    run = scenario.run(s)
    v = L.tile_step(L.tile_walk(s, 2, 3, 4, run), 2)
    q0, q1, k0, k1 = v.cells
    box = chart(page, "soft_tile_p_hm")  # this tile's P = exp(S - m_new)
    p = v.current.p.astype(np.float32)
    q, k = i18n.t("softmax.axis.query", "zh"), i18n.t("softmax.axis.key", "zh")
    for r, c in ((0, 0), (q1 - q0 - 1, 1)):
        lines = hover_text(page, box, 0, r, c).splitlines()
        assert lines == [f"{q} {run.tokens[q0 + r]}", f"{k} {run.tokens[k0 + c]}", f"{float(p[r, c]):.4f}"], lines
    scores = chart(page, "soft_scores_hm")  # the full matrix: a blocked cell says so
    lines = hover_text(page, scores, 0, 0, 5)
    assert lines.splitlines()[-1].startswith(i18n.t("display.blocked", "zh")), lines
