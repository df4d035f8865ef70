"""Predict, then reveal: the answers come from the core and are right; seeds fix the set; bad answers are refused.

Every answer is checked against something computed independently here: the traced tensors' shapes,
nn.Linear's own parameter counts, core.masks' builders, Python's integer division.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch
import torch.nn as nn
from conftest import run_app

import i18n
from core.accounting import tensor_shapes
from core.attention import MultiHeadAttention, build_model
from core.masks import causal_mask, padding_mask_from_lengths
from lessons import quiz as Q
from lessons import scenario
from lessons.settings import D_MODEL_CHOICES, SEQ_LEN_MAX, SEQ_LEN_MIN, Settings, head_choices
from lessons.walkthrough import STEP_BY_NAME, STEP_NAMES
from ui.words import in_language

pytestmark = pytest.mark.usefixtures("one_torch_thread")
ROOT = Path(__file__).resolve().parent.parent

SETTINGS = [
    Settings(64, 4, 8, "none", 0, "en"),
    Settings(D_MODEL_CHOICES[0], 1, SEQ_LEN_MIN, "causal", 3, "zh"),  # smallest
    Settings(D_MODEL_CHOICES[-1], head_choices(D_MODEL_CHOICES[-1])[-1], SEQ_LEN_MAX, "padding", 99_999, "en"),
    Settings(32, 8, 5, "causal", 17, "en"),
    Settings(128, 2, 12, "padding", 42, "zh"),
    Settings(16, 16, 3, "none", 7, "en"),
]
IDS = [f"d{s.d_model}-h{s.num_heads}-T{s.seq_len}-{s.mask}-seed{s.seed}" for s in SETTINGS]


def quiz_for(s: Settings, custom_text=None):
    run = scenario.run(s, custom_text=custom_text)
    return run, Q.build_quiz(run, custom_text=custom_text)


def full_set(s: Settings, custom_text=None):
    """The Quiz page's whole set: these 11, then the lesson pages' questions (tests/test_quiz_lessons.py)."""
    return Q.quiz_set(scenario.run(s, custom_text=custom_text), custom_text=custom_text)


def linear_params(n_in: int, n_out: int) -> int:
    return sum(p.numel() for p in nn.Linear(n_in, n_out).parameters())


def signature(questions):
    return [(q.kind, q.answer_type, q.answer, q.step, tuple(sorted(q.facts.items())), q.options) for q in questions]


# ------------------------------------------------------------------ the answers are right


@pytest.mark.parametrize("s", SETTINGS, ids=IDS)
def test_every_answer_matches_an_independent_computation(s):
    run, questions = quiz_for(s)
    assert [q.kind for q in questions].count("shape") == 3
    assert sorted(q.kind for q in questions) == sorted(Q.PLAN)
    T, d, h = s.seq_len, s.d_model, s.num_heads
    shapes = tensor_shapes(1, T, T, d, h)
    for q in questions:
        assert q.step in STEP_NAMES
        if q.kind == "shape":
            name = q.facts["tensor"]
            assert q.answer == tuple(getattr(run.trace, name).shape) == shapes[name].sizes
            assert name in STEP_BY_NAME[q.step].fields
        elif q.kind == "params":
            one = linear_params(d, d)
            want = {"W_q": one, "W_k": one, "W_v": one, "W_o": one, "all": 4 * one, "head": linear_params(d, d // h)}[
                q.facts["target"]
            ]  # head 0's slice is a Linear(d, d_k)
            assert q.answer == want
        elif q.kind == "d_k":
            pd, ph = q.facts["d_model"], q.facts["h"]
            assert q.answer == (pd // ph if pd % ph == 0 else None)
        elif q.kind == "heads_change":
            h2 = q.facts["h2"]
            assert h2 in head_choices(d) and h2 in (2 * h, h // 2)
            counts = [sum(p.numel() for p in build_model(d, hh, 0).parameters()) for hh in (h, h2)]
            assert q.answer == "same" and counts[0] == counts[1] == q.facts["before"] == q.facts["after"]
        elif q.kind == "mask_row":
            i, kind = q.facts["i"], q.facts["mask"]
            assert kind == (s.mask if s.mask != "none" else kind) and kind in ("causal", "padding")
            keep = (
                causal_mask(T)[0, 0]
                if kind == "causal"
                else padding_mask_from_lengths([scenario.padding_length(T)], T)[0, 0].expand(T, T)
            )
            assert q.answer == tuple(j for j in range(T) if not keep[i, j])
            assert q.answer, "a row with something blocked is asked when there is one"
            assert q.options == tuple(range(T)) and q.facts["token"] == run.tokens[i]
        elif q.kind == "mask_count":
            kind = q.facts["mask"]
            if kind == "causal":
                assert q.answer == int((~causal_mask(T)).sum()) == T * (T - 1) // 2
            else:
                assert q.answer == T * (T - scenario.padding_length(T))
        elif q.kind == "row_sum":
            row = run.trace.weights[0, q.facts["head"], q.facts["i"]]
            assert q.answer == float(row.sum())
            assert torch.allclose(torch.tensor(q.answer), torch.tensor(1.0), atol=1e-5)
            assert Q.is_correct(q, 1.0)


def test_shape_questions_cover_every_traced_tensor_over_seeds():
    s = Settings(64, 8, 6, "causal", 0, "en")
    run = scenario.run(s)
    seen = set()
    for seed in range(60):
        questions = Q.build_quiz(scenario.run(Settings(64, 8, 6, "causal", seed, "en")))
        for q in questions:
            if q.kind == "shape":
                seen.add(q.facts["tensor"])
                assert q.answer == tuple(getattr(run.trace, q.facts["tensor"]).shape)
    assert seen == set(Q.SHAPE_WHY)


@pytest.mark.parametrize(
    "d_model,h,d_k",
    [
        (384, 12, 32),
        (768, 12, 64),
        (512, 8, 64),
        (96, 3, 32),
        (300, 5, 60),
        (384, 7, None),
        (100, 3, None),
        (512, 6, None),
        (128, 12, None),
    ],
)
def test_d_k_comes_from_the_class_itself(d_model, h, d_k):
    assert Q.head_width(d_model, h) == d_k
    if d_k is None:
        with pytest.raises(ValueError):
            MultiHeadAttention(d_model, h)
    else:
        assert MultiHeadAttention(d_model, h).d_k == d_k


def test_the_d_k_pools_hold_what_they_say():
    assert all(d % h == 0 for d, h in Q.D_K_FITS) and all(d % h for d, h in Q.D_K_MISFITS)
    assert (384, 12) in Q.D_K_FITS


def test_building_a_quiz_draws_no_global_random_numbers():
    """The meta-device models of the d_k and heads questions must not move torch's global generator."""
    run = scenario.run(Settings(64, 4, 8, "none", 0, "en"))
    torch.manual_seed(123)
    before = torch.rand(3)
    torch.manual_seed(123)
    Q.build_quiz(run)
    assert torch.equal(torch.rand(3), before)


