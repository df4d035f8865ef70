"""What every page needs from the app shell: the shared settings, the language, and a
guarantee that the shell (sidebar + navigation from app.py) is there.

Why the guard: with a `pages/` folder beside app.py, Streamlit 1.67's first request to a
deep link such as /walkthrough runs pages/walkthrough.py on its own (the old pages-folder
mode), without app.py. `page_context()` notices that (ui.seam.shell_guard, entry `deep_links` of
ui/seam/__init__.py) and runs app.py instead, which draws the sidebar, switches Streamlit to
st.navigation for good, and runs this page.
"""

from __future__ import annotations

import runpy
import sys
from dataclasses import dataclass
from pathlib import Path

import streamlit as st
import torch

import i18n
from core.limits import MAX_GRID_CHARS
from lessons import scenario
from lessons.export import GRID_PARAM  # the lab's URL parameter for the hand-drawn grid
from lessons.limits import too_long
from lessons.scenario import Scenario
from lessons.settings import SETTING_KEYS, Settings, sanitize
from ui import page_memory, seam
from ui.cache import shared

APP_PATH = Path(__file__).resolve().parent.parent / "app.py"
# The Masks lab's hand-drawn grid ('10.11' rows), kept for the other pages of the session.
CUSTOM_MASK_KEY = "custom_mask_text"


@dataclass(frozen=True)
class PageContext:
    settings: Settings

    @property
    def lang(self) -> str:
        return self.settings.lang

    def t(self, key: str, **fmt) -> str:
        return i18n.t(key, self.settings.lang, **fmt)

    @property
    def custom_text(self) -> str | None:
        """The grid last drawn on the Masks lab page, when the mask setting is custom (else None).

        Before the lab was visited in this session, a shared link's `masks_grid` parameter (as in a
        downloaded settings file's URL) gives the grid, so the link shows the same mask on every page.
        """
        if self.settings.mask != "custom":
            return None
        url = st.query_params.get(GRID_PARAM)
        if too_long(url, MAX_GRID_CHARS):  # refused (the Masks lab says so): never parsed nor cached
            url = None
        return st.session_state.get(CUSTOM_MASK_KEY) or url or None

    @property
    def key(self) -> tuple:
        """The settings as a cache key (ui.cache.shared): what a value computed from the shared settings depends on."""
        s = self.settings
        return (s.d_model, s.num_heads, s.seq_len, s.mask, s.seed, s.lang, self.custom_text)

    def run(self) -> Scenario:
        """The shared settings' run, once for the whole server (ui.cache key "run"): the pages that show it, and the
        downloads section below two of them (ui/downloads.py), read the same one."""
        return shared("run", self.key, lambda: scenario.run(self.settings, custom_text=self.custom_text))


def keep_grid_in_url() -> None:
    """While mask=custom, the hand-drawn grid travels in the URL on every page (and is kept in the session).

    Why: Streamlit drops a query parameter no widget is bound to when the page changes, so after a visit to
    another page the address bar lost `masks_grid`: a student opening the teacher's link got the default grid
    and other numbers. app.py calls this at the end of a run, when every widget bound to the URL has been
    drawn (a write before that, after a page change, would lose their values in the address bar); it writes
    only when the grid is missing or stale. A grid too long for any mask is never kept (ui/free_text.py).
    """
    if st.session_state.get("mask") != "custom":
        return
    url = st.query_params.get(GRID_PARAM)
    grid = st.session_state.get(CUSTOM_MASK_KEY)
    if not grid and url and not too_long(url, MAX_GRID_CHARS):
        grid = st.session_state[CUSTOM_MASK_KEY] = url  # a link's grid, before the lab was visited
    if grid and not too_long(grid, MAX_GRID_CHARS) and url != grid:
        st.query_params[GRID_PARAM] = grid


def keep_in_url() -> None:
    """The end of every run: the language and (while mask=custom) the hand-drawn grid are in the link.

    The language always, whatever the browser's locale: a student whose browser speaks the other language
    opens the teacher's link in the teacher's language (its widget is not bound to the URL: app.py)."""
    lang = st.session_state.get("lang")
    if lang in i18n.LANGS and url_values("lang") != [lang]:
        st.query_params["lang"] = lang
    keep_grid_in_url()


