"""The questions' model: what a question is (Question, the Words its texts are made of, a Record of an answer, a
"see it" Link), what one walkthrough set holds (PLAN and the pools it draws from), and small readers of an answer
typed only as object.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, SupportsFloat, SupportsIndex

from lessons import kv_cache as KV
from lessons import positions as POS
from lessons import softmax as SM
from lessons.heatmap import Text


@dataclass(frozen=True)
class Join:
    """Words joined by `sep` (e.g. the heads of an answer: "head 0, head 3")."""

    parts: tuple[Words, ...]
    sep: str = ", "


@dataclass(frozen=True)
class Quoted:
    """A student's own text, quoted when shown (the page passes it through i18n.plain, at most `limit`)."""

    value: object
    limit: int = 40


Words = Text | Join | Quoted | str  # a plain str is language-neutral: a shape, a number, a token
LessonItem = KV.QuizQuestion | SM.QuizQuestion | POS.QuizItem  # a lesson page's own question (Question.item)

# ------------------------------------------------------------------ what a set holds

# One set, shuffled by the seed: three shapes, two parameter counts, two d_k, and one of each other kind.
PLAN = (
    "shape",
    "shape",
    "shape",
    "params",
    "params",
    "d_k",
    "d_k",
    "heads_change",
    "mask_row",
    "mask_count",
    "row_sum",
)
# The three shape questions: one tensor from each family, so a set always covers the split and the scores.
SHAPE_FAMILIES = (
    ("q", "k", "v", "concat", "output"),  # (B, T, d_model)
    ("q_heads", "k_heads", "v_heads", "head_outputs"),  # (B, h, T, d_k)
    ("scores", "scaled_scores", "masked_scores", "weights"),  # (B, h, T_q, T_k)
)
PARAM_LAYERS = ("W_q", "W_k", "W_v", "W_o")
PARAM_WIDER = ("all", "head")  # the four layers together; one head's slice of W_q
# (d_model, h) pairs of real-looking models that are NOT the slider's: the student must reason, not read.
D_K_FITS = (
    (384, 12),
    (768, 12),
    (512, 8),
    (1024, 16),
    (256, 4),
    (96, 3),
    (300, 5),
    (640, 10),
    (120, 8),
    (4096, 32),
    (200, 8),
    (72, 6),
    (1536, 24),
    (480, 6),
)
D_K_MISFITS = ((384, 7), (100, 3), (512, 6), (768, 5), (300, 8), (64, 3), (1000, 3), (128, 12), (200, 3), (96, 5))
CHANGES = ("more", "same", "fewer")


@dataclass(frozen=True)
class Question:
    index: int  # 0-based position in the set
    uid: str  # stable id of this question for these settings (keys the recorded answer)
    kind: str  # shape | params | d_k | heads_change | mask_row | mask_count | row_sum
    answer_type: str  # shape | int | d_k | choice | cells | number
    answer: object  # tuple[int, ...] | int | int-or-None | str | tuple[int, ...] | float
    step: str  # the walkthrough step that explains it (lessons.walkthrough.STEPS)
    facts: Mapping[str, Any] = field(default_factory=dict)  # language-neutral values for the texts
    options: tuple[Any, ...] = ()  # the choices (choice: str) or key positions (cells: int)
    mistakes: tuple[
        tuple[object, str], ...
    ] = ()  # (wrong answer, mistake id) pairs: known mistakes this question can catch (quiz.mistake.<id>)
    source: str = "walkthrough"  # who words and grades it: "walkthrough" (this package) or a LessonSource's name
    item: LessonItem | None = None  # a lesson question: the lesson's own object (its grader reads it)
    section: str = ""  # a lesson question: the page section (tab) that shows the answer


@dataclass(frozen=True)
class Record:
    """One answered question: what the student gave (as parsed) and whether it was right."""

    value: object
    correct: bool


@dataclass(frozen=True)
class Link:
    """A question's "see it" link: the page file, its label (words) and query params."""

    page: str
    label: Words
    params: dict[str, str]
    icon: str


def iterable(value: object) -> Iterable[object]:
    """`value` (an answer or a parsed value, typed only as object) as the iterable its answer type makes it; not
    iterable: the TypeError iterating it would raise."""
    if not isinstance(value, Iterable):
        raise TypeError(f"{type(value).__name__!r} object is not iterable")
    return value


def as_float(value: object) -> float:
    """float(value) for an answer or a parsed value typed only as object (else the TypeError float() raises)."""
    if not isinstance(value, (str, SupportsFloat, SupportsIndex)):
        raise TypeError(f"float() argument must be a string or a real number, not {type(value).__name__!r}")
    return float(value)


def fmt_shape(sizes: object) -> str:
    return "(" + ", ".join(str(n) for n in iterable(sizes)) + ")"
