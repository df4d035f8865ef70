"""Links and the score: the question a link's quiz_q names, the "see it" link of a walkthrough question (the
shared settings + the step), and a session's score.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping

from lessons.heatmap import text
from lessons.quiz.model import Link, Question, Record
from lessons.settings import Settings


def question_number(raw: str, total: int) -> tuple[int, bool]:
    """The 0-based index a link's `quiz_q` (1-based, "5" = question 5) names, and whether it was valid as given;
    a number outside 1..total is clamped to it, anything else is question 1."""
    text = unicodedata.normalize("NFKC", str(raw))[:30].strip()
    try:
        n = int(text)
    except ValueError:
        return 0, False
    index = min(max(n, 1), total) - 1
    return index, index + 1 == n and str(raw).strip() == str(n)


def settings_params(settings: Settings) -> dict[str, str]:
    """The shared settings as query params: a "see it" link opens its page on the same numbers."""
    return {
        "d_model": str(settings.d_model),
        "num_heads": str(settings.num_heads),
        "seq_len": str(settings.seq_len),
        "mask": settings.mask,
        "seed": str(settings.seed),
        "lang": settings.lang,
    }


def walk_link_params(settings: Settings, step: str) -> dict[str, str]:
    """Query params of the walkthrough link: the shared settings (same numbers there) + the step."""
    return {**settings_params(settings), "walk_view": "step", "walk_step": step}


def walk_link(q: Question, settings: Settings) -> Link:
    """A walkthrough question's "see it" link: its step, on the same numbers."""
    return Link(
        "pages/walkthrough.py",
        text("quiz.link", step=text(f"walk.{q.step}.title")),
        walk_link_params(settings, q.step),
        ":material/stairs:",
    )


def score(records: Mapping[str, Record]) -> tuple[int, int]:
    """(right, answered) over a session's records."""
    return sum(1 for r in records.values() if r.correct), len(records)
