"""Measure the "Why many heads" task: per seed and head count, the test loss, the accuracy,
the attention mass each head puts on the two relations, and the training time.

Run from the repository root:

    .venv/bin/python benchmarks/bench_why_heads.py                      # seeds 0-2, default steps, h = 1, 2, 4
    .venv/bin/python benchmarks/bench_why_heads.py --seeds 0-9 --steps 100
    .venv/bin/python benchmarks/bench_why_heads.py --heads 1 --steps 3200    # does one head ever catch up?
    .venv/bin/python benchmarks/bench_why_heads.py --full-values --heads 1 --steps 1600
                                        # the variant whose values carry position and mark too
                                        # (source of FULL_VALUES_ACCURACY in lessons/why_heads/)

Training runs on one intra-op thread (see core.threads.single_thread); "wall" is the
training time the page shows, "cpu" the process time of training plus evaluation.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import torch

from lessons import why_heads as W


def seeds_arg(text: str) -> list[int]:
    out = []
    for part in text.split(","):
        a, _, b = part.partition("-")
        out.extend(range(int(a), int(b) + 1) if b else [int(a)])
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=seeds_arg, default=[0, 1, 2], help="e.g. 0-4 or 0,3,7")
    ap.add_argument("--steps", type=int, default=W.DEFAULT_STEPS)
    ap.add_argument("--heads", type=lambda s: [int(x) for x in s.split(",")], default=list(W.HEAD_COUNTS))
    ap.add_argument("--full-values", action="store_true", help="values = x (position and mark included)")
    args = ap.parse_args()
    values = "full" if args.full_values else "token"
    print(
        f"# torch {torch.__version__}, {platform.processor() or platform.machine()}, {os.cpu_count()} cores; "
        f"steps={args.steps} batch={W.BATCH_SIZE} d_model={W.D_MODEL} values={values}"
    )
    print("seed   h   test loss  both  prev  mark   mass on previous / marked, per head          wall s  cpu s")
    for seed in args.seeds:
        single = None
        for h in args.heads:
            c0 = time.process_time()
            r = W.train(h, seed, args.steps, values=values, max_steps=max(args.steps, 1))
            cpu = time.process_time() - c0
            masses = " ".join(f"{p:.2f}/{m:.2f}" for p, m in zip(r.previous_mass, r.marker_mass))
            note = ""
            if h == 1:
                single = r
                note = f"  [{W.single_head_story(r)}]"
            elif single is not None:
                note = f"  [{W.compare(single, r).verdict}]"
            print(
                f"{seed:4d} {h:3d}   {r.eval_loss:9.4f}  {r.accuracy:4.0%}  {r.previous_accuracy:4.0%}  "
                f"{r.marker_accuracy:4.0%}   {masses:44s} {r.seconds:6.2f} {cpu:6.2f}{note}",
                flush=True,
            )


if __name__ == "__main__":
    main()
