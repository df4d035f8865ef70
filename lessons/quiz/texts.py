"""The words of the walkthrough's own questions: prompt, hint, answer, why, an option, a value, a refusal and a
known mistake, each a strings key with its values (`Words`), never one language's text (the page words them with
ui.words.word). A lesson page's questions are worded by its LessonSource (sources.py); dispatch.py picks which.
"""

from __future__ import annotations

from collections.abc import Sequence

from lessons.heatmap import Text, text
from lessons.quiz.checking import mistake_of
from lessons.quiz.model import Question, Words, fmt_shape, iterable
from lessons.quiz.parsing import Parsed

# The "why" of a shape question, per tensor (tensors made by the same kind of operation share one).
SHAPE_WHY = {
    "q": "proj",
    "k": "proj",
    "v": "proj",
    "q_heads": "split",
    "k_heads": "split",
    "v_heads": "split",
    "scores": "scores",
    "scaled_scores": "scaled",
    "masked_scores": "masked",
    "weights": "weights",
    "head_outputs": "mix",
    "concat": "concat",
    "output": "output",
}


def format_own(q: Question, value: object) -> Words:
    """A walkthrough question's answer (the right one, or a parsed one) as words."""
    if q.answer_type == "shape":
        return fmt_shape(value)
    if q.answer_type == "int":
        return f"{value:,}"
    if q.answer_type == "d_k":
        return text("quiz.not_allowed") if value is None else str(value)
    if q.answer_type == "number":
        return f"{value:g}"
    if q.answer_type == "choice":
        return text(f"quiz.choice.{value}", **q.facts)
    if q.answer_type == "cells":
        return ", ".join(str(j) for j in iterable(value)) if value else text("quiz.cells.none")
    raise ValueError(q.answer_type)


def _mask_name(q: Question) -> Text:
    return text(f"mask.{q.facts['mask']}")


def prompt_own(q: Question) -> Words:
    f = q.facts
    if q.kind == "shape":
        return text("quiz.shape.prompt", what=text(f"quiz.tensor.{f['tensor']}"), **f)
    if q.kind == "params":
        return text(f"quiz.params.{f['target']}.prompt", **f)
    if q.kind in ("mask_row", "mask_count"):
        return text(f"quiz.{q.kind}.prompt", mask_name=_mask_name(q), **f)
    return text(f"quiz.{q.kind}.prompt", **f)


def hint_own(q: Question) -> Words:
    return text(f"quiz.hint.{q.answer_type}")


def answer_own(q: Question) -> Words:
    if q.kind == "shape":
        return f"({q.facts['axes']}) = {fmt_shape(q.answer)}"
    if q.kind == "row_sum":
        return text("quiz.row_sum.answer", total=q.answer)
    return format_own(q, q.answer)


def why_own(q: Question) -> Words:
    f = q.facts
    if q.kind == "shape":
        return text(f"quiz.why.shape.{SHAPE_WHY[f['tensor']]}", **f)
    if q.kind == "params":
        return text(f"quiz.why.params.{f['target']}", **f)
    if q.kind == "d_k":
        key = "quiz.why.d_k.fits" if q.answer is not None else "quiz.why.d_k.misfits"
        return text(key, d_k=q.answer, **f)
    if q.kind in ("mask_row", "mask_count"):
        return text(f"quiz.why.{q.kind}.{f['mask']}", mask_name=_mask_name(q), **f)
    if q.kind == "heads_change":
        return text("quiz.why.heads_change", **f)
    if q.kind == "row_sum":
        return text("quiz.why.row_sum", total=q.answer, **f)
    raise ValueError(q.kind)


def option_own(q: Question, option: object, tokens: Sequence[str] = ()) -> Words:
    """The label of one choice (a radio option) or one cell (a pill: a key position and its token)."""
    if q.answer_type == "cells":
        assert isinstance(option, int)  # a key position (Question.options of a cells question)
        return f"{option} · {tokens[option]}"
    return text(f"quiz.choice.{option}", **q.facts)


def error_text(parsed: Parsed) -> Words:
    return text(f"quiz.err.{parsed.error}", **parsed.args)


def mistake_text(q: Question, value: object) -> Words | None:
    """The known mistake a wrong answer shows, worded (quiz.mistake.<id>), or None."""
    mistake = mistake_of(q, value)
    return None if mistake is None else text(f"quiz.mistake.{mistake}", **q.facts)
