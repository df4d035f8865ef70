"""The heads page's URL keys and the grid's paging: the open section, the grid's page and pick, the sliced head.

`URL_KEYS` is settled by ui/url_state.settle (lessons/url.py's UrlKey); `parse_pick` reads the grid's pick from the
widget or a link; `page_of_heads` / `head_pages` / `heads_on_page` cut h heads into pages of PER_PAGE.
"""

from __future__ import annotations

import math

from lessons.heatmap import page_of_heads
from lessons.url import Env, Fix, UrlKey, setting, shown

# The page's sections, in order: the values of `heads_tab`.
SECTIONS = ("shapes", "heads", "cost", "timing", "slice", "single")

PER_PAGE = 8  # heads drawn by default in the grid (one page of heads)
MAX_PICK = 16  # heads drawn at most


def head_pages(h: int) -> int:
    """How many pages of PER_PAGE heads h heads fill (at least 1)."""
    return max(1, math.ceil(h / PER_PAGE))


def _h(env: Env) -> int:
    return int(env["settings"].num_heads)


def _as_head(item: object) -> int | None:
    if isinstance(item, int) and not isinstance(item, bool):
        return item
    return int(item) if isinstance(item, str) and item.isdigit() and len(item) < 6 else None


def parse_pick(raw: object, env: Env) -> tuple[list[int], Fix | None]:
    """The heads picked in the grid (`heads_pick`): a list of at most MAX_PICK distinct heads 0..h-1, from the
    widget's list or a link's "0,1,5". Anything else (a head past h, a repeat, too many, garbage) gives the
    heads of the page `heads_page` (the widget's first state), with the Fix saying why."""
    h = _h(env)
    items = list(raw) if isinstance(raw, (list, tuple)) else str(raw)[:200].strip("[] ").replace(",", " ").split()
    heads = [_as_head(i) for i in items]
    reason = "unreadable" if None in heads else "out_of_range"
    if reason == "out_of_range" and all(0 <= i < h for i in heads if i is not None):
        if len(set(heads)) == len(heads) <= MAX_PICK:
            return [i for i in heads if i is not None], None
    used = page_of_heads(h, env.get("heads_page", 0), PER_PAGE)
    return used, Fix("heads_pick", shown(raw), ",".join(map(str, used)), reason)


def heads_on_page(h: int, page: int) -> tuple[int, int]:
    """(first, last) head on page `page` of the grid's page selector."""
    heads = page_of_heads(h, page, PER_PAGE)
    return heads[0], heads[-1]


# The page's keys, declared once (lessons/url.py parses them): name, type, allowed values, default; settled by
# ui/url_state.settle. The sidebar's shared settings (d_model, num_heads, seq_len, mask, seed, lang) are declared
# by lessons/settings.py. heads_page / heads_pick / heads_slice_head are the grid's and the slice's choices: their
# widgets show worded options and are not bound to the URL; the page writes them into the link (pages/heads.py).
URL_KEYS: tuple[UrlKey, ...] = (
    UrlKey("heads_tab", "choice", SECTIONS[0], choices=SECTIONS),  # the open section (ui/sections.lazy_tabs)
    UrlKey("heads_page", "int", 0, lo=0, hi=lambda env: head_pages(_h(env)) - 1, note="page of PER_PAGE heads"),
    UrlKey(
        "heads_pick",
        "choice",
        lambda env: page_of_heads(_h(env), env.get("heads_page", 0), PER_PAGE),
        rule=parse_pick,
        note="heads 0..h-1, at most MAX_PICK",
    ),
    UrlKey("heads_slice_head", "int", 0, lo=0, hi=setting("num_heads", -1)),
)
# The keys a change of the model (d_model or h) starts again from their defaults: a pick means those heads.
NEW_MODEL_KEYS = ("heads_page", "heads_pick")
