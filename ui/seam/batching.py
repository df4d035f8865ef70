"""Send a quick rerun's messages to the browser in one go, instead of a trickle every 5 ms.

Why: Streamlit's server flushes each session's queue every 5 ms while a script runs, and the
browser redraws the app once per batch that arrives. A rerun whose ~40 elements come out over
10-30 ms therefore costs the browser several full redraws. Measured with benchmarks/ floor-like
scripts (median slider step, same run): 20 captions written at once 79 ms, the same 20 with
1.5 ms between them 145 ms, a plain 30 ms pause 87 ms; on the heads and quiz pages holding the
messages saved ~20 ms per step.

What it does: while a session's script runs, its messages are kept for at most HOLD_S from the
run's first message; they go out together when the run ends (fast reruns, i.e. every slider step)
or when HOLD_S has passed (a long run, e.g. training, still shows its progress after HOLD_S, then
as usual). A timer wakes Streamlit's send loop at HOLD_S, so nothing waits for a later message.

This wraps private Streamlit methods (AppSession.flush_browser_queue and _enqueue_forward_msg, Streamlit
1.67.0): entry `batching` of ui/seam/__init__.py, installed only through ui.seam.install() (off with any other
version). Guarded too: if a method or the session state it reads is missing, nothing is installed and the
app runs as Streamlit ships it (tests/test_batching.py says so; tests/test_seam.py is the canary).
"""

from __future__ import annotations

import threading
import time

HOLD_S = 0.1  # longest a running script's messages wait before they are sent anyway


def install() -> bool:
    """Wrap AppSession.flush_browser_queue once per process; False when this Streamlit lacks it."""
    try:
        from streamlit.runtime.app_session import AppSession, AppSessionState
    except ImportError:
        return False
    if getattr(AppSession, "_al_batching", False):
        return True
    original = getattr(AppSession, "flush_browser_queue", None)
    running = getattr(AppSessionState, "APP_IS_RUNNING", None)
    if original is None or running is None:
        return False

    def flush_browser_queue(self):
        if getattr(self, "_state", None) is running:
            now = time.monotonic()
            started = getattr(self, "_al_run_started", None)
            if started is None:  # the run's first flush: start holding, and make sure we are woken
                self._al_run_started = started = now
                wake = getattr(self, "_message_enqueued_callback", None)
                if wake is not None:
                    timer = threading.Timer(HOLD_S, wake)
                    timer.daemon = True
                    timer.start()
            if now - started < HOLD_S:
                return []
        else:
            self._al_run_started = None
        return original(self)

    flush_browser_queue._al_original = original  # type: ignore[attr-defined]
    AppSession.flush_browser_queue = flush_browser_queue
    enqueue = getattr(AppSession, "_enqueue_forward_msg", None)
    try:
        from streamlit.runtime.forward_msg_queue import ForwardMsgQueue
    except ImportError:
        ForwardMsgQueue = None
    if enqueue is not None and callable(getattr(ForwardMsgQueue, "enqueue", None)):

        def _enqueue_forward_msg(self, msg):
            # While a run's messages are being held, waking the send loop for each one only makes it find
            # nothing to send (and take the GIL from the script 40 times a step); the first message's timer
            # and the run's last message (sent after the run is no longer running) wake it.
            started = getattr(self, "_al_run_started", None)
            queue = getattr(self, "_browser_queue", None)
            held = getattr(self, "_state", None) is running and started is not None
            if held and queue is not None and time.monotonic() - started < HOLD_S:
                queue.enqueue(msg)  # a queue without enqueue fails at install (below), never here
                return
            enqueue(self, msg)

        _enqueue_forward_msg._al_original = enqueue  # type: ignore[attr-defined]
        AppSession._enqueue_forward_msg = _enqueue_forward_msg
    AppSession._al_batching = True
    return True
