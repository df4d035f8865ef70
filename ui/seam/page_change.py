"""A page change the browser asked for is not undone by a rerun of fragments sent after it (entry `page_change`).

Why: the browser sends a page link's click, then a value typed just before it as a rerun of the settings fragment of
the page being left. Streamlit starts a new script runner for the click (runner.fastReruns, its default) and folds
the rerun of fragments into the click's request while that runner has not taken it yet (a busy server): a waiting
whole-app request wins the scope, but the page and the link are taken from the newer request, so the two became one
whole-app run of the page being left and the click was lost. The same message can come later still, after the page
change's run has started or ended. Run as sent, it ran the old page's fragment and told the browser the old page was
shown again: Streamlit's client then dropped everything the new page had drawn (a blank main area) and the typed
value reached the sidebar only. (A setting's callback asks for its rerun of fragments in the old runner, which the
click has stopped: that request is dropped and never folds into the click.)

How: RerunOnThePageAsked, ASGI middleware on st.App's public `middleware` (serve.py), reads Streamlit's wire format as
backmsg_guard does: per websocket, the browser's latest whole-app request and the page each whole-app run of the
server is on (the ForwardMsg st.navigation sends). A request of fragments naming another page than the one the
browser asked for last (or, once a run has chosen its page since, that one: a follow's st.switch_page) becomes a
whole-app request of that page, with the link and context of the request that asked for it and the values it
carries. Every other case is Streamlit's own rule.

While a whole-app run has not chosen its page yet (its new_session was sent, its st.navigation message not), nobody
knows the page: a request of fragments that comes then waits for that message (at most PAGE_WAIT_S), then the rule
above. Why: a class's follow changes page in two runs (the poll's whole-app run calls st.switch_page before
st.navigation, the next run is on the teacher's page); a poll tick sent from the page being left while the second run
had not reached st.navigation went on as a fragment of the old page, ran after it, and took the student back there,
for good (the follow was spent): a CI failure, reproduced with st.navigation delayed 2.5 s (3 of 3 students lost).
"""

from __future__ import annotations

import asyncio

from ui.seam.backmsg_guard import StreamMiddleware, frame, parse


def on_page_shown(client_state, shown_page: str, page_request, server_link: str | None = None):
    """The ClientState to run in place of `client_state`: a request of fragments for a page other than `shown_page`
    (the page the browser asked for last, or the one a later run is on) becomes a whole-app request of that page, with
    the link and browser context of `page_request` (the latest whole-app ClientState, when it asked for that page) or,
    when a run moved to that page itself, the link the server sent last (`server_link`). Any other request is left
    as it is."""
    if client_state is None or not client_state.fragment_id or not shown_page:
        return client_state
    if client_state.page_script_hash == shown_page:
        return client_state
    fixed = type(client_state)()
    fixed.CopyFrom(client_state)
    fixed.page_script_hash = shown_page
    fixed.page_name = ""  # the hash names the page
    # A whole-app run, not the fragment's: Streamlit's client compares a run's page with the page its state holds,
    # which can still be the page left while the page change's messages are being rendered; on a mismatch it drops the
    # page's elements, and a fragment run would not draw them again.
    fixed.ClearField("fragment_id")
    if page_request is not None and page_request.page_script_hash == shown_page:
        fixed.query_string = page_request.query_string
        if page_request.HasField("context_info"):
            fixed.context_info.CopyFrom(page_request.context_info)
    elif server_link is not None:
        # A follow's st.switch_page: the request's link is the page left's, which the browser held when it sent it.
        # Run with it, the new page's keys the follow wrote left the link (the run starts from the link it is given),
        # and nothing wrote them again (a student on the teacher's step whose link lacked it: a CI failure).
        fixed.query_string = server_link
    return fixed


_NEW_SESSION, _FINISHED = 4, 6  # ForwardMsg.new_session (every run's first message), .script_finished
_NAVIGATION = 23  # ForwardMsg.navigation's field number: a whole-app run has chosen its page (st.navigation)
_PAGE_INFO = 12  # ForwardMsg.page_info_changed: the link the server writes (the whole query string each time)
_HEADER_FIELDS = (1, 2)  # ForwardMsg.hash and .metadata, which come first in the serialized message
_EARLY_FOR_RERUN = 2  # ForwardMsg.ScriptFinishedStatus.FINISHED_EARLY_FOR_RERUN: the next run follows (st.switch_page)
PAGE_WAIT_S = 5.0  # the longest a request of fragments waits for a whole-app run to choose its page


def _varint(data: bytes, i: int) -> tuple[int, int]:
    value = shift = 0
    while i < len(data):
        byte = data[i]
        i += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, i
        shift += 7
    raise ValueError("truncated")


