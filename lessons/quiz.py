"""Predict, then reveal (the lesson of pages/quiz.py, plain data): questions generated from the shared settings,
answers read from the core.

No answer is a formula written again here; each one is read from the code that the other pages run:
- shapes from the traced tensors of scenario.run (the AttentionTrace), named axes from core.accounting;
- parameter counts from the model's own nn.Linear layers (and a head's slice from head_projection);
- d_k, and whether an h is allowed at all, from MultiHeadAttention itself (built on torch's "meta"
  device: no memory, no random numbers drawn);
- blocked cells from core.masks (through scenario.settings_mask, the mask every page uses);
- a row's sum from the traced attention weights.

The question set depends only on the settings and the shared seed: a class that opens the teacher's
link gets the same questions in the same order. Pure Python + torch: no Streamlit, no wording: every text is
returned as `Words` -- a strings key with its values (lessons.heatmap.Text, whose values may be Words themselves),
a Join of Words, a Quoted user text, or a plain language-neutral string such as a shape -- and the page words it
(ui.words.word with its ctx.t).

build_quiz makes the walkthrough's 11; quiz_set (the Quiz page) adds the KV cache, Softmax and Positions pages'
own questions after them (28 at the defaults), each page through one LessonSource adapter (the end of this file).
"""

from __future__ import annotations

import functools
import math
import random
import re
import unicodedata
import zlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, SupportsFloat, SupportsIndex

import torch

from core.accounting import tensor_shapes, weight_count
from core.attention import MultiHeadAttention
from core.limits import QUIZ_ANSWER_CHARS
from core.masks import full_grid
from lessons import kv_cache as KV
from lessons import positions as POS
from lessons import softmax as SM
from lessons.heatmap import Text, text
from lessons.scenario import Scenario, settings_mask
from lessons.settings import Settings, head_choices
from lessons.walkthrough import STEPS


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
ROW_SUM_TOLERANCE = 1e-3

# ------------------------------------------------------------------ answer parsing limits
MAX_ANSWER_CHARS = QUIZ_ANSWER_CHARS  # core/limits.py: longer text is refused before any parsing
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
    source: str = "walkthrough"  # who words and grades it: "walkthrough" (this module) or a LessonSource's name
    item: LessonItem | None = None  # a lesson question: the lesson's own object (its grader reads it)
    section: str = ""  # a lesson question: the page section (tab) that shows the answer


# ------------------------------------------------------------------ answers from the core


def step_of_field(name: str) -> str:
    """The walkthrough step that produces a traced tensor."""
    for step in STEPS:
        if name in step.fields:
            return step.name
    raise KeyError(name)


@functools.lru_cache(maxsize=128)
def meta_model(d_model: int, h: int) -> MultiHeadAttention:
    """The real class on torch's meta device: the same checks and layers, no memory, no random init.

    One per (d_model, h) for the process (it holds no numbers: only shapes, read by the questions); a
    ValueError (h does not divide d_model) is raised again on every call."""
    return MultiHeadAttention(d_model, h, device="meta")


def head_width(d_model: int, h: int) -> int | None:
    """d_k as MultiHeadAttention computes it, or None when the class refuses this h."""
    try:
        return meta_model(d_model, h).d_k
    except ValueError:
        return None


def parameter_count(module: torch.nn.Module) -> int:
    return weight_count(module)  # from the layer shapes, frozen or not


def changed_head_count(d_model: int, h: int) -> int:
    """The h of the "what if h changes" question: 2h when the slider offers it, else h/2."""
    return 2 * h if 2 * h in head_choices(d_model) else h // 2


def keep_grid(kind: str, T: int, custom_text: str | None) -> torch.Tensor:
    """(T, T) bool, True = keep: the mask every page uses for this kind (none keeps everything)."""
    return full_grid(settings_mask(kind, T, T, custom_text), 1, T, T)[0]


def quiz_mask_kind(settings: Settings, rng: random.Random) -> str:
    """The mask a mask question is about: the sidebar's, or (with no mask) causal or padding by the seed."""
    return settings.mask if settings.mask != "none" else rng.choice(("causal", "padding"))


# ------------------------------------------------------------------ the set


