"""Section 4 of the KV cache page: generating T tokens with and without the cache, timed on the server
(`measure_generation`, run on a click), with the growth exponent fitted from the measured series.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import torch

from core.accounting import decode_macs
from core.attention import MultiHeadAttention, build_input, build_model
from core.kv_cache import KVCache, decode_step, head_groups
from core.masks import causal_mask
from core.threads import single_thread
from lessons.heatmap import Text, text
from lessons.kv_cache.keys import GEN_MAX, GEN_MIN
from lessons.settings import Settings

TIMING_POINTS = 6  # lengths the growth is fitted at, geometric from T/16 to T
TIMING_REPEATS = 3  # each step's time is the best of up to this many generations per mode ...
TIMING_BUDGET_S = 2.0  # ... a second and third one only while the measurement has taken less than this


GROWTH_KINDS = ("linear", "quadratic", "cubic")


def growth_exponent(lengths: npt.ArrayLike, values: npt.ArrayLike) -> float:
    """p in value ~ c * length^p: the least-squares slope of log(value) on log(length), over the larger half.

    The larger half only: at small lengths a fixed cost per step (Python, kernel launches) hides the
    growth the page is about. At least two points; every value must be positive.
    """
    L = np.asarray(lengths, dtype=np.float64)
    v = np.asarray(values, dtype=np.float64)
    if L.shape != v.shape or L.size < 2 or not (np.all(L > 0) and np.all(v > 0)):
        raise ValueError("growth_exponent needs >= 2 positive lengths and values of the same count")
    keep = max(2, math.ceil(L.size / 2))
    order = np.argsort(L)[-keep:]
    slope = np.polyfit(np.log(L[order]), np.log(v[order]), 1)[0]
    return float(slope)


def growth_kind(exponent: float) -> str:
    """The nearest of linear (1), quadratic (2), cubic (3): what the page calls the curve."""
    return GROWTH_KINDS[int(np.clip(round(exponent), 1, 3)) - 1]


def timing_lengths(tokens: int) -> tuple[int, ...]:
    """TIMING_POINTS lengths from tokens/16 to tokens, evenly spaced on a log scale (distinct, ascending)."""
    raw = np.geomspace(max(2, tokens // 16), tokens, TIMING_POINTS)
    return tuple(sorted({int(round(v)) for v in raw} | {tokens}))


@dataclass(frozen=True)
class TimingResult:
    """Generating T tokens with and without the cache, timed step by step.

    Times are CPU seconds of the generating thread (torch runs on that one thread here): the time the
    machine spent on our work, so the other sessions' load on a shared server bends the curve far less
    than wall-clock time would. Each step's time is its best over the repeats, so a spike in one
    generation is dropped; the time to generate L tokens is the sum of the first L steps.
    """

    tokens: int  # T
    kv_heads: int
    step_with: np.ndarray  # (T,) seconds of step t+1 with the cache: one decode_step against t+1 cached rows
    step_without: np.ndarray  # (T,) seconds of step t+1 without: one causal pass over t+1 tokens
    total_with: np.ndarray  # (T,) seconds to generate 1..T tokens with the cache (cumulative)
    total_without: np.ndarray  # (T,) without
    lengths: np.ndarray  # (n,) the lengths the growth is fitted at (timing_lengths)
    macs_with: np.ndarray  # (n,) multiply-adds of generating that many tokens, with the cache
    macs_without: np.ndarray  # (n,) without
    exponent_with: float  # fitted growth of total_with at `lengths` (growth_exponent)
    exponent_without: float
    kind_with: str  # linear | quadratic | cubic, from the exponent (growth_kind)
    kind_without: str
    macs_exponent_with: float  # the same fit on the counted multiply-adds (the prediction)
    macs_exponent_without: float
    step_exponent_without: float  # growth of one step's time without the cache (~1: each pass grows with t)
    speedup: float  # total_without / total_with at T
    outputs_max_abs_diff: float  # the two generations' T output rows: the same tokens were computed
    repeats: int  # generations made per mode (each step: best of these)
    wall_seconds: float  # the measurement's own wall-clock time


def _frozen(values: npt.ArrayLike, dtype: npt.DTypeLike) -> np.ndarray:
    a = np.array(values, dtype=dtype)
    a.setflags(write=False)
    return a


@torch.no_grad()
def measure_generation(
    settings: Settings,
    kv_heads: int,
    tokens: int,
    *,
    repeats: int = TIMING_REPEATS,
    budget_s: float = TIMING_BUDGET_S,
    on_progress: Callable[[int, int], None] | None = None,
    check: Callable[[], None] | None = None,
) -> TimingResult:
    """Time generating T tokens with and without the cache in our core, on this server, now, step by step.

    With the cache each token costs one `decode_step` (its projections, one score row over the cache);
    without, one causal pass over everything so far (what `generate_without_cache` loops over). T is
    bounded by the cache's limit (core/limits.py); each mode runs once, and again (up to `repeats` times)
    while the measurement is under `budget_s`. The growth is fitted from the measured series
    (`growth_exponent`), never assumed.

    The fitted exponents come out near 1 with the cache and 2 or more without (at many heads the (h, t, t)
    element-wise work of every pass, h T^3 / 3 in all, outgrows the matrix products); the worst case is a few
    seconds of CPU, so it runs on a click (measurements: benchmarks/README.md, "Moved from comments").
    Why the cached time can bend upwards at large T although its multiply-adds barely do: every step
    reads (and here copies: torch.cat, repeat_kv) the whole cache, t rows, so the memory traffic per token
    grows with t, the total with T^2 -- with a far smaller constant than the full passes without a cache.
    At small settings a fixed cost per step (Python, kernel calls) hides both curves' growth until T ~ 100.

    `on_progress(done, total)` before each generation (total: 2 x repeats, the most it may make); `check()`
    between steps, outside the clock (the work queue stops a timing nobody waits for there: core/work_queue.py).
    """
    if isinstance(tokens, bool) or not isinstance(tokens, int) or not GEN_MIN <= tokens <= GEN_MAX:
        raise ValueError(f"tokens must be an integer from {GEN_MIN} to {GEN_MAX} (core/limits.py), got {tokens!r}")
    if isinstance(repeats, bool) or not isinstance(repeats, int) or not 1 <= repeats <= 10:
        raise ValueError(f"repeats must be an integer from 1 to 10, got {repeats!r}")
    d_model, h = settings.d_model, settings.num_heads
    head_groups(h, kv_heads)
    model = build_model(d_model, h, settings.seed, num_kv_heads=kv_heads)
    x = build_input(1, tokens, d_model, settings.seed)  # (1, T, d_model): the prompt's embeddings stand in
    with single_thread():  # one intra-op thread, as the app runs (core/threads.py): steadier, and CPU time is ours
        return _measure(model, x, kv_heads, repeats, budget_s, on_progress, check)


def _generate_timed(
    model: MultiHeadAttention, x: torch.Tensor, cached: bool, check: Callable[[], None] | None = None
) -> tuple[list[float], torch.Tensor]:
    """One generation of x's T tokens; the CPU seconds of each step, and the T output rows (1, T, d_model)."""
    T = x.shape[1]
    clock = time.thread_time
    times, rows = [], []
    cache = KVCache.for_model(model, 1)
    for t in range(1, T + 1):
        if check is not None:
            check()
        start = clock()
        if cached:  # the new token only, against the cache
            row, _ = decode_step(model, cache, x[:, t - 1 : t])  # (1, 1, d_model)
        else:  # everything so far, again (as generate_without_cache does)
            prefix = x[:, :t]
            row = model(prefix, prefix, prefix, causal_mask(t))[:, -1:]  # (1, 1, d_model)
        times.append(clock() - start)
        rows.append(row)
    return times, torch.cat(rows, dim=1)


