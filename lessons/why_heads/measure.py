"""Measuring a trained model: how much attention mass each head puts on the previous and the marked position,
which relation each head does, and a finished run's results on the fixed test set (RunResult).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch

from lessons.why_heads.model import WhyHeadsModel, parameter_count, task_loss
from lessons.why_heads.task import MATCH_THRESHOLD, eval_batch, example_batch


# ---------------------------------------------------------------- measuring the heads
def pattern_masses(weights: torch.Tensor, marker: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Per head: mean attention mass on the previous position and on the marked position.

    weights (B, h, T, T); marker (B,). Averaged over every query i >= 1 whose previous token
    is not the marked one (there the two relations point at the same key and cannot be told apart).
    Returns two (h,) tensors.
    """
    B, h, T, _ = weights.shape
    i = torch.arange(1, T)
    on_previous = weights[:, :, i, i - 1]  # (B, h, T-1)
    on_marker = weights[torch.arange(B), :, :, marker][:, :, 1:]  # (B, h, T-1)  (advanced index moves h first)
    apart = (marker[:, None] != i[None, :] - 1).to(weights.dtype)  # (B, T-1)
    count = apart.sum().clamp(min=1)
    prev = (on_previous * apart[:, None]).sum(dim=(0, 2)) / count
    mark = (on_marker * apart[:, None]).sum(dim=(0, 2)) / count
    return prev, mark


def head_roles(
    prev_mass: Sequence[float] | torch.Tensor,
    marker_mass: Sequence[float] | torch.Tensor,
    threshold: float = MATCH_THRESHOLD,
) -> list[str | None]:
    """For each head, the relation it matches ('previous', 'marker') or None."""
    roles: list[str | None] = []
    for p, m in zip(list(map(float, prev_mass)), list(map(float, marker_mass))):
        best, mass = ("previous", p) if p >= m else ("marker", m)
        roles.append(best if mass >= threshold else None)
    return roles


@dataclass(frozen=True)
class RunResult:
    num_heads: int
    seed: int
    steps: int  # planned steps
    losses: tuple[float, ...]  # training loss after every step that was run
    eval_loss: float  # mean cross-entropy per answer on the fixed test set
    accuracy: float  # both answers right
    previous_accuracy: float
    marker_accuracy: float
    previous_mass: tuple[float, ...]  # per head
    marker_mass: tuple[float, ...]  # per head
    example_weights: torch.Tensor  # (h, T, T) on the example sequence
    parameters: int
    seconds: float

    @property
    def complete(self) -> bool:
        return len(self.losses) >= self.steps

    @property
    def roles(self) -> list[str | None]:
        return head_roles(self.previous_mass, self.marker_mass)

    def heads_for(self, relation: str) -> list[int]:
        return [i for i, r in enumerate(self.roles) if r == relation]


@torch.no_grad()
def evaluate(
    model: WhyHeadsModel, *, num_heads: int, seed: int, steps: int, losses: Sequence[float], seconds: float
) -> RunResult:
    model.eval()
    data = eval_batch()
    logits, trace = model.forward_with_trace(data.tokens, data.marker)
    right = logits.argmax(-1) == data.targets  # (B, T-1, 2)
    prev, mark = pattern_masses(trace.weights, data.marker)
    example = example_batch()
    _, example_trace = model.forward_with_trace(example.tokens, example.marker)
    return RunResult(
        num_heads=num_heads,
        seed=seed,
        steps=steps,
        losses=tuple(losses),
        eval_loss=float(task_loss(logits, data.targets)),
        accuracy=float(right.all(-1).float().mean()),
        previous_accuracy=float(right[..., 0].float().mean()),
        marker_accuracy=float(right[..., 1].float().mean()),
        previous_mass=tuple(map(float, prev)),
        marker_mass=tuple(map(float, mark)),
        example_weights=example_trace.weights[0].clone(),
        parameters=parameter_count(model),
        seconds=seconds,
    )
