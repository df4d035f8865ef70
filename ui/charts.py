"""One way to show a chart on every page: `show_chart(fig, name=...)`.

It applies the display options (ui.display): the colour palette, the numbers in the cells and
readable font sizes (core.figures.restyle), the download button's format (PNG or SVG, scale 2 for a
projector, a file name per chart), and, with the table view on, shows the heatmaps' matrices as
tables instead of the chart (built only then).

A heatmap figure is drawn by the app's own canvas renderer (static/heatmap.js, from the scene
core.canvas_chart.to_scene makes of the figure): a slider step repaints it in about a millisecond,
where plotly lays a new chart out in 3-6 animation frames. Every other figure is a plotly chart.
"""

from __future__ import annotations

import contextlib
import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import streamlit as st

from core import canvas_chart, figures, i18n, scene_wire
from ui import display
from ui.cache import shared

FILE_PREFIX = "attention-lab"
RENDERER = Path(__file__).resolve().parent.parent / "static" / "heatmap.js"  # served at app/static/ (config.toml)
# The component's own code only loads the renderer (Streamlit sends a component's code with every element it
# draws): the browser fetches static/heatmap.js once, from this server, and keeps the module. The version
# in its address makes a changed renderer load anew.
_VERSION = hashlib.sha256(RENDERER.read_bytes()).hexdigest()[:12]
_LOADER = ("export default async function (component) {\n"
           f"  const url = new URL('app/static/heatmap.js?v={_VERSION}', document.baseURI).href;\n"
           "  const renderer = await import(url);\n"
           "  return renderer.render(component);\n"
           "}\n")
HEATMAP = st.components.v2.component("attention_lab.heatmap", js=_LOADER)


@dataclass(frozen=True)
class Projector:
    """How a canvas chart is drawn for a projector: every font size of its scene times `font_scale` (tick labels
    included), and with `fit_height` as tall as the browser window leaves below it (at least `min_height` px)."""
    font_scale: float = 1.6
    fit_height: bool = True
    min_height: int = 300
    height: int | None = None  # without fit_height: this many px instead of the figure's own height


def file_name(name: str) -> str:
    """The downloaded image's file name (without extension) for a chart called `name`."""
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-") or "chart"
    return f"{FILE_PREFIX}-{safe}"


def chart_config(image_format: str, name: str) -> dict:
    """Plotly config: the modebar on every chart, its camera button saving `image_format` offline
    (plotly.js renders the image in the browser: nothing is fetched)."""
    return {
        "displaylogo": False,
        "displayModeBar": "hover",
        "toImageButtonOptions": {"format": image_format if image_format in display.IMAGE_FORMATS else "png",
                                 "filename": file_name(name), "scale": 2},
    }


def _frame(rows, cols, values) -> pd.DataFrame:
    return pd.DataFrame(values, index=rows, columns=cols)


def show_tables(tables) -> None:
    """(title, row labels, column labels, values) per matrix, or DataFrames, as dataframes."""
    for item in tables:
        if isinstance(item, pd.DataFrame):
            st.dataframe(item)
            continue
        title, rows, cols, values = item
        if title:
            st.caption(title)
        # Every value with the 4 decimals the hover and the cell story print (a float column would show 0.491
        # beside 0.4044); as text, not a Styler, which formats cell by cell (slow at 32 x 512).
        frame = _frame(rows, cols, [[figures.table_number(v) for v in row] for row in values])
        st.dataframe(frame, height=min(38 + 35 * len(rows), 420))


def describe(fig, title: str | None = None, lang: str | None = None) -> str:
    """An accessible name for the chart (Streamlit's `alt`), in the session's language. It does not
    depend on the file name: a changed alt remounts the chart in the browser."""
    lang = lang or st.session_state.get("lang") or i18n.DEFAULT_LANG
    info = figures.chart_summary(fig)
    title = title or info["title"]
    lead = f"{title}: " if title else ""
    if info["kind"] == "heatmap":
        names = ", ".join(info["names"][:8]) + (" …" if len(info["names"]) > 8 else "")
        return lead + i18n.t("display.alt.heatmap", lang, n=info["panels"], rows=info["rows"], cols=info["cols"],
                             names=f" ({names})" if names else "")
    return lead + i18n.t("display.alt.chart", lang)


def show_chart(fig, *, name: str, title: str | None = None, key: str | None = None, where=None,
               table: Callable[[], list] | None = None, **kwargs):
    """Draw `fig` with the session's display options. `name` names the downloaded file, `title` is
    spoken by a screen reader when the figure has no title of its own; `key`,
    `on_select`, `selection_mode` ... go to st.plotly_chart. With the table view on, a figure with
    heatmaps is shown as tables (`table()` when given, else the figure's own matrices)."""
    options = display.current()
    with where if where is not None else contextlib.nullcontext():
        if options.table_view:
            tables = table() if table is not None else figures.figure_tables(fig)
            if tables:
                show_tables(tables)
                return None
        figures.restyle(fig, palette=options.palette, cell_text=options.cell_numbers)
        alt = describe(fig, title)
        scene = canvas_chart.to_scene(fig)
        if scene is not None:
            skipped = options.cell_numbers and figures.cell_numbers_skipped(fig)
            return show_scene(scene_wire.pack(scene), name=name, alt=alt, key=key, image_format=options.image_format,
                              on_select=kwargs.get("on_select"), numbers_skipped=skipped)
        return st.plotly_chart(fig, key=key, config=chart_config(options.image_format, name), alt=alt, **kwargs)


