"""Caching finished runs for the whole server (ResultStore): bounded in runs and bytes, frozen when shared, and
the one in-flight Trainer per run.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable

from core.frozen import freeze
from core.sizes import nbytes
from core.work_queue import Control, Ticket, WorkQueue
from lessons.limits import MAX_TRAININGS_IN_FLIGHT, WHY_RESULTS_BYTES
from lessons.why_heads.measure import RunResult
from lessons.why_heads.task import TASK_VERSION
from lessons.why_heads.training import Trainer

# ---------------------------------------------------------------- caching finished runs
CacheKey = tuple[int, int, int, int]  # (TASK_VERSION, num_heads, seed, steps)


def cache_key(num_heads: int, seed: int, steps: int) -> CacheKey:
    return (TASK_VERSION, int(num_heads), int(seed), int(steps))


class ResultStore:
    """Finished runs by cache_key, shared by every session of the server; the oldest go first (at most
    `capacity` runs and `budget` bytes). Also the trainings in flight: one Trainer per key, shared by
    every session that asks for that run while it trains (`trainer`, `run_shared`)."""

    def __init__(self, capacity: int = 300, budget: int = WHY_RESULTS_BYTES) -> None:
        self.capacity, self.budget = capacity, budget
        self._runs: OrderedDict[CacheKey, RunResult] = OrderedDict()
        self._sizes: dict[CacheKey, int] = {}
        self._lock = threading.Lock()
        self._training: OrderedDict[CacheKey, Trainer] = OrderedDict()

    def trainer(self, key: CacheKey, make: Callable[[], Trainer]) -> Trainer:
        """The one in-flight Trainer for `key`, made by make() when there is none: a second session asking
        for the same run gets the same trainer (a half-done one left by a stopped run is picked up too)."""
        with self._lock:
            trainer = self._training.get(key)
            if trainer is None:
                trainer = self._training[key] = make()
                while len(self._training) > MAX_TRAININGS_IN_FLIGHT:  # bounded: the oldest idle one goes
                    old = next((k for k, t in self._training.items() if not t.busy and k != key), None)
                    if old is None:
                        break
                    del self._training[old]
            return trainer

    def finish(self, key: CacheKey, trainer: Trainer) -> RunResult:
        """The finished run of `trainer`, evaluated and stored once (whoever gets here second reads it)."""
        with trainer.gate:
            done = self.get(key)
            if done is None:
                done = self.put(key, trainer.result())
        with self._lock:
            if self._training.get(key) is trainer:
                del self._training[key]
        return done

    def run_shared(
        self,
        key: CacheKey,
        make: Callable[[], Trainer],
        chunk: int,
        each: Callable[[Trainer], object] | None = None,
    ) -> RunResult:
        """Train the run `key` to the end, sharing the work with every session asking for it at the same
        time: whoever holds the trainer advances it `chunk` steps, the others wait meanwhile; `each(trainer)`
        after every chunk (a page draws its progress). 40 students pressing Train cost one training."""
        done = self.get(key)
        if done is not None:
            return done
        trainer = self.trainer(key, make)
        while not trainer.done:
            trainer.advance_shared(chunk)
            if each is not None:
                each(trainer)
        return self.finish(key, trainer)

    def in_flight(self, key: CacheKey) -> Trainer | None:
        """The half-done Trainer of `key`, if one is kept (a page draws its losses while it trains)."""
        with self._lock:
            return self._training.get(key)

    def train_queued(self, queue: WorkQueue, key: CacheKey, make: Callable[[], Trainer], chunk: int) -> Ticket:
        """A ticket for training the run `key` to the end in the server's heavy-work queue: one job per run, so
        40 students pressing Train cost one training and five different runs take turns instead of sharing two
        cores five ways (core/work_queue.py). The job advances the run's one Trainer `chunk` steps at a time;
        when its last waiter cancels it stops after the chunk and the half-done Trainer is kept for whoever asks
        next."""

        def work(control: Control) -> RunResult:
            done = self.get(key)
            if done is not None:
                return done
            trainer = self.trainer(key, make)
            while not trainer.done:
                control.progress(trainer.step, trainer.steps)
                trainer.advance_shared(chunk)
            return self.finish(key, trainer)

        return queue.submit(("why-heads", key), work, "training")

    def get(self, key: CacheKey) -> RunResult | None:
        with self._lock:
            return self._runs.get(key)

    def put(self, key: CacheKey, result: RunResult) -> RunResult:
        """Keep a finished run; returns the stored, frozen copy (what every session will read)."""
        if not result.complete:
            raise ValueError("only finished runs are cached")
        result = freeze(result)  # every session reads it: its tensors become read-only
        size = nbytes(result)
        with self._lock:
            self._runs[key] = result
            self._runs.move_to_end(key)
            self._sizes[key] = size
            while len(self._runs) > self.capacity or (len(self._runs) > 1 and self.nbytes > self.budget):
                old, _ = self._runs.popitem(last=False)
                self._sizes.pop(old, None)
        return result

    @property
    def nbytes(self) -> int:
        return sum(self._sizes.values())

    def __len__(self) -> int:
        return len(self._runs)
