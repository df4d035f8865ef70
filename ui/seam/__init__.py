"""What this app patches in Streamlit: every private Streamlit, browser and plotly behaviour it relies on.

Checked against Streamlit 1.67.0 (CHECKED_STREAMLIT) and plotly 7.1.0. `enabled()` is the one switch: with any
other Streamlit version, or with the environment variable ATTENTION_LAB_SEAM=off, nothing below that touches a
private name is installed or called, and the app runs on public Streamlit only: the same pages, just slower to
redraw (tests/test_seam.py runs every page's smoke test that way). tests/test_seam.py is also the canary: it
lists every private name used here (PRIVATE_NAMES) and fails loudly when the installed Streamlit or plotly lacks
one. Numbers are from benchmarks/README.md (median slider step in Chromium, same run). All of it together, one
A/B on a busy machine (benchmarks/bench_browser.py --quick --only heads, load 13-15, 2026-12-01): /heads
131 ms a step with the seam, 226 ms with ATTENTION_LAB_SEAM=off; 13.5 against 15.5 KB a step.

1. Server-side batching (`batching.py`, installed by app.py's `_tune_process` through `install()`).
   Wraps AppSession.flush_browser_queue and AppSession._enqueue_forward_msg; reads the session's `_state`,
   `_browser_queue`, `_message_enqueued_callback` and AppSessionState.APP_IS_RUNNING. A running script's
   messages are held (at most 100 ms) and go out together when the run ends, so the browser redraws a slider
   step once, not once per 5 ms flush. Buys: /heads 162 -> 142 ms, /quiz 129 -> 109 ms a step under load;
   20 captions sent at once 79 ms against the same 20 trickled out 145 ms. Off: Streamlit's 5 ms trickle.
2. Browser-side batching (`client_batching.js`, put first into every HTML page by the ASGI middleware in
   `client_batching.py`; serve.py adds it with `middleware()`). Patches WebSocket.prototype.addEventListener /
   removeEventListener in the page: a burst of websocket messages reaches Streamlit's client in one task, so
   React renders the page once per step, not once per message. Relies on Streamlit's client listening with
   `websocket.addEventListener("message", ...)` (its index.*.js bundle). Buys: /heads 95 -> 62 ms, /quiz
   84 -> 64 ms, /why-heads 66 -> 63 ms. Off: serve.py adds no middleware; the page is Streamlit's own.
3. The page inside the live fragment (`run_page()`, called by app.py). st.navigation lets the page it returns
   run once per script run: Page.run() checks and clears the private flag Page._can_be_called, which only
   st.navigation sets. A fragment rerun is not a script run, so app.py's `live()` fragment (the shared
   settings and the page) sets the flag again before running the same page object. Buys: a settings step
   reruns and re-sends only the settings and the page, not the language, display options and navigation
   (~15 messages): commit 3-12 ms earlier on most pages. Off: `fragment_reruns_page()` is False and app.py
   runs every page as a whole-app run, as it always does for Why many heads.
   Why it stays (the three other routes, each costing more than this flag):
   (a) `st.Page(callable)` whose callable is an @st.fragment that runs the page file: the fragment would keep
   the page's script hash (widget ids and URL bindings per page) with public calls only, but Streamlit then
   no longer knows the page as a file (commands/navigation.py registers `script_path` only for a Path page), so
   `st.page_link("pages/walkthrough.py")` (home, quiz) raises StreamlitPageNotFoundError and
   AppTest.switch_page("pages/x.py") after a run raises ValueError (test_display, test_heads, test_masks_lab,
   test_why_heads_app, test_fuzz_app switch pages that way). Both seen on 1.67.0 with a two-page app.
   (b) Running the page file ourselves inside the fragment (compile + exec, as Page.run does) loses the page's
   active script hash, which Page.run sets with the private ScriptRunContext.run_with_active_hash: the page's
   widgets would get the entrypoint's ids and URL bindings, and a page's URL keys would outlive a page change.
   (c) Each page wrapping its own body in a fragment means turning every page script into a function and
   drawing the shared settings from each page. A private flag in one place, off with any other version, is
   the smallest trap.
4. A bad URL value forgotten before its widget reads it (`forget_initial_url_value()`, used by
   ui/shell.drop_url_value). On a page's first run Streamlit seeds a widget bound with bind="query-params"
   from the URL as it was loaded, kept in the private QueryParams._initial_query_params (reached through
   streamlit.runtime.state.session_state_proxy.get_session_state().query_params()), over the value the code
   corrected; number_input's parser raises OverflowError on seed=1e400. Buys: no crash and the corrected
   value on such links (tests/test_fuzz_app.py). Off: only the public `del st.query_params[key]`, and
   Streamlit's own parser wins on the first run: with FUZZ_QUERIES=20, 1-2 of 20 mangled links a page failed
   tests/test_fuzz_app.py (seed=1e400 crashes; seq_len= gives Streamlit's value, not the corrected one), none
   with the seam on. (A public cure, st.rerun() after deleting the value, would lose the run's notices.)
   `rewrite_url()` drops every key a link may not carry (ui/url_state.gate) in one message, through
   QueryParams.discard_param_no_forward_msg, set_with_no_forward_msg and _send_query_param_msg. Buys: the reply
   to a link with many bad keys stays small (tests/test_url_limits.py). Off: one public delete per key.
5. Deep links on a fresh server (`shell_guard()`, `page_run()`; public calls only, on with any version).
   With a pages/ folder beside app.py, Streamlit's first request to /walkthrough runs pages/walkthrough.py
   alone (the old pages-folder mode), without app.py's sidebar. app.py runs its page inside `page_run()`;
   a page run outside it is that lone run, and ui/shell.page_context() runs app.py with runpy instead, which
   calls st.navigation (switching Streamlit to it for good) and draws the page. Buys: a deep link shows the
   app (tests/test_browser_app.py). Not speed, so it stays on when the seam is off. (Served by serve.py with the
   seam on, entry 11 keeps Streamlit out of that mode from the start, and this guard never fires.)
6. CSS aimed at Streamlit's DOM: CAPTION_SELECTOR (`[data-testid=stCaptionContainer]`, not a public name)
   keeps captions small in the walkthrough's presenter view (pages/walkthrough.py). Buys: readable captions
   on a projector. If Streamlit renames it, the rule matches nothing and captions are just larger.
   LAYOUT_WRAPPER_SELECTOR hides the empty wrapper of a hidden URL carrier (ui/choice.py: no gap where it
   sits); MAIN_BLOCK_SELECTOR and BUTTON_GROUP_SELECTOR size the presenter view (pages/walkthrough.py);
   BUTTON_GROUP_SELECTOR also keeps ← → inside a pills group from stepping the walkthrough (ui/keys.py).
   If renamed: a small gap, smaller pills, or a double step; nothing breaks.
7. (Retired: plotly's private figure attributes. No heatmap is a plotly figure any more (issue 18: lessons hand
   arrays to ui/heatmaps.py), so nothing reads plotly's _data, _layout or _grid_ref; the number stays so the
   entries keep their names in commit messages and benchmarks/README.md.)
8. A widget value no browser could send (widget_guard.py): wraps SessionState.set_widgets_from_proto and reads
   its _new_widget_state (WStates.widget_metadata, .states) and _old_state. Streamlit decodes and trusts a
   message's widget values before any app code runs: NaN for a slider, a list for a selectbox, an unknown option
   raised there on every later rerun. Checked, a bad value becomes the widget's last good one and app.py says so
   (notice.widget_reset). Buys: no session broken for good by one crafted websocket message
   (tests/test_widget_guard.py). Off: the crash is Streamlit's own.
9. Foreign-Origin websockets refused at once (origin_guard.py, ASGI middleware on st.App's public
   `middleware`, reading Streamlit's allow-list through streamlit.config, net_util.get_internal_ip and
   url_util.get_hostname): Streamlit's own check looks up the machine's external IP (an HTTP request to
   checkip.amazonaws.com) inside the event loop on every such connection; on a classroom network whose DNS
   never answers each one held the whole server 20 s. Buys (measured in a network namespace with a dead
   resolver, tests/test_offline_network_browser.py): foreign websockets refused in 0.01 s instead of 20-60 s,
   another student's step 0.44 s instead of 60 s. Off: Streamlit's own check, with its lookup.
   (The startup lookup is skipped by `browser.serverAddress`, a public setting in .streamlit/config.toml.)
10. Disconnected sessions let go after `server.disconnectedSessionTTL` seconds (sessions.py, called by
   ui/reclaim.py every 30 s; reads Runtime._session_mgr, WebsocketSessionManager._session_storage and
   ._storage_lock, MemorySessionStorage._cache, then only TTLCache's public expire()/timer/ttl). Streamlit
   1.67 keeps each one until the *next* disconnect after its 120 s, so once a class has left, none went; each
   holds its pages' namespaces through its widgets' callbacks. Buys (benchmarks/README.md, issue 24.4): the
   ~190 MB of a class's runs that were outside the shared cache. Off: sessions stay as Streamlit keeps them.
11. No pages-folder mode, even for the first visitor (`before_sessions()`, called by serve.py before the server
   takes a connection): sets the class flag PagesManager.uses_pages_directory to False, as st.navigation does on
   its first call. Streamlit sets it once per process from "is there a pages/ folder beside the main script" when
   the first session is made, so the first session after a server start began in the old pages-folder mode
   (entry 5's lone page run is the visible part). Measured on 1.67.0 (tests/test_browser_app.py,
   `test_the_first_visit_to_a_fresh_server_keeps_every_choice_in_the_link`): in that first session only, a
   live-fragment rerun (a mask change) made the browser and the server forget the widgets outside the fragment,
   so the next palette or language choice was applied but never written into the link; the first visitor is
   usually the teacher, whose link the class opens. Buys: the first session is like every other (the palette
   reached the link in 0 of 3 first sessions before, 3 of 3 after). Off (or with `streamlit run app.py`): the
   first session keeps Streamlit's own start, and entry 5 still draws its deep link.
12. Developer-only back messages refused (backmsg_guard.py, ASGI middleware on st.App's public `middleware`,
   parsing each /_stcore/stream frame as Streamlit's BackMsg protobuf): Streamlit acts on `clear_cache`,
   `load_git_info`, `set_run_on_save` and any backend operation from every client, developer mode or not.
   One student's clear_cache emptied every st.cache_resource for the class: the model loaded again (RSS 498 ->
   1,526 MB after 10 of them), the finished trainings gone (issue 30.1). Relies on the route name
   (_ROUTE_WEBSOCKET_STREAM) and BackMsg's list of types (tests/test_seam.py fails when a type is added or
   removed). Buys: none of them reaches Streamlit (tests/test_server_safety.py). Off: they do; what the app
   shares is out of their reach anyway (ui.cache.process_wide), and a sender only clears its own session.
"""

