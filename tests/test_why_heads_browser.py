"""The "Why many heads" page in a real browser: train live and read the verdict; stop a training."""

from __future__ import annotations

import pytest
from chart_reader import BROWSER_CHART as CHART
from conftest import open_app, wait_idle
from playwright.sync_api import expect

LONG = 120_000  # ms: three tiny models on a busy test machine


@pytest.mark.browser
def test_train_shows_the_heads_specialise(server, page):
    open_app(page, server, "why-heads", why_seed=91_001, why_steps=100)
    expect(page.get_by_role("heading", name="Why many heads")).to_be_visible()
    expect(page.get_by_text("Not trained yet for these settings")).to_be_visible()
    page.get_by_role("button", name="Train h = 1, 2, 4").click()
    expect(page.get_by_text("Training finished.")).to_be_visible(timeout=LONG)
    wait_idle(page)
    expect(page.get_by_text("The effect shows")).to_have_count(2)  # h = 2 and h = 4
    expect(page.get_by_text("One head (d_k = 32)")).to_be_visible()
    expect(page.locator(CHART)).to_have_count(1)  # the loss curves
    page.get_by_role("radio", name="What every head learned to look at").click()
    wait_idle(page)
    expect(page.locator(CHART)).to_have_count(4)  # loss curves + a head grid per model
    expect(page.get_by_text("h = 4 (d_k = 8)")).to_be_visible()


@pytest.mark.browser
def test_stop_keeps_the_partial_run_and_says_so(server, page):
    open_app(page, server, "why-heads", why_seed=91_002, why_steps=1600)
    page.get_by_role("button", name="Train h = 1, 2, 4").click()
    expect(page.get_by_text("Training h = 1: step")).to_be_visible(timeout=LONG)
    page.get_by_role("button", name="Stop training").click()
    expect(page.get_by_text("Training was stopped at step")).to_be_visible(timeout=LONG)
    wait_idle(page)
    expect(page.get_by_text("Training was stopped at step")).to_be_visible()
    expect(page.get_by_text("Training finished.")).to_have_count(0)


@pytest.mark.browser
def test_the_loss_curve_is_live_while_training(server, page):
    """Issue 20: 3 s into training the area under the progress bar was empty (a plotly chart replaced every
    fraction of a second never finished mounting). The live curve is HTML: there with the first progress text,
    and in view while it grows."""
    open_app(page, server, "why-heads", why_seed=91_003, why_steps=1600)
    page.get_by_role("button", name="Train h = 1, 2, 4").click()
    expect(page.get_by_text("Training h = 1: step")).to_be_visible(timeout=LONG)
    live = page.locator(".al-live-loss img.al-live-lines")
    expect(live).to_be_visible(timeout=3_000)  # HTML: on screen at once
    # h = 1's steps drawn so far (data-n "1:<steps> ..."; 0: the axes, before the first chunk; -1: no curve)
    drawn = """() => { const img = document.querySelector('.al-live-loss img.al-live-lines');
        return img ? +((img.getAttribute('data-n') || '1:0').split(' ')[0].split(':')[1]) : -1; }"""
    last = 0
    for _ in range(3):  # the curve grows three times while training, and is on screen each time
        page.wait_for_function(f"last => ({drawn})() > last", arg=last)
        last = page.evaluate(drawn)
        expect(live).to_have_count(1)
        expect(live.first).to_be_visible()
    expect(page.get_by_text("Training finished.")).to_have_count(0)  # still training: this was the live curve
    page.get_by_role("button", name="Stop training").click()
    expect(page.get_by_text("Training was stopped at step")).to_be_visible(timeout=LONG)
