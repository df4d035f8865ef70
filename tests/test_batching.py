"""ui/seam/batching.py: a running script's messages are held for at most HOLD_S, then sent; none are lost."""

from __future__ import annotations

import time

from streamlit.runtime.app_session import AppSession, AppSessionState

from ui.seam import batching


class FakeSession:
    """Just what the wrapper reads: the state, the queue's flush and the send loop's wake-up."""

    def __init__(self):
        self._state = AppSessionState.APP_NOT_RUNNING
        self._browser_queue = self  # the original method reads self._browser_queue.flush()
        self.queue: list[str] = []
        self.woken = 0

    def _message_enqueued_callback(self):
        self.woken += 1

    def flush(self):
        out, self.queue = self.queue, []
        return out


def test_installs_on_this_streamlit_and_only_once():
    assert batching.install() is True
    wrapped = AppSession.flush_browser_queue
    assert batching.install() is True and AppSession.flush_browser_queue is wrapped


def test_messages_wait_while_the_run_is_young_and_all_arrive_in_order(monkeypatch):
    batching.install()
    monkeypatch.setattr(batching, "HOLD_S", 0.2)
    session = FakeSession()
    flush = AppSession.flush_browser_queue

    session._state = AppSessionState.APP_IS_RUNNING
    session.queue = ["script_started", "delta 1"]
    assert flush(session) == []  # held
    session.queue += ["delta 2"]
    assert flush(session) == []
    session._state = AppSessionState.APP_NOT_RUNNING  # the run ended: everything goes, in order
    session.queue += ["script_finished"]
    assert flush(session) == ["script_started", "delta 1", "delta 2", "script_finished"]


def test_a_long_run_is_sent_after_the_hold_and_the_send_loop_is_woken(monkeypatch):
    batching.install()
    monkeypatch.setattr(batching, "HOLD_S", 0.05)
    session = FakeSession()
    flush = AppSession.flush_browser_queue
    session._state = AppSessionState.APP_IS_RUNNING
    session.queue = ["progress 1%"]
    assert flush(session) == []
    deadline = time.monotonic() + 10
    while session.woken == 0 and time.monotonic() < deadline:  # until the hold's timer has fired
        time.sleep(0.005)
    assert session.woken == 1  # the timer woke Streamlit's send loop: nothing waits for a later message
    assert flush(session) == ["progress 1%"]
    session.queue = ["progress 2%"]
    assert flush(session) == ["progress 2%"]  # past the hold, as Streamlit ships it
    session._state = AppSessionState.APP_NOT_RUNNING
    assert flush(session) == []
    session._state = AppSessionState.APP_IS_RUNNING  # the next run is held again
    session.queue = ["next run"]
    assert flush(session) == []


class QueueSession(FakeSession):
    """A FakeSession whose queue has Streamlit's enqueue (what AppSession._enqueue_forward_msg calls)."""

    def enqueue(self, msg):
        self.queue.append(msg)


def test_held_messages_do_not_wake_the_send_loop_each_but_the_last_one_does(monkeypatch):
    batching.install()
    monkeypatch.setattr(batching, "HOLD_S", 0.5)
    session = QueueSession()
    enqueue, flush = AppSession._enqueue_forward_msg, AppSession.flush_browser_queue
    session._state = AppSessionState.APP_IS_RUNNING
    enqueue(session, "script_started")
    assert session.woken == 1  # the run's first message wakes it ...
    assert flush(session) == []  # ... and starts the hold
    for i in range(30):
        enqueue(session, f"delta {i}")
    assert session.woken == 1  # held: no wake-up per message
    session._state = AppSessionState.APP_NOT_RUNNING  # the run ended (Streamlit sets this before its last message)
    enqueue(session, "script_finished")
    assert session.woken == 2
    assert flush(session) == ["script_started"] + [f"delta {i}" for i in range(30)] + ["script_finished"]


def test_without_streamlits_queue_enqueue_the_send_path_is_left_as_streamlit_ships_it(monkeypatch):
    """The held path calls ForwardMsgQueue.enqueue; a Streamlit without it keeps its own _enqueue_forward_msg."""
    from streamlit.runtime.forward_msg_queue import ForwardMsgQueue

    batching.install()
    flush, enqueue = AppSession.flush_browser_queue, AppSession._enqueue_forward_msg
    monkeypatch.setattr(AppSession, "flush_browser_queue", flush._al_original)
    monkeypatch.setattr(AppSession, "_enqueue_forward_msg", enqueue._al_original)
    monkeypatch.setattr(AppSession, "_al_batching", False)
    monkeypatch.delattr(ForwardMsgQueue, "enqueue")
    assert batching.install() is True  # the flush is still held ...
    assert AppSession.flush_browser_queue is not flush._al_original
    assert AppSession._enqueue_forward_msg is enqueue._al_original  # ... but enqueue is Streamlit's own


def test_batching_holds_a_real_sessions_messages_until_the_run_ends():
    """Behaviour canary (seam entry `batching`): a real AppSession and ForwardMsgQueue hold a running script's
    messages, wake the send loop once, and hand them all over, in order, when the run ends."""
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
    from streamlit.runtime.forward_msg_queue import ForwardMsgQueue

    assert batching.install()
    woken = []

    class Bare(AppSession):  # no script, no server: just what the send loop touches (and no shutdown on del)
        def __del__(self):
            pass

    session = Bare.__new__(Bare)
    session._state = AppSessionState.APP_IS_RUNNING
    session._browser_queue = ForwardMsgQueue()
    session._message_enqueued_callback = lambda: woken.append(1)
    session._al_run_started = None
    sent = []
    for i in range(3):
        msg = ForwardMsg()
        msg.delta.new_element.markdown.body = f"line {i}"
        msg.metadata.delta_path[:] = [0, i]
        session._enqueue_forward_msg(msg)
        sent += session.flush_browser_queue()
    assert sent == [] and len(woken) <= 1, "Streamlit no longer lets the seam hold a running script's messages"
    session._state = AppSessionState.APP_NOT_RUNNING
    out = session.flush_browser_queue()
    assert [m.delta.new_element.markdown.body for m in out] == ["line 0", "line 1", "line 2"]
