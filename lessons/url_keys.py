"""Every URL query key the app reads, page by page: the one table of the app's URL state.

Streamlit-free, so tests read it without running a page: tests/test_notices.py feeds every key of every
page markup payloads, tests/test_fuzz_app.py fuzzes them, and a test there checks this table against the
keys the source actually reads (widgets bound to the URL, st.query_params.get, ui/sections tabs), so a
new key cannot be left out. A page whose lesson declares its keys (`URL_KEYS` of lessons/url.py's UrlKey) is
listed by that table: its names, ranges and defaults are written once, there. Keys hold language-neutral values
(ids, numbers), never labels.
"""

from __future__ import annotations

from lessons import heads, kv_cache, masks_lab, positions, real_heads, softmax, walkthrough, why_heads
from lessons.settings import SETTING_KEYS
from lessons.url import UrlKey, names

# The shared settings (app.py's sidebar, lessons/settings.py): on every page.
SETTINGS: tuple[str, ...] = tuple(SETTING_KEYS)
# The display options (ui/display.py's sidebar section): on every page.
DISPLAY = ("palette", "cell_numbers", "table_view", "image_format")
# The Masks lab's hand-drawn grid: read by every page while mask=custom (ui/shell.PageContext.custom_text),
# and kept in the URL on every page while it is in use (issue 24.5).
GRID = "masks_grid"
# Class mode (ui/classmode.py): the class code, a student's id (a reload rejoins), the teacher's key. Kept on every
# page while in a class.
CLASS = ("class", "member", "teacher")
EVERY_PAGE: tuple[str, ...] = SETTINGS + DISPLAY + (GRID,) + CLASS

# The pages whose lesson declares its keys (lessons/url.py's UrlKey: name, kind, range, default).
DECLARED: dict[str, tuple[UrlKey, ...]] = {
    "walkthrough": walkthrough.URL_KEYS,
    "heads": heads.URL_KEYS,
    "masks": masks_lab.URL_KEYS,
    "real-model": real_heads.URL_KEYS,
    "why-heads": why_heads.URL_KEYS,
    "kv-cache": kv_cache.URL_KEYS,
    "softmax": softmax.URL_KEYS,
    "positions": positions.URL_KEYS,
}
# Keys of a declaring page that it parses with a handler of its own (the lab's tab, its extra masks menu; the
# grid is every page's, above).
OWN_HANDLERS: dict[str, tuple[str, ...]] = {
    "masks": tuple(k for k in masks_lab.OWN_HANDLERS if k != GRID),
    "real-model": ("real_text", "real_off"),  # free text and a set of heads: kinds lessons/url does not parse
}
# Each page's own keys (its url_path as in app.py's PAGES; "" is home): a declaring page's are its table's names.
PAGE_KEYS: dict[str, tuple[str, ...]] = {
    "": (),
    "quiz": ("quiz_q",),
    "class": (),
    **{page: names(keys) + OWN_HANDLERS.get(page, ()) for page, keys in DECLARED.items()},
}


def keys_of(url_path: str) -> tuple[str, ...]:
    """Every URL key page `url_path` reads: the keys of every page, then its own."""
    return EVERY_PAGE + PAGE_KEYS[url_path]


def all_keys() -> tuple[str, ...]:
    return EVERY_PAGE + tuple(k for keys in PAGE_KEYS.values() for k in keys)
