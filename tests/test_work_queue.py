"""The server's one queue for heavy work (core/work_queue.py), with real threads: the cap, the order, the place a
waiting session is shown, cancelling, identical requests sharing one run, and the trainings and timings that go
through it (issue 30.4). Every wait is on an event with a timeout, never a fixed sleep."""

from __future__ import annotations

import threading

import pytest

from core.work_queue import Cancelled, QueueFull, WorkQueue, default_workers

WAIT = 30.0  # seconds any single wait may take on a loaded machine before the test fails


class Gate:
    """A job that starts, says so, and holds its worker until released (or cancelled)."""

    def __init__(self, name: str, log: list, lock: threading.Lock, running: list[int]):
        self.name, self.log, self.lock, self.running = name, log, lock, running
        self.started, self.release = threading.Event(), threading.Event()

    def __call__(self, control):
        with self.lock:
            self.log.append(self.name)
            self.running[0] += 1
            self.running[1] = max(self.running[1], self.running[0])
        self.started.set()
        try:
            while not self.release.wait(0.01):
                control.check()
            return self.name
        finally:
            with self.lock:
                self.running[0] -= 1


def gates(names):
    log, lock, running = [], threading.Lock(), [0, 0]  # running: [now, most at once]
    return {n: Gate(n, log, lock, running) for n in names}, log, running


def test_at_most_workers_run_at_once_and_the_rest_wait_in_order_with_their_place():
    queue = WorkQueue(workers=2)
    g, log, running = gates("abcde")
    tickets = {n: queue.submit(n, g[n]) for n in "abcde"}
    assert g["a"].started.wait(WAIT) and g["b"].started.wait(WAIT)
    assert queue.counts() == (2, 3)
    assert [queue.place(tickets[n]) for n in "abcde"] == [0, 0, 1, 2, 3]  # 0: running; 1: next to start
    assert not g["c"].started.is_set()
    g["b"].release.set()
    assert g["c"].started.wait(WAIT)
    assert [queue.place(tickets[n]) for n in "cde"] == [0, 1, 2]  # everyone moved up one
    for n in "acde":
        g[n].release.set()
    for n in "abcde":
        assert queue.wait(tickets[n], WAIT)
        assert tickets[n].job.done and tickets[n].job.result == n
    assert log == list("abcde")  # first come, first served
    assert running[1] == 2  # the cap held
    assert queue.counts() == (0, 0)


def test_identical_requests_share_one_run():
    queue = WorkQueue(workers=1)
    calls = []
    release = threading.Event()

    def work(control):
        calls.append(1)
        release.wait(WAIT)
        return "measured"

    tickets = [queue.submit(("kv-timing", 512, 16, 4, 0, 256), work) for _ in range(40)]
    assert len({id(tk.job) for tk in tickets}) == 1 and len(tickets[0].job.tickets) == 40
    release.set()
    assert all(queue.wait(tk, WAIT) for tk in tickets)
    assert calls == [1] and queue.started == 1
    assert {tk.job.result for tk in tickets} == {"measured"}
    # Once finished, the same request is a new measurement (a timing is of "now").
    again = queue.submit(("kv-timing", 512, 16, 4, 0, 256), work)
    assert queue.wait(again, WAIT) and calls == [1, 1]


def test_a_queued_job_cancelled_by_its_only_waiter_never_runs():
    queue = WorkQueue(workers=1)
    g, log, _ = gates("ab")
    first, second = queue.submit("a", g["a"]), queue.submit("b", g["b"])
    assert g["a"].started.wait(WAIT)
    queue.cancel(second)
    assert second.job.finished.is_set() and second.job.state == "cancelled"
    assert queue.counts() == (1, 0)
    g["a"].release.set()
    assert queue.wait(first, WAIT) and first.job.done
    assert log == ["a"]


def test_a_running_job_stops_when_its_last_waiter_cancels_and_goes_on_while_one_waits():
    queue = WorkQueue(workers=1)
    g, _, _ = gates("ab")
    one, two = queue.submit("a", g["a"]), queue.submit("a", g["a"])  # two sessions share job "a"
    assert g["a"].started.wait(WAIT)
    queue.cancel(one)
    assert not one.job.cancel.is_set()  # the other session still waits: it goes on
    queue.cancel(two)
    assert queue.wait(two, WAIT) and two.job.state == "cancelled"
    # ... and the worker is free for the next job at once
    nxt = queue.submit("b", g["b"])
    assert g["b"].started.wait(WAIT)
    g["b"].release.set()
    assert queue.wait(nxt, WAIT) and nxt.job.done


def test_a_failing_job_is_reported_and_the_worker_goes_on():
    queue = WorkQueue(workers=1)

    def boom(control):
        raise ValueError("bad")

    bad = queue.submit("bad", boom)
    good = queue.submit("good", lambda control: 42)
    assert queue.wait(bad, WAIT) and bad.job.state == "failed" and isinstance(bad.job.error, ValueError)
    assert queue.wait(good, WAIT) and good.job.result == 42


