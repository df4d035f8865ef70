"""A viewer's websocket carries only the back messages a viewer's page sends (entry `backmsg_guard`).

Why: Streamlit acts on every back message from any client, developer mode or not. `clear_cache` empties every
cache of the whole server: one student sending it makes the class wait for the model to load again and loses
the finished trainings everyone shares. The app keeps what it shares out of that reach anyway
(ui.cache.process_wide); this refuses the developer-only messages themselves: clear_cache, load_git_info (runs
git), set_run_on_save, the debug_* messages and the backend operations a viewer's page never asks for.

How: ASGI middleware on st.App's public `middleware` (serve.py) wraps `receive` of the websocket
/_stcore/stream: each binary frame is parsed as a BackMsg (Streamlit's wire format) and a refused one is
dropped, as if never sent; the connection and the session go on. A frame that does not parse goes on to
Streamlit, which closes the connection itself. tests/test_seam.py fails when BackMsg gains or loses a type,
so a new message is looked at before it is let through or refused. The same wrapper reads each connection's
messages no faster than its Budget: a script flooding messages waits in its own socket, not in the event loop
every session shares.
"""

from __future__ import annotations

import asyncio
import logging
import time

ALLOWED = frozenset({"rerun_script", "stop_script", "app_heartbeat", "file_urls_request", "backend_operation_request"})
ALLOWED_OPERATIONS = frozenset({"deferred_file", "dataframe_chunk"})  # BackendOperationRequest.payload
REFUSED = frozenset(
    {"clear_cache", "load_git_info", "set_run_on_save", "debug_disconnect_websocket", "debug_shutdown_runtime"}
)
STREAM_PATH = "/_stcore/stream"  # Streamlit's websocket route (after any server.baseUrlPath)

_LOG = logging.getLogger(__name__)


def on_stream(scope) -> bool:
    """Is this ASGI connection Streamlit's websocket (the only one the wire-reading middleware reads)?"""
    return scope["type"] == "websocket" and scope.get("path", "").endswith(STREAM_PATH)


def frame(message, kind: str) -> bytes | None:
    """The binary payload of an ASGI websocket message of `kind` ("websocket.receive" or "websocket.send"), or None."""
    return message.get("bytes") if message.get("type") == kind else None


def parse(data: bytes):
    """The BackMsg in `data`, or None when it is none (Streamlit answers that itself: it closes the connection)."""
    from google.protobuf.message import DecodeError
    from streamlit.proto.BackMsg_pb2 import BackMsg

    msg = BackMsg()
    try:
        msg.ParseFromString(data)
    except (DecodeError, ValueError, TypeError):
        return None
    return msg


def refused(data: bytes) -> str | None:
    """The type of a back message a viewer may not send, or None (let it through)."""
    msg = parse(data)
    if msg is None:
        return None  # not a BackMsg: Streamlit closes the connection (protocol error)
    kind = msg.WhichOneof("type")
    if kind not in ALLOWED:
        return kind or "(empty)"
    if kind == "backend_operation_request":
        operation = msg.backend_operation_request.WhichOneof("payload")
        if operation not in ALLOWED_OPERATIONS:
            return f"backend_operation_request.{operation}"
    return None


class StreamMiddleware:
    """ASGI middleware that reads Streamlit's websocket only: `stream` is called for each /_stcore/stream connection,
    every other request goes on untouched."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        if on_stream(scope):
            await self.stream(scope, receive, send)
        else:
            await self.app(scope, receive, send)

    async def stream(self, scope, receive, send) -> None:
        await self.app(scope, receive, send)


# A viewer's messages per connection: a burst of BURST, then RATE a second. A browser sends one per interaction (an
# arrow key held on a slider: ~30 a second, a 3 s hold fits the burst); a script flooding votes sent ~2,500 a second,
# and the one event loop of the process read them ahead of every other session's work (bench_class_faults.py).
# Beyond the budget the guard waits before it reads the next message: the flood waits in its own socket, in order,
# and no message is lost.
BURST, RATE = 100, 10.0


class Budget:
    """A token bucket: `wait()` is how long to wait before the next message may be read (0: at once)."""

    def __init__(self, burst: float = BURST, rate: float = RATE, clock=None) -> None:
        self.clock = clock or time.monotonic
        self.burst, self.rate = burst, rate
        self.tokens, self.at = float(burst), self.clock()

    def wait(self) -> float:
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        self.tokens -= 1
        return 0.0 if self.tokens >= 0 else -self.tokens / self.rate


class RefuseDeveloperMessages(StreamMiddleware):
    """ASGI middleware: drop the developer-only back messages of every /_stcore/stream websocket, and read a
    connection's messages no faster than its Budget."""

    async def stream(self, scope, receive, send) -> None:
        said: set[str] = set()
        budget = Budget()

        async def guarded_receive():
            while True:
                pause = budget.wait()
                if pause:
                    if "flood" not in said:
                        said.add("flood")
                        _LOG.warning("A viewer sends messages faster than %s a second: read at that pace", RATE)
                    await asyncio.sleep(pause)
                message = await receive()
                data = frame(message, "websocket.receive")
                kind = refused(data) if data else None
                if kind is None:
                    return message
                if kind not in said:  # once per connection and type: a flood of them is not a flood of logs
                    said.add(kind)
                    _LOG.warning("Refused a %r back message from a viewer (developer-only)", kind)

        await self.app(scope, guarded_receive, send)
