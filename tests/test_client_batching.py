"""ui/seam/client_batching: the middleware that puts client_batching.js into every HTML page (no browser here;
tests/test_client_batching_browser.py runs the script itself and the real server)."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from ui.seam.client_batching import SCRIPT_FILE, InjectClientScript, inject, script_tag

ROOT = Path(__file__).resolve().parent.parent
PAGE = b"<!DOCTYPE html><html><head><meta charset='UTF-8'><script>window.x=1</script></head><body></body></html>"


def run(coroutine):
    """asyncio.run in a thread of its own: the session's Playwright keeps an event loop in this one."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def call(app, path="/", method="GET", accept=b"text/html,*/*", encoding=b"gzip, br"):
    """Run the middleware around `app` for one request; (request headers app saw, messages sent)."""
    seen, sent = {}, []

    async def inner(scope, receive, send):
        seen.update(dict(scope["headers"]))
        await app(scope, receive, send)

    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        sent.append(message)

    scope = {
        "type": "http",
        "method": method,
        "path": path,
        "headers": [(b"accept", accept), (b"accept-encoding", encoding), (b"host", b"x")],
    }
    run(InjectClientScript(inner)(scope, receive, send))
    return seen, sent


def responder(body: bytes, ctype: bytes, chunks: int = 1, extra=()):
    async def app(scope, receive, send):
        headers = [(b"content-type", ctype), (b"content-length", str(len(body)).encode()), *extra]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        step = max(1, len(body) // chunks)
        parts = [body[i : i + step] for i in range(0, len(body), step)] or [b""]
        for i, part in enumerate(parts):
            await send({"type": "http.response.body", "body": part, "more_body": i < len(parts) - 1})

    return app


def body_of(sent) -> bytes:
    return b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")


def header(sent, name: bytes) -> bytes | None:
    start = next(m for m in sent if m["type"] == "http.response.start")
    return dict(start["headers"]).get(name)


def test_the_script_goes_first_into_head_once():
    tag = script_tag()
    out = inject(PAGE, tag)
    assert out.startswith(b"<!DOCTYPE html><html><head>" + tag + b"<meta")  # before the page's own scripts
    assert out.count(tag) == 1 and inject(out, tag) == out  # never twice
    assert inject(b"<p>no head</p>", tag) == b"<p>no head</p>"
    assert tag.startswith(b"<script>") and SCRIPT_FILE.read_bytes() in tag


def test_html_pages_get_the_script_with_a_correct_length_even_in_chunks():
    for chunks in (1, 3):
        seen, sent = call(responder(PAGE, b"text/html; charset=utf-8", chunks))
        body = body_of(sent)
        assert body == inject(PAGE, script_tag())
        assert header(sent, b"content-length") == str(len(body)).encode()
        assert b"accept-encoding" not in seen  # asked for uncompressed, so it can be edited
        assert [m["type"] for m in sent] == ["http.response.start", "http.response.body"]


def test_everything_else_passes_through_untouched():
    js = b"console.log('<head>')" * 100
    for kwargs, app in (
        ({"path": "/static/js/index.js", "accept": b"*/*"}, responder(js, b"text/javascript", chunks=4)),
        ({"path": "/", "method": "POST"}, responder(PAGE, b"text/html")),
        ({"path": "/"}, responder(b"\x1f\x8b" + PAGE, b"text/html", extra=[(b"content-encoding", b"gzip")])),
        ({"path": "/_stcore/health", "accept": b"*/*"}, responder(b"ok", b"text/plain")),
    ):
        seen, sent = call(app, **kwargs)
        assert script_tag() not in body_of(sent)
        assert len([m for m in sent if m["type"] == "http.response.body"]) >= 1
        if kwargs.get("accept") == b"*/*":
            assert seen[b"accept-encoding"] == b"gzip, br"  # assets keep their compression
    seen, sent = call(responder(js, b"text/javascript", chunks=4), path="/static/x.js", accept=b"*/*")
    assert body_of(sent) == js and len(sent) == 5  # streamed as it came, not held


def test_websockets_and_lifespan_are_not_touched():
    calls = []

    async def app(scope, receive, send):
        calls.append(scope["type"])

    for kind in ("websocket", "lifespan"):
        run(InjectClientScript(app)({"type": kind, "headers": []}, None, None))
    assert calls == ["websocket", "lifespan"]


def test_serve_py_runs_app_py_as_st_app_with_the_middleware():
    """`streamlit run serve.py` (scripts/start.sh, serve_many.sh, the browser tests) must find an st.App."""
    from ui import seam
    from ui.seam.backmsg_guard import RefuseDeveloperMessages
    from ui.seam.origin_guard import RefuseForeignOrigins
    from ui.seam.page_change import RerunOnThePageAsked

    # on Streamlit 1.67.0, the seam on: foreign Origins refused first, developer-only messages dropped, a rerun sent
    # from the page being left put on the page asked for, then the client script injected
    assert [m.cls for m in seam.middleware()] == [
        RefuseForeignOrigins,
        RefuseDeveloperMessages,
        RerunOnThePageAsked,
        InjectClientScript,
    ]
    from streamlit.web.server.app_discovery import discover_asgi_app

    assert discover_asgi_app(ROOT / "serve.py").is_asgi_app
    for script in ("scripts/start.sh", "scripts/serve_many.sh"):
        assert "streamlit run serve.py" in (ROOT / script).read_text()


def test_the_scripts_forwardmsg_numbers_are_streamlits():
    """client_batching.js tells a script run's messages apart by ForwardMsg's field numbers (protobuf wire format)
    and the status of a run stopped for a rerun: the canary for an upgrade that renumbers them."""
    import re

    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    text = SCRIPT_FILE.read_text()
    consts = dict(re.findall(r"\b([A-Z_]+) = (\d+)\b", text))
    number = {f.name: f.number for f in ForwardMsg.DESCRIPTOR.fields}
    assert int(consts["NEW_SESSION"]) == number["new_session"]
    assert int(consts["DELTA"]) == number["delta"]
    assert int(consts["FINISHED"]) == number["script_finished"]
    assert int(consts["STATUS"]) == number["session_status_changed"]
    assert int(consts["PAGE_INFO"]) == number["page_info_changed"]  # the link, handed over after the paint
    assert int(consts["EARLY_FOR_RERUN"]) == ForwardMsg.FINISHED_EARLY_FOR_RERUN
    assert ForwardMsg.DESCRIPTOR.fields_by_name["script_finished"].type == 14  # an enum: a varint on the wire
