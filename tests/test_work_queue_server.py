"""The heavy-work queue on a real server, at the protocol level (benchmarks/bench_sessions.py's client): three
students press "Time it" on /kv-cache at once, the later ones see their place live, one cancels, a fourth student's
slider step on another page is served while the timings wait, and the two left get their results (issue 30.4).
Ordering and texts are checked, never wall time."""

from __future__ import annotations

import asyncio
import sys

from conftest import ROOT

import i18n
from core.work_queue import WORKERS_ENV

sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_sessions import ProtocolSession

# A long timing (n 256 at d_model 512: several seconds of CPU), so the queue is seen to hold the others.
TIMING = {"d_model": 512, "num_heads": 16, "seq_len": 8, "lang": "en", "kv_tab": "timing", "kv_gen": 256}
WAITING = i18n.t("queue.waiting", "en", place=0, waiting=0, running=0, workers=0).split(":")[0]


async def scenario(url: str) -> dict:
    timers = [ProtocolSession(url, "kv-cache") for _ in range(3)]
    other = ProtocolSession(url, "heads")
    seen: dict[int, list[str]] = {i: [] for i in range(3)}
    for i, s in enumerate(timers):
        s.on_text = lambda text, i=i: seen[i].append(text) if text.startswith(WAITING) else None
        await s.connect()
        await s.rerun({**TIMING, "seed": 700 + i})
    await other.connect()
    other_query = {"d_model": 64, "num_heads": 4, "seq_len": 8, "lang": "en"}
    await other.rerun(other_query)
    order: list[str] = []

    async def click(i: int) -> None:
        await timers[i].send({**TIMING, "seed": 700 + i}, {"kv_time_run": True})
        await timers[i].finished()
        order.append(f"timer {i}")

    first = asyncio.create_task(click(0))
    await asyncio.sleep(0)  # timer 0 is sent first: it is the one that runs
    rest = [asyncio.create_task(click(i)) for i in (1, 2)]
    while not (seen[1] and seen[2]):  # both later ones are told their place
        await asyncio.sleep(0.05)
        assert not any(t.done() for t in rest), "a later timing finished before it was ever seen waiting"
    # A student elsewhere steps while the three timings are running or queued: served at once, not after them.
    other_query["num_heads"] = 8
    await other.rerun(other_query, {"num_heads": "8"})
    order.append("other step")
    # Timer 2 cancels: its waiting run stops for the click and the next run says so.
    await timers[2].send({**TIMING, "seed": 702}, {"kv_time_ticket_cancel": True})
    await rest[1]
    cancelled_texts = list(timers[2].texts)
    order.append("cancelled")
    await asyncio.gather(first, rest[0])
    results = {i: list(timers[i].metrics) for i in range(3)}
    for s in [*timers, other]:
        await s.close()
    return {"seen": seen, "order": order, "cancelled": cancelled_texts, "metrics": results}


def test_timings_wait_in_the_queue_show_their_place_can_cancel_and_never_hold_another_step(monkeypatch):
    from servers import Server

    monkeypatch.setenv(WORKERS_ENV, "1")  # one timing at a time, whatever this machine's core count
    server = Server(timeout=180)
    try:
        r = asyncio.run(asyncio.wait_for(scenario(server.url), timeout=600))
    finally:
        server.stop()
    # place shown live: the two later timings each saw "Waiting in the queue: you are number ..."
    assert r["seen"][1] and r["seen"][2]
    assert any("number 1" in x for x in r["seen"][1] + r["seen"][2])
    # the other student's step came back before any timing that was waiting, and before the cancel
    assert r["order"].index("other step") < r["order"].index("timer 1")
    # the cancel: the session is told, and gets no result
    assert i18n.t("queue.cancelled", "en") in r["cancelled"]
    want = i18n.t("kv.time.total_with", "en", n=256)
    assert want in r["metrics"][0] and want in r["metrics"][1]
    assert want not in r["metrics"][2]