def test_a_custom_mask_question_reads_the_drawn_grid():
    grid = "1000.1100.1010.0001"  # row 2 blocks keys 1 and 3
    s = Settings(16, 2, 4, "custom", 5, "en")
    _, questions = quiz_for(s, custom_text=grid)
    row = next(q for q in questions if q.kind == "mask_row")
    want = tuple(j for j in range(4) if grid.split(".")[row.facts["i"]][j] == "0")
    assert row.facts["mask"] == "custom" and row.answer == want
    count = next(q for q in questions if q.kind == "mask_count")
    assert count.answer == grid.count("0")
    other_grid = Q.build_quiz(scenario.run(s, custom_text="1111.1111.1111.1110"), custom_text="1111.1111.1111.1110")
    assert other_grid[0].uid != questions[0].uid  # a new grid is a new question: old answers do not carry over


# ------------------------------------------------------------------ seeds fix the set


def test_the_same_seed_gives_the_same_set_and_another_seed_another():
    s = Settings(64, 4, 8, "none", 11, "en")
    assert signature(quiz_for(s)[1]) == signature(quiz_for(s)[1])
    sets = {str(signature(quiz_for(Settings(64, 4, 8, "none", seed, "en"))[1])) for seed in range(30)}
    assert len(sets) == 30
    orders = {tuple(q.kind for q in quiz_for(Settings(64, 4, 8, "none", seed, "en"))[1]) for seed in range(30)}
    assert len(orders) > 20  # the order changes too, not only the numbers


