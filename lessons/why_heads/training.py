"""Training: a deterministic Adam loop that a page can advance a chunk at a time (Trainer), shared by the
sessions that ask for the same run.
"""

from __future__ import annotations

import threading
import time

import torch

from core.limits import check_range
from core.threads import single_thread
from lessons.why_heads.measure import RunResult, evaluate
from lessons.why_heads.model import build_why_model, task_loss
from lessons.why_heads.task import (
    BATCH_SIZE,
    DEFAULT_STEPS,
    LEARNING_RATE,
    SEED_MAX,
    SEED_MIN,
    STEP_CHOICES,
    make_batch,
)


# ---------------------------------------------------------------- training
class Trainer:
    """Adam on fresh random batches; `advance(n)` runs n more steps, so a page can draw in between.

    Weights and batches come from their own generators seeded by `seed` (data: a separate
    stream), so the same (num_heads, seed) always gives bit-identical losses.
    """

    def __init__(
        self, num_heads: int, seed: int, steps: int, *, values: str = "token", max_steps: int = STEP_CHOICES[-1]
    ) -> None:
        self.num_heads, self.seed, self.steps = int(num_heads), int(seed), int(steps)
        # Bounded work: at most the longest training the page offers (a benchmark may raise max_steps).
        check_range("steps", self.steps, 1, max_steps)
        check_range("seed", self.seed, SEED_MIN, SEED_MAX)
        self.model = build_why_model(self.num_heads, self.seed, values=values)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=LEARNING_RATE)
        self.data = torch.Generator().manual_seed(self.seed + 1_000_003)
        self.losses: list[float] = []
        self.seconds = 0.0
        self.gate = threading.Lock()  # held by the one session advancing it (ResultStore.run_shared)

    @property
    def step(self) -> int:
        return len(self.losses)

    @property
    def done(self) -> bool:
        return self.step >= self.steps

    def advance(self, n: int) -> None:
        start = time.perf_counter()
        self.model.train()
        with single_thread():
            for _ in range(min(n, self.steps - self.step)):
                batch = make_batch(BATCH_SIZE, self.data)
                loss = task_loss(self.model(batch.tokens, batch.marker), batch.targets)
                self.optimizer.zero_grad(set_to_none=True)
                loss.backward()
                self.optimizer.step()
                self.losses.append(loss.item())
        self.seconds += time.perf_counter() - start

    @property
    def busy(self) -> bool:
        return self.gate.locked()

    def advance_shared(self, n: int, wait: float = 0.25) -> bool:
        """advance(n) unless another session is advancing this trainer: then wait up to `wait` seconds
        (the caller redraws the shared progress meanwhile). True when this call advanced it."""
        if not self.gate.acquire(timeout=wait):
            return False
        try:
            if not self.done:
                self.advance(n)
            return True
        finally:
            self.gate.release()

    def result(self) -> RunResult:
        with single_thread():
            return evaluate(
                self.model,
                num_heads=self.num_heads,
                seed=self.seed,
                steps=self.steps,
                losses=self.losses,
                seconds=self.seconds,
            )


def train(
    num_heads: int, seed: int, steps: int = DEFAULT_STEPS, *, values: str = "token", max_steps: int = STEP_CHOICES[-1]
) -> RunResult:
    trainer = Trainer(num_heads, seed, steps, values=values, max_steps=max_steps)
    trainer.advance(steps)
    return trainer.result()
