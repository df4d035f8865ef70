"""Every private Streamlit behaviour the app relies on, in one place: ENTRIES, one per behaviour.

Why one place: each of these can change in any Streamlit release without notice. An entry names the private
names it touches (none when the app only relies on how Streamlit behaves), what a user gains, and its canary: a
test that exercises the behaviour and fails when Streamlit changes it. `enabled()` is the one switch: with
another Streamlit version, or ATTENTION_LAB_SEAM=off, nothing here touches a private name and the app runs on
public Streamlit only (the same pages, slower to redraw, less guarded). What each entry was measured to buy,
and the entries let go: benchmarks/README.md, "Seam entries".
"""

from __future__ import annotations

import os
import threading
from contextlib import contextmanager
from dataclasses import dataclass

import streamlit

CHECKED_STREAMLIT = "1.67.0"  # the exact version every private name below was read from
SWITCH_ENV = "ATTENTION_LAB_SEAM"  # "off": install nothing, touch no private name (any Streamlit version)


@dataclass(frozen=True)
class Entry:
    name: str
    private: tuple[tuple[str, str], ...]  # (where, name) of every private name it touches; () for a behaviour only
    gain: str  # what a user gets, in one line (how much, measured: benchmarks/README.md, "Seam entries")
    canary: str  # the behaviour test, "tests/file.py::test_name"
    checked: str = CHECKED_STREAMLIT


_QP = "streamlit.runtime.state.query_params.QueryParams"
_SS = "streamlit.runtime.state.session_state.SessionState"
_WM = "streamlit.runtime.state.common.WidgetMetadata"

