"""The "timing" section: a live measurement of the forward pass for every h (`time_forward`) and its table
(`timing_columns`)."""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch

from core.accounting import Totals, totals_over_heads
from core.attention import build_input, build_model
from core.threads import single_thread
from lessons.heads.cost import all_head_counts
from lessons.heatmap import Text, text


@dataclass(frozen=True)
class Timing:
    h: int
    d_k: int
    median_ms: float  # one forward pass, median over the repeats
    min_ms: float
    max_ms: float
    repeats: int
    inner: int  # forward calls averaged inside one repeat (short calls are batched)


def time_forward(
    d_model: int,
    seq_len: int,
    seed: int,
    heads: Sequence[int] | None = None,
    *,
    repeats: int = 5,
    sample_seconds: float = 0.004,
    on_progress: Callable[[int, int, int], None] | None = None,
    clock: Callable[[], float] = time.perf_counter,
    check: Callable[[], None] | None = None,
) -> list[Timing]:
    """Time MultiHeadAttention.forward(x, x, x) (B = 1, no mask, no grad) for every h in `heads`.

    Each h: same weights (build_model), one warm-up call, then `repeats` samples; a sample is the
    mean of enough back-to-back calls to last about `sample_seconds`. Runs on one torch thread
    (core.threads.single_thread). `on_progress(done, total, h)` is called just before h is timed
    (done = how many h are finished); `check()` between samples, outside the clock (the work queue stops a
    timing nobody waits for there: core/work_queue.py). Wall-clock numbers: noisy, never asserted by tests.
    """
    heads = list(all_head_counts(d_model) if heads is None else heads)
    with single_thread():
        return _time_heads(
            d_model, seq_len, seed, heads, max(1, int(repeats)), sample_seconds, on_progress, clock, check
        )


def _time_heads(
    d_model: int,
    seq_len: int,
    seed: int,
    heads: Sequence[int],
    repeats: int,
    sample_seconds: float,
    on_progress: Callable[[int, int, int], None] | None,
    clock: Callable[[], float],
    check: Callable[[], None] | None = None,
) -> list[Timing]:
    x = build_input(1, seq_len, d_model, seed)  # (1, T, d_model), the same for every h
    out: list[Timing] = []
    for i, h in enumerate(heads):
        if on_progress is not None:
            on_progress(i, len(heads), h)
        model = build_model(d_model, h, seed)
        with torch.no_grad():
            model(x, x, x)  # warm-up
            t0 = clock()
            model(x, x, x)
            once = max(clock() - t0, 1e-7)
            inner = min(200, max(1, math.ceil(sample_seconds / once)))
            samples = []
            for _ in range(repeats):
                if check is not None:
                    check()
                t0 = clock()
                for _ in range(inner):
                    model(x, x, x)
                samples.append((clock() - t0) / inner * 1000.0)
        out.append(Timing(h, d_model // h, statistics.median(samples), min(samples), max(samples), repeats, inner))
    return out


def timing_columns(timings: Sequence[Timing], unmasked: Sequence[Totals]) -> dict[str, list]:
    """The timing table: h, d_k, median / min / max ms (4 decimals) and the predicted operations (no mask,
    like the timing)."""
    ops = {r.h: r.macs + r.elementwise for r in unmasked}
    return {
        "h": [r.h for r in timings],
        "d_k": [r.d_k for r in timings],
        "median": [round(r.median_ms, 4) for r in timings],
        "min": [round(r.min_ms, 4) for r in timings],
        "max": [round(r.max_ms, 4) for r in timings],
        "ops": [ops.get(r.h, 0) for r in timings],
    }


HARDLY_MOVES = 1.1  # the predicted operations "hardly move" over every h while the largest is within 10% of the least


def timing_noise(T: int, d_model: int) -> Text:
    """The note under the timing, its claim about the predicted operations chosen by them (no mask, as the timing):
    over every h they hardly move (within HARDLY_MOVES) or they grow by the factor printed, from h = 1 to the
    largest h (the element-wise work on the (B, h, T, T) tensors, large beside the multiply-adds at a small d_model
    and a long T: d_model 8, T 32 grows 1.5x)."""
    ops = [r.macs + r.elementwise for r in totals_over_heads(1, T, T, d_model, masked=False)]
    grows = max(ops) / min(ops)
    if grows < HARDLY_MOVES:
        return text("heads.time.noise", pct=f"{grows - 1:.0%}")
    return text("heads.time.noise_grows", x=f"{grows:.1f}", h=all_head_counts(d_model)[-1])
