"""Server memory after a class has explored new settings and left (issue 24.4).

One server; one warm session; RSS at the start. Then N students (protocol-level sessions, as in
bench_sessions.py), each opening the walkthrough, heads and masks pages with its *own* large settings
(d_model 256/512, T up to 32, a seed each: every run and figure is new to the shared caches), one after
another in small waves; they disconnect; RSS right after and `--wait` seconds later.

    .venv/bin/python benchmarks/bench_memory.py --sessions 40 --wait 60
    .venv/bin/python benchmarks/bench_memory.py --report /tmp/memdebug   # + what holds it (ui/memdebug.py)

The server inherits this process's environment (e.g. MALLOC_ARENA_MAX=2 in front of the command).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "tests"))

from bench_sessions import ProtocolSession
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
    """Have the server write a ui/memdebug.py report and print its summary."""
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


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sessions", type=int, default=40)
    ap.add_argument("--wave", type=int, default=4)
    ap.add_argument("--wait", type=float, default=60)
    ap.add_argument(
        "--report",
        type=Path,
        default=None,
        help="folder for ui/memdebug.py reports (sets ATTENTION_LAB_MEMDEBUG for the server)",
    )
    args = ap.parse_args()
    if args.report:
        args.report.mkdir(parents=True, exist_ok=True)
        os.environ["ATTENTION_LAB_MEMDEBUG"] = str(args.report)
    print("MALLOC_ARENA_MAX =", os.environ.get("MALLOC_ARENA_MAX", "(unset)"))
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
