"""The "Softmax up close" page (url_path `softmax`, issue 22) as plain data: what each section shows.

Three sections, each a lazy tab whose language-neutral id is the URL value `soft_tab`:

- "scale" (why ÷ sqrt(d_k)): the variance of q·k measured against d_k (`variance_curve`), and one row of
  the current run's raw scores q·k through the softmax under ÷1, ÷sqrt(d_k) and ÷d_k side by side, with
  entropy, largest weight and gradient size (`scale_row`). Which head and which query row: URL values.
- "max" (why subtract the max): the same row (÷sqrt(d_k), masked, as the model's softmax sees it), times a
  gain from the URL, through the naive, safe and online softmax in float32 and float16 (`max_row`): where
  exp overflows, the inf/NaN of the naive one, and how far the other two are from the exact softmax.
- "tiles" (tile by tile): the FlashAttention forward walk of one head with the URL's block sizes
  (`tile_walk`, then `tile_step` for the URL's step), the result beside the plain path's (`tile_result`),
  and the memory/traffic table for the current T and the long contexts (`memory_table`).

Every number comes from the shared settings' scenario (lessons/scenario.py), so it matches the other pages.
Nothing here is worded: the page turns keys into text (core/strings); heatmaps are `lessons.heatmap.Heatmap`
descriptions (axis and title keys `softmax.axis.*` / `softmax.hm.*`) handed to ui.heatmaps.show_heatmap. Arrays are
numpy and read-only (the page's shared cache hands the same object to every student). Nothing is cached
here. The expensive calls (measured on the shared 2-core machine, one torch thread, under load):
`tile_walk` at T 32 with blocks 1 x 1 (up to 1024 steps) 0.1-0.4 s, `tile_result` then 0.05-0.15 s,
`variance_curve` 0.1-0.2 s (it depends on the seed alone); everything else is a few ms. The page caches
`tile_walk` per (settings, head, blocks), so moving the step slider costs only `tile_step` (<= ~10 ms).

Why a lesson module: the page stays thin (read URL values -> call these -> draw), and every number it
prints is tested against an independent computation in tests/test_lesson_softmax.py.
"""

from __future__ import annotations

import itertools
import math
import random
import re
import zlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import torch
import torch.nn.functional as F

from core.limits import QUIZ_ANSWER_CHARS, TILE_BLOCK_MAX, TILE_BLOCK_MIN
from core.masks import FILL_SEED, full_grid
from core.softmax_numerics import (
    DTYPES,
    SCALE_NAMES,
    divisor,
    dot_variance,
    entropy,
    gradient_size,
    naive_failure,
    naive_softmax,
    online_softmax,
    overflow_threshold,
    safe_softmax,
)
from core.tiled_attention import (
    LONG_CONTEXTS,
    attention_memory,
    causal_tile_counts,
    context_costs,
    step_traffic,
    tile_bounds,
    tiled_attention,
)
from lessons import scenario as scenario_mod
from lessons import url
from lessons.heatmap import Heatmap, Panel, Rect, Text, readonly, text, value_range
from lessons.scenario import Scenario
from lessons.settings import Settings
from lessons.url import Fix, UrlKey, setting

PAGE = "softmax"  # url_path
SECTIONS = ("scale", "max", "tiles")  # soft_tab values, in the order of the lesson
GAINS = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000)  # soft_gain: the row times this; large enough to overflow
DEFAULT_BLOCK = 4  # soft_bq, soft_bk: at the default T = 8, 2 x 2 tiles, one skipped under the causal mask
VARIANCE_D_KS = tuple(2**i for i in range(10))  # 1 .. 512: every d_k the shared settings can make
# The draws' own seed: the curve is a property of random vectors, not of the shared X, so it is one measurement
# for every setting (computed once per d_k for the whole server) and its caption names this seed.
VARIANCE_SEED = 0
VARIANCE_DRAWS = 1000  # random (q, k) pairs per d_k: ~0.1 s; the relative error of a variance is ~ sqrt(8 / 1000)
TOLERANCE = {"float32": 1e-6, "float16": 2 * 2.0**-10}  # safe/online vs the exact softmax (core tests' bounds)
RESULT_TOLERANCE = 1e-6  # tiled vs plain path, float32 (tests/test_tiled_attention.py)
DTYPE_NAMES = ("float32", "float16")

# Cell and tile states of the step view (codes of a "state" heatmap).
TODO, DONE, CURRENT, SKIPPED = 0, 1, 2, 3
STATE_NAMES = ("todo", "done", "current", "skipped")
STATE_KEYS = tuple(f"softmax.state.{n}" for n in STATE_NAMES)  # the words of a "state" heatmap's codes
# Row states of the output so far.
ROW_WAITING, ROW_RUNNING, ROW_WRITTEN = 0, 1, 2


def _ro(a: torch.Tensor | npt.ArrayLike) -> np.ndarray:
    """A read-only numpy copy of a tensor / array: shared by every student through the page's cache."""
    if isinstance(a, torch.Tensor):
        a = a.detach().cpu()
        a = a.float().numpy() if a.dtype in (torch.float16, torch.bfloat16) else a.numpy()
    out = np.array(a, copy=True)
    out.setflags(write=False)
    return out


# ================================================================ URL keys and their corrections
def _n_steps(env: url.Env) -> int:
    return max(1, step_count(env["settings"], env["soft_bq"], env["soft_bk"], env.get("custom_text")))


# The page's URL keys, declared once (lessons/url.py parses them; ui/url_state.py reads and writes them back).
# Parsed in this order: soft_step's range depends on the block sizes and the mask.
URL_KEYS: tuple[UrlKey, ...] = (
    UrlKey("soft_tab", "choice", SECTIONS[0], choices=SECTIONS),
    UrlKey("soft_head", "int", 0, lo=0, hi=setting("num_heads", -1)),  # 0-based, like masks_head
    # the last row by default: it sees every key under causal
    UrlKey("soft_row", "int", setting("seq_len", -1), lo=0, hi=setting("seq_len", -1)),
    UrlKey("soft_gain", "choice", GAINS[0], choices=GAINS),
    UrlKey("soft_bq", "int", DEFAULT_BLOCK, lo=TILE_BLOCK_MIN, hi=TILE_BLOCK_MAX),
    UrlKey("soft_bk", "int", DEFAULT_BLOCK, lo=TILE_BLOCK_MIN, hi=TILE_BLOCK_MAX),
    UrlKey("soft_step", "int", 1, lo=1, hi=_n_steps),  # 1-based: "step s of n"
)
URL_KEY_NAMES = url.names(URL_KEYS)
FIELDS = {
    "soft_tab": "tab",
    "soft_head": "head",
    "soft_row": "row",
    "soft_gain": "gain",
    "soft_bq": "block_q",
    "soft_bk": "block_k",
    "soft_step": "step",
}  # URL key -> PageValues field


