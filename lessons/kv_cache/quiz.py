"""The KV cache page's predict-then-reveal questions (joined to the Quiz page by lessons/quiz/)."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import torch

from core.accounting import BYTES_PER_FLOAT16, preset_cache_bytes
from core.attention import build_input, build_model
from core.kv_cache import decode_all, head_groups
from lessons.kv_cache.keys import CONTEXT_CHOICES, PRESET_SLUGS, gqa_value
from lessons.settings import Settings


@dataclass(frozen=True)
class QuizQuestion:
    """One question as data. `answer_type` is lessons.quiz's vocabulary (shape | int | cells), so its parsers read
    the student's text; `accepted` are answer forms those parsers turn into `answer` (tests check them)."""

    key: str  # kv.cache_shape | kv.preset_bytes | kv.shared_heads
    section: str  # the page section (SECTIONS) whose view explains the answer
    answer_type: str
    answer: object
    params: dict = field(default_factory=dict)  # language-neutral facts for the wording
    accepted: tuple = ()
    options: tuple = ()  # for cells: the query heads to pick from


def _shape_forms(shape: tuple[int, ...]) -> tuple[str, ...]:
    return (
        "(" + ", ".join(map(str, shape)) + ")",
        ",".join(map(str, shape)),
        " x ".join(map(str, shape)),
        "×".join(map(str, shape)),
        "[" + ", ".join(map(str, shape)) + "]",
    )


@torch.no_grad()
def quiz_questions(settings: Settings, kv_heads: int) -> tuple[QuizQuestion, ...]:
    """Three questions for these settings, filled by the shared seed (the same link gives the same set).

    - the cache's shape after t steps: read from a real KVCache filled by t decode steps;
    - a preset's KV cache at a context length, in MiB (fp16, batch 1): core.accounting's formula;
    - which query heads read K/V head j (with h_kv = the page's value, or a GQA one when that is MHA).
    """
    d_model, h, T = settings.d_model, settings.num_heads, settings.seq_len
    head_groups(h, kv_heads)
    rng = random.Random(f"attention-lab-kv-quiz:{settings.seed}")
    t = rng.randint(1, T)
    model = build_model(d_model, h, settings.seed, num_kv_heads=kv_heads)
    _, _, cache = decode_all(model, build_input(1, t, d_model, settings.seed))
    shape = cache.shape
    q_shape = QuizQuestion(
        "kv.cache_shape",
        "decode",
        "shape",
        shape,
        dict(B=1, h=h, h_kv=kv_heads, d_model=d_model, d_k=settings.d_k, t=t, axes="B, h_kv, t, d_k"),
        _shape_forms(shape),
    )

    slug = rng.choice(tuple(PRESET_SLUGS))
    preset = PRESET_SLUGS[slug]
    # Only contexts the model takes, and within its sliding window: the question's formula is the whole cache there
    # (GPT-2 at 131,072 tokens has no cache to size).
    context = rng.choice(
        tuple(c for c in CONTEXT_CHOICES if preset.fits(c) and preset.cached_tokens(c) == c) or CONTEXT_CHOICES[:1]
    )
    nbytes = preset_cache_bytes(preset, context)
    mib = nbytes // 2**20  # every preset x context here is a whole number of MiB (tests check)
    q_bytes = QuizQuestion(
        "kv.preset_bytes",
        "memory",
        "int",
        mib,
        dict(
            slug=slug,
            name=preset.name,
            layers=preset.layers,
            heads=preset.heads,
            kv_heads=preset.kv_heads,
            head_dim=preset.head_dim,
            tokens=context,
            batch=1,
            bytes_per_value=BYTES_PER_FLOAT16,
            bytes=nbytes,
            unit="MiB",
        ),
        (str(mib), f"{mib:,}", f"{mib:.1f}"),
    )

    h_kv = kv_heads if kv_heads < h else (gqa_value(h) or 1)
    j = rng.randrange(h_kv)
    heads = head_groups(h, h_kv)[j]
    q_share = QuizQuestion(
        "kv.shared_heads",
        "sharing",
        "cells",
        heads,
        dict(h=h, h_kv=h_kv, group=h // h_kv, kv_head=j),
        (heads, tuple(reversed(heads))),
        tuple(range(h)),
    )
    return q_shape, q_bytes, q_share
