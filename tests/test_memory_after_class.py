"""A class that has left gives its memory back: shared-cache entries nobody asked for in SHARED_CACHE_IDLE_SECONDS
are dropped by ui/reclaim.py, and a session Streamlit keeps for a reconnect holds no page run (ui/page_memory.py;
measured in benchmarks/README.md, "Memory after a class has left" and "Seam entries")."""

from __future__ import annotations

import gc
import time
import weakref

import torch

from ui.cache import SHARED_CACHE_IDLE_SECONDS, ByteBudgetCache


def test_idle_shared_entries_are_dropped_and_recent_ones_kept():
    cache = ByteBudgetCache(100 * 2**20)
    cache.get_or_build("a", lambda: torch.zeros(2**18))
    cache.get_or_build("b", lambda: torch.zeros(2**18))
    total = cache.total
    a = weakref.ref(cache.get_or_build("a", lambda: None))  # asked for again: "a" is the newest now
    time.sleep(0.05)
    cache.get_or_build("b", lambda: None)  # ... until "b" is asked for 50 ms later
    idle = SHARED_CACHE_IDLE_SECONDS
    # A moment when "b" was asked for just under `idle` seconds ago and "a" just over.
    assert cache.drop_idle(idle, now=cache._used["b"] + idle - 0.01) == 1
    assert len(cache) == 1 and 0 < cache.total < total
    gc.collect()
    assert a() is None
    built = []
    cache.get_or_build("b", lambda: built.append(1))
    assert built == []  # the recent one is still served from the cache
    assert cache.drop_idle(0) == 1 and cache.total == 0
