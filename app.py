"""Attention Lab entrypoint: the shared settings in the sidebar (kept in the URL) and the navigation.

Served by `streamlit run serve.py` (scripts/start.sh; `streamlit run app.py` works too, without the browser-side
batching of ui/seam/client_batching.js). Every page reads the settings through ui.shell.page_context().
What the app patches in Streamlit is all in ui/seam/__init__.py.
"""

import gc
import importlib
import os

import numpy  # noqa: F401
import pandas  # noqa: F401  (see below)
import streamlit as st
import torch  # imported once here so gc.freeze() below covers its objects

# plotly uses pandas/numpy only if they are already in sys.modules, without waiting for their import to
# finish: with a class opening a fresh server at once, one session's figure met another session's
# half-imported pandas ("partially initialized module 'pandas'"). Importing them here, before any
# page draws, makes every session wait on the import lock until they are complete.
import i18n
from core.masks import MASK_KINDS
from lessons import walkthrough
from lessons.settings import (
    D_MODEL_CHOICES,
    DEFAULTS,
    SEED_MAX,
    SEED_MIN,
    SEQ_LEN_MAX,
    SEQ_LEN_MIN,
    SETTING_URL_KEYS,
    head_choices,
    settings_of,
)
from ui import classmode, downloads, live_part, reclaim, seam, url_state, walk_drill, walk_nav
from ui.cache import process_wide
from ui.choice import HIDDEN_CSS, labelled
from ui.code import WRAP_CSS
from ui.display import DISPLAY_URL_KEYS, display_sidebar
from ui.display import KEPT as DISPLAY_KEPT
from ui.live_part import LIVE_PART
from ui.navigation import PAGES, SETTINGS_FREE_PAGES, WHOLE_RUN_PAGES
from ui.seam import widget_guard
from ui.shell import SETTINGS_KEPT, keep_in_url, remember_page, remember_settings, rerun_parts
from ui.tables import CSS as TABLE_CSS


def _tune_process() -> bool:
    """Once per server process (app.py itself reruns on every interaction; ui.cache.process_wide, not
    st.cache_resource, which any client's clear_cache message empties)."""
    # torch's many long-lived objects make every full collection slow; they never die, so freeze them.
    gc.freeze()
    # A class means many sessions at once on a small machine: one thread per torch call keeps the
    # thread pools from fighting over the cores (measured: 5-15x slower medians with 2 threads under load).
    torch.set_num_threads(1)
    # The code the pages show is parsed now, once, not by 8 sessions' threads at once (lessons/source.py).
    walkthrough.warm()
    # A widget sent a value it cannot take keeps its last one, with a notice (ui/seam/widget_guard.py).
    seam.install()
    # Memory comes back after a class leaves: a full collection and malloc_trim every 30 s (ui/reclaim.py).
    reclaim.start()
    # What holds memory, on request: only when ATTENTION_LAB_MEMDEBUG names a folder (benchmarks/memdebug.py).
    if os.environ.get("ATTENTION_LAB_MEMDEBUG"):
        importlib.import_module("benchmarks.memdebug").start()
    return True


process_wide("app.tune_process", _tune_process)


def settle_settings(skip: tuple[str, ...] = (), recreated: bool = False) -> list:
    """Make every shared setting valid in session state before its widget is drawn (ui.url_state.settle, the one
    loop every URL value goes through; declared in lessons.settings.SETTING_URL_KEYS).

    On the first run the values come from the URL; later, from the widgets (a user's change arrives in session
    state before the script runs, so writing it back keeps it). `skip`: keys whose widget this run has already
    drawn (their state can no longer be written). `recreated`: the widgets are new ones this run
    (a whole-app run). Returns the corrections, for show_fixes.
    """
    report: list = []
    env = {"default_lang": i18n.lang_from_locale(st.context.locale)}
    values = url_state.settle(
        SETTING_URL_KEYS, env, store=SETTINGS_KEPT, drawn=skip, report=report, recreated=recreated, relink_later=False
    )
    remember_settings(settings_of(values))  # ui.shell.current_settings() returns it instead of parsing again
    return [fix for fix, _ in report]


# The settings a step changes most (seq_len, the seed) are not bound to the URL: a bound widget's change makes
# Streamlit's browser client rewrite the address and re-render the whole app before it sends the step
# (benchmarks/README.md, "One step profiled"). Their values come from the link on a first visit (settle_settings,
# like every key), and the server writes them into the link at the end of every run (relink_settings).
SERVER_LINKED = ("seq_len", "seed")