@dataclass(frozen=True)
class PageValues:
    """The page's own URL values, valid for the settings they were parsed with."""

    tab: str
    head: int
    row: int
    gain: int
    block_q: int
    block_k: int
    step: int  # 1-based

    @classmethod
    def of(cls, values: Mapping[str, Any]) -> PageValues:
        return cls(**{field: values[key] for key, field in FIELDS.items()})


def step_count(settings: Settings, block_q: int, block_k: int, custom_text: str | None = None) -> int:
    """How many (query tile, key tile) steps the walk processes, from the mask alone (no attention run):
    the step slider's length. A tile is skipped when it keeps no cell, unless one of its rows is blocked
    entirely (core/tiled_attention.py keeps such tiles: that row needs its -1e9 cells)."""
    T = settings.seq_len
    grid = full_grid(scenario_mod.settings_mask(settings.mask, T, T, custom_text), 1, T, T)[0]  # (T, T)
    keep = grid.numpy()  # (T, T)
    blocked_row = (~grid.any(dim=-1)).numpy()  # (T,)
    n = 0
    for q0, q1 in tile_bounds(T, block_q):  # numpy, not torch: 1024 tiles at blocks 1 x 1 in ~2 ms
        row_blocked = bool(blocked_row[q0:q1].any())
        for k0, k1 in tile_bounds(T, block_k):
            n += row_blocked or bool(keep[q0:q1, k0:k1].any())
    return n


def env_of(settings: Settings, custom_text: str | None = None) -> dict:
    """What the keys' bounds depend on: the shared settings and the custom mask's text."""
    return {"settings": settings, "custom_text": custom_text}


def url_bounds(
    settings: Settings, block_q: int = DEFAULT_BLOCK, block_k: int = DEFAULT_BLOCK, custom_text: str | None = None
) -> dict[str, tuple]:
    """Every key's concrete allowed values for these settings: (lo, hi, default) or (choices, default)."""
    env = {**env_of(settings, custom_text), "soft_bq": block_q, "soft_bk": block_k}
    out: dict[str, tuple] = {}
    for key in URL_KEYS:
        r = key.resolved(env)
        out[key.name] = (r["choices"], r["default"]) if key.kind == "choice" else (r["lo"], r["hi"], r["default"])
    return out


def parse_url(settings: Settings, raw: Mapping, custom_text: str | None = None) -> tuple[PageValues, list[Fix]]:
    """All of the page's URL values from raw text (any garbage), in dependency order. Never raises; returns
    what was corrected."""
    values, fixes = url.parse(URL_KEYS, raw, env_of(settings, custom_text))
    return PageValues.of(values), fixes


# ================================================================ shared pieces
AXES = ("query", "key", "feature", "scale", "query_tile", "key_tile")  # axis keys: softmax.axis.<name>
SHOWN_FEATURES = 64  # output heatmaps carry the first d_k columns up to this (32 x 64 values; the checks use all)
SCALE_LABELS = ("÷1", "÷√d_k", "÷d_k")  # the scale heatmap's row labels, in SCALE_NAMES order (symbols, no words)


def _labels(axis: str, positions: Iterable[int | np.integer], tokens: list[str]) -> tuple[str, ...]:
    return tuple(tokens[int(p)] if axis in ("query", "key") else str(int(p)) for p in positions)


def heatmap(
    name: str,
    values: torch.Tensor | npt.ArrayLike,
    row_axis: str,
    col_axis: str,
    tokens: list[str],
    role: str,
    *,
    rows: npt.ArrayLike | None = None,
    cols: npt.ArrayLike | None = None,
    vmin: float | None = None,
    vmax: float | None = None,
    blocked: npt.ArrayLike | None = None,
    rects: Iterable[Rect] = (),
    title: Text | None = None,
    row_labels: tuple[str, ...] | None = None,
) -> Heatmap:
    """One panel as a `lessons.heatmap.Heatmap` (the chart route's plain description). Axis keys become
    texts `softmax.axis.<axis>`; rows / cols: the positions the rows / columns stand for (their labels are
    the run's tokens on query/key axes, the numbers otherwise). The range defaults to the role's
    (`value_range`): 0..1 weights, symmetric signed, 0..3 for the STATE_NAMES codes."""
    v = readonly(values)
    r = np.arange(v.shape[0]) if rows is None else np.asarray(rows)
    c = np.arange(v.shape[1]) if cols is None else np.asarray(cols)
    if vmin is None or vmax is None:
        vmin, vmax = (0.0, float(len(STATE_NAMES) - 1)) if role == "state" else value_range(role, [v])
    panel = Panel(
        values=v,
        row_labels=row_labels or _labels(row_axis, r, tokens),
        col_labels=_labels(col_axis, c, tokens),
        blocked=None if blocked is None else _ro(np.asarray(blocked, dtype=bool)),
    )
    return Heatmap(
        name=name,
        panels=(panel,),
        role=role,
        vmin=float(vmin),
        vmax=float(vmax),
        row_axis=text(f"softmax.axis.{row_axis}"),
        col_axis=text(f"softmax.axis.{col_axis}"),
        rects=tuple(rects),
        states=STATE_KEYS if role == "state" else (),
        title=title,
    )


def values_of(hm: Heatmap) -> np.ndarray:
    """The (only) panel's matrix: what tests and tables read."""
    return hm.panels[0].values


def get_run(settings: Settings, run: Scenario | None = None, custom_text: str | None = None) -> Scenario:
    """The shared settings' run (the page passes its cached one); a run for other settings is refused."""
    if run is None:
        return scenario_mod.run(settings, custom_text=custom_text)
    if run.settings != settings:
        raise ValueError("the run was made for other settings")
    return run


def _keep(run: Scenario) -> torch.Tensor:
    T = run.settings.seq_len
    return full_grid(run.mask, 1, T, T)[0]  # (T, T) True = keep


