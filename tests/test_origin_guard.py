"""ui/seam/origin_guard.py: a websocket whose Origin header no URL parser reads is refused (closed before it is
accepted, as Streamlit answers HTTP 403), never an HTTP 500 with an ASGI traceback."""

from __future__ import annotations

import pytest
from conftest import run_async

from ui.seam.origin_guard import RefuseForeignOrigins, internal_ip, origin_allowed


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


EXTERNAL_IP = "203.0.113.9"  # what Streamlit's checkip lookup would answer (stubbed: no network here)
ORIGINS = [
    "http://127.0.0.1:8501",  # same origin
    "http://localhost:3000",
    "http://0.0.0.0:8501",
    "https://127.0.0.1",
    "http://school.example:8501",  # in corsAllowedOrigins below
    "http://teacher.example",  # browser.serverAddress below
    "http://evil.example",
    "https://evil.example:8501",
    "null",
    "http://10.99.99.99:8501",
    f"http://{internal_ip()}:8501",  # this machine's own address, as a classroom reaches it
    f"http://{EXTERNAL_IP}:8501",  # the one difference: Streamlit allows its external IP, the guard refuses it
]


@pytest.mark.parametrize("cors", [True, False], ids=["cors", "no-cors"])
def test_the_guard_agrees_with_streamlits_own_origin_rule_but_for_the_external_ip(monkeypatch, cors):
    """Behaviour canary (seam entry `origin_guard`): origin_allowed re-implements Streamlit's websocket Origin
    check; for every origin it answers as Streamlit does (with the external-IP lookup stubbed), except that
    one lookup. If Streamlit changes its rule, this fails before a class is refused or a foreign page let in."""
    from streamlit import config, net_util
    from streamlit.web.server.starlette import starlette_websocket

    options = {
        "server.enableCORS": cors,
        "global.developmentMode": False,
        "server.corsAllowedOrigins": ["http://school.example"],
        "browser.serverAddress": "teacher.example",
    }
    get_option = config.get_option
    monkeypatch.setattr(config, "get_option", lambda key: options[key] if key in options else get_option(key))
    monkeypatch.setattr(config, "is_manually_set", lambda key: key == "browser.serverAddress")
    monkeypatch.setattr(net_util, "get_external_ip", lambda: EXTERNAL_IP)
    host = "127.0.0.1:8501"
    theirs = {o: starlette_websocket._is_origin_allowed(o, host) for o in ORIGINS + [None]}
    ours = {o: origin_allowed(o, host) for o in ORIGINS + [None]}
    expected = dict(theirs, **({f"http://{EXTERNAL_IP}:8501": False} if cors else {}))
    assert ours == expected
    assert theirs["http://evil.example"] is (not cors) and theirs["http://school.example:8501"]  # a real test
