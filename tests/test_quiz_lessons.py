"""The KV cache, Softmax up close and Positions pages' predict-then-reveal questions on the Quiz page.

Each lesson builds its questions as data (lessons/*.quiz_questions / quiz_items) and grades them itself where it
reads typed text (softmax.check_answer, positions.accepts); the LessonSource adapters of lessons/quiz/sources.py join
them after the walkthrough's 11, which stay as they were. Checked here: the join (order, uids, numbers), the
wording in zh and en at the smallest and largest settings, right and wrong answers through the page, quiz_q, the
"see it" links.
"""

import pytest
from conftest import run_app

import i18n
from lessons import kv_cache as KV
from lessons import positions as POS
from lessons import quiz as Q
from lessons import scenario
from lessons import softmax as SM
from lessons.settings import D_MODEL_CHOICES, SEQ_LEN_MAX, SEQ_LEN_MIN, Settings, head_choices
from ui.words import in_language

pytestmark = pytest.mark.usefixtures("one_torch_thread")

SMALLEST = Settings(D_MODEL_CHOICES[0], 1, SEQ_LEN_MIN, "causal", 3, "zh")
LARGEST = Settings(D_MODEL_CHOICES[-1], head_choices(D_MODEL_CHOICES[-1])[-1], SEQ_LEN_MAX, "padding", 99_999, "en")
DEFAULT = Settings(64, 4, 8, "none", 0, "en")
N_CORE, N_KV, N_SOFTMAX, N_POS = 11, 3, 6, 8
PAGE_OF = {
    "kv_cache": ("kv-cache", "kv_tab"),
    "softmax": ("softmax", "soft_tab"),
    "positions": ("positions", "pos_tab"),
}


def full_set(s: Settings):
    run = scenario.run(s)
    return run, Q.quiz_set(run)


def lesson_questions(s: Settings):
    return full_set(s)[1][N_CORE:]


def raw_answer(q):
    """What a student who knows the answer types or picks."""
    if q.answer_type == "choice":
        return q.answer
    if q.source == "kv_cache":
        return {
            "shape": lambda: "×".join(map(str, q.answer)),
            "int": lambda: f"{q.answer:,}",
            "cells": lambda: list(q.answer),
        }[q.answer_type]()
    return q.item.accepted[0]


def wrong_answer(q):
    if q.answer_type == "choice":
        return next(o for o in q.options if o != q.answer)
    if q.answer_type == "shape":
        return ",".join(str(n + 1) for n in q.answer)
    if q.answer_type == "cells":
        return [j for j in q.options if j not in q.answer]
    if q.answer_type == "order":
        return "d_k, √d_k, 1"
    if q.answer_type == "number":
        return str(round(float(q.answer) + 0.5, 3))
    return str(int(q.answer) + 1)  # int, bytes


def answer_on_page(at, q, raw):
    key = f"quiz_in_{q.uid}"
    if q.answer_type == "choice":
        at.radio(key=key).set_value(raw)
    elif q.answer_type == "cells":
        at.button_group(key=key).set_value(list(raw))
    else:
        at.text_input(key=key).set_value(raw)
    next(b for b in at.button if b.key and b.key.startswith("FormSubmitter:")).click().run()


def card_texts(at):
    return " ".join(m.value for m in at.markdown)


def page_at(s: Settings, n: int):
    """The Quiz page opened on question n (1-based) by its link."""
    return run_app(
        "quiz",
        lang=s.lang,
        d_model=s.d_model,
        num_heads=s.num_heads,
        seq_len=s.seq_len,
        mask=s.mask,
        seed=s.seed,
        quiz_q=n,
    )


# ------------------------------------------------------------------ the join


@pytest.mark.parametrize("s", [SMALLEST, LARGEST, DEFAULT], ids=["smallest", "largest", "default"])
def test_the_lesson_questions_come_after_the_unchanged_eleven_grouped_by_page(s):
    run, questions = full_set(s)
    core = Q.build_quiz(run)
    assert questions[:N_CORE] == core and len(core) == N_CORE  # the walkthrough's: same order, uids, numbers
    assert [q.source for q in questions] == ["walkthrough"] * N_CORE + ["kv_cache"] * N_KV + ["softmax"] * N_SOFTMAX + [
        "positions"
    ] * N_POS
    assert [q.index for q in questions] == list(range(len(questions)))
    assert len({q.uid for q in questions}) == len(questions)  # every recorded answer has its own key
    new = questions[N_CORE:]
    # each is the lesson's own question, its answer the lesson's
    kv = KV.quiz_questions(s, KV.default_kv_heads(s.num_heads))
    sm = SM.quiz_questions(s, run)
    pos = POS.quiz_items(s, POS.parse_url({}, s), run)
    assert [q.answer for q in new] == [i.answer for i in (*kv, *sm, *pos)]
    assert [q.kind for q in new] == [i.key for i in kv] + [f"softmax.{i.kind}" for i in sm] + [i.key for i in pos]


