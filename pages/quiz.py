"""Predict, then reveal: questions built from the shared settings (lessons.quiz, worded here with ui.words),
answered before the answer shows.

The set is fixed by the shared seed, so a class on the teacher's link gets the same questions in the same
order. The score lives in this browser session's st.session_state only (never shared).
"""

import streamlit as st

from core.frozen import freeze
from i18n import plain
from lessons import quiz as Q
from lessons import scenario
from lessons.settings import Settings
from ui import free_text
from ui.cache import shared_function
from ui.shell import page_context, url_values
from ui.words import word

ctx = page_context()
t, s = ctx.t, ctx.settings


def say(words) -> str:
    """A lesson's words (a key and its values) in the page's language."""
    return word(words, t)


INDEX, RECORDS, ERROR = "quiz_index", "quiz_records", "quiz_error"
QPARAM = "quiz_q"  # the question number in the URL (1-based), so a teacher can send "question 5"


@shared_function  # ui/cache.py: byte-bounded, shared by every session
def question_part(
    d_model: int, num_heads: int, seq_len: int, mask: str, seed: int, lang: str, custom_text: str | None, part: int
):
    """One part of the questions for these settings (the walkthrough's, or one lesson page's: lessons.quiz.PART_SIZES)
    and their token labels (the language only changes the labels and the Positions page's words). Only the part of
    the question shown is built. Shared by every session, so frozen: an in-place write into its tensors raises."""
    run = scenario.run(Settings(d_model, num_heads, seq_len, mask, seed, lang), custom_text=custom_text)
    return freeze((Q.quiz_part(run, part, custom_text=custom_text), run.tokens))


total = Q.QUIZ_SIZE
records: dict = st.session_state.setdefault(RECORDS, {})
given_q = url_values(QPARAM) if st.query_params.get(QPARAM) is not None else []  # every value (a repeated key)
if given_q:  # the link decides (a session without it keeps its own place)
    index, valid = Q.question_number(given_q[0], total)
    if not valid or len(given_q) > 1:
        st.warning(t("quiz.bad_q", given=plain(given_q[0]), total=total, used=index + 1), icon=":material/build:")
        st.query_params[QPARAM] = str(index + 1)  # once: the next run reads a valid value
    st.session_state[INDEX] = index
index = min(max(int(st.session_state.get(INDEX, 0)), 0), total - 1)
part, first = Q.part_of(index)
questions, tokens = question_part(s.d_model, s.num_heads, s.seq_len, s.mask, s.seed, s.lang, ctx.custom_text, part)
q = questions[index - first]


# ------------------------------------------------------------------ callbacks (run before the page redraws)
def submit(question: Q.Question) -> None:
    parsed = Q.parse_answer(question, st.session_state.get(f"quiz_in_{question.uid}"))  # refuses long text unparsed
    if question.answer_type not in ("choice", "cells"):
        free_text.check(
            f"quiz_in_{question.uid}", "quiz_answer", notify=False
        )  # and a too-long one is not kept in the box
    if not parsed.ok:
        st.session_state[ERROR] = (question.uid, parsed)  # shown, not counted
        return
    st.session_state.pop(ERROR, None)
    # Only the first answer counts: the reveal follows it, so a second try would not be a prediction.
    st.session_state[RECORDS].setdefault(question.uid, Q.Record(parsed.value, Q.is_correct(question, parsed.value)))


def move(delta: int, total: int) -> None:
    # `total` as an argument: a callback reads no large page value (ui/page_memory.py lets them go after the run)
    current = int(st.session_state.get(INDEX, 0))
    st.session_state[INDEX] = min(max(current + delta, 0), total - 1)
    st.query_params[QPARAM] = str(st.session_state[INDEX] + 1)
    st.session_state.pop(ERROR, None)


def reset() -> None:
    st.session_state[RECORDS] = {}
    st.session_state[INDEX] = 0
    st.query_params[QPARAM] = "1"
    st.session_state.pop(ERROR, None)


# ------------------------------------------------------------------ the page
st.title(t("page.quiz"))
about_set = t("quiz.set", seed=s.seed, d_model=s.d_model, h=s.num_heads, T=s.seq_len, mask_name=t(f"mask.{s.mask}"))
st.markdown(f"{t('quiz.intro')}\n\n:small[:gray[{about_set}]]")  # one element: each costs a render on a step

right, answered = Q.score(records)
st.metric(t("quiz.score"), t("quiz.score.value", right=right, answered=answered), help=t("quiz.score.help"))
st.progress((index + 1) / total, text=t("quiz.progress", n=index + 1, total=total))

with st.container(border=True, key="quiz_card"):
    st.markdown(f"**{index + 1}.** " + say(Q.prompt_text(q)))
    record = records.get(q.uid)
    if record is None:
        with st.form(f"quiz_form_{q.uid}", border=False):
            key = f"quiz_in_{q.uid}"
            hint = say(Q.hint_text(q))
            if q.answer_type == "choice":
                st.radio(
                    t("quiz.your_answer"),
                    q.options,
                    index=None,
                    key=key,
                    format_func=lambda o: say(Q.option_text(q, o)),
                )
            elif q.answer_type == "cells":
                st.pills(
                    t("quiz.your_answer") + " — " + hint,
                    q.options,
                    selection_mode="multi",
                    key=key,
                    format_func=lambda j: say(Q.option_text(q, j, tokens)),
                )
            else:
                st.text_input(
                    t("quiz.your_answer"), key=key, placeholder=hint, max_chars=free_text.max_chars("quiz_answer")
                )
                st.caption(hint)  # the placeholder goes away while typing; the format stays in view
            st.form_submit_button(
                t("quiz.check"), type="primary", on_click=submit, args=(q,), icon=":material/visibility:"
            )
        error = st.session_state.get(ERROR)
        if error and error[0] == q.uid:
            st.warning(t("quiz.not_counted") + say(Q.error_text(error[1])), icon=":material/edit_note:")
    else:
        given = say(Q.format_value(q, record.value))
        if record.correct:
            st.success(t("quiz.right", given=given), icon=":material/check_circle:")
        else:
            mistake = Q.mistake_text(q, record.value)  # a known mistake is named, not just "not quite"
            st.error(
                t("quiz.wrong", given=given) + ("\n\n" + say(mistake) if mistake else ""), icon=":material/cancel:"
            )
        st.markdown(f"**{t('quiz.answer', answer=say(Q.answer_text(q)))}**")
        st.markdown(f"**{t('quiz.why')}** " + say(Q.why_text(q)))
        link = Q.see_it_link(q, s)  # the walkthrough step, or the lesson page's section
        st.page_link(link.page, label=say(link.label), icon=link.icon, query_params=link.params)

b1 = b2 = b3 = st.container(horizontal=True)  # one container, not four (columns)
b1.button(
    t("quiz.prev"),
    icon=":material/arrow_back:",
    on_click=move,
    args=(-1, total),
    disabled=index == 0,
    key="quiz_prev",
    width="stretch",
)
b2.button(
    t("quiz.next"),
    icon=":material/arrow_forward:",
    icon_position="right",
    on_click=move,
    args=(1, total),
    disabled=index == total - 1,
    key="quiz_next",
    width="stretch",
    type="primary",
)
b3.button(t("quiz.reset"), icon=":material/restart_alt:", on_click=reset, key="quiz_reset", width="stretch")
if index == total - 1 and q.uid in records:
    st.info(t("quiz.done", answered=answered, right=right), icon=":material/flag:")
