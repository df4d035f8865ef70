"""Class mode under hostile clients, at the protocol level: one app process with SQLite behind nginx
(scripts/serve_many.sh 1), bench_class.py's clients (its Browser, student() and helpers, not a copy).

Each case says what happened, with numbers:
- refusals: a wrong code (not a code, no such class), an ended class's code (by link, by the join form, by a
  student's own link), a forged teacher key (the teacher's link with one character changed) on the projector and on
  the taught page; and whether the forged tab can still ask a question or move the class (it sends the real
  projector's widget ids): the store must show no new question and no new view.
- nicknames: a 1 MB one, markup ones; the join's outcome and the server's time, and the elements that carry the
  nickname (inert text only), on the student's page and the projector.
- a vote for a closed question: the teacher asks question 1 then 2; a student whose screen still shows question 1's
  form sends it (refused, and said), and sends it again after the screen moved on (no form: nothing happens).
- a vote flood: one student (its own process, so the other students' clock is not its loop) resends its vote for
  the open question as fast as it can for `--flood` seconds, each send a rerun with the vote form's widgets, never
  waiting for a run to finish (a reader drains the replies), while `--students` others follow the teacher's
  seq_len changes; their follow lag and the app process's CPU against a baseline phase of the same length without
  the flood. The flooder's votes in the database must be 1.
- a restart mid-vote: one Streamlit process (no nginx: serve_many.sh stops all when one exits) SIGKILLed while the
  students vote, then started again; each student reopens their own link: every vote acknowledged ("counted") must
  be kept, the others vote again, none is counted twice.

    .venv/bin/python benchmarks/bench_class_faults.py --students 20 --flood 10
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from backmsg import rerun_script
from bench_class import (
    Browser,
    link,
    new_stats,
    proc_cpu,
    route_of,
    serve_many,
    student,
    warm_up,
    widget_state,
)

import i18n
from classroom import codes

TEXT_KINDS = ("text", "markdown", "html", "alert", "code", "caption")


def scratch() -> dict:
    """A Browser's stats for a hostile tab: its refusals are the point, not errors of the class."""
    return {"errors": [], "dropped": 0, "late_votes": 0}