def relink_settings() -> None:
    """The end of every run: the link carries every setting and display option that is not its default (and
    exactly the current seq_len and seed, which no widget writes there)."""
    env = {"default_lang": i18n.lang_from_locale(st.context.locale)}
    settings = [k for k in SETTING_URL_KEYS if k.name != "lang"]  # lang: keep_in_url
    url_state.relink(settings, SETTINGS_KEPT, env, exact=SERVER_LINKED)
    url_state.relink(DISPLAY_URL_KEYS, DISPLAY_KEPT, {})


def show_widget_resets(lang: str) -> None:
    """A widget sent a value it cannot take: it kept its last one (ui/seam/widget_guard.py); say so, once."""
    for given in widget_guard.take_rejected():
        st.warning(i18n.t("notice.widget_reset", lang, given=i18n.plain(given)), icon=":material/build:")


def show_fixes(fixes, lang: str, d_model: int, url_path: str | None = None) -> None:
    """The corrections of the shared settings, in the main area at the top of the page (a phone shows the
    sidebar collapsed: a notice there is never seen). Once: a fragment rerun forgets the URL's fixes."""
    url_state.show_gate_notices(lang, url_path)  # link values dropped before anything read them
    show_widget_resets(lang)
    for fix in fixes:
        if fix.key == "num_heads":
            st.warning(
                i18n.t(
                    "notice.num_heads_divisor",
                    lang,
                    given=i18n.plain(fix.given),
                    used=fix.used,
                    d_model=d_model,
                    choices=", ".join(map(str, head_choices(d_model))),
                ),
                icon=":material/build:",
            )
        else:
            st.warning(
                i18n.t("notice.corrected", lang, key=fix.key, given=i18n.plain(fix.given), used=fix.used),
                icon=":material/build:",
            )


def language_sidebar() -> list:
    """The language control (outside the fragments: a language change redraws everything)."""
    fixes = settle_settings(recreated=True)  # a whole-app run: see below
    # Not bound to the URL: Streamlit drops a bound value equal to the widget's default, here the browser's
    # locale, so an en-US teacher's English link opened in Chinese for a zh-CN student. ui.shell.keep_in_url
    # writes it into the link at the end of every run instead.
    st.sidebar.segmented_control(
        "语言 · Language", i18n.LANGS, key="lang", default=i18n.lang_from_locale(st.context.locale), required=True
    )
    return fixes


