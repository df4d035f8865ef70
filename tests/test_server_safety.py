"""Issue 30: one student must not be able to hurt the class (items 1, 3 and 7).

1. No client message clears, reloads or evicts what the server shares (Streamlit's clear_cache back message).
3. A session keeps settings and small state only: no tensor of its runs stays reachable from it.
7. The memory-reclaim tick spawns no subprocess.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from conftest import run_async

from ui import reclaim

ROOT = Path(__file__).resolve().parent.parent

_SPAWNS = ("subprocess.Popen", "os.posix_spawn", "os.fork", "os.forkpty", "os.exec", "os.spawn", "os.system")
_watch: list | None = None  # while a list: every process-spawning audit event is appended to it


def _audit(event: str, args) -> None:
    if _watch is not None and event.startswith(_SPAWNS):
        _watch.append((event, args[:2] if isinstance(args, tuple) else args))


sys.addaudithook(_audit)  # a hook cannot be removed: it only records while _watch is a list


def test_the_reclaim_tick_spawns_no_subprocess():
    """Every 30 s the tick called ctypes.util.find_library, which runs `/sbin/ldconfig -p`."""
    global _watch
    _watch = []
    try:
        reclaim.reclaim()
        reclaim.reclaim()
    finally:
        seen, _watch = _watch, None
    assert seen == []
    if sys.platform.startswith("linux"):
        assert reclaim._TRIM is not None  # glibc: the trim still happens


def test_the_audit_hook_sees_a_spawn():
    """The check above can fail: find_library, as the old tick called it, is seen."""
    import ctypes.util

    global _watch
    _watch = []
    try:
        ctypes.util.find_library("c")
    finally:
        seen, _watch = _watch, None
    if sys.platform.startswith("linux"):
        assert any(event == "subprocess.Popen" for event, _ in seen)


# ---------------------------------------------------------------- 1. developer-only back messages
def _backmsg(**fields) -> bytes:
    from streamlit.proto.BackMsg_pb2 import BackMsg

    msg = BackMsg(**fields)
    return msg.SerializeToString()


def test_the_guard_refuses_developer_messages_and_lets_a_viewers_through():
    from streamlit.proto.BackMsg_pb2 import BackendOperationRequest
    from streamlit.proto.ClientState_pb2 import ClientState

    from ui.seam import backmsg_guard as g

    for kind in ("clear_cache", "load_git_info", "set_run_on_save", "debug_shutdown_runtime"):
        assert g.refused(_backmsg(**{kind: True})) == kind
    assert g.refused(b"") == "(empty)"
    skills = BackendOperationRequest(request_id="1", install_skills={})
    assert g.refused(_backmsg(backend_operation_request=skills)) == "backend_operation_request.install_skills"
    for fields in (
        {"rerun_script": ClientState(query_string="seed=1", page_name="heads")},
        {"stop_script": True},
        {"app_heartbeat": True},
        {"backend_operation_request": BackendOperationRequest(request_id="2", deferred_file={"file_id": "x"})},
    ):
        assert g.refused(_backmsg(**fields)) is None, fields
    assert g.refused(b"\xff\xff\xff not a protobuf") is None  # Streamlit closes the connection itself


def test_the_middleware_drops_refused_frames_and_passes_the_rest():

    from ui.seam.backmsg_guard import RefuseDeveloperMessages

    frames = [
        {"type": "websocket.connect"},
        {"type": "websocket.receive", "bytes": _backmsg(clear_cache=True)},
        {"type": "websocket.receive", "bytes": _backmsg(app_heartbeat=True)},
        {"type": "websocket.receive", "bytes": _backmsg(clear_cache=True)},
        {"type": "websocket.disconnect", "code": 1000},
    ]
    seen: list = []

    async def app(scope, receive, send):
        while True:
            message = await receive()
            seen.append(message)
            if message["type"] == "websocket.disconnect":
                return

    async def drive(path):
        queue = list(frames)

        async def receive():
            return queue.pop(0)

        seen.clear()
        await RefuseDeveloperMessages(app)({"type": "websocket", "path": path}, receive, None)
        return [m.get("bytes") for m in seen]

    assert run_async(drive("/_stcore/stream")) == [None, _backmsg(app_heartbeat=True), None]
    assert len(run_async(drive("/some/other/socket"))) == 5  # only Streamlit's stream is read


def _serve_with_memdebug():
    """A real server (serve.py) with benchmarks/memdebug.py's report hook; (server, report folder)."""
    import os
    import tempfile
    from pathlib import Path

    from servers import Server

    folder = Path(tempfile.mkdtemp(prefix="memdebug-"))
    os.environ["ATTENTION_LAB_MEMDEBUG"] = str(folder)
    try:
        return Server(), folder
    finally:
        del os.environ["ATTENTION_LAB_MEMDEBUG"]


