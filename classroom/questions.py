"""Questions put to a class: a quiz question built on the teacher's settings (lessons.quiz, the Quiz page's
bank), or a quick multiple choice (options A..F, the right one optional: the teacher may ask an opinion).

What the database keeps of a quiz question is language-neutral: the settings (with the hand-drawn grid while
mask=custom) and the question's index; every student's page builds the same question from them in its own
language, and grade() reads a student's answer with the Quiz page's own parser and checker. A vote is stored as
the canonical text of the parsed value (JSON, floats rounded), so equal answers are counted together, whatever
was typed ("(1,4,8,16)" and "1 4 8 16" are one bar).
"""

from __future__ import annotations

import functools
import json
import string
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from classroom.limits import ANSWER_MAX, CHOICES_MAX, CHOICES_MIN, RAW_ANSWER_MAX
from lessons import quiz as Q
from lessons import scenario
from lessons.settings import Settings

LETTERS = string.ascii_uppercase[:CHOICES_MAX]
SETTING_FIELDS = ("d_model", "num_heads", "seq_len", "mask", "seed")


@dataclass(frozen=True)
class Graded:
    ok: bool
    answer: str = ""  # canonical text, stored
    correct: bool = False
    mistake: str | None = None
    error: object = None  # the Quiz page's Parsed (its error words it), or a reason id


@functools.lru_cache(maxsize=6)
def quiz_set(d_model: int, num_heads: int, seq_len: int, mask: str, seed: int, lang: str, grid: str | None):
    """The Quiz page's questions for these settings and the run's tokens (a class asks a few settings at most)."""
    run = scenario.run(Settings(d_model, num_heads, seq_len, mask, seed, lang), custom_text=grid)
    return tuple(Q.quiz_set(run, custom_text=grid)), tuple(run.tokens)


def quiz_spec(settings: Settings, grid: str | None, index: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """(spec, answer_key) of quiz question `index` (0-based) for these settings."""
    questions, _ = quiz_set(*_args(settings_dict(settings), settings.lang, grid))
    if not 0 <= index < len(questions):
        raise ValueError(f"question index {index} outside 0..{len(questions) - 1}")
    q = questions[index]
    spec = {
        "settings": settings_dict(settings),
        "grid": grid if settings.mask == "custom" else None,
        "index": index,
        "uid": q.uid,
        "answer_type": q.answer_type,
    }
    return spec, {"right": canonical(q.answer)}


def choice_spec(options: int, right: str | None) -> tuple[dict[str, Any], dict[str, Any]]:
    if not CHOICES_MIN <= options <= CHOICES_MAX:
        raise ValueError(f"a quick question has {CHOICES_MIN}..{CHOICES_MAX} options")
    letters = LETTERS[:options]
    if right is not None and right not in letters:
        raise ValueError(f"right answer {right!r} is not one of {letters}")
    return {"options": list(letters)}, {"right": None if right is None else json.dumps(right)}


def settings_dict(settings: Settings) -> dict[str, Any]:
    return {k: getattr(settings, k) for k in SETTING_FIELDS}


def _args(values: Mapping[str, Any], lang: str, grid: str | None) -> tuple:
    return tuple(values[k] for k in SETTING_FIELDS) + (lang, grid)


def quiz_question(spec: Mapping[str, Any], lang: str):
    """(Question, tokens) of a stored quiz spec, worded in `lang` (the answers are the same in every language)."""
    questions, tokens = quiz_set(*_args(spec["settings"], lang, spec.get("grid")))
    return questions[spec["index"]], tokens


def _plain(value: object) -> object:
    if isinstance(value, float):
        return round(value, 4)
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    return value


def canonical(value: object) -> str:
    return json.dumps(_plain(value), ensure_ascii=False)


def decode(answer: str) -> object:
    """A stored canonical answer back into the value the Quiz page's words take (lists become tuples)."""

    def back(v: object) -> object:
        return tuple(back(x) for x in v) if isinstance(v, list) else v

    return back(json.loads(answer))


def grade(kind: str, spec: Mapping[str, Any], answer_key: Mapping[str, Any], raw: object) -> Graded:
    """A student's raw input (a widget's value: text, an option, a list of cells) read and checked."""
    if isinstance(raw, str) and len(raw) > RAW_ANSWER_MAX:
        return Graded(False, error="answer_too_long")
    if kind == "choice":
        if raw not in spec.get("options", ()):
            return Graded(False, error="pick_one")
        answer = json.dumps(raw)
        return Graded(True, answer, answer == answer_key.get("right"))
    q, _ = quiz_question(spec, "en")
    parsed = Q.parse_answer(q, raw)
    if not parsed.ok:
        return Graded(False, error=parsed)
    answer = canonical(parsed.value)
    if len(answer) > ANSWER_MAX:
        return Graded(False, error="answer_too_long")
    return Graded(True, answer, bool(Q.is_correct(q, parsed.value)), Q.mistake_of(q, parsed.value))