def test_the_queue_is_bounded():
    queue = WorkQueue(workers=1, max_waiting=3)
    g, _, _ = gates("abcd")
    held = queue.submit("a", g["a"])
    assert g["a"].started.wait(WAIT)
    for n in "bcd":
        queue.submit(n, g[n])
    with pytest.raises(QueueFull):
        queue.submit("e", g["a"])
    queue.submit("b", g["b"])  # joining a job already queued is always possible
    for n in "abcd":
        g[n].release.set()
    assert queue.wait(held, WAIT)


def test_a_job_reports_progress_and_the_load_it_ran_beside():
    queue = WorkQueue(workers=2)
    g, _, _ = gates("ab")
    a = queue.submit("a", g["a"])
    assert g["a"].started.wait(WAIT)
    seen = threading.Event()

    def measured(control):
        control.progress(1, 4, "h=2")
        seen.set()
        g["b"].release.wait(WAIT)
        return "ok"

    b = queue.submit("b", measured)
    assert seen.wait(WAIT) and b.job.progress == (1, 4) and b.job.detail == "h=2"
    g["b"].release.set()
    assert queue.wait(b, WAIT)
    assert b.job.load is not None and b.job.load.others_running == 1  # "a" ran beside it: a noisy timing
    g["a"].release.set()
    assert queue.wait(a, WAIT) and a.job.load.others_running == 1


def test_the_default_keeps_a_core_for_the_pages():
    import os

    assert default_workers() == max(1, len(os.sched_getaffinity(0)) - 1)


def test_a_kv_timing_in_the_queue_stops_between_steps_once_cancelled():
    from lessons import kv_cache as K
    from lessons.settings import Settings

    queue = WorkQueue(workers=1)
    s = Settings(64, 4, 8, "causal", 0, "en")
    steps = threading.Event()

    def work(control):
        def check():
            steps.set()
            control.check()

        return K.measure_generation(s, 2, K.GEN_MAX, repeats=10, budget_s=1e9, check=check)

    ticket = queue.submit("kv", work)
    assert steps.wait(WAIT)
    queue.cancel(ticket)
    assert queue.wait(ticket, WAIT) and ticket.job.state == "cancelled"


def test_a_control_check_raises_once_cancelled():
    queue = WorkQueue(workers=1)
    raised = threading.Event()
    started = threading.Event()

    def work(control):
        started.set()
        try:
            while True:
                control.check()
        except Cancelled:
            raised.set()
            raise

    ticket = queue.submit("x", work)
    assert started.wait(WAIT)
    queue.cancel(ticket)
    assert raised.wait(WAIT) and queue.wait(ticket, WAIT)


def test_why_heads_trainings_go_through_the_queue_one_per_run():
    from lessons import why_heads as W

    queue = WorkQueue(workers=1)
    store = W.ResultStore()
    made = []

    def make(h):
        made.append(h)
        return W.Trainer(h, 7, 100)

    key1, key2 = W.cache_key(1, 7, 100), W.cache_key(2, 7, 100)
    a = store.train_queued(queue, key1, lambda: make(1), 10)
    b = store.train_queued(queue, key1, lambda: make(1), 10)  # a second student: the same job
    c = store.train_queued(queue, key2, lambda: make(2), 10)  # another run: waits its turn
    assert a.job is b.job and c.job is not a.job
    assert queue.wait(a, 120) and queue.wait(c, 120)
    assert a.job.done and c.job.done and made == [1, 2]
    assert store.get(key1) is a.job.result and store.get(key2) is c.job.result
    assert len(a.job.result.losses) == 100
    assert queue.started == 2


def test_a_stopped_training_keeps_its_trainer_for_whoever_asks_next():
    from lessons import why_heads as W

    queue = WorkQueue(workers=1)
    store = W.ResultStore()
    key = W.cache_key(4, 11, 400)
    ticket = store.train_queued(queue, key, lambda: W.Trainer(4, 11, 400), 5)
    while store.in_flight(key) is None or store.in_flight(key).step < 10:
        assert not ticket.job.finished.wait(0.01)
    queue.cancel(ticket)  # the only waiter stops it (the page's Stop)
    assert queue.wait(ticket, WAIT) and ticket.job.state == "cancelled"
    trainer = store.in_flight(key)
    assert trainer is not None and 10 <= trainer.step < 400
    again = store.train_queued(queue, key, lambda: W.Trainer(4, 11, 400), 5)
    assert queue.wait(again, 120) and again.job.done
    assert trainer.step == 400 and store.in_flight(key) is None  # the kept trainer went on, not a new one
    assert list(again.job.result.losses) == trainer.losses
