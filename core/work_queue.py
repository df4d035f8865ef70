"""One bounded, server-wide queue for heavy work (live timings, trainings): at most `workers` jobs run at once,
the others wait in order, identical requests share one job, and a job nobody waits for any more is dropped.

Why: a class of 40 pressing "Time it" at once ran 40 timings side by side in 40 script threads; each took 20-40 s
and every other student's slider step waited behind them. Here the work runs in the queue's own worker threads,
one per free core (`default_workers`), so the process keeps a core for the ordinary steps; a waiting session only
sleeps and reads its place. Threads, not processes: the ordinary step is slowed about 2x while a timing thread
runs (the GIL is shared; torch releases it inside its kernels, and `Control.check` yields it at every step), far
below the 1 s budget, and a thread can report its progress and share a Trainer's state with the page without
pickling (benchmarks/README.md, "Heavy work").

The queue holds no Streamlit: pages wait on a Ticket (ui/work_queue.py draws the place and the Cancel button).
"""

from __future__ import annotations

import os
import threading
import time
from collections import deque
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from itertools import count
from typing import Any

MAX_WAITING = 200  # distinct jobs queued at once; a further request is refused (QueueFull), never kept
WORKERS_ENV = "ATTENTION_LAB_HEAVY_WORKERS"  # the server's worker count instead of default_workers() (1..64)


def cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not on Linux
        return os.cpu_count() or 1


def default_workers() -> int:
    """One worker per core but one (at least one): the last core stays for the pages' ordinary steps."""
    return max(1, cores() - 1)


class Cancelled(Exception):
    """Raised inside a job by Control.check() once nobody waits for its result any more."""


class QueueFull(Exception):
    """The queue already holds MAX_WAITING distinct jobs: the request is refused (the page says so)."""


@dataclass(frozen=True)
class Load:
    """What else ran while a job ran: a timing measured beside other work is noisier, and the page says so."""

    others_running: int  # other heavy jobs running at the same time (the most seen during the run)
    waiting: int  # jobs waiting in the queue when this one started
    load_average: float  # the machine's 1-minute load average when it finished (-1: unknown)
    cores: int


class Job:
    """One piece of heavy work, shared by every ticket with its key. State: queued -> running -> done | failed |
    cancelled. Read `result` once `finished` is set."""

    def __init__(self, key: Hashable, fn: Callable[[Control], Any], kind: str) -> None:
        self.key, self.fn, self.kind = key, fn, kind
        self.state = "queued"
        self.result: Any = None
        self.error: BaseException | None = None
        self.progress: tuple[int, int] = (0, 0)  # (done, total) as the work reports it
        self.detail: Any = None  # what the work says it is doing (e.g. the h being timed)
        self.load: Load | None = None
        self.queued_at = time.monotonic()
        self.started_at: float | None = None
        self.finished = threading.Event()
        self.tickets: set[int] = set()  # who still waits for it
        self.cancel = threading.Event()  # set when the last ticket is cancelled while it runs
        self._waiting_at_start = 0
        self._others_max = 0

    @property
    def done(self) -> bool:
        return self.state == "done"


class Control:
    """What a running job sees: `check()` between steps (raises Cancelled once nobody waits, and yields the GIL
    so a page's step is not held for a whole switch interval), `progress(done, total, detail)` for the page."""

    def __init__(self, job: Job) -> None:
        self._job = job

    @property
    def cancelled(self) -> bool:
        return self._job.cancel.is_set()

    def check(self) -> None:
        if self._job.cancel.is_set():
            raise Cancelled
        time.sleep(0)  # a waiting thread gets the GIL now, not at the end of the interpreter's switch interval

    def progress(self, done: int, total: int, detail: Any = None) -> None:
        self._job.progress, self._job.detail = (int(done), int(total)), detail
        self.check()


@dataclass(frozen=True)
class Ticket:
    """One session's claim on a job. Keep it (in the session's state) to read the place, the progress, the result."""

    job: Job
    token: int

    @property
    def key(self) -> Hashable:
        return self.job.key