def test_both_languages_get_the_same_questions():
    en = quiz_for(Settings(64, 4, 8, "causal", 9, "en"))[1]
    zh = quiz_for(Settings(64, 4, 8, "causal", 9, "zh"))[1]

    def strip(qs):
        return [(q.uid, q.kind, q.answer, {k: v for k, v in q.facts.items() if k != "token"}) for q in qs]

    assert strip(en) == strip(zh)


def test_the_set_is_the_same_in_another_process():
    """A class is many processes and machines: the set must not depend on hash randomisation."""
    code = (
        "from lessons import scenario; from lessons import quiz; from lessons.settings import Settings; "
        "print([(q.kind, q.answer) for q in quiz.build_quiz(scenario.run(Settings(64, 4, 8, 'none', 31, 'en')))])"
    )
    outs = {
        subprocess.run(
            [sys.executable, "-c", code],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
        ).stdout
        for seed in ("1", "2")
    }
    here = str([(q.kind, q.answer) for q in quiz_for(Settings(64, 4, 8, "none", 31, "en"))[1]])
    assert outs == {here + "\n"}


# ------------------------------------------------------------------ reading answers


@pytest.mark.parametrize(
    "text",
    [
        "(1, 4, 8, 8)",
        "1,4,8,8",
        "1×4×8×8",
        "1 x 4 x 8 x 8",
        "[1, 4, 8, 8]",
        "torch.Size([1, 4, 8, 8])",
        "（1，4，8，8）",
        "1 4 8 8",
        " 1*4*8*8 ",
        "1、4、8、8",
    ],
)
def test_shapes_parse_in_every_usual_form(text):
    assert Q.parse_shape(text).value == (1, 4, 8, 8)


@pytest.mark.parametrize(
    "text,error",
    [
        ("abc", "not_shape"),
        ("", "empty"),
        ("   ", "empty"),
        (None, "empty"),
        ("1" * 10_000, "too_long"),
        ("(1, 4, 8.5)", "not_shape"),
        ("(1, 0, 8)", "size_zero"),
        ("(1, -4, 8)", "size_zero"),
        (",".join(["2"] * 9), "too_many_dims"),
        ("(1, 99999999999999)", "too_big"),
        ("()", "not_shape"),
        ("1,,4", "not_shape"),
    ],
)
def test_bad_shapes_are_refused_with_a_reason(text, error):
    parsed = Q.parse_shape(text)
    assert not parsed.ok and parsed.error == error
    assert i18n.t(f"quiz.err.{error}", "zh", **parsed.args) and in_language(Q.error_text(parsed), "en")


@pytest.mark.parametrize(
    "text,value",
    [
        ("16640", 16640),
        ("16,640", 16640),
        ("16 640", 16640),
        ("16_640", 16640),
        ("１６６４０", 16640),
        ("1.664e4", 16640),
        ("+12", 12),
        ("0", 0),
        ("12.0", 12),
    ],
)
def test_whole_numbers_parse(text, value):
    assert Q.parse_int(text).value == value


@pytest.mark.parametrize(
    "text,error",
    [
        ("abc", "not_number"),
        ("", "empty"),
        ("2.5", "not_whole"),
        ("-3", "negative"),
        ("1e400", "too_big"),
        ("9" * 30, "too_big"),
        ("nan", "too_big"),
        ("inf", "too_big"),
        ("1" * 10_000, "too_long"),
        ("1,2,3", "not_number"),
    ],
)
def test_bad_numbers_are_refused_with_a_reason(text, error):
    assert Q.parse_int(text).error == error


@pytest.mark.parametrize("text", ["no", "No", "not allowed", "不允许", "不行", "none", "invalid", "x"])
def test_d_k_accepts_not_allowed_words(text):
    assert Q.parse_d_k(text).ok and Q.parse_d_k(text).value is None


def test_d_k_parsing():
    assert Q.parse_d_k("32").value == 32
    assert Q.parse_d_k("maybe").error == "not_d_k"
    assert Q.parse_d_k("").error == "empty"
    assert Q.parse_d_k("2.5").error == "not_whole"


def test_real_numbers_choices_and_cells():
    assert Q.parse_real("1").value == 1.0 and Q.parse_real("100%").value == 1.0 and Q.parse_real("0.5").value == 0.5
    assert Q.parse_real("one").error == "not_number"
    assert Q.parse_choice("same", Q.CHANGES).value == "same" and Q.parse_choice(None, Q.CHANGES).error == "pick_one"
    assert Q.parse_choice("<script>", Q.CHANGES).error == "pick_one"
    assert Q.parse_cells([3, 1, 3], range(4)).value == (1, 3)
    assert Q.parse_cells(None, range(4)).value == () and Q.parse_cells([], range(4)).value == ()
    assert Q.parse_cells([7], range(4)).error == "bad_cells" and Q.parse_cells(["1"], range(4)).error == "bad_cells"


