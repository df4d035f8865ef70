"""What one follow costs the app: a teacher and a few students on one app process (scripts/serve_many.sh 1, SQLite),
the teacher moving seq_len on a page, each student's check run timed one at a time.

The students are bench_class.py's protocol-level clients (its Browser and Fetcher, not a copy): each joins on /class,
its first check brings the teacher's page, and then, after each move of the teacher's, it does what the browser's
poll script does: fetches the class's version file and sends the poll's trigger with the file's text. That run (the
check, `_polled`, and the rerun of the settings and page fragments it asks for) is one follow. Measured around it,
nothing else running in that process: the app process's CPU time (its process CPU clock, every thread, ns
resolution), the wall time until the run finished, and the elements and bytes the server sent. Every follow is
checked: the student's seq_len slider must show the teacher's value, and the student's link the teacher's step and
seed. `--move seed`, `--move d_model` or `--move step` (the walkthrough's Next / Previous) moves those instead.

With several trees (`--tree A --tree B`, or `--base COMMIT`: that commit, exported, against this tree) each tree
gets its own server and class, and the moves alternate between them (A B B A ...), so a busy moment slows both.

    .venv/bin/python benchmarks/follow_cost.py --page heads --moves 30
    .venv/bin/python benchmarks/follow_cost.py --base HEAD~3 --page walkthrough --moves 30
    # --py-spy /tmp/pyspy/bin/py-spy: a profile (--gil, collapsed stacks) of the first tree's app process
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_class import Browser, Fetcher, link, route_of, serve_many, warm_up

from lessons.settings import DEFAULTS
from lessons.walkthrough import STEP_NAMES

# A follow is checked on these keys of the link too (a link without one means its default, as the page reads it).
SHOWN = {"walk_step": STEP_NAMES[0], "seed": str(DEFAULTS["seed"]), "d_model": str(DEFAULTS["d_model"])}


def cpu_seconds(pid: int) -> float:
    """The process CPU clock of another process (Linux: clock id (~pid << 3) | CPUCLOCK_SCHED): all its threads,
    those that have ended included, in nanoseconds, where /proc/<pid>/stat counts 10 ms ticks."""
    return time.clock_gettime(((~pid) << 3) | 2)


class Counting(Browser):
    """A bench_class Browser that counts what the server sends it: new elements and bytes."""

    elements = 0
    received = 0

    async def connect(self) -> None:
        await super().connect()
        recv = self.ws.recv

        async def counted(*args, **kwargs):
            data = await recv(*args, **kwargs)
            self.received += len(data)
            return data

        self.ws.recv = counted

    def _element(self, el, fragment_id: str = "") -> None:
        self.elements += 1
        super()._element(el, fragment_id)


def export(commit: str) -> Path:
    """`commit` of this repository as a tree of its own (git archive: the repository is not touched), with this
    tree's virtual environment."""
    out = Path(tempfile.mkdtemp(prefix="al-follow-"))
    out.chmod(0o755)  # nginx's workers (nobody, when run as root) serve its static/class/
    archive = subprocess.run(["git", "archive", commit], cwd=ROOT, check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(out)], input=archive, check=True)
    (out / ".venv").symlink_to((ROOT / ".venv").resolve())
    return out


class Class:
    """One tree's server, its class, the teacher's laptop on `page` and `students` followers."""

    def __init__(self, tree: Path, name: str, page: str, students: int, stack: ExitStack, what: str = "seq_len"):
        self.tree, self.name, self.page, self.n, self.what = tree, name, page, students, what
        data = stack.enter_context(tempfile.TemporaryDirectory())
        env = {
            "ATTENTION_LAB_DATA_DIR": data,
            "ATTENTION_LAB_DATABASE_URL": f"sqlite:///{data}/classes.sqlite3",
        }
        self.base, apps, _ = stack.enter_context(serve_many(1, env, root=tree))
        self.pid = apps[0]
        warm_up(self.base)
        self.stats: dict = {"errors": [], "dropped": 0}
        self.samples: list[tuple[float, float, int, int]] = []  # (cpu s, wall s, elements, bytes) a follow
        self.value = 3

    async def start(self) -> None:
        projector = Counting(self.base, "class", "projector", self.stats)
        await projector.connect()
        await projector.run(urlencode({"lang": "en"}))
        await projector.run(widgets={"cm_start_page": True})
        keys = link(projector.query)
        self.code, key = keys["class"], keys["teacher"]
        await projector.close()
        query = urlencode({"class": self.code, "teacher": key, "lang": "en", "seq_len": self.value})
        route = await asyncio.to_thread(route_of, self.base, f"/{self.page}?{query}")
        self.laptop = Counting(self.base, self.page, "laptop", self.stats, route)
        await self.laptop.connect()
        await self.laptop.run(query)
        self.students = []
        for i in range(self.n):
            b = Counting(self.base, "class", f"student {i}", self.stats)
            await b.connect()
            await b.run(urlencode({"class": self.code, "lang": "en"}))
            await b.run(widgets={"cm_code": self.code, "submit:cm_join": True})
            if "member" not in link(b.query) or not b.beacon:
                raise RuntimeError(f"{self.name}: student {i} did not join ({b.query!r})")
            b.fetcher = Fetcher(self.base, b.route)
            await self.check(b)  # the first check brings the teacher's page
            if b.page != self.page or b.seq_len != self.value:
                raise RuntimeError(f"{self.name}: student {i} is on {b.page!r} at {b.seq_len}, not the teacher's")
            self.students.append(b)

    async def check(self, b: Counting) -> tuple[float, float, int, int] | None:
        """What the poll script does when the file changed: the trigger, with the file's text. The follow's cost."""
        text = await b.fetcher.get(b.beacon["url"])
        if text == b.beacon_last:
            return None
        b.beacon_last = text
        elements, received = b.elements, b.received
        cpu0, wall0 = cpu_seconds(self.pid), time.perf_counter()
        await b.run(fragment=b.beacon_fragment, tick=text)
        return cpu_seconds(self.pid) - cpu0, time.perf_counter() - wall0, b.elements - elements, b.received - received

    async def move(self, k: int) -> None:
        """The teacher moves seq_len to a value it has not shown for a while (`--move seed`: the seed; `--move
        d_model`: 32, 64, 128, 64, ...; `--move step`: the walkthrough's next step, back from the last); each student
        follows, one at a time."""
        if self.what == "step":
            button = "walk_next" if k % 18 < 9 else "walk_prev"
            await self.laptop.run(widgets={button: True})
        elif self.what == "d_model":  # 32, 64, 128 and back
            await self.laptop.run(widgets={"d_model": [("32", "64", "128", "64")[k % 4]]})
        elif self.what == "seed":
            await self.laptop.run(widgets={"seed": 1 + k % 1000})
        else:
            self.value = 4 + k % 28
            await self.laptop.run(widgets={"seq_len": (self.value,)})
        shown = {key: link(self.laptop.query).get(key, default) for key, default in SHOWN.items()}
        for b in self.students:
            sample = await self.check(b)
            mine = {key: link(b.query).get(key, default) for key, default in SHOWN.items()}
            if sample is None:
                self.stats["errors"].append(f"{b.name}: the version file did not change after move {k}")
            elif b.seq_len != self.value or mine != shown:
                self.stats["errors"].append(f"{b.name}: shows {b.seq_len} {mine}, the teacher {self.value} {shown}")
            else:
                self.samples.append(sample)

    async def close(self) -> None:
        for b in [self.laptop, *self.students]:
            await b.close()


