"""What each step computes and says, as numbers and text keys: its shapes (and the reshape chain of split and
concat), its tensor, the checks the page prints (the split is a pure cut, concat puts each head back, rows sum
to 1, the result equals torch.nn.MultiheadAttention), the step's paragraph and the Q / K / V choice."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import torch

from core import reference
from core.accounting import Shape, tensor_shapes
from core.attention import AttentionTrace
from core.masks import full_grid
from core.reference import max_abs_diff
from lessons import scenario
from lessons.heatmap import Text, text
from lessons.walkthrough.steps import SIDE_BY_SIDE_MAX, STEP_BY_NAME, STEPS

# ------------------------------------------------------------------ shapes


def shapes(run: scenario.Scenario) -> dict[str, Shape]:
    s = run.settings
    return tensor_shapes(1, s.seq_len, s.seq_len, s.d_model, s.num_heads)


def step_shapes(run: scenario.Scenario, name: str) -> list[tuple[str, Shape]]:
    """(tensor name, shape) of every tensor the step produces."""
    all_shapes = shapes(run)
    return [(f, all_shapes[f]) for f in STEP_BY_NAME[name].fields]


def reshape_chain(run: scenario.Scenario, name: str) -> list[tuple[str, Shape]]:
    """The view/transpose path of the split and concat steps: (operation, shape after it)."""
    s = run.settings
    B, T, d, h, d_k = 1, s.seq_len, s.d_model, s.num_heads, s.d_k
    flat = Shape(("B", "T_q", "d_model"), (B, T, d))
    viewed = Shape(("B", "T_q", "h", "d_k"), (B, T, h, d_k))
    heads = Shape(("B", "h", "T_q", "d_k"), (B, h, T, d_k))
    if name == "split":
        return [("q", flat), (f"view({B}, {T}, {h}, {d_k})", viewed), ("transpose(1, 2)", heads)]
    if name == "concat":
        return [("head_outputs", heads), ("transpose(1, 2).contiguous()", viewed), (f"view({B}, {T}, {d})", flat)]
    return []


def shape_lines(run: scenario.Scenario, name: str, present: bool = False) -> list[str]:
    """The step's shapes as markdown lines (code spans: names and sizes, no words). Split and concat first show
    their reshape chain, on one line, or (`present`: the presenter view) one operation a line and then only
    the tensor the chain ends at (split: q's heads; concat: concat) instead of every role's."""
    shapes = step_shapes(run, name)
    lines: list[str] = []
    if name in ("split", "concat"):
        chain = reshape_chain(run, name)
        parts = [f"`{chain[0][0]}` `{chain[0][1].text()}`"]
        parts += [f"→ `{op}` → `{shape.text()}`" for op, shape in chain[1:]]
        lines += parts if present else [" ".join(parts)]
        if present:
            shapes = shapes[-1:] if name == "concat" else shapes[:1]
    return lines + [f"`{field}` &nbsp; `{shape.text()}`" for field, shape in shapes]


def pipeline(run: scenario.Scenario) -> list[tuple[str, str]]:
    """(step name, compact sizes) for the whole chain, e.g. ('split', '1×4×8×16')."""
    all_shapes = shapes(run)
    return [(step.name, "×".join(str(n) for n in all_shapes[step.fields[0]].sizes)) for step in STEPS]


# ------------------------------------------------------------------ per-step numbers


def step_tensor(run: scenario.Scenario, field: str) -> torch.Tensor:
    """The tensor without its batch axis: (T, d_model) or (h, T, ·)."""
    value = run.x if field == "x" else getattr(run.trace, field)
    return value[0]


def sqrt_dk(run: scenario.Scenario) -> float:
    return math.sqrt(run.settings.d_k)


def split_max_diff(trace: AttentionTrace, h: int, d_k: int) -> float:
    """max |q_heads[:, i] - q[:, :, i*d_k:(i+1)*d_k]| over every head and role: 0 if the split is a pure cut."""
    diff = 0.0
    for whole, heads in ((trace.q, trace.q_heads), (trace.k, trace.k_heads), (trace.v, trace.v_heads)):
        # blocks[:, i] = whole[:, :, i*d_k:(i+1)*d_k], every head at once: a loop over the heads was 64 tensor
        # operations on the shared (read-only, checked) tensors, 4 ms of a 512/16/32 step
        blocks = whole.unflatten(-1, (h, d_k)).transpose(1, 2)  # (B, h, T, d_k)
        diff = max(diff, float((heads - blocks).abs().max()))
    return diff


def concat_max_diff(trace: AttentionTrace, h: int, d_k: int) -> float:
    """max |concat[:, :, i*d_k:(i+1)*d_k] - head_outputs[:, i]|: head i fills its own columns again."""
    return max(
        float((trace.concat[:, :, i * d_k : (i + 1) * d_k] - trace.head_outputs[:, i]).abs().max()) for i in range(h)
    )


def row_sum_deviation(trace: AttentionTrace) -> float:
    """Largest |sum of a row of weights - 1| (NaN rows ignored)."""
    dev = (trace.weights.sum(dim=-1) - 1).abs()
    dev = dev[~torch.isnan(dev)]
    return float(dev.max()) if dev.numel() else 0.0


def blocked_count(run: scenario.Scenario) -> tuple[int, int]:
    """(blocked cells, all cells) of the (T_q, T_k) grid."""
    T = run.settings.seq_len
    grid = full_grid(run.mask, 1, T, T)[0]
    return int((~grid).sum()), T * T


# The steps whose paragraph states this run's numbers; every other step's paragraph is the same for all settings.
RUN_TEXT_STEPS = frozenset({"scale", "mask", "softmax", "mix", "concat"})


def step_text(run: scenario.Scenario, name: str, present: bool = False) -> tuple[Text, ...]:
    """What the step's paragraph says, with this run's numbers (the page words and joins them with a space).
    The softmax step points on to the cell's story except in the presenter view, which has no story."""
    return fixed_text(name) or run_text(run, name, present)


def fixed_text(name: str) -> tuple[Text, ...]:
    """The step's paragraph when no setting changes it, else (). The page sends it in the element a slider step
    leaves as it was (its heading, formula and code), so the browser does not typeset its formulas again on every
    step (the split's three: 52 -> 44 ms a step at the defaults, benchmarks/README.md)."""
    return () if name in RUN_TEXT_STEPS else (text(f"walk.{name}.text"),)


def run_text(run: scenario.Scenario, name: str, present: bool = False) -> tuple[Text, ...]:
    """The step's paragraph when it states this run's numbers (RUN_TEXT_STEPS), else ()."""
    s = run.settings
    if name == "scale":
        return (text("walk.scale.text", d_k=s.d_k, root=sqrt_dk(run)),)
    if name == "mask":
        if run.mask is None:
            return (text("walk.mask.none"),)
        blocked, total = blocked_count(run)
        said = text("walk.mask.text", kind=text(f"mask.{s.mask}"), blocked=blocked, total=total)
        T = s.seq_len
        full = int((~full_grid(run.mask, 1, T, T)[0].any(dim=-1)).sum())  # rows that keep no key at all
        if full:  # "weight ≈ 0" does not hold there: every cell is -1e9, the softmax spreads 1/T over them
            return (said, text("walk.mask.full_rows", n=full, T=T, u=f"{1 / T:.4g}"))
        return (said,)
    if name == "softmax":
        body = text("walk.softmax.text", dev=row_sum_deviation(run.trace))
        return (body,) if present else (body, text("walk.softmax.follow"))
    if name == "mix":
        return (text("walk.mix.text", d_k=s.d_k),)
    if name == "concat":
        return (text("walk.concat.text", h=s.num_heads, d_k=s.d_k, d_model=s.d_model),)
    return ()


def role_label(name: str, d_model: int) -> str | None:
    """The text key of the Q / K / V choice a step offers, or None: the split always (one role's heads), the
    projection only where q, k and v are too wide to sit side by side."""
    if name == "split":
        return "walk.role"
    if name == "project" and d_model > SIDE_BY_SIDE_MAX:
        return "walk.project.role"
    return None


def split_map(heads: Iterable[int], d_k: int) -> tuple[Text, ...]:
    """Which columns of the whole tensor each head shown takes: head i, columns i·d_k .. (i+1)·d_k - 1."""
    return tuple(text("walk.split.map", i=i, a=i * d_k, b=(i + 1) * d_k - 1) for i in heads)


REFERENCE_TOLERANCE = 1e-4  # float32: "equals" torch.nn.MultiheadAttention within this


@dataclass(frozen=True)
class ReferenceCheck:
    output_diff: float  # over the rows that keep at least one key
    weights_diff: float
    blocked_rows: int = 0  # query rows the mask blocks entirely: compared apart (see reference_text)
    rows: int = 0  # all query rows

    @property
    def equal(self) -> bool:
        return max(self.output_diff, self.weights_diff) <= REFERENCE_TOLERANCE


def reference_check(run: scenario.Scenario) -> ReferenceCheck:
    """Our result against torch.nn.MultiheadAttention holding the same weights, computed now, over the query rows
    that keep a key. A row the mask blocks entirely differs by design (ours fills -1e9: weights 1/T; PyTorch's
    boolean mask fills -inf: NaN), which made the difference NaN beside the word "equals"; it is counted instead."""
    out, weights = reference.torch_reference(run.model, run.x, run.x, run.x, run.mask)  # by module: tests count calls
    T = run.settings.seq_len
    keeps = torch.ones(T, dtype=torch.bool) if run.mask is None else full_grid(run.mask, 1, T, T)[0].any(dim=-1)
    return ReferenceCheck(
        max_abs_diff(run.trace.output[:, keeps], out[:, keeps]),
        max_abs_diff(run.trace.weights[:, :, keeps], weights[:, :, keeps]),
        int((~keeps).sum()),
        T,
    )


def reference_text(check: ReferenceCheck) -> Text:
    """The check line, chosen by its numbers: equal (within REFERENCE_TOLERANCE) or not, and the fully blocked
    rows said apart when there are any."""
    kw = {"out": check.output_diff, "w": check.weights_diff}
    if not check.equal:
        return text("walk.reference_off", **kw)
    if check.blocked_rows:
        return text("walk.reference_blocked", **kw, n=check.blocked_rows, kept=check.rows - check.blocked_rows)
    return text("walk.reference", **kw)