def show_cached_chart(cache_key: tuple, make_figure: Callable, *, name: str, title: str | None = None,
                      key: str | None = None, where=None, table: Callable[[], list] | None = None,
                      projector: Projector | None = None, **kwargs):
    """show_chart for a figure that depends on nothing but `cache_key` (a tuple of plain values naming everything
    `make_figure` reads: settings, language, page choices). What the browser gets is built once per key and
    display options for the whole server (ui/cache.shared): a class on the teacher's link, and every rerun that
    changes no input, pays no figure copy, restyle or conversion. `make_figure()` must return a figure this call
    may restyle (a new one, or a session copy). Figures the canvas does not draw go to show_chart."""
    options = display.current()
    if options.table_view:
        return show_chart(make_figure(), name=name, title=title, key=key, where=where, table=table, **kwargs)
    lang = st.session_state.get("lang") or i18n.DEFAULT_LANG

    def build() -> tuple[bytes | None, str, bool]:
        fig = make_figure()
        figures.restyle(fig, palette=options.palette, cell_text=options.cell_numbers)
        scene = canvas_chart.to_scene(fig)
        skipped = options.cell_numbers and figures.cell_numbers_skipped(fig)
        return (scene_wire.pack(scene) if scene is not None else None), describe(fig, title, lang), skipped

    scene, alt, skipped = shared("canvas-scene", (cache_key, options.palette, options.cell_numbers, lang, title),
                                 build)
    if scene is None:
        return show_chart(make_figure(), name=name, title=title, key=key, where=where, table=table, **kwargs)
    with where if where is not None else contextlib.nullcontext():
        return show_scene(scene, name=name, alt=alt, key=key, image_format=options.image_format,
                          on_select=kwargs.get("on_select"), numbers_skipped=skipped, projector=projector)


def show_scene(scene: tuple[bytes, bytes], *, name: str, alt: str, key: str | None, image_format: str,
               on_select=None, numbers_skipped: bool = False, projector: Projector | None = None):
    """A packed heatmap scene (core.scene_wire.pack: JSON plus raw arrays, immutable, so a cached one is shared
    by every session) drawn by static/heatmap.js. The component gets bytes
    (core.scene_wire.payload): the scene's JSON with this chart's alt, file name, format and labels, then its
    arrays as raw bytes, written once, not re-serialised by Streamlit. `key` keeps the chart in place across
    reruns (without one, the file name is its key); `on_select` is called after a click on one of the
    scene's click targets (`selected_points(key)`). With "Numbers in the cells" on, the renderer says under the
    chart when it cannot print them: `numbers_skipped` (panels larger than CELL_TEXT_MAX), or cells too narrow
    on this screen to read (it measures). `projector`: larger type and a height that fills the window
    (the walkthrough's presenter view), applied by the renderer, so the cached scene stays the same."""
    lang = st.session_state.get("lang") or i18n.DEFAULT_LANG
    fmt = image_format if image_format in display.IMAGE_FORMATS else "png"
    labels = {"download": i18n.t("display.download", lang, fmt=fmt.upper())}
    if display.current().cell_numbers:
        labels["numbers_small"] = i18n.t("display.numbers.small", lang)
        labels["numbers_large"] = i18n.t("display.numbers.large", lang, n=figures.CELL_TEXT_MAX)
    extra = {"alt": alt, "file": file_name(name), "format": fmt, "labels": labels,
             **({"numbers": "large"} if numbers_skipped else {})}
    if projector is not None:
        extra.update(font_scale=projector.font_scale, fit_height=projector.fit_height, min_height=projector.min_height)
        if projector.height:
            extra["height"] = projector.height
    data = scene_wire.payload(*scene, extra)
    callback = on_select if callable(on_select) else (lambda: None)
    return HEATMAP(data=data, key=key or f"al_{file_name(name)}", on_click_change=callback)


def selected_points(key: str) -> list[dict]:
    """The points a chart's last click selected, for a plotly chart (its selection) and a canvas one (its
    click: customdata, x, y): [] when none."""
    state = st.session_state.get(key)
    if not state:
        return []
    try:
        click = state.get("click") if hasattr(state, "get") else getattr(state, "click", None)
    except Exception:  # noqa: BLE001  (a state object without that field)
        click = None
    if isinstance(click, dict):
        return [click]
    try:
        return list(state["selection"]["points"])
    except (KeyError, TypeError):
        return []
