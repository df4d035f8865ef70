"""Section "max" (why subtract the max): one row as the model's softmax sees it (÷sqrt(d_k), masked), times a gain,
through the naive, safe and online softmax in float32 and float16 (`max_row`, one `DtypeRow` per dtype): where exp
overflows, the inf/NaN of the naive one, how far the other two are from the exact softmax."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from core.masks import FILL_SEED
from core.softmax_numerics import DTYPES, naive_failure, naive_softmax, online_softmax, overflow_threshold, safe_softmax
from lessons.heatmap import Text, text
from lessons.scenario import Scenario
from lessons.settings import Settings
from lessons.softmax.common import _keep, _ro, get_run, max_abs_diff, number
from lessons.softmax.keys import GAINS
from lessons.tables import Column

TOLERANCE = {"float32": 1e-6, "float16": 2 * 2.0**-10}  # safe/online vs the exact softmax (core tests' bounds)
DTYPE_NAMES = ("float32", "float16")


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


# ================================================================ what the section prints
def row_text(mr: MaxRow) -> Text:
    """The row at gain 1: its largest kept score and where exp overflows in float32 and float16."""
    t32, t16 = (dt.threshold for dt in mr.dtypes)
    return text("softmax.max.row", gain=mr.gain, row_max=mr.row_max, t32=t32, t16=t16)


def breaks_from(mr: MaxRow) -> Text:
    """From which gain of GAINS the naive softmax breaks in float32 and in float16 ("never" within GAINS)."""
    g32, g16 = (str(g) if g is not None else text("softmax.max.never") for g in mr.first_failing_gain)
    return text("softmax.max.breaks_from", g32=g32, g16=g16)


def _top(mr: MaxRow, dt: DtypeRow) -> float:
    """The row's largest kept score in this dtype (the largest score of a row the mask blocks whole)."""
    return float(dt.scores[mr.kept].max()) if mr.kept.any() else float(dt.scores.max())


def dtype_notes(mr: MaxRow, dt: DtypeRow) -> tuple[Text, Text]:
    """What one dtype's softmaxes did: the naive one (the scores do not even fit the dtype / exp overflows at
    some keys / only the sum overflows / every exp underflows to 0 / no overflow, with its difference from the exact
    softmax), then whether the safe and online ones are within the dtype's tolerance."""
    if not dt.scores_finite:
        naive = text("softmax.max.scores_inf", dtype=dt.dtype)
    elif not dt.naive_ok and dt.exp_overflows.any():
        naive = text(
            "softmax.max.naive_broken",
            dtype=dt.dtype,
            n=int(dt.exp_overflows.sum()),
            thr=dt.threshold,
            nan=int(dt.naive_nan.sum()),
            zero=int(dt.naive_zero.sum()),
        )
    elif not dt.naive_ok and dt.sum_overflows:
        naive = text("softmax.max.sum_overflow", dtype=dt.dtype)
    elif not dt.naive_ok:  # every exp rounds to 0 (a row of large negative scores, float16 first): 0 / 0
        naive = text("softmax.max.sum_underflow", dtype=dt.dtype, top=_top(mr, dt))
    else:
        naive = text("softmax.max.naive_ok", dtype=dt.dtype, top=_top(mr, dt), thr=dt.threshold, diff=dt.naive_diff)
    within = max(dt.safe_diff, dt.online_diff) <= dt.tolerance
    key = "softmax.max.safe_ok" if within else "softmax.max.safe_off"
    return naive, text(key, safe=dt.safe_diff, online=dt.online_diff, tol=dt.tolerance)


# A row of more keys than this is shown as the keys that tell its story, the rest as gaps ("⋯") until the reader asks
# for every key: two tables of 32 lines x 9 columns are more than a class reads at once, and a step of T at 512/16/32
# re-sent all of them (77 -> 66 ms a step: benchmarks/README.md, "The softmax max view's keys that tell the story").
WHOLE_ROW_UP_TO = 12
TELLING_KEYS = 10  # keys chosen per table (a single key between two chosen ones, and the gap lines, come on top)


@dataclass(frozen=True)
class ShownKeys:
    """Which keys of one dtype's row its table shows, and why: chosen by that dtype's numbers."""

    keys: tuple[int, ...]  # ascending; every key when the row is whole
    total: int  # T
    top: int  # the key with the largest kept score: where the safe softmax's exponent is 0
    grows: tuple[int, ...]  # every key where the online softmax's running max m grows (its first key included)
    overflows: tuple[int, ...]  # every key where exp(s) overflows to inf, largest score first
    wiped: int | None  # of the weights the naive softmax wrongly wipes to 0, the largest exact one (None: none)
    heaviest: tuple[int, ...] = ()  # shown for their exact weight alone: the budget's rest, largest weight first

    @property
    def whole(self) -> bool:
        return len(self.keys) == self.total


