"""Class mode at the protocol level: a teacher and N students through scripts/serve_many.sh (nginx + P app processes).

Each student is what a phone's browser does on the wire (benchmarks/bench_sessions.py's approach, without the
drawing): one websocket to /_stcore/stream through nginx (its own sticky cookie), Streamlit's BackMsg rerun_script
for a page or a fragment. A student opens /class?class=CODE, submits the join form, and from then on does what the
browser does: it reruns every fragment the server asked to rerun itself, and does what the class poll's script does
(ui/classmode.py): fetches the class's version file through nginx every 0.5 s and sends the poll's trigger, with the
file's text, only when it changed, plus the slow fallback trigger every 10 s; so the teacher's view arrives as it
would in a browser. The teacher has two tabs: the projector (/class with the teacher
key: starts the class, asks questions, its counts rerun every second) and a laptop tab on the page being taught,
where it moves the seq_len slider every `--every` seconds (a new value each time).

Measured: the follow lag, from the teacher's slider message to the end of the student's run that drew the new
value (the seq_len slider's value the server sent; p95 target <= 2 s); for each of 3 choice questions, the votes
the database counted against the students who answered (sent a vote that was not refused); errors (exceptions
drawn, warnings, dropped connections, a follower that never arrived).
The load average, and the CPU seconds of the app processes, the database and this client, are printed beside.

The students' clients run on the server's machine here, where a real class's run on 200 other devices: with
`--nice N` this client lowers its own priority by N once the servers have started (they keep theirs), so it
takes the cores the servers leave. Its clock stays the measure: a client that waits for a core reads a reply
late and so counts a lag longer, never shorter, than the servers' share.

    .venv/bin/python benchmarks/bench_class.py --db postgresql --procs 4 --students 200
    .venv/bin/python benchmarks/bench_class.py --db sqlite --procs 1 --students 60
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import secrets
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack, contextmanager
from pathlib import Path
from urllib.parse import parse_qs, urlencode

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "tests"))

from backmsg import rerun_script

import i18n

P95_TARGET_S = 2.0
FRAGMENT_WAIT_S = 30.0
QUIET_S = 10.0
POLL_KEY, POLL_SECONDS = "cm_poll", 1.0  # ui/classmode.py's poll component and the teacher's interval
COUNTED = i18n.t("class.vote.counted", "en", given="").strip()
CLOSED = i18n.t("class.error.closed", "en").split(":")[0]
ALREADY = i18n.t("class.vote.already", "en", given="").split("{")[0].strip()[:20]


def widget_state(value: object) -> tuple[str, object]:
    """(WidgetState field, value) a value of this client travels as."""
    if value is True:
        return "trigger_value", True  # a button, a form's submit
    if isinstance(value, str):
        return "string_value", value  # a text box, a radio's option text
    if isinstance(value, tuple):
        return "double_array_value", value[0]  # a slider
    if isinstance(value, list):
        return "string_array_value", value[0]  # a select slider's option text
    if isinstance(value, float):
        return "double_value", value  # a number box
    return "int_value", value  # a radio's index


class Browser:
    """One tab on the wire: reruns of the page and of the fragments that rerun themselves, one at a time."""

    def __init__(self, base_url: str, page: str, name: str, stats: dict, route: str = ""):
        self.route = route or secrets.token_hex(8)  # nginx's sticky key (a browser's al_route cookie)
        self.base_url = base_url
        self.ws_url = base_url.replace("http://", "ws://") + "/_stcore/stream"
        self.page, self.name, self.stats = page, name, stats
        self.query = ""  # the address bar's query string, as the server last set it
        self.widget_ids: dict[str, str] = {}  # user key (or form id for a submit button) -> widget id
        self.page_hash = ""
        self.pages: dict[str, str] = {}  # page script hash -> url path
        self.auto: dict[str, float] = {}  # fragment id -> interval
        self.due: dict[str, float] = {}  # fragment id -> when to rerun it next
        # The class poll is a component whose script sets a trigger every second (ui/classmode.py): fragment id ->
        # the trigger's widget id, sent as the browser sends it (json_trigger_value, a list of events).
        self.triggers: dict[str, str] = {}
        self.ticks = 0
        # A student's poll script fetches the class's version file (its data: url, every, seconds, last) and sets the
        # trigger, with the file's text, only when the text changed; and with a count every `seconds` regardless.
        self.beacon: dict | None = None
        self.beacon_fragment = ""
        self.beacon_last: object = None
        self.fetcher: Fetcher | None = None
        self.alerts: list[str] = []
        self.seq_len: int | None = None  # the seq_len slider's value as the server last drew it
        self.lock = asyncio.Lock()
        self.ws = None
        self.on_finished = None  # called after each run with this Browser

    async def connect(self) -> None:
        import websockets

        self.ws = await websockets.connect(
            self.ws_url,
            subprotocols=["streamlit"],
            max_size=None,
            open_timeout=120,
            ping_interval=None,
            additional_headers={"Cookie": "al_route=" + self.route},
        )

    async def run(
        self, query: str | None = None, widgets: dict | None = None, fragment: str = "", tick: object = None
    ) -> None:
        async with self.lock:
            widget_states = [(self.widget_ids[key], *widget_state(value)) for key, value in (widgets or {}).items()]
            trigger = self.triggers.get(fragment) if fragment else None
            if trigger:  # the poll's tick: a widget interaction, as the browser sends it
                self.ticks += 1
                self.stats["ticks"] = self.stats.get("ticks", 0) + 1
                value = self.ticks if tick is None else tick
                widget_states.append((trigger, "json_trigger_value", json.dumps([{"event": "tick", "value": value}])))
            if not fragment:
                self.auto = {}  # a whole run says again which fragments rerun themselves
            message = rerun_script(
                self.page,
                self.query if query is None else query,
                widget_states,
                fragment_id=fragment,
                page_hash=self.page_hash,
                auto_rerun=not trigger,
                url=f"{self.base_url}/{self.page}",
            )
            self.alerts = []
            await self.ws.send(message)
            try:
                await self._read_until_finished(FRAGMENT_WAIT_S if fragment else 120)
            except TimeoutError:
                if not fragment:
                    raise
                # The server drops, unanswered, a rerun of a fragment a whole run has just removed (as the
                # browser, go on; counted, and that fragment is asked no more until a run announces it again).
                self.stats["dropped"] += 1
                self.auto.pop(fragment, None)
        if self.on_finished is not None:
            self.on_finished(self)

    async def _read_until_finished(self, timeout: float) -> None:
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        while True:
            data = await asyncio.wait_for(self.ws.recv(), timeout=timeout)
            fwd = ForwardMsg()
            fwd.ParseFromString(data)
            kind = fwd.WhichOneof("type")
            if kind == "delta" and fwd.delta.WhichOneof("type") == "new_element":
                self._element(fwd.delta.new_element, fwd.delta.fragment_id)
            elif kind == "page_info_changed":
                self.query = fwd.page_info_changed.query_string
            elif kind == "navigation":
                for p in fwd.navigation.app_pages:
                    self.pages[p.page_script_hash] = p.url_pathname
                self.page_hash = fwd.navigation.page_script_hash or self.page_hash
                self.page = self.pages.get(self.page_hash, self.page)
            elif kind == "auto_rerun":
                self.auto[fwd.auto_rerun.fragment_id] = fwd.auto_rerun.interval
            elif kind == "stop_auto_rerun":
                for f in fwd.stop_auto_rerun.fragment_ids:
                    self.auto.pop(f, None)
            elif kind == "script_finished":
                if fwd.script_finished == ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                    continue
                return

    def _element(self, el, fragment_id: str = "") -> None:
        kind = el.WhichOneof("type")
        if kind == "bidi_component" and el.bidi_component.id.endswith("-" + POLL_KEY) and fragment_id:
            data = json.loads(el.bidi_component.json or "{}")
            # the browser's component ticks while it is drawn: every `seconds` (a student's: the slow fallback)
            self.auto[fragment_id] = float(data.get("seconds") or POLL_SECONDS)
            self.due.pop(fragment_id, None)  # drawn again: the script starts again (its fallback timer too)
            # the component's trigger widget: Streamlit's internal-key prefix + the element id + "__events"
            self.triggers[fragment_id] = f"$$STREAMLIT_INTERNAL_KEY_{el.bidi_component.id}__events"
            if data.get("url"):
                self.beacon, self.beacon_fragment, self.beacon_last = data, fragment_id, data.get("last")
            return
        if kind == "alert":
            self.alerts.append(el.alert.body)
            if CLOSED in el.alert.body:  # a vote after the teacher moved on: refused, as it should be
                pass
            elif el.alert.format in (1, 2) and not el.alert.body.startswith(ALREADY):  # ERROR, WARNING
                self.stats["errors"].append(f"{self.name}: warning {el.alert.body[:120]!r}")
        elif kind == "exception":
            self.stats["errors"].append(f"{self.name}: exception {el.exception.message[:160]}")
        elif kind in ("button", "radio", "slider", "text_input", "number_input"):
            w = getattr(el, kind)
            if not w.id:
                return
            if kind == "button" and w.is_form_submitter:
                self.widget_ids["submit:" + w.form_id] = w.id
            else:
                self.widget_ids[w.id.rsplit("-", 1)[-1]] = w.id
            if kind == "slider" and w.id.endswith("-seq_len") and w.value:
                self.seq_len = int(w.value[0])

    async def follow(self, stop: asyncio.Event) -> None:
        """What the browser does between clicks: rerun each self-rerunning fragment at its interval."""
        while not stop.is_set():
            now = time.monotonic()
            for fragment, every in list(self.auto.items()):
                self.due.setdefault(fragment, now + every)
            for fragment in list(self.due):
                if fragment not in self.auto:
                    del self.due[fragment]
            if not self.due:
                await asyncio.sleep(0.2)
                continue
            fragment, at = min(self.due.items(), key=lambda kv: kv[1])
            if at > now:
                await asyncio.sleep(min(at - now, 0.5))
                continue
            self.due[fragment] = now + self.auto[fragment]
            await self.run(fragment=fragment)

    async def watch_beacon(self, stop: asyncio.Event) -> None:
        """What a student's poll script does besides its fallback tick: fetch the version file every `every` s
        (through nginx, with this browser's cookie) and tick, with the text, when it changed."""
        while not stop.is_set():
            data = self.beacon
            await asyncio.sleep(float(data["every"]) if data else 0.2)
            if not data or stop.is_set():
                continue
            if self.fetcher is None:
                self.fetcher = Fetcher(self.base_url, self.route)
            try:
                text = await self.fetcher.get(data["url"])
            except (OSError, asyncio.IncompleteReadError, ValueError):
                self.stats["fetch_errors"] = self.stats.get("fetch_errors", 0) + 1
                continue
            self.stats["fetches"] = self.stats.get("fetches", 0) + 1
            if text != self.beacon_last and self.beacon_fragment in self.triggers:
                self.beacon_last = text
                fragment = self.beacon_fragment
                if fragment in self.auto:
                    self.due[fragment] = time.monotonic() + self.auto[fragment]  # the script's fallback timer restarts
                await self.run(fragment=fragment, tick=text)

    async def close(self) -> None:
        if self.fetcher is not None:
            self.fetcher.close()
        if self.ws is not None:
            await self.ws.close()


class Fetcher:
    """A browser's GET of a small file on one kept-alive HTTP/1.1 connection (its cookie sent): the text, or
    "status N" as the poll script words a refusal."""

    def __init__(self, base_url: str, route: str) -> None:
        from urllib.parse import urlsplit

        parts = urlsplit(base_url)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.route = route
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def get(self, path: str) -> str:
        for attempt in (0, 1):
            try:
                if self.writer is None:
                    self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
                assert self.reader is not None
                self.writer.write(
                    f"GET /{path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\nCookie: al_route={self.route}\r\n"
                    "Cache-Control: no-store\r\n\r\n".encode()
                )
                head = (await self.reader.readuntil(b"\r\n\r\n")).decode("latin-1").lower()
                status = int(head.split(" ", 2)[1])
                length = int(head.split("content-length:", 1)[1].split("\r\n", 1)[0])
                body = await self.reader.readexactly(length)
                if "connection: close" in head:
                    self.close()
                return body.decode() if status == 200 else f"status {status}"
            except (OSError, asyncio.IncompleteReadError, IndexError):
                self.close()
                if attempt:
                    raise
        raise OSError("unreachable")

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


def route_of(base: str, path: str) -> str:
    """The sticky key nginx gives a browser that opens `path` (scripts/serve_many.sh: a teacher's link gets a
    teacher's key, and with 3 processes or more a process no student shares)."""
    import re
    import urllib.request

    with urllib.request.urlopen(base + path, timeout=120) as response:
        return re.search(r"al_route=([^;]+)", response.headers["Set-Cookie"])[1]


def link(query: str) -> dict[str, str]:
    return {k: v[-1] for k, v in parse_qs(query).items()}


async def student(i: int, base: str, code: str, shared: dict, stop: asyncio.Event) -> None:
    stats = shared["stats"]
    b = Browser(base, "class", f"student {i}", stats)
    try:
        await b.connect()
        await b.run(urlencode({"class": code, "lang": "en"}))
        await b.run(widgets={"cm_code": code, "submit:cm_join": True})
        if "member" not in link(b.query):
            stats["errors"].append(f"student {i}: not joined (query {b.query!r})")
            return
        stats["joined"] += 1
        voted: set[tuple[str, str]] = set()

        def finished(me: Browser) -> None:
            value = me.seq_len
            change = shared["changes"].get(value)
            if value is not None and change is not None and value not in seen:
                seen.add(value)
                stats["lags"].append(time.monotonic() - change)
                stats["lags_by"].setdefault(change, []).append(stats["lags"][-1])
            for key in me.widget_ids:
                if key.startswith("cm_in_") and tuple(key.split("_")[2:4]) not in voted:
                    pending.append(key)

        seen: set[int] = set()
        pending: list[str] = []
        b.on_finished = finished
        follower = asyncio.create_task(b.follow(stop))
        beacon = asyncio.create_task(b.watch_beacon(stop))
        while not stop.is_set():
            if not pending:
                await asyncio.sleep(0.2)
                continue
            key = pending.pop()
            qid_round = tuple(key.split("_")[2:4])
            if qid_round in voted:
                continue
            voted.add(qid_round)
            await asyncio.sleep(random.uniform(1.0, 6.0))  # reading the question
            if key not in b.widget_ids:
                continue
            form = "submit:cm_form_" + "_".join(qid_round)
            await b.run(widgets={key: "ABCD"[i % 4], form: True})  # a radio sends its option text
            # Answered: sent and not refused "closed" (the refusal stays on the student's screen until the next vote;
            # a run that a follow interrupted may not draw the "counted" line, and the vote is counted all the same).
            if any(CLOSED in a for a in b.alerts):
                stats["late_votes"] += 1
            else:
                stats["answered"][qid_round] = stats["answered"].get(qid_round, 0) + 1
            if any(a.startswith(COUNTED) for a in b.alerts):
                stats["told"][qid_round] = stats["told"].get(qid_round, 0) + 1
            elif os.environ.get("BENCH_CLASS_DEBUG"):
                member = link(b.query).get("member")
                print(f"student {i} member {member} {qid_round}: no 'counted' in {b.alerts}")
        await follower
        await beacon
        if shared["changes"] and not seen:
            stats["errors"].append(f"student {i}: never showed the teacher's setting")
        stats["missed"] += len(set(shared["changes"]) - seen)
    except Exception as e:  # noqa: BLE001 - every failure is counted, none stops the others
        stats["errors"].append(f"student {i}: {type(e).__name__}: {e}")
    finally:
        await b.close()


async def teacher(base: str, n: int, duration: float, every: float, shared: dict, store_url: str) -> None:
    from classroom.store import ClassStore, make_engine

    stats = shared["stats"]
    projector = Browser(base, "class", "projector", stats)
    await projector.connect()
    await projector.run(urlencode({"lang": "en"}))
    await projector.run(widgets={"cm_start_page": True})
    keys = link(projector.query)
    code, key = keys["class"], keys["teacher"]
    shared["code"] = code
    # The teacher opens their link (the address bar's, with the key) on the laptop, and reloads the projector with
    # it: both tabs then carry the teacher's route key, as the teacher's browser does after the link's first load.
    value = 3
    laptop_query = urlencode({"class": code, "teacher": key, "lang": "en", "seq_len": value})
    route = await asyncio.to_thread(route_of, base, "/heads?" + laptop_query)
    await projector.close()
    projector = Browser(base, "class", "projector", stats, route)
    await projector.connect()
    await projector.run(urlencode({"class": code, "teacher": key, "lang": "en"}))
    laptop = Browser(base, "heads", "teacher's laptop", stats, route)
    await laptop.connect()
    await laptop.run(laptop_query)
    stop = asyncio.Event()
    shared["stop"] = stop
    students = [asyncio.create_task(student(i, base, code, shared, stop)) for i in range(n)]
    proj_follow = asyncio.create_task(projector.follow(stop))
    t0 = time.monotonic()
    while stats["joined"] + len(stats["errors"]) < n and time.monotonic() - t0 < 300:
        await asyncio.sleep(0.5)
    stats["join_s"] = time.monotonic() - t0
    await asyncio.sleep(3)  # every student's first poll has brought the teacher's page
    # The class listening, nobody moving: what the polls alone cost the app processes.
    quiet0, quiet_t, ticks0, fetches0 = (
        shared["cpu"](),
        time.monotonic(),
        stats.get("ticks", 0),
        stats.get("fetches", 0),
    )
    await asyncio.sleep(QUIET_S)
    quiet_s = time.monotonic() - quiet_t
    shared["quiet"] = (shared["cpu"]()[0] - quiet0[0]) / quiet_s
    shared["quiet_polls"] = (stats.get("ticks", 0) - ticks0) / quiet_s  # the projector's included
    shared["quiet_fetches"] = (stats.get("fetches", 0) - fetches0) / quiet_s
    store = ClassStore(make_engine(store_url))
    cpu0, each0 = shared["cpu"](), shared["cpu_each"]()
    start = time.monotonic()
    asked: list[int] = []
    k = 0
    while time.monotonic() - start < duration:
        value = 4 + k % 28  # a new value each change (28 values before one repeats)
        shared["changes"].pop(value, None)
        shared["changes"][value] = time.monotonic()
        await laptop.run(widgets={"seq_len": (value,)})
        stats["publish"].append(time.monotonic() - shared["changes"][value])  # the teacher's run, publish included
        k += 1
        elapsed = time.monotonic() - start
        if len(asked) < 3 and elapsed > 2 + len(asked) * duration / 3.2:
            # What the browser sends: every widget of the form beside the click (4 options, "A" right).
            await projector.run(widgets={"cm_choice_n": 4.0, "cm_choice_right": "A", "cm_ask_choice": True})
            q = store.current_question(code)
            if q is None or q.id in asked:
                stats["errors"].append("the projector's ask made no question")
            else:
                asked.append(q.id)
                shared.setdefault("asked_with", set()).add(shared["changes"][value])
        await asyncio.sleep(max(0.0, every - (time.monotonic() - start - (k - 1) * every) % every))
    last = max(shared["changes"].values())
    await asyncio.sleep(max(0.0, 6 - (time.monotonic() - last)))  # the last change has time to arrive
    stop.set()
    await asyncio.gather(*students, proj_follow)
    shared["cpu_used"] = tuple(b - a for a, b in zip(cpu0, shared["cpu"]()))
    shared["cpu_each"] = [b - a for a, b in zip(each0, shared["cpu_each"]())]
    shared["seconds"] = time.monotonic() - start
    shared["votes"] = {qid: store.vote_count(code, qid, 1) for qid in asked}
    if os.environ.get("BENCH_CLASS_DEBUG"):
        for qid in asked:
            print(qid, store.current_question(code).spec, [(b.answer, b.count) for b in store.tally(code, qid, 1)])
    shared["asked"] = asked
    await projector.close()
    await laptop.close()


def proc_cpu(pids: list[int]) -> float:
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / tick
        except (OSError, IndexError):
            pass
    return total


def descendants(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                ppid = int((d / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(d.name))
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo += children.get(pid, [])
    return out


def postgres_pids() -> list[int]:
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                if (d / "comm").read_text().strip() == "postgres":
                    out.append(int(d.name))
            except OSError:
                pass
    return out


@contextmanager
def serve_many(procs: int, env: dict[str, str], root: Path = ROOT):
    """scripts/serve_many.sh of the tree `root` on a free loopback port; yields (base url, the app processes' pids,
    the run folder)."""
    from servers import free_port, wait_healthy

    port = free_port()
    run_dir = tempfile.mkdtemp(prefix="al-bench-class-")
    proc = subprocess.Popen(
        ["bash", "scripts/serve_many.sh", str(procs)],
        cwd=root,
        env={**os.environ, **env, "PORT": str(port), "ADDRESS": "127.0.0.1", "RUN_DIR": run_dir},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(url, proc, timeout=300, what="serve_many.sh", poll=0.5)
        apps = sorted(p for p in descendants(proc.pid) if "streamlit" in Path(f"/proc/{p}/cmdline").read_text())
        yield url, apps, run_dir
    finally:
        proc.send_signal(signal.SIGTERM)  # its trap stops nginx and every app process
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)


def warm_up(base: str) -> None:
    """One tab opens the taught page once per process (imports and caches are not a student's cost)."""

    async def go() -> None:
        stats = {"errors": [], "dropped": 0, "late_votes": 0}
        for _ in range(8):
            b = Browser(base, "heads", "warm", stats)
            await b.connect()
            await b.run(urlencode({"lang": "en", "seq_len": 3}))
            await b.close()

    asyncio.run(go())


def new_stats() -> dict:
    """What a run of students and a teacher counts (student(), teacher(), Browser)."""
    return {
        "errors": [],
        "lags": [],
        "lags_by": {},
        "joined": 0,
        "missed": 0,
        "told": {},
        "answered": {},
        "dropped": 0,
        "publish": [],
        "late_votes": 0,
    }


def run(db: str, procs: int, students: int, duration: float, every: float, py_spy: str = "", nice: int = 0) -> int:
    stats = new_stats()
    shared: dict = {"stats": stats, "changes": {}}
    with ExitStack() as stack:
        if db == "postgresql":
            from pg_server import postgres_server

            url = stack.enter_context(postgres_server())
            env = {"ATTENTION_LAB_DATABASE_URL": url}
        else:
            data = stack.enter_context(tempfile.TemporaryDirectory())
            url = f"sqlite:///{data}/classes.sqlite3"
            env = {"ATTENTION_LAB_DATA_DIR": data, "ATTENTION_LAB_DATABASE_URL": ""}
        base, apps, run_dir = stack.enter_context(serve_many(procs, env))
        warm_up(base)
        if nice:
            os.nice(nice)  # this process only: the servers started above keep their priority
        load0 = os.getloadavg()
        client0 = time.process_time()
        # The database's backends come and go with the pools' connections: looked up at each reading.
        shared["cpu_each"] = lambda: [proc_cpu([pid]) for pid in apps]  # the first: the teachers' (3 or more)
        shared["cpu"] = lambda: (proc_cpu(apps), proc_cpu(postgres_pids()) if db == "postgresql" else 0.0)
        spies = [
            subprocess.Popen(
                [
                    py_spy,
                    "record",
                    "-p",
                    str(pid),
                    "-d",
                    str(int(duration + 40)),
                    "-r",
                    "50",
                    "-f",
                    "raw",
                    "-o",
                    f"/tmp/bench_class-{db}-{pid}.txt",
                    "--nonblocking",
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            for pid in (apps if py_spy else [])
        ]
        asyncio.run(teacher(base, students, duration, every, shared, url))
        for spy in spies:
            spy.wait()
            print(f"  profile (py-spy collapsed stacks): /tmp/bench_class-{db}-{spy.args[3]}.txt")
        client = time.process_time() - client0
        load1 = os.getloadavg()
    lags = sorted(stats["lags"])
    p95 = statistics.quantiles(lags, n=20)[-1] if len(lags) > 1 else float("nan")
    app_cpu, db_cpu = shared["cpu_used"]
    print(f"\n{db}, {procs} app process(es) behind nginx, {students} students + a teacher (protocol level)")
    print(f"  joined {stats['joined']} of {students} in {stats['join_s']:.1f} s")
    print(f"  {len(shared['changes'])} seq_len changes over {shared['seconds']:.0f} s, {len(lags)} follows seen")
    if lags:
        print(
            f"  follow lag median / p95 / max {statistics.median(lags):.2f} / {p95:.2f} / {lags[-1]:.2f} s"
            f"   (target p95 <= {P95_TARGET_S:.0f} s); changes never shown by a student: {stats['missed']}"
        )
        by_change = []
        for at in sorted(stats["lags_by"]):
            each = sorted(stats["lags_by"][at])
            mark = "*" if at in shared.get("asked_with", ()) else ""
            by_change.append(f"{statistics.median(each):.1f}/{each[-1]:.1f}{mark}")
        print(f"  each change's median/max lag, s (* a question asked with it): {' '.join(by_change)}")
        pub = sorted(stats["publish"])
        print(
            f"  of which the teacher's own run until its view was published: median {statistics.median(pub):.2f} s,"
            f" max {pub[-1]:.2f} s"
        )
    exact = True
    for qid in shared["asked"]:
        told = sum(n for (q, _), n in stats["told"].items() if q == str(qid))
        answered = sum(n for (q, _), n in stats["answered"].items() if q == str(qid))
        counted = shared["votes"][qid]
        exact &= answered == counted
        print(
            f"  question {qid}: {counted} votes counted in the database, {answered} students answered (sent, not"
            f" refused), {told} of them saw 'counted' in that run"
        )
    print(f"  votes refused as the question had closed (the teacher asked the next one): {stats['late_votes']}")
    print(f"  errors {len(stats['errors'])}; fragment reruns the server dropped unanswered {stats['dropped']}")
    for e in stats["errors"][:10]:
        print("    " + e)
    print(
        f"  CPU during the class: app processes {app_cpu:.0f} s, database {db_cpu:.0f} s, this client {client:.0f} s"
        f" (of {shared['seconds']:.0f} s x 2 cores)"
    )
    print("  app CPU per process during the class: " + ", ".join(f"{c:.0f} s" for c in shared["cpu_each"]))
    polls = max(shared["quiet_polls"], 1e-9)  # the polls (trigger reruns) sent a second while nobody moved
    follows = len(lags)
    extra = app_cpu - shared["quiet"] * shared["seconds"]
    print(
        f"  while the class only listens: {shared['quiet_polls']:.1f} polls (fragment reruns) and"
        f" {shared['quiet_fetches']:.1f} version-file fetches a second; app CPU {shared['quiet']:.2f} s a second ="
        f" {shared['quiet'] / polls * 1000:.1f} ms a poll"
    )
    print(
        f"  app CPU beyond that during the class: {extra:.0f} s = {extra / max(follows, 1) * 1000:.0f} ms a follow"
        " (its rerun, the teacher's runs and the votes included)"
    )
    print(
        f"  during the class: {stats.get('ticks', 0)} polls sent, {stats.get('fetches', 0)} version-file fetches,"
        f" {stats.get('fetch_errors', 0)} failed"
    )
    loads = [" ".join(f"{x:.1f}" for x in load) for load in (load0, load1)]
    print(f"  load average at start {loads[0]}, at end {loads[1]}; this client's nice {os.nice(0)}")
    ok = bool(lags) and p95 <= P95_TARGET_S and exact and not stats["errors"] and len(shared["asked"]) == 3
    print("  targets met" if ok else "  targets MISSED")
    return 0 if ok else 1


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--db", choices=("sqlite", "postgresql"), default="sqlite")
    ap.add_argument("--procs", type=int, default=1)
    ap.add_argument("--students", type=int, default=60)
    ap.add_argument("--seconds", type=float, default=60, help="how long the teacher teaches")
    ap.add_argument("--every", type=float, default=5, help="seconds between the teacher's setting changes")
    ap.add_argument("--py-spy", default="", help="path of py-spy: profile every app process while the class runs")
    ap.add_argument("--nice", type=int, default=0, help="lower this client's priority by N (the servers' stays)")
    args = ap.parse_args()
    sys.exit(run(args.db, args.procs, args.students, args.seconds, args.every, args.py_spy, args.nice))


if __name__ == "__main__":
    main()
