"""Entry `sessions` of ui/seam/__init__.py: disconnected sessions are let go once their reconnect window has passed.

Measured (issue 24.4, benchmarks/memdebug.py inside the server after benchmarks/bench_memory.py's 40 students): the
~190 MB of tensors left outside the shared cache were all reachable from Streamlit's *disconnected* sessions,
kept for a reconnect: session_state -> a widget's WidgetMetadata -> its callback (a function a page script
defines, e.g. on_click=go) -> that function's globals, the page script's whole namespace -> the page's run,
model and figures. Streamlit 1.67 keeps such a session in MemorySessionStorage, a TTLCache of 120 s that only
drops an expired entry when something is *written* into it (the next disconnect): once the class has left,
nothing is, and all 125 sessions stayed for good. (`server.disconnectedSessionTTL` is declared by 1.67 but
never read: the storage's 120 s is hard-coded.)

`reap()` (ui/reclaim.py calls it every 30 s) removes every stored session disconnected longer than
`window()` seconds, the value of `server.disconnectedSessionTTL` (.streamlit/config.toml), through the
storage's own public TTLCache.expire() -- what Streamlit does itself when its TTL runs out (it, too, drops
the session without AppSession.shutdown()). Private names: Runtime._session_mgr,
WebsocketSessionManager._session_storage and ._storage_lock, MemorySessionStorage._cache.
"""

from __future__ import annotations

from streamlit import config
from streamlit.runtime import Runtime


def _storage():
    """(the TTLCache of disconnected sessions, the session manager's lock for it), or (None, None)."""
    if not Runtime.exists():
        return None, None
    mgr = Runtime.instance()._session_mgr
    storage = getattr(mgr, "_session_storage", None)
    cache = getattr(storage, "_cache", None)
    if cache is None or not hasattr(cache, "expire"):
        return None, None
    return cache, getattr(mgr, "_storage_lock", None)


def window() -> float:
    """Seconds a disconnected session is kept for a reconnect (never longer than Streamlit's own 120 s)."""
    return float(config.get_option("server.disconnectedSessionTTL"))


def reap(cache=None, lock=None, seconds: float | None = None) -> int:
    """Drop the sessions disconnected more than `seconds` (default: window()) ago; how many were dropped."""
    if cache is None:
        cache, lock = _storage()
        if cache is None:
            return 0
    seconds = window() if seconds is None else seconds
    # An entry saved at time s expires at s + ttl: saved before now - seconds <=> expires before this.
    cutoff = cache.timer() + cache.ttl - seconds
    if lock is None:
        return len(cache.expire(cutoff))
    with lock:
        return len(cache.expire(cutoff))


def counts() -> dict:
    """Active sessions and disconnected ones still stored (for benchmarks/memdebug.py)."""
    if not Runtime.exists():
        return {}
    mgr = Runtime.instance()._session_mgr
    cache, _ = _storage()
    return {"active": len(mgr.list_active_sessions()), "stored_for_reconnect": len(cache.lru_items()) if cache else 0}


def stored_sessions() -> list:
    """The AppSessions kept for a reconnect (for benchmarks/memdebug.py)."""
    cache, _ = _storage()
    return [info.session for _, info in cache.lru_items()] if cache is not None else []


def active_sessions() -> list:
    return [info.session for info in Runtime.instance()._session_mgr.list_active_sessions()] if Runtime.exists() else []