from __future__ import annotations

import os
import threading
from contextlib import contextmanager

import streamlit

CHECKED_STREAMLIT = "1.67.0"  # the exact version every private name below was read from
SWITCH_ENV = "ATTENTION_LAB_SEAM"  # "off": install nothing, touch no private name (any Streamlit version)

# Streamlit's DOM name for a caption's box (entry 6): not a public class, so it lives here.
CAPTION_SELECTOR = "[data-testid=stCaptionContainer]"
LAYOUT_WRAPPER_SELECTOR = "[data-testid=stLayoutWrapper]"  # the flex wrapper around a keyed container
MAIN_BLOCK_SELECTOR = "[data-testid=stMainBlockContainer]"  # the main area's padded block
BUTTON_GROUP_SELECTOR = "[data-testid=stButtonGroup]"  # the box of st.pills / st.segmented_control

# Every private name this app touches, as (where, name); tests/test_seam.py checks each one exists.
PRIVATE_NAMES = (
    ("streamlit.runtime.app_session.AppSession", "flush_browser_queue"),
    ("streamlit.runtime.app_session.AppSession", "_enqueue_forward_msg"),
    ("streamlit.runtime.app_session.AppSession", "self._state"),
    ("streamlit.runtime.app_session.AppSession", "self._browser_queue"),
    ("streamlit.runtime.app_session.AppSession", "self._message_enqueued_callback"),
    ("streamlit.runtime.app_session.AppSessionState", "APP_IS_RUNNING"),
    ("streamlit.runtime.forward_msg_queue.ForwardMsgQueue", "enqueue"),
    ("streamlit.navigation.page.StreamlitPage", "_can_be_called"),
    ("streamlit.runtime.state.session_state_proxy", "get_session_state"),
    ("streamlit.runtime.state.session_state.SessionState", "query_params"),
    ("streamlit.runtime.state.query_params.QueryParams", "_initial_query_params"),
    ("streamlit.runtime.state.query_params.QueryParams", "discard_param_no_forward_msg"),
    ("streamlit.runtime.state.query_params.QueryParams", "set_with_no_forward_msg"),
    ("streamlit.runtime.state.query_params.QueryParams", "_send_query_param_msg"),
    ("streamlit/static index.*.js", 'websocket.addEventListener("message")'),
    ("streamlit/static *.js", "stCaptionContainer"),
    ("streamlit/static *.js", "stLayoutWrapper"),
    ("streamlit/static *.js", "stMainBlockContainer"),
    ("streamlit/static *.js", "stButtonGroup"),
    ("streamlit.runtime.state.session_state.SessionState", "set_widgets_from_proto"),
    ("streamlit.runtime.state.session_state.SessionState", "_new_widget_state"),
    ("streamlit.runtime.state.session_state.SessionState", "_old_state"),
    ("streamlit.runtime.state.session_state.WStates", "widget_metadata"),
    ("streamlit.runtime.state.common.WidgetMetadata", "formatted_options"),
    ("streamlit.runtime.scriptrunner_utils.script_run_context", "get_script_run_ctx"),
    ("streamlit.net_util", "get_internal_ip"),
    ("streamlit.url_util", "get_hostname"),
    ("streamlit.runtime.runtime.Runtime", "self._session_mgr"),
    ("streamlit.runtime.websocket_session_manager.WebsocketSessionManager", "self._session_storage"),
    ("streamlit.runtime.websocket_session_manager.WebsocketSessionManager", "self._storage_lock"),
    ("streamlit.runtime.memory_session_storage.MemorySessionStorage", "self._cache"),
    ("streamlit.runtime.pages_manager.PagesManager", "uses_pages_directory"),
    ("streamlit.web.server.starlette.starlette_websocket", "_ROUTE_WEBSOCKET_STREAM"),
)


