"""Server script time of a step to a setting the server has never seen, on every view, beside the floor app.

A class drags sliders through values nobody opened yet, so no cache can answer. Each sample here sets a
new `seed` and a new `seq_len` (the seed is never reused in the process; seq_len alternates between two
values next to the view's own) and reruns the app under Streamlit's `AppTest`. The time is the script's
own run, taken by a timing hook around Streamlit's `exec_func_with_error_handling` (the call that runs
the page script, in AppTest as in the server), so AppTest's own bookkeeping is left out. The floor app
(`floor_app.py`: one slider) is stepped between the app's samples with the same hook: its median is the
floor of this run.

Views: every page; every section of a page with lazy tabs (heads_tab, masks_tab, real_tab, why_tab); every
walkthrough step (walk_view=step), its all-steps view (walk_view=all) and its presenter view
(walk_view=present); each at the defaults and at d_model=512&num_heads=16&seq_len=32.

    .venv/bin/python benchmarks/bench_script.py            # 7 samples a view, ~3-6 minutes on 2 busy cores
    .venv/bin/python benchmarks/bench_script.py --quick    # 3 samples a view
    .venv/bin/python benchmarks/bench_script.py --only masks --profile   # cProfile of the chosen views' steps

Exits 1 when a view misses its target (TARGETS_MS: the issue's 25 ms at the defaults, 40 ms at 512/16).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import itertools
import os
import platform
import pstats
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.chdir(ROOT)  # the app reads static/ and .streamlit/ relative to the repository

from lessons.settings import SEQ_LEN_MAX
from lessons.walkthrough import STEP_NAMES

APP = ROOT / "app.py"
FLOOR = ROOT / "benchmarks" / "floor_app.py"
LARGE = {"d_model": 512, "num_heads": 16, "seq_len": 32}
TARGETS_MS = {"default": 25.0, "large": 40.0}  # issue 18: a step to a new setting, per view

# The lazy sections of each page (the URL parameter and its ids, as pages/*.py declare them).
SECTIONS = {
    "heads": ("heads_tab", ("shapes", "heads", "cost", "timing", "slice", "single")),
    "masks": ("masks_tab", ("grid", "row", "full", "polarity")),
    "real-model": ("real_tab", ("grid", "head", "patterns", "link", "ablate", "core")),
    "why-heads": ("why_tab", ("results", "heads")),
    "kv-cache": ("kv_tab", ("sharing", "decode", "memory", "timing")),
    "softmax": ("soft_tab", ("scale", "max", "tiles")),
    "positions": ("pos_tab", ("shuffle", "add", "rope", "learned")),
}
PAGES = ("", "walkthrough", "heads", "masks", "real-model", "why-heads", "quiz", "kv-cache", "softmax", "positions")


def views(pages=PAGES) -> list[tuple[str, str, dict]]:
    """(name, page, extra URL parameters) of every view (bench_browser.py measures the same list)."""
    out = []
    for page in pages:
        if page == "walkthrough":
            out += [(f"/walkthrough step={s}", page, {"walk_view": "step", "walk_step": s}) for s in STEP_NAMES]
            out += [
                ("/walkthrough all steps", page, {"walk_view": "all"}),
                ("/walkthrough present", page, {"walk_view": "present"}),
            ]
        elif page in SECTIONS:
            key, ids = SECTIONS[page]
            out += [(f"/{page} {key}={i}", page, {key: i}) for i in ids]
        else:
            out.append((f"/{page}", page, {}))
    return out


# ---------------------------------------------------------------- one script cache, as a server has
def share_script_cache() -> None:
    """AppTest makes a new ScriptCache for every run (streamlit 1.67 testing/v1/app_test.py and
    local_script_runner.py), so every measured run would compile the page's source again (~5 ms for the
    walkthrough). A server keeps one ScriptCache for its whole life and compiles each page once. Give AppTest
    one shared cache, so the timing is the server's."""
    from streamlit.runtime.scriptrunner.script_cache import ScriptCache
    from streamlit.testing.v1 import app_test, local_script_runner

    shared = ScriptCache()
    app_test.ScriptCache = local_script_runner.ScriptCache = lambda: shared


