"""ui/seam/origin_guard.py: a websocket whose Origin header no URL parser reads is refused (closed before it is
accepted, as Streamlit answers HTTP 403), never an HTTP 500 with an ASGI traceback."""

from __future__ import annotations

import pytest
from conftest import run_async

from ui.seam.origin_guard import RefuseForeignOrigins, origin_allowed


def _handshake(origin: str) -> tuple[list[dict], bool]:
    """(what the middleware sent, whether it passed the socket on to Streamlit) for one websocket handshake."""
    sent: list[dict] = []
    passed = []

    async def app(scope, receive, send):
        passed.append(scope)

    async def receive():
        return {"type": "websocket.connect"}

    async def send(message):
        sent.append(message)

    scope = {
        "type": "websocket",
        "path": "/_stcore/stream",
        "headers": [(b"host", b"127.0.0.1:8501"), (b"origin", origin.encode("latin-1"))],
    }
    run_async(RefuseForeignOrigins(app)(scope, receive, send))
    return sent, bool(passed)


@pytest.mark.parametrize("origin", ["http://[::1", "http://[::1:8501", "https://[", "http://[zz]"])
def test_a_malformed_origin_is_refused_not_a_server_error(origin):
    assert origin_allowed(origin, "127.0.0.1:8501") is False
    sent, passed = _handshake(origin)
    assert not passed and sent == [{"type": "websocket.close", "code": 1008}]


def test_a_same_origin_socket_still_goes_on_to_streamlit():
    sent, passed = _handshake("http://127.0.0.1:8501")
    assert passed and sent == []
