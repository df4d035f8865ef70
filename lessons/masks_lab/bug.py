"""The polarity bug: a causal mask stored as True = blocked but used as True = keep, on the run's own model."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypedDict

import torch

from core.attention import MultiHeadAttention, build_input, shared_model
from core.masks import FILL_VALUES, causal_mask, flip_polarity
from lessons.settings import Settings
from lessons.tokens import tokens as sentence_tokens


# ------------------------------------------------------------------ the polarity bug
class BugRow(TypedDict):
    """One query's line of the polarity bug's table (PolarityBug.summary)."""

    i: int
    token: str
    correct_past: float
    correct_future: float
    bug_past: float
    bug_future: float
    bug_nan: bool


@dataclass(frozen=True)
class PolarityBug:
    intended: torch.Tensor  # (T, T) the causal keep-grid
    stored: torch.Tensor  # (T, T) 0/1 the same causal mask written as True = blocked
    seen_keep: torch.Tensor  # (T, T) what the seed's `mask == 0` code keeps when given `stored`
    correct: torch.Tensor  # (h, T, T) weights with the right polarity
    bug: torch.Tensor  # (h, T, T) weights with the wrong polarity
    labels: list[str]

    def summary(self, head: int) -> list[BugRow]:
        """Per query: weight on keys 0..i (past and itself) and on keys > i (future), right vs bug."""
        T = self.intended.shape[0]
        future = torch.ones(T, T, dtype=torch.bool).triu(1)  # (T, T) j > i
        c, b = self.correct[head], self.bug[head]  # (T, T)

        def part(w: torch.Tensor, where: torch.Tensor) -> list[float]:
            """Row sums over `where` only (a NaN elsewhere in the row stays out)."""
            return torch.where(where, w, torch.zeros(())).sum(-1).tolist()

        cols = zip(
            part(c, ~future), part(c, future), part(b, ~future), part(b, future), torch.isnan(b).any(-1).tolist()
        )
        return [
            {
                "i": i,
                "token": self.labels[i],
                "correct_past": cp,
                "correct_future": cf,
                "bug_past": bp,
                "bug_future": bf,
                "bug_nan": bool(nan),
            }
            for i, (cp, cf, bp, bf, nan) in enumerate(cols)
        ]


def polarity_bug(settings: Settings, fill: str, model: MultiHeadAttention | None = None) -> PolarityBug:
    """A causal mask built as True = blocked, fed to the seed's `masked_fill(mask == 0, ...)`. `model`: the same
    settings' model with this fill value when the caller has it (a run of the lab), else built here."""
    T = settings.seq_len
    if model is None or model.fill_value != FILL_VALUES[fill]:
        model = shared_model(settings.d_model, settings.num_heads, settings.seed, FILL_VALUES[fill])
    x = build_input(1, T, settings.d_model, settings.seed)  # (1, T, d_model)
    intended = causal_mask(T)  # (1, 1, T, T) True = keep
    stored = flip_polarity(intended)  # True = blocked, as nn.MultiheadAttention expects
    with torch.no_grad():
        _, right = model.forward_with_trace(x, x, x, intended)
        _, wrong = model.forward_with_trace(x, x, x, stored)  # the bug: seed code reads 0 as blocked
    return PolarityBug(
        intended[0, 0],
        stored[0, 0].int(),
        stored[0, 0] != 0,
        right.weights[0],
        wrong.weights[0],
        sentence_tokens(T, settings.lang),
    )
