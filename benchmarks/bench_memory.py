"""Server memory after a class has explored new settings and left (issue 24.4), and while it steps (issue 30.3).

Default run: one server; one warm session; RSS at the start. Then N students (protocol-level sessions, as in
bench_sessions.py), each opening the walkthrough, heads and masks pages with its *own* large settings
(d_model 256/512, T up to 32, a seed each: every run and figure is new to the shared caches), one after
another in small waves; they disconnect; RSS right after and `--wait` seconds later.

`--stepping PAGES` (issue 30.3): N students connected *at once*, spread over PAGES (comma-separated, each
`page` or `page?key=value`), all at d_model 512, 16 heads, T 32; each types a seed nobody has used every
0.5-1.5 x `--pause` s for `--duration` s (every step a new run: the most a class can make the server hold),
then all leave. RSS: warm (each page visited once), the peak while they step (sampled every 0.5 s), when
they leave, and `--wait` s later. Targets: peak <= warm + 400 MB, `--wait` s later <= warm + 100 MB.

    .venv/bin/python benchmarks/bench_memory.py --sessions 40 --wait 60
    .venv/bin/python benchmarks/bench_memory.py --report /tmp/memdebug   # + what holds it (benchmarks/memdebug.py)
    .venv/bin/python benchmarks/bench_memory.py --stepping "softmax?soft_tab=tiles" --duration 60 --wait 60
    .venv/bin/python benchmarks/bench_memory.py --stepping walkthrough,heads,masks,"softmax?soft_tab=tiles"
    .venv/bin/python benchmarks/bench_memory.py --clear-cache 10   # issue 30.1: one client's clear_cache messages

The server inherits this process's environment (e.g. MALLOC_ARENA_MAX=2 in front of the command).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import sys
import threading
import time
from pathlib import Path
from urllib.parse import parse_qsl

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "tests"))

from bench_sessions import ProtocolSession, load_average
from servers import Server

PAGES = ("walkthrough", "heads", "masks")


async def student(i: int, url: str, errors: list) -> None:
    query = {
        "d_model": (256, 512)[i % 2],
        "num_heads": (4, 8, 16, 32)[i % 4],
        "seq_len": 16 + i % 17,
        "seed": 1000 + i,
        "mask": ("none", "causal", "padding")[i % 3],
        "lang": ("en", "zh")[i % 2],
    }
    for page in PAGES:
        s = ProtocolSession(url, page)
        try:
            await s.connect()
            await s.rerun(query)
        except Exception as e:  # noqa: BLE001
            errors.append(f"{i} {page}: {type(e).__name__}: {e}")
        finally:
            await s.close()


async def main_async(server, n: int, wave: int) -> list:
    errors: list = []
    warm = ProtocolSession(server.url, "heads")
    await warm.connect()
    await warm.rerun({"lang": "en"})
    await warm.close()
    for start in range(0, n, wave):
        await asyncio.gather(*(student(i, server.url, errors) for i in range(start, min(n, start + wave))))
    return errors


def ask_report(folder: Path | None, label: str) -> None:
    """Have the server write a benchmarks/memdebug.py report and print its summary."""
    if folder is None:
        return
    ask = folder / "ask"
    before = set(folder.glob("report-*.json"))
    ask.write_text(label)
    deadline = time.monotonic() + 300
    while ask.exists() and time.monotonic() < deadline:
        time.sleep(0.5)
    new = sorted(set(folder.glob("report-*.json")) - before, key=lambda p: p.stat().st_mtime)
    if not new:
        print(f"[{label}] no report")
        return
    data = json.loads(new[-1].read_text())
    new[-1].rename(folder / f"{label}.json")
    buf = data.get("buffers", {})
    print(
        f"[{label}] RSS {data['rss_MB']:.0f} MB, heap {data.get('heap')}, sessions {data.get('sessions')}, "
        f"shared cache {data.get('shared_cache')}, gc objects {data.get('gc_objects')}, "
        f"torch {buf.get('torch_MB', 0):.0f} MB, numpy {buf.get('numpy_MB', 0):.0f} MB"
    )
    print(
        "    reachable from (MB):",
        {k: (round(v, 1) if isinstance(v, float) else v) for k, v in (data.get("roots_MB") or {}).items()},
    )
    for who, (mb, n) in list(buf.get("by_owner_MB", {}).items())[:10]:
        print(f"    {mb:8.1f} MB in {n:4d}: {who[:300]}")


# ---------------------------------------------------------------- a class stepping at once (issue 30.3)
LARGE = {"d_model": 512, "num_heads": 16, "seq_len": 32, "lang": "en"}
MAX_PEAK_GROWTH_MB, MAX_LEFT_OVER_MB = 400, 100  # issue 30.3's targets, over the warm server


def page_spec(spec: str) -> tuple[str, dict]:
    page, _, query = spec.partition("?")
    return page, dict(parse_qsl(query))


async def stepper(i: int, url: str, spec: str, duration: float, pause: float, r: dict, gate: asyncio.Event):
    page, extra = page_spec(spec)
    query = {**LARGE, **extra, "seed": (i * 1000) % 100_000}
    s = ProtocolSession(url, page)
    try:
        await s.connect()
        await s.rerun(query)
        r["connected"] += 1
        await gate.wait()
        await asyncio.sleep(random.uniform(0, pause))
        end = time.monotonic() + duration
        k = 0
        while time.monotonic() < end:
            k += 1
            query["seed"] = (i * 1000 + k) % 100_000  # a seed nobody has used (seeds go to 99,999): a new run
            r["steps"].append(await s.rerun(query, {"seed": float(query["seed"])}))
            await asyncio.sleep(random.uniform(0.5 * pause, 1.5 * pause))
    except Exception as e:  # noqa: BLE001 - every failure is reported, none stops the others
        r["errors"].append(f"{i} {spec}: {type(e).__name__}: {e}")
    finally:
        r["finished"] += 1
        await r["leave"].wait()  # everyone leaves together, once the RSS at the end of the load is read
        await s.close()


async def stepping_class(server, specs: list[str], n: int, duration: float, pause: float) -> dict:
    r: dict = {"connected": 0, "finished": 0, "steps": [], "errors": [], "leave": asyncio.Event()}
    gate = asyncio.Event()
    tasks = [
        asyncio.create_task(stepper(i, server.url, specs[i % len(specs)], duration, pause, r, gate)) for i in range(n)
    ]
    while r["connected"] + r["finished"] < n:
        await asyncio.sleep(0.1)
    r["connected_rss"] = server.rss_kb()
    gate.set()
    t0 = time.perf_counter()
    while r["finished"] < n:
        await asyncio.sleep(0.2)
    r["seconds"] = time.perf_counter() - t0
    r["end_rss"] = server.rss_kb()
    r["leave"].set()
    await asyncio.gather(*tasks)
    return r


def run_stepping(specs: list[str], n: int, duration: float, pause: float, wait: float, report: Path | None) -> list:
    """Start a server, warm every page, then the stepping class; print the RSS figures; the missed targets."""
    server = Server(timeout=120)
    peak = [0]
    sampling = threading.Event()

    def sample() -> None:
        while not sampling.is_set():
            try:
                peak[0] = max(peak[0], server.rss_kb())
            except (OSError, RuntimeError):
                return
            time.sleep(0.5)

    try:
        start_rss = server.rss_kb()
        for spec in specs:  # imports, the model, each page's first run: not what a class adds
            page, extra = page_spec(spec)
            asyncio.run(_visit(server.url, page, {**LARGE, **extra}))
        time.sleep(2)
        warm_rss = server.rss_kb()
        ask_report(report, "warm")
        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        r = asyncio.run(stepping_class(server, specs, n, duration, pause))
        sampling.set()
        sampler.join()
        ask_report(report, "left")
        time.sleep(wait)
        later_rss = server.rss_kb()
        ask_report(report, "later")
    finally:
        sampling.set()
        server.stop()
    steps = sorted(r["steps"])
    mb = lambda kb: kb / 1024  # noqa: E731
    print(
        f"\n{n} students at once on {', '.join(specs)} at 512/16/32, a new seed every ~{pause:.1f} s for"
        f" {duration:.0f} s (protocol level)"
    )
    if steps:
        p95 = statistics.quantiles(steps, n=20)[-1] if len(steps) > 1 else steps[0]
        print(
            f"  steps {len(steps)}, median {statistics.median(steps) * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms,"
            f" max {steps[-1] * 1000:.0f} ms; errors {len(r['errors'])} {r['errors'][:3]}"
        )
    growth, left = mb(max(peak[0], r["end_rss"]) - warm_rss), mb(later_rss - warm_rss)
    print(
        f"  RSS MB: started {mb(start_rss):.0f}, warm {mb(warm_rss):.0f}, {n} connected {mb(r['connected_rss']):.0f},"
        f" peak {mb(peak[0]):.0f}, when they left {mb(r['end_rss']):.0f}, {wait:.0f} s later {mb(later_rss):.0f}"
    )
    print(
        f"  growth over warm: peak +{growth:.0f} MB (target <= {MAX_PEAK_GROWTH_MB}),"
        f" {wait:.0f} s after they left {left:+.0f} MB (target <= {MAX_LEFT_OVER_MB}); load {load_average()}"
    )
    missed = [f"{len(r['errors'])} errors"] if r["errors"] else []
    if growth > MAX_PEAK_GROWTH_MB:
        missed.append(f"peak growth {growth:.0f} MB > {MAX_PEAK_GROWTH_MB}")
    if left > MAX_LEFT_OVER_MB:
        missed.append(f"{left:.0f} MB left {wait:.0f} s after the class > {MAX_LEFT_OVER_MB}")
    return missed


async def _visit(url: str, page: str, query: dict) -> None:
    s = ProtocolSession(url, page)
    await s.connect()
    try:
        await s.rerun(query)
    finally:
        await s.close()


# ---------------------------------------------------------------- one client's clear_cache (issue 30.1)
async def clear_cache_attack(url: str, times: int) -> None:
    """One client sends Streamlit's clear_cache back message `times` times, each followed by a visit to
    /real-model (which loaded the pretrained model again whenever the message got through)."""
    from streamlit.proto.BackMsg_pb2 import BackMsg

    s = ProtocolSession(url, "")
    await s.connect()
    try:
        await s.rerun({"lang": "en"})
        for _ in range(times):
            await s.ws.send(BackMsg(clear_cache=True).SerializeToString())
            await _visit(url, "real-model", {"lang": "en"})
    finally:
        await s.close()


def run_clear_cache(times: int, wait: float) -> None:
    server = Server(timeout=120)
    try:
        asyncio.run(_visit(server.url, "real-model", {"lang": "en"}))
        time.sleep(2)
        before = server.rss_kb()
        t0 = time.perf_counter()
        asyncio.run(clear_cache_attack(server.url, times))
        seconds = time.perf_counter() - t0
        after = server.rss_kb()
        time.sleep(wait)
        later = server.rss_kb()
    finally:
        server.stop()
    print(
        f"\n{times} clear_cache messages from one client in {seconds:.0f} s, each followed by a visit to /real-model:"
        f" RSS {before / 1024:.0f} -> {after / 1024:.0f} MB, {wait:.0f} s later {later / 1024:.0f} MB;"
        f" load {load_average()}"
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sessions", type=int, default=40)
    ap.add_argument("--wave", type=int, default=4)
    ap.add_argument("--wait", type=float, default=60)
    ap.add_argument(
        "--report",
        type=Path,
        default=None,
        help="folder for benchmarks/memdebug.py reports (sets ATTENTION_LAB_MEMDEBUG for the server)",
    )
    ap.add_argument("--stepping", help="pages the class steps on at once (comma-separated, page?key=value)")
    ap.add_argument("--duration", type=float, default=60, help="--stepping: seconds of steps")
    ap.add_argument("--pause", type=float, default=1.0, help="--stepping: seconds between one student's steps")
    ap.add_argument("--clear-cache", type=int, default=0, help="one client's clear_cache messages (issue 30.1)")
    args = ap.parse_args()
    if args.clear_cache:
        run_clear_cache(args.clear_cache, args.wait)
        return
    if args.report:
        args.report.mkdir(parents=True, exist_ok=True)
        os.environ["ATTENTION_LAB_MEMDEBUG"] = str(args.report)
    print("MALLOC_ARENA_MAX =", os.environ.get("MALLOC_ARENA_MAX", "(unset)"))
    if args.stepping:
        specs = [s.strip() for s in args.stepping.split(",") if s.strip()]
        missed = run_stepping(specs, args.sessions, args.duration, args.pause, args.wait, args.report)
        print("missed: " + "; ".join(missed) if missed else "memory targets met")
        sys.exit(1 if missed else 0)
    server = Server()
    try:
        start_rss = server.rss_kb()
        t0 = time.perf_counter()
        errors = asyncio.run(main_async(server, 1, 1))
        warm_rss = server.rss_kb()
        ask_report(args.report, "warm")
        errors += asyncio.run(main_async(server, args.sessions, args.wave))
        load_s = time.perf_counter() - t0
        end_rss = server.rss_kb()
        ask_report(args.report, "after")
        samples = []
        for _ in range(int(args.wait // 30)):
            time.sleep(30)
            samples.append(server.rss_kb() // 1024)
        time.sleep(args.wait % 30)
        later_rss = server.rss_kb()
        ask_report(args.report, "later")
        print("every 30 s (MB):", samples)
        print(f"sessions {args.sessions} in {load_s:.0f} s, errors {len(errors)} {errors[:3]}")
        print(
            f"RSS MB: started {start_rss / 1024:.0f}, warm {warm_rss / 1024:.0f}, after load {end_rss / 1024:.0f}, "
            f"{args.wait:.0f} s later {later_rss / 1024:.0f} (growth over warm {(later_rss - warm_rss) / 1024:.0f})"
        )
    finally:
        server.stop()


if __name__ == "__main__":
    main()
