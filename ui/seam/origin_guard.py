"""Refuse a websocket from a foreign Origin at once, without Streamlit's external-IP lookup.

Why: Streamlit 1.67 allows a cross-origin websocket when its Origin is localhost, the configured
`browser.serverAddress`, the machine's internal IP, its *external* IP, or `server.corsAllowedOrigins`.
Finding the external IP means an HTTP request to checkip.amazonaws.com, made inside the server's
event loop and never remembered when it fails. On a classroom network whose DNS resolver never
answers, each such connection held the whole server for 20 s (measured: a student's slider step took
60 s while three foreign connections were refused; tests/test_offline_network.py). No setting skips
that lookup for the websocket check, so serve.py puts this ASGI middleware (the public seam: st.App's
`middleware`) in front: an Origin that the same list *without* the external IP does not allow is
refused here (HTTP 403, as Streamlit refuses it), in microseconds and without any network call.
An allowed Origin, and every other request, goes on to Streamlit unchanged (it checks again).
(The startup banner's lookup is skipped by `browser.serverAddress` in .streamlit/config.toml.)
"""

from __future__ import annotations

from urllib.parse import urlparse

LOOPBACK = {"localhost", "0.0.0.0", "127.0.0.1"}


def origin_allowed(origin: str | None, host: str | None) -> bool:
    """Streamlit's websocket Origin rule (starlette_websocket._is_origin_allowed), minus the external IP."""
    from streamlit import config, net_util, url_util

    if origin is None:
        return True
    try:  # an Origin no URL parser reads ("http://[::1") is refused like a foreign one, not an HTTP 500
        netloc, hostname = urlparse(origin).netloc, url_util.get_hostname(origin)
    except ValueError:
        return False
    if netloc == host:  # same origin
        return True
    if not config.get_option("server.enableCORS") or config.get_option("global.developmentMode"):
        return True
    allowed = set(LOOPBACK)
    if config.is_manually_set("browser.serverAddress"):
        allowed.add(url_util.get_hostname(config.get_option("browser.serverAddress")))
    allowed.add(net_util.get_internal_ip())  # a UDP socket's own address: no packet is sent
    allowed.update(url_util.get_hostname(o.strip()) for o in config.get_option("server.corsAllowedOrigins"))
    return hostname in allowed


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
