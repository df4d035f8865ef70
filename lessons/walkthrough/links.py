"""The walkthrough's URL keys, declared once (lessons/url.py's UrlKey; ui/url_state.settle reads them), and what a
link opens by itself (a link to a cell opens its story)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from lessons import url
from lessons.walkthrough.steps import STEP_NAMES, STEPS, VIEWS, head_pages

# ------------------------------------------------------------------ URL values


def _step_rule(raw: object, env: url.Env) -> tuple[str, url.Fix | None]:
    """walk_step: a step's name (case and spaces forgiven), or its number 1..10 (clamped). Else the first step."""
    text_ = str(raw).strip().lower()
    if text_ in STEP_NAMES:
        return text_, None
    try:
        number = int(float(text_[:30]))
    except (ValueError, OverflowError):
        return STEP_NAMES[0], url.Fix("walk_step", url.shown(raw), STEP_NAMES[0], "unreadable")
    clamped = min(max(number, 1), len(STEPS))
    used = STEP_NAMES[clamped - 1]
    return used, None if clamped == number else url.Fix("walk_step", url.shown(raw), used, "out_of_range")


def _head_pages(env: url.Env) -> int:
    return head_pages(env["settings"].num_heads, env["settings"].seq_len)


# The page's URL keys, declared once (lessons/url.py); env: {"settings": the shared Settings}.
URL_KEYS: tuple[url.UrlKey, ...] = (
    url.UrlKey("walk_view", "choice", VIEWS[0], choices=VIEWS),
    url.UrlKey("walk_step", "choice", STEP_NAMES[0], choices=STEP_NAMES, rule=_step_rule, note="or its number 1..10"),
    url.UrlKey("walk_hpage", "int", 1, lo=1, hi=_head_pages, note="1-based, as st.pagination counts"),
    url.UrlKey("walk_head", "int", 0, lo=0, hi=url.setting("num_heads", -1)),
    url.UrlKey("walk_i", "int", url.setting("seq_len", -1), lo=0, hi=url.setting("seq_len", -1)),
    url.UrlKey("walk_j", "int", 0, lo=0, hi=url.setting("seq_len", -1)),
    url.UrlKey("walk_cellcharts", "bool", False),
    url.UrlKey("walk_drill", "bool", False),
)
URL_KEY_NAMES = url.names(URL_KEYS)
CELL_KEYS = ("walk_head", "walk_i", "walk_j", "walk_cellcharts")  # a link naming one of them opens the cell's story


def link_opens_drill(query: Mapping[str, Sequence[str]]) -> bool:
    """Does a link open the drill-down by itself? `query`: the link's values of each key (a key may repeat). It
    does when it names a cell (CELL_KEYS) and its walk_drill, if any, is one valid value; a bad or repeated
    walk_drill is corrected instead (to closed, and said)."""
    if not any(query.get(k) for k in CELL_KEYS):
        return False
    drill = list(query.get("walk_drill") or ())
    if not drill:
        return True
    key = next(k for k in URL_KEYS if k.name == "walk_drill")
    return len(drill) == 1 and url.parse_value(key, drill[0])[1] is None