def max_abs_diff(a: torch.Tensor, b: torch.Tensor) -> float:
    """Largest |a - b| over the cells where both are finite; inf if they disagree on where NaN/inf sit."""
    a, b = a.double(), b.double()
    if not torch.equal(torch.isfinite(a), torch.isfinite(b)):
        return math.inf
    ok = torch.isfinite(a)
    return float((a - b)[ok].abs().max()) if ok.any() else 0.0


# ================================================================ section 1: why ÷ sqrt(d_k)
@dataclass(frozen=True)
class VarianceCurve:
    """Var(q·k) against d_k for random N(0, 1) q, k: a line chart with x = d_k (log scale reads best),
    the measured points, the line y = d_k, and the variance after ÷ sqrt(d_k) (~1 everywhere)."""

    d_ks: np.ndarray  # (n,) int  1, 2, 4, ..., 512
    variance: np.ndarray  # (n,)  measured Var(q·k)
    expected: np.ndarray  # (n,)  d_k: the line
    scaled_variance: np.ndarray  # (n,)  measured Var(q·k / sqrt(d_k))
    draws: int
    seed: int
    current_d_k: int  # the settings' d_k: the point the page marks
    current_index: int  # its index in d_ks


def variance_curve(settings: Settings) -> VarianceCurve:
    """Measured over VARIANCE_DRAWS random pairs per d_k, from VARIANCE_SEED (core dot_variance); the settings
    only pick the d_k the page marks."""
    rows = dot_variance(VARIANCE_D_KS, VARIANCE_DRAWS, VARIANCE_SEED)
    return VarianceCurve(
        d_ks=_ro(np.array(VARIANCE_D_KS)),
        variance=_ro(np.array([r.variance for r in rows])),
        expected=_ro(np.array([r.expected for r in rows])),
        scaled_variance=_ro(np.array([r.scaled_variance for r in rows])),
        draws=VARIANCE_DRAWS,
        seed=VARIANCE_SEED,
        current_d_k=settings.d_k,
        current_index=VARIANCE_D_KS.index(settings.d_k),
    )


@dataclass(frozen=True)
class ScaleVariantRow:
    name: str  # "1", "sqrt_d_k", "d_k" (SCALE_NAMES)
    divisor: float
    scaled: np.ndarray  # (T,)  raw q·k / divisor (blocked keys included, greyed by `kept`)
    weights: np.ndarray  # (T,)  softmax, blocked keys filled with -1e9 first (0 weight)
    entropy: float  # nats
    max_weight: float
    gradient: float  # Frobenius norm of the softmax Jacobian (core gradient_size)
    mean_entropy: float  # over every row and head of the run
    mean_max_weight: float
    mean_gradient: float


@dataclass(frozen=True)
class ScaleRow:
    """One row of the run's raw scores under ÷1, ÷sqrt(d_k), ÷d_k: bars with the key tokens on x."""

    head: int
    row: int
    d_k: int
    token: str  # the query's token
    key_tokens: tuple[str, ...]  # (T,)
    raw: np.ndarray  # (T,)  q·k of this row (trace.scores)
    kept: np.ndarray  # (T,) bool  keys the mask keeps
    row_blocked: bool  # the mask keeps no key: every variant is uniform (all cells -1e9), as in the model
    variants: tuple[ScaleVariantRow, ...]  # in SCALE_NAMES order
    max_entropy: float  # log(number of kept keys): a uniform row
    order_holds: bool  # entropy(÷1) <= entropy(÷sqrt d_k) <= entropy(÷d_k) (with 1e-6 slack)
    divisors_equal: bool  # d_k = 1: the three variants are the same
    model_diff: float  # max |÷sqrt(d_k) weights - the model's trace.weights row|: the page's check
    heatmap: Heatmap  # (3, T) the three weight rows, rows = the variants (row_axis "scale")


def jacobian_norm(weights: torch.Tensor) -> torch.Tensor:
    """(...,) the Frobenius norm of each row's softmax Jacobian diag(p) - p p^T without building it:
    ||J||^2 = sum_i (p_i (1 - p_i))^2 + sum_{i != j} p_i^2 p_j^2, the second sum as (sum p^2)^2 - sum p^4, in
    float64 (a near one-hot row cancels). Same number as core gradient_size (tested), but O(T) a row instead of
    O(T^2): the run's mean over 64 heads x 32 rows costs ~1 ms instead of ~1 s."""
    p = weights.double()
    p2 = p * p  # (..., T_k)
    off = (p2.sum(dim=-1) ** 2 - (p2 * p2).sum(dim=-1)).clamp(min=0)  # (...,)
    return ((p * (1 - p)) ** 2).sum(dim=-1).add(off).sqrt().to(weights.dtype)


def _variant_weights(raw: torch.Tensor, keep: torch.Tensor, c: float) -> torch.Tensor:
    """raw / c, blocked cells filled with the seed's -1e9 (after scaling, as the model does), softmax."""
    return torch.softmax((raw / c).masked_fill(~keep, FILL_SEED), dim=-1)


def scale_row(
    settings: Settings, head: int, row: int, run: Scenario | None = None, custom_text: str | None = None
) -> ScaleRow:
    """The same row of q·k under the three divisors, with the saturation measures of each, for the run."""
    run = get_run(settings, run, custom_text)
    keep = _keep(run)  # (T, T)
    scores = run.trace.scores[0]  # (h, T, T)  raw q·k
    raw = scores[head, row]  # (T,)
    d_k = settings.d_k
    variants = []
    for name in SCALE_NAMES:
        c = divisor(name, d_k)
        w = _variant_weights(raw, keep[row], c)  # (T,)
        w_all = _variant_weights(scores, keep, c)  # (h, T, T)
        if name == "sqrt_d_k":
            model_diff = max_abs_diff(w, run.trace.weights[0, head, row])  # the model's own softmax row
        variants.append(
            ScaleVariantRow(
                name=name,
                divisor=c,
                scaled=_ro(raw / c),
                weights=_ro(w),
                entropy=float(entropy(w)) + 0.0,
                max_weight=float(w.max()),
                gradient=float(gradient_size(w)),
                mean_entropy=float(entropy(w_all).mean()) + 0.0,
                mean_max_weight=float(w_all.amax(dim=-1).mean()),
                mean_gradient=float(jacobian_norm(w_all).mean()),
            )
        )
    e = [v.entropy for v in variants]
    n_kept = int(keep[row].sum())
    hm = heatmap(
        "scale_row",
        np.stack([v.weights for v in variants]),
        "scale",
        "key",
        run.tokens,
        "weights",
        row_labels=SCALE_LABELS,
        blocked=np.broadcast_to(~keep[row].numpy(), (len(SCALE_NAMES), len(raw))),
        title=text("softmax.hm.scale_row", head=head, row=row, token=run.tokens[row]),
    )
    return ScaleRow(
        head=head,
        row=row,
        d_k=d_k,
        token=run.tokens[row],
        key_tokens=tuple(run.tokens),
        raw=_ro(raw),
        kept=_ro(keep[row]),
        row_blocked=n_kept == 0,
        variants=tuple(variants),
        max_entropy=math.log(n_kept if n_kept else settings.seq_len),
        order_holds=e[0] <= e[1] + 1e-6 and e[1] <= e[2] + 1e-6,
        divisors_equal=d_k == 1,
        model_diff=model_diff,
        heatmap=hm,
    )


