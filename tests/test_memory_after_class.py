"""Issue 24.4: a class that has left gives its memory back.

Measured with benchmarks/memdebug.py inside the server (benchmarks/README.md, "Memory after a class has left"): after
40 students, ~190 MB of runs outside the shared cache were held by Streamlit's *disconnected* sessions (a
widget callback a page defines -> the page's namespace -> its run, model, figures), which Streamlit 1.67 never
let go once nobody disconnected any more; and the shared cache stayed at its ~170 MB budget. ui/reclaim.py now
drops both every 30 s: sessions disconnected longer than server.disconnectedSessionTTL (ui/seam/sessions.py)
and cache entries nobody asked for in SHARED_CACHE_IDLE_SECONDS.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import gc
import json
import sys
import time
import weakref
from pathlib import Path

import pytest
import torch
from streamlit.runtime.caching.ttl_cache import TTLCache

from core import limits
from ui.cache import ByteBudgetCache
from ui.seam import sessions

ROOT = Path(__file__).resolve().parent.parent


class _Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


class _Page:
    """What a stored session holds in the server: a page namespace with a large run in it."""

    def __init__(self):
        self.run = torch.zeros(2**18)  # 1 MB


class _Session:
    def __init__(self, sid):
        self.id = sid
        self.page = _Page()
        self.callback = lambda: self  # a cycle, as a widget callback and its page's namespace make
        self.page.owner = self


class _Info:
    def __init__(self, session):
        self.session = session


def _storage(clock):
    return TTLCache(maxsize=128, ttl=120, timer=clock)  # what MemorySessionStorage keeps, with our clock


def test_streamlit_alone_keeps_an_expired_session_until_the_next_write():
    """The trap the seam works around: nothing reads or writes the storage once a class has left."""
    clock = _Clock()
    cache = _storage(clock)
    cache["a"] = _Info(_Session("a"))
    page = weakref.ref(cache._data["a"].session.page)
    clock.now += 10_000  # long past Streamlit's 120 s
    gc.collect()
    assert page() is not None  # still held: expired entries go only on a write, expire() or len()


def test_reap_lets_go_of_sessions_past_the_window_and_keeps_recent_ones():
    clock = _Clock()
    cache = _storage(clock)
    cache["old"] = _Info(_Session("old"))
    old_page = weakref.ref(cache._data["old"].session.page)
    clock.now += 25
    cache["new"] = _Info(_Session("new"))
    clock.now += 10  # "old" disconnected 35 s ago, "new" 10 s ago
    assert sessions.reap(cache, None, seconds=30) == 1
    gc.collect()
    assert old_page() is None  # its page namespace and the run in it are gone
    assert [k for k, _ in cache.lru_items()] == ["new"]
    clock.now += 25
    assert sessions.reap(cache, None, seconds=30) == 1 and cache.lru_items() == []


def test_reap_releases_a_disconnected_session_from_streamlits_own_storage():
    """Behaviour canary (seam entry `sessions`), fast, on Streamlit's own MemorySessionStorage: a stored
    (disconnected) session past the window is let go, with its page, and one inside it stays."""
    import threading

    from streamlit.runtime.memory_session_storage import MemorySessionStorage

    storage = MemorySessionStorage(ttl_seconds=120)
    storage.save(_Info(_Session("gone")))
    page = weakref.ref(storage.get("gone").session.page)
    assert sessions.reap(storage._cache, threading.Lock(), seconds=60) == 0  # inside the window: kept
    assert sessions.reap(storage._cache, threading.Lock(), seconds=0) == 1
    gc.collect()
    assert storage.get("gone") is None and page() is None


def test_the_reconnect_window_is_the_config_value():
    text = (ROOT / ".streamlit" / "config.toml").read_text()
    assert "disconnectedSessionTTL = 30" in text
    assert sessions.window() == 30


def test_idle_shared_entries_are_dropped_and_recent_ones_kept():
    cache = ByteBudgetCache(100 * 2**20)
    cache.get_or_build("a", lambda: torch.zeros(2**18))
    cache.get_or_build("b", lambda: torch.zeros(2**18))
    total = cache.total
    a = weakref.ref(cache.get_or_build("a", lambda: None))  # asked for again: "a" is the newest now
    time.sleep(0.05)
    cache.get_or_build("b", lambda: None)  # ... until "b" is asked for 50 ms later
    idle = limits.SHARED_CACHE_IDLE_SECONDS
    # A moment when "b" was asked for just under `idle` seconds ago and "a" just over.
    assert cache.drop_idle(idle, now=cache._used["b"] + idle - 0.01) == 1
    assert len(cache) == 1 and 0 < cache.total < total
    gc.collect()
    assert a() is None
    built = []
    cache.get_or_build("b", lambda: built.append(1))
    assert built == []  # the recent one is still served from the cache
    assert cache.drop_idle(0) == 1 and cache.total == 0


@pytest.mark.slow  # a real server with its memory report
def test_a_closed_session_is_released_by_the_server():
    """A real server: a session that disconnects is kept for its reconnect window, then let go by the
    reclaim thread (benchmarks/memdebug.py's report reads the server's own count)."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    sys.path.insert(0, str(ROOT / "tests"))
    import os
    import tempfile

    from bench_memory import ask_report
    from bench_sessions import ProtocolSession
    from servers import Server

    folder = Path(tempfile.mkdtemp(prefix="memdebug-"))
    os.environ["ATTENTION_LAB_MEMDEBUG"] = str(folder)
    os.environ["STREAMLIT_SERVER_DISCONNECTED_SESSION_TTL"] = "1"
    try:
        server = Server()
    finally:
        del os.environ["ATTENTION_LAB_MEMDEBUG"], os.environ["STREAMLIT_SERVER_DISCONNECTED_SESSION_TTL"]

    async def visit():
        s = ProtocolSession(server.url, "heads")
        await s.connect()
        await s.rerun({"d_model": 256, "seed": 4321})
        await s.close()

    try:
        # asyncio.run in a thread of its own: the session's Playwright keeps an event loop in this one
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            pool.submit(asyncio.run, visit()).result()
        ask_report(folder, "closed")
        stored = json.loads((folder / "closed.json").read_text())["sessions"]["stored_for_reconnect"]
        assert stored >= 1  # kept for a reconnect at first
        deadline = time.monotonic() + 75  # reclaim runs every 30 s
        while time.monotonic() < deadline:
            time.sleep(5)
            ask_report(folder, "later")
            stored = json.loads((folder / "later.json").read_text())["sessions"]["stored_for_reconnect"]
            if stored == 0:
                break
        assert stored == 0
    finally:
        server.stop()
