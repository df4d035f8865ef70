"""One way to show a lesson's heatmap on a page: `show_heatmap(hm, key=..., t=ctx.t)` (the heatmaps' one route).

A lesson hands a lessons.heatmap.Heatmap (arrays, labels, keys); this words its keys with the page's `t`,
applies the sidebar's display options (ui/display.py: palette, numbers in the cells, table view, image
format), and either shows the table view (charts/table.py, built only then) or draws the chart with one
components.v2 component (static/heatmaps.js, fed by charts/payload.py's bytes), updated in place on a rerun
because its key stays the same. The component's download button saves PNG or SVG per `image_format`.
A click on a cell of a clickable Heatmap returns its Selection in the rerun it causes.

The renderer is the app's canvas one, chosen by measurement over plotly.js (benchmarks/README.md, "Renderer A/B":
plotly.js cost far more per step on the heaviest view).
"""

from __future__ import annotations

from charts import alt, payload, table
from charts.payload import Say, Words
from lessons.heatmap import Heatmap, Selection, Text
from ui import display
from ui.renderers import renderer_component
from ui.tables import show_table

COMPONENT = "attention_lab.heatmaps"
HEATMAPS = renderer_component(COMPONENT, "heatmaps.js")


def _word(t: Say, text: Text | None) -> str:
    return t(text.key, **text.kw()) if text is not None else ""


def words(hm: Heatmap, t: Say, image_format: str = "png", weight_scale: str = payload.DEFAULT_WEIGHT_SCALE) -> Words:
    """Every string the chart shows, worded in the page's language (titles, axes, states, hover words, the
    download label, a weights chart's colour range and the accessible name)."""
    fmt = image_format if image_format in payload.IMAGE_FORMATS else "png"
    lo, hi, scale = payload.colour_range(hm, weight_scale)
    places = max(2, min(int(hm.decimals), 4))
    w: Words = {
        "title": _word(t, hm.title),
        "row_axis": _word(t, hm.row_axis),
        "col_axis": _word(t, hm.col_axis),
        "panels": [_word(t, p.title) for p in hm.panels],
        "states": [t(k) for k in hm.states],
        "blocked": t("display.blocked"),
        "thinned": t("display.thinned"),
        "download": t("display.download", fmt=fmt.upper()),
        "marks": [_word(t, m.hover) or m.cell for m in hm.marks],
        "range": t(f"display.range.{scale}", lo=f"{lo:.{places}f}", hi=f"{hi:.{places}f}") if scale else "",
    }
    w["alt"] = alt.alt_text(hm, w, lambda **kw: t("display.alt.heatmap", **kw))
    return w


def show_tables(hm: Heatmap, w: Words) -> None:
    """The table view: one HTML table per panel (ui/tables.py, one markdown element each: a data grid costs the
    browser far more on every step), its values printed with the Heatmap's decimals, the panel's title as its
    caption, the corner cell naming both axes ("query \\ key"), the chart's accessible name as the table's."""
    corner = " \\ ".join(a for a in (w.get("row_axis"), w.get("col_axis")) if a)
    for tab in table.tables(hm, w):
        columns = {col: [row[c] for row in tab.rows] for c, col in enumerate(tab.col_labels)}
        label = f"{w.get('alt') or ''} {tab.title}".strip()
        show_table(columns, index=tab.row_labels, index_name=corner, caption=tab.title, label=label, kind="heatmap")


def _selection(hm: Heatmap, click: object) -> Selection | None:
    """A click the browser sent, checked against the chart's shape (anything else is ignored)."""
    if not hm.clickable or not isinstance(click, dict):
        return None
    try:
        panel, row, col = int(click["panel"]), int(click["row"]), int(click["col"])
    except (KeyError, TypeError, ValueError):
        return None
    if not 0 <= panel < len(hm.panels):
        return None
    rows, cols = hm.panels[panel].values.shape
    return Selection(panel, row, col) if 0 <= row < rows and 0 <= col < cols else None


def show_heatmap(
    hm: Heatmap, *, key: str, t: Say, compact: bool = False, font_scale: float = 1.0, fit_height: int = 0
) -> Selection | None:
    """Draw `hm` with the session's display options (or its tables when the table view is on). `key` keeps
    the chart in place across reruns; `t` is the page's ctx.t. Returns the cell a click selected, in the
    rerun that click caused, when `hm.clickable`; else None. `compact`: send panels whose values print as
    int16 codes at `hm.decimals` as those codes (half the bytes; charts.payload.payload) — for a view near the
    64 KB a step may cost, e.g. 16 heads of 32 x 32 weights. For a projector (the walkthrough's presenter
    view): `font_scale` makes every text of the chart larger (tick labels included), `fit_height` > 0 fills
    the height the window leaves below the chart (at least that many px); charts.payload.payload."""
    options = display.current()
    w = words(hm, t, options.image_format, options.weight_scale)
    if options.table_view:
        show_tables(hm, w)
        return None
    data = payload.payload(
        hm,
        palette=options.palette,
        cell_numbers=options.cell_numbers,
        image_format=options.image_format,
        words=w,
        compact=compact,
        font_scale=font_scale,
        fit_height=fit_height,
        weight_scale=options.weight_scale,
    )
    result = HEATMAPS(data=data, key=key, on_click_change=lambda: None)
    return _selection(hm, getattr(result, "click", None))


__all__ = ["COMPONENT", "Selection", "show_heatmap", "show_tables", "words"]
