"""Every URL query key the app reads, page by page: the one table of the app's URL state.

Streamlit-free, so tests read it without running a page: tests/test_notices.py feeds every key of every
page markup payloads, tests/test_fuzz_app.py fuzzes them, tests/test_url_limits.py sends every one of them
10k-1M characters; and ui/url_state.gate drops from every link a key this table does not give the open page,
so a new key cannot be left out. A page whose lesson declares its keys (`URL_KEYS` of lessons/url.py's UrlKey) is
listed by that table: its names, ranges and defaults are written once, there. Keys hold language-neutral values
(ids, numbers), never labels.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from core.limits import MAX_GRID_CHARS, MAX_TEXT_CHARS
from lessons import heads, kv_cache, masks_lab, positions, real_heads, softmax, walkthrough, why_heads
from lessons.settings import SETTING_KEYS
from lessons.url import UrlKey, names

# The shared settings (app.py's sidebar, lessons/settings.py): on every page.
SETTINGS: tuple[str, ...] = tuple(SETTING_KEYS)
# The display options (ui/display.py's sidebar section): on every page.
DISPLAY = ("palette", "cell_numbers", "table_view", "image_format", "weight_scale")
# The Masks lab's hand-drawn grid: read by every page while mask=custom (ui/shell.PageContext.custom_text),
# and kept in the URL on every page while it is in use, so a shared link still shows the drawn mask.
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


ALL_KEYS = frozenset(all_keys())


# ---------------------------------------------------------------- what a link may carry
# One rule for every value that comes from a link, applied before anything parses, keeps or echoes it
# (ui/url_state.gate): a key no page reads is dropped; a key the open page does not own is dropped (the grid is
# every page's only while mask=custom); a value longer than its key can hold is dropped (with a notice, never
# quoted); a repeated key keeps its last few values. So nothing the server writes back grows with a bad link.
MAX_VALUE_CHARS = 64  # any id, number or option the app writes (the longest is a few tens of characters)
MAX_REPEATS = 8  # of a repeated key (?seed=1&seed=2): a page reads the last one and may say it was repeated
LONG_VALUES = {GRID: MAX_GRID_CHARS, "real_text": MAX_TEXT_CHARS}  # free text: its own limit (core/limits.py)
TEXT_HOMES = {GRID: "masks", "real_text": "real-model"}  # the page whose text box refuses a too-long text itself
MANY_VALUES = {"real_off": len(real_heads.HEADS), "masks_extra": len(masks_lab.EXTRA_PARTS)}  # multi-choice pills


def max_chars(key: str) -> int:
    """The most characters one value of `key` may have in a link."""
    return LONG_VALUES.get(key, MAX_VALUE_CHARS)


def max_values(key: str) -> int:
    """The most values `key` may have in a link."""
    return max(MANY_VALUES.get(key, 1), MAX_REPEATS)


def owned(key: str, url_path: str | None, mask: str | None) -> bool:
    """Does the page `url_path` read `key` (None: the page is not known yet, any page's key is kept)?
    The hand-drawn grid belongs to the Masks lab, and to every page while the mask setting is custom."""
    if url_path is None:
        return key in ALL_KEYS
    if key == GRID:
        return url_path == "masks" or mask == "custom"
    return key in keys_of(url_path)


@dataclass(frozen=True)
class LinkPlan:
    """What to change in a link: keys to drop, keys whose values to cut to their last few, and what to say."""

    drop: tuple[str, ...] = ()
    cut: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (key, the values kept)
    too_long: tuple[tuple[str, int], ...] = ()  # (key, its limit): an owned key whose value was too long
    unknown: tuple[str, ...] = ()  # keys no page reads

    def __bool__(self) -> bool:
        return bool(self.drop or self.cut)


def plan_link(query: Mapping[str, Sequence[str]], url_path: str | None, mask: str | None) -> LinkPlan:
    """The one rule above, for a link's keys and all their values (`query`: key -> values)."""
    drop, cut, too_long, unknown = [], [], [], []
    for key, values in query.items():
        if len(key) > MAX_VALUE_CHARS or key not in ALL_KEYS:
            drop.append(key)
            unknown.append(key)
        elif not owned(key, url_path, mask):
            drop.append(key)
        elif any(len(v) > max_chars(key) for v in values):
            drop.append(key)
            too_long.append((key, max_chars(key)))
        elif len(values) > max_values(key):
            cut.append((key, tuple(values[-max_values(key) :])))
    return LinkPlan(tuple(drop), tuple(cut), tuple(too_long), tuple(unknown))


# ---------------------------------------------------------------- a page's state as one dict (class mode)
def _neutral(value: object) -> bool:
    return value is None or isinstance(value, (str, int, float, bool))


def clean_state(
    values: Mapping[str, object], url_path: str | None, mask: str | None
) -> tuple[dict[str, object], list[str]]:
    """The part of `values` (a page state from elsewhere: another client's, a file's) page `url_path` may take,
    by the link rule above: keys it owns, each a neutral value (text, number, bool) or a list of them, within its
    key's bounds. Nothing here parses: the page's one settle loop validates what is kept. Returns (kept, the keys
    ignored)."""
    if isinstance(values.get("mask"), str):
        mask = str(values["mask"])
    kept: dict[str, object] = {}
    ignored: list[str] = []
    for key, value in values.items():
        items = list(value) if isinstance(value, (list, tuple)) else [value]
        ok = (
            isinstance(key, str)
            and len(key) <= MAX_VALUE_CHARS
            and key in ALL_KEYS
            and owned(key, url_path, mask)
            and len(items) <= max_values(key)
            and all(_neutral(v) and len(str(v)) <= max_chars(key) for v in items)
        )
        if ok:
            kept[key] = list(items) if isinstance(value, (list, tuple)) else value
        else:
            ignored.append(str(key)[:MAX_VALUE_CHARS])
    return kept, ignored