def _uid(settings: Settings, custom_text: str | None, index: int) -> str:
    grid = zlib.crc32((custom_text or "").encode()) if settings.mask == "custom" else 0
    s = settings
    return f"{s.d_model}-{s.num_heads}-{s.seq_len}-{s.mask}-{grid:x}-{s.seed}-{index}"


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
    return _first_wins(out, shape)


def params_mistakes(
    count: int, weights: int, bias: int, d_model: int, d_k: int, target: str
) -> tuple[tuple[object, str], ...]:
    """Known wrong parameter counts: the bias forgotten, and (one head's slice) d_model where d_k belongs."""
    out: list[tuple[object, str]] = [(weights, "no_bias")] if bias else []
    if target == "head" and d_model != d_k:
        out += [(d_model * d_model + d_model, "d_model_for_d_k"), (d_model * d_model, "d_model_for_d_k")]
    if target == "all":
        out.append((count // 4, "one_layer"))  # one projection's count, not the four together
    return _first_wins(out, count)


def d_k_mistakes(d_model: int, h: int, d_k: int | None) -> tuple[tuple[object, str], ...]:
    """Known wrong d_k answers: d_model itself, d_model x h, and (h does not divide d_model) the rounded-down width."""
    out: list[tuple[object, str]] = [(d_model, "d_model_for_d_k"), (d_model * h, "times_h")]
    if d_k is None:
        out.append((d_model // h, "rounded"))
    return _first_wins(out, d_k)


def _first_wins(pairs: list[tuple[object, str]], answer: object) -> tuple[tuple[object, str], ...]:
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


def build_quiz(run: Scenario, *, custom_text: str | None = None) -> list[Question]:
    """The question set for run.settings, ordered and filled by run.settings.seed.

    `run` is scenario.run(settings, custom_text=custom_text): its trace and model give the answers.
    """
    s = run.settings
    T, h, d_model = s.seq_len, s.num_heads, s.d_model
    rng = random.Random(f"attention-lab-quiz:{s.seed}")  # str seeds are stable across processes
    plan = list(PLAN)
    rng.shuffle(plan)
    shape_fields = [rng.choice(family) for family in SHAPE_FAMILIES]
    rng.shuffle(shape_fields)
    param_targets = [rng.choice(PARAM_LAYERS), rng.choice(PARAM_WIDER)]
    d_k_pairs = [rng.choice(D_K_FITS), rng.choice(D_K_FITS if rng.random() < 0.4 else D_K_MISFITS)]
    if d_k_pairs[1] == d_k_pairs[0]:
        d_k_pairs[1] = rng.choice(D_K_MISFITS)
    axes = tensor_shapes(1, T, T, d_model, h)
    base = dict(d_model=d_model, h=h, T=T, B=1, d_k=s.d_k)

    questions: list[Question] = []
    for index, kind in enumerate(plan):
        uid = _uid(s, custom_text, index)
        if kind == "shape":
            name = shape_fields.pop()
            shape = tuple(getattr(run.trace, name).shape)  # the real tensor the pages draw
            q = Question(
                index,
                uid,
                kind,
                "shape",
                shape,
                step_of_field(name),
                dict(base, tensor=name, axes=", ".join(axes[name].axes)),
                mistakes=shape_mistakes(name, shape, d_model, s.d_k),
            )
        elif kind == "params":
            target = param_targets.pop(0)
            if target == "all":
                count = parameter_count(run.model)
                bias = sum(
                    getattr(run.model, n).bias.numel() for n in PARAM_LAYERS if getattr(run.model, n).bias is not None
                )
                step = "project"
            elif target == "head":
                w, b = run.model.head_projection("q", 0)  # (d_model, d_k), (d_k,)
                bias = 0 if b is None else b.numel()
                count = w.numel() + bias
                step = "split"
            else:
                layer = getattr(run.model, target)
                count = parameter_count(layer)
                bias = 0 if layer.bias is None else layer.bias.numel()
                step = "output" if target == "W_o" else "project"
            q = Question(
                index,
                uid,
                kind,
                "int",
                count,
                step,
                dict(base, target=target),
                mistakes=params_mistakes(count, count - bias, bias, d_model, s.d_k, target),
            )
        elif kind == "d_k":
            pd, ph = d_k_pairs.pop(0)
            d_k = head_width(pd, ph)
            q = Question(
                index, uid, kind, "d_k", d_k, "split", dict(d_model=pd, h=ph), mistakes=d_k_mistakes(pd, ph, d_k)
            )
        elif kind == "heads_change":
            h2 = changed_head_count(d_model, h)
            before, after = parameter_count(meta_model(d_model, h)), parameter_count(meta_model(d_model, h2))
            answer = "more" if after > before else "fewer" if after < before else "same"
            q = Question(
                index, uid, kind, "choice", answer, "split", dict(base, h2=h2, before=before, after=after), CHANGES
            )
        elif kind == "mask_row":
            mask = quiz_mask_kind(s, rng)
            keep = keep_grid(mask, T, custom_text)
            rows = [i for i in range(T) if not bool(keep[i].all())] or list(range(T))
            i = rng.choice(rows)
            blocked = tuple(j for j in range(T) if not bool(keep[i, j]))
            q = Question(
                index,
                uid,
                kind,
                "cells",
                blocked,
                "mask",
                dict(base, mask=mask, i=i, token=run.tokens[i]),
                tuple(range(T)),
            )
        elif kind == "mask_count":
            mask = quiz_mask_kind(s, rng)
            n_blocked = int((~keep_grid(mask, T, custom_text)).sum())
            q = Question(
                index, uid, kind, "int", n_blocked, "mask", dict(base, mask=mask, cells=T * T, count=n_blocked)
            )
        elif kind == "row_sum":
            head, i = rng.randrange(h), rng.randrange(T)
            total = float(run.trace.weights[0, head, i].sum())  # (T_k,) -> one number
            q = Question(index, uid, kind, "number", total, "softmax", dict(base, head=head, i=i, token=run.tokens[i]))
        else:  # pragma: no cover - PLAN and this chain are edited together
            raise ValueError(kind)
        questions.append(q)
    return questions


# ------------------------------------------------------------------ reading an answer


@dataclass(frozen=True)
class Parsed:
    value: object = None
    error: str | None = None  # a strings key suffix: quiz.err.<error>
    args: Mapping[str, object] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.error is None


def _clean(raw: object) -> str | Parsed:
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


def _number(text: str) -> Parsed:
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
    text = _clean(raw)
    if isinstance(text, Parsed):
        return text
    parsed = _number(text)
    if not parsed.ok:
        return parsed
    value = parsed.value
    assert isinstance(value, float)  # what _number reads
    if value != int(value):
        return Parsed(error="not_whole")
    if value < 0:
        return Parsed(error="negative")
    return Parsed(int(value))


def parse_shape(raw: object) -> Parsed:
    """A tensor shape: "(1, 4, 8, 8)", "1,4,8,8", "1×4×8×8", "1 x 4 x 8 x 8", "[1, 4, 8, 8]",
    "torch.Size([1, 4, 8, 8])", full-width "（1，4，8，8）"."""
    cleaned = _clean(raw)
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
    text = _clean(raw)
    if isinstance(text, Parsed):
        return text
    if text.lower().strip(" .!。！") in NOT_ALLOWED_WORDS:
        return Parsed(None)
    parsed = parse_int(text)
    return parsed if parsed.ok or parsed.error != "not_number" else Parsed(error="not_d_k")


def parse_real(raw: object) -> Parsed:
    text = _clean(raw)
    return text if isinstance(text, Parsed) else _number(text)


def parse_choice(raw: object, options: Sequence[object]) -> Parsed:
    return Parsed(raw) if raw in options else Parsed(error="pick_one")


def parse_cells(raw: object, options: Sequence[object]) -> Parsed:
    """Picked key positions (any iterable of ints from the options; nothing picked = nothing blocked)."""
    picked = [] if raw is None else list(_iterable(raw))
    cells: list[int] = []
    for j in picked:
        if isinstance(j, bool) or not isinstance(j, int) or j not in options:
            return Parsed(error="bad_cells")
        cells.append(j)
    return Parsed(tuple(sorted(set(cells))))


def parse_answer(q: Question, raw: object) -> Parsed:
    source = lesson_source(q)
    return source.parse(q, raw) if source else _parse_core(q, raw)


def _parse_core(q: Question, raw: object) -> Parsed:
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


def is_correct(q: Question, value: object) -> bool:
    """`value` is a parse_answer value (never raw text)."""
    source = lesson_source(q)
    return source.correct(q, value) if source else _is_correct_core(q, value)


def _is_correct_core(q: Question, value: object) -> bool:
    if q.answer_type == "number":
        return abs(_float(value) - _float(q.answer)) <= ROW_SUM_TOLERANCE
    return value == q.answer


# ------------------------------------------------------------------ the texts


def _iterable(value: object) -> Iterable[object]:
    """`value` (an answer or a parsed value, typed only as object) as the iterable its answer type makes it; not
    iterable: the TypeError iterating it would raise."""
    if not isinstance(value, Iterable):
        raise TypeError(f"{type(value).__name__!r} object is not iterable")
    return value


def _float(value: object) -> float:
    """float(value) for an answer or a parsed value typed only as object (else the TypeError float() raises)."""
    if not isinstance(value, (str, SupportsFloat, SupportsIndex)):
        raise TypeError(f"float() argument must be a string or a real number, not {type(value).__name__!r}")
    return float(value)


def _fmt_shape(sizes: object) -> str:
    return "(" + ", ".join(str(n) for n in _iterable(sizes)) + ")"


def format_value(q: Question, value: object) -> Words:
    """An answer (the right one, or a parsed one) as words."""
    source = lesson_source(q)
    return source.value_text(q, value) if source else _format_core(q, value)


def _format_core(q: Question, value: object) -> Words:
    if q.answer_type == "shape":
        return _fmt_shape(value)
    if q.answer_type == "int":
        return f"{value:,}"
    if q.answer_type == "d_k":
        return text("quiz.not_allowed") if value is None else str(value)
    if q.answer_type == "number":
        return f"{value:g}"
    if q.answer_type == "choice":
        return text(f"quiz.choice.{value}", **q.facts)
    if q.answer_type == "cells":
        return ", ".join(str(j) for j in _iterable(value)) if value else text("quiz.cells.none")
    raise ValueError(q.answer_type)


def _mask_name(q: Question) -> Text:
    return text(f"mask.{q.facts['mask']}")


def prompt_text(q: Question) -> Words:
    if source := lesson_source(q):
        return source.prompt(q)
    f = q.facts
    if q.kind == "shape":
        return text("quiz.shape.prompt", what=text(f"quiz.tensor.{f['tensor']}"), **f)
    if q.kind == "params":
        return text(f"quiz.params.{f['target']}.prompt", **f)
    if q.kind in ("mask_row", "mask_count"):
        return text(f"quiz.{q.kind}.prompt", mask_name=_mask_name(q), **f)
    return text(f"quiz.{q.kind}.prompt", **f)


def hint_text(q: Question) -> Words:
    if source := lesson_source(q):
        return source.hint(q)
    return text(f"quiz.hint.{q.answer_type}")


def answer_text(q: Question) -> Words:
    if source := lesson_source(q):
        return source.answer(q)
    if q.kind == "shape":
        return f"({q.facts['axes']}) = {_fmt_shape(q.answer)}"
    if q.kind == "row_sum":
        return text("quiz.row_sum.answer", total=q.answer)
    return format_value(q, q.answer)


def why_text(q: Question) -> Words:
    if source := lesson_source(q):
        return source.why(q)
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


def option_text(q: Question, option: object, tokens: Sequence[str] = ()) -> Words:
    """The label of one choice (a radio option) or one cell (a pill: a key position and its token)."""
    if source := lesson_source(q):
        return source.option(q, option)
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


# ------------------------------------------------------------------ links and the score


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


@dataclass(frozen=True)
class Link:
    """A question's "see it" link: the page file, its label (words) and query params."""

    page: str
    label: Words
    params: dict[str, str]
    icon: str


def see_it_link(q: Question, settings: Settings) -> Link:
    """Where the reveal sends the student: the walkthrough step, or the lesson page's section."""
    if source := lesson_source(q):
        return source.link(q, settings)
    return Link(
        "pages/walkthrough.py",
        text("quiz.link", step=text(f"walk.{q.step}.title")),
        walk_link_params(settings, q.step),
        ":material/stairs:",
    )


@dataclass(frozen=True)
class Record:
    """One answered question: what the student gave (as parsed) and whether it was right."""

    value: object
    correct: bool


def score(records: Mapping[str, Record]) -> tuple[int, int]:
    """(right, answered) over a session's records."""
    return sum(1 for r in records.values() if r.correct), len(records)


# ------------------------------------------------------------------ questions from the lesson pages
# Each lesson page (KV cache, Softmax up close, Positions) builds its own predict-then-reveal questions as data.
# One LessonSource per page turns them into Questions and says how to read, grade and word them and where
# "see it" goes; the functions above hand a lesson question to its source (lesson_source). By default a source
# reads answers with this module's parsers (KV cache: shape / int / cells); a page whose lesson grades typed text
# itself (softmax.check_answer, positions.accepts) keeps the cleaned text as the value and asks the lesson.


@dataclass(frozen=True)
class LessonSource:
    name: str  # Question.source
    page: str  # the page file the "see it" link opens
    title: str  # strings key of the page's title
    tab_key: str  # the page's URL key of its open section
    tab_strings: str  # strings key prefix of a section's title: f"{tab_strings}.{section}"

    def questions(self, run: Scenario, custom_text: str | None, start: int) -> list[Question]:
        raise NotImplementedError

    def parse(self, q: Question, raw: object) -> Parsed:
        return _parse_core(q, raw)

    def correct(self, q: Question, value: object) -> bool:
        return _is_correct_core(q, value)

    def value_text(self, q: Question, value: object) -> Words:
        return _format_core(q, value)

    def prompt(self, q: Question) -> Words:
        raise NotImplementedError

    def why(self, q: Question) -> Words:
        raise NotImplementedError

    def hint(self, q: Question) -> Words:
        return text(f"quiz.hint.{q.answer_type}")

    def answer(self, q: Question) -> Words:
        return self.value_text(q, q.answer)

    def option(self, q: Question, option: object) -> Words:
        return text(f"quiz.choice.{option}")

    def link_params(self, q: Question) -> dict[str, str]:
        return {self.tab_key: q.section}

    def link(self, q: Question, settings: Settings) -> Link:
        label = text("quiz.link.page", page=text(self.title), section=text(f"{self.tab_strings}.{q.section}"))
        return Link(self.page, label, {**settings_params(settings), **self.link_params(q)}, ":material/school:")


class KvCacheSource(LessonSource):
    """lessons/kv_cache.quiz_questions: shape / int / cells are this module's own answer types."""

    def questions(self, run: Scenario, custom_text: str | None, start: int) -> list[Question]:
        s = run.settings
        kv_heads = KV.default_kv_heads(s.num_heads)  # the page's own default
        out: list[Question] = []
        for n, item in enumerate(KV.quiz_questions(s, kv_heads)):
            index = start + n
            out.append(
                Question(
                    index,
                    _uid(s, custom_text, index),
                    item.key,
                    item.answer_type,
                    item.answer,
                    "",
                    dict(item.params),
                    item.options,
                    self._mistakes(item),
                    self.name,
                    item,
                    item.section,
                )
            )
        return out

    @staticmethod
    def _mistakes(item: KV.QuizQuestion) -> tuple[tuple[object, str], ...]:
        """The cache counted with the h query heads instead of its h_kv K/V heads; only K counted, not K and V."""
        p, answer = item.params, item.answer
        out: list[tuple[object, str]] = []
        if item.key == "kv.cache_shape":
            assert isinstance(answer, tuple)  # the cache's shape
            if p["h"] != p["h_kv"]:
                out.append((answer[:1] + (p["h"],) + answer[2:], "kv_query_heads"))
            if p["d_model"] != p["d_k"]:
                out.append((answer[:-1] + (p["d_model"],), "d_model_for_d_k"))
        if item.key == "kv.preset_bytes":
            assert isinstance(answer, int)  # MiB
            if p["heads"] != p["kv_heads"] and (p["bytes"] * p["heads"]) % (p["kv_heads"] * 2**20) == 0:
                out.append((p["bytes"] * p["heads"] // p["kv_heads"] // 2**20, "kv_query_heads_bytes"))
            if answer % 2 == 0:
                out.append((answer // 2, "kv_only_k"))
        return _first_wins(out, answer)

    def prompt(self, q: Question) -> Words:  # kind "kv.cache_shape" is worded by "kv.quiz.cache_shape"
        return text(q.kind.replace("kv.", "kv.quiz.", 1), **q.facts)

    def why(self, q: Question) -> Words:
        return text(q.kind.replace("kv.", "kv.quiz.", 1) + ".why", **q.facts)

    def hint(self, q: Question) -> Words:
        return text("quiz.hint.heads" if q.answer_type == "cells" else f"quiz.hint.{q.answer_type}")

    def value_text(self, q: Question, value: object) -> Words:
        if q.answer_type == "cells":
            return Join(tuple(self.option(q, j) for j in _iterable(value))) if value else text("quiz.heads.none")
        if q.answer_type == "int":
            return f"{value:,} MiB"
        return _format_core(q, value)

    def answer(self, q: Question) -> Words:
        if q.answer_type == "shape":
            return f"({q.facts['axes']}) = {_fmt_shape(q.answer)}"
        return self.value_text(q, q.answer)

    def option(self, q: Question, option: object) -> Words:
        return text("quiz.head", j=option)

    def link_params(self, q: Question) -> dict[str, str]:
        """The section, and for a question about our model the h_kv it was asked with (the page shows that one)."""
        h_kv = q.facts.get("h_kv")
        return {self.tab_key: q.section} if h_kv is None else {self.tab_key: q.section, "kv_heads": str(h_kv)}


class SoftmaxSource(LessonSource):
    """lessons/softmax.quiz_questions, graded by its check_answer (int, number within a slack, bytes with a binary
    unit, the order of three divisors)."""

    SECTION = {
        "causal_skipped": "tiles",
        "tile_count": "tiles",
        "score_bytes": "tiles",
        "entropy_order": "scale",
        "dot_variance": "scale",
        "overflow_threshold": "max",
    }

    def questions(self, run: Scenario, custom_text: str | None, start: int) -> list[Question]:
        s = run.settings
        out: list[Question] = []
        for n, item in enumerate(SM.quiz_questions(s, run, custom_text)):
            index = start + n
            facts = dict(item.params, **(item.facts or {}))
            if item.kind == "entropy_order":
                facts.update(zip(("e1", "e2", "e3"), facts["entropies"]))  # item.facts' own list
            if item.kind == "dot_variance":
                facts["expr"] = "q·k / √d_k" if item.params["scaled"] else "q·k"
            out.append(
                Question(
                    index,
                    _uid(s, custom_text, index),
                    f"softmax.{item.kind}",
                    item.answer_type,
                    item.answer,
                    "",
                    facts,
                    item.options,
                    (),
                    self.name,
                    item,
                    self.SECTION[item.kind],
                )
            )
        return out

    @staticmethod
    def _item(q: Question) -> SM.QuizQuestion:
        assert isinstance(q.item, SM.QuizQuestion)  # questions() made it
        return q.item

    def parse(self, q: Question, raw: object) -> Parsed:
        given = _clean(raw)
        if isinstance(given, Parsed):
            return given
        if SM.check_answer(self._item(q), given).value is None:
            return Parsed(error="not_order" if q.answer_type == "order" else "not_number")
        return Parsed(given)

    def correct(self, q: Question, value: object) -> bool:
        return SM.check_answer(self._item(q), value).correct

    def value_text(self, q: Question, value: object) -> Words:
        return Quoted(value, 40)

    def answer(self, q: Question) -> Words:
        if q.answer_type == "order":
            return " < ".join(SM.SCALE_LABELS[SM.SCALE_NAMES.index(n)] for n in _iterable(q.answer))
        if q.answer_type == "bytes":
            return f"{q.answer:,} B = {self._item(q).accepted[2]}"
        return self._item(q).accepted[0]

    def _kind(self, q: Question) -> str:
        return q.kind.split(".", 1)[1]

    def prompt(self, q: Question) -> Words:
        return text(f"softmax.quiz.{self._kind(q)}.prompt", **q.facts)

    def why(self, q: Question) -> Words:
        return text(f"softmax.quiz.{self._kind(q)}.why", answer=q.answer, **q.facts)


class PositionsSource(LessonSource):
    """lessons/positions.quiz_items (for the page's default URL values), graded by its accepts."""

    SECTION = {
        "shuffled_row": "shuffle",
        "gap_free": "shuffle",
        "gap_causal": "shuffle",
        "front_self": "shuffle",
        "rope_diagonal": "rope",
        "rope_angle": "rope",
        "rope_odd": "rope",
        "sinusoid": "add",
    }

    def questions(self, run: Scenario, custom_text: str | None, start: int) -> list[Question]:
        s = run.settings
        out: list[Question] = []
        for n, item in enumerate(POS.quiz_items(s, POS.parse_url({}, s), run)):
            index = start + n
            # a list (the permutation) as the text it shows: the page's shared cache freezes lists into tuples
            facts = {
                k: "[" + ", ".join(map(str, v)) + "]" if isinstance(v, list) else v for k, v in item.params.items()
            }
            out.append(
                Question(
                    index,
                    _uid(s, custom_text, index),
                    item.key,
                    item.answer_type,
                    item.answer,
                    "",
                    facts,
                    item.options,
                    (),
                    self.name,
                    item,
                    self.SECTION[item.key.rsplit(".", 1)[1]],
                )
            )
        return out

    @staticmethod
    def _item(q: Question) -> POS.QuizItem:
        assert isinstance(q.item, POS.QuizItem)  # questions() made it
        return q.item

    def parse(self, q: Question, raw: object) -> Parsed:
        if q.answer_type == "choice":
            return parse_choice(raw, q.options)
        given = _clean(raw)
        if isinstance(given, Parsed):
            return given
        if q.answer_type == "number" and not _number(given).ok:
            return _number(given)
        if q.answer_type == "int" and given.lower() not in self._item(q).accepted and not parse_int(given).ok:
            return parse_int(given)
        return Parsed(given)

    def correct(self, q: Question, value: object) -> bool:
        return POS.accepts(self._item(q), str(value or ""))  # what accepts reads of any value itself

    def value_text(self, q: Question, value: object) -> Words:
        return self.option(q, value) if q.answer_type == "choice" else Quoted(value, 40)

    def _shown(self, q: Question) -> Words:
        if q.answer_type == "choice":
            return self.option(q, q.answer)
        return f"{q.answer:.4f}" if q.answer_type == "number" else str(q.answer)

    def answer(self, q: Question) -> Words:
        if q.answer_type == "int" and "token" in q.facts:
            return f"{q.answer} · {q.facts['token']}"
        return self._shown(q)

    def prompt(self, q: Question) -> Words:
        return text(f"{q.kind}.prompt", **q.facts)

    def why(self, q: Question) -> Words:
        return text(f"{q.kind}.why", **{**q.facts, "answer": self._shown(q)})

    def hint(self, q: Question) -> Words:
        return text("quiz.hint.row" if q.answer_type == "int" else f"quiz.hint.{q.answer_type}")


# The pages whose questions join the quiz, in this order, after the walkthrough's questions.
LESSON_SOURCES = (
    KvCacheSource("kv_cache", "pages/kv-cache.py", "page.kv-cache", "kv_tab", "kv.tab"),
    SoftmaxSource("softmax", "pages/softmax.py", "page.softmax", "soft_tab", "softmax.tab"),
    PositionsSource("positions", "pages/positions.py", "page.positions", "pos_tab", "pos.tab"),
)
_SOURCE_BY_NAME = {src.name: src for src in LESSON_SOURCES}


def lesson_source(q: Question) -> LessonSource | None:
    """The lesson page a question comes from, or None for the walkthrough's own questions."""
    return _SOURCE_BY_NAME.get(q.source)


def quiz_set(run: Scenario, *, custom_text: str | None = None) -> list[Question]:
    """The Quiz page's whole set: the walkthrough's questions (build_quiz), then each lesson page's, grouped."""
    questions = build_quiz(run, custom_text=custom_text)
    for source in LESSON_SOURCES:
        questions += source.questions(run, custom_text, len(questions))
    return questions
