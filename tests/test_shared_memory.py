"""Issue 24.4: every shared cache is bounded by bytes, and one training per run is shared by everyone.

Before: ui/cache.shared kept 256 entries whatever their size (a class left ~470 MB behind), and two
sessions asking for the same Why-many-heads training trained it twice (73 s each against 39 s alone).
"""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest
import torch

from core.sizes import nbytes
from lessons import limits as lesson_limits
from lessons import why_heads as W


def test_sizes_count_tensors_arrays_and_text_once():
    t = torch.zeros(1000, 1000)
    assert 4_000_000 <= nbytes(t) < 4_001_000
    assert nbytes([t, t[:10], t.T, {"again": t}]) < 4_002_000  # one storage, however many views
    assert nbytes(np.zeros((500, 500))) >= 2_000_000
    assert nbytes(("x" * 100_000, b"y" * 100_000)) >= 200_000


def test_the_shared_cache_is_bounded_by_bytes_and_evicts_the_oldest():
    from ui.cache import ByteBudgetCache

    cache = ByteBudgetCache(10 * 2**20)
    for i in range(8):  # 8 x 4 MB into 10 MB
        cache.get_or_build(i, lambda: torch.zeros(2**20))
    assert cache.total <= 10 * 2**20 and len(cache) == 2
    built = []
    cache.get_or_build(7, lambda: built.append(1))  # the newest is still there
    assert built == []
    cache.get_or_build(0, lambda: built.append(1) or torch.zeros(1))  # the oldest went first
    assert built == [1]
    big = cache.get_or_build("big", lambda: torch.zeros(4 * 2**20))  # 16 MB > the whole budget: used, not kept
    assert big.numel() == 4 * 2**20 and cache.total <= 10 * 2**20


def test_the_app_cache_budget_is_stated_and_used():
    from ui import cache

    assert cache.CACHE.budget == cache.SHARED_CACHE_BYTES
    assert cache.SHARED_CACHE_BYTES + lesson_limits.WHY_RESULTS_BYTES <= 200 * 2**20


def test_one_build_per_key_when_sessions_ask_at_once():
    from ui.cache import ByteBudgetCache

    cache, calls = ByteBudgetCache(2**20), []

    def build():
        calls.append(1)
        time.sleep(0.3)
        return "run"

    threads = [threading.Thread(target=cache.get_or_build, args=("k", build)) for _ in range(5)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert calls == [1]


def test_finished_trainings_are_bounded_by_bytes():
    r = W.train(1, 0, 3)
    size = nbytes(r)
    store = W.ResultStore(capacity=300, budget=3 * size + size // 2)
    for seed in range(10):
        store.put(W.cache_key(1, seed, 3), r)
    assert len(store) == 3 and store.nbytes <= store.budget


@pytest.mark.usefixtures("one_torch_thread")
def test_two_sessions_asking_for_the_same_training_share_one():
    store, made = W.ResultStore(), []

    def make():
        made.append(1)
        return W.Trainer(2, 5, 200)

    results, steps_seen = [], []

    def session():
        results.append(store.run_shared(W.cache_key(2, 5, 200), make, 10, each=lambda tr: steps_seen.append(tr.step)))

    start = time.perf_counter()
    threads = [threading.Thread(target=session) for _ in range(2)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    both = time.perf_counter() - start
    assert made == [1]  # one trainer for both sessions
    assert results[0] is results[1] and len(results[0].losses) == 200
    start = time.perf_counter()
    alone = W.train(2, 5, 200)
    one = time.perf_counter() - start
    assert alone.losses == results[0].losses  # the shared training is the same training
    assert both < 1.6 * one + 1, (both, one)  # not twice the work


def test_sizes_see_inside_frozen_values():
    from core.frozen import freeze

    frozen = freeze({"w": torch.zeros(2**20), "rows": [torch.zeros(2**18)]})  # dicts become read-only mappings
    assert nbytes(frozen) >= 5 * 2**20


def test_freeze_keeps_a_value_with_nothing_to_freeze_as_it_is():
    """The cache freezes every new value a step makes. A dataclass holding only read-only arrays, read-only mappings
    and numbers (a softmax tiles walk: ~80 steps of them at 512/16/32) is handed back as it is, not rebuilt; a tensor
    inside one is still frozen."""
    import dataclasses
    from types import MappingProxyType

    from core.frozen import ReadOnlyTensor, freeze
    from lessons import softmax as L
    from lessons.settings import DEFAULTS, settings_of

    @dataclasses.dataclass(frozen=True)
    class Step:
        values: object
        counts: object
        n: int

    values = np.zeros(3)
    values.setflags(write=False)
    step = Step(values, MappingProxyType({"read_q": 4}), 2)
    assert freeze(step) is step and freeze((step, step))[1] is step
    with_tensor = freeze(Step(torch.zeros(2), MappingProxyType({}), 1))
    assert isinstance(with_tensor.values, ReadOnlyTensor)
    walk = L.tile_walk(settings_of({**DEFAULTS, "lang": "en"}), 0, 2, 2)
    assert walk.n_steps > 1 and freeze(walk) is walk