def test_the_intro_names_the_pages_the_new_questions_come_from():
    for lang in i18n.LANGS:
        intro = i18n.t("quiz.intro", lang)
        for page in ("page.kv-cache", "page.softmax", "page.positions"):
            assert i18n.t(page, lang) in intro, (lang, page)


@pytest.mark.parametrize("s", [SMALLEST, LARGEST], ids=["smallest", "largest"])
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_every_lesson_question_is_worded_with_its_numbers(s, lang):
    for q in lesson_questions(s):
        prompt, why, answer, hint = (
            in_language(Q.prompt_text(q), lang),
            in_language(Q.why_text(q), lang),
            in_language(Q.answer_text(q), lang),
            in_language(Q.hint_text(q), lang),
        )
        assert prompt and why and answer and hint and prompt != why
        assert "{" not in prompt + why + answer + hint, q.kind
        if lang == "zh":  # the Chinese text is Chinese, not the English one
            assert prompt != in_language(Q.prompt_text(q), "en") and hint != in_language(Q.hint_text(q), "en")
        if q.answer_type in ("int", "bytes") and q.source != "positions":
            assert str(q.answer) in answer.replace(",", ""), (q.kind, answer)
        if q.answer_type == "shape":
            assert ", ".join(map(str, q.answer)) in answer and str(q.facts["t"]) in prompt
        if q.answer_type == "number":
            assert (
                abs(float(answer) - float(q.answer)) <= max(q.item.params.get("slack", 0), 1e-4)
                if q.source == "softmax"
                else abs(float(answer) - q.answer) < 1e-4
            )
        for option in q.options if q.answer_type in ("choice", "cells") else ():  # the widgets' labels
            assert in_language(Q.option_text(q, option), lang)
    kv_share = next(q for q in lesson_questions(s) if q.kind == "kv.shared_heads")
    assert in_language(Q.option_text(kv_share, 0), lang) == i18n.t(
        "quiz.head", lang, j=0
    )  # query heads, not key positions


@pytest.mark.parametrize("s", [SMALLEST, LARGEST, DEFAULT], ids=["smallest", "largest", "default"])
def test_each_see_it_link_opens_its_page_and_section(s):
    for q in lesson_questions(s):
        link = Q.see_it_link(q, s)
        page, tab_key = PAGE_OF[q.source]
        assert link.page == f"pages/{page}.py"
        assert link.params[tab_key] == q.section
        assert {
            k: link.params[k] for k in ("d_model", "num_heads", "seq_len", "mask", "seed", "lang")
        } == Q.settings_params(s)
        assert i18n.t(f"page.{page}", s.lang) in in_language(link.label, s.lang)
    sections = {q.kind: q.section for q in lesson_questions(s)}
    assert sections == {
        "kv.cache_shape": "decode",
        "kv.preset_bytes": "memory",
        "kv.shared_heads": "sharing",
        "softmax.causal_skipped": "tiles",
        "softmax.tile_count": "tiles",
        "softmax.entropy_order": "scale",
        "softmax.overflow_threshold": "max",
        "softmax.dot_variance": "scale",
        "softmax.score_bytes": "tiles",
        "pos.q.shuffled_row": "shuffle",
        "pos.q.gap_free": "shuffle",
        "pos.q.gap_causal": "shuffle",
        "pos.q.front_self": "shuffle",
        "pos.q.rope_diagonal": "rope",
        "pos.q.rope_angle": "rope",
        "pos.q.rope_odd": "rope",
        "pos.q.sinusoid": "add",
    }
    shape_q = next(q for q in lesson_questions(s) if q.kind == "kv.cache_shape")
    assert Q.see_it_link(shape_q, s).params["kv_heads"] == str(shape_q.facts["h_kv"])  # the same cache


