"""Every URL query key the app reads, page by page: the one table of the app's URL state.

Streamlit-free, so tests read it without running a page: tests/test_notices.py feeds every key of every
page markup payloads, tests/test_fuzz_app.py fuzzes them, and a test there checks this table against the
keys the source actually reads (widgets bound to the URL, st.query_params.get, ui/sections tabs), so a
new key cannot be left out. Keys hold language-neutral values (ids, numbers), never labels.
"""

from __future__ import annotations

from core.settings import SETTING_KEYS

# The shared settings (app.py's sidebar, core/settings.py): on every page.
SETTINGS: tuple[str, ...] = tuple(SETTING_KEYS)
# The display options (ui/display.py's sidebar section): on every page.
DISPLAY = ("palette", "cell_numbers", "table_view", "image_format")
# The Masks lab's hand-drawn grid: read by every page while mask=custom (ui/shell.PageContext.custom_text),
# and kept in the URL on every page while it is in use (issue 24.5).
GRID = "masks_grid"
EVERY_PAGE: tuple[str, ...] = SETTINGS + DISPLAY + (GRID,)

# Each page's own keys (its url_path as in app.py's PAGES; "" is home).
PAGE_KEYS: dict[str, tuple[str, ...]] = {
    "": (),
    "walkthrough": ("walk_view", "walk_step", "walk_hpage", "walk_head", "walk_i", "walk_j", "walk_cellcharts",
                    "walk_drill"),
    "heads": ("heads_tab",),
    "masks": ("masks_tab", "masks_extra", "masks_cross", "masks_tk", "masks_batch", "masks_len0", "masks_len1",
              "masks_pad", "masks_polarity", "masks_fill", "masks_head"),
    "real-model": ("real_text", "real_tab", "real_layer", "real_head", "real_hide", "real_off"),
    "why-heads": ("why_tab", "why_seed", "why_steps"),
    "quiz": ("quiz_q",),
    "kv-cache": ("kv_tab", "kv_heads", "kv_step", "kv_head", "kv_model", "kv_context", "kv_gen"),
    "softmax": ("soft_tab", "soft_head", "soft_row", "soft_gain", "soft_bq", "soft_bk", "soft_step"),
    "positions": ("pos_tab", "pos_shuffle", "pos_causal", "pos_head", "pos_model", "pos_example", "pos_dk",
                  "pos_base", "pos_grid", "pos_pair", "pos_at", "pos_span"),
}


def keys_of(url_path: str) -> tuple[str, ...]:
    """Every URL key page `url_path` reads: the keys of every page, then its own."""
    return EVERY_PAGE + PAGE_KEYS[url_path]


def all_keys() -> tuple[str, ...]:
    return EVERY_PAGE + tuple(k for keys in PAGE_KEYS.values() for k in keys)