# ================================================================ section 2: why subtract the max
@dataclass(frozen=True)
class DtypeRow:
    """The row through the three softmaxes in one dtype, and how each compares with the exact softmax."""

    dtype: str  # "float32" or "float16"
    scores: np.ndarray  # (T,)  the row in this dtype (float16 values shown as float32; -1e9 is -inf in float16)
    threshold: float  # exp(s) overflows above this: 88.72 float32, 11.09 float16
    exp: np.ndarray  # (T,)  exp(s) in this dtype: inf where it overflows
    exp_overflows: np.ndarray  # (T,) bool  (core naive_failure, predicted from the scores alone)
    sum_overflows: bool
    sum_underflows: bool
    naive: np.ndarray  # (T,)  exp(s) / sum exp(s): NaN / 0 where it breaks
    naive_nan: np.ndarray  # (T,) bool  predicted NaN
    naive_zero: np.ndarray  # (T,) bool  predicted wrongly wiped to 0
    naive_ok: bool
    safe: np.ndarray  # (T,)
    online: np.ndarray  # (T,)
    online_m: np.ndarray  # (T,)  running max after each key
    online_l: np.ndarray  # (T,)  running normaliser after each key
    online_rescale: np.ndarray  # (T,)  exp(m_old - m_new) at each key
    exact: np.ndarray  # (T,)  float64 softmax of the same (dtype-rounded) scores
    naive_diff: float  # max |naive - exact|; inf when naive has NaN/inf
    safe_diff: float
    online_diff: float
    tolerance: float  # TOLERANCE[dtype]
    scores_finite: bool  # the gained kept scores fit the dtype at all (float16 tops out at 65504)


@dataclass(frozen=True)
class MaxRow:
    head: int
    row: int
    gain: int
    token: str
    key_tokens: tuple[str, ...]
    kept: np.ndarray  # (T,) bool
    row_blocked: bool  # no key kept: float32 gives uniform weights (all -1e9), float16 NaN everywhere (all -inf)
    base: np.ndarray  # (T,)  the model's softmax input for this row (trace.masked_scores): gain 1
    row_max: float  # the largest kept score at gain 1
    dtypes: tuple[DtypeRow, ...]  # float32, float16
    gains: np.ndarray  # (len(GAINS),) the gain choices
    naive_ok_by_gain: np.ndarray  # (len(GAINS), 2) bool: does naive survive each gain, float32 / float16
    first_failing_gain: tuple[int | None, ...]  # per DTYPE_NAMES: smallest gain of GAINS where naive breaks, per dtype
    exp_overflow_gain: tuple[float | None, ...]  # per DTYPE_NAMES: threshold / row_max: from here exp(max) overflows


def _gained(run: Scenario, head: int, row: int, gain: float) -> tuple[torch.Tensor, torch.Tensor]:
    keep = _keep(run)[row]  # (T,)
    s = (run.trace.scaled_scores[0, head, row] * gain).masked_fill(~keep, FILL_SEED)  # (T,)
    return s, keep


def _dtype_row(s: torch.Tensor, keep: torch.Tensor, name: str) -> DtypeRow:
    dtype = DTYPES[name]
    x = s.to(dtype)  # (T,)
    fail = naive_failure(x, dtype)
    naive, safe, online = naive_softmax(x, dtype), safe_softmax(x, dtype), online_softmax(x, dtype)
    exact = torch.softmax(x.double(), dim=-1)  # (T,)
    return DtypeRow(
        dtype=name,
        scores=_ro(x),
        threshold=overflow_threshold(dtype),
        exp=_ro(torch.exp(x)),
        exp_overflows=_ro(fail.exp_overflows),
        sum_overflows=fail.sum_overflows,
        sum_underflows=fail.sum_underflows,
        naive=_ro(naive),
        naive_nan=_ro(fail.nan),
        naive_zero=_ro(fail.zero),
        naive_ok=fail.ok,
        safe=_ro(safe),
        online=_ro(online.weights),
        online_m=_ro(online.m),
        online_l=_ro(online.l),
        online_rescale=_ro(online.rescale),
        exact=_ro(exact),
        naive_diff=max_abs_diff(naive, exact),
        safe_diff=max_abs_diff(safe, exact),
        online_diff=max_abs_diff(online.weights, exact),
        tolerance=TOLERANCE[name],
        scores_finite=bool(torch.isfinite(x[keep]).all()),
    )


def max_row(
    settings: Settings, head: int, row: int, gain: int, run: Scenario | None = None, custom_text: str | None = None
) -> MaxRow:
    """The row the model's softmax sees (÷sqrt(d_k), blocked keys -1e9), its kept scores times `gain`,
    through naive / safe / online softmax in float32 and float16; plus, for every gain of GAINS, whether
    the naive one survives (so the page can say from which gain it breaks)."""
    run = get_run(settings, run, custom_text)
    s, keep = _gained(run, head, row, gain)
    base, _ = _gained(run, head, row, 1)
    by_gain = np.array(
        [[naive_failure(_gained(run, head, row, g)[0], DTYPES[n]).ok for n in DTYPE_NAMES] for g in GAINS]
    )  # (len(GAINS), 2)
    first = tuple(next((g for g, ok in zip(GAINS, by_gain[:, i]) if not ok), None) for i in range(2))
    row_max = float(base[keep].max()) if keep.any() else float(base.max())
    exp_gain = tuple(overflow_threshold(DTYPES[n]) / row_max if row_max > 0 else None for n in DTYPE_NAMES)
    return MaxRow(
        head=head,
        row=row,
        gain=gain,
        token=run.tokens[row],
        key_tokens=tuple(run.tokens),
        kept=_ro(keep),
        row_blocked=not bool(keep.any()),
        base=_ro(base),
        row_max=row_max,
        dtypes=tuple(_dtype_row(s, keep, n) for n in DTYPE_NAMES),
        gains=_ro(np.array(GAINS)),
        naive_ok_by_gain=_ro(by_gain),
        first_failing_gain=first,
        exp_overflow_gain=exp_gain,
    )