@torch.no_grad()
def _measure(
    model: MultiHeadAttention,
    x: torch.Tensor,
    kv_heads: int,
    repeats: int,
    budget_s: float,
    on_progress: Callable[[int, int], None] | None = None,
    check: Callable[[], None] | None = None,
) -> TimingResult:
    d_model, h, T = model.d_model, model.num_heads, x.shape[1]
    best_with, best_without = [math.inf] * T, [math.inf] * T
    start = time.perf_counter()
    done = 0
    while done < repeats and (done == 0 or time.perf_counter() - start < budget_s):
        if on_progress is not None:
            on_progress(2 * done, 2 * repeats)
        times, out_with = _generate_timed(model, x, cached=True, check=check)
        best_with = [min(a, b) for a, b in zip(best_with, times)]
        if on_progress is not None:
            on_progress(2 * done + 1, 2 * repeats)
        times, out_without = _generate_timed(model, x, cached=False, check=check)  # interleaved: load hits both alike
        best_without = [min(a, b) for a, b in zip(best_without, times)]
        done += 1
    wall = time.perf_counter() - start
    # A step too short for the clock reads 0 s: count it as one tick, so every total is positive.
    tick = time.get_clock_info("thread_time").resolution
    step_with, step_without = np.maximum(best_with, tick), np.maximum(best_without, tick)
    total_with, total_without = np.cumsum(step_with), np.cumsum(step_without)
    lengths = timing_lengths(T)
    at = [L - 1 for L in lengths]
    macs_with = [sum(decode_macs(d_model, h, kv_heads, t).with_cache for t in range(1, L + 1)) for L in lengths]
    macs_without = [sum(decode_macs(d_model, h, kv_heads, t).without_cache for t in range(1, L + 1)) for L in lengths]
    e_with, e_without = growth_exponent(lengths, total_with[at]), growth_exponent(lengths, total_without[at])
    return TimingResult(
        tokens=T,
        kv_heads=kv_heads,
        step_with=_frozen(step_with, np.float64),
        step_without=_frozen(step_without, np.float64),
        total_with=_frozen(total_with, np.float64),
        total_without=_frozen(total_without, np.float64),
        lengths=_frozen(lengths, np.int64),
        macs_with=_frozen(macs_with, np.int64),
        macs_without=_frozen(macs_without, np.int64),
        exponent_with=e_with,
        exponent_without=e_without,
        kind_with=growth_kind(e_with),
        kind_without=growth_kind(e_without),
        macs_exponent_with=growth_exponent(lengths, macs_with),
        macs_exponent_without=growth_exponent(lengths, macs_without),
        step_exponent_without=growth_exponent(lengths, step_without[at]),
        speedup=float(total_without[-1] / total_with[-1]),
        outputs_max_abs_diff=float((out_with - out_without).abs().max()),
        repeats=done,
        wall_seconds=wall,
    )


