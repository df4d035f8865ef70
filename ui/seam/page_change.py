"""A page change the browser asked for is not undone by a rerun of fragments folded into it (entry `page_change`).

Why: Streamlit folds a request into one already waiting: a waiting whole-app request wins the scope (it reruns the
fragments too), but the page and the link are taken from the newer request. The browser sends a page link's click,
then a value typed just before it as a rerun of the settings fragment of the page being left; a setting's callback
likewise queues a rerun of fragments (st.rerun(["settings", "page"]), public) with the page it ran on. When the
script thread took the click late (a busy server), the two became one whole-app run of the page being left: the
click was lost.

How: wraps ScriptRequests._request_rerun_locked (private, once per process): when a whole-app request for another page
is waiting and a request of fragments comes, the fragments' request takes the waiting one's page, link and browser
context before Streamlit folds them; every other case is Streamlit's own rule.
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


def install() -> bool:
    try:
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
    ScriptRequests._al_page_change_kept = True
    return True
