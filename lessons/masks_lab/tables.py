"""How the page prints a value (fmt_value), and its tables as plain data: column ids (the page words
"masks.col.<id>"), one row's values, the fully blocked rows, the polarity bug's rows, shortened when long.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from lessons.masks_lab.bug import BugRow
from lessons.masks_lab.choices import shown_values
from lessons.masks_lab.run import FullRowDemo, LabRun


def fmt_value(x: float, *, fill_text: str | None = None, digits: int = 3) -> str:
    """A number as the page's tables print it: NaN, -inf, the fill value's own text for ±1e9, else `digits`."""
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "-inf" if x < 0 else "inf"
    if abs(x) >= 1e8:
        return fill_text or f"{x:.0e}".replace("e+0", "e").replace("e-0", "e-")
    if x == 0:
        return "0"
    return f"{x:.{digits}f}"


# ------------------------------------------------------------------ the page's tables (plain data)
# Column ids, never words: the page words "masks.col.<id>" (and "masks.bug.col.<id>").
ROW_COLUMNS = ("j", "key", "mask", "scaled", "masked", "weight")
FULL_COLUMNS = ("j", "scaled", "masked_f", "shift", "weight")
BUG_COLUMNS = ("i", "query", "cp", "cf", "bp", "bf")
FULL_ROWS_SHOWN = 4  # the fully blocked rows the warning names; more are "…"


def short(values: Iterable[str], n_head: int = 4, n_tail: int = 2) -> list[str]:
    """A long column as its first and last entries around an ellipsis (the rows in between look alike)."""
    out = list(values)
    return out if len(out) <= n_head + n_tail + 2 else out[:n_head] + ["…"] + out[-n_tail:]


def uniform_weight(n: int) -> str:
    """1/n as the tables print it: the weight of each of n keys in a row where every score is the same."""
    return fmt_value(1.0 / n)


def row_table(run: LabRun, seq: int, row: int, head: int, polarity: str) -> dict[str, list[str]]:
    """One query row up close: column id (ROW_COLUMNS) -> one value per key j."""
    trace, T_k, fill = run.trace, run.setup.T_k, run.setup.fill
    return {
        "j": [str(j) for j in range(T_k)],
        "key": list(run.k_labels[seq]),
        "mask": [str(int(v)) for v in shown_values(run.keep[seq, row], polarity).tolist()],
        "scaled": [fmt_value(v) for v in trace.scaled_scores[seq, head, row].tolist()],
        "masked": [fmt_value(v, fill_text=fill) for v in trace.masked_scores[seq, head, row].tolist()],
        "weight": [fmt_value(v) for v in trace.weights[seq, head, row].tolist()],
    }


@dataclass(frozen=True)
class FullRows:
    """The run's fully blocked rows: the first FULL_ROWS_SHOWN as (sequence, query, its token), whether there are
    more, how many, how many rows came out NaN, and the uniform weight 1/T_k a -1e9 row gets."""

    where: tuple[tuple[int, int, str], ...]
    more: bool
    count: int
    nan: int
    uniform: str


def full_rows(run: LabRun) -> FullRows:
    rows = run.blocked_rows.nonzero().tolist()
    where = tuple((b, i, run.q_labels[b][i]) for b, i in rows[:FULL_ROWS_SHOWN])
    nan = int(run.nan_rows.sum())
    return FullRows(where, len(rows) > FULL_ROWS_SHOWN, len(rows), nan, uniform_weight(run.setup.T_k))


def full_row_table(demo: FullRowDemo, fill: str) -> dict[str, list[str]]:
    """A fully blocked row under one fill value, shortened: column id (FULL_COLUMNS) -> values."""
    return {
        "j": short(str(j) for j in range(demo.scaled.numel())),
        "scaled": short(fmt_value(v) for v in demo.scaled.tolist()),
        "masked_f": short(fmt_value(v, fill_text=fill) for v in demo.masked[fill].tolist()),
        "shift": short(fmt_value(v) for v in demo.shifted[fill].tolist()),
        "weight": short(fmt_value(v) for v in demo.weights[fill].tolist()),
    }


def bug_table(summary: Sequence[BugRow]) -> dict[str, list[str]]:
    """The polarity bug's rows, shortened: column id (BUG_COLUMNS) -> values."""
    return {
        "i": short(str(r["i"]) for r in summary),
        "query": short(r["token"] for r in summary),
        "cp": short(fmt_value(r["correct_past"]) for r in summary),
        "cf": short(fmt_value(r["correct_future"]) for r in summary),
        "bp": short(fmt_value(r["bug_past"]) for r in summary),
        "bf": short(fmt_value(r["bug_future"]) for r in summary),
    }