@pytest.mark.parametrize("s", SETTINGS[:3], ids=IDS[:3])
def test_right_answers_score_and_wrong_ones_do_not(s):
    _, questions = quiz_for(s)
    for q in questions:
        right = Q.parse_answer(q, raw_answer(q, s.lang))
        assert right.ok and Q.is_correct(q, right.value), q
        wrong = Q.parse_answer(q, wrong_answer(q))
        assert wrong.ok and not Q.is_correct(q, wrong.value), q


def raw_answer(q, lang="en"):
    """What a student who knows the answer types (or picks)."""
    if q.source in ("softmax", "positions") and q.answer_type != "choice":
        return q.item.accepted[0]  # the lesson's own canonical form
    if q.answer_type == "shape":
        return "×".join(map(str, q.answer))
    if q.answer_type == "d_k":
        return {"en": "no", "zh": "不允许"}[lang] if q.answer is None else str(q.answer)
    if q.answer_type == "int":
        return f"{q.answer:,}"
    if q.answer_type == "number":
        return "1"
    return q.answer  # choice, cells: the widget's value


def wrong_answer(q):
    if q.answer_type == "shape":
        return ",".join(str(n + 1) for n in q.answer)
    if q.answer_type in ("int", "d_k"):
        return "7" if q.answer is None else str(q.answer + 1)
    if q.answer_type == "number":
        return "0.5"
    if q.answer_type == "choice":
        return "more"
    return tuple(j for j in q.options if j not in q.answer)


# ------------------------------------------------------------------ texts and links


@pytest.mark.parametrize("s", SETTINGS, ids=IDS)
def test_every_text_renders_in_both_languages_with_the_numbers(s):
    _, questions = quiz_for(s)
    for q in questions:
        for lang in i18n.LANGS:
            prompt, why, answer = (
                in_language(Q.prompt_text(q), lang),
                in_language(Q.why_text(q), lang),
                in_language(Q.answer_text(q), lang),
            )
            assert prompt and why and answer and in_language(Q.hint_text(q), lang)
            if q.kind == "shape":
                assert q.facts["tensor"] in prompt and str(q.answer[-1]) in answer
            if q.kind in ("d_k", "shape", "params"):
                assert str(q.facts["d_model"]) in prompt
            if q.kind == "mask_count":
                assert str(q.answer) in why
            if q.kind == "heads_change":
                assert f"{q.facts['before']:,}" in why


def test_walkthrough_link_keeps_the_shared_settings():
    s = Settings(128, 8, 12, "causal", 4242, "zh")
    params = Q.walk_link_params(s, "softmax")
    assert params == {
        "d_model": "128",
        "num_heads": "8",
        "seq_len": "12",
        "mask": "causal",
        "seed": "4242",
        "lang": "zh",
        "walk_view": "step",
        "walk_step": "softmax",
    }


def test_score_counts_right_and_answered():
    records = {"a": Q.Record(1, True), "b": Q.Record(2, False), "c": Q.Record(3, True)}
    assert Q.score(records) == (2, 3) and Q.score({}) == (0, 0)


# ------------------------------------------------------------------ the page (AppTest)


def card_texts(at):
    return " ".join(m.value for m in at.markdown)


def answer_on_page(at, q, raw):
    key = f"quiz_in_{q.uid}"
    if q.answer_type == "choice":
        at.radio(key=key).set_value(raw)
    elif q.answer_type == "cells":
        at.button_group(key=key).set_value(list(raw))
    else:
        at.text_input(key=key).set_value(raw)  # as the browser sends it (its box stops at 101 characters)
    next(b for b in at.button if b.key and b.key.startswith("FormSubmitter:")).click().run()


def score_of(at):
    return at.metric[0].value