def spread(values: list[float], scale: float = 1.0) -> str:
    q = statistics.quantiles(values, n=4) if len(values) > 1 else values * 3
    return f"{statistics.median(values) * scale:.1f} ({q[0] * scale:.1f}-{q[2] * scale:.1f})"


async def measure(classes: list[Class], moves: int, warm: int, measuring=lambda: None) -> None:
    for c in classes:
        await c.start()
    for k in range(warm + moves):
        if k == warm:
            measuring()
            for c in classes:
                c.samples.clear()
        order = classes if k % 2 == 0 else classes[::-1]  # A B, B A, ...
        for c in order:
            await c.move(k)
    for c in classes:
        await c.close()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tree", action="append", type=Path, default=[], help="a source tree (default: this one)")
    ap.add_argument("--base", default="", help="a commit of this repository, exported, as tree A (this tree B)")
    ap.add_argument("--page", default="heads")
    ap.add_argument(
        "--move", choices=("seq_len", "seed", "d_model", "step"), default="seq_len", help="what the teacher moves"
    )
    ap.add_argument("--students", type=int, default=5)
    ap.add_argument("--moves", type=int, default=30, help="the teacher's moves measured (each followed by all)")
    ap.add_argument("--warm", type=int, default=3, help="moves before the measured ones (not counted)")
    ap.add_argument("--py-spy", default="", help="path of py-spy: profile the first tree's app process")
    ap.add_argument("--rate", type=int, default=200, help="py-spy's samples a second")
    args = ap.parse_args()
    trees = ([export(args.base), ROOT] if args.base else []) + args.tree or [ROOT]
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, load average {load}"
        f"; /{args.page}, the teacher moves {args.move}, {args.students} students, {args.moves} moves"
        f" (+{args.warm} warm), one app process, SQLite"
    )
    with ExitStack() as stack:
        classes = [
            Class(tree, "AB"[i] if len(trees) > 1 else "", args.page, args.students, stack, args.move)
            for i, tree in enumerate(trees)
        ]
        spies: list[subprocess.Popen] = []
        out = f"/tmp/follow_cost-{classes[0].pid}.txt"

        def measuring() -> None:  # the profile covers the measured moves only
            if args.py_spy:
                command = [args.py_spy, "record", "-p", str(classes[0].pid), "--gil", "-r", str(args.rate), "-f", "raw"]
                spies.append(
                    subprocess.Popen(
                        [*command, "-o", out, "--nonblocking", "-d", "3600"],
                        stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL,
                    )
                )

        try:
            asyncio.run(measure(classes, args.moves, args.warm, measuring))
        finally:
            for spy in spies:
                spy.send_signal(2)  # SIGINT: py-spy writes what it has
                spy.wait(60)
                print(f"  profile: {out}")
        print(f"  load average at the end {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        for c in classes:
            cpu, wall, els, sent = zip(*c.samples) if c.samples else ([0.0], [0.0], [0], [0])
            print(
                f"  {c.name or 'tree'} {c.tree}: {len(c.samples)} follows; app CPU a follow median (IQR) "
                f"{spread(list(cpu), 1000)} ms, wall {spread(list(wall), 1000)} ms,"
                f" elements {statistics.median(els):.0f}, bytes {statistics.median(sent):.0f};"
                f" errors {len(c.stats['errors'])}"
            )
            for e in c.stats["errors"][:5]:
                print("    " + e)
        if len(classes) == 2 and classes[0].samples and classes[1].samples:
            a, b = (statistics.median(s[0] for s in c.samples) for c in classes)
            print(f"  B / A app CPU medians: {b / a:.2f}")
    return 0 if all(not c.stats["errors"] for c in classes) else 1


if __name__ == "__main__":
    sys.exit(main())