def enabled() -> bool:
    """True when the private parts may be used: Streamlit is the checked version and the switch is not off."""
    if os.environ.get(SWITCH_ENV, "").strip().lower() in ("off", "0", "false", "no"):
        return False
    return streamlit.__version__ == CHECKED_STREAMLIT


def install() -> bool:
    """Entry 1, once per server process: True when the server-side batching is in place."""
    if not enabled():
        return False
    from ui.seam import batching, widget_guard

    widget_guard.install()  # entry 8
    return batching.install()


def middleware() -> list:
    """Entry 2: serve.py's ASGI middleware list (empty when the seam is off)."""
    if not enabled():
        return []
    from starlette.middleware import Middleware

    from ui.seam.backmsg_guard import RefuseDeveloperMessages
    from ui.seam.client_batching import InjectClientScript
    from ui.seam.origin_guard import RefuseForeignOrigins

    # entries 9, 12 and 2
    return [Middleware(RefuseForeignOrigins), Middleware(RefuseDeveloperMessages), Middleware(InjectClientScript)]


def before_sessions() -> bool:
    """Entry 11, in serve.py before the first connection: no session starts in the pages-folder mode."""
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
    """Entry 3: may app.py run its page inside the live fragment (False: every page is a whole-app run)."""
    return enabled()