ENTRIES = (
    Entry(
        "client_batching",
        (("streamlit/static index.*.js", 'websocket.addEventListener("message")'),),
        "a burst of websocket messages, and a script run's messages with gaps inside them (read from ForwardMsg's "
        "field numbers), reach Streamlit's client in one task: React renders a step once; the run's link "
        "(page_info_changed) follows after the paint, so the address change no longer slows that render",
        "tests/test_client_batching_browser.py::test_the_app_loads_with_it_and_a_slider_step_is_one_delivery",
    ),
    # No private name: it relies on Streamlit's client writing a link the server sets with history.pushState.
    Entry(
        "link_in_place",
        (),
        "a step of seq_len or the seed adds no back-button entry: the link the server writes on the same page "
        "replaces the current one, as a bound widget's change does (Back goes to the previous page)",
        "tests/test_step_link_browser.py::test_steps_add_no_history_entry_and_back_goes_to_the_previous_page",
    ),
    Entry(
        "fragment_page",
        (("streamlit.navigation.page.StreamlitPage", "_can_be_called"),),
        "a settings step reruns only the settings and the page (app.py's two fragments), not the whole sidebar",
        "tests/test_live_fragment.py::test_streamlits_page_runs_once_a_run_and_the_seam_runs_it_again",
    ),
    Entry(
        "fragment_queue",
        (),
        "a live-fragment rerun waits for a running whole-app run (Streamlit never preempts it with a fragment)",
        "tests/test_live_fragment.py::test_a_fragment_rerun_never_preempts_a_running_script",
    ),
    # No private name: its ASGI middleware reads Streamlit's wire format, as backmsg_guard does.
    Entry(
        "page_change",
        (),
        "a page link click is not folded into a rerun of fragments of the page being left (a busy server lost it), "
        "and such a rerun arriving later reruns the new page (it blanked the new page's main area: 21 of 30 tries); "
        "one that comes while a whole-app run has not chosen its page waits for it (a class's poll tick took a student "
        "back to the page the follow left, for good: 3 of 3 with st.navigation 2.5 s late), and goes on with the "
        "link the server wrote last when a run, not the browser, chose that page (it ran with the page left's link: a "
        "student on the teacher's step whose link lacked it, a CI failure under load)",
        "tests/test_live_fragment.py::test_a_page_change_is_not_folded_into_a_rerun_of_fragments_sent_after_it",
    ),
    Entry(
        "url_values",
        (
            ("streamlit.runtime.state.session_state_proxy", "get_session_state"),
            (_SS, "query_params"),
            (_QP, "_initial_query_params"),
            (_QP, "set_corrected_value"),
        ),
        "a bad link value is corrected before its widget reads it: no crash, the corrected value on the first run",
        "tests/test_seam.py::test_a_forgotten_url_value_no_longer_seeds_its_widget",
    ),
    Entry(
        "label_in_url",
        (),
        "links stay language-neutral: Streamlit writes a bound widget's displayed label into the URL, so "
        "ui/choice.py binds a hidden twin with the neutral values",
        "tests/test_seam.py::test_streamlit_writes_a_bound_widgets_displayed_label_into_the_url",
    ),
    Entry(
        "deep_links",
        (("streamlit.runtime.pages_manager.PagesManager", "uses_pages_directory"),),
        "a deep link on a fresh server shows the whole app (ui/shell.py re-runs app.py with runpy), and the "
        "first session keeps every choice in the link",
        "tests/test_browser_app.py::test_the_first_visit_to_a_fresh_server_keeps_every_choice_in_the_link",
    ),
    # No DOM name: the CSS aims at our st-key-<key> classes, at the parent of a keyed block (Streamlit's wrapper,
    # its one child), at the <main> landmark's first child (the padded block), at a pills group's ARIA role, and
    # at the <pre>/<code> inside our al-code div (ui/code.py: it overrides the highlighter's inline white-space;
    # its second canary is tests/test_walkthrough_browser.py::test_a_steps_code_wraps_its_long_line_on_a_phone...).
    Entry(
        "keyed_css",
        (),
        "small captions and sized pills in the presenter view, no gap for a hidden URL carrier, no double "
        "step from arrows in a pills group, code listings inside markdown wrapped on a phone",
        "tests/test_seam_browser.py::test_the_css_on_our_own_classes_gives_the_presenter_view_its_look",
    ),
    Entry(
        "widget_guard",
        (
            (_SS, "set_widgets_from_proto"),  # wrapped: a message's widget states before they are stored
            (_SS, "get_widget_metadata"),
            # what a drawn widget takes: its value field, its decoding and encoding, its options
            (_WM, "value_type"),
            (_WM, "deserializer"),
            (_WM, "serializer"),
            (_WM, "formatted_options"),
        ),
        "a crafted widget value (NaN slider, unknown option) keeps the widget's last value, never breaks a session",
        "tests/test_widget_guard.py::test_a_crafted_value_keeps_the_widgets_last_value_with_a_notice",
    ),
    # No private name: widget_guard's wrapper (above) also notes which keyed widgets a message holds a value of,
    # reading the key out of the widget's id ("$$ID-<hash>-<key>": that format is its second canary, in test_seam.py).
    Entry(
        "held_values",
        (),
        "a widget whose code was still loading when a step re-sent it starts at the session's value, not its "
        "default: a step right after loading resets no seed or mask of the link and loses no page link click",
        "tests/test_held_values_browser.py::test_a_widget_mounted_late_keeps_the_links_value",
    ),
    Entry(
        "origin_guard",
        (),
        "a foreign-Origin websocket is refused at once, without the external-IP lookup that held the server offline",
        "tests/test_origin_guard.py::test_the_guard_agrees_with_streamlits_own_origin_rule_but_for_the_external_ip",
    ),
    # No private name: the guard reads the websocket path Streamlit's browser client connects to.
    Entry(
        "backmsg_guard",
        (),
        "no student's clear_cache (or other developer message) empties what the class shares, no flood stalls it",
        "tests/test_server_safety.py::test_no_client_message_clears_what_the_class_shares",
    ),
)

# Every private name this app touches, as (where, name); tests/test_seam.py checks each one exists.
PRIVATE_NAMES = tuple(name for entry in ENTRIES for name in entry.private)


def enabled() -> bool:
    """True when the private parts may be used: Streamlit is the checked version and the switch is not off."""
    if os.environ.get(SWITCH_ENV, "").strip().lower() in ("off", "0", "false", "no"):
        return False
    return streamlit.__version__ == CHECKED_STREAMLIT


def install() -> bool:
    """Entry `widget_guard`, once per server process: True when it is in place."""
    if not enabled():
        return False
    from ui.seam import widget_guard

    return widget_guard.install()