@pytest.mark.app
@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize(
    "params",
    [
        dict(d_model=8, num_heads=1, seq_len=2, mask="causal", seed=3),
        dict(d_model=512, num_heads=64, seq_len=32, mask="padding", seed=99999),
    ],
    ids=["smallest", "largest"],
)
def test_the_page_answers_every_question_right(lang, params):
    at = run_app("quiz", lang=lang, **params)
    assert not at.exception, at.exception
    assert at.title[0].value == i18n.t("page.quiz", lang)
    s = Settings(lang=lang, **params)
    questions = full_set(s)
    assert signature(questions[: len(Q.PLAN)]) == signature(quiz_for(s)[1])  # the walkthrough's 11 come first
    for n, q in enumerate(questions):
        assert in_language(Q.prompt_text(q), lang) in card_texts(at)
        raw = raw_answer(q, lang)
        answer_on_page(at, q, raw)
        assert not at.exception, at.exception
        given = in_language(Q.format_value(q, Q.parse_answer(q, raw).value), lang)
        assert [m.value for m in at.success][0] == i18n.t("quiz.right", lang, given=given)
        assert in_language(Q.why_text(q), lang) in card_texts(at)
        link = at.get("page_link")[0].proto
        if q.source == "walkthrough":
            assert link.page == "walkthrough" and f"walk_step={q.step}" in link.query_string
        else:  # tests/test_quiz_lessons.py checks the page and section of each
            assert link.page == Q.lesson_source(q).page[len("pages/") : -len(".py")]
        for key in ("d_model", "num_heads", "seq_len", "mask", "seed", "lang"):
            assert f"{key}={params.get(key, lang) if key != 'lang' else lang}" in link.query_string
        assert score_of(at) == f"{n + 1} / {n + 1}"
        if n < len(questions) - 1:
            at.button(key="quiz_next").click().run()
    assert at.info and i18n.t("quiz.done", lang, answered=len(questions), right=len(questions)) == at.info[0].value


@pytest.mark.app
def test_a_wrong_answer_reveals_and_counts():
    at = run_app("quiz", lang="en", seed=5)
    q = quiz_for(Settings(64, 4, 8, "none", 5, "en"))[1][0]
    answer_on_page(at, q, wrong_answer(q))
    assert at.error and at.error[0].value.startswith("Not quite.")
    assert f"Right answer: {in_language(Q.answer_text(q), 'en')}" in card_texts(at)
    assert score_of(at) == "0 / 1"
    at.button(key="quiz_next").click().run()
    assert score_of(at) == "0 / 1" and not at.error  # the next question waits for its answer


@pytest.mark.app
@pytest.mark.parametrize(
    "bad,error",
    [("abc", "not_number"), ("", "empty"), ("9" * 10_000, "too_long"), ("1e999", "too_big"), ("-5", "negative")],
)
def test_bad_answers_get_a_message_and_do_not_count(bad, error):
    s = Settings(64, 4, 8, "none", 0, "en")
    questions = quiz_for(s)[1]
    n = next(i for i, q in enumerate(questions) if q.answer_type == "int")
    at = run_app("quiz", lang="en", seed=0)
    for _ in range(n):
        at.button(key="quiz_next").click().run()
    q = questions[n]
    answer_on_page(at, q, bad)
    assert not at.exception, at.exception
    assert at.warning[0].value == i18n.t("quiz.not_counted", "en") + i18n.t(
        f"quiz.err.{error}", "en", **Q.parse_int(bad).args
    )
    assert score_of(at) == "0 / 0" and not at.success and not at.error
    answer_on_page(at, q, raw_answer(q))  # the question is still open
    assert score_of(at) == "1 / 1" and not at.warning


@pytest.mark.app
def test_a_bad_shape_answer_in_chinese():
    s = Settings(64, 4, 8, "none", 0, "zh")
    questions = quiz_for(s)[1]
    n = next(i for i, q in enumerate(questions) if q.answer_type == "shape")
    at = run_app("quiz", lang="zh", seed=0)
    for _ in range(n):
        at.button(key="quiz_next").click().run()
    answer_on_page(at, questions[n], "一二三")
    assert at.warning[0].value == i18n.t("quiz.not_counted", "zh") + i18n.t("quiz.err.not_shape", "zh")
    assert score_of(at) == "0 / 0"


