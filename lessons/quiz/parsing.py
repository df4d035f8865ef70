"""Reading a typed or picked answer: text normalised (full-width forms too), refused with a reason (`Parsed.error`,
a quiz.err.<error> key) or read as a shape, a whole number, a d_k (or "not allowed"), a real number, a choice or
a set of cells. parse_own reads a walkthrough question's answer by its answer type.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from lessons.limits import QUIZ_ANSWER_CHARS
from lessons.quiz.model import Question, iterable

# ------------------------------------------------------------------ answer parsing limits
MAX_ANSWER_CHARS = QUIZ_ANSWER_CHARS  # lessons/limits.py: longer text is refused before any parsing
MAX_NUMBER = 10**12  # no answer here comes close; larger numbers are refused, not rounded
MAX_DIMS = 8
NOT_ALLOWED_WORDS = frozenset(
    {
        "no",
        "none",
        "not allowed",
        "notallowed",
        "invalid",
        "impossible",
        "error",
        "n/a",
        "na",
        "x",
        "-",
        "不允许",
        "不行",
        "不可以",
        "不能",
        "无",
        "没有",
        "否",
        "无效",
        "不合法",
        "错误",
    }
)


@dataclass(frozen=True)
class Parsed:
    value: object = None
    error: str | None = None  # a strings key suffix: quiz.err.<error>
    args: Mapping[str, object] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.error is None


def clean(raw: object) -> str | Parsed:
    """Text normalised (full-width forms to ASCII, e.g. "（１，４）"), or the refusal."""
    if raw is None:
        return Parsed(error="empty")
    text = str(raw)
    if len(text) > MAX_ANSWER_CHARS:
        return Parsed(error="too_long", args=dict(n=MAX_ANSWER_CHARS))
    text = unicodedata.normalize("NFKC", text).strip()
    if not text:
        return Parsed(error="empty")
    return text


_INT = re.compile(r"[+-]?\d+")
_GROUPED = re.compile(r"\d{1,3}([,' _]\d{3})+")  # 16,640 / 16 640 / 16_640 / 16'640


def read_number(text: str) -> Parsed:
    """A finite number within ±MAX_NUMBER ("1", "1.0", "1e3", "50%"), as float."""
    percent = text.endswith("%")
    body = text[:-1].strip() if percent else text
    if _GROUPED.fullmatch(body):
        body = re.sub(r"[,' _]", "", body)
    try:
        value = float(body)
    except ValueError:
        return Parsed(error="not_number")
    if not math.isfinite(value) or abs(value) > MAX_NUMBER:
        return Parsed(error="too_big", args=dict(max=f"{MAX_NUMBER:,}"))
    return Parsed(value / 100 if percent else value)


def parse_int(raw: object) -> Parsed:
    """A whole number >= 0: "16640", "16,640", "16 640", "1.6e4", "１６６４０"."""
    text = clean(raw)
    if isinstance(text, Parsed):
        return text
    parsed = read_number(text)
    if not parsed.ok:
        return parsed
    value = parsed.value
    assert isinstance(value, float)  # what read_number reads
    if value != int(value):
        return Parsed(error="not_whole")
    if value < 0:
        return Parsed(error="negative")
    return Parsed(int(value))


def parse_shape(raw: object) -> Parsed:
    """A tensor shape: "(1, 4, 8, 8)", "1,4,8,8", "1×4×8×8", "1 x 4 x 8 x 8", "[1, 4, 8, 8]",
    "torch.Size([1, 4, 8, 8])", full-width "（1，4，8，8）"."""
    cleaned = clean(raw)
    if isinstance(cleaned, Parsed):
        return cleaned
    text = cleaned.lower()
    if text.startswith("torch.size"):
        text = text[len("torch.size") :]
    text = text.strip().strip("()[]{} ").strip()
    if re.search(r"[,×x*;、]", text):
        parts = re.split(r"\s*[,×x*;、]\s*", text)
        if len(parts) > 1 and parts[-1] == "":
            parts.pop()  # "(1, 4,)": Python's trailing comma
    else:
        parts = text.split()
    if not parts or not all(_INT.fullmatch(p) for p in parts):
        return Parsed(error="not_shape")
    if len(parts) > MAX_DIMS:
        return Parsed(error="too_many_dims", args=dict(n=MAX_DIMS))
    sizes = [int(p) for p in parts]
    if any(n > MAX_NUMBER for n in sizes):
        return Parsed(error="too_big", args=dict(max=f"{MAX_NUMBER:,}"))
    if any(n < 1 for n in sizes):
        return Parsed(error="size_zero")
    return Parsed(tuple(sizes))


def parse_d_k(raw: object) -> Parsed:
    """A whole number, or a word saying the h is not allowed ("no", "not allowed", "不允许" ...) -> None."""
    text = clean(raw)
    if isinstance(text, Parsed):
        return text
    if text.lower().strip(" .!。！") in NOT_ALLOWED_WORDS:
        return Parsed(None)
    parsed = parse_int(text)
    return parsed if parsed.ok or parsed.error != "not_number" else Parsed(error="not_d_k")


def parse_real(raw: object) -> Parsed:
    text = clean(raw)
    return text if isinstance(text, Parsed) else read_number(text)


def parse_choice(raw: object, options: Sequence[object]) -> Parsed:
    return Parsed(raw) if raw in options else Parsed(error="pick_one")


def parse_cells(raw: object, options: Sequence[object]) -> Parsed:
    """Picked key positions (any iterable of ints from the options; nothing picked = nothing blocked)."""
    picked = [] if raw is None else list(iterable(raw))
    cells: list[int] = []
    for j in picked:
        if isinstance(j, bool) or not isinstance(j, int) or j not in options:
            return Parsed(error="bad_cells")
        cells.append(j)
    return Parsed(tuple(sorted(set(cells))))


def parse_own(q: Question, raw: object) -> Parsed:
    if q.answer_type == "shape":
        return parse_shape(raw)
    if q.answer_type == "int":
        return parse_int(raw)
    if q.answer_type == "d_k":
        return parse_d_k(raw)
    if q.answer_type == "number":
        return parse_real(raw)
    if q.answer_type == "choice":
        return parse_choice(raw, q.options)
    if q.answer_type == "cells":
        return parse_cells(raw, q.options)
    raise ValueError(q.answer_type)
