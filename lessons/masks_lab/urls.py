"""The page's URL keys, declared once (lessons/url.py parses them; ui/url_state.py reads and writes them back)."""

from __future__ import annotations

from core.limits import T_K_MAX, T_K_MIN
from lessons.masks_lab.choices import DEFAULT_T_K, FILLS, POLARITIES, default_lengths, default_padding
from lessons.url import Env, UrlKey, setting


def _T_k(env: Env) -> int:
    """The keys' length: the cross-attention slider's T_k, else the queries' (self-attention)."""
    return int(env["masks_tk"]) if env["masks_cross"] else env["settings"].seq_len


# The page's URL keys (lessons/url.py; ui.url_state.settle reads, corrects and writes them back), in the order
# they depend on each other. Three more have their own handlers: masks_tab (ui.sections.lazy_tabs: one of
# SECTIONS, else the first), masks_extra (several of EXTRA_PARTS: ui.choice.labelled's pills drop the rest) and
# masks_grid (the hand-drawn mask's text: ui.free_text, parse_grid; a grid that does not fit falls back).
URL_KEYS: tuple[UrlKey, ...] = (
    UrlKey("masks_cross", "bool", False),
    UrlKey("masks_tk", "int", DEFAULT_T_K, lo=T_K_MIN, hi=T_K_MAX, note="cross-attention only"),
    UrlKey("masks_batch", "choice", "1", choices=("1", "2"), note="padding only"),
    UrlKey("masks_pad", "int", lambda env: default_padding(_T_k(env)), lo=0, hi=_T_k, note="0..T_k, batch of one"),
    UrlKey("masks_len0", "int", lambda env: default_lengths(_T_k(env))[0], lo=0, hi=_T_k, note="batch of two"),
    UrlKey("masks_len1", "int", lambda env: default_lengths(_T_k(env))[1], lo=0, hi=_T_k, note="batch of two"),
    UrlKey("masks_polarity", "choice", "keep", choices=POLARITIES),
    UrlKey("masks_fill", "choice", "-1e9", choices=FILLS),
    UrlKey("masks_head", "int", 0, lo=0, hi=setting("num_heads", -1)),
    UrlKey(
        "masks_row",
        "int",
        lambda env: min(2, env["settings"].seq_len - 1),
        lo=0,
        hi=setting("seq_len", -1),
        note="section row",
    ),
    UrlKey("masks_seq", "choice", "0", choices=("0", "1"), note="section row, batch of two"),
)
OWN_HANDLERS = ("masks_tab", "masks_extra", "masks_grid")
URL_KEY_NAMES = tuple(k.name for k in URL_KEYS)
