"""The Softmax lesson's quiz questions as data (`quiz_questions`: kinds and numbers; lessons/quiz/ words them) and
the reader of a typed answer (`check_answer`: integers with grouping, numbers within a slack, bytes with a binary
unit, the order of the three divisors in any spelling)."""

from __future__ import annotations

import itertools
import math
import random
import re
import zlib
from dataclasses import dataclass

import torch

from core.softmax_numerics import DTYPES, SCALE_NAMES, overflow_threshold
from core.tiled_attention import LONG_CONTEXTS, attention_memory, causal_tile_counts
from lessons.heatmap import Text, text
from lessons.limits import QUIZ_ANSWER_CHARS
from lessons.scenario import Scenario
from lessons.settings import Settings
from lessons.softmax.keys import PAGE
from lessons.softmax.overflow import DTYPE_NAMES
from lessons.softmax.scale import scale_row

QUIZ_KINDS = ("causal_skipped", "tile_count", "entropy_order", "overflow_threshold", "dot_variance", "score_bytes")
ORDERS = tuple(itertools.permutations(SCALE_NAMES))  # the choices of the entropy-order question
THRESHOLD_SLACK = 0.05  # an overflow-threshold answer within this of ln(max) counts
BINARY_UNITS = {"b": 1, "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40}


@dataclass(frozen=True)
class QuizQuestion:
    """One predict-then-reveal question: `kind` is the text key, `params` the numbers the text shows."""

    kind: str  # QUIZ_KINDS
    answer_type: str  # "int", "number", "order" (lowest entropy first), "bytes"
    params: dict  # e.g. {"T": 10, "block_q": 4, "block_k": 3}
    answer: object  # int | float | tuple[str, str, str]
    accepted: tuple[str, ...]  # example forms check_answer accepts (the first is the canonical one)
    options: tuple = ()  # the choices of an "order" question
    facts: dict | None = None  # language-neutral numbers for the reveal


def entropy_run_note(run_d_k: int, entropies: tuple[float, ...]) -> Text:
    """What the current run's three entropies (÷1, ÷√d_k, ÷d_k) show, as printed (3 decimals): the order the answer
    states, or equal, and why (d_k = 1: the three divisors are all 1; else the row's scores hardly differ). The
    order itself always holds as ≤: a softmax's entropy never falls as its divisor grows."""
    e1, e2, e3 = (f"{e:.3f}" for e in entropies)
    if float(e1) < float(e2) < float(e3):
        return text("softmax.quiz.entropy_order.run_agrees", e1=e1, e2=e2, e3=e3)
    key = "softmax.quiz.entropy_order.run_d_k_1" if run_d_k == 1 else "softmax.quiz.entropy_order.run_close"
    return text(key, e1=e1, e2=e2, e3=e3)


def _rng(settings: Settings) -> random.Random:
    key = f"{PAGE}|{settings.d_model}|{settings.num_heads}|{settings.seq_len}|{settings.mask}|{settings.seed}"
    return random.Random(zlib.crc32(key.encode()))


def quiz_questions(
    settings: Settings, run: Scenario | None = None, custom_text: str | None = None
) -> tuple[QuizQuestion, ...]:
    """One question of each kind; their numbers come from the settings' seed (the same set for the class),
    deliberately not the sliders' values, so the answer must be worked out rather than read off the page.
    The entropy question's reveal carries the run's own numbers: the last row of head 0 under the three divisors."""
    rng = _rng(settings)
    shown = scale_row(settings, 0, settings.seq_len - 1, run, custom_text)
    out = []
    T, bq, bk = rng.choice((6, 8, 10, 12, 16)), rng.choice((2, 3, 4)), rng.choice((2, 3, 4))
    processed, skipped = causal_tile_counts(T, T, bq, bk)
    out.append(
        QuizQuestion(
            "causal_skipped",
            "int",
            {"T": T, "block_q": bq, "block_k": bk},
            skipped,
            (str(skipped),),
            facts={"processed": processed, "total": processed + skipped},
        )
    )
    T, bq, bk = rng.choice((7, 9, 10, 13, 20)), rng.choice((3, 4)), rng.choice((3, 4, 8))
    total = math.ceil(T / bq) * math.ceil(T / bk)
    out.append(
        QuizQuestion(
            "tile_count",
            "int",
            {"T": T, "block_q": bq, "block_k": bk},
            total,
            (str(total),),
            facts={"n_q_tiles": math.ceil(T / bq), "n_k_tiles": math.ceil(T / bk)},
        )
    )
    d_k = settings.d_k if settings.d_k >= 4 else 64
    out.append(
        QuizQuestion(
            "entropy_order",
            "order",
            {"d_k": d_k},
            SCALE_NAMES,
            ("1 < sqrt_d_k < d_k", "÷1, ÷√d_k, ÷d_k", "d_k > sqrt(d_k) > 1"),
            options=ORDERS,
            facts={
                "head": 0,
                "row": settings.seq_len - 1,
                "run_d_k": settings.d_k,
                "entropies": tuple(v.entropy for v in shown.variants),
                "run_note": entropy_run_note(settings.d_k, tuple(v.entropy for v in shown.variants)),
            },
        )
    )
    name = rng.choice(DTYPE_NAMES)
    thr = round(overflow_threshold(DTYPES[name]), 2)
    out.append(
        QuizQuestion(
            "overflow_threshold",
            "number",
            {"dtype": name, "slack": THRESHOLD_SLACK},
            thr,
            (f"{thr}", f"{thr:.1f}"),
            facts={"max": float(torch.finfo(DTYPES[name]).max)},
        )
    )
    d_k, scaled = rng.choice((16, 64, 128, 256)), rng.random() < 0.5
    answer = 1 if scaled else d_k
    out.append(QuizQuestion("dot_variance", "int", {"d_k": d_k, "scaled": scaled}, answer, (str(answer),)))
    T = rng.choice(LONG_CONTEXTS)
    nbytes = attention_memory(T, T, settings.d_k, 1, 1, 1, 1).scores_bytes_per_head
    unit = "GiB" if nbytes >= 2**30 else "MiB"
    out.append(
        QuizQuestion(
            "score_bytes",
            "bytes",
            {"T": T, "bytes_per_number": 4},
            nbytes,
            (str(nbytes), f"{nbytes:,}", f"{nbytes // BINARY_UNITS[unit.lower()]} {unit}"),
        )
    )
    return tuple(out)


@dataclass(frozen=True)
class Checked:
    value: object  # the parsed answer, None if it could not be read
    correct: bool


_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")
_GROUPED = re.compile(r"\d{1,3}([,' _]\d{3})+")


def _read_number(text: str) -> float | None:
    text = text.strip()
    if _GROUPED.fullmatch(text):
        text = re.sub(r"[,' _]", "", text)
    if not _NUMBER.fullmatch(text):
        return None
    value = float(text)
    return value if math.isfinite(value) else None


def _read_order(text: str) -> tuple[str, ...] | None:
    t = text.lower().replace("÷", " ").replace("/", " ").replace("√", "sqrt ").replace("(", " ").replace(")", " ")
    t = re.sub(r"sqrt[\s_]*(d[\s_]*k)?", " S ", t)
    t = re.sub(r"d[\s_]*k", " D ", t)
    descending = ">" in t and "<" not in t
    parts = [p for p in re.split(r"[\s,<>;，、]+", t) if p]
    names = {"1": "1", "S": "sqrt_d_k", "D": "d_k"}  # only the substitutions above make capitals
    if len(parts) != 3 or any(p not in names for p in parts):
        return None
    order = tuple(names[p] for p in parts)
    if len(set(order)) != 3:
        return None
    return order[::-1] if descending else order


def check_answer(q: QuizQuestion, raw: object) -> Checked:
    """Read a typed answer (bounded: longer than QUIZ_ANSWER_CHARS is not read) and say if it is right.

    int: an integer, digits may be grouped (16,640 / 16 640). number: within params["slack"]. bytes: an integer
    or a number with a binary unit (256 MiB, 64 GiB). order: the three divisors lowest entropy first, in any
    spelling (1, √d_k, d_k / 1 < sqrt(d_k) < d_k), or highest first when written with '>'.
    """
    text = "" if raw is None else str(raw)
    if not text.strip() or len(text) > QUIZ_ANSWER_CHARS:
        return Checked(None, False)
    if q.answer_type == "order":
        order = _read_order(text)
        return Checked(order, isinstance(q.answer, tuple) and order == q.answer)
    if q.answer_type == "bytes":
        m = re.fullmatch(r"\s*(.+?)\s*([kmgt]?i?b)\s*", text.lower())
        factor = 1
        if m and m.group(2) in BINARY_UNITS:
            text, factor = m.group(1), BINARY_UNITS[m.group(2)]
        value = _read_number(text)
        if value is None:
            return Checked(None, False)
        value = value * factor
        return Checked(value, value == q.answer)
    value = _read_number(text)
    if value is None:
        return Checked(None, False)
    if q.answer_type == "number":
        assert isinstance(q.answer, (int, float)), q.kind
        return Checked(value, abs(value - q.answer) <= q.params["slack"])
    return Checked(value, value == q.answer)
