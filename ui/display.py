"""The display options (sidebar section "Display"): colour palette, numbers in the cells, table view,
image format of the chart download. Stored in session state and bound to the URL, so a teacher's
link carries the projector palette to every student.

app.py calls `display_sidebar(lang)` once per run; ui.heatmaps.show_heatmap and ui.linecharts read `current()`.
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

import i18n
from charts.palettes import DEFAULT_PALETTE, PALETTES
from charts.payload import IMAGE_FORMATS  # a chart's download button saves one format: this one
from ui.choice import labelled

DEFAULTS = {"palette": DEFAULT_PALETTE, "cell_numbers": False, "table_view": False, "image_format": "png"}
KEYS = tuple(DEFAULTS)  # widget keys = URL parameters


@dataclass(frozen=True)
class Display:
    palette: str = DEFAULT_PALETTE
    cell_numbers: bool = False
    table_view: bool = False
    image_format: str = "png"


def _flag(raw) -> bool | None:
    """A toggle's value from session state (bool) or the URL ('true'/'false'); None when unreadable."""
    if isinstance(raw, bool):
        return raw
    text = str(raw).strip().lower()
    return True if text in ("true", "1", "yes", "on") else False if text in ("false", "0", "no", "off", "") else None


def sanitize(raw: dict) -> tuple[Display, list[tuple[str, str, str]]]:
    """Valid options from raw values (None = not given); fixes are (key, given, used) for a notice
    (`given` is raw user text, bounded: quote it only through i18n.plain)."""
    fixes = []

    def pick(key, valid):
        value = raw.get(key)
        if value is None:
            return DEFAULTS[key]
        if key in ("cell_numbers", "table_view"):
            flag = _flag(value)
            if flag is None:
                fixes.append((key, str(value)[:200], str(DEFAULTS[key]).lower()))
                return DEFAULTS[key]
            return flag
        value = str(value).strip().lower()
        if value not in valid:
            fixes.append((key, str(raw.get(key))[:200], DEFAULTS[key]))
            return DEFAULTS[key]
        return value

    return Display(
        pick("palette", PALETTES),
        pick("cell_numbers", None),
        pick("table_view", None),
        pick("image_format", IMAGE_FORMATS),
    ), fixes


def current() -> Display:
    """The options of this run (display_sidebar has settled them; a page run alone gets defaults)."""
    return sanitize({k: st.session_state.get(k) for k in KEYS})[0]


def display_sidebar(lang: str, notices=None) -> Display:
    """The options in the sidebar; their corrections go into `notices` (app.py: the top of the main area,
    where a phone shows them; the sidebar when not given)."""
    t = lambda key, **kw: i18n.t(key, lang, **kw)  # noqa: E731
    raw = {k: (st.session_state[k] if k in st.session_state else st.query_params.get(k)) for k in KEYS}
    display, fixes = sanitize(raw)
    for key in KEYS:  # valid before the widgets are drawn (and kept when a page change re-creates them)
        st.session_state[key] = getattr(display, key)
    sb = st.sidebar
    sb.header(t("display.header"))
    # Translated labels, the neutral name in the URL (ui/choice.py: Streamlit binds the shown text).
    labelled(
        "segmented_control",
        "palette",
        PALETTES,
        lambda p: t(f"display.palette.{p}"),
        t("display.palette"),
        default=DEFAULTS["palette"],
        host=sb,
        required=True,
        help=t("display.palette.help"),
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
    for key, given, used in fixes:
        (notices or sb).warning(
            i18n.t("notice.corrected", lang, key=key, given=i18n.plain(given), used=used), icon=":material/build:"
        )
    return current()