class WorkQueue:
    """At most `workers` jobs at once, first come first served; thread-safe. Worker threads start on demand and
    live for the process (daemons), a few MB each."""

    def __init__(self, workers: int | None = None, max_waiting: int = MAX_WAITING) -> None:
        self.workers = default_workers() if workers is None else max(1, int(workers))
        self.max_waiting = max_waiting
        self._lock = threading.Condition()
        self._waiting: deque[Job] = deque()
        self._running: list[Job] = []
        self._active: dict[Hashable, Job] = {}  # queued or running, by key: the one job per key
        self._threads: list[threading.Thread] = []
        self._tokens = count(1)
        self.started = 0  # jobs run so far (a test counts the shared ones)

    # ------------------------------------------------------------ asking
    def submit(self, key: Hashable, fn: Callable[[Control], Any], kind: str = "") -> Ticket:
        """A ticket for the job `key`: the one already queued or running under that key, or a new one running
        fn(control) when a worker is free. QueueFull when MAX_WAITING jobs already wait."""
        with self._lock:
            job = self._active.get(key)
            if job is None:
                if len(self._waiting) >= self.max_waiting:
                    raise QueueFull
                job = self._active[key] = Job(key, fn, kind)
                self._waiting.append(job)
                self._start_worker()
                self._lock.notify()
            token = next(self._tokens)
            job.tickets.add(token)
            return Ticket(job, token)

    def cancel(self, ticket: Ticket) -> None:
        """This session no longer waits. The last ticket out drops a queued job, or stops a running one at its
        next check(); a job shared with others goes on for them."""
        with self._lock:
            job = ticket.job
            job.tickets.discard(ticket.token)
            if job.tickets or job.finished.is_set():
                return
            if job.state == "queued":
                self._waiting.remove(job)
                self._finish(job, "cancelled")
            else:
                job.cancel.set()

    def place(self, ticket: Ticket) -> int:
        """1 = the next to start, 2 = after one other, ...; 0 once it runs or has finished."""
        with self._lock:
            job = ticket.job
            if job.state != "queued":
                return 0
            for i, other in enumerate(self._waiting):
                if other is job:
                    return i + 1
            return 0

    def counts(self) -> tuple[int, int]:
        """(running, waiting) right now."""
        with self._lock:
            return len(self._running), len(self._waiting)

    def wait(self, ticket: Ticket, timeout: float | None = None) -> bool:
        """Block until the ticket's job has finished (True) or `timeout` passed (False)."""
        return ticket.job.finished.wait(timeout)

    # ------------------------------------------------------------ working
    def _start_worker(self) -> None:  # with the lock held
        self._threads = [t for t in self._threads if t.is_alive()]
        if len(self._threads) < self.workers:
            worker = threading.Thread(target=self._work, name=f"heavy-work-{len(self._threads)}", daemon=True)
            self._threads.append(worker)
            worker.start()

    def _work(self) -> None:
        while True:
            with self._lock:
                while not self._waiting:
                    self._lock.wait()
                job = self._waiting.popleft()
                job.state, job.started_at = "running", time.monotonic()
                job._waiting_at_start = len(self._waiting)
                self._running.append(job)
                for other in self._running:
                    other._others_max = max(other._others_max, len(self._running) - 1)
                self.started += 1
            try:
                result = job.fn(Control(job))
            except Cancelled:
                self._end(job, "cancelled")
            except BaseException as e:  # noqa: BLE001 - a failed job is reported to its waiters, the worker goes on
                job.error = e
                self._end(job, "failed")
            else:
                job.result = result
                self._end(job, "done")

    def _end(self, job: Job, state: str) -> None:
        try:
            load = os.getloadavg()[0]
        except OSError:
            load = -1.0
        job.load = Load(job._others_max, job._waiting_at_start, load, cores())
        with self._lock:
            if job in self._running:
                self._running.remove(job)
            self._finish(job, state)

    def _finish(self, job: Job, state: str) -> None:  # with the lock held
        job.state = state
        if self._active.get(job.key) is job:
            del self._active[job.key]
        job.finished.set()


_HEAVY: WorkQueue | None = None
_heavy_lock = threading.Lock()


def heavy_queue() -> WorkQueue:
    """The server's one queue for heavy work (a module global: no client message can clear it, unlike
    st.cache_resource)."""
    global _HEAVY
    with _heavy_lock:
        if _HEAVY is None:
            _HEAVY = WorkQueue(workers_from_env())
        return _HEAVY


def workers_from_env() -> int:
    """WORKERS_ENV when it holds a whole number from 1 to 64 (a host with cores to spare, a test), else
    default_workers()."""
    raw = os.environ.get(WORKERS_ENV, "").strip()
    return int(raw) if raw.isdigit() and 1 <= int(raw) <= 64 else default_workers()
