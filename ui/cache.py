"""One server-wide cache for what a page builds from the settings alone (runs, figures), bounded by bytes.

A class shares settings: the teacher moves a slider and 40 students ask for the same run.
Something built once per distinct key (a run, a check, a plain figure) serves every session.

Rule: whatever comes back is SHARED between sessions — never mutate it (lessons hand out read-only arrays and
frozen dataclasses; the display options are applied when a chart is written, not to the cached data). The
key must name everything the builder reads (settings, language, page-local choices); the builder
itself is not part of the hash.

Bounded by bytes, not entries (a count of entries bounds nothing: a run at d_model 512 with its figures is
several MB): every entry is measured (core/sizes.nbytes) and the least recently used go first when the total
would pass SHARED_CACHE_BYTES; an entry larger than the whole budget is returned, not kept.
Two sessions asking for the same missing key at once build it once (the second waits for the first).
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from functools import wraps
from typing import Any, TypeVar

from core.frozen import freeze
from core.sizes import nbytes

T = TypeVar("T")

# The server's shared memory, measured with core/sizes.nbytes (tensor storages, arrays, text, ...); with
# lessons/limits.WHY_RESULTS_BYTES 200 MB in all. (The pretrained model, ~90 MB, is loaded once per process:
# not a cache, not in this sum.)
SHARED_CACHE_BYTES = 176 * 2**20  # runs, checks, figures, scenes, quiz sets of every page
# An entry nobody has asked for in this long is forgotten (ui/reclaim.py): the cache serves a class asking for the
# same thing within seconds; after a quiet half minute the next asker rebuilds it. Without it the budget stays full
# after the class has left.
SHARED_CACHE_IDLE_SECONDS = 30


class ByteBudgetCache:
    """Least-recently-used values by key, at most `budget` bytes in all (thread-safe)."""

    def __init__(self, budget: int):
        self.budget = budget
        self.total = 0
        self._entries: OrderedDict[Hashable, tuple[Any, int]] = OrderedDict()
        self._used: dict[Hashable, float] = {}  # when each entry was last built or handed out (time.monotonic)
        self._lock = threading.Lock()
        self._building: dict[Hashable, threading.Lock] = {}

    def get_or_build(self, key: Hashable, build: Callable[[], Any]) -> Any:
        with self._lock:
            if key in self._entries:
                self._entries.move_to_end(key)
                self._used[key] = time.monotonic()
                return self._entries[key][0]
            gate = self._building.setdefault(key, threading.Lock())
        with gate:  # one build per key at a time: a second asker waits, then finds it
            with self._lock:
                if key in self._entries:
                    self._entries.move_to_end(key)
                    self._used[key] = time.monotonic()
                    return self._entries[key][0]
            try:
                value = build()
                self._put(key, value, nbytes(value))
            finally:
                with self._lock:
                    self._building.pop(key, None)
            return value

    def _put(self, key: Hashable, value: Any, size: int) -> None:
        with self._lock:
            if size > self.budget:
                return  # larger than the whole budget: used by this run only
            self._entries[key] = (value, size)
            self._used[key] = time.monotonic()
            self.total += size
            while self.total > self.budget:
                gone, (_, old) = self._entries.popitem(last=False)
                self._used.pop(gone, None)
                self.total -= old

    def drop_idle(self, seconds: float, now: float | None = None) -> int:
        """Forget the entries nobody asked for in the last `seconds` (ui/reclaim.py, once a class has gone
        quiet); how many. The least recently used come first, so this stops at the first recent one."""
        now = time.monotonic() if now is None else now
        dropped = 0
        with self._lock:
            while self._entries:
                key = next(iter(self._entries))
                if now - self._used.get(key, now) < seconds:
                    break
                _, old = self._entries.pop(key)
                self._used.pop(key, None)
                self.total -= old
                dropped += 1
        return dropped

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._used.clear()
            self.total = 0

    def __len__(self) -> int:
        return len(self._entries)


CACHE = ByteBudgetCache(SHARED_CACHE_BYTES)


def shared(name: str, key: Hashable, build: Callable[[], T]) -> T:
    """build() once per (name, key) for the whole server; `key` must be a tuple of plain values."""
    # Frozen (core/frozen.py): tensors and module weights inside become read-only, lists tuples, so an
    # in-place write raises instead of reaching every other session. (Figures are left as they are.)
    return CACHE.get_or_build((name, key), lambda: freeze(build()))


def shared_function(fn: Callable[..., T]) -> Callable[..., T]:
    """A function whose result is kept in the shared cache per its (plain, hashable) arguments:
    byte-bounded in place of st.cache_resource(max_entries=...)."""
    name = f"{fn.__code__.co_filename}:{fn.__qualname__}"  # a page file runs again on every rerun: same name

    @wraps(fn)
    def cached(*args):
        return shared(name, args, lambda: fn(*args))

    return cached


# ---------------------------------------------------------------- once per server process
# What the whole server shares for good: the pretrained model, the finished trainings, app.py's set-up.
# Not st.cache_resource: any client can send Streamlit's `clear_cache` back message (no developer mode
# needed), which empties every st.cache_resource for everyone: the model was loaded again and the class's
# trainings were gone. Nothing outside this module reaches these.
_PROCESS: dict[str, Any] = {}
_BUILDS: dict[str, int] = {}
_process_lock = threading.Lock()
_process_gates: dict[str, threading.Lock] = {}


def process_wide(name: str, build: Callable[[], T]) -> T:
    """build() once per server process under `name`, kept until the process ends. Sessions asking at once
    wait for the one build (a different name is not held up)."""
    if name in _PROCESS:
        return _PROCESS[name]
    with _process_lock:
        gate = _process_gates.setdefault(name, threading.Lock())
    with gate:
        if name not in _PROCESS:
            _PROCESS[name] = build()
            _BUILDS[name] = _BUILDS.get(name, 0) + 1
        return _PROCESS[name]


def process_wide_builds() -> dict[str, int]:
    """How often each process-wide value was built (once each, unless a test forgot them): benchmarks/memdebug.py."""
    with _process_lock:
        return dict(_BUILDS)


def forget_process_wide(name: str | None = None) -> None:
    """For tests only: build `name` (or everything) again on next use, as a new server process would."""
    with _process_lock:
        for key in [name] if name else list(_PROCESS):
            _PROCESS.pop(key, None)