def _report(folder, label: str) -> dict:
    import json

    from bench_memory import ask_report

    ask_report(folder, label)
    return json.loads((folder / f"{label}.json").read_text())


@pytest.mark.slow  # a real server and real websockets
def test_no_client_message_clears_what_the_class_shares():
    """A real server and real websockets: a trained why-heads run and the loaded model, then one client sends
    Streamlit's clear_cache (and the other developer-only messages) five times, each followed by a visit to
    /real-model. Before: every st.cache_resource emptied (the model loaded again each time, RSS +100 MB a
    time, the training gone for everyone)."""
    import asyncio
    import concurrent.futures

    sys.path.insert(0, str(ROOT / "benchmarks"))
    from bench_sessions import ProtocolSession

    import i18n

    class Client(ProtocolSession):
        """ProtocolSession that also learns buttons, clicks them and sends any BackMsg."""

        def _read_element(self, el) -> None:
            if el.WhichOneof("type") == "button" and el.button.id:
                self.widget_ids[el.button.id.rsplit("-", 1)[-1]] = el.button.id
            super()._read_element(el)

        async def click(self, query: dict, key: str) -> None:
            from streamlit.proto.BackMsg_pb2 import BackMsg
            from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

            msg = BackMsg()
            msg.rerun_script.query_string = "&".join(f"{k}={v}" for k, v in query.items())
            msg.rerun_script.page_name = self.page
            w = msg.rerun_script.widget_states.widgets.add()
            w.id, w.trigger_value = self.widget_ids[key], True
            self.texts = []
            await self.ws.send(msg.SerializeToString())
            while True:
                fwd = ForwardMsg()
                fwd.ParseFromString(await asyncio.wait_for(self.ws.recv(), timeout=600))
                if fwd.WhichOneof("type") == "delta" and fwd.delta.WhichOneof("type") == "new_element":
                    self._read_element(fwd.delta.new_element)
                elif fwd.WhichOneof("type") == "script_finished":
                    if fwd.script_finished != ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                        return

    training = {"why_seed": 4242, "why_steps": 100, "lang": "en"}
    cached, not_trained = i18n.t("why.cached", "en"), i18n.t("why.not_trained", "en")

    async def visit(url, page, query) -> list:
        s = Client(url, page)
        await s.connect()
        try:
            await s.rerun(query)
            return s.texts
        finally:
            await s.close()

    async def train(url) -> list:
        s = Client(url, "why-heads")
        await s.connect()
        try:
            await s.rerun(training)
            assert not_trained in s.texts
            await s.click(training, "why_train")
            return s.texts
        finally:
            await s.close()

    async def attack(url) -> list:
        s = Client(url, "")
        await s.connect()
        try:
            await s.rerun({"lang": "en"})
            texts = []
            for _ in range(5):
                for kind in ("clear_cache", "load_git_info", "set_run_on_save"):
                    await s.ws.send(_backmsg(**{kind: True}))
                texts.append(await visit(url, "real-model", {"lang": "en"}))
            await s.rerun({"lang": "en", "seed": 5})  # the sender's own session still works
            return texts
        finally:
            await s.close()

    server, folder = _serve_with_memdebug()
    try:
        with concurrent.futures.ThreadPoolExecutor(1) as pool:  # a loop of its own (a test may hold another)
            trained = pool.submit(asyncio.run, train(server.url)).result()
            assert cached not in trained and not_trained not in trained  # it trained
            pool.submit(asyncio.run, visit(server.url, "real-model", {"lang": "en"})).result()
            before = _report(folder, "before")
            pool.submit(asyncio.run, attack(server.url)).result()
            after = _report(folder, "after")
            again = pool.submit(asyncio.run, visit(server.url, "why-heads", training)).result()
        assert cached in again and not_trained not in again  # the class's training is still there
        builds = after["process_wide_builds"]
        assert builds == before["process_wide_builds"]
        assert builds["real-model"] == 1 and builds["why-heads.results"] == 1 and builds["app.tune_process"] == 1
        assert after["rss_MB"] < before["rss_MB"] + 100, (before["rss_MB"], after["rss_MB"])
    finally:
        server.stop()


