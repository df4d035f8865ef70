"""The server side of ui/seam/client_batching.js: put that script into every page the browser loads
(entry `client_batching` of ui/seam/__init__.py).

Why: Streamlit's client renders the page once per websocket message it gets, and a slider step is a few
dozen messages; the script hands it each burst in one task. It must run before Streamlit's own code opens
the websocket, so it goes into the HTML page itself, first thing in <head>; an element a page draws (st.html)
comes too late.

How: serve.py runs app.py as a Streamlit `st.App` with `InjectClientScript` as ASGI middleware (the public
way to add middleware; ui.seam.middleware() gives none when the seam is off). For a GET whose answer is HTML
(Streamlit's index.html, for / and every deep link) it adds the script; everything else passes through
untouched. HTML requests are asked for without compression, so the page can be edited.
"""

from __future__ import annotations

from pathlib import Path

SCRIPT_FILE = Path(__file__).with_name("client_batching.js")
# Entry `link_in_place`: must run before Streamlit's client writes its first link; it rides in the same tag.
LINK_SCRIPT_FILE = Path(__file__).with_name("link_in_place.js")
MARKER = b"<head>"


def script_tag() -> bytes:
    return b"<script>" + SCRIPT_FILE.read_bytes() + b"\n" + LINK_SCRIPT_FILE.read_bytes() + b"</script>"


def inject(html: bytes, tag: bytes) -> bytes:
    """`html` with `tag` right after its first <head> (unchanged when it has none or has the tag)."""
    if MARKER not in html or tag in html:
        return html
    return html.replace(MARKER, MARKER + tag, 1)


class InjectClientScript:
    """ASGI middleware: client_batching.js (and link_in_place.js) as the first script of every HTML page."""

    def __init__(self, app) -> None:
        self.app = app
        self.tag = script_tag()

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http" or scope.get("method") != "GET":
            await self.app(scope, receive, send)
            return
        headers = scope.get("headers") or []
        accept = b"".join(v for k, v in headers if k.lower() == b"accept")
        if b"text/html" in accept:  # a page load: ask for it uncompressed, so it can be edited
            scope = dict(scope, headers=[(k, v) for k, v in headers if k.lower() != b"accept-encoding"])
        start: dict = {}
        chunks: list[bytes] = []

        async def send_edited(message) -> None:
            if message["type"] == "http.response.start":
                ctype = dict((k.lower(), v) for k, v in message.get("headers", [])).get(b"content-type", b"")
                encoded = any(k.lower() == b"content-encoding" for k, _ in message.get("headers", []))
                if ctype.startswith(b"text/html") and not encoded:
                    start.update(message)  # held until the whole body is here
                    return
                await send(message)
                return
            if message["type"] != "http.response.body" or not start:
                await send(message)
                return
            chunks.append(message.get("body", b""))
            if message.get("more_body"):
                return
            body = inject(b"".join(chunks), self.tag)
            kept = [(k, v) for k, v in start.get("headers", []) if k.lower() != b"content-length"]
            await send(dict(start, headers=kept + [(b"content-length", str(len(body)).encode())]))
            await send({"type": "http.response.body", "body": body})

        await self.app(scope, receive, send_edited)
