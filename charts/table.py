"""The table view of a Heatmap: one table per panel, every value printed with the Heatmap's `decimals`
(the same number the hover and the cell numbers print)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from charts.payload import Words
from lessons.heatmap import Heatmap


@dataclass(frozen=True)
class Table:
    title: str
    row_labels: list[str]
    col_labels: list[str]
    rows: list[list[str]]  # printed values, row by row


def number(value: float, decimals: int) -> str:
    """One value as the chart prints it: `decimals` places; NaN (no value) as empty; infinities as -inf / inf."""
    v = float(value)
    if math.isnan(v):
        return ""
    if math.isinf(v):
        return "-inf" if v < 0 else "inf"
    return f"{v:.{decimals}f}"


def unique(labels: list[str]) -> list[str]:
    """Labels as a table's header needs them: unique (repeated tokens get their position, '4:the')."""
    return labels if len(set(labels)) == len(labels) else [f"{i}:{label}" for i, label in enumerate(labels)]


def tables(hm: Heatmap, words: Words | None = None) -> list[Table]:
    """One Table per panel. Labels default to 0..n-1; role "state" prints each code's worded name; a
    marked cell prints its mark."""
    words = words or {}
    titles = list(words.get("panels") or [])
    states = list(words.get("states") or hm.states)
    out = []
    for i, p in enumerate(hm.panels):
        rows, cols = p.values.shape
        if hm.role == "state":

            def cell(v: float) -> str:
                if math.isnan(v):
                    return ""
                k = int(round(v))
                return states[k] if 0 <= k < len(states) else str(k)
        else:

            def cell(v: float) -> str:
                return number(v, hm.decimals)

        printed = [[cell(v) for v in row] for row in p.values.tolist()]
        if p.marks is not None:  # a marked cell prints its mark (a mask's stored 0/1, a fill value, NaN)
            for r, c in zip(*(p.marks > 0).nonzero()):
                printed[r][c] = hm.marks[int(p.marks[r, c]) - 1].cell
        out.append(
            Table(
                title=titles[i] if i < len(titles) else "",
                row_labels=unique(list(p.row_labels)) if p.row_labels else [str(r) for r in range(rows)],
                col_labels=unique(list(p.col_labels)) if p.col_labels else [str(c) for c in range(cols)],
                rows=printed,
            )
        )
    return out


__all__ = ["Table", "number", "tables", "unique"]