# ---------------------------------------------------------------- 3. what a session holds
LARGE = {"d_model": 512, "num_heads": 16, "seq_len": 32, "lang": "en"}
# Every page and every section (each section draws its own widgets, with their own callbacks).
SECTIONS = (
    [("walkthrough", {"walk_view": v}) for v in ("step", "all", "present")]
    + [("heads", {"heads_tab": s}) for s in ("shapes", "heads", "cost", "timing", "slice", "single")]
    + [("masks", {"masks_tab": s}) for s in ("grid", "row", "full", "polarity")]
    + [("softmax", {"soft_tab": s}) for s in ("scale", "max", "tiles")]
    + [("positions", {"pos_tab": s}) for s in ("shuffle", "add", "rope", "learned")]
    + [("kv-cache", {"kv_tab": s}) for s in ("sharing", "decode", "memory", "timing")]
    + [("real-model", {"real_tab": s}) for s in ("grid", "head", "patterns", "link", "ablate", "core")]
    + [("quiz", {}), ("why-heads", {}), (None, {})]
)
HELD_BYTES = 64 * 1024  # no tensor or array this large stays reachable from a session


def _module_dicts() -> set[int]:
    return {id(vars(m)) for m in list(sys.modules.values()) if m is not None}


def _page_functions_and_buffers(root, modules: set[int]):
    """What a session's state reaches (gc.get_referents, as benchmarks/memdebug.py walks): the functions defined by a
    page script (their globals are the page's own namespace, not a module's), and every tensor storage or
    NumPy buffer of HELD_BYTES or more, each with the path to it. Modules' namespaces are shared by the
    whole process (the shared cache is one): the walk does not go into them."""
    import gc
    import types

    import numpy as np
    import torch

    seen: set[tuple[int, bool]] = set()
    functions, buffers = {}, []
    stack = [(root, "session_state", False)]
    while stack:
        obj, path, in_page = stack.pop()
        if (id(obj), in_page) in seen or isinstance(obj, (types.ModuleType, type)):
            continue
        seen.add((id(obj), in_page))  # (a function reached through a page namespace first is still a root)
        if isinstance(obj, torch.Tensor):
            size = obj.untyped_storage().nbytes()
            if size >= HELD_BYTES:
                buffers.append((size, path))
            continue
        if isinstance(obj, np.ndarray):
            if obj.nbytes >= HELD_BYTES:
                buffers.append((obj.nbytes, path))
            continue
        if isinstance(obj, types.FunctionType):
            kids = [*(obj.__closure__ or ()), *(obj.__defaults__ or ()), *(obj.__kwdefaults__ or {}).values()]
            page = id(obj.__globals__) not in modules  # defined by a page script
            if page and not in_page:  # held by the session itself (a callback, a format_func, a closure)
                functions[id(obj)] = obj
            stack.extend((k, f"{path} > {obj.__qualname__}", in_page) for k in kids)
            if page:
                stack.append((obj.__globals__, f"{path} > {obj.__qualname__}.__globals__", True))
            continue
        stack.extend(
            (r, path if isinstance(r, (dict, list, tuple)) else f"{path} > {type(r).__name__}", in_page)
            for r in gc.get_referents(obj)
        )
    return list(functions.values()), buffers