def settings_sidebar(earlier_fixes: list, settled: bool = False, fragments: bool = False) -> list:
    """The shared settings, drawn into the sidebar box app.py keeps for them (in the settings fragment).
    Returns the corrections made, for show_fixes to say in the main area.

    `settled`: language_sidebar() has just settled them in this same run (a whole-app run); only a
    fragment rerun, which starts here with the widgets' new values, settles them again. `fragments`: the settings
    and the page are the fragments "settings" and "page" (a step reruns only what it changes, see steps_rerun)."""
    fixes = earlier_fixes + ([] if settled else settle_settings(skip=("lang",)))
    lang = st.session_state["lang"]
    t = lambda key, **kw: i18n.t(key, lang, **kw)  # noqa: E731
    st.header(t("settings.header"))
    # d_model, h and the mask change what the sidebar says (the heads offered, d_k, the mask's line): both parts rerun;
    # seq_len and the seed change only the page.
    both = _rerun_settings_and_page if fragments else None
    st.select_slider(
        t("settings.d_model"),
        D_MODEL_CHOICES,
        key="d_model",
        bind="query-params",
        value=DEFAULTS["d_model"],
        on_change=both,
    )
    d_model = st.session_state["d_model"]
    heads = head_choices(d_model)  # settle_settings already moved num_heads onto one of these
    st.select_slider(
        t("settings.num_heads"),
        heads,
        key="num_heads",
        bind="query-params",
        value=DEFAULTS["num_heads"] if DEFAULTS["num_heads"] in heads else heads[0],
        help=t("settings.num_heads.help"),
        on_change=both,
    )
    h = st.session_state["num_heads"]
    st.caption(t("settings.d_k", d_model=d_model, h=h, d_k=d_model // h))
    # seq_len and the seed each in a fragment of their own inside this one (fragments): a class's follow of the
    # teacher's step of one of them re-sends that widget alone (classmode.fragment_parts).
    seq_len_part(lang) if fragments else seq_len_slider(lang)
    # Translated labels, the neutral kind in the URL (ui/choice.py: Streamlit binds the shown text).
    labelled(
        "selectbox",
        "mask",
        MASK_KINDS,
        lambda kind: t(f"mask.{kind}"),
        t("settings.mask"),
        default=DEFAULTS["mask"],
        recreated=settled,  # a whole-app run (settled above): the shown widget may be new and needs its value
        on_change=both,
    )
    st.caption(t(f"mask.{st.session_state['mask']}.about"))
    seed_part(lang) if fragments else seed_input(lang)
    st.caption(t("settings.share"))
    return fixes


def seq_len_slider(lang: str, on_change=None) -> None:
    st.slider(
        i18n.t("settings.seq_len", lang),
        SEQ_LEN_MIN,
        SEQ_LEN_MAX,
        key="seq_len",  # not bound to the URL: SERVER_LINKED
        value=DEFAULTS["seq_len"],
        on_change=on_change,
    )


def seed_input(lang: str, on_change=None) -> None:
    st.number_input(
        i18n.t("settings.seed", lang),
        SEED_MIN,
        SEED_MAX,
        key="seed",  # not bound to the URL: SERVER_LINKED
        step=1,
        value=DEFAULTS["seed"],
        help=i18n.t("settings.seed.help", lang),
        on_change=on_change,
    )


# An emoji, not a ":material/...:" icon: Streamlit fetches a material favicon from fonts.gstatic.com,
# and nothing may come from outside the machine (tests/test_offline_browser.py); an emoji is drawn locally.
st.set_page_config(page_icon="🔦", layout="wide")
# Long formulas scroll sideways on a phone instead of being cut off.
st.html(
    "<style>.katex-display{overflow-x:auto;overflow-y:hidden;padding-bottom:2px}"
    "@media (max-width:640px){.katex-display>.katex{font-size:1em}}" + HIDDEN_CSS + TABLE_CSS + WRAP_CSS + "</style>"
)  # hidden URL carriers (ui/choice.py), the pages' tables (ui/tables.py), code listings in markdown (ui/code.py)
url_state.start_run()  # the page's settles of this run, relinked at its end (_link_and_publish)
url_state.apply_requested()  # a page state asked for, before any widget
classmode.apply_pending()  # class mode: enter the link's class; a follower takes the teacher's view
url_state.gate(None)  # one rule for every link value, before anything reads one (lessons/url_keys.py)
# A whole-app run (a first visit, a page, language or display change) writes every setting into its widget: after a
# page change the sidebar's widgets can be new ones that would start at their defaults (a link opened on one page,
# then another: tests/test_grid_link_browser.py). A settings step is a fragment run (settings_part, page_part), which
# writes only what changed, so a key press made meanwhile is never undone (tests/test_settling_browser.py).
_url_fixes = language_sidebar()
_settled_now = [True]  # settled by this whole-app run; the first settings_sidebar() below uses it up
_lang = st.session_state["lang"]
_settings_box = st.sidebar.container()  # filled by the settings fragment, above the display options
display_sidebar(_lang, notices=st.container(), recreated=True)  # its corrections at the top of the main area
_pages = [
    st.Page(path, title=i18n.t(f"page.{url or 'home'}", _lang), icon=icon, url_path=url or None, default=not url)
    for path, url, icon in PAGES
]
_page = st.navigation(_pages)
remember_page()  # the page shown, so that a setting's callback can tell a page change (ui.shell.rerun_parts)
url_state.gate(_page.url_path)  # and the keys this page does not own
SETTINGS_PART, PAGE_PART, NAV_PART, TAIL_PART = "settings", "page", "nav", "tail"  # the fragments' keys
# Inside the settings' fragment, a fragment for each setting a step changes most (a class's follow of it reruns it
# alone, with the page): the setting's key -> the fragment's key.
STEP_PARTS = {"seq_len": "settings_seq_len", "seed": "settings_seed"}
# A page's navigation that no shared setting changes (its choosers): drawn above the page, in a fragment of its own.
_NAVS = {"walkthrough": walk_nav.draw}
_NAV_KEYS = {"walkthrough": walk_nav.SHOWN_KEYS}  # the URL keys each navigation shows
_nav = _NAVS.get(_page.url_path)
# A page's downloads section, below it (ui/downloads.py): in a fragment of its own, which a step reruns only while open.
_tail = _page.url_path if _page.url_path in downloads.TAIL_PAGES else None
# What a page draws in that fragment above its downloads (its section(), redrawn while is_open() or when a follow
# changed one of its RERUN_KEYS): the walkthrough's cell's story (ui/walk_drill.py).
_ABOVE_TAIL = {"walkthrough": walk_drill}
_above_tail = _ABOVE_TAIL.get(_page.url_path) if _tail is not None else None
_whole_page = _page.url_path in WHOLE_RUN_PAGES or not seam.fragment_reruns_page()
_page_parts = (PAGE_PART, NAV_PART) if _nav else (PAGE_PART,)  # in the order they run: the page settles first
# A whole-run page that reads no shared setting: its settings are a fragment all the same, and a step of one reruns
# that fragment alone and ends it with the link (_settings_alone_end); the page (why-heads: 36 elements and 9
# containers) is not run or sent again. Such a step waits for a training to end instead of stopping it.
_settings_alone = _whole_page and _page.url_path in SETTINGS_FREE_PAGES
_whole_run_going = [True]  # this whole-app run has not ended; a fragment rerun after it finds the list emptied
# What its choices rerun: the page, the navigation, and below the page (a view or step shows or hides the cell's story)
walk_nav.set_parts(None if _whole_page or not _nav else (*_page_parts, *((TAIL_PART,) if _above_tail else ())))


def _open_tail(changed: frozenset[str] = frozenset()) -> tuple[str, ...]:
    """The fragment below the page when a section in it is open (a setting's step must redraw it with the new run), or
    when a class's follow `changed` a key it shows. Closed, it is the same after the step and is not sent again (a
    closed expander sent again is rendered again by the browser)."""
    if _tail is None or _whole_page:
        return ()
    opened = downloads.tail_open(_tail)
    if _above_tail is not None:
        opened = opened or _above_tail.is_open() or bool(changed & _above_tail.RERUN_KEYS)
    return (TAIL_PART,) if opened else ()


classmode.fragment_parts(  # what a same-page follow reruns
    None if _whole_page else (SETTINGS_PART, *_page_parts),
    _NAV_KEYS.get(_page.url_path, frozenset()),
    STEP_PARTS,
    _open_tail,
)
classmode.panel(_page.url_path, _lang)  # the sidebar's class section and a student's current question


def _rerun(*parts: str) -> None:
    """From a setting's callback: rerun only `parts`, in this order (ui.shell.rerun_parts)."""
    rerun_parts(parts)


def _rerun_page() -> None:
    """A step of seq_len or the seed changes nothing the sidebar shows: only the page reruns, and none of the
    sidebar's elements is sent to the browser again (each one it re-sends costs a render). On a page that reads no
    setting nothing more reruns than the step's own fragment."""
    if not _settings_alone:
        _rerun(LIVE_PART if live_part.drawn() else PAGE_PART, *_open_tail())


def _rerun_settings_and_page() -> None:
    """A step of d_model, h or the mask: the settings (the heads offered, d_k, the mask's line), then the page (on a
    page that reads no setting, the settings alone: their own fragment)."""
    if not _settings_alone:
        _rerun(SETTINGS_PART, PAGE_PART, *_open_tail())


def _settings_alone_end() -> None:
    """The end of a settings step on a page that reads no setting (_settings_alone), in the fragment that ran: what
    the page's fragment does after the page. Its corrections are said here, beside the settings."""
    if not _settings_alone or _whole_run_going:
        return  # the whole-app run does all of this after its page
    _show_pending_fixes()
    _settled_now.clear()  # the next step's fragment settles the values its widgets send
    _link_and_publish()


def _show_pending_fixes() -> None:
    """The settings' corrections made in this run, said where the run is drawing (once)."""
    show_fixes(_pending_fixes, st.session_state["lang"], st.session_state["d_model"], _page.url_path)
    _pending_fixes.clear()


def _link_and_publish() -> None:
    """The end of a run that drew the page or a setting: the link, then the teacher's view to the class."""
    keep_in_url()  # after the page: every widget bound to the URL is drawn by now
    url_state.relink_settled()  # the page's values the link lost (a run that started from a link without them)
    relink_settings()
    classmode.publish(_page.url_path)  # the teacher's view to the class; the class keys kept in the link


_pending_fixes: list = []  # the settings fragment's corrections, for the page fragment to show in the main area


_in_settings: list = []  # the settings fragment is running (its step fragments run inside it)


@st.fragment(key=SETTINGS_PART)
def settings_part() -> None:
    """The shared settings in the sidebar. Its own widgets' callbacks choose what reruns (steps_rerun above); it
    always runs before the page, which shows its corrections."""
    url_state.gate(_page.url_path)  # a fragment rerun brings the browser's query string again
    url_state.start_run()
    classmode.apply_followed()  # a follow on this page: the teacher's values, before any widget is drawn
    _in_settings[:] = [True]
    try:
        _pending_fixes.extend(settings_sidebar(_url_fixes, settled=bool(_settled_now), fragments=True))
    finally:
        _in_settings.clear()
    _url_fixes.clear()  # URL corrections are shown once, not again on every fragment rerun
    _settled_now[:] = [True]  # settled in this run: the page's part need not settle again
    _settings_alone_end()


def _step_part_alone() -> None:
    """A step setting's fragment rerun without the settings' (a class's follow of that setting alone): what the
    settings fragment does first, before the widget is drawn."""
    if _in_settings:
        return
    url_state.gate(_page.url_path)
    url_state.start_run()
    classmode.apply_followed()
    if not _settled_now:
        _pending_fixes.extend(settle_settings(skip=("lang",)))
        _settled_now[:] = [True]


@st.fragment(key=STEP_PARTS["seq_len"])
def seq_len_part(lang: str) -> None:
    """The seq_len slider; its step reruns the page alone (the sidebar shows nothing else it changes)."""
    _step_part_alone()
    seq_len_slider(lang, on_change=_rerun_page)
    if not _in_settings:
        _settings_alone_end()


@st.fragment(key=STEP_PARTS["seed"])
def seed_part(lang: str) -> None:
    """The seed's box; its step reruns the page alone."""
    _step_part_alone()
    seed_input(lang, on_change=_rerun_page)
    if not _in_settings:
        _settings_alone_end()


def _page_start() -> None:
    """What the page's fragment does before the page (and its live part, rerun alone, before itself)."""
    url_state.gate(_page.url_path)  # a page widget's rerun brings the browser's query string too
    url_state.start_run()
    classmode.apply_followed()  # a follow that changed only the page's own keys (the settings part did not run)
    if not _settled_now:  # the settings' part did not run before this one: settle the values its widgets sent
        _pending_fixes.extend(settle_settings(skip=("lang",)))
    _settled_now.clear()
    _show_pending_fixes()  # main area, on top (a live part rerun alone: on top of it)


@st.fragment(key=PAGE_PART)
def page_part() -> None:
    """The page: a widget on the page reruns only this (the shared settings are not re-sent); a step of seq_len or
    the seed reruns the page's live part alone if it drew one (ui/live_part.py), else this; a step of d_model, h or
    the mask reruns the settings first."""
    _page_start()
    with live_part.page_drawing(live_part.Around(_page_start, _link_and_publish)):
        seam.run_page(_page)  # the same page object again on each fragment rerun (ui/seam entry `fragment_page`)
    _link_and_publish()


@st.fragment(key=NAV_PART)
def nav_part() -> None:
    """The page's navigation (its choosers), above the page, drawn after it: the page has settled the values it
    shows. Its choices rerun the page, then this (walk_nav.rerun); a step of seq_len or the seed reruns neither this
    nor the settings, so none of the choosers is sent again."""
    if _nav is not None:
        _nav(st.session_state["lang"])
    keep_in_url()  # again: the navigation's choosers are bound to the URL too
    relink_settings()


def _draw_tail() -> None:
    """Below the page: what the page draws there (_ABOVE_TAIL), then its downloads section (ui/downloads.py)."""
    if _above_tail is not None:
        _above_tail.section()
    if _tail is not None:
        downloads.tail(_tail)


@st.fragment(key=TAIL_PART)
def tail_part() -> None:
    """Below the page, in a fragment: its sections' own widgets (opening or closing one, the cell's choices) rerun only
    this; a step of a setting reruns it only while a section is open (_open_tail)."""
    url_state.gate(_page.url_path)
    _draw_tail()


# The navigation's place, above the page: a placeholder, which the navigation's own container replaces (no box more).
_nav_box = st.empty() if _nav else None
try:
    if _whole_page:
        with _settings_box:
            if _settings_alone:
                settings_part()
            else:
                _pending_fixes.extend(settings_sidebar(_url_fixes, settled=True))
        _settled_now.clear()  # as page_part does: a later settings fragment rerun settles what its widgets send
        _show_pending_fixes()
        with live_part.page_drawing(None):  # no page fragment: a live part is drawn inline
            seam.run_page(_page)
        if _nav is not None and _nav_box is not None:
            with _nav_box.container():
                _nav(st.session_state["lang"])
        _draw_tail()
        _link_and_publish()
    else:
        # Two fragments, not one: a step that changes only the page re-sends only the page (benchmarks/README.md); the
        # page's navigation is a third, so that such a step does not send it again either.
        with _settings_box:  # the settings fragment lives in the sidebar
            settings_part()
        page_part()
        if _nav_box is not None:
            with _nav_box:
                nav_part()
        if _tail is not None:
            tail_part()
finally:
    _whole_run_going.clear()  # also when the page stopped or reran early