# ================================================================ section 3: tile by tile
@dataclass(frozen=True)
class WalkStep:
    """One processed (query tile, key tile) step of one head (core TileStep, as numpy)."""

    q_tile: int
    k_tile: int
    q_start: int
    q_stop: int
    k_start: int
    k_stop: int
    scores: np.ndarray  # (r, c)  this tile of the scaled, masked scores
    p: np.ndarray  # (r, c)  exp(scores - m_new)
    m_old: np.ndarray  # (r,)  -inf before the first tile of a query tile
    m_new: np.ndarray  # (r,)
    rescale: np.ndarray  # (r,)  exp(m_old - m_new)
    l: np.ndarray  # (r,)
    acc: np.ndarray  # (r, d_k)
    loads_q: bool
    writes_o: bool
    traffic: dict  # numbers moved by this step (core step_traffic): read_q, read_k, read_v, write_o


@dataclass(frozen=True)
class TileWalk:
    """The whole walk of one head with the page's blocks: every step, the skipped tiles, the final state."""

    head: int
    block_q: int
    block_k: int
    T: int
    d_k: int
    tokens: tuple[str, ...]
    q_bounds: tuple[tuple[int, int], ...]  # (start, stop) of each query tile
    k_bounds: tuple[tuple[int, int], ...]
    steps: tuple[WalkStep, ...]  # in loop order
    skipped: tuple[tuple[int, int], ...]  # (query tile, key tile) pairs never processed
    scores: np.ndarray  # (T, T)  the full scaled score matrix of the head (trace.scaled_scores), for the overlay
    kept: np.ndarray  # (T, T) bool  the mask
    output: np.ndarray  # (T, d_k)  acc / l at the end
    m: np.ndarray  # (T,)  final running max
    l: np.ndarray  # (T,)  final running normaliser

    @property
    def n_steps(self) -> int:
        return len(self.steps)

    @property
    def n_tiles(self) -> int:
        return len(self.q_bounds) * len(self.k_bounds)


def tile_walk(
    settings: Settings,
    head: int,
    block_q: int,
    block_k: int,
    run: Scenario | None = None,
    custom_text: str | None = None,
) -> TileWalk:
    """Run core tiled_attention on one head of the run (its q_heads, k_heads, v_heads and mask) and keep every
    step. The expensive call of the section (T 32, blocks 1 x 1: 1024 steps): the page caches it."""
    run = get_run(settings, run, custom_text)
    tr = run.trace
    sl = slice(head, head + 1)
    walk = tiled_attention(
        tr.q_heads[:, sl],
        tr.k_heads_expanded[:, sl],
        tr.v_heads_expanded[:, sl],
        run.mask,
        block_q=block_q,
        block_k=block_k,
    )
    d_k = settings.d_k
    steps = tuple(
        WalkStep(
            q_tile=s.q_tile,
            k_tile=s.k_tile,
            q_start=s.q_start,
            q_stop=s.q_stop,
            k_start=s.k_start,
            k_stop=s.k_stop,
            scores=_ro(s.scores[0, 0]),
            p=_ro(s.p[0, 0]),
            m_old=_ro(s.m_old[0, 0]),
            m_new=_ro(s.m_new[0, 0]),
            rescale=_ro(s.rescale[0, 0]),
            l=_ro(s.l[0, 0]),
            acc=_ro(s.acc[0, 0]),
            loads_q=s.loads_q,
            writes_o=s.writes_o,
            traffic=step_traffic(s, d_k),
        )
        for s in walk.steps
    )
    T = settings.seq_len
    return TileWalk(
        head=head,
        block_q=block_q,
        block_k=block_k,
        T=T,
        d_k=d_k,
        tokens=tuple(run.tokens),
        q_bounds=tuple(tile_bounds(T, block_q)),
        k_bounds=tuple(tile_bounds(T, block_k)),
        steps=steps,
        skipped=walk.skipped,
        scores=_ro(tr.scaled_scores[0, head]),
        kept=_ro(_keep(run)),
        output=_ro(walk.output[0, 0]),
        m=_ro(walk.m[0, 0]),
        l=_ro(walk.l[0, 0]),
    )


@dataclass(frozen=True)
class TileStepView:
    """What the page shows at step `step` (1-based) of the walk."""

    step: int
    n_steps: int
    is_last: bool
    current: WalkStep
    tile: tuple[int, int]  # (query tile, key tile)
    cells: tuple[int, int, int, int]  # (q_start, q_stop, k_start, k_stop) on the full score matrix
    tile_state: Heatmap  # (n_q_tiles, n_k_tiles) STATE codes: todo / done / current / skipped
    cell_state: Heatmap  # (T, T) the same per cell, for greying/highlighting the full score matrix
    scores: Heatmap  # (T, T) the head's full scaled score matrix (signed), blocked cells NaN and `blocked`;
    # rects: the skipped tiles (style "skipped", runs of one query tile merged) and the current one (last)
    skipped_so_far: int  # skipped tiles before the current one in loop order
    skipped_total: int
    # (T, min(d_k, SHOWN_FEATURES)) written rows = final, running rows = acc / l now, waiting rows = NaN
    output_so_far: Heatmap
    row_state: np.ndarray  # (T,) ROW_WAITING / ROW_RUNNING / ROW_WRITTEN
    m_rows: np.ndarray  # (T,)  running max of each row so far (NaN: its query tile has not started)
    l_rows: np.ndarray  # (T,)
    traffic_so_far: dict  # numbers moved by steps 1..step (read_q, read_k, read_v, write_o)
    tile_scores: Heatmap  # (r, c) this tile's scaled scores, rows/cols = its query/key positions, blocked NaN
    tile_p: Heatmap  # (r, c) exp(scores - m_new): this tile's unnormalised weights, each in 0..1
    # (r, min(d_k, SHOWN_FEATURES)) the running unnormalised output of the tile's rows after this step
    tile_acc: Heatmap