@pytest.mark.parametrize("s", [SMALLEST, LARGEST, DEFAULT], ids=["smallest", "largest", "default"])
def test_right_and_wrong_answers_are_graded_by_the_lesson(s):
    for q in lesson_questions(s):
        right, wrong = Q.parse_answer(q, raw_answer(q)), Q.parse_answer(q, wrong_answer(q))
        assert right.ok and Q.is_correct(q, right.value), q.kind
        assert wrong.ok and not Q.is_correct(q, wrong.value), (q.kind, wrong_answer(q))
        if q.source == "softmax":  # the lesson's own grader decides
            assert (
                SM.check_answer(q.item, raw_answer(q)).correct and not SM.check_answer(q.item, wrong_answer(q)).correct
            )
        if q.source == "positions":
            assert POS.accepts(q.item, raw_answer(q)) and not POS.accepts(q.item, wrong_answer(q))


# ------------------------------------------------------------------ through the page (AppTest)


@pytest.mark.app
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_wrong_answer_to_each_lesson_question_is_marked_wrong_on_the_page(lang):
    s = Settings(64, 4, 8, "none", 0, lang)
    questions = full_set(s)[1]
    for n in range(N_CORE + 1, len(questions) + 1):  # quiz_q reaches every new question
        q = questions[n - 1]
        at = page_at(s, n)
        assert not at.exception and not at.warning
        assert f"**{n}.** " + in_language(Q.prompt_text(q), lang) in card_texts(at)
        assert at.main.get("progress")[0].proto.text == i18n.t("quiz.progress", lang, n=n, total=28)
        answer_on_page(at, q, wrong_answer(q))
        assert not at.exception, at.exception
        given = in_language(Q.format_value(q, Q.parse_answer(q, wrong_answer(q)).value), lang)
        assert at.error[0].value.startswith(i18n.t("quiz.wrong", lang, given=given)), q.kind
        assert not at.success and at.metric[0].value == "0 / 1"
        assert f"{i18n.t('quiz.answer', lang, answer=in_language(Q.answer_text(q), lang))}" in card_texts(at)
        link = at.get("page_link")[0].proto
        page, tab_key = PAGE_OF[q.source]
        assert (
            link.page == page and f"{tab_key}={q.section}" in link.query_string and f"lang={lang}" in link.query_string
        )


@pytest.mark.app
def test_a_right_answer_to_a_lesson_question_is_marked_right_and_counts():
    s = DEFAULT
    questions = full_set(s)[1]
    for n in (N_CORE + 1, N_CORE + N_KV + 3, len(questions)):  # a KV shape, the softmax order, the last one
        q = questions[n - 1]
        at = page_at(s, n)
        answer_on_page(at, q, raw_answer(q))
        assert at.success and at.success[0].value.startswith("Right!") and at.metric[0].value == "1 / 1"
        assert in_language(Q.why_text(q), "en") in card_texts(at)
    assert at.info and at.info[0].value == i18n.t("quiz.done", "en", answered=1, right=1)  # the last question


@pytest.mark.app
def test_the_kv_cache_mistake_of_counting_query_heads_is_named_on_the_page():
    s = DEFAULT  # h = 4, the page's GQA h_kv = 2
    questions = full_set(s)[1]
    n = next(i for i, q in enumerate(questions) if q.kind == "kv.cache_shape") + 1
    q = questions[n - 1]
    wrong = (1, s.num_heads) + q.answer[2:]
    assert Q.mistake_of(q, wrong) == "kv_query_heads"
    at = page_at(s, n)
    answer_on_page(at, q, str(wrong))
    assert i18n.t("quiz.mistake.kv_query_heads", "en", **q.facts) in at.error[0].value
    assert "h = 4" in at.error[0].value and "h_kv = 2" in at.error[0].value


@pytest.mark.app
def test_an_unreadable_order_is_refused_and_not_counted():
    s = DEFAULT
    questions = full_set(s)[1]
    n = next(i for i, q in enumerate(questions) if q.kind == "softmax.entropy_order") + 1
    at = page_at(s, n)
    answer_on_page(at, questions[n - 1], "hello")
    assert at.warning[0].value == i18n.t("quiz.not_counted", "en") + i18n.t("quiz.err.not_order", "en")
    assert at.metric[0].value == "0 / 0" and not at.error and not at.success
    answer_on_page(at, questions[n - 1], "1 < √d_k < d_k")  # still open: now right
    assert at.metric[0].value == "1 / 1"
