"""Attention Lab entrypoint: the shared settings in the sidebar (bound to the URL) and the navigation.

Served by `streamlit run serve.py` (scripts/start.sh; `streamlit run app.py` works too, without the browser-side
batching of ui/seam/client_batching.js). Every page reads the settings through ui.shell.page_context().
What the app patches in Streamlit is all in ui/seam/__init__.py.
"""

import gc

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
    SETTING_KEYS,
    head_choices,
    sanitize,
)
from ui import classmode, memdebug, reclaim, seam
from ui.choice import HIDDEN_CSS, labelled
from ui.display import display_sidebar
from ui.seam import widget_guard
from ui.shell import drop_url_value, keep_grid_in_url, remember_settings, url_values


@st.cache_resource
def _tune_process() -> bool:
    """Once per server process (app.py itself reruns on every interaction)."""
    # torch's many long-lived objects make every full collection slow; they never die, so freeze them.
    gc.freeze()
    # A class means many sessions at once on a small machine: one thread per torch call keeps the
    # thread pools from fighting over the cores (measured: 5-15x slower medians with 2 threads under load).
    torch.set_num_threads(1)
    # The code the pages show is parsed now, once, not by 8 sessions' threads at once (lessons/source.py).
    walkthrough.warm()
    # A slider step's ~40 messages reach the browser in one batch, not a trickle it redraws for each.
    # (and a number box sent NaN, inf or text resets with a notice instead of raising: ui/seam/widget_guard.py)
    seam.install()
    # Memory comes back after a class leaves: a full collection and malloc_trim every 30 s (ui/reclaim.py).
    reclaim.start()
    # What holds memory, on request: off unless ATTENTION_LAB_MEMDEBUG names a folder (ui/memdebug.py).
    memdebug.start()
    return True


_tune_process()

PAGES = (  # (file, url_path, icon); the file name equals the url_path so deep links resolve
    ("pages/home.py", "", ":material/home:"),
    ("pages/walkthrough.py", "walkthrough", ":material/stairs:"),
    ("pages/heads.py", "heads", ":material/view_column:"),
    ("pages/masks.py", "masks", ":material/grid_on:"),
    ("pages/real-model.py", "real-model", ":material/psychology:"),
    ("pages/why-heads.py", "why-heads", ":material/model_training:"),
    ("pages/softmax.py", "softmax", ":material/functions:"),
    ("pages/positions.py", "positions", ":material/format_list_numbered:"),
    ("pages/kv-cache.py", "kv-cache", ":material/memory:"),
    ("pages/quiz.py", "quiz", ":material/quiz:"),
    ("pages/class.py", "class", ":material/co_present:"),
)


# Pages that run as the whole app, not inside the live fragment: a click during a fragment's run waits
# for it to end (Streamlit never preempts a running script for a fragment rerun), and Why many heads'
# Stop button must interrupt a training run. (Its slider steps cost the same either way: measured.)
WHOLE_RUN_PAGES = ("why-heads",)


def settle_settings(skip: tuple[str, ...] = ()) -> list:
    """Make every shared setting valid in session state before its widget is drawn.

    On the first run the values come from the URL; later, from the widgets (a user's change
    arrives in session state before the script runs, so writing it back keeps it). `skip`: keys
    whose widget this run has already drawn (their state can no longer be written).
    """
    default_lang = i18n.lang_from_locale(st.context.locale)
    from_url = [k for k in SETTING_KEYS if k not in st.session_state and k in st.query_params]
    raw = {k: (st.session_state[k] if k in st.session_state else st.query_params.get(k)) for k in SETTING_KEYS}
    settings, fixes = sanitize(raw, default_lang=default_lang)
    for key in from_url:  # a corrected, empty or repeated URL value must not reach its widget's own URL parser
        if url_values(key) != [str(getattr(settings, key))]:
            drop_url_value(key)
    for key in SETTING_KEYS:
        # Written every run, even when unchanged: a page change re-creates the sidebar widgets,
        # and without this they would come back at their defaults.
        if key not in skip:
            st.session_state[key] = getattr(settings, key)
    remember_settings(settings)  # ui.shell.current_settings() returns it instead of sanitising again
    return fixes


def show_fixes(fixes, lang: str, d_model: int) -> None:
    """The corrections of the shared settings, in the main area at the top of the page (a phone shows the
    sidebar collapsed: a notice there is never seen). Once: the live fragment forgets the URL's fixes."""
    for given in widget_guard.take_rejected():
        st.warning(i18n.t("notice.number_reset", lang, given=i18n.plain(given)), icon=":material/build:")
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
    """The language control (outside the live fragment: a language change redraws everything)."""
    fixes = settle_settings()
    # Options are shown as their URL values (no format_func): Streamlit binds the *shown* text to the URL.
    st.sidebar.segmented_control(
        "语言 · Language",
        i18n.LANGS,
        key="lang",
        bind="query-params",
        default=i18n.lang_from_locale(st.context.locale),
        required=True,
    )
    return fixes


