"""Class mode's store under a class: N students in P processes polling once a second (as ui/classmode's poll
does), a teacher changing the view every 5 s and asking 3 questions; each student votes twice per question (the
second must be refused as "already counted").

Store level, not protocol level: the students call classroom.ClassStore directly (one engine per process), so
this measures the database path of following and voting, not Streamlit's websocket. Prints the follow delay (from
the teacher's commit to a student's poll seeing it: median, p95, max), the votes counted per question against the
students who voted, and the errors.

    .venv/bin/python benchmarks/bench_class_store.py --db postgresql --students 200 --procs 4
    .venv/bin/python benchmarks/bench_class_store.py --db sqlite --students 60 --procs 1
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from classroom import limits
from classroom.store import ClassError, ClassStore, make_engine


def student_process(url: str, code: str, n: int, seconds: float, out) -> None:
    store = ClassStore(make_engine(url), limiter=limits.RateLimiter())
    delays: list[float] = []
    voted: dict[int, int] = {}
    errors: list[str] = []
    lock = threading.Lock()

    def student() -> None:
        try:
            me = store.join(code)
        except ClassError as e:
            with lock:
                errors.append(e.reason)
            return
        seen, answered = -1, set()
        end = time.time() + seconds
        time.sleep(hash(me.member_id) % 1000 / 1000)  # students do not poll in lockstep
        while time.time() < end:
            try:
                status = store.status(code)
                if status.view_version != seen:
                    version, view = store.view(code)
                    if seen >= 0 and "t" in view:
                        with lock:
                            delays.append(time.time() - float(view["t"]))
                    seen = version
                if status.question and status.state == "open" and status.question not in answered:
                    answered.add(status.question)
                    first = store.vote(code, me.member_id, status.question, status.round, '"A"', True)
                    again = store.vote(code, me.member_id, status.question, status.round, '"B"', False)
                    with lock:
                        if first:
                            voted[status.question] = voted.get(status.question, 0) + 1
                        if again:
                            errors.append("counted twice")
            except ClassError as e:
                with lock:
                    errors.append(e.reason)
            except Exception as e:  # noqa: BLE001  (counted and reported: a benchmark must not stop on one)
                with lock:
                    errors.append(type(e).__name__)
            time.sleep(1.0)

    threads = [threading.Thread(target=student) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    out.put((delays, voted, errors))


def run(url: str, students: int, procs: int, seconds: float) -> None:
    teacher = ClassStore(make_engine(url))
    code, key = teacher.create_class()
    out: mp.Queue = mp.Queue()
    per = [students // procs + (1 if i < students % procs else 0) for i in range(procs)]
    workers = [mp.Process(target=student_process, args=(url, code, n, seconds, out)) for n in per]
    for w in workers:
        w.start()
    time.sleep(5)  # everyone has joined
    start, asked, changes = time.time(), [], 0
    while time.time() - start < seconds - 10:
        elapsed = time.time() - start
        teacher.set_view(code, key, {"page": "walkthrough", "seq_len": str(4 + changes % 8), "t": repr(time.time())})
        changes += 1
        if len(asked) < 3 and elapsed > 3 + 8 * len(asked):
            q = teacher.ask(code, key, "choice", {"options": ["A", "B"]}, {"right": '"A"'})
            asked.append(q.id)
        time.sleep(5)
    results = [out.get() for _ in workers]
    for w in workers:
        w.join()
    delays = sorted(d for r in results for d in r[0])
    voted: dict[int, int] = {}
    for r in results:
        for q, n in r[1].items():
            voted[q] = voted.get(q, 0) + n
    errors = [e for r in results for e in r[2]]
    p95 = delays[int(0.95 * (len(delays) - 1))] if delays else float("nan")
    print(f"students {students} in {procs} process(es), {changes} view changes, {len(delays)} follows seen")
    if delays:
        print(f"follow delay: median {statistics.median(delays):.2f} s, p95 {p95:.2f} s, max {delays[-1]:.2f} s")
    for q in asked:
        counted = teacher.vote_count(code, q, 1)
        print(f"question {q}: {counted} votes counted, {voted.get(q, 0)} students told 'counted'")
    print(f"errors: {len(errors)} {sorted(set(errors))}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--db", choices=("sqlite", "postgresql"), default="sqlite")
    ap.add_argument("--students", type=int, default=60)
    ap.add_argument("--procs", type=int, default=1)
    ap.add_argument("--seconds", type=float, default=40)
    args = ap.parse_args()
    if args.db == "sqlite":
        with tempfile.TemporaryDirectory() as d:
            run(f"sqlite:///{d}/classes.sqlite3", args.students, args.procs, args.seconds)
    else:
        from pg_server import postgres_server

        with postgres_server() as url:
            run(url, args.students, args.procs, args.seconds)


if __name__ == "__main__":
    main()
