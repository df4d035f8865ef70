"""Give memory back after a class has left: a collector thread for the whole server process.

Why: config.toml turns Streamlit's full collection after every rerun off (too slow with torch imported
to pay on every step), so garbage in reference cycles (a run's trace, a figure, a closed session's state) waits for
Python's own allocation-driven collection, which never comes once the class has gone quiet; and glibc
keeps freed heap pages instead of returning them. Every PERIOD seconds this
1. forgets shared-cache entries nobody asked for in SHARED_CACHE_IDLE_SECONDS (ui/cache.py);
2. runs gc.collect() and, where the C library is glibc, malloc_trim(0) (return free heap pages to the system).
(A disconnected session Streamlit keeps for a reconnect holds only its small state: ui/page_memory.py lets a
page's runs go when the page's run ends.)
What each step buys, measured: benchmarks/README.md ("Memory after a class has left", "Seam entries").
The cost is a fraction of one core's second per PERIOD.
"""

from __future__ import annotations

import ctypes
import gc
import logging
import threading
import time

from ui.cache import CACHE, SHARED_CACHE_IDLE_SECONDS

PERIOD = 30.0  # seconds between collections
_LOG = logging.getLogger(__name__)
_started = False
_failed: set[str] = set()  # the steps whose failure was already logged (once each, not every PERIOD)


def _log_once(step: str) -> None:
    if step not in _failed:
        _failed.add(step)
        _LOG.warning("reclaim: %s failed; it is skipped from now on until it works", step, exc_info=True)


_lock = threading.Lock()


def _find_trim():
    """glibc's malloc_trim, or None (another C library). Resolved once, at import: ctypes.util.find_library
    runs `/sbin/ldconfig -p` in a subprocess: every tick forked the whole server for it.
    CDLL(None) is the symbols already loaded into this process, the C library's among them: no file search."""
    try:
        libc = ctypes.CDLL(None)
    except OSError:
        return None
    return getattr(libc, "malloc_trim", None)


_TRIM = _find_trim()


def reclaim() -> None:
    """Let go of what a class that has left still holds, one full collection, then free heap pages back to
    the system (glibc)."""
    # Shared runs and figures nobody asked for in SHARED_CACHE_IDLE_SECONDS.
    CACHE.drop_idle(SHARED_CACHE_IDLE_SECONDS)
    gc.collect()
    if _TRIM is not None:
        _TRIM(0)


def _loop() -> None:
    while True:
        time.sleep(PERIOD)
        try:
            reclaim()
        except Exception:  # noqa: BLE001 - never let housekeeping take the server down
            _log_once("a collection")


def start() -> None:
    """Start the collector thread once per process (app.py's once-per-process set-up calls it)."""
    global _started
    with _lock:
        if _started:
            return
        _started = True
    threading.Thread(target=_loop, name="reclaim-memory", daemon=True).start()
