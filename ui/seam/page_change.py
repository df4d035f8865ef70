"""A page change the browser asked for is not undone by a rerun of fragments folded into it (entry `page_change`).

Why: Streamlit folds a request into one already waiting: a waiting whole-app request wins the scope (it reruns the
fragments too), but the page and the link are taken from the newer request. The browser sends a page link's click,
then a value typed just before it as a rerun of the settings fragment of the page being left; a setting's callback
likewise queues a rerun of fragments (st.rerun(["settings", "page"]), public) with the page it ran on. When the
script thread took the click late (a busy server), the two became one whole-app run of the page being left: the
click was lost.

The same message can come later still, after the page change's run has started or ended. Run as sent, it ran the old
page's fragment and told the browser the old page was shown again: Streamlit's client then dropped everything the new
page had drawn (a blank main area) and the typed value reached the sidebar only.

How, once per process:
- ScriptRequests._request_rerun_locked (private): when a whole-app request for another page is waiting and a request
  of fragments comes, the fragments' request takes the waiting one's page, link and browser context before Streamlit
  folds them.
- AppSession.request_rerun: a request of fragments that names a page other than the one the session's latest run
  is on (AppSession.page_script_hash) was sent before the browser learned of the page change; it takes that page,
  and the link and browser context of the whole-app request that asked for it.
Every other case is Streamlit's own rule.
"""

from __future__ import annotations

from dataclasses import replace

STREAMLIT_RULE = None  # ScriptRequests._request_rerun_locked as Streamlit has it (for the canary), once installed


def _whole_app(data) -> bool:
    return not data.fragment_id and not data.fragment_id_queue and not data.is_fragment_scoped_rerun


def keep_page_change(pending, new):
    """The request to fold in place of `new` when `pending` waits (both RerunData)."""
    if not _whole_app(pending) or _whole_app(new) or new.page_script_hash == pending.page_script_hash:
        return new
    return replace(
        new,
        page_script_hash=pending.page_script_hash,
        page_name=pending.page_name,
        query_string=pending.query_string,
        is_history_navigation=pending.is_history_navigation or new.is_history_navigation,
        context_info=pending.context_info if pending.context_info is not None else new.context_info,
    )


def on_page_shown(client_state, shown_page: str, page_request):
    """The ClientState to run in place of `client_state`: a request of fragments for a page other than `shown_page`
    (the session's latest run) takes that page, and the link and browser context of `page_request` (the latest
    whole-app ClientState, when it asked for that page). Any other request is left as it is."""
    if client_state is None or not client_state.fragment_id or not shown_page:
        return client_state
    if client_state.page_script_hash == shown_page:
        return client_state
    fixed = type(client_state)()
    fixed.CopyFrom(client_state)
    fixed.page_script_hash = shown_page
    fixed.page_name = ""  # the hash names the page
    if page_request is not None and page_request.page_script_hash == shown_page:
        fixed.query_string = page_request.query_string
        if page_request.HasField("context_info"):
            fixed.context_info.CopyFrom(page_request.context_info)
    return fixed


def install() -> bool:
    try:
        from streamlit.runtime.app_session import AppSession
        from streamlit.runtime.scriptrunner_utils.script_requests import ScriptRequests, ScriptRequestType
    except ImportError:
        return False
    if getattr(ScriptRequests, "_al_page_change_kept", False):
        return True  # STREAMLIT_RULE was set by the first install
    global STREAMLIT_RULE
    original = STREAMLIT_RULE = ScriptRequests._request_rerun_locked

    def _request_rerun_locked(self, new_data):  # called with the queue's lock held
        if self._state == ScriptRequestType.RERUN:
            new_data = keep_page_change(self._rerun_data, new_data)
        return original(self, new_data)

    ScriptRequests._request_rerun_locked = _request_rerun_locked

    request_rerun = AppSession.request_rerun

    def request_rerun_on_page_shown(self, client_state):
        if client_state is not None and not client_state.fragment_id:
            page_request = type(client_state)()
            page_request.CopyFrom(client_state)
            page_request.ClearField("widget_states")  # only its page, link and context are read again
            self._al_page_request = page_request
        else:
            client_state = on_page_shown(client_state, self.page_script_hash, getattr(self, "_al_page_request", None))
        return request_rerun(self, client_state)

    AppSession.request_rerun = request_rerun_on_page_shown
    ScriptRequests._al_page_change_kept = True
    return True