def _skipped_rects(walk: TileWalk) -> tuple[Rect, ...]:
    """The skipped tiles as outlined rectangles, neighbours in one query tile merged into one: a causal walk at
    blocks 1 x 1 skips 496 tiles, but they are 31 runs (the chart's payload stays a few KB, not ~30 KB)."""
    out: list[Rect] = []
    for i, j in walk.skipped:  # loop order: by query tile, then key tile
        last = out[-1] if out else None
        q0, q1 = walk.q_bounds[i]
        k0, k1 = walk.k_bounds[j]
        if last is not None and (last.r0, last.r1, last.c1) == (q0, q1, k0):
            out[-1] = Rect(0, q0, q1, last.c0, k1, style="skipped")
        else:
            out.append(Rect(0, q0, q1, k0, k1, style="skipped"))
    return tuple(out)


def tile_step(walk: TileWalk, step: int) -> TileStepView:
    """The state of the walk after step `step` (1-based, clamped to 1..n_steps): cheap numpy slicing only."""
    n = walk.n_steps
    step = min(max(int(step), 1), n)
    cur = walk.steps[step - 1]
    nq, nk = len(walk.q_bounds), len(walk.k_bounds)
    tiles = np.full((nq, nk), TODO, dtype=np.int8)
    for s in walk.steps[: step - 1]:
        tiles[s.q_tile, s.k_tile] = DONE
    for i, j in walk.skipped:
        tiles[i, j] = SKIPPED
    tiles[cur.q_tile, cur.k_tile] = CURRENT
    cells = np.empty((walk.T, walk.T), dtype=np.int8)
    for i, (q0, q1) in enumerate(walk.q_bounds):
        for j, (k0, k1) in enumerate(walk.k_bounds):
            cells[q0:q1, k0:k1] = tiles[i, j]
    out = np.full((walk.T, walk.d_k), np.nan, dtype=np.float32)
    m_rows = np.full(walk.T, np.nan, dtype=np.float32)
    l_rows = np.full(walk.T, np.nan, dtype=np.float32)
    rows = np.full(walk.T, ROW_WAITING, dtype=np.int8)
    for q0, q1 in walk.q_bounds[: cur.q_tile]:  # finished query tiles: their output rows are written
        out[q0:q1], m_rows[q0:q1], l_rows[q0:q1], rows[q0:q1] = (
            walk.output[q0:q1],
            walk.m[q0:q1],
            walk.l[q0:q1],
            ROW_WRITTEN,
        )
    q0, q1 = cur.q_start, cur.q_stop
    with np.errstate(invalid="ignore", divide="ignore"):
        out[q0:q1] = cur.acc / cur.l[:, None]
    m_rows[q0:q1], l_rows[q0:q1] = cur.m_new, cur.l
    rows[q0:q1] = ROW_WRITTEN if cur.writes_o else ROW_RUNNING
    traffic = {key: sum(s.traffic[key] for s in walk.steps[:step]) for key in ("read_q", "read_k", "read_v", "write_o")}
    tok = list(walk.tokens)
    shown = np.where(walk.kept, walk.scores, np.nan)
    f = min(walk.d_k, SHOWN_FEATURES)
    rects = _skipped_rects(walk) + (Rect(0, cur.q_start, cur.q_stop, cur.k_start, cur.k_stop, style="current"),)
    tile_rows, tile_cols = np.arange(q0, q1), np.arange(cur.k_start, cur.k_stop)
    tile_kept = walk.kept[q0:q1, cur.k_start : cur.k_stop]
    return TileStepView(
        step=step,
        n_steps=n,
        is_last=step == n,
        current=cur,
        tile=(cur.q_tile, cur.k_tile),
        cells=(cur.q_start, cur.q_stop, cur.k_start, cur.k_stop),
        tile_state=heatmap("tile_state", tiles, "query_tile", "key_tile", tok, "state"),
        cell_state=heatmap("cell_state", cells, "query", "key", tok, "state"),
        scores=heatmap(
            "scores",
            shown,
            "query",
            "key",
            tok,
            "signed",
            blocked=~walk.kept,
            rects=rects,
            title=text("softmax.hm.scores", head=walk.head, d_k=walk.d_k),
        ),
        skipped_so_far=sum(1 for t in walk.skipped if t < (cur.q_tile, cur.k_tile)),
        skipped_total=len(walk.skipped),
        output_so_far=heatmap(
            "output_so_far",
            out[:, :f],
            "query",
            "feature",
            tok,
            "signed",
            title=text("softmax.hm.output_so_far", shown=f, d_k=walk.d_k),
        ),
        row_state=_ro(rows),
        m_rows=_ro(m_rows),
        l_rows=_ro(l_rows),
        traffic_so_far=traffic,
        tile_scores=heatmap(
            "tile_scores",
            np.where(tile_kept, cur.scores, np.nan),
            "query",
            "key",
            tok,
            "signed",
            rows=tile_rows,
            cols=tile_cols,
            blocked=~tile_kept,
        ),
        tile_p=heatmap(
            "tile_p",
            cur.p,
            "query",
            "key",
            tok,
            "weights",
            rows=tile_rows,
            cols=tile_cols,
            blocked=~tile_kept,
            title=text("softmax.hm.tile_p"),
        ),
        tile_acc=heatmap("tile_acc", cur.acc[:, :f], "query", "feature", tok, "signed", rows=tile_rows),
    )


@dataclass(frozen=True)
class TileResult:
    """At the end: the tiled result beside the plain path's, and the differences the page prints."""

    head: int
    tiled: Heatmap  # (T, d_k) the head's tiled output
    plain: Heatmap  # (T, d_k) the same head's trace.head_outputs
    side_by_side: Heatmap  # two panels, tiled | plain, the first min(d_k, SHOWN_FEATURES) features: what the page draws
    head_diff: float  # max |tiled - plain| on this head
    all_heads_diff: float  # over every head of the run
    sdpa_diff: float  # max |tiled - F.scaled_dot_product_attention| over every head (mask as -1e9 added)
    l_diff: float  # max relative |final l - row sums of exp(masked scores - row max)| over every head
    tolerance: float  # RESULT_TOLERANCE
    equal: bool  # all three differences within the tolerance
    steps: int  # processed tiles (same for every head: the mask does not depend on the head)
    skipped: int


