"""Issue 30: one student must not be able to hurt the class (items 1, 3 and 7).

1. No client message clears, reloads or evicts what the server shares (Streamlit's clear_cache back message).
3. A session keeps settings and small state only: no tensor of its runs stays reachable from it.
7. The memory-reclaim tick spawns no subprocess.
"""

from __future__ import annotations

import sys

from ui import reclaim

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
