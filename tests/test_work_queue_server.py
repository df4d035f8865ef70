"""The heavy-work queue on a real server, at the protocol level (benchmarks/bench_sessions.py's client): three
students press "Time it" on /kv-cache at once, the later ones see their place live, one cancels, a fourth student's
slider step on another page is served while the timings wait, and the two left get their results (issue 30.4).
Ordering and texts are checked, never wall time."""

from __future__ import annotations

import asyncio
import sys

import pytest
from conftest import ROOT, run_async

import i18n
from core.work_queue import WORKERS_ENV

sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_sessions import ProtocolSession

# The first timing is long (n 256 at d_model 512: several seconds of CPU), so the queue is seen to hold the others
# while they click, wait, step and cancel. The two behind it only need to wait and then finish (or be cancelled
# before they run): a short timing shows that as well, without a second long one after the first.
TIMING = {"d_model": 512, "num_heads": 16, "seq_len": 8, "lang": "en", "kv_tab": "timing", "kv_gen": 256}
SHORT = {**TIMING, "d_model": 64, "kv_gen": 16}
WAITING = i18n.t("queue.waiting", "en", place=0, waiting=0, running=0, workers=0).split(":")[0]


async def until_result(s: ProtocolSession, query: dict, want: str) -> bool:
    """Do what the browser does while the place is shown: rerun the place's fragment at its interval, until the
    app has rerun with the result (or nothing waits any more)."""
    while want not in s.metrics and s.auto_reruns:
        fragment, every = next(iter(s.auto_reruns.items()))
        await asyncio.sleep(every)
        await s.send(query, fragment_id=fragment)
        await s.finished()
    return want in s.metrics


async def scenario(url: str) -> dict:
    timers = [ProtocolSession(url, "kv-cache") for _ in range(3)]
    queries = [{**(TIMING if i == 0 else SHORT), "seed": 700 + i} for i in range(3)]
    other = ProtocolSession(url, "heads")
    seen: dict[int, list[str]] = {i: [] for i in range(3)}
    for i, s in enumerate(timers):
        s.on_text = lambda text, i=i: seen[i].append(text) if text.startswith(WAITING) else None
        await s.connect()
        await s.rerun(queries[i])
    await other.connect()
    other_query = {"d_model": 64, "num_heads": 4, "seq_len": 8, "lang": "en"}
    await other.rerun(other_query)
    want = [i18n.t("kv.time.total_with", "en", n=q["kv_gen"]) for q in queries]
    order: list[str] = []

    async def result(i: int) -> None:
        await until_result(timers[i], queries[i], want[i])
        order.append(f"timer {i}")

    for i in range(3):  # one after the other: timer 0 runs, 1 and 2 wait; each click's run ends at once
        await timers[i].rerun(queries[i], {"kv_time_run": True})
    waiting = [asyncio.create_task(result(i)) for i in (0, 1)]
    # A student elsewhere steps while the timings run or wait: served at once, not after them.
    other_query["num_heads"] = 8
    await other.rerun(other_query, {"num_heads": "8"})
    order.append("other step")
    # Timer 2 cancels: the next run says so and draws the button again.
    await timers[2].rerun(queries[2], {"kv_time_ticket_cancel": True})
    cancelled = {"texts": list(timers[2].texts), "still_waiting": bool(timers[2].auto_reruns)}
    await asyncio.gather(*waiting)
    metrics = {i: list(timers[i].metrics) for i in range(3)}
    for s in [*timers, other]:
        await s.close()
    return {"seen": seen, "order": order, "cancelled": cancelled, "metrics": metrics, "want": want}


@pytest.mark.slow  # a real server and protocol-level clients
def test_timings_wait_in_the_queue_show_their_place_can_cancel_and_never_hold_another_step(monkeypatch):
    from servers import Server

    monkeypatch.setenv(WORKERS_ENV, "1")  # one timing at a time, whatever this machine's core count
    server = Server(timeout=180)
    try:
        r = run_async(asyncio.wait_for(scenario(server.url), timeout=600))
    finally:
        server.stop()
    # place shown: the two later timings were told where they stand, in order
    assert any("you are number 1 " in x for x in r["seen"][1]), r["seen"][1]
    assert any("you are number 2 " in x for x in r["seen"][2]), r["seen"][2]
    assert not r["seen"][0]  # the first one ran at once
    # the other student's step came back before the timing that had to wait
    assert r["order"].index("other step") < r["order"].index("timer 1")
    # the cancel: the session is told, waits no more, and gets no result
    assert i18n.t("queue.cancelled", "en") in r["cancelled"]["texts"] and not r["cancelled"]["still_waiting"]
    assert r["want"][0] in r["metrics"][0] and r["want"][1] in r["metrics"][1]
    assert r["want"][2] not in r["metrics"][2]