def tile_result(
    settings: Settings,
    head: int,
    block_q: int,
    block_k: int,
    run: Scenario | None = None,
    custom_text: str | None = None,
) -> TileResult:
    """The tiled walk over every head (no per-step trace) against the model's head_outputs and torch's fused
    scaled_dot_product_attention; and the final l against the plain path's unnormalised row sums."""
    run = get_run(settings, run, custom_text)
    tr = run.trace
    walk = tiled_attention(
        tr.q_heads,
        tr.k_heads_expanded,
        tr.v_heads_expanded,
        run.mask,
        block_q=block_q,
        block_k=block_k,
        keep_steps=False,
    )
    keep = _keep(run)  # (T, T)
    additive = torch.zeros(keep.shape).masked_fill(~keep, FILL_SEED)  # (T, T)
    sdpa = F.scaled_dot_product_attention(tr.q_heads, tr.k_heads_expanded, tr.v_heads_expanded, attn_mask=additive)
    masked = tr.masked_scores  # (1, h, T, T)
    row_sums = torch.exp(masked - masked.amax(dim=-1, keepdim=True)).sum(dim=-1)  # (1, h, T)
    head_diff = max_abs_diff(walk.output[0, head], tr.head_outputs[0, head])
    all_diff = max_abs_diff(walk.output, tr.head_outputs)
    sdpa_diff = max_abs_diff(walk.output, sdpa)
    l_diff = float(((walk.l - row_sums).abs() / row_sums).max())
    tok = run.tokens
    n_skipped = len(walk.skipped)
    f = min(settings.d_k, SHOWN_FEATURES)
    tiled_hm = heatmap("tiled", walk.output[0, head], "query", "feature", tok, "signed")
    plain_hm = heatmap("plain", tr.head_outputs[0, head], "query", "feature", tok, "signed")
    lo, hi = value_range("signed", [values_of(tiled_hm)[:, :f], values_of(plain_hm)[:, :f]])
    both = Heatmap(
        name="tiled_vs_plain",
        role="signed",
        vmin=lo,
        vmax=hi,
        row_axis=text("softmax.axis.query"),
        col_axis=text("softmax.axis.feature"),
        title=text("softmax.hm.result", shown=f, d_k=settings.d_k),
        panels=tuple(
            Panel(
                values=readonly(values_of(hm)[:, :f]),
                title=text(f"softmax.hm.{hm.name}"),
                row_labels=tuple(tok),
                col_labels=tuple(str(i) for i in range(f)),
            )
            for hm in (tiled_hm, plain_hm)
        ),
    )
    return TileResult(
        head=head,
        tiled=tiled_hm,
        plain=plain_hm,
        side_by_side=both,
        head_diff=head_diff,
        all_heads_diff=all_diff,
        sdpa_diff=sdpa_diff,
        l_diff=l_diff,
        tolerance=RESULT_TOLERANCE,
        equal=max(all_diff, sdpa_diff, l_diff) <= RESULT_TOLERANCE,
        steps=walk.n_tiles - n_skipped,
        skipped=n_skipped,
    )


@dataclass(frozen=True)
class MemoryRow:
    """One line of the memory table (per core ContextCost), for self-attention of length T."""

    T: int
    is_current: bool  # the settings' T (the other lines are LONG_CONTEXTS)
    scores_bytes_per_head: int  # plain path: the T x T float32 score matrix of one head
    scores_bytes_all_heads: int  # h of them (batch 1)
    tile_bytes: int  # tiled path: one block_q x block_k tile
    on_chip_bytes: int  # Q, K, V tiles, the score tile, m, l, acc
    ratio: float  # scores per head / tile
    plain_traffic: int  # numbers read + written per head
    tiled_traffic: int
    tiled_causal_traffic: int
    tiling_saves_traffic: bool  # tiled < plain: only once block_q > 2 d_k (core docstring)
    causal_processed: int
    causal_skipped: int


def memory_table(settings: Settings, block_q: int, block_k: int) -> tuple[MemoryRow, ...]:
    """The current T and the long contexts (8k, 128k), with the settings' d_k and h and the page's blocks."""
    rows = []
    for c in context_costs(settings.seq_len, settings.d_k, 1, settings.num_heads, block_q, block_k):
        rows.append(
            MemoryRow(
                T=c.T,
                is_current=c.T == settings.seq_len,
                scores_bytes_per_head=c.memory.scores_bytes_per_head,
                scores_bytes_all_heads=c.memory.scores_bytes_all_heads,
                tile_bytes=c.memory.tile_bytes,
                on_chip_bytes=c.memory.on_chip_bytes,
                ratio=c.memory.ratio,
                plain_traffic=c.plain.total,
                tiled_traffic=c.tiled.total,
                tiled_causal_traffic=c.tiled_causal.total,
                tiling_saves_traffic=c.tiled.total < c.plain.total,
                causal_processed=c.causal_tiles[0],
                causal_skipped=c.causal_tiles[1],
            )
        )
    return tuple(rows)


