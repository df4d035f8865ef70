"""Refuse a websocket from a foreign Origin at once, without Streamlit's external-IP lookup (entry `origin_guard`).

Why: Streamlit allows a cross-origin websocket whose Origin is localhost, `browser.serverAddress`, the machine's
internal IP, its *external* IP or one of `server.corsAllowedOrigins`. Finding the external IP is an HTTP request
made inside the server's event loop and never remembered when it fails: on a network whose DNS never answers,
every foreign connection held the whole server. No setting skips that lookup, so serve.py puts this ASGI
middleware (st.App's public `middleware`) in front: an Origin the same list without the external IP does not
allow is refused here, as Streamlit refuses it. Everything else goes on to Streamlit, which checks again.
The rule is rebuilt from public config and the standard library only; tests/test_origin_guard.py compares it
with Streamlit's own for many origins, so a change on Streamlit's side fails there.
"""

from __future__ import annotations

import socket
from functools import cache
from urllib.parse import urlparse

LOOPBACK = {"localhost", "0.0.0.0", "127.0.0.1"}


def hostname(url: str) -> str | None:
    """The host of a URL, with or without its scheme (Streamlit's url_util.get_hostname)."""
    return urlparse(url if "://" in url else f"http://{url}").hostname


@cache
def internal_ip() -> str:
    """This machine's address on its default route: a UDP socket's own address, no packet is sent."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("8.8.8.8", 1))
            return s.getsockname()[0]
        except OSError:
            return "127.0.0.1"


def origin_allowed(origin: str | None, host: str | None) -> bool:
    """Streamlit's websocket Origin rule (starlette_websocket._is_origin_allowed), minus the external IP."""
    from streamlit import config

    if origin is None:
        return True
    try:  # an Origin no URL parser reads ("http://[::1") is refused like a foreign one, not an HTTP 500
        netloc, origin_host = urlparse(origin).netloc, hostname(origin)
    except ValueError:
        return False
    if netloc == host:  # same origin
        return True
    if not config.get_option("server.enableCORS") or config.get_option("global.developmentMode"):
        return True
    allowed = set(LOOPBACK)
    if config.is_manually_set("browser.serverAddress"):
        allowed.add(hostname(config.get_option("browser.serverAddress")))
    allowed.add(internal_ip())
    allowed.update(hostname(o.strip()) for o in config.get_option("server.corsAllowedOrigins"))
    return origin_host in allowed


class RefuseForeignOrigins:
    """ASGI middleware: a websocket whose Origin is not allowed is closed before it is accepted (403)."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "websocket":
            headers = {k.lower(): v.decode("latin-1") for k, v in scope.get("headers") or []}
            if not origin_allowed(headers.get(b"origin"), headers.get(b"host")):
                await receive()  # websocket.connect
                await send({"type": "websocket.close", "code": 1008})
                return
        await self.app(scope, receive, send)