def run_event(data: bytes) -> tuple[str, str] | None:
    """What a ForwardMsg says of the page: ("page", its hash) for the message a whole-app run's st.navigation sends;
    ("begun", "") for a whole-app run's new_session (it names the page asked for, or the entrypoint's, before
    st.navigation has chosen); ("ended", "") for a run's script_finished, unless the run stopped for the next one;
    ("link", its query string) for a link the server writes; None for anything else. Only the field after the header
    is looked at, so a large delta costs a few bytes' read."""
    try:
        i = 0
        while i < len(data):
            tag, i = _varint(data, i)
            if tag >> 3 in _HEADER_FIELDS and tag & 7 == 2:
                length, i = _varint(data, i)
                i += length
                continue
            field = tag >> 3
            if field == _FINISHED and tag & 7 == 0:
                status, _ = _varint(data, i)
                return None if status == _EARLY_FOR_RERUN else ("ended", "")
            if field not in (_NAVIGATION, _NEW_SESSION, _PAGE_INFO):
                return None
            from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

            msg = ForwardMsg()
            msg.ParseFromString(data)
            if field == _NAVIGATION:
                return ("page", msg.navigation.page_script_hash)
            if field == _PAGE_INFO:
                return ("link", msg.page_info_changed.query_string)
            # A fragment run's new_session names its fragments; it changes no page.
            return None if msg.metadata.run.fragment_ids else ("begun", "")
    except Exception:  # noqa: BLE001 - not a ForwardMsg: not ours to read
        return None
    return None


class Pages:
    """One websocket's view of the page: the browser's latest whole-app request and the page the server's latest
    whole-app run chose (st.navigation), whichever happened last."""

    def __init__(self) -> None:
        self.asked = None  # ClientState of the latest whole-app request (its widget states dropped)
        self.target = ""  # the page the next run is on: the one asked for, or the one a later run chose
        self.chosen = asyncio.Event()  # clear while a whole-app run has not chosen its page
        self.chosen.set()
        self.link: str | None = None  # the link the server wrote last since the browser's latest whole-app request

    def run_started(self, page: str) -> None:
        if page:
            self.target = page
        self.chosen.set()

    def noted(self, event: tuple[str, str] | None) -> None:
        """A message the server sent (run_event's reading of it)."""
        if event is None:
            return
        kind, value = event
        if kind == "link":
            self.link = value
        elif kind == "page":
            self.run_started(value)
        elif kind == "begun":
            self.chosen.clear()
        else:
            self.chosen.set()  # a run ended without choosing (an error before st.navigation): its page stays

    async def page_chosen(self) -> None:
        """Until no whole-app run is choosing its page (at most PAGE_WAIT_S: then the page known so far)."""
        if not self.chosen.is_set():
            try:
                await asyncio.wait_for(self.chosen.wait(), PAGE_WAIT_S)
            except TimeoutError:
                pass

    def request(self, client_state):
        """The ClientState to hand Streamlit for one the browser sent."""
        if not client_state.fragment_id:
            asked = type(client_state)()
            asked.CopyFrom(client_state)
            asked.ClearField("widget_states")
            self.asked = asked
            self.target = client_state.page_script_hash  # "" (a first visit by name): unknown until its run starts
            self.link = None
            return client_state
        return on_page_shown(client_state, self.target, self.asked, self.link)


class RerunOnThePageAsked(StreamMiddleware):
    """ASGI middleware: a rerun of fragments the browser sent from the page it was leaving runs on the page it asked
    for (entry `page_change`)."""

    async def stream(self, scope, receive, send) -> None:
        pages = Pages()

        async def receive_rewritten():
            message = await receive()
            data = frame(message, "websocket.receive")
            if data:
                edited = await _rewritten(pages, data)
                if edited is not None:
                    return dict(message, bytes=edited)
            return message

        async def send_noted(message) -> None:
            data = frame(message, "websocket.send")
            if data:
                pages.noted(run_event(data))
            await send(message)

        await self.app(scope, receive_rewritten, send_noted)


async def _rewritten(pages: Pages, data: bytes) -> bytes | None:
    """The rerun request to hand on in place of `data`, or None to hand on `data` itself."""
    msg = parse(data)
    if msg is None or msg.WhichOneof("type") != "rerun_script":
        return None
    if msg.rerun_script.fragment_id:
        await pages.page_chosen()
    state = pages.request(msg.rerun_script)
    if state is msg.rerun_script:
        return None
    msg.rerun_script.CopyFrom(state)
    return msg.SerializeToString()
