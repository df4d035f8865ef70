"""The "shapes" section: the whole layer as boxes, each labelled with its live shape (`shape_flow`,
`shape_flow_html`), and the h shown before the latest change (`track_h`), so changed boxes say what they were."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

from core.accounting import Shape, tensor_shapes

# Colours of the shape-flow boxes: warm = shape depends on h, cool grey = same for every h.
DEPENDS_FILL, DEPENDS_LINE = "#fde4c8", "#d9730d"
SAME_FILL, SAME_LINE = "#e6ecf5", "#5b6b82"
CHANGED_LINE = "#b03a00"

# (name, column centre, row, width in columns): X on top, Q/K/V side by side, the score
# steps under Q and K, V running down on the right until it meets the weights.
FLOW_LAYOUT = (
    ("x", 1.0, 0, 1.0),
    ("q", 0.0, 1, 0.94),
    ("k", 1.0, 1, 0.94),
    ("v", 2.0, 1, 0.94),
    ("q_heads", 0.0, 2, 0.94),
    ("k_heads", 1.0, 2, 0.94),
    ("v_heads", 2.0, 2, 0.94),
    ("scores", 0.5, 3, 1.94),
    ("scaled_scores", 0.5, 4, 1.94),
    ("masked_scores", 0.5, 5, 1.94),
    ("weights", 0.5, 6, 1.94),
    ("head_outputs", 1.0, 7, 2.94),
    ("concat", 1.0, 8, 2.94),
    ("output", 1.0, 9, 2.94),
)


def depends_on_h(shape: Shape) -> bool:
    """A shape changes with h exactly when it has a head axis or a per-head width."""
    return "h" in shape.axes or "d_k" in shape.axes


@dataclass(frozen=True)
class FlowBox:
    name: str  # "x" or an AttentionTrace field
    shape: Shape  # at the current h
    prev_shape: Shape | None  # at the previous h, when one was given and valid
    x: float  # centre column
    row: int
    width: float  # in columns

    @property
    def depends_on_h(self) -> bool:
        return depends_on_h(self.shape)

    @property
    def changed(self) -> bool:
        return self.prev_shape is not None and self.prev_shape.sizes != self.shape.sizes


def shape_flow(
    d_model: int, h: int, T_q: int, T_k: int | None = None, *, B: int = 1, prev_h: int | None = None
) -> list[FlowBox]:
    """Every box of the diagram with its live shape; `prev_h` (if it divides d_model) adds the old shapes."""
    T_k = T_q if T_k is None else T_k
    shapes = tensor_shapes(B, T_q, T_k, d_model, h)
    prev = None
    if (
        isinstance(prev_h, int)
        and not isinstance(prev_h, bool)
        and prev_h >= 1
        and d_model % prev_h == 0
        and prev_h != h
    ):
        prev = tensor_shapes(B, T_q, T_k, d_model, prev_h)
    return [
        FlowBox(name, shapes[name], prev[name] if prev else None, x, row, width) for name, x, row, width in FLOW_LAYOUT
    ]


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
    boxes: Sequence[FlowBox],
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
    diagram as a plotly figure of shapes cost ~200 ms per slider step (benchmarks/bench_browser.py),
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


def track_h(
    last: object, prev: object, d_model: int, T: int, h: int
) -> tuple[int | None, tuple[int, int, int], object]:
    """The h shown before the latest change of h (same d_model and T), for the shapes section to say what changed.

    `last` is the (d_model, T, h) seen on the previous run and `prev` the h before the latest change (both from
    the session, so possibly garbage). Returns (that h or None, the new `last`, the new `prev`)."""
    if not (isinstance(last, tuple) and len(last) == 3) or last[:2] != (d_model, T):
        prev = None
    elif last[2] != h:
        prev = last[2]
    ok = isinstance(prev, int) and not isinstance(prev, bool) and 0 < prev != h and d_model % prev == 0
    return (prev if ok and isinstance(prev, int) else None), (d_model, T, h), prev