def _global_names(code) -> set[str]:
    import dis
    import types

    names = {i.argval for i in dis.get_instructions(code) if i.opname in ("LOAD_GLOBAL", "LOAD_NAME")}
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _global_names(const)
    return names


def _missing_globals(functions) -> list[str]:
    """Global names a page's function (or a page function it calls) reads that its namespace no longer has."""
    import builtins
    import types

    missing, todo, done = [], list(functions), set()
    while todo:
        fn = todo.pop()
        if id(fn) in done:
            continue
        done.add(id(fn))
        for name in _global_names(fn.__code__):
            if name in fn.__globals__:
                value = fn.__globals__[name]
                if isinstance(value, types.FunctionType) and value.__globals__ is fn.__globals__:
                    todo.append(value)
            elif not hasattr(builtins, name):
                missing.append(f"{fn.__qualname__} reads {name}")
    return sorted(set(missing))


@pytest.mark.app
@pytest.mark.parametrize("page,params", SECTIONS, ids=[f"{p}-{'-'.join(q.values())}" for p, q in SECTIONS])
def test_a_session_holds_no_run_and_its_callbacks_still_work(page, params):
    """Each session held its last run, model and figures through its widgets' callbacks (a function a page
    defines keeps the page's namespace alive): 555 MB of tensors for 40 students on the tiles section. Now
    the page's large values are let go when its run ends (ui/page_memory.py), and every function a session
    still holds finds every global name it reads."""
    from conftest import run_app

    at = run_app(page, **LARGE, **params)
    assert not at.exception, at.exception
    functions, buffers = _page_functions_and_buffers(at.session_state._state, _module_dicts())
    held = sum(size for size, _ in buffers)
    assert buffers == [], f"{held / 2**20:.1f} MB held by the session, e.g. {max(buffers)[1][-300:]}"
    assert _missing_globals(functions) == []


def test_a_flood_of_messages_is_read_at_the_budgets_pace_and_none_is_lost():
    """One viewer's connection: a burst is read at once, then messages at Budget's rate; the event loop is free
    meanwhile (the guard sleeps), and every message goes on, in order."""
    import asyncio

    from streamlit.proto.BackMsg_pb2 import BackMsg

    from ui.seam.backmsg_guard import BURST, RATE, Budget, RefuseDeveloperMessages

    now = [0.0]
    budget = Budget(burst=3, rate=10, clock=lambda: now[0])
    assert [budget.wait() for _ in range(3)] == [0, 0, 0]
    assert budget.wait() == pytest.approx(0.1) and budget.wait() == pytest.approx(0.2)
    now[0] = 10.0  # quiet for a while: the whole burst is back, no more
    assert [budget.wait() for _ in range(3)] == [0, 0, 0] and budget.wait() > 0

    msg = BackMsg()
    msg.rerun_script.query_string = "x"
    n = BURST + 15
    frames = [{"type": "websocket.receive", "bytes": msg.SerializeToString()} for _ in range(n)]
    got: list = []
    other_ticks: list = []

    async def streamlit(scope, receive, send):
        for _ in range(n):
            got.append(await receive())

    async def browser_receive():
        return frames.pop(0)

    async def browser_send(message):
        pass

    async def another_session():  # another session's work on the same event loop
        while len(got) < n:
            other_ticks.append(len(got))
            await asyncio.sleep(0.01)

    async def both():
        scope = {"type": "websocket", "path": "/_stcore/stream"}
        t0 = asyncio.get_running_loop().time()
        await asyncio.gather(
            RefuseDeveloperMessages(streamlit)(scope, browser_receive, browser_send), another_session()
        )
        return asyncio.get_running_loop().time() - t0

    took = run_async(both())
    assert len(got) == n  # none lost
    assert took >= 14 / RATE * 0.9  # the burst at once, the other 15 at RATE a second
    assert len(other_ticks) > 50  # the loop served the other session meanwhile