def middleware() -> list:
    """Entries `origin_guard`, `backmsg_guard`, `page_change` (its wire part), `client_batching` (and `link_in_place`,
    in the same script): serve.py's ASGI middleware (none: seam off)."""
    if not enabled():
        return []
    from starlette.middleware import Middleware

    from ui.seam.backmsg_guard import RefuseDeveloperMessages
    from ui.seam.client_batching import InjectClientScript
    from ui.seam.origin_guard import RefuseForeignOrigins
    from ui.seam.page_change import RerunOnThePageAsked

    return [
        Middleware(RefuseForeignOrigins),
        Middleware(RefuseDeveloperMessages),
        Middleware(RerunOnThePageAsked),
        Middleware(InjectClientScript),
    ]


def before_sessions() -> bool:
    """Entry `deep_links`, in serve.py before the first connection: no session starts in the pages-folder mode."""
    if not enabled():
        return False
    try:
        from streamlit.runtime.pages_manager import PagesManager
    except ImportError:
        return False
    if not hasattr(PagesManager, "uses_pages_directory"):
        return False
    PagesManager.uses_pages_directory = False
    return True


def fragment_reruns_page() -> bool:
    """Entry `fragment_page`: may app.py run its page inside its page fragment (False: whole-app runs only)."""
    return enabled()


_shell = threading.local()  # per script thread: is app.py running its page right now? (entry `deep_links`)


@contextmanager
def page_run():
    """Entry `deep_links`: app.py runs the page st.navigation chose inside this."""
    before = getattr(_shell, "active", False)
    _shell.active = True
    try:
        yield
    finally:
        _shell.active = before


def shell_guard() -> bool:
    """Entry `deep_links`: True when this page file runs alone (Streamlit's pages-folder mode), not from app.py."""
    return not getattr(_shell, "active", False)


def run_page(page) -> None:
    """Entry `fragment_page` (and `deep_links`): run st.navigation's page, again on every live-fragment rerun."""
    if fragment_reruns_page() and getattr(page, "_can_be_called", None) is False:
        page._can_be_called = True
    from ui import page_memory

    try:
        with page_run():
            page.run()
    finally:  # a session keeps no run through the page's callbacks (ui/page_memory.py)
        if not getattr(_shell, "active", False):
            page_memory.release()


def rewrite_url(drop, cut) -> bool:
    """Entry `url_values`: drop the keys `drop` and cut the keys of `cut` ((key, values kept) pairs) from the URL
    in ONE message to the browser, through the public st.query_params.from_dict (each public delete or set sends
    the whole query string again, so a link of many bad keys would make the reply grow with their square), and
    forget them in the URL the page was loaded with. False when a key the URL keeps is bound to a widget
    (Streamlit refuses to rewrite it): the caller then uses one public call per key."""
    import streamlit as st
    from streamlit.errors import StreamlitAPIException

    dropped, cuts = set(drop), dict(cut)
    kept = {key: list(cuts.get(key, st.query_params.get_all(key))) for key in st.query_params if key not in dropped}
    try:
        st.query_params.from_dict(kept)
    except StreamlitAPIException:
        return False
    for key in (*dropped, *cuts):
        forget_initial_url_value(key)
    return True


def link_values(pairs) -> bool:
    """Entry `url_values`: write (key, text) pairs into the link even where a key is bound to a widget (public
    writes refuse a bound key). The link only: no widget is sent a value. False when Streamlit lacks the names."""
    if not enabled():
        return False
    try:
        from streamlit.runtime.state.session_state_proxy import get_session_state

        with get_session_state().query_params() as qp:
            for key, text in pairs:
                qp.set_corrected_value(key, text, "string_value")
        return True
    except (AttributeError, ImportError, RuntimeError):
        return False


def browser_holds(key: str) -> bool:
    """Entry `held_values`: has the browser sent a value of `key`'s widget (as last drawn)? Until it has, a run that
    draws the widget again must give it its value (a write to session state): its component may mount only now,
    from this run's element, and would take the widget's default and send that back as the user's choice.
    True when the seam is off (nothing more is written than without it)."""
    if not enabled():
        return True
    from ui.seam import widget_guard

    return widget_guard.browser_holds(key)


def forget_initial_url_value(key: str) -> None:
    """Entry `url_values`: Streamlit no longer seeds `key`'s widget from the URL the page was loaded with."""
    if not enabled():
        return
    try:
        from streamlit.runtime.state.session_state_proxy import get_session_state

        with get_session_state().query_params() as qp:
            qp._initial_query_params.pop(key, None)
    except (AttributeError, ImportError, RuntimeError):
        pass