# ================================================================ quiz questions (data only; core/quiz.py words them)
QUIZ_KINDS = ("causal_skipped", "tile_count", "entropy_order", "overflow_threshold", "dot_variance", "score_bytes")
ORDERS = tuple(itertools.permutations(SCALE_NAMES))  # the choices of the entropy-order question
THRESHOLD_SLACK = 0.05  # an overflow-threshold answer within this of ln(max) counts
BINARY_UNITS = {"b": 1, "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40}


@dataclass(frozen=True)
class QuizQuestion:
    """One predict-then-reveal question: `kind` is the text key, `params` the numbers the text shows."""

    kind: str  # QUIZ_KINDS
    answer_type: str  # "int", "number", "order" (lowest entropy first), "bytes"
    params: dict  # e.g. {"T": 10, "block_q": 4, "block_k": 3}
    answer: object  # int | float | tuple[str, str, str]
    accepted: tuple[str, ...]  # example forms check_answer accepts (the first is the canonical one)
    options: tuple = ()  # the choices of an "order" question
    facts: dict | None = None  # language-neutral numbers for the reveal


def _rng(settings: Settings) -> random.Random:
    key = f"{PAGE}|{settings.d_model}|{settings.num_heads}|{settings.seq_len}|{settings.mask}|{settings.seed}"
    return random.Random(zlib.crc32(key.encode()))


def quiz_questions(
    settings: Settings, run: Scenario | None = None, custom_text: str | None = None
) -> tuple[QuizQuestion, ...]:
    """One question of each kind; their numbers come from the settings' seed (the same set for the class),
    deliberately not the sliders' values, so the answer must be worked out rather than read off the page.
    The entropy question's reveal carries the run's own numbers: the last row of head 0 under the three divisors."""
    rng = _rng(settings)
    shown = scale_row(settings, 0, settings.seq_len - 1, run, custom_text)
    out = []
    T, bq, bk = rng.choice((6, 8, 10, 12, 16)), rng.choice((2, 3, 4)), rng.choice((2, 3, 4))
    processed, skipped = causal_tile_counts(T, T, bq, bk)
    out.append(
        QuizQuestion(
            "causal_skipped",
            "int",
            {"T": T, "block_q": bq, "block_k": bk},
            skipped,
            (str(skipped),),
            facts={"processed": processed, "total": processed + skipped},
        )
    )
    T, bq, bk = rng.choice((7, 9, 10, 13, 20)), rng.choice((3, 4)), rng.choice((3, 4, 8))
    total = math.ceil(T / bq) * math.ceil(T / bk)
    out.append(
        QuizQuestion(
            "tile_count",
            "int",
            {"T": T, "block_q": bq, "block_k": bk},
            total,
            (str(total),),
            facts={"n_q_tiles": math.ceil(T / bq), "n_k_tiles": math.ceil(T / bk)},
        )
    )
    d_k = settings.d_k if settings.d_k >= 4 else 64
    out.append(
        QuizQuestion(
            "entropy_order",
            "order",
            {"d_k": d_k},
            SCALE_NAMES,
            ("1 < sqrt_d_k < d_k", "÷1, ÷√d_k, ÷d_k", "d_k > sqrt(d_k) > 1"),
            options=ORDERS,
            facts={
                "head": 0,
                "row": settings.seq_len - 1,
                "run_d_k": settings.d_k,
                "entropies": tuple(v.entropy for v in shown.variants),
            },
        )
    )
    name = rng.choice(DTYPE_NAMES)
    thr = round(overflow_threshold(DTYPES[name]), 2)
    out.append(
        QuizQuestion(
            "overflow_threshold",
            "number",
            {"dtype": name, "slack": THRESHOLD_SLACK},
            thr,
            (f"{thr}", f"{thr:.1f}"),
            facts={"max": float(torch.finfo(DTYPES[name]).max)},
        )
    )
    d_k, scaled = rng.choice((16, 64, 128, 256)), rng.random() < 0.5
    answer = 1 if scaled else d_k
    out.append(QuizQuestion("dot_variance", "int", {"d_k": d_k, "scaled": scaled}, answer, (str(answer),)))
    T = rng.choice(LONG_CONTEXTS)
    nbytes = attention_memory(T, T, settings.d_k, 1, 1, 1, 1).scores_bytes_per_head
    unit = "GiB" if nbytes >= 2**30 else "MiB"
    out.append(
        QuizQuestion(
            "score_bytes",
            "bytes",
            {"T": T, "bytes_per_number": 4},
            nbytes,
            (str(nbytes), f"{nbytes:,}", f"{nbytes // BINARY_UNITS[unit.lower()]} {unit}"),
        )
    )
    return tuple(out)


@dataclass(frozen=True)
class Checked:
    value: object  # the parsed answer, None if it could not be read
    correct: bool


_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")
_GROUPED = re.compile(r"\d{1,3}([,' _]\d{3})+")


def _read_number(text: str) -> float | None:
    text = text.strip()
    if _GROUPED.fullmatch(text):
        text = re.sub(r"[,' _]", "", text)
    if not _NUMBER.fullmatch(text):
        return None
    value = float(text)
    return value if math.isfinite(value) else None


def _read_order(text: str) -> tuple[str, ...] | None:
    t = text.lower().replace("÷", " ").replace("/", " ").replace("√", "sqrt ").replace("(", " ").replace(")", " ")
    t = re.sub(r"sqrt[\s_]*(d[\s_]*k)?", " S ", t)
    t = re.sub(r"d[\s_]*k", " D ", t)
    descending = ">" in t and "<" not in t
    parts = [p for p in re.split(r"[\s,<>;，、]+", t) if p]
    names = {"1": "1", "S": "sqrt_d_k", "D": "d_k"}  # only the substitutions above make capitals
    if len(parts) != 3 or any(p not in names for p in parts):
        return None
    order = tuple(names[p] for p in parts)
    if len(set(order)) != 3:
        return None
    return order[::-1] if descending else order


def check_answer(q: QuizQuestion, raw: object) -> Checked:
    """Read a typed answer (bounded: longer than QUIZ_ANSWER_CHARS is not read) and say if it is right.

    int: an integer, digits may be grouped (16,640 / 16 640). number: within params["slack"]. bytes: an integer
    or a number with a binary unit (256 MiB, 64 GiB). order: the three divisors lowest entropy first, in any
    spelling (1, √d_k, d_k / 1 < sqrt(d_k) < d_k), or highest first when written with '>'.
    """
    text = "" if raw is None else str(raw)
    if not text.strip() or len(text) > QUIZ_ANSWER_CHARS:
        return Checked(None, False)
    if q.answer_type == "order":
        order = _read_order(text)
        return Checked(order, isinstance(q.answer, tuple) and order == q.answer)
    if q.answer_type == "bytes":
        m = re.fullmatch(r"\s*(.+?)\s*([kmgt]?i?b)\s*", text.lower())
        factor = 1
        if m and m.group(2) in BINARY_UNITS:
            text, factor = m.group(1), BINARY_UNITS[m.group(2)]
        value = _read_number(text)
        if value is None:
            return Checked(None, False)
        value = value * factor
        return Checked(value, value == q.answer)
    value = _read_number(text)
    if value is None:
        return Checked(None, False)
    if q.answer_type == "number":
        assert isinstance(q.answer, (int, float)), q.kind
        return Checked(value, abs(value - q.answer) <= q.params["slack"])
    return Checked(value, value == q.answer)
