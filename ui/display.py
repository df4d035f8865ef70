"""The display options (sidebar section "Display"): colour palette, the weights charts' colour range (the data's
own or 0..1), numbers in the cells, table view, image format of the chart download. Stored in session state
and bound to the URL, so a teacher's link carries the projector palette to every student.

app.py calls `display_sidebar(lang)` once per run; ui.heatmaps.show_heatmap and ui.linecharts read `current()`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import streamlit as st

import i18n
from charts.palettes import DEFAULT_PALETTE, PALETTES
from charts.payload import DEFAULT_WEIGHT_SCALE, IMAGE_FORMATS, WEIGHT_SCALES
from lessons.url import Fix, UrlKey, parse
from ui import url_state
from ui.choice import labelled

# Declared like every value a link or a widget gives (lessons/url.py's UrlKey): parsed by lessons.url.parse and
# settled by ui.url_state.settle, the one loop.
DISPLAY_URL_KEYS: tuple[UrlKey, ...] = (
    UrlKey("palette", "choice", DEFAULT_PALETTE, choices=PALETTES),
    UrlKey("cell_numbers", "bool", False),
    UrlKey("table_view", "bool", False),
    UrlKey("image_format", "choice", "png", choices=IMAGE_FORMATS),
    UrlKey("weight_scale", "choice", DEFAULT_WEIGHT_SCALE, choices=WEIGHT_SCALES),  # own range or 0..1
    # (image_format: what a chart's download button saves)
)
DEFAULTS = {k.name: k.default for k in DISPLAY_URL_KEYS}
KEYS = tuple(DEFAULTS)  # widget keys = URL parameters
KEPT = "_display_kept"  # ui.url_state.settle's store for the display options
SETTLED = "_display_settled"  # the Display settled this run (current() returns it)


@dataclass(frozen=True)
class Display:
    palette: str = DEFAULT_PALETTE
    cell_numbers: bool = False
    table_view: bool = False
    image_format: str = "png"
    weight_scale: str = DEFAULT_WEIGHT_SCALE


def sanitize(raw: dict) -> tuple[Display, list[Fix]]:
    """Valid options from raw values (None = not given), and the corrections made."""
    values, fixes = parse(DISPLAY_URL_KEYS, raw)
    return Display(**values), fixes


def current() -> Display:
    """The options of this run (display_sidebar has settled them; a page run alone gets defaults)."""
    raw = {k: st.session_state.get(k) for k in KEYS}
    settled = st.session_state.get(SETTLED)
    if isinstance(settled, Display) and all(raw[k] == getattr(settled, k) for k in KEYS):
        return settled  # what display_sidebar settled this run: not parsed again by every chart
    return sanitize(raw)[0]


def _choice_words(key: str, t: Callable[..., str], host) -> dict:
    """What the display choices share besides key and options: worded from `display.<key>[.<value>|.help]`, a
    segmented control in the sidebar that always holds one value."""
    return {
        "label_of": lambda v: t(f"display.{key}.{v}"),
        "label": t(f"display.{key}"),
        "default": DEFAULTS[key],
        "host": host,
        "required": True,
        "help": t(f"display.{key}.help"),
    }


def display_sidebar(lang: str, notices=None, recreated: bool = False) -> Display:
    """The options in the sidebar; their corrections go into `notices` (app.py: the top of the main area,
    where a phone shows them; the sidebar when not given). `recreated`: its widgets are new ones this run
    (app.py: a whole-app run)."""
    t = lambda key, **kw: i18n.t(key, lang, **kw)  # noqa: E731
    report: list = []
    # Valid before the widgets are drawn.
    values = url_state.settle(DISPLAY_URL_KEYS, {}, store=KEPT, report=report, recreated=recreated, relink_later=False)
    st.session_state[SETTLED] = Display(**values)
    sb = st.sidebar
    sb.header(t("display.header"))
    # Translated labels, the neutral name in the URL (ui/choice.py: Streamlit binds the shown text).
    labelled("segmented_control", "palette", PALETTES, recreated=recreated, **_choice_words("palette", t, sb))
    labelled(
        "segmented_control", "weight_scale", WEIGHT_SCALES, recreated=recreated, **_choice_words("weight_scale", t, sb)
    )
    sb.toggle(
        t("display.cell_numbers"),
        key="cell_numbers",
        bind="query-params",
        value=False,
        help=t("display.cell_numbers.help"),
    )
    sb.toggle(
        t("display.table_view"), key="table_view", bind="query-params", value=False, help=t("display.table_view.help")
    )
    sb.segmented_control(
        t("display.image_format"),
        IMAGE_FORMATS,
        key="image_format",
        bind="query-params",
        default=DEFAULTS["image_format"],
        required=True,
        help=t("display.image_format.help"),
    )
    for fix, _ in report:
        (notices or sb).warning(
            i18n.t("notice.corrected", lang, key=fix.key, given=i18n.plain(fix.given), used=fix.used),
            icon=":material/build:",
        )
    return current()
