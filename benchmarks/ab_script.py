"""Server script time of two source trees, A/B in one run: `bench_script.py --worker` runs in each tree,
and their steps to new settings alternate (A, B, B, A, ...) on every view, so a busy moment slows both.

    .venv/bin/python benchmarks/ab_script.py /path/to/tree-A /path/to/tree-B --samples 6 [--only /walkthrough]

Each tree needs this commit's benchmarks/bench_script.py (copy it into an older tree). Prints, per view, the
median wall and script-thread CPU time of each tree and the ratio B / A of the CPU medians.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_script import LARGE, views


class Worker:
    def __init__(self, tree: Path):
        self.tree = tree
        self.proc = subprocess.Popen(
            [sys.executable, "benchmarks/bench_script.py", "--worker"],
            cwd=tree,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )

    def ask(self, **cmd) -> dict:
        self.proc.stdin.write(json.dumps(cmd) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the worker in {self.tree} stopped")
        return json.loads(line)

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(30)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("a", type=Path)
    ap.add_argument("b", type=Path)
    ap.add_argument("--samples", type=int, default=6)
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    print(
        f"date {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, load average at start "
        f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}; A = {args.a}, B = {args.b}; median of {args.samples}"
    )
    workers = {"A": Worker(args.a), "B": Worker(args.b)}
    rows = []
    try:
        for group, base in (("default", {}), ("512/16/32", LARGE)):
            for name, page, extra in views():
                label = f"{name} {group}"
                if args.only and args.only not in label:
                    continue
                got = {k: {"wall": [], "cpu": []} for k in workers}
                for w in workers.values():
                    w.ask(cmd="open", page=page, params={**base, **extra})
                for i in range(args.samples):
                    for k in ("A", "B") if i % 2 == 0 else ("B", "A"):
                        r = workers[k].ask(cmd="step")
                        got[k]["wall"].append(r["wall"])
                        got[k]["cpu"].append(r["cpu"])
                med = {k: {m: statistics.median(v[m]) for m in v} for k, v in got.items()}
                rows.append((label, med))
                print(f"  {label}: cpu A {med['A']['cpu']:.1f} ms, B {med['B']['cpu']:.1f} ms", flush=True)
    finally:
        for w in workers.values():
            w.close()
    print("\n| view | wall A | wall B | CPU A | CPU B | CPU B/A |\n|---|---:|---:|---:|---:|---:|")
    for label, med in rows:
        a, b = med["A"], med["B"]
        print(
            f"| {label} | {a['wall']:.1f} | {b['wall']:.1f} | {a['cpu']:.1f} | {b['cpu']:.1f} "
            f"| {b['cpu'] / a['cpu']:.2f} |"
        )
    sa, sb = sum(m["A"]["cpu"] for _, m in rows), sum(m["B"]["cpu"] for _, m in rows)
    print(
        f"\nsum of the CPU medians: A {sa:.0f} ms, B {sb:.0f} ms (B/A {sb / sa:.2f}); load average at the end "
        f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