@pytest.mark.app
def test_only_the_first_answer_counts_and_reset_clears_the_score():
    at = run_app("quiz", lang="en", seed=2)
    q = quiz_for(Settings(64, 4, 8, "none", 2, "en"))[1][0]
    answer_on_page(at, q, wrong_answer(q))
    assert score_of(at) == "0 / 1"
    assert not [b for b in at.button if b.key and b.key.startswith("FormSubmitter:")]  # no second try
    at.button(key="quiz_next").click().run()
    at.button(key="quiz_prev").click().run()
    assert at.error and score_of(at) == "0 / 1"  # back on question 1: still revealed, still wrong
    at.button(key="quiz_reset").click().run()
    assert score_of(at) == "0 / 0" and not at.error
    answer_on_page(at, q, raw_answer(q))
    assert score_of(at) == "1 / 1"


@pytest.mark.app
def test_the_home_page_lists_the_quiz():
    at = run_app(lang="en")
    links = [e.proto.label for e in at.get("page_link")]
    assert any(i18n.t("page.quiz", "en") in label for label in links)


@pytest.mark.app
def test_a_new_seed_mid_quiz_gives_the_new_set_and_keeps_the_session_score():
    at = run_app("quiz", lang="en", seed=0)
    q0 = quiz_for(Settings(64, 4, 8, "none", 0, "en"))[1][0]
    answer_on_page(at, q0, raw_answer(q0))
    assert score_of(at) == "1 / 1"
    at.sidebar.number_input(key="seed").set_value(1).run()
    q1 = quiz_for(Settings(64, 4, 8, "none", 1, "en"))[1][0]
    assert not at.exception and in_language(Q.prompt_text(q1), "en") in card_texts(at)
    assert [b for b in at.button if b.key and b.key.startswith("FormSubmitter:")]  # open, not revealed
    assert score_of(at) == "1 / 1"


# ------------------------------------------------------------------ known mistakes are named (issue 20)


def test_known_shape_mistakes_are_named():
    s = Settings(64, 4, 8, "none", 0, "en")  # d_k = 16
    assert Q.shape_mistakes("q_heads", (1, 4, 8, 16), 64, 16) == (
        ((1, 8, 16), "no_head_axis"),
        ((1, 4, 8, 64), "d_model_for_d_k"),
        ((1, 8, 64), "before_split"),
    )
    assert Q.shape_mistakes("weights", (1, 4, 8, 8), 64, 16) == (((1, 8, 8), "no_head_axis"),)
    assert Q.shape_mistakes("concat", (1, 8, 64), 64, 16) == (((1, 8, 16), "d_k_for_d_model"),)
    assert Q.shape_mistakes("q", (1, 8, 8), 8, 8) == ()  # h = 1: d_k = d_model, nothing to tell apart
    # every set's shape questions carry theirs, read from the real tensors
    run, questions = quiz_for(s)
    for q in questions:
        if q.kind == "shape" and q.facts["tensor"] in ("q_heads", "k_heads", "v_heads", "head_outputs"):
            shape = tuple(getattr(run.trace, q.facts["tensor"]).shape)
            assert Q.mistake_of(q, shape[:1] + shape[2:]) == "no_head_axis"


