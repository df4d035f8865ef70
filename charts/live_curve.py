"""The training loss while it trains, as static HTML + SVG (Why many heads' live curve).

Why not a chart component: the live curve is redrawn every fraction of a second, and a chart that is
replaced before it has mounted is never seen (with plotly the area under the progress bar stayed empty
seconds into training). HTML shows at once. When training ends the page draws the full chart (hover,
download: ui/linecharts.py).

Pure Python: the same curves as the finished chart (charts.lines.loss_chart, `lessons.why_heads.Curve`), its
colours and scale (charts.lines.loss_top: 0 up to the guessing level ln(VOCAB) x 1.15, or the first steps' loss if
higher). No user text goes in: the labels
are the app's own strings and numbers, escaped all the same.
"""

from __future__ import annotations

import base64
import math
from html import escape

from charts.lines import HEAD_COLORS, loss_top, thin

MAX_POINTS = 200  # per curve: plenty for a 300 px high chart, a few KB a redraw


def _nice_step(top: float, n: int = 5) -> float:
    raw = top / n
    mag = 10 ** math.floor(math.log10(raw))
    return next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)


def live_loss_html(
    curves, *, steps: int, chance: float, title: str, x_title: str, y_title: str, chance_label: str, height: int = 300
) -> str:
    """The curves on axes 0..steps by 0..top: a title, a legend, an SVG of the lines (stretched to the width,
    strokes kept 2 px) and HTML tick labels placed in percent, so the text stays its size on any screen.
    `chance`: the loss of a model that guesses (lessons.why_heads.chance_loss), the dotted line."""
    top = loss_top(curves, chance)
    steps = max(1, int(steps))

    def x(step: float) -> float:
        return 1000 * step / steps

    def y(loss: float) -> float:
        return 1000 * (1 - min(max(loss, 0.0), top) / top)

    lines = [
        f'<line x1="0" x2="1000" y1="{y(chance):.1f}" y2="{y(chance):.1f}" stroke="#888888" stroke-width="1" '
        'stroke-dasharray="4 4" vector-effect="non-scaling-stroke"/>'
    ]
    legend = [
        f'<span style="white-space:nowrap"><span style="display:inline-block;width:18px;border-top:1px dashed '
        f'#888888;vertical-align:middle;margin-right:4px"></span>{escape(chance_label)}</span>'
    ]
    for c in curves:
        if not len(c.losses):
            continue
        xs, ys = thin(list(c.losses), MAX_POINTS)
        points = " ".join(f"{x(s):.1f},{y(v):.1f}" for s, v in zip(xs, ys))
        color = HEAD_COLORS.get(c.num_heads, "#444444")
        dash = ' stroke-dasharray="6 4"' if c.dashed else ""
        lines.append(
            f'<polyline class="al-live-line" data-h="{int(c.num_heads)}" data-n="{len(c.losses)}" '
            f'points="{points}" fill="none" stroke="{color}" stroke-width="2"{dash} '
            'vector-effect="non-scaling-stroke"/>'
        )
        legend.append(
            f'<span style="white-space:nowrap"><span style="display:inline-block;width:18px;border-top:2px '
            f'solid {color};vertical-align:middle;margin-right:4px"></span>{escape(c.label)}</span>'
        )
    # The lines as an SVG image (st.html sanitises inline SVG away; an image of it is kept): stretched to the
    # box, its strokes 2 px at any size.
    svg = base64.b64encode(
        (
            '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1000 1000" preserveAspectRatio="none">'
            + "".join(lines)
            + "</svg>"
        ).encode()
    ).decode()
    counts = " ".join(f"{int(c.num_heads)}:{len(c.losses)}" for c in curves if len(c.losses))
    label = "position:absolute;font-size:13px;color:#5c6170;line-height:1;white-space:nowrap"
    y_step = _nice_step(top)
    y_ticks = "".join(
        f'<span style="{label};right:calc(100% + 6px);top:{y(v) / 10:.2f}%;transform:translateY(-50%)">{v:g}</span>'
        for v in (round(i * y_step, 6) for i in range(int(top / y_step) + 1))
    )
    x_step = _nice_step(steps)
    x_ticks = "".join(
        f'<span style="{label};top:calc(100% + 6px);left:{x(v) / 10:.2f}%;transform:translateX(-50%)">{v:g}</span>'
        for v in (round(i * x_step, 6) for i in range(int(steps / x_step) + 1))
    )
    return (
        '<div class="al-live-loss" style="font-family:inherit;color:#31333f;margin:4px 0 8px">'
        f'<div style="font-weight:600;font-size:16px">{escape(title)}</div>'
        f'<div style="display:flex;flex-wrap:wrap;gap:4px 16px;font-size:14px;margin:4px 0 10px">{"".join(legend)}</div>'  # noqa: E501
        '<div style="display:flex;align-items:stretch">'
        f'<div style="writing-mode:vertical-rl;transform:rotate(180deg);font-size:13px;color:#5c6170;text-align:center;'
        f'margin-right:4px">{escape(y_title)}</div>'
        f'<div style="position:relative;flex:1;height:{int(height)}px;margin:0 8px 24px 36px;border-left:1px solid '
        '#c9ccd3;border-bottom:1px solid #c9ccd3">'
        f'<img class="al-live-lines" data-n="{counts}" alt="" src="data:image/svg+xml;base64,{svg}" '
        'style="position:absolute;inset:0;width:100%;height:100%">'
        f"{y_ticks}{x_ticks}</div></div>"
        f'<div style="text-align:center;font-size:13px;color:#5c6170">{escape(x_title)}</div></div>'
    )