def telling_keys(mr: MaxRow, dt: DtypeRow, every: bool = False) -> ShownKeys:
    """The keys one dtype's table shows: all of them when `every` or when the row has at most WHOLE_ROW_UP_TO keys;
    otherwise at most TELLING_KEYS, in this order of need: the largest kept score, the last key (the online m and l
    there are the final ones), the keys where the running max m grows (where the online softmax rescales l), the
    keys where exp(s) overflows (largest score first), and of the weights the naive softmax wrongly wipes to 0 the
    one it hurts most (the largest exact weight); the budget's rest goes to the largest exact weights. A single key
    between two shown ones is shown too (a gap line would take its place)."""
    T = len(dt.scores)
    scores = np.asarray(dt.scores, dtype=np.float64)
    exact = np.asarray(dt.exact, dtype=np.float64)
    kept = np.asarray(mr.kept)
    top = int(np.argmax(np.where(kept, scores, -np.inf))) if kept.any() else int(np.argmax(scores))
    m = np.asarray(dt.online_m, dtype=np.float64)
    grows = (0, *(j for j in range(1, T) if m[j] > m[j - 1]))
    over = np.flatnonzero(dt.exp_overflows)
    overflows = tuple(int(j) for j in over[np.argsort(-scores[over], kind="stable")])
    zero = np.flatnonzero(dt.naive_zero)
    wiped = int(zero[np.argmax(exact[zero])]) if len(zero) else None
    if every or T <= WHOLE_ROW_UP_TO:
        return ShownKeys(tuple(range(T)), T, top, grows, overflows, wiped)
    chosen: list[int] = []
    for j in (top, T - 1, *grows, *overflows, *(() if wiped is None else (wiped,))):
        if len(chosen) == TELLING_KEYS:
            break
        if j not in chosen:
            chosen.append(j)
    heaviest = []
    for j in np.argsort(-exact, kind="stable"):
        if len(chosen) == TELLING_KEYS or not exact[j] > 0:  # a blocked key's 0 (or a NaN) tells nothing
            break
        if int(j) not in chosen:
            chosen.append(int(j))
            heaviest.append(int(j))
    keys = sorted(chosen)
    keys += [a + 1 for a, b in zip(keys, keys[1:]) if b - a == 2]  # a one-key gap: the key itself
    return ShownKeys(tuple(sorted(keys)), T, top, grows, overflows, wiped, tuple(heaviest))


def shown_text(shown: ShownKeys) -> Text | None:
    """What a table of some of the row's keys shows (None when it shows them all): how many, of the keys where m
    grows and where exp overflows how many are on screen, and the wiped weight when it is."""
    if shown.whole:
        return None
    on = set(shown.keys)
    counts = {
        "shown": len(shown.keys),
        "total": shown.total,
        "top": shown.top,
        "grows_shown": sum(j in on for j in shown.grows),
        "grows": len(shown.grows),
        "rest": text("softmax.max.shown.rest") if shown.heaviest else "",
    }
    if not shown.overflows:
        return text("softmax.max.shown", **counts)
    counts.update(over_shown=sum(j in on for j in shown.overflows), over=len(shown.overflows))
    if shown.wiped is not None and shown.wiped in on:
        return text("softmax.max.shown_wiped", **counts, wiped=shown.wiped)
    return text("softmax.max.shown_overflow", **counts)


GAP = "⋯"


def dtype_table(mr: MaxRow, dt: DtypeRow, shown: ShownKeys | None = None) -> tuple[Column, ...]:
    """The row key by key in one dtype: the key (its index and token, ✕ when the mask blocks it), s, exp(s), the
    three softmaxes, the exact one, and the online softmax's running max m and sum l. With `shown`, only its keys,
    each run of hidden keys as one gap line ("⋯ 3–9" and ⋯ in every other column)."""
    keys = tuple(f"{j} {tok}" + ("" if k else " ✕") for j, (tok, k) in enumerate(zip(mr.key_tokens, mr.kept.tolist())))
    columns = (
        Column(text("softmax.max.col.key"), keys),
        Column("s", tuple(number(v) for v in dt.scores)),
        Column("exp(s)", tuple(number(v) for v in dt.exp)),
        Column(text("softmax.max.col.naive"), tuple(number(v) for v in dt.naive)),
        Column(text("softmax.max.col.safe"), tuple(number(v) for v in dt.safe)),
        Column(text("softmax.max.col.online"), tuple(number(v) for v in dt.online)),
        Column(text("softmax.max.col.exact"), tuple(number(v) for v in dt.exact)),
        Column(text("softmax.max.col.m"), tuple(number(v) for v in dt.online_m)),
        Column(text("softmax.max.col.l"), tuple(number(v) for v in dt.online_l)),
    )
    if shown is None or shown.whole:
        return columns
    lines: list[int | tuple[int, int]] = []  # a key, or a gap (first, last) of hidden keys
    nxt = 0
    for j in (*shown.keys, shown.total):
        if j > nxt:
            lines.append((nxt, j - 1))
        if j < shown.total:
            lines.append(j)
        nxt = j + 1
    return tuple(
        Column(
            c.header,
            tuple(c.cells[x] if isinstance(x, int) else (gap_label(*x) if i == 0 else GAP) for x in lines),
        )
        for i, c in enumerate(columns)
    )


def gap_label(first: int, last: int) -> str:
    """The key cell of a gap line: the hidden keys' indices."""
    return f"{GAP} {first}" if first == last else f"{GAP} {first}–{last}"
