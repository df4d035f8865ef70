"""Every public function of one question, handed to the rules of the page the question comes from.

A lesson page's question (KV cache, Softmax up close, Positions) is read, checked, worded and linked by its
LessonSource (sources.py); the walkthrough's own questions by this package's rules: parsing.parse_own,
checking.is_correct_own, the texts.*_own functions and links.walk_link.
"""

from __future__ import annotations

from collections.abc import Sequence

from lessons.quiz.checking import is_correct_own
from lessons.quiz.links import walk_link
from lessons.quiz.model import Link, Question, Words
from lessons.quiz.parsing import Parsed, parse_own
from lessons.quiz.sources import lesson_source
from lessons.quiz.texts import answer_own, format_own, hint_own, option_own, prompt_own, why_own
from lessons.settings import Settings


def parse_answer(q: Question, raw: object) -> Parsed:
    source = lesson_source(q)
    return source.parse(q, raw) if source else parse_own(q, raw)


def is_correct(q: Question, value: object) -> bool:
    """`value` is a parse_answer value (never raw text)."""
    source = lesson_source(q)
    return source.correct(q, value) if source else is_correct_own(q, value)


def format_value(q: Question, value: object) -> Words:
    """An answer (the right one, or a parsed one) as words."""
    source = lesson_source(q)
    return source.value_text(q, value) if source else format_own(q, value)


def prompt_text(q: Question) -> Words:
    source = lesson_source(q)
    return source.prompt(q) if source else prompt_own(q)


def hint_text(q: Question) -> Words:
    source = lesson_source(q)
    return source.hint(q) if source else hint_own(q)


def answer_text(q: Question) -> Words:
    source = lesson_source(q)
    return source.answer(q) if source else answer_own(q)


def why_text(q: Question) -> Words:
    source = lesson_source(q)
    return source.why(q) if source else why_own(q)


def option_text(q: Question, option: object, tokens: Sequence[str] = ()) -> Words:
    """The label of one choice (a radio option) or one cell (a pill: a key position and its token)."""
    source = lesson_source(q)
    return source.option(q, option) if source else option_own(q, option, tokens)


def see_it_link(q: Question, settings: Settings) -> Link:
    """Where the reveal sends the student: the walkthrough step, or the lesson page's section."""
    source = lesson_source(q)
    return source.link(q, settings) if source else walk_link(q, settings)