class Reading(Browser):
    """A bench_class Browser that also keeps the text of every element of its last run: (kind, text)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.texts: list[tuple[str, str]] = []

    async def run(self, query=None, widgets=None, fragment="", tick=None) -> None:
        self.texts = []
        await super().run(query, widgets, fragment, tick)

    def _element(self, el, fragment_id: str = "") -> None:
        kind = el.WhichOneof("type")
        if kind in TEXT_KINDS:
            part = getattr(el, kind)
            self.texts.append((kind, getattr(part, "body", "") or getattr(part, "code_text", "")))
        super()._element(el, fragment_id)


async def tab(base: str, page: str, name: str, query: str, route: str = "") -> Reading:
    b = Reading(base, page, name, scratch(), route)
    await b.connect()
    await b.run(query)
    return b


async def timed(b: Browser, **kw) -> float:
    t0 = time.monotonic()
    await b.run(**kw)
    return time.monotonic() - t0


def inside(b: Reading, code: str) -> bool:
    """Whether the page shows this tab in the class (its link may still carry a member id the class refused)."""
    said = i18n.t("class.joined", "en", code=code)
    return any(said in text for _, text in b.texts)


def short(alerts: list[str]) -> str:
    return " | ".join(a[:110] for a in alerts) or "(no message)"


async def start_class(base: str) -> tuple[Reading, str, str, str]:
    """A projector that started a class, reopened with the teacher's link (the teacher's route): (tab, code, key,
    route), as bench_class.teacher() does."""
    p = await tab(base, "class", "projector", urlencode({"lang": "en"}))
    await p.run(widgets={"cm_start_page": True})
    keys = link(p.query)
    code, key = keys["class"], keys["teacher"]
    route = await asyncio.to_thread(route_of, base, "/class?" + urlencode({"class": code, "teacher": key}))
    await p.close()
    p = await tab(base, "class", "projector", urlencode({"class": code, "teacher": key, "lang": "en"}), route)
    return p, code, key, route


async def ask(projector: Browser, store, code: str) -> int | None:
    await projector.run(widgets={"cm_choice_n": 4.0, "cm_choice_right": "A", "cm_ask_choice": True})
    q = store.current_question(code)
    return None if q is None else q.id


async def join(base: str, code: str, nick: str | None = None, name: str = "student") -> tuple[Reading, float, bool]:
    b = await tab(base, "class", name, urlencode({"class": code, "lang": "en"}))
    widgets: dict[str, object] = {"cm_code": code, "submit:cm_join": True}
    if nick is not None:
        widgets["cm_nick"] = nick
    took = await timed(b, widgets=widgets)
    return b, took, inside(b, code)


def question_count(store, code: str) -> int:
    q = store.current_question(code)
    return 0 if q is None else q.number


async def refusals(base: str, store, code: str, key: str, projector: Browser, out: list[str]) -> None:
    """Case 3: wrong codes, an ended class, a forged teacher key (before any question is asked)."""
    out.append("3. wrong code / ended class / forged teacher key")
    absent = next(c for c in iter(codes.new_code, None) if c != code)
    for label, typed in (("not a code '0O1IL'", "0O1IL"), (f"no such class {absent!r}", absent)):
        b = await tab(base, "class", "wrong", urlencode({"lang": "en"}))
        took = await timed(b, widgets={"cm_code": typed, "submit:cm_join": True})
        joined = inside(b, typed)
        out.append(f"  join form, {label}: joined={joined} in {took:.2f} s; says: {short(b.alerts)}")
        await b.close()
    b = await tab(base, "class", "wrong", urlencode({"class": absent, "lang": "en"}))
    out.append(f"  link ?class={absent}: says: {short(b.alerts)}")
    await b.close()

    # An ended class: a second class, one student joined, then the teacher's End button.
    p2, code2, _, _ = await start_class(base)
    s2, _, ok = await join(base, code2)
    member2 = link(s2.query).get("member", "")
    await s2.close()
    if "cm_end" not in p2.widget_ids:
        out.append("  ended class: the projector showed no End button (NOT measured)")
    else:
        await p2.run(widgets={"cm_end": True})
        for label, query in (
            ("link ?class=CODE", {"class": code2}),
            ("its student's own link (?class&member)", {"class": code2, "member": member2}),
        ):
            b = await tab(base, "class", "late", urlencode({**query, "lang": "en"}))
            out.append(f"  ended class, {label}: joined={inside(b, code2)}; says: {short(b.alerts)}")
            await b.close()
        b = await tab(base, "class", "late", urlencode({"lang": "en"}))
        await b.run(widgets={"cm_code": code2, "submit:cm_join": True})
        out.append(f"  ended class, join form: joined={inside(b, code2)}; says: {short(b.alerts)}")
        await b.close()
    await p2.close()

    # A forged key: one character of the teacher's key changed.
    forged = ("B" if key[0] != "B" else "C") + key[1:]
    before_q, before_view = question_count(store, code), store.view(code)[0]
    q = urlencode({"class": code, "teacher": forged, "lang": "en"})
    f = await tab(base, "class", "forged", q)
    out.append(f"  forged key on the projector link: says: {short(f.alerts)}")
    out.append(f"    it was shown the projector's ask button: {'cm_ask_choice' in f.widget_ids}")
    # It sends what the real projector's ask sends, with the real projector's widget ids.
    for k in ("cm_choice_n", "cm_choice_right", "cm_ask_choice"):
        f.widget_ids[k] = projector.widget_ids[k]
    await f.run(widgets={"cm_choice_n": 4.0, "cm_choice_right": "A", "cm_ask_choice": True})
    after_q = question_count(store, code)
    out.append(
        f"    its ask with the real widget ids: questions in the store {before_q} -> {after_q}"
        f" ({'REFUSED' if after_q == before_q else 'NOT REFUSED: a question was asked'}); says: {short(f.alerts)}"
    )
    await f.close()
    lap = await tab(base, "heads", "forged laptop", urlencode({"class": code, "teacher": forged, "lang": "en"}))
    await lap.run(widgets={"seq_len": (17,)})
    after_view = store.view(code)[0]
    out.append(
        f"  forged key on the taught page, seq_len moved: view version {before_view} -> {after_view}"
        f" ({'not published' if after_view == before_view else 'PUBLISHED to the class'}); says: {short(lap.alerts)}"
    )
    await lap.close()


async def nicknames(base: str, store, code: str, projector: Reading, apps: list[int], out: list[str]) -> list:
    """Returns the tabs that joined (they vote later, for the record's check)."""
    out.append("2. nicknames")
    names = {
        "1 MB": "A" * 1_000_000,
        "<img src=x onerror=alert(1)>": "<img src=x onerror=alert(1)>",
        "<img src=x onerror=f()> (23)": "<img src=x onerror=f()>",
        "**bold**": "**bold**",
    }
    joined: list = []
    for label, nick in names.items():
        c0 = proc_cpu(apps)
        b, took, ok = await join(base, code, nick, "nick")
        used = proc_cpu(apps) - c0
        where = [kind for kind, text in b.texts if nick[:20] in text] if ok else []
        stored = store.member(code, link(b.query)["member"]).nickname if ok else None
        out.append(
            f"  {label}: joined={ok}, {took:.2f} s wall, {used:.2f} s app CPU; says: {short(b.alerts)}"
            + (f"; stored {stored!r}; on the student's page in elements {where}" if ok else "")
        )
        if ok:
            joined.append((b, stored))
        else:
            await b.close()
    await projector.run()
    hits = [kind for kind, text in projector.texts if "onerror" in text or "**bold**" in text]
    out.append(f"  the projector's elements (a whole run) carrying a nickname: {hits or 'none'}")
    return joined


async def record(store, code: str, key: str, q2: int, joined: list, out: list[str]) -> None:
    """The markup nicknames vote; the teacher's export (what the projector's download holds) has them as cells."""
    import csv
    import io

    for b, _ in joined:
        await b.run()  # the screen shows question 2's form
        await b.run(widgets={f"cm_in_{q2}_1": "C", f"submit:cm_form_{q2}_1": True})
        await b.close()
    rows = list(csv.DictReader(io.StringIO(store.export_csv(code, key))))
    cells = [r["nickname"] for r in rows if r["nickname"]]
    want = [stored for _, stored in joined]
    out.append(f"2b. after they voted, the export's (the projector's download) nicknames: {cells} ({cells == want})")


async def closed_vote(base: str, store, code: str, projector: Browser, out: list[str]) -> int:
    """Case 4: a vote for question 1 after question 2 was asked. Returns question 2's id."""
    out.append("4. a vote for a closed question")
    s, _, _ = await join(base, code, None, "late voter")
    q1 = await ask(projector, store, code)
    await s.run()  # the screen shows question 1's form
    form1 = f"cm_form_{q1}_1"
    q2 = await ask(projector, store, code)
    n1 = store.vote_count(code, q1, 1)
    took = await timed(s, widgets={f"cm_in_{q1}_1": "B", "submit:" + form1: True})
    out.append(
        f"  from a screen still on question 1: q1 votes {n1} -> {store.vote_count(code, q1, 1)} in {took:.2f} s;"
        f" says: {short(s.alerts)}"
    )
    await s.run()  # the screen moves on to question 2
    await s.run(widgets={f"cm_in_{q1}_1": "B", "submit:" + form1: True})
    out.append(
        f"  again after the screen moved on (question 1's ids replayed): q1 votes {store.vote_count(code, q1, 1)};"
        f" says: {short(s.alerts)}"
    )
    await s.close()
    return q2


# ------------------------------------------------------------------ the flooder (its own process)


async def flooder(base: str, code: str, seconds: float) -> None:
    """Join, find the open question's form, say "ready", wait for a line on stdin, then send the vote without
    pause for `seconds`; a reader drains and counts the replies. Prints one JSON line."""
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    b, _, ok = await join(base, code, None, "flooder")
    for _ in range(5):
        if any(k.startswith("cm_in_") for k in b.widget_ids):
            break
        await b.run()
    key = next((k for k in b.widget_ids if k.startswith("cm_in_")), None)
    if not ok or key is None:
        print(json.dumps({"error": f"joined={ok}, form={key}"}), flush=True)
        return
    form = "submit:cm_form_" + "_".join(key.split("_")[2:4])
    print(json.dumps({"ready": key, "member": link(b.query)["member"]}), flush=True)
    await asyncio.to_thread(sys.stdin.readline)
    states = [(b.widget_ids[k], *widget_state(v)) for k, v in ((key, "B"), (form, True))]
    msg = rerun_script(b.page, b.query, states, page_hash=b.page_hash, url=f"{b.base_url}/{b.page}")
    counts = {"finished": 0, "early": 0, "alerts": {}, "received": 0, "errors": 0}
    last = [time.monotonic()]

    async def reader() -> None:
        while True:
            data = await b.ws.recv()
            counts["received"] += 1
            last[0] = time.monotonic()
            fwd = ForwardMsg()
            fwd.ParseFromString(data)
            kind = fwd.WhichOneof("type")
            if kind == "script_finished":
                early = fwd.script_finished == ForwardMsg.FINISHED_EARLY_FOR_RERUN
                counts["early" if early else "finished"] += 1
            elif kind == "delta" and fwd.delta.WhichOneof("type") == "new_element":
                el = fwd.delta.new_element
                if el.WhichOneof("type") == "alert":
                    text = el.alert.body[:60]
                    counts["alerts"][text] = counts["alerts"].get(text, 0) + 1
                elif el.WhichOneof("type") == "exception":
                    counts["errors"] += 1

    task = asyncio.create_task(reader())
    sent, t0 = 0, time.monotonic()
    try:
        while time.monotonic() - t0 < seconds:
            await b.ws.send(msg)
            sent += 1
            if sent % 20 == 0:
                await asyncio.sleep(0)  # the reader's turn
    except Exception as e:  # noqa: BLE001 - a dropped connection is a result
        counts["send_error"] = f"{type(e).__name__}: {e}"
    took = time.monotonic() - t0
    while time.monotonic() - last[0] < 2.0 and time.monotonic() - t0 < seconds + 60:  # the server works it off
        await asyncio.sleep(0.2)
    task.cancel()
    t1 = time.monotonic()
    try:
        await b.run()  # a plain rerun: when does this tab get an answer again, and what does it show?
        counts["answer_after"], counts["shows"] = time.monotonic() - t1, b.alerts
    except Exception as e:  # noqa: BLE001
        counts["answer_after"], counts["shows"] = time.monotonic() - t1, [f"{type(e).__name__}: {e}"]
    print(json.dumps({"sent": sent, "seconds": took, **counts}), flush=True)
    await b.close()


# ------------------------------------------------------------------ case 1: the flood beside a following class


async def flood_case(base, store, code, key, route, students, flood_s, every, apps, out: list[str]) -> None:
    out.append(f"1. a vote flood: 1 flooder, {students} students following seq_len changes every {every:g} s")
    stats = new_stats()
    shared: dict = {"stats": stats, "changes": {}}
    laptop_query = urlencode({"class": code, "teacher": key, "lang": "en", "seq_len": 3})
    laptop = await tab(base, "heads", "teacher's laptop", laptop_query, route)
    stop = asyncio.Event()
    tasks = [asyncio.create_task(student(i, base, code, shared, stop)) for i in range(students)]
    flood = await asyncio.create_subprocess_exec(
        sys.executable,
        __file__,
        "--flooder",
        base,
        code,
        str(flood_s),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
    )
    ready = json.loads(await flood.stdout.readline() or b'{"error": "the flooder exited"}')
    t0 = time.monotonic()
    while stats["joined"] + len(stats["errors"]) < students and time.monotonic() - t0 < 120:
        await asyncio.sleep(0.5)
    await asyncio.sleep(8)  # every student has followed to the page and voted (1-6 s after seeing the question)
    value = [4]
    health_max: list[float] = []

    def health() -> float:
        import urllib.request

        t = time.monotonic()
        with urllib.request.urlopen(base + "/_stcore/health", timeout=120) as r:
            r.read()
        return time.monotonic() - t

    probes: list[float] = []

    async def probe(stop_probe: asyncio.Event) -> None:
        while not stop_probe.is_set():
            probes.append(await asyncio.to_thread(health))
            await asyncio.sleep(0.5)

    async def phase(seconds: float) -> tuple[list[float], float, float]:
        """seq_len changes for `seconds`: (their start times, app CPU seconds used, wall seconds)."""
        probes.clear()
        stop_probe = asyncio.Event()
        prober = asyncio.create_task(probe(stop_probe))
        starts, c0, w0 = [], proc_cpu(apps), time.monotonic()
        while time.monotonic() - w0 < seconds:
            v = value[0] = 4 + (value[0] - 3) % 28
            shared["changes"].pop(v, None)
            shared["changes"][v] = now = time.monotonic()
            starts.append(now)
            await laptop.run(widgets={"seq_len": (v,)})
            await asyncio.sleep(max(0.0, every - (time.monotonic() - now)))
        await asyncio.sleep(3)  # the last change arrives
        used, wall = proc_cpu(apps) - c0, time.monotonic() - w0
        stop_probe.set()
        await prober
        health_max.append(max(probes, default=float("nan")))
        return starts, used, wall

    base_starts, base_cpu, base_wall = await phase(flood_s)
    if "error" in ready:
        out.append(f"  the flooder did not start: {ready['error']}")
        flood_starts, flood_cpu, flood_wall, result = [], 0.0, 1.0, {}
    else:
        flood.stdin.write(b"go\n")
        await flood.stdin.drain()
        flood_starts, flood_cpu, flood_wall = await phase(flood_s)
        result = json.loads(await flood.stdout.readline() or b"{}")
    await flood.wait()
    stop.set()
    await asyncio.gather(*tasks)
    await laptop.close()

    def lags(starts):
        got = sorted(x for s in starts for x in stats["lags_by"].get(s, []))
        if len(got) < 2:
            return f"{len(got)} follows"
        return (
            f"{len(got)} follows, median {statistics.median(got):.2f} s, p95"
            f" {statistics.quantiles(got, n=20)[-1]:.2f} s, max {got[-1]:.2f} s"
        )

    out.append(f"  students joined {stats['joined']} of {students}")
    for name, starts, cpu, wall, slow in (
        ("baseline", base_starts, base_cpu, base_wall, health_max[0]),
        ("flood", flood_starts, flood_cpu, flood_wall, health_max[-1]),
    ):
        out.append(
            f"  {name}: {wall:.0f} s, {len(starts)} teacher's changes, follow lag {lags(starts)}; app CPU"
            f" {cpu / wall:.2f} s/s; /_stcore/health answered in {slow:.2f} s at worst"
        )
    if result:
        from sqlalchemy import func, select

        from classroom.schema import members, votes

        with store.engine.connect() as conn:
            mine = conn.execute(
                select(func.count())
                .select_from(votes.join(members, members.c.id == votes.c.member))
                .where(members.c.member_id == ready["member"])
            ).scalar_one()
        out.append(
            f"  flooder: {result['sent']} messages in {result['seconds']:.1f} s ="
            f" {result['sent'] / result['seconds']:.0f}/s; while sending it got {result['received']} messages back"
            f" ({result['finished']} runs finished, {result['early']} stopped early); its votes in the database: {mine}"
        )
        out.append(
            f"    its next plain rerun, sent when the flood stopped, was answered {result['answer_after']:.1f} s later,"
            f" showing: {short(result['shows'])}"
        )
        out.append(f"    messages it was shown (text: times): {result['alerts']}")
        if result.get("send_error"):
            out.append(f"    its connection: {result['send_error']}")
    out.append(f"  students' errors {len(stats['errors'])}; changes a student never showed {stats['missed']}")
    for e in stats["errors"][:5]:
        out.append("    " + e)


async def scenario(base, store, apps, students, flood_s, every, out: list[str]) -> None:
    projector, code, key, route = await start_class(base)
    await refusals(base, store, code, key, projector, out)
    joined = await nicknames(base, store, code, projector, apps, out)
    q2 = await closed_vote(base, store, code, projector, out)
    await record(store, code, key, q2, joined, out)
    await flood_case(base, store, code, key, route, students, flood_s, every, apps, out)
    await projector.close()


# ------------------------------------------------------------------ case 5: the app process killed mid-vote


async def restart_case(students: int, out: list[str]) -> None:
    """One Streamlit process (no nginx: serve_many.sh stops everything when a process exits), SQLite; `students`
    vote within ~2 s while the process is SIGKILLed 1 s in; a new process starts and each student reopens their own
    link: a vote acknowledged ("counted") must be there, none twice; the others vote again."""
    import random
    import signal

    from bench_class import COUNTED
    from servers import Server
    from sqlalchemy import func, select

    from classroom.schema import votes
    from classroom.store import ClassStore, make_engine

    out.append(f"5. the app process SIGKILLed while {students} students vote, then started again")
    data = tempfile.mkdtemp(prefix="al-faults-")
    os.environ.update({"ATTENTION_LAB_DATA_DIR": data, "ATTENTION_LAB_DATABASE_URL": ""})
    store = ClassStore(make_engine(f"sqlite:///{data}/classes.sqlite3"))
    srv = await asyncio.to_thread(Server)
    p = await tab(srv.url, "class", "projector", urlencode({"lang": "en"}))
    await p.run(widgets={"cm_start_page": True})
    keys = link(p.query)
    code = keys["class"]
    qid = await ask(p, store, code)
    tabs = [(await join(srv.url, code, None, f"voter {i}"))[0] for i in range(students)]
    acked: set[str] = set()
    failed = 0

    async def vote(b: Reading) -> None:
        nonlocal failed
        await asyncio.sleep(random.uniform(0.0, 2.0))
        try:
            await asyncio.wait_for(b.run(widgets={f"cm_in_{qid}_1": "B", f"submit:cm_form_{qid}_1": True}), 10)
            if any(a.startswith(COUNTED) for a in b.alerts):
                acked.add(link(b.query)["member"])
        except Exception:  # noqa: BLE001 - the process is gone: not acknowledged
            failed += 1

    members_of = [link(b.query)["member"] for b in tabs]
    voting = [asyncio.create_task(vote(b)) for b in tabs]
    await asyncio.sleep(1.0)
    srv.proc.send_signal(signal.SIGKILL)
    srv.proc.wait()
    await asyncio.gather(*voting)
    for b in tabs:
        try:
            await b.close()
        except Exception:  # noqa: BLE001
            pass
    before = store.vote_count(code, qid, 1)
    t0 = time.monotonic()
    srv = await asyncio.to_thread(Server)
    restart_s = time.monotonic() - t0
    shown_counted, revoted, lost = 0, 0, 0
    for member in members_of:
        b = await tab(srv.url, "class", "back", urlencode({"class": code, "member": member, "lang": "en"}))
        if f"cm_in_{qid}_1" in b.widget_ids:
            lost += member in acked
            await b.run(widgets={f"cm_in_{qid}_1": "B", f"submit:cm_form_{qid}_1": True})
            revoted += 1
        elif any(a.startswith(COUNTED) for a in b.alerts):
            shown_counted += 1
        await b.close()
    with store.engine.connect() as conn:
        most = conn.execute(
            select(func.count()).select_from(votes).where(votes.c.question_id == qid).group_by(votes.c.member)
        ).all()
    srv.stop()
    out.append(
        f"  before the kill: {len(acked)} votes acknowledged ('counted' seen), {failed} sends unanswered;"
        f" in the database after it: {before}"
    )
    out.append(
        f"  a new process answered {restart_s:.1f} s after it was started; each student's own link then showed"
        f" 'counted' for {shown_counted}, the form for {revoted} (of them acknowledged before: {lost})"
    )
    out.append(
        f"  after those re-voted: {store.vote_count(code, qid, 1)} votes for {students} students, at most"
        f" {max((n for (n,) in most), default=0)} per student"
    )


def run(students: int, flood_s: float, every: float) -> int:
    from classroom.store import ClassStore, make_engine

    out: list[str] = []
    with ExitStack() as stack:
        data = stack.enter_context(tempfile.TemporaryDirectory())
        url = f"sqlite:///{data}/classes.sqlite3"
        env = {"ATTENTION_LAB_DATA_DIR": data, "ATTENTION_LAB_DATABASE_URL": ""}
        base, apps, _ = stack.enter_context(serve_many(1, env))
        warm_up(base)
        load0 = os.getloadavg()
        t0 = time.monotonic()
        asyncio.run(scenario(base, ClassStore(make_engine(url)), apps, students, flood_s, every, out))
    asyncio.run(restart_case(students, out))
    took = time.monotonic() - t0
    load1 = os.getloadavg()
    print("\nclass mode under hostile clients: 1 app process, SQLite, behind nginx (protocol level)")
    print("\n".join(out))
    loads = [" ".join(f"{x:.1f}" for x in load) for load in (load0, load1)]
    print(f"  {took:.0f} s; load average at start {loads[0]}, at end {loads[1]}")
    return 0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--students", type=int, default=20)
    ap.add_argument("--flood", type=float, default=10, help="seconds of flood (and of the baseline before it)")
    ap.add_argument("--every", type=float, default=2.5, help="seconds between the teacher's seq_len changes")
    ap.add_argument("--flooder", nargs=3, metavar=("BASE", "CODE", "SECONDS"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.flooder:
        base, code, seconds = args.flooder
        asyncio.run(flooder(base, code, float(seconds)))
        return
    sys.exit(run(args.students, args.flood, args.every))


if __name__ == "__main__":
    main()
