"""Checking an answer and naming its mistake: the known wrong answers each walkthrough question can catch
(quiz.mistake.<id>), and whether a parsed value is right.
"""

from __future__ import annotations

from lessons.quiz.model import SHAPE_FAMILIES, Question, as_float

ROW_SUM_TOLERANCE = 1e-3


def shape_mistakes(name: str, shape: tuple[int, ...], d_model: int, d_k: int) -> tuple[tuple[object, str], ...]:
    """Known wrong shapes for tensor `name` (B, h, ... or B, T, d_model), each with what went wrong:
    the head axis left out, d_model written where d_k belongs (or the reverse), the shape before the split."""
    out: list[tuple[object, str]] = []
    per_head = name in SHAPE_FAMILIES[1] or name in SHAPE_FAMILIES[2]
    if per_head:
        out.append((shape[:1] + shape[2:], "no_head_axis"))  # (B, T, d_k) for (B, h, T, d_k)
        if name in SHAPE_FAMILIES[1] and d_model != d_k:
            out.append((shape[:-1] + (d_model,), "d_model_for_d_k"))  # (B, h, T, d_model)
            out.append((shape[:1] + shape[2:3] + (d_model,), "before_split"))  # (B, T, d_model): not split yet
    elif d_model != d_k:
        out.append((shape[:-1] + (d_k,), "d_k_for_d_model"))  # a head's width for the whole model's
    return first_wins(out, shape)


def params_mistakes(
    count: int, weights: int, bias: int, d_model: int, d_k: int, target: str
) -> tuple[tuple[object, str], ...]:
    """Known wrong parameter counts: the bias forgotten, and (one head's slice) d_model where d_k belongs."""
    out: list[tuple[object, str]] = [(weights, "no_bias")] if bias else []
    if target == "head" and d_model != d_k:
        out += [(d_model * d_model + d_model, "d_model_for_d_k"), (d_model * d_model, "d_model_for_d_k")]
    if target == "all":
        out.append((count // 4, "one_layer"))  # one projection's count, not the four together
    return first_wins(out, count)


def d_k_mistakes(d_model: int, h: int, d_k: int | None) -> tuple[tuple[object, str], ...]:
    """Known wrong d_k answers: d_model itself, d_model x h, and (h does not divide d_model) the rounded-down width."""
    out: list[tuple[object, str]] = [(d_model, "d_model_for_d_k"), (d_model * h, "times_h")]
    if d_k is None:
        out.append((d_model // h, "rounded"))
    return first_wins(out, d_k)


def first_wins(pairs: list[tuple[object, str]], answer: object) -> tuple[tuple[object, str], ...]:
    """Each wrong value once (the first reason listed for it), never the right answer itself."""
    seen: set[object] = set()
    out: list[tuple[object, str]] = []
    for value, why in pairs:
        if value != answer and value not in seen:
            seen.add(value)
            out.append((value, why))
    return tuple(out)


def mistake_of(q: Question, value: object) -> str | None:
    """The id of the known mistake a wrong answer shows (quiz.mistake.<id>), or None."""
    for wrong, why in q.mistakes:
        if wrong == value:
            return why
    return None


def is_correct_own(q: Question, value: object) -> bool:
    if q.answer_type == "number":
        return abs(as_float(value) - as_float(q.answer)) <= ROW_SUM_TOLERANCE
    return value == q.answer