def test_a_forgotten_bias_and_d_model_for_d_k_are_named():
    d, h = 64, 4
    one = linear_params(d, d)  # 4,160 with the bias
    assert Q.params_mistakes(one, d * d, d, d, d // h, "W_q") == ((4096, "no_bias"),)
    assert Q.params_mistakes(4 * one, 4 * d * d, 4 * d, d, 16, "all") == ((16384, "no_bias"), (4160, "one_layer"))
    assert Q.params_mistakes(linear_params(d, 16), d * 16, 16, d, 16, "head") == (
        (1024, "no_bias"),
        (4160, "d_model_for_d_k"),
        (4096, "d_model_for_d_k"),
    )
    assert Q.d_k_mistakes(768, 12, 64) == ((768, "d_model_for_d_k"), (9216, "times_h"))
    assert Q.d_k_mistakes(100, 3, None) == ((100, "d_model_for_d_k"), (300, "times_h"), (33, "rounded"))
    # the counts the questions carry are the real layers' weights without their bias
    for seed in range(6):
        run, questions = quiz_for(Settings(64, 4, 8, "none", seed, "en"))
        for q in questions:
            if q.kind == "params" and q.facts["target"] != "head":
                layers = (
                    [run.model.W_q, run.model.W_k, run.model.W_v, run.model.W_o]
                    if q.facts["target"] == "all"
                    else [getattr(run.model, q.facts["target"])]
                )
                assert Q.mistake_of(q, sum(m.weight.numel() for m in layers)) == "no_bias"
                assert Q.mistake_of(q, q.answer) is None


@pytest.mark.app
def test_the_page_names_the_mistake_of_a_shape_without_its_head_axis():
    for seed in range(20):  # a seed whose first question is a per-head shape
        q = quiz_for(Settings(64, 4, 8, "none", seed, "en"))[1][0]
        if q.kind == "shape" and len(q.answer) == 4:
            break
    at = run_app("quiz", lang="en", seed=seed)
    answer_on_page(at, q, "(" + ", ".join(str(n) for n in q.answer[:1] + q.answer[2:]) + ")")
    text = at.error[0].value
    assert text.startswith("Not quite.") and i18n.t("quiz.mistake.no_head_axis", "en", h=4) in text
    assert "h = 4" in text


def test_the_intro_says_the_d_k_questions_use_other_models():
    assert "768" in i18n.t("quiz.intro", "en") and "d_k" in i18n.t("quiz.intro", "en")
    assert "d_k" in i18n.t("quiz.intro", "zh") and "别的模型" in i18n.t("quiz.intro", "zh")


@pytest.mark.app
def test_the_question_number_is_in_the_url():
    s = Settings(64, 4, 8, "none", 0, "en")
    questions = full_set(s)
    at = run_app("quiz", lang="en", seed=0, quiz_q=5)
    assert not at.exception and not at.warning
    assert in_language(Q.prompt_text(questions[4]), "en") in card_texts(at)
    assert at.main.get("progress")[0].proto.text == f"Question 5 of {len(questions)}" == "Question 5 of 28"
    at.button(key="quiz_next").click().run()
    assert at.query_params["quiz_q"] == "6" and in_language(Q.prompt_text(questions[5]), "en") in card_texts(at)
    at.button(key="quiz_prev").click().run()
    at.button(key="quiz_prev").click().run()
    assert at.query_params["quiz_q"] == "4"


@pytest.mark.app
@pytest.mark.parametrize("given,used", [("99", 28), ("0", 1), ("abc", 1), ("-3", 1), ("1e400", 1), ("５", 5)])
def test_a_bad_question_number_gets_a_notice(given, used):
    at = run_app("quiz", lang="en", seed=0, quiz_q=given)
    assert not at.exception
    questions = full_set(Settings(64, 4, 8, "none", 0, "en"))
    assert in_language(Q.prompt_text(questions[used - 1]), "en") in card_texts(at)
    assert at.query_params["quiz_q"] == str(used)
    assert at.warning[0].value == i18n.t("quiz.bad_q", "en", given=i18n.plain(given), total=28, used=used)


@pytest.mark.parametrize("s", SETTINGS, ids=IDS)
def test_the_set_in_parts_has_the_declared_sizes_and_is_the_whole_set(s):
    """The Quiz page builds only the part of the question it shows (lessons.quiz.PART_SIZES): every part must have its
    declared size at every setting, or every later question number would shift."""
    run = scenario.run(s)
    parts = [Q.quiz_part(run, part) for part in range(len(Q.PART_SIZES))]
    assert [len(p) for p in parts] == list(Q.PART_SIZES) and sum(Q.PART_SIZES) == Q.QUIZ_SIZE == 28
    assert [q for p in parts for q in p] == Q.quiz_set(run)
    assert [q.index for p in parts for q in p] == list(range(Q.QUIZ_SIZE))


def test_each_question_number_falls_in_its_part():
    starts = [sum(Q.PART_SIZES[:k]) for k in range(len(Q.PART_SIZES))]
    for index in range(Q.QUIZ_SIZE):
        part, first = Q.part_of(index)
        assert first == starts[part] and first <= index < first + Q.PART_SIZES[part]
    with pytest.raises(IndexError):
        Q.part_of(Q.QUIZ_SIZE)


@pytest.mark.app
def test_the_page_shows_each_parts_first_and_last_question():
    s = Settings(64, 4, 8, "none", 0, "en")
    questions = full_set(s)
    for part in range(len(Q.PART_SIZES)):
        first = sum(Q.PART_SIZES[:part])
        for index in (first, first + Q.PART_SIZES[part] - 1):
            at = run_app("quiz", lang="en", seed=0, quiz_q=index + 1)
            assert not at.exception and not at.warning
            assert in_language(Q.prompt_text(questions[index]), "en") in card_texts(at), index
