"""Time our multi-head attention against torch.nn.MultiheadAttention with the same weights.

Run from the repository root:

    .venv/bin/python benchmarks/bench_attention.py            # the three standard cases
    .venv/bin/python benchmarks/bench_attention.py --quick    # fewer repeats, for a smoke test

For every case (B, T, d_model, h) it times, in one run and on the same input x
(self-attention, no mask, float32, CPU, under torch.no_grad()):

    ours.forward            MultiHeadAttention.forward(x, x, x)
    ours.trace              MultiHeadAttention.forward_with_trace(x, x, x)
    torch.fast              nn.MultiheadAttention(x, x, x, need_weights=False)
                            (C++ torch._native_multi_head_attention, attention by the fused
                            scaled_dot_product_attention kernel: no weights kept)
    torch.weights           nn.MultiheadAttention(x, x, x, need_weights=True,
                            average_attn_weights=False)
                            (the same C++ entry point, but the explicit route that materialises
                            the per-head weights softmax(Q K^T / sqrt(d_k)), like ours)

In eval mode under no_grad with query is key is value, nn.MultiheadAttention takes its
C++ fast path for both calls (one fused Q/K/V projection, q scaled before Q K^T).

Each function is warmed up, then the four are called in turn (interleaved, rotating
order) so that a slow moment of the machine hits all of them alike; a sample is the
mean of `inner` back-to-back calls, and the table shows the median sample per call
and the ratios ours / torch.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from datetime import date
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from anywhere

from core.attention import build_input, build_model
from core.reference import torch_twin

CASES = ((1, 16, 64, 4), (1, 32, 512, 16), (8, 512, 512, 8))  # (B, T, d_model, h)
TARGETS = {"ours.forward": 1.2, "ours.trace": 1.5}  # max ratio ours / torch
SAMPLE_SECONDS = 0.02  # aim for samples of at least this long (inner calls are batched)


def contenders(model, twin, x):
    return {
        "ours.forward": lambda: model(x, x, x),
        "ours.trace": lambda: model.forward_with_trace(x, x, x),
        "torch.fast": lambda: twin(x, x, x, need_weights=False),
        "torch.weights": lambda: twin(x, x, x, need_weights=True, average_attn_weights=False),
    }


def check_same_numbers(model, twin, x) -> float:
    """Largest output difference between ours and torch (a benchmark of different maths is useless)."""
    ours, trace = model.forward_with_trace(x, x, x)
    theirs, weights = twin(x, x, x, need_weights=True, average_attn_weights=False)
    fast, _ = twin(x, x, x, need_weights=False)
    worst = max(
        (ours - theirs).abs().max().item(),
        (ours - fast).abs().max().item(),
        (trace.weights - weights).abs().max().item(),
    )
    if worst > 1e-4:
        raise SystemExit(f"ours and torch disagree by {worst:.2e}: fix the model before timing it")
    return worst


def time_case(fns: dict, repeats: int, warmup: int) -> dict[str, float]:
    """Median seconds per call of each function, timed interleaved."""
    for fn in fns.values():
        for _ in range(warmup):
            fn()
    # Batch fast calls so one sample lasts at least SAMPLE_SECONDS (timer noise, loop overhead).
    inner = {}
    for name, fn in fns.items():
        start = time.perf_counter()
        fn()
        once = time.perf_counter() - start
        inner[name] = max(1, int(SAMPLE_SECONDS / max(once, 1e-7)))
    samples: dict[str, list[float]] = {name: [] for name in fns}
    names = list(fns)
    for r in range(repeats):
        order = names[r % len(names) :] + names[: r % len(names)]  # rotate who goes first
        for name in order:
            fn, n = fns[name], inner[name]
            start = time.perf_counter()
            for _ in range(n):
                fn()
            samples[name].append((time.perf_counter() - start) / n)
    return {name: statistics.median(s) for name, s in samples.items()}


def fmt_time(seconds: float) -> str:
    return f"{seconds * 1e3:.3f} ms" if seconds < 1 else f"{seconds:.2f} s"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=21, help="interleaved samples per function")
    parser.add_argument("--warmup", type=int, default=3, help="untimed calls per function first")
    parser.add_argument("--quick", action="store_true", help="5 repeats, 1 warmup")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=0, help="torch threads (default: torch's own choice)")
    args = parser.parse_args(argv)
    if args.threads > 0:
        torch.set_num_threads(args.threads)
    repeats, warmup = (5, 1) if args.quick else (args.repeats, args.warmup)

    torch.set_grad_enabled(False)
    print(
        f"date {date.today().isoformat()}, torch {torch.__version__}, python {platform.python_version()}, "
        f"{platform.machine()}, {os.cpu_count()} cores, torch threads {torch.get_num_threads()}, "
        f"load average {os.getloadavg()[0]:.2f}"
    )
    print(f"float32, CPU, no_grad, self-attention, no mask; median of {repeats} interleaved samples\n")

    header = (
        f"{'(B, T, d_model, h)':<20} {'ours.forward':>13} {'ours.trace':>13} {'torch.fast':>13} "
        f"{'torch.weights':>14} | {'fwd/fast':>8} {'fwd/wts':>8} {'trace/fast':>10} {'trace/wts':>9}"
    )
    print(header)
    print("-" * len(header))
    misses = []
    for B, T, d_model, h in CASES:
        model = build_model(d_model, h, args.seed)
        x = build_input(B, T, d_model, args.seed)  # (B, T, d_model)
        twin = torch_twin(model)
        check_same_numbers(model, twin, x)
        med = time_case(contenders(model, twin, x), repeats, warmup)
        ratios = {
            "fwd/fast": med["ours.forward"] / med["torch.fast"],
            "fwd/wts": med["ours.forward"] / med["torch.weights"],
            "trace/fast": med["ours.trace"] / med["torch.fast"],
            "trace/wts": med["ours.trace"] / med["torch.weights"],
        }
        print(
            f"{str((B, T, d_model, h)):<20} {fmt_time(med['ours.forward']):>13} {fmt_time(med['ours.trace']):>13} "
            f"{fmt_time(med['torch.fast']):>13} {fmt_time(med['torch.weights']):>14} | "
            f"{ratios['fwd/fast']:>7.2f}x {ratios['fwd/wts']:>7.2f}x {ratios['trace/fast']:>9.2f}x "
            f"{ratios['trace/wts']:>8.2f}x",
            flush=True,
        )
        for ours, key in (("ours.forward", "fwd"), ("ours.trace", "trace")):
            for theirs in ("fast", "wts"):
                r = ratios[f"{key}/{theirs}"]
                if r > TARGETS[ours]:
                    misses.append(
                        f"{(B, T, d_model, h)} {ours} is {r:.2f}x torch.{'fast' if theirs == 'fast' else 'weights'}"
                        f" (target {TARGETS[ours]}x)"
                    )
    print(f"\ntargets: ours.forward <= {TARGETS['ours.forward']}x torch, ours.trace <= {TARGETS['ours.trace']}x torch")
    print("\n".join(["all targets met"] if not misses else ["missed:"] + [f"  {m}" for m in misses]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
