"""The "cost" section: the accounting per step (`cost_rows`, `shape_table`), the layer's totals against h
(`totals_for`, `all_head_counts`), the four numbers beside h = 1 (`cost_metrics`), the table's columns
(`cost_columns`), and W^Q's numbers cut into heads (`param_split`, `param_columns`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from core.accounting import Shape, Totals, step_costs, tensor_shapes, totals
from core.validation import divisors
from lessons.heatmap import Text, text
from lessons.tables import bytes_text


@dataclass(frozen=True)
class CostRow:
    step: str  # AttentionTrace field
    shape: Shape  # the tensor this step produces
    params: int
    macs: int
    elementwise: int


def cost_rows(B: int, T_q: int, T_k: int, d_model: int, h: int, *, masked: bool) -> list[CostRow]:
    """core.accounting.step_costs joined with the shape each step produces."""
    shapes = tensor_shapes(B, T_q, T_k, d_model, h)
    return [
        CostRow(c.step, shapes[c.step], c.params, c.macs, c.elementwise)
        for c in step_costs(B, T_q, T_k, d_model, h, masked=masked)
    ]


def all_head_counts(d_model: int) -> list[int]:
    """Every h that divides d_model (the cost chart's x axis), beyond the slider's limit too."""
    return divisors(d_model)


NBSP = "\u00a0"


def shape_table(rows: Sequence[CostRow], titles: dict, *, step: str, axes: str, sizes: str) -> dict:
    """The cost rows' output shapes as a table of three columns: step, named axes, sizes. Inside a shape the
    spaces do not break ("(1, 4, 8, 16)" stays on one line): a phone wraps the step's words instead."""
    return {
        step: [titles[r.step] for r in rows],
        axes: ["(" + ("," + NBSP).join(r.shape.axes) + ")" for r in rows],
        sizes: ["(" + ("," + NBSP).join(str(n) for n in r.shape.sizes) + ")" for r in rows],
    }


def ratio_text(value: int | float, base: int | float) -> str:
    """'×4' for value = 4·base, '×1' when equal (no float noise such as ×1.0000001)."""
    if base == 0:
        return "–"
    r = value / base
    return f"×{r:.0f}" if abs(r - round(r)) < 1e-9 else f"×{r:.2f}"


def human_bytes(n: int) -> str:
    """Bytes in binary units, one decimal unless whole: '1 KiB', '1.5 MiB' (lessons.tables.bytes_text)."""
    return bytes_text(n)


def totals_for(seq_len: int, d_model: int, h: int, *, masked: bool) -> Totals:
    """Totals of one B = 1 self-attention call (T_q = T_k = seq_len)."""
    return totals(1, seq_len, seq_len, d_model, h, masked=masked)


@dataclass(frozen=True)
class Metric:
    """One of the cost section's four numbers: `name` (params / macs / elementwise / memory; the page's words
    are heads.cost.<name>), the value as printed, and how it compares with one head of width d_model."""

    name: str
    shown: str
    same: bool  # the same as at h = 1
    ratio: str  # ratio_text(value, value at h = 1)
    base: str  # the value at h = 1, printed the same way


def cost_metrics(T: int, d_model: int, h: int, *, masked: bool) -> list[Metric]:
    now, one = totals_for(T, d_model, h, masked=masked), totals_for(T, d_model, 1, masked=masked)
    pairs = {
        "params": (now.params, one.params),
        "macs": (now.macs, one.macs),
        "elementwise": (now.elementwise, one.elementwise),
        "memory": (now.weights_bytes, one.weights_bytes),
    }
    shown = lambda name, v: human_bytes(v) if name == "memory" else f"{v:,}"  # noqa: E731
    return [
        Metric(name, shown(name, v), v == base, ratio_text(v, base), shown(name, base))
        for name, (v, base) in pairs.items()
    ]


def cost_columns(rows: Sequence[CostRow], total: Totals) -> dict[str, list[str]]:
    """The cost table's number columns (params, macs, elementwise): each step's count, then the layer's total."""
    return {
        "params": [f"{r.params:,}" for r in rows] + [f"{total.params:,}"],
        "macs": [f"{r.macs:,}" for r in rows] + [f"{total.macs:,}"],
        "elementwise": [f"{r.elementwise:,}" for r in rows] + [f"{total.elementwise:,}"],
    }


@dataclass(frozen=True)
class ParamSplit:
    h: int
    d_k: int
    per_head: int  # d_model*d_k (+ d_k bias) numbers in W_i^Q
    total: int  # h * per_head == d_model*d_model (+ d_model): the same for every h


def param_split(d_model: int, h: int, *, bias: bool = True) -> ParamSplit:
    d_k = d_model // h
    per_head = d_model * d_k + (d_k if bias else 0)
    return ParamSplit(h, d_k, per_head, h * per_head)


def param_columns(T: int, d_model: int, h: int, *, masked: bool) -> dict[str, list]:
    """W^Q's numbers cut into heads for h = 1, 8 and the current h (those dividing d_model): h, d_k, one head's
    count, all heads' count, the layer's parameters."""
    counts = sorted(n for n in {1, 8, h} if d_model % n == 0)
    splits = [param_split(d_model, n) for n in counts]
    return {
        "h": [p.h for p in splits],
        "d_k": [p.d_k for p in splits],
        "per_head": [f"{d_model}·{p.d_k} + {p.d_k} = {p.per_head:,}" for p in splits],
        "total": [f"{p.h} × {p.per_head:,} = {p.total:,}" for p in splits],
        "layer": [f"{totals_for(T, d_model, p.h, masked=masked).params:,}" for p in splits],
    }


# Longest T the takeaway looks for a crossing at (1M tokens: the accounting's own limit, core.limits.ACCOUNTING_T_MAX).
CROSSING_T_MAX = 1 << 20


def _first_t(passes: Callable[[int], bool], hi: int = CROSSING_T_MAX) -> int | None:
    """The smallest T in 1..hi with passes(T), for a condition that stays true once true (both below are)."""
    if not passes(hi):
        return None
    lo = 1
    while lo < hi:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if passes(mid) else (mid + 1, hi)
    return lo


def cost_takeaway(T: int, d_model: int, h: int, *, masked: bool) -> tuple[Text, ...]:
    """The section's takeaway, chosen by the numbers on screen (a fixed "with thousands of tokens it dominates"
    held for the memory only). Why the cost stays put (fixed), then the (B, h, T, T) tensor against the rest twice:
    its element-wise operations against the multiply-adds (about c·h·T² with c = 3 masked, 2 not, against
    4·T·d_model² + 2·T²·d_model: they pass only when c·h > 2·d_model, from some T), and its memory against the
    layer's parameters (4·h·T² bytes against 4·params: always passed from some T)."""
    now = totals_for(T, d_model, h, masked=masked)
    ops_from = _first_t(lambda n: (lambda x: x.elementwise > x.macs)(totals_for(n, d_model, h, masked=masked)))
    param_bytes = now.params * 4  # float32, as the attention weights' memory
    mem_from = _first_t(lambda n: totals_for(n, d_model, h, masked=masked).weights_bytes > param_bytes)
    pct = f"{now.elementwise / now.macs:.1%}" if now.macs else "–"
    c = 3 if masked else 2  # element-wise operations per score: scale, (mask,) softmax (core.accounting.step_costs)
    ops_kw = {"T": T, "ew": f"{now.elementwise:,}", "macs": f"{now.macs:,}", "pct": pct, "h": h}
    ops_kw |= {"c": c, "ch": c * h, "dd": 2 * d_model}
    if now.elementwise > now.macs:
        ops = text("heads.cost.ops_above", **ops_kw)
    elif ops_from is None:
        ops = text("heads.cost.ops_never", **ops_kw)
    else:
        ops = text("heads.cost.ops_later", **ops_kw, from_T=f"{ops_from:,}")
    mem_kw = {"T": T, "mem": bytes_text(now.weights_bytes), "params": bytes_text(param_bytes)}
    if now.weights_bytes > param_bytes:
        mem = text("heads.cost.mem_above", **mem_kw)
    else:
        mem = text("heads.cost.mem_later", **mem_kw, from_T=f"{mem_from:,}" if mem_from else "–")
    return (text("heads.cost.takeaway"), ops, mem)
