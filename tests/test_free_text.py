"""Issue 24.2: every free-text input refuses oversized text before it is kept, put in the URL or echoed.

Before the fix a 200,000-character grid was kept in session state twice, written into the URL and
echoed back in the text box; a crafted websocket message could send one of any size.
`set_value` sends what a crafted message would (AppTest's `input` would stop at the box's max_chars).
"""

from __future__ import annotations

import pytest
from conftest import run_app

import i18n
from core.limits import MAX_GRID_CHARS, MAX_TEXT_CHARS
from lessons.limits import QUIZ_ANSWER_CHARS, TEXT_LIMITS

HUGE = 200_000


def notice(kind: str, lang: str = "en") -> str:
    limit = TEXT_LIMITS[kind]
    return i18n.t("notice.text_too_long", lang, n=limit + 1, limit=limit)


def qp(at, key):
    value = at.query_params.get(key)
    return value[0] if isinstance(value, list) and value else value


def test_the_limits_table_names_every_free_text_input():
    assert TEXT_LIMITS == {"masks_grid": MAX_GRID_CHARS, "real_text": MAX_TEXT_CHARS, "quiz_answer": QUIZ_ANSWER_CHARS}


@pytest.mark.app
def test_a_huge_grid_in_a_link_is_refused_before_it_is_kept():
    at = run_app("masks", mask="custom", seq_len=3, masks_grid="1" * HUGE, lang="en")
    assert not at.exception, at.exception
    assert [e.value for e in at.error] == [notice("masks_grid")]
    assert qp(at, "masks_grid") is None  # not echoed into the address bar
    assert at.text_input(key="masks_grid").value == ""
    assert at.session_state["custom_mask_text"] == ""
    assert all(len(str(v)) < 2_000 for v in at.session_state["masks_kept"].values())


@pytest.mark.app
@pytest.mark.parametrize("size", [MAX_GRID_CHARS + 1, HUGE])
def test_a_huge_grid_typed_is_refused_and_the_previous_grid_kept(size):
    at = run_app("masks", mask="custom", seq_len=3, masks_grid="100.110.011", lang="en")
    at.text_input(key="masks_grid").set_value("1" * size).run()
    assert not at.exception, at.exception
    assert [e.value for e in at.error] == [notice("masks_grid")]
    assert at.text_input(key="masks_grid").value == "100.110.011"
    assert at.session_state["custom_mask_text"] == "100.110.011"
    assert qp(at, "masks_grid") == "100.110.011"
    at.run()  # the notice is said once
    assert not at.error
    # A grid of exactly the limit is accepted (it does not fit T = 3, which is said, but it is kept).
    at.text_input(key="masks_grid").set_value("1" * MAX_GRID_CHARS).run()
    assert not at.error and at.session_state["custom_mask_text"] == "1" * MAX_GRID_CHARS


@pytest.mark.app
def test_other_pages_ignore_a_huge_grid_in_a_link():
    at = run_app("walkthrough", mask="custom", seq_len=3, masks_grid="1" * HUGE, lang="en")
    assert not at.exception, at.exception


@pytest.mark.app
def test_a_huge_sentence_in_a_link_or_typed_is_refused():
    from core import pretrained

    default = pretrained.EXAMPLES[0][0]
    at = run_app("real-model", real_text="word " * (HUGE // 5), lang="en")
    assert not at.exception, at.exception
    assert notice("real_text") in [e.value for e in at.error]
    assert at.text_area(key="real_text").value == default
    assert qp(at, "real_text") in (None, default)
    at.text_area(key="real_text").set_value("The cat sat.").run()
    assert not at.error and at.text_area(key="real_text").value == "The cat sat."
    at.text_area(key="real_text").set_value("x" * HUGE).run()
    assert notice("real_text") in [e.value for e in at.error]
    assert at.text_area(key="real_text").value == "The cat sat."
    assert qp(at, "real_text") != "x" * (MAX_TEXT_CHARS + 1)


@pytest.mark.app
def test_a_huge_quiz_answer_is_refused_and_not_kept():
    at = run_app("quiz", lang="en", seed=0)
    box = next(w for w in at.text_input if w.key and w.key.startswith("quiz_in_"))
    key = box.key
    box.set_value("9" * HUGE)
    next(b for b in at.button if b.key and b.key.startswith("FormSubmitter:")).click().run()
    assert not at.exception, at.exception
    assert i18n.t("quiz.err.too_long", "en", n=QUIZ_ANSWER_CHARS) in at.warning[0].value
    assert at.text_input(key=key).value == ""
