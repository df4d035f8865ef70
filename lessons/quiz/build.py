"""How the walkthrough's questions are built from a run: build_quiz reads every answer from the code the other
pages run (the traced tensors, the model's own layers, MultiHeadAttention's own check of h, core.masks).
"""

from __future__ import annotations

import functools
import random
import zlib

import torch

from core.accounting import tensor_shapes, weight_count
from core.attention import MultiHeadAttention
from core.masks import full_grid
from lessons.quiz.checking import d_k_mistakes, params_mistakes, shape_mistakes
from lessons.quiz.model import (
    CHANGES,
    D_K_FITS,
    D_K_MISFITS,
    PARAM_LAYERS,
    PARAM_WIDER,
    PLAN,
    SHAPE_FAMILIES,
    Question,
)
from lessons.scenario import Scenario, settings_mask
from lessons.settings import Settings, head_choices
from lessons.walkthrough import STEPS

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


def question_uid(settings: Settings, custom_text: str | None, index: int) -> str:
    grid = zlib.crc32((custom_text or "").encode()) if settings.mask == "custom" else 0
    s = settings
    return f"{s.d_model}-{s.num_heads}-{s.seq_len}-{s.mask}-{grid:x}-{s.seed}-{index}"


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
        uid = question_uid(s, custom_text, index)
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
                count = weight_count(run.model)
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
                count = weight_count(layer)
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
            before, after = weight_count(meta_model(d_model, h)), weight_count(meta_model(d_model, h2))
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
