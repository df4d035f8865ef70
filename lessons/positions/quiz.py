"""The page's predict-then-reveal questions as data (`quiz_items`) and their grading (`accepts`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from core import positions as P
from lessons import scenario
from lessons.positions.common import EQUAL_TOL
from lessons.positions.shuffle import shuffle_view
from lessons.positions.values import PageValues
from lessons.settings import Settings
from lessons.tokens import tokens as sentence_tokens


# ================================================================ predict, then reveal
@dataclass(frozen=True)
class QuizItem:
    """One question as data: `key` names its wording (the page / lessons.quiz words it), `params` fill it in.

    answer_type: "int" (exact), "number" (within `tolerance`), "choice" (one of `options`).
    accepted: the answer's accepted texts (lower case; for a number, its rounded forms).
    """

    key: str
    params: dict
    answer_type: str
    answer: object
    options: tuple = ()
    tolerance: float = 0.0
    accepted: tuple[str, ...] = ()


def _number_forms(value: float, tolerance: float = 1e-3) -> tuple[str, ...]:
    """The rounded forms of a number answer that `accepts` takes (within `tolerance`: -0.81 is not -0.8056)."""
    forms = (f"{value:.2f}", f"{value:.3f}", f"{value:.4f}", f"{value:g}")
    return tuple(f for f in dict.fromkeys(forms) if abs(float(f) - value) <= tolerance)


def quiz_items(settings: Settings, values: PageValues, run: scenario.Scenario | None = None) -> tuple[QuizItem, ...]:
    """The page's predict-then-reveal questions for these settings and URL values; every answer computed by
    the code the page runs (no formula written again here)."""
    items: list[QuizItem] = []
    T = settings.seq_len
    words = sentence_tokens(T, settings.lang)
    perm = P.random_permutation(T, values.shuffle)
    i = int(torch.argmax((perm != torch.arange(T)).int()))  # the first row the shuffle changed
    # 1. Which original token's output is row i after the shuffle? (computed from the two runs: the original row
    # whose output equals the shuffled run's row i)
    sv = shuffle_view(settings, values.shuffle, False, 0, run)
    row = sv.output.panels[1].values[i]
    match = int(np.argmin(np.abs(sv.output.panels[0].values - row[None]).max(axis=1)))
    items.append(
        QuizItem(
            "pos.q.shuffled_row",
            {"row": i, "token": words[match], "perm": sv.perm.tolist()},
            "int",
            match,
            accepted=(str(match), f"{match}:{words[match]}".lower()),
        )
    )
    # 2. Un-shuffled, how far is the output from the original? without / with the causal mask
    for mode, gap in (("free", sv.free_output_gap), ("causal", sv.causal_output_gap)):
        zero = "zero" if gap <= EQUAL_TOL else "nonzero"
        items.append(
            QuizItem(
                f"pos.q.gap_{mode}",
                {"tolerance": EQUAL_TOL},
                "choice",
                zero,
                options=("zero", "nonzero"),
                accepted=(zero,),
            )
        )
    # 3. Under the causal mask, the token moved to the front: its weight on itself
    self_after = sv.front_self_after
    items.append(
        QuizItem(
            "pos.q.front_self",
            {"token": words[sv.front]},
            "number",
            self_after,
            tolerance=1e-3,
            accepted=_number_forms(self_after),
        )
    )
    # 4. RoPE: the score at (m, n) given the score at (m', n') with the same distance
    d_k, base = values.d_k, values.base
    gen = torch.Generator().manual_seed(settings.seed)
    q, k = torch.randn(d_k, generator=gen), torch.randn(d_k, generator=gen)
    g = P.rope_score_grid(q, k, 8, base)
    m0, n0, m1, n1 = 3, 1, 7, 5  # the same distance 2
    items.append(
        QuizItem(
            "pos.q.rope_diagonal",
            {"m0": m0, "n0": n0, "score0": round(float(g[m0, n0]), 4), "m": m1, "n": n1, "d_k": d_k, "base": base},
            "number",
            float(g[m1, n1]),
            tolerance=1e-3,
            accepted=_number_forms(float(g[m1, n1])),
        )
    )
    # 5. RoPE: the angle of pair `pair` at position `at` (radians)
    turn = P.pair_rotation(q, values.at, min(values.pair, d_k // 2 - 1), base)
    items.append(
        QuizItem(
            "pos.q.rope_angle",
            {"pair": min(values.pair, d_k // 2 - 1), "position": values.at, "d_k": d_k, "base": base},
            "number",
            turn.angle,
            tolerance=max(1e-3, 1e-4 * abs(turn.angle)),
            accepted=_number_forms(turn.angle, max(1e-3, 1e-4 * abs(turn.angle))),
        )
    )
    # 6. Can RoPE run with an odd d_k (d_k + 1 of the shared, or 7)? Answered by the core's own check.
    odd = settings.d_k + 1 if settings.d_k % 2 == 0 else settings.d_k
    try:
        P.check_rope(odd, base)
        ok = "yes"
    except ValueError:
        ok = "no"
    items.append(QuizItem("pos.q.rope_odd", {"d_k": odd}, "choice", ok, options=("yes", "no"), accepted=(ok,)))
    # 7. The sinusoidal table: PE[pos, 0] and PE[pos, 1]
    pos = min(T - 1, 3)
    table = P.sinusoidal_table(pos + 1, settings.d_model)
    items.append(
        QuizItem(
            "pos.q.sinusoid",
            {"position": pos, "column": 0, "d_model": settings.d_model},
            "number",
            float(table[pos, 0]),
            tolerance=1e-3,
            accepted=_number_forms(float(table[pos, 0])),
        )
    )
    return tuple(items)


def accepts(item: QuizItem, raw: str) -> bool:
    """Whether a typed answer is right: exact for int / choice (any accepted form), within tolerance for a number."""
    text = str(raw or "").strip().lower()[:40]
    if not text:
        return False
    if item.answer_type == "number":
        try:
            assert isinstance(item.answer, (int, float)), item.key
            return abs(float(text) - float(item.answer)) <= item.tolerance
        except ValueError:
            return False
    return text in item.accepted
