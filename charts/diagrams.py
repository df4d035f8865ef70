"""HTML and SVG diagrams: what the lessons compute, drawn as markup instead of a chart (a redraw costs the browser
almost nothing, and text wraps on a phone). Every text part is escaped (tests/test_limits_isolation.py); the data
comes from the lessons (`lessons.heads.shape_flow`, `head_focus`, `lessons.positions` `PairView`, the real model's
tokens), the words from the page. Only numbers, escaped text and our own colours go into the markup.

- `shape_flow_html`: the heads page's layer as a flow of boxes with live shapes (`flow_box_texts`, `parse_sizes`
  read it back, for tests);
- `focus_html`: one bar per head, how sharply each head looks;
- `angle_svg`: the Positions page's RoPE pair turning on its circle;
- `token_chips_html`: the real model's tokens as small boxes.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from html import escape
from typing import Any

from core.accounting import Shape
from core.pretrained import SPECIAL_TOKENS, UNK

# The heads page's bars (here and in ui/heads_charts.py): the current h vs the other h.
CURRENT_COLOR, OTHER_COLOR = "#2a6fdb", "#a9bedf"  # bars: the current h vs the other h

# Colours of the shape-flow boxes: warm = shape depends on h, cool grey = same for every h.
DEPENDS_FILL, DEPENDS_LINE = "#fde4c8", "#d9730d"
SAME_FILL, SAME_LINE = "#e6ecf5", "#5b6b82"
CHANGED_LINE = "#b03a00"


def _sizes(shape: Shape) -> str:
    return f"({', '.join(str(s) for s in shape.sizes)})"


def _axes(shape: Shape) -> str:
    return f"({', '.join(shape.axes)})"


def parse_sizes(box_text: str) -> tuple[int, ...]:
    """The live sizes written in a box of shape_flow_html (its bold third line), back as integers: for tests."""
    found = re.search(r"class='al-sizes'>\(([^)]*)\)</b>", box_text)
    if found is None:
        raise ValueError("no sizes in this box")
    inner = found.group(1)
    return tuple(int(p) for p in inner.split(","))


def _grid_span(x: float, width: float) -> tuple[int, int]:
    """A FLOW_LAYOUT box (centre column, width in columns) as (first grid column, span) on a 6-column grid."""
    first = round((x - width / 2 + 0.5) * 2) + 1
    return first, max(1, round(width * 2))


# One class per role; the page injects this once with the diagram. Boxes whose shape depends on h are
# drawn as a small stack of cards (one per head, up to 4) by box-shadows.
FLOW_CSS = f"""
.al-flow{{display:grid;grid-template-columns:repeat(6,minmax(0,1fr));column-gap:14px;row-gap:26px;
  font-size:13px;line-height:1.3;color:#1b1f24;max-width:760px;margin:4px 0 8px}}
.al-box{{position:relative;border-radius:6px;padding:5px 6px;text-align:center;min-width:0;overflow-wrap:anywhere}}
.al-box::before{{content:"↓";position:absolute;top:-25px;left:50%;transform:translateX(-50%);color:#4a5566;font-size:17px;line-height:1}}
.al-box.al-top::before{{content:none}}
.al-same{{background:{SAME_FILL};border:1.2px solid {SAME_LINE}}}
.al-dep{{background:{DEPENDS_FILL};border:1.2px solid {DEPENDS_LINE}}}
.al-changed{{border:3.5px solid {CHANGED_LINE};padding:3px 4px}}
.al-axes{{color:#555}}
.al-was{{color:{CHANGED_LINE};font-size:13px}}
.al-wire{{border-left:1.6px solid #4a5566;margin-left:50%;margin-top:-26px;margin-bottom:-26px}}
.al-legend{{display:flex;flex-wrap:wrap;gap:6px 18px;font-size:13px;margin:2px 0 10px}}
.al-key{{display:inline-block;width:14px;height:14px;border-radius:3px;vertical-align:-2px;margin-right:6px}}
"""


def _stack_shadow(h: int) -> str:
    """The heads behind a per-head box: up to three offset cards, up and to the right."""
    cards = [
        f"{4 * k}px {-4 * k}px 0 -1px {DEPENDS_FILL}, {4 * k}px {-4 * k}px 0 0 {DEPENDS_LINE}"
        for k in range(1, min(max(h, 1), 4))
    ]
    return f"box-shadow:{', '.join(cards)};" if cards else ""


def shape_flow_html(
    boxes: Sequence[Any],
    titles: dict[str, str],
    *,
    legend_depends: str,
    legend_same: str,
    legend_changed: str = "changed",
    was: str = "was {sizes}",
    numbers: str = "{n} numbers",
    h: int = 1,
) -> str:
    """The layer as a flow of labelled boxes in plain HTML/CSS (one `data-name` box per tensor).

    HTML, not a chart: a redraw of text and boxes costs the browser almost nothing, where the same
    diagram as a plotly figure of shapes cost many frames per slider step (benchmarks/README.md),
    and on a phone the text wraps instead of shrinking. Boxes whose shape depends on h are warm-coloured
    and stacked (one card per head, up to 4); the others are grey. Changed boxes get a thick border and a
    'was' line. Hovering a box shows the number of values it holds.
    """
    by_name = {b.name: b for b in boxes}
    cells = []
    for b in boxes:
        first, span = _grid_span(b.x, b.width)
        kind = "al-dep" if b.depends_on_h else "al-same"
        classes = " ".join(
            c for c in ("al-box", kind, "al-changed" if b.changed else "", "al-top" if b.row == 0 else "") if c
        )
        title = titles.get(b.name, b.name)
        tip = f"{title}: {b.shape.text()}, " + numbers.format(n=f"{b.shape.numel:,}")
        lines = [
            f"<b>{escape(title)}</b>",
            f"<span class='al-axes'>{escape(_axes(b.shape))}</span>",
            f"<b class='al-sizes'>{_sizes(b.shape)}</b>",
        ]
        if b.changed and b.prev_shape is not None:
            lines.append(f"<span class='al-was'>{escape(was.format(sizes=_sizes(b.prev_shape)))}</span>")
        style = f"grid-column:{first}/span {span};grid-row:{b.row + 1};" + (_stack_shadow(h) if b.depends_on_h else "")
        cells.append(
            f"<div class='{classes}' data-name='{b.name}' title='{escape(tip, quote=True)}' "
            f"style='{style}'>{'<br>'.join(lines)}</div>"
        )
    # V skips the score rows: a wire down its column from v_heads to head_outputs.
    v, out = by_name["v_heads"], by_name["head_outputs"]
    first, span = _grid_span(v.x, v.width)
    if out.row - v.row > 1:
        cells.append(
            f"<div class='al-wire' style='grid-column:{first}/span {span};grid-row:{v.row + 2}/{out.row + 1}'></div>"
        )
    legend = [
        (legend_depends, f"background:{DEPENDS_FILL};border:1.5px solid {DEPENDS_LINE}"),
        (legend_same, f"background:{SAME_FILL};border:1.5px solid {SAME_LINE}"),
    ]
    if any(b.changed for b in boxes):
        legend.append((legend_changed, f"background:{DEPENDS_FILL};border:3px solid {CHANGED_LINE}"))
    keys = "".join(f"<span><span class='al-key' style='{css}'></span>{escape(text)}</span>" for text, css in legend)
    return (
        f"<style>{FLOW_CSS}</style><div class='al-legend'>{keys}</div>"
        f"<div class='al-flow' role='list'>{''.join(cells)}</div>"
    )


def flow_box_texts(html: str) -> dict[str, str]:
    """Each box's text in shape_flow_html's output, by tensor name: for tests."""
    return {m.group(1): m.group(2) for m in re.finditer(r"data-name='([^']+)'[^>]*>(.*?)</div>", html)}


def focus_html(
    focus: Sequence[float] | Any,  # a (h,) tensor or array of head_focus values
    shown: Sequence[int],
    *,
    uniform: float,
    axis_title: str,
    head_label: str = "head",
    height_px: int = 120,
) -> str:
    """One bar per head (the overview for many heads) in plain HTML: `head_focus`, the heads on display
    darker, a dotted line at 1/T_k (a head that spreads its attention evenly). Hovering a bar gives its
    value. HTML, not a chart: it redraws at no cost in the browser (a plotly bar chart cost a frame or two).
    """
    on_display = set(shown)
    values = [float(v) for v in focus]
    n = len(values)
    top = max([uniform, *[v for v in values if v == v]]) or 1.0  # NaN-free maximum (a head with no rows is NaN)
    bars = []
    for i, v in enumerate(values):
        pct = 0.0 if v != v else 100.0 * v / top
        color = CURRENT_COLOR if i in on_display else OTHER_COLOR
        label = str(i) if n <= 16 or i % 4 == 0 else ""
        bars.append(
            f"<div class='al-col' title='{escape(head_label)} {i}: {v:.3f}' data-head='{i}'>"
            f"<div class='al-bar' style='height:{pct:.1f}%;background:{color}'></div>"
            f"<span class='al-tick'>{label}</span></div>"
        )
    line = 100.0 * uniform / top
    return (
        f"<style>.al-focus{{display:flex;align-items:flex-end;gap:2px;height:{height_px}px;position:relative;"
        f"border-bottom:1px solid #888;margin:18px 0 22px;max-width:900px}}"
        ".al-col{flex:1 1 0;height:100%;display:flex;flex-direction:column;justify-content:flex-end;"
        "position:relative;min-width:0}.al-bar{width:100%;border-radius:2px 2px 0 0}"
        ".al-tick{position:absolute;bottom:-19px;left:50%;transform:translateX(-50%);font-size:13px;color:#444}"
        ".al-uniform{position:absolute;left:0;right:0;border-top:1.5px dotted #555}"
        ".al-focus-title{font-size:13px;color:#444;margin-top:6px}</style>"
        f"<div class='al-focus-title'>{escape(axis_title)} (▮ {top:.3f} · ┄ 1/T = {uniform:.3f})</div>"
        f"<div class='al-focus' role='img' aria-label='{escape(axis_title, quote=True)}'>{''.join(bars)}"
        f"<div class='al-uniform' style='bottom:{line:.1f}%' title='1/T = {uniform:.3f}'></div></div>"
        f"<div class='al-focus-title'>{escape(head_label)}</div>"
    )


def angle_svg(pv: Any) -> str:
    """The pair (q_a, q_b) of q at position 0 (blue) and at `position` (red), on their circle (dashed, the grid's
    positions as grey dots), with the angle turned (reduced to one turn, orange, counter-clockwise from blue to
    red; radius 34). Only numbers go into the SVG (no text), so the page may hand it to st.image."""
    r = max(pv.length_before, 1e-9)
    size, c = 220, 110
    scale = 90 / r
    bx, by = pv.before[0] * scale, -pv.before[1] * scale
    ax, ay = pv.after[0] * scale, -pv.after[1] * scale
    # the positions' points as one path of zero-length round-capped strokes: ~14 bytes a point, not ~70
    marks = "".join(f"M{c + float(x) * scale:.1f} {c - float(y) * scale:.1f}h0" for x, y in pv.path)
    dots = f'<path d="{marks}" stroke="#999" stroke-width="5" stroke-linecap="round"/>'
    start = math.atan2(pv.before[1], pv.before[0])
    end = start + math.radians(pv.angle_deg_reduced)
    x0, y0 = c + 34 * math.cos(start), c - 34 * math.sin(start)
    x1, y1 = c + 34 * math.cos(end), c - 34 * math.sin(end)
    large = 1 if pv.angle_deg_reduced > 180 else 0
    arc = (
        f'<path d="M{x0:.1f} {y0:.1f}A34 34 0 {large} 0 {x1:.1f} {y1:.1f}" fill="none" stroke="#ff7f0e" '
        f'stroke-width="3"/>'
        if pv.angle_deg_reduced > 0.5
        else ""
    )
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{size}" height="{size}" viewBox="0 0 {size} {size}">'
        f'<circle cx="{c}" cy="{c}" r="90" fill="none" stroke="#bbb" stroke-dasharray="4 3"/>{dots}'
        f'<line x1="{c}" y1="{c}" x2="{c + bx:.1f}" y2="{c + by:.1f}" stroke="#1f77b4" stroke-width="4"/>'
        f'<line x1="{c}" y1="{c}" x2="{c + ax:.1f}" y2="{c + ay:.1f}" stroke="#d62728" stroke-width="4"/>'
        f'{arc}<circle cx="{c}" cy="{c}" r="4" fill="#333"/></svg>'
    )


def token_chips_html(tokens: Sequence[str]) -> str:
    """The tokens as small boxes: [UNK] red, [CLS]/[SEP]/[PAD] blue, words grey (HTML-escaped, so any token is
    safe); each box's title is its position."""

    def chip(i: int, tok: str) -> str:
        color = "#d62728" if tok == UNK else "#1f77b4" if tok in SPECIAL_TOKENS else "#888"
        return (
            f'<span title="{i}" style="border:1px solid {color};color:{color};border-radius:4px;'
            f'padding:1px 5px;font-family:monospace;white-space:pre">{escape(tok)}</span>'
        )

    return (
        '<div style="display:flex;flex-wrap:wrap;gap:4px">'
        + "".join(chip(i, t) for i, t in enumerate(tokens))
        + "</div>"
    )


def class_bars_html(bars: list[tuple[str, bool, float, int]]) -> str:
    """Class mode's distribution of answers: (label, is the right one, percent, count) per bar, big enough to read
    from the back of a room. Labels may carry a student's words: each is escaped and shortened."""
    rows = []
    for text, right, pct, count in bars:
        shown = escape(text[:40] + ("…" if len(text) > 40 else ""))
        mark, cls = ("✓ ", "cm-bar cm-right") if right else ("", "cm-bar")
        rows.append(
            f"<div class='cm-row'><div class='cm-lab'>{mark}{shown}</div>"
            f"<div class='cm-track'><div class='{cls}' style='width:{float(pct):.1f}%'></div></div>"
            f"<div class='cm-n'>{int(count)}</div></div>"
        )
    return "<div class='cm-bars'>" + "".join(rows) + "</div>"