def drop_url_value(key: str) -> None:
    """Forget `key`'s value in this page's URL before its bound widget is drawn.

    Call it after putting a corrected value in session state. Why: on a page's first run, Streamlit
    1.67 seeds a widget bound with bind="query-params" from the URL *as it was loaded*, over any value
    the code set, and some of its parsers crash on garbage instead of ignoring it (number_input:
    OverflowError on '1e400'; an empty value gives None even for required widgets). With the value
    gone from the URL, the widget takes the corrected session-state value; the address bar loses the
    bad value too. (The initial URL is private Streamlit state: ui.seam.forget_initial_url_value, entry `url_values`
    of ui/seam/__init__.py; a version without it only loses this cleaning, and tests/test_fuzz_app.py notices.)
    """
    if key in st.query_params:
        del st.query_params[key]
    seam.forget_initial_url_value(key)


def url_values(key: str) -> list[str]:
    """Every value `key` has in the URL (a link may repeat a key: ?seed=1&seed=2)."""
    return st.query_params.get_all(key)


# The Settings app.py's settle_settings() made valid in this run (so a page does not parse them again).
SETTLED_KEY = "_shell_settled_settings"
SETTINGS_KEPT = "_settings_kept"  # ui.url_state.settle's store for the shared settings


def remember_settings(settings: Settings) -> None:
    st.session_state[SETTLED_KEY] = settings


def current_settings() -> Settings:
    """The shared settings as app.py's sidebar left them in this run (always valid)."""
    raw = {k: st.session_state.get(k) for k in SETTING_KEYS}
    settled = st.session_state.get(SETTLED_KEY)
    if isinstance(settled, Settings) and all(raw[k] == getattr(settled, k) for k in SETTING_KEYS):
        return settled  # what settle_settings made of these very values (sanitising them again gives the same)
    settings, _ = sanitize(raw, default_lang=i18n.lang_from_locale(st.context.locale))
    return settings


SHOWN_URL = "_shell_shown_url"  # st.context.url as the last whole-app run left it: the page shown


def remember_page() -> None:
    """app.py, after st.navigation: the page this session shows, for rerun_parts to tell a page change."""
    st.session_state[SHOWN_URL] = st.context.url


def rerun_parts(parts) -> None:
    """From a callback: rerun only the fragments `parts`, in this order.

    Not when the interaction is a page change: a value typed and not yet sent goes with the click on a page link, so
    its callback runs in the page change's interaction, and a narrower rerun would replace the page change (the
    click was lost; tests/test_browser_app.py). The page change's own whole-app run reruns everything anyway.
    (st.context.url names the page the interaction asks for.) A session with no browser (streamlit.testing's AppTest:
    no URL) reruns the whole app, since its pages are registered anew on every run and a page run alone would not
    find them (st.page_link)."""
    url = st.context.url
    if not url:
        st.rerun("app")
    if url != st.session_state.get(SHOWN_URL):
        return  # a page change: its whole-app run goes on
    st.rerun(list(parts))


def one_torch_thread() -> None:
    """Call before the first torch op of a script thread (a page's run, a fragment's rerun)."""
    # Streamlit runs every rerun (a fragment's too) in a new thread, and torch applies app.py's one-thread
    # setting to a thread's OpenMP/MKL pools lazily, on its first parallel op. A page whose first torch op
    # was a matrix product (x @ W) ran it with OpenMP's default team of all cores, several times slower under
    # load (benchmarks/README.md, "No wasted server work"). This call does that cheap per-thread set-up now.
    torch.get_num_threads()


def page_context() -> PageContext:
    """Call first in every page file."""
    if seam.shell_guard():
        # Run standalone by the pages-folder mode: run the real entrypoint, which renders this page.
        runpy.run_path(str(APP_PATH), run_name="__main__")
        st.stop()
    one_torch_thread()
    page_memory.remember(sys._getframe(1).f_globals)  # its large values go when the run ends (ui/page_memory.py)
    return PageContext(current_settings())
