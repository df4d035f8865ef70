"""The task ("previous digit + marked digit") and the numbers every part shares: the sizes of the model and
its training, the thresholds of the verdict, and the results measured with benchmarks/bench_why_heads.py.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from core.limits import WHY_SEED_MAX, WHY_SEED_MIN, WHY_STEP_CHOICES

VOCAB = 10  # digits 0..9
SEQ_LEN = 10
D_MODEL = 32
HEAD_COUNTS = (1, 2, 4)
BATCH_SIZE = 128
LEARNING_RATE = 1e-2
STEP_CHOICES = WHY_STEP_CHOICES  # core/limits.py: the longest training a click can start
DEFAULT_STEPS = 400
SEED_MIN, SEED_MAX = WHY_SEED_MIN, WHY_SEED_MAX
EVAL_SEED = 20_240_601  # one fixed test set for every run, so runs are compared on the same sequences
EVAL_SIZE = 1024
MATCH_THRESHOLD = 0.5  # a head "does" a relation when at least this much attention mass is on that position
LOSS_MARGIN = 0.25  # nats per answer: how much lower the multi-head loss must be to count as "clearly lower"
# Measured with benchmarks/bench_why_heads.py --full-values --heads 1 --seeds 0-2 --steps N (values = x,
# position and mark included): the single head's test accuracy (both answers right) for seeds 0, 1, 2.
FULL_VALUES_ACCURACY = {400: (0.93, 0.19, 0.87), 1600: (0.98, 0.19, 0.94)}
# Measured with benchmarks/bench_why_heads.py --heads 1 --seeds 0-4 --steps 3200 (the page's model):
# the single head's best test accuracy over those seeds.
SINGLE_HEAD_LONG_RUN = {"steps": 3200, "seeds": "0-4", "best_accuracy": 0.28}
# Measured with benchmarks/bench_why_heads.py --seeds 0-19 --steps 400 (the page's default): how many of
# the 40 multi-head runs (h = 2 and 4) showed the effect cleanly, and the single head's best accuracy.
SURVEY = {"steps": 400, "seeds": "0-19", "runs": 40, "clean": 39, "single_best_accuracy": 0.35}
SOLVED_ACCURACY = 0.5  # a single head above this "solved the task (or most of it)": reported, never hidden
CLEAN_ACCURACY = 0.95  # a multi-head run below this shows the effect only partly (heads not fully separated)
TASK_VERSION = 1  # part of every cache key: bump when the task, the model or the training changes

# The example drawn in the heatmaps: the first ten digits of pi, with the 9 at position 5 marked.
EXAMPLE_TOKENS = (3, 1, 4, 1, 5, 9, 2, 6, 5, 3)
EXAMPLE_MARKER = 5

RELATIONS = ("previous", "marker")
# "token": values carry the digit only (the page's model). "full": values are x itself, position and
# mark included -- only for the benchmark that measures how a single head fares then.
VALUE_KINDS = ("token", "full")


# ---------------------------------------------------------------- the task
@dataclass(frozen=True)
class Batch:
    tokens: torch.Tensor  # (B, T) digits
    marker: torch.Tensor  # (B,) the marked position
    targets: torch.Tensor  # (B, T-1, 2): for positions 1..T-1, (previous digit, marked digit)


def make_targets(tokens: torch.Tensor, marker: torch.Tensor) -> torch.Tensor:
    """(previous digit, marked digit) for every position 1..T-1: shape (B, T-1, 2)."""
    previous = tokens[:, :-1]  # (B, T-1): the token before positions 1..T-1
    marked = tokens.gather(1, marker[:, None]).expand_as(previous)  # (B, T-1)
    return torch.stack([previous, marked], dim=-1)


def make_batch(batch_size: int, generator: torch.Generator, *, vocab: int = VOCAB, seq_len: int = SEQ_LEN) -> Batch:
    tokens = torch.randint(0, vocab, (batch_size, seq_len), generator=generator)
    marker = torch.randint(0, seq_len, (batch_size,), generator=generator)
    return Batch(tokens, marker, make_targets(tokens, marker))


def example_batch() -> Batch:
    tokens = torch.tensor([EXAMPLE_TOKENS])
    marker = torch.tensor([EXAMPLE_MARKER])
    return Batch(tokens, marker, make_targets(tokens, marker))


def eval_batch() -> Batch:
    return make_batch(EVAL_SIZE, torch.Generator().manual_seed(EVAL_SEED))