# ---------------------------------------------------------------- the timing hook
class ScriptClock:
    """Times every run of a page script: wraps the function Streamlit's script runner calls to run it."""

    def __init__(self):
        from streamlit.runtime.scriptrunner import script_runner

        self.module = script_runner
        self.inner = script_runner.exec_func_with_error_handling
        self.last = float("nan")
        self.profile: cProfile.Profile | None = None

        def timed(func, ctx):
            start, cpu = time.perf_counter(), time.thread_time()
            if self.profile is not None:
                self.profile.enable()
            try:
                return self.inner(func, ctx)
            finally:
                if self.profile is not None:
                    self.profile.disable()
                self.last = (time.perf_counter() - start) * 1000
                # The script thread's own CPU time: torch runs on this thread (app.py sets one torch thread), so
                # on an idle machine it is the script time, and other processes' load barely changes it.
                self.last_cpu = (time.thread_time() - cpu) * 1000

        script_runner.exec_func_with_error_handling = timed

    def run(self, at) -> float:
        """at.run(); the script's own time in ms (raises if the page raised)."""
        self.last = float("nan")
        start = time.perf_counter()
        at.run()
        self.wall = (time.perf_counter() - start) * 1000  # at.run() as a whole (AppTest's own work too)
        if at.exception:
            raise RuntimeError(f"the page raised: {at.exception[0].message}")
        return self.last


class ServerLikeNavigation:
    """Make AppTest's later runs take the server's route.

    AppTest forgets before every run that the app uses st.navigation (it resets
    `PagesManager.uses_pages_directory`), so with a `pages/` folder every run would start as Streamlit's
    old pages-folder mode: the page file first, then ui.shell.page_context() runs app.py through runpy
    (parsed and compiled again each time). A server does that once per process, on the first deep link;
    afterwards it runs app.py and st.navigation picks the page. While `on`, the flag stays False, as in a
    server after that first request. (The first run of each AppTest goes the old way, to resolve the page.)
    """

    on = False

    def __init__(self):
        from streamlit.runtime.pages_manager import PagesManager

        inner = PagesManager.__init__

        def init(pm, *args, **kwargs):
            inner(pm, *args, **kwargs)
            if ServerLikeNavigation.on:
                PagesManager.uses_pages_directory = False

        PagesManager.__init__ = init


class FloorApp:
    def __init__(self, clock: ScriptClock):
        from streamlit.testing.v1 import AppTest

        self.clock = clock
        self.at = AppTest.from_file(str(FLOOR), default_timeout=60)
        clock.run(self.at)
        self.value = 50

    def step(self) -> float:
        self.value = 51 if self.value == 50 else 50
        self.at.slider(key="floor").set_value(self.value)
        return self.clock.run(self.at)


class AppView:
    """One open view; step() moves seed and seq_len to values this server process has never run."""

    seeds = itertools.count(10_000 + os.getpid() % 800 * 100)  # within SEED_MAX; new in this process

    def __init__(self, clock: ScriptClock, page: str, params: dict):
        from streamlit.testing.v1 import AppTest

        self.clock = clock
        self.at = AppTest.from_file(str(APP), default_timeout=120)
        self.at.query_params.update({"lang": "en", **{k: str(v) for k, v in params.items()}})
        if page:
            self.at.switch_page(f"pages/{page}.py")
        self.base_len = int(params.get("seq_len", 8))
        self.steps = 0
        self.page = page
        clock.run(self.at)
        self.page_hash = self.at._finished_page_script_hash  # the page st.navigation chose (private, checked)
        self.step()  # unmeasured: a page's first step imports and warms what is lazy

    def step(self) -> float:
        self.steps += 1
        seq_len = self.base_len - 1 if self.steps % 2 else self.base_len  # 31 <-> 32 (7 <-> 8)
        seed = next(self.seeds)
        self.at.number_input(key="seed").set_value(seed)
        self.at.slider(key="seq_len").set_value(min(seq_len, SEQ_LEN_MAX))
        ServerLikeNavigation.on = True
        try:
            ms = self.clock.run(self.at)
        finally:
            ServerLikeNavigation.on = False
        if self.page and self.at._finished_page_script_hash != self.page_hash:
            raise RuntimeError(f"the step ran another page than /{self.page}")
        got = (self.at.session_state["seed"], self.at.session_state["seq_len"])
        if got != (seed, min(seq_len, SEQ_LEN_MAX)):  # a value the widget refused would measure a cache hit
            raise RuntimeError(f"the step did not reach the app: seed, seq_len = {got}, sent {seed}, {seq_len}")
        return ms


def median(xs):
    return statistics.median(xs) if xs else float("nan")


