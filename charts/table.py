"""The table view of a Heatmap: one table per panel, every value printed with the Heatmap's `decimals`
(the same number the hover and the cell numbers print)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from html import escape
from html.parser import HTMLParser

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


# ---------------------------------------------------------------- one static table as HTML (every page's tables)
# One markdown element per table, not st.table: the browser re-renders an st.table on every step at several times
# the cost of the same rows as one HTML table (benchmarks/README.md, "What changed"). On a phone the table
# scrolls inside its own box with the first column kept in view (the CSS is ui/tables.py's, added by app.py).
BOX_CLASS = "al-table"


def cell_text(value) -> str:
    """A cell as st.table printed it: text as it is, an integer plainly, a float with 4 decimals, None empty."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return number(value, 4)
    return str(value)


def html(
    columns: Mapping[str, Sequence],
    *,
    label: str = "",
    index: Sequence | None = None,
    index_name: str = "",
    caption: str = "",
    kind: str = "",
) -> str:
    """One table as HTML: a header row of the column names, then a row per value; `index` (optional) as a first
    column headed `index_name`. Every text is escaped (cells may hold a student's own words). `label` names the
    scrolling box for a screen reader (the box takes keyboard focus so it can be scrolled with the arrow keys);
    `caption` is the table's title, shown above it; `kind` marks what the table shows (data-kind, e.g. a heatmap's
    table view)."""
    names = list(columns)
    cols = [list(columns[n]) for n in names]
    n_rows = max((len(c) for c in cols), default=0)
    if index is not None:
        names, cols = [index_name, *names], [list(index), *cols]
    head = "".join(f"<th>{escape(str(n))}</th>" for n in names)
    body = "".join(
        "<tr>" + "".join(f"<td>{escape(cell_text(c[r] if r < len(c) else None))}</td>" for c in cols) + "</tr>"
        for r in range(n_rows)
    )
    aria = f' aria-label="{escape(label)}"' if label else ""
    data = f' data-kind="{escape(kind)}"' if kind else ""
    title = f"<caption>{escape(caption)}</caption>" if caption else ""
    return (
        f'<div class="{BOX_CLASS}" role="region" tabindex="0"{aria}{data}><table>{title}<thead><tr>{head}</tr></thead>'
        f"<tbody>{body}</tbody></table></div>"
    )


def read_html(text: str) -> list[dict[str, list[str]]]:
    """Every table `html` wrote into `text`, read back as {column name: cell texts} (the tests and tools read what
    a page showed with this)."""
    parser = _TableReader()
    parser.feed(text)
    return parser.tables


class _TableReader(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: list[dict[str, list[str]]] = []
        self._rows: list[list[str]] = []
        self._cell: list[str] | None = None

    def handle_starttag(self, tag, attrs) -> None:
        if tag == "table":
            self._rows = []
        elif tag == "tr":
            self._rows.append([])
        elif tag in ("td", "th"):
            self._cell = []

    def handle_data(self, data) -> None:
        if self._cell is not None:
            self._cell.append(data)

    def handle_endtag(self, tag) -> None:
        if tag in ("td", "th") and self._cell is not None and self._rows:
            self._rows[-1].append("".join(self._cell))
            self._cell = None
        elif tag == "table" and self._rows:
            header, *rows = self._rows
            self.tables.append({name: [row[i] for row in rows] for i, name in enumerate(header)})


__all__ += ["BOX_CLASS", "cell_text", "html", "read_html"]