_shell = threading.local()  # per script thread: is app.py running its page right now? (entry 5)


@contextmanager
def page_run():
    """Entry 5: app.py runs the page st.navigation chose inside this."""
    before = getattr(_shell, "active", False)
    _shell.active = True
    try:
        yield
    finally:
        _shell.active = before


def shell_guard() -> bool:
    """Entry 5: True when this page file runs alone (Streamlit's pages-folder mode), not from app.py."""
    return not getattr(_shell, "active", False)


def run_page(page) -> None:
    """Entry 3 (and 5): run the page st.navigation chose, again on every rerun of the live fragment."""
    if fragment_reruns_page() and getattr(page, "_can_be_called", None) is False:
        page._can_be_called = True
    from ui import page_memory

    try:
        with page_run():
            page.run()
    finally:  # a session keeps no run through the page's callbacks (ui/page_memory.py, issue 30.3)
        if not getattr(_shell, "active", False):
            page_memory.release()


def rewrite_url(drop, cut) -> bool:
    """Entry 4: drop the keys `drop` and cut the keys of `cut` ((key, values kept) pairs) from the URL and from
    the URL the page was loaded with, in ONE message to the browser (public `del st.query_params[key]` sends the
    whole query string once per key: a link of many bad keys would make the reply grow with their square).
    False when the seam is off or Streamlit lacks these names (the caller then uses the public calls)."""
    if not enabled():
        return False
    try:
        from streamlit.runtime.state.session_state_proxy import get_session_state

        with get_session_state().query_params() as qp:
            for key in drop:
                qp.discard_param_no_forward_msg(key)
                qp._initial_query_params.pop(key, None)
            for key, values in cut:
                qp.set_with_no_forward_msg(key, list(values))
                qp._initial_query_params[key] = list(values)
            qp._send_query_param_msg()
        return True
    except (AttributeError, ImportError, RuntimeError):
        return False


def forget_initial_url_value(key: str) -> None:
    """Entry 4: Streamlit no longer seeds `key`'s widget from the URL the page was loaded with."""
    if not enabled():
        return
    try:
        from streamlit.runtime.state.session_state_proxy import get_session_state

        with get_session_state().query_params() as qp:
            qp._initial_query_params.pop(key, None)
    except (AttributeError, ImportError, RuntimeError):
        pass