def settings_sidebar(earlier_fixes: list, settled: bool = False) -> list:
    """The shared settings, drawn inside the live fragment (into the sidebar box app.py keeps for them).
    Returns the corrections made, for show_fixes to say in the main area.

    `settled`: language_sidebar() has just settled them in this same run (a whole-app run); only a
    fragment rerun, which starts here with the widgets' new values, settles them again."""
    fixes = earlier_fixes + ([] if settled else settle_settings(skip=("lang",)))
    lang = st.session_state["lang"]
    t = lambda key, **kw: i18n.t(key, lang, **kw)  # noqa: E731
    st.header(t("settings.header"))
    st.select_slider(
        t("settings.d_model"), D_MODEL_CHOICES, key="d_model", bind="query-params", value=DEFAULTS["d_model"]
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
    )
    h = st.session_state["num_heads"]
    st.caption(t("settings.d_k", d_model=d_model, h=h, d_k=d_model // h))
    st.slider(
        t("settings.seq_len"), SEQ_LEN_MIN, SEQ_LEN_MAX, key="seq_len", bind="query-params", value=DEFAULTS["seq_len"]
    )
    # Translated labels, the neutral kind in the URL (ui/choice.py: Streamlit binds the shown text).
    labelled(
        "selectbox", "mask", MASK_KINDS, lambda kind: t(f"mask.{kind}"), t("settings.mask"), default=DEFAULTS["mask"]
    )
    st.caption(t(f"mask.{st.session_state['mask']}.about"))
    st.number_input(
        t("settings.seed"),
        SEED_MIN,
        SEED_MAX,
        key="seed",
        bind="query-params",
        step=1,
        value=DEFAULTS["seed"],
        help=t("settings.seed.help"),
    )
    st.caption(t("settings.share"))
    return fixes


# An emoji, not a ":material/...:" icon: Streamlit fetches a material favicon from fonts.gstatic.com,
# and nothing may come from outside the machine (tests/test_offline_browser.py); an emoji is drawn locally.
st.set_page_config(page_icon="🔦", layout="wide")
# Long formulas scroll sideways on a phone instead of being cut off.
st.html(
    "<style>.katex-display{overflow-x:auto;overflow-y:hidden;padding-bottom:2px}"
    "@media (max-width:640px){.katex-display>.katex{font-size:1em}}" + HIDDEN_CSS + "</style>"
)  # hidden URL carriers (ui/choice.py)
# A page's section tabs wrap onto a second line on a phone instead of scrolling sideways out of sight.
st.html(f"<style>@media (max-width:640px){{{seam.TABS_SELECTOR} [role=tablist]{{flex-wrap:wrap;row-gap:2px}}}}</style>")
classmode.apply_pending()  # class mode: enter the link's class; a follower takes the teacher's view
_url_fixes = language_sidebar()
_settled_now = [True]  # settled by this whole-app run; the first settings_sidebar() below uses it up
_lang = st.session_state["lang"]
_settings_box = st.sidebar.container()  # filled by the live fragment, above the display options
display_sidebar(_lang, notices=st.container())  # its corrections at the top of the main area
_pages = [
    st.Page(path, title=i18n.t(f"page.{url or 'home'}", _lang), icon=icon, url_path=url or None, default=not url)
    for path, url, icon in PAGES
]
_page = st.navigation(_pages)
classmode.panel(_page.url_path, _lang)  # the sidebar's class section and a student's current question


@st.fragment
def live() -> None:
    """The shared settings and the page: a settings step (or any widget on a page) reruns only this.

    Why: the browser then redraws only what can change (the sidebar's language, display options and
    navigation stay as they are), and the server runs only this part; a step of the shared settings
    costs a frame or more less (benchmarks/README.md). The language, the display options and the
    navigation are outside: a change there reruns the whole app, this fragment included.
    """
    with _settings_box:
        fixes = settings_sidebar(_url_fixes, settled=bool(_settled_now))
    _url_fixes.clear()  # URL corrections are shown once, not again on every fragment rerun
    _settled_now.clear()  # a fragment rerun settles the widgets' new values itself
    show_fixes(fixes, st.session_state["lang"], st.session_state["d_model"])  # main area, above the page
    seam.run_page(_page)  # the same page object again on each fragment rerun (ui/seam/__init__.py, entry 3)
    keep_grid_in_url()  # after the page: every widget bound to the URL is drawn by now
    classmode.publish(_page.url_path)  # the teacher's view to the class; the class keys kept in the link


if _page.url_path in WHOLE_RUN_PAGES or not seam.fragment_reruns_page():
    with _settings_box:
        _fixes = settings_sidebar(_url_fixes, settled=True)
    show_fixes(_fixes, st.session_state["lang"], st.session_state["d_model"])
    seam.run_page(_page)
    keep_grid_in_url()
    classmode.publish(_page.url_path)
else:
    live()