@dataclass(frozen=True)
class TimingShown:
    """What the timing section prints of a result (the chart is charts.lines.timing_chart's)."""

    metrics: tuple[tuple[Text, str], ...]  # (label, value): total with, total without the cache, the speedup
    fit: Text  # the fitted exponents and what they are called, beside the multiply-adds' own
    meta: Text  # generations made, wall time, the two modes' outputs' difference


def timing_shown(res: TimingResult) -> TimingShown:
    n = res.tokens
    return TimingShown(
        metrics=(
            (text("kv.time.total_with", n=n), f"{res.total_with[-1] * 1000:.1f} ms"),
            (text("kv.time.total_without", n=n), f"{res.total_without[-1] * 1000:.1f} ms"),
            (text("kv.time.speedup"), f"×{res.speedup:.1f}"),
        ),
        fit=text(
            "kv.time.fit",
            ew=f"{res.exponent_with:.2f}",
            kw=text(f"kv.growth.{res.kind_with}"),
            ewo=f"{res.exponent_without:.2f}",
            kwo=text(f"kv.growth.{res.kind_without}"),
            mw=f"{res.macs_exponent_with:.2f}",
            mwo=f"{res.macs_exponent_without:.2f}",
        ),
        meta=text(
            "kv.time.meta",
            repeats=res.repeats,
            wall=f"{res.wall_seconds:.2f}",
            diff=f"{res.outputs_max_abs_diff:.1e}",
        ),
    )
