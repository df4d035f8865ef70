"""The quiz in a real browser: answer, see the reveal and the score change; another student's score is their own."""

import re

import pytest
from conftest import open_app, wait_idle
from playwright.sync_api import expect

import i18n
from lessons import quiz as Q
from lessons import scenario
from lessons.settings import Settings
from ui.words import in_language

pytestmark = pytest.mark.browser

PARAMS = dict(d_model=64, num_heads=4, seq_len=8, mask="causal", seed=0, lang="en")


def first_question():
    return Q.build_quiz(scenario.run(Settings(**PARAMS)))[0]


def prompt(page, q, lang="en"):
    """The question's paragraph (its `code` spans split the text into several nodes)."""
    return page.locator(
        "[data-testid=stMarkdownContainer]", has_text=in_language(Q.prompt_text(q), lang).replace("`", "")
    )


def score(page):
    return page.locator("[data-testid=stMetricValue]").first


def test_answering_reveals_and_scores_and_another_session_has_its_own_score(page, server, browser):
    q = first_question()
    assert q.answer_type == "shape"  # the set for these settings starts with a shape question
    open_app(page, server, "quiz", **PARAMS)
    expect(prompt(page, q)).to_be_visible()
    expect(score(page)).to_have_text("0 / 0")

    page.get_by_role("textbox", name="Your answer").fill("1×" + "×".join(map(str, q.answer[1:])))
    page.get_by_role("button", name="Check and reveal").click()
    wait_idle(page)
    expect(page.get_by_text(f"Right! Your answer: {in_language(Q.format_value(q, q.answer), 'en')}")).to_be_visible()
    expect(page.get_by_text(f"Right answer: {in_language(Q.answer_text(q), 'en')}")).to_be_visible()
    expect(score(page)).to_have_text("1 / 1")

    # A second student (another browser context = another session) starts from zero, on an open question.
    other = browser.new_context(viewport={"width": 390, "height": 900}, locale="en-US")
    try:
        pg = other.new_page()
        pg.set_default_timeout(60_000)
        open_app(pg, server, "quiz", **PARAMS)
        expect(prompt(pg, q)).to_be_visible()
        expect(score(pg)).to_have_text("0 / 0")
        expect(pg.get_by_role("textbox", name="Your answer")).to_be_visible()
        expect(pg.get_by_text("Right! Your answer")).to_have_count(0)
    finally:
        other.close()
    expect(score(page)).to_have_text("1 / 1")  # and the first one's is untouched


LINK_PARAMS = dict(d_model=32, num_heads=8, seq_len=6, mask="causal", seed=7, lang="zh")  # none at its default


def test_the_link_opens_the_step_with_the_same_settings_and_the_score_survives(page, server):
    q = Q.build_quiz(scenario.run(Settings(**LINK_PARAMS)))[0]
    assert q.answer_type == "int"
    t = lambda key, **kw: i18n.t(key, "zh", **kw)  # noqa: E731
    open_app(page, server, "quiz", **LINK_PARAMS)
    box = page.get_by_role("textbox", name=t("quiz.your_answer"))
    box.fill("abc")
    page.get_by_role("button", name=t("quiz.check")).click()
    wait_idle(page)
    expect(page.get_by_text(t("quiz.not_counted") + t("quiz.err.not_number"))).to_be_visible()
    expect(score(page)).to_have_text("0 / 0")
    box.fill(str(q.answer))
    box.press("Enter")  # Enter submits the form too
    wait_idle(page)
    expect(page.get_by_text(t("quiz.right", given=in_language(Q.format_value(q, q.answer), "zh")))).to_be_visible()
    expect(score(page)).to_have_text("1 / 1")

    link = page.get_by_role("link", name=t("quiz.link", step=t(f"walk.{q.step}.title")))
    href = link.get_attribute("href")
    for key, value in {**LINK_PARAMS, "walk_step": q.step, "walk_view": "step"}.items():
        assert re.search(rf"[?&]{key}={value}(&|$)", href), (key, href)
    link.click()
    wait_idle(page)
    expect(page).to_have_url(re.compile(rf"/walkthrough\?.*walk_step={q.step}"))
    for key, value in LINK_PARAMS.items():
        expect(page).to_have_url(re.compile(rf"[?&]{key}={value}(&|$)"))
    expect(page.get_by_role("heading", name=re.compile(re.escape(t(f"walk.{q.step}.title"))))).to_be_visible()

    page.locator("[data-testid=stSidebarNav]").get_by_role("link", name=t("page.quiz")).click()
    wait_idle(page)
    expect(score(page)).to_have_text("1 / 1")  # back from the explanation: the session's score is still there


def test_a_deep_link_to_the_quiz_is_the_first_request_to_a_fresh_server(page, fresh_server):
    """The link a teacher sends first thing in class: the quiz, its settings and the sidebar are all there."""
    params = dict(LINK_PARAMS, seed=2)
    q = Q.build_quiz(scenario.run(Settings(**params)))[0]
    open_app(page, fresh_server, "quiz", **params)
    expect(page).to_have_title(re.compile(i18n.t("page.quiz", "zh")))
    expect(prompt(page, q, "zh")).to_be_visible()
    expect(page.locator("[data-testid=stSidebar]").get_by_text("d_k = 32 / 8 = 4")).to_be_visible()
    expect(score(page)).to_have_text("0 / 0")
