"""A protocol-level Streamlit client for tests: one browser tab's websocket, without the drawing.

It sends what the browser sends (BackMsg rerun_script: the page, the link's query string, widget states) and
counts what the server sends back (ForwardMsg bytes, the address bar's query string, alerts, exceptions), so a
test can craft what no browser would and measure the reply.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from conftest import run_async


@dataclass
class Reply:
    """What one rerun made the server send."""

    bytes: int = 0
    messages: int = 0
    query_strings: list[str] = field(default_factory=list)  # every page_info_changed (the address bar)
    alerts: list[str] = field(default_factory=list)
    exceptions: list[str] = field(default_factory=list)
    widgets: dict = field(default_factory=dict)  # widget id -> its element kind
    sent: str = ""  # the query string the run was asked with

    @property
    def query_string(self) -> str | None:
        return self.query_strings[-1] if self.query_strings else None


class Tab:
    def __init__(self, base_url: str, path: str = "/_stcore/stream"):  # Streamlit's websocket for a session
        self.ws_url = base_url.replace("http://", "ws://") + path
        self.ws = None

    async def __aenter__(self) -> Tab:
        import websockets

        self.ws = await websockets.connect(
            self.ws_url, subprotocols=["streamlit"], max_size=None, open_timeout=60, ping_interval=None
        )
        return self

    async def __aexit__(self, *exc) -> None:
        await self.ws.close()

    async def rerun(self, page: str, query_string: str, widget_states=None, timeout: float = 120) -> Reply:
        from streamlit.proto.BackMsg_pb2 import BackMsg
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        msg = BackMsg()
        msg.rerun_script.query_string = query_string
        msg.rerun_script.page_name = page
        if widget_states is not None:
            msg.rerun_script.widget_states.CopyFrom(widget_states)
        await self.ws.send(msg.SerializeToString())
        reply = Reply(sent=query_string)
        while True:
            data = await asyncio.wait_for(self.ws.recv(), timeout=timeout)
            reply.bytes += len(data)
            reply.messages += 1
            fwd = ForwardMsg()
            fwd.ParseFromString(data)
            kind = fwd.WhichOneof("type")
            if kind == "page_info_changed":
                reply.query_strings.append(fwd.page_info_changed.query_string)
            elif kind == "delta" and fwd.delta.WhichOneof("type") == "new_element":
                el = fwd.delta.new_element
                what = el.WhichOneof("type")
                if what == "alert":
                    reply.alerts.append(el.alert.body)
                elif what == "exception":
                    reply.exceptions.append(el.exception.message)
                else:
                    wid = getattr(getattr(el, what), "id", "") if what else ""
                    if isinstance(wid, str) and wid.startswith("$$ID"):
                        reply.widgets[wid] = what
            elif kind == "script_finished":
                if fwd.script_finished == ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                    continue
                return reply


def open_link(base_url: str, page: str, query_string: str) -> Reply:
    """A fresh tab opening /page?query_string: what the server sent."""

    async def go() -> Reply:
        async with Tab(base_url) as tab:
            return await tab.rerun(page, query_string)

    return run_async(go())


SIDEBAR = 1  # a delta's path starts with its root: 0 the main area, 1 the sidebar


def delta_paths(page) -> list[tuple[int, ...]]:
    """From now on, the path of every element delta (new or reused, `ref_hash`) a real browser page receives over its
    websocket, in order: a test clears the list before an action and reads where the answer drew."""
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    paths: list[tuple[int, ...]] = []

    def frame(payload) -> None:
        if isinstance(payload, bytes):
            msg = ForwardMsg.FromString(payload)
            if msg.WhichOneof("type") in ("delta", "ref_hash"):
                paths.append(tuple(msg.metadata.delta_path))

    page.on("websocket", lambda ws: ws.on("framereceived", frame))
    return paths