def worker() -> int:
    """--worker: one JSON command a line on stdin, one JSON answer a line on stdout (benchmarks/ab_script.py
    drives two of these, one per source tree, step by step, so an A/B is measured in one run)."""
    import json

    import streamlit as st  # noqa: F401

    share_script_cache()
    clock = ScriptClock()
    ServerLikeNavigation()
    view = None
    out = sys.__stdout__
    sys.stdout = sys.stderr  # Streamlit's and the app's own prints stay off the answer channel
    for line in sys.stdin:
        cmd = json.loads(line)
        if cmd["cmd"] == "open":
            view = AppView(clock, cmd["page"], cmd["params"])
            answer = {"ok": True}
        elif cmd["cmd"] == "step":
            ms = view.step()
            answer = {"wall": ms, "cpu": clock.last_cpu}
        else:
            break
        out.write(json.dumps(answer) + "\n")
        out.flush()
    return 0


def main(argv=None) -> int:
    if argv is None and sys.argv[1:] == ["--worker"]:
        return worker()
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="3 samples a view")
    ap.add_argument("--samples", type=int, help="samples per view (default 7, quick 3)")
    ap.add_argument("--only", default="", help="only views whose name contains this text")
    ap.add_argument("--large-only", action="store_true", help="only d_model=512&num_heads=16&seq_len=32")
    ap.add_argument("--profile", action="store_true", help="print a cProfile of the measured app steps")
    args = ap.parse_args(argv)
    n = args.samples or (3 if args.quick else 7)

    import streamlit as st  # noqa: F401  (before the hook: the script runner module must exist)
    import torch

    share_script_cache()
    clock = ScriptClock()
    ServerLikeNavigation()
    print(
        f"date {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {os.cpu_count()} cores, python "
        f"{platform.python_version()}, torch {torch.__version__}, load average at start "
        f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}"
    )
    floor = FloorApp(clock)
    floor.step()
    settings = [("default", {})] if not args.large_only else []
    settings.append(("large", LARGE))
    rows = []
    failures = []
    profile = cProfile.Profile() if args.profile else None
    for group, base in settings:
        for name, page, extra in views():
            if args.only and args.only not in name:
                continue
            view = AppView(clock, page, {**base, **extra})
            times, floor_times, walls, cpus = [], [], [], []
            for _ in range(n):  # floor, app, floor, app, ...
                floor_times.append(floor.step())
                clock.profile = profile
                times.append(view.step())
                clock.profile = None
                walls.append(clock.wall)
                cpus.append(clock.last_cpu)
            label = f"{name} {'512/16/32' if group == 'large' else 'default'}"
            m, f = median(times), median(floor_times)
            ok = m <= TARGETS_MS[group]
            if not ok:
                failures.append(f"{label}: {m:.1f} ms (target {TARGETS_MS[group]:.0f} ms)")
            rows.append((label, m, max(times), f, ok, group, median(walls), median(cpus)))
            print(f"  {label}: {m:.1f} ms, cpu {median(cpus):.1f} ms (floor {f:.1f} ms)", flush=True)
    print(
        f"\nserver script time of a step to a new seed and seq_len (median of {n}; 'floor' is the floor app's"
        " median from the samples taken between them; hook: Streamlit's exec_func_with_error_handling)"
    )
    print(
        "'cpu': the script thread's CPU time (median), barely moved by other processes' load: compare runs by it;"
        " 'at.run': the whole AppTest run around the script (AppTest's own bookkeeping too); both shown, not judged"
    )
    print(f"{'view':48s} {'median':>8s} {'max':>8s} {'floor':>7s} {'target':>7s} {'cpu':>8s} {'at.run':>8s}")
    print("-" * 101)
    for label, m, mx, f, ok, group, wall, cpu in rows:
        print(
            f"{label:48s} {m:6.1f}ms {mx:6.1f}ms {f:5.1f}ms {'<=' + str(int(TARGETS_MS[group])):>7s} "
            f"{cpu:6.1f}ms {wall:6.1f}ms {'ok' if ok else 'MISSED'}"
        )
    print(f"\nload average at the end {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if profile is not None:
        out = io.StringIO()
        pstats.Stats(profile, stream=out).sort_stats("cumulative").print_stats(45)
        print(out.getvalue())
    print("\nmissed:" if failures else "\nall script-time targets met")
    for f in failures:
        print("  " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
