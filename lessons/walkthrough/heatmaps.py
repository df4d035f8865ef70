"""A step's heatmaps as plain data (lessons.heatmap.Heatmap): one colour range a step, the values as printed,
the whole tensors, the heads of a page (lessons.heatmap.head_grid), the mask grid, the drill-down's clickable
weights; `step_charts` is what a step draws, in page order."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import torch

from core.masks import full_grid
from lessons import scenario
from lessons.heatmap import Heatmap, Panel, Rect, axis_labels, head_grid, readonly, text
from lessons.walkthrough.numbers import step_tensor
from lessons.walkthrough.steps import ROLES, SIDE_BY_SIDE_MAX, STEP_BY_NAME

# ------------------------------------------------------------------ heatmaps (plain data)


def _finite_range(values: torch.Tensor) -> tuple[float, float]:
    """min/max over the finite entries (masked cells hold -1e9 or -inf and would flatten the colours)."""
    finite = values[torch.isfinite(values) & (values.abs() < 1e8)]
    if finite.numel() == 0:
        return -1.0, 1.0
    lo, hi = float(finite.min()), float(finite.max())
    return (lo, hi) if lo < hi else (lo - 1.0, hi + 1.0)


def step_zrange(run: scenario.Scenario, name: str) -> tuple[float, float]:
    """One colour range for the whole step (all heads, all of Q/K/V): 0..max for the weights, symmetric
    about 0 over the finite values (not the mask's -1e9) for the rest."""
    step = STEP_BY_NAME[name]
    values = torch.cat([step_tensor(run, f).reshape(-1) for f in step.fields]).detach().float()
    if name == "softmax":
        finite = values[~torch.isnan(values)]
        return 0.0, float(finite.max()) if finite.numel() else 1.0
    lo, hi = _finite_range(values)
    m = max(abs(lo), abs(hi))
    return -m, m


def as_printed(tensors: Iterable[torch.Tensor | np.ndarray]) -> tuple[list[np.ndarray], int]:
    """Read-only arrays of `tensors` with the values as the chart prints them, and the decimals it prints:
    4 while every value fits int16 codes at 4 decimals (|v| < 3.2767), else 3, else 2. Rounded to them
    (+ 0.0: no "-0.0000"), so a panel travels as int16 codes (charts.payload, compact): half the bytes, and
    a (32, 512) tensor stays under a step's 64 KB. Masked cells (|v| >= 1e8, the -1e9 fill) and non-finite
    ones stay as they are."""
    arrays = [np.asarray(t.detach().float().numpy() if hasattr(t, "detach") else t, dtype=np.float32) for t in tensors]
    finite = [a[np.isfinite(a) & (np.abs(a) < 1e8)] for a in arrays]
    top = max((float(np.abs(f).max()) for f in finite if f.size), default=0.0)
    decimals = 4 if top < 3.2767 else 3 if top < 32.767 else 2
    out: list[np.ndarray] = []
    for a in arrays:
        keep = np.isfinite(a) & (np.abs(a) < 1e8)
        out.append(readonly(np.where(keep, np.round(a, decimals) + np.float32(0.0), a)))
    return out, decimals


def column_labels(n: int, first: int = 0) -> tuple[str, ...]:
    return tuple(str(first + c) for c in range(n))


def head_owner(d_model: int, d_k: int) -> tuple[int, ...]:
    """The head that owns each column of a (·, d_model) tensor: column c belongs to head c // d_k."""
    return tuple(c // d_k for c in range(d_model))


def matrix_heatmap(run: scenario.Scenario, field: str, *, zrange: tuple[float, float], groups: bool = False) -> Heatmap:
    """A (T, d_model) tensor (X, q, k, v, concat, output): tokens down, columns across. `groups`: a strip over
    the columns in the colour of the head that owns them (split, concat)."""
    m = step_tensor(run, field)
    s = run.settings
    (values,), decimals = as_printed([m])
    panel = Panel(
        values=values,
        row_labels=axis_labels(run.tokens),
        col_labels=column_labels(m.shape[1]),
        col_groups=head_owner(s.d_model, s.d_k) if groups else (),
    )
    return Heatmap(
        name=field,
        panels=(panel,),
        role="signed",
        vmin=float(zrange[0]),
        vmax=float(zrange[1]),
        row_axis=text("walk.axis.token"),
        col_axis=text("walk.axis.col"),
        title=text("walk.chart.tensor", name=field),
        decimals=decimals,
    )


def projections_heatmap(run: scenario.Scenario, *, zrange: tuple[float, float]) -> Heatmap:
    """q, k and v side by side: three panels on the colour scale they share."""
    labels = axis_labels(run.tokens)
    arrays, decimals = as_printed([step_tensor(run, f) for f in ROLES])
    panels = tuple(
        Panel(
            values=a,
            title=text("walk.chart.tensor", name=f),
            row_labels=labels,
            col_labels=column_labels(run.settings.d_model),
        )
        for f, a in zip(ROLES, arrays)
    )
    return Heatmap(
        name="qkv",
        panels=panels,
        role="signed",
        vmin=float(zrange[0]),
        vmax=float(zrange[1]),
        row_axis=text("walk.axis.token"),
        col_axis=text("walk.axis.col"),
        panel_columns=3,
        decimals=decimals,
    )


TOKEN_GRIDS = ("scores", "scaled_scores", "masked_scores", "weights")  # (h, T_q, T_k): tokens on both axes


def heads_heatmap(run: scenario.Scenario, field: str, heads: Iterable[int], *, zrange: tuple[float, float]) -> Heatmap:
    """A panel per chosen head (a page of them) of a (h, T, ·) tensor, one colour range for every head.

    Token x token tensors have the tokens on both axes; feature tensors (q/k/v heads, the heads' outputs)
    have the head's own columns of d_model (the split) or 0..d_k-1 (the outputs), and a strip in the
    head's colour over them. Blocked cells of the masked scores are hatched; they keep the -1e9 that enters
    the softmax (hover and table view print it)."""
    m = step_tensor(run, field).detach().float()
    s = run.settings
    labels = axis_labels(run.tokens)
    grid = field in TOKEN_GRIDS
    blocked = None
    if field == "masked_scores" and run.mask is not None:
        blocked = ~full_grid(run.mask, 1, s.seq_len, s.seq_len)[0].numpy()  # (T_q, T_k) True = blocked
        blocked = blocked if blocked.any() else None
    heads = tuple(heads)
    arrays, decimals = as_printed([m[h] for h in heads])
    C = int(m.shape[-1])
    own_columns = field in ("q_heads", "k_heads", "v_heads")  # the head's own columns of d_model; else 0..d_k-1
    return head_grid(
        field,
        arrays,
        heads,
        title=lambda h: text("walk.chart.head", head=h),
        role="weights" if field == "weights" else "signed",
        vrange=zrange,
        row_axis=text("walk.axis.query" if grid else "walk.axis.token"),
        col_axis=text("walk.axis.key" if grid else "walk.axis.col"),
        row_labels=labels,
        col_labels=labels if grid else (lambda h: column_labels(C, h * C if own_columns else 0)),
        blocked=blocked,
        head_columns=not grid,
        panel_columns=4,
        decimals=decimals,
    )


def mask_heatmap(run: scenario.Scenario) -> Heatmap:
    """The (T_q, T_k) keep (1) / block (0) grid of the run's mask."""
    T = run.settings.seq_len
    grid = full_grid(run.mask, 1, T, T)[0].float()
    labels = axis_labels(run.tokens)
    return Heatmap(
        name=f"mask-{run.settings.mask}",
        panels=(Panel(values=readonly(grid), row_labels=labels, col_labels=labels),),
        role="mask",
        vmin=0.0,
        vmax=1.0,
        row_axis=text("walk.axis.query"),
        col_axis=text("walk.axis.key"),
        decimals=0,
    )


def drill_heatmap(run: scenario.Scenario, head: int, i: int, j: int) -> Heatmap:
    """The weights of one head, clickable (a click follows that cell), the followed cell outlined."""
    labels = axis_labels(run.tokens)
    panel = Panel(values=readonly(run.trace.weights[0, head]), row_labels=labels, col_labels=labels)
    return Heatmap(
        name=f"weights-head{head}",
        panels=(panel,),
        role="weights",
        vmin=0.0,
        vmax=1.0,
        row_axis=text("walk.axis.query"),
        col_axis=text("walk.axis.key"),
        clickable=True,
        rects=(Rect(0, i, i + 1, j, j + 1),),
    )


# ------------------------------------------------------------------ a step's charts, as the page shows them


@dataclass(frozen=True)
class StepCharts:
    """What a step draws: its heatmaps in page order, by role ("main": the step's tensor; "mask": the mask
    grid beside the masked scores; "band": the whole tensor with each head's columns marked, above the
    heads of the split). `one_of_qkv`: the projection step is too wide for q, k, v side by side, so the
    page offers a choice of one (`role`)."""

    main: Heatmap
    mask: Heatmap | None = None
    band: Heatmap | None = None
    one_of_qkv: bool = False


def step_charts(run: scenario.Scenario, name: str, heads: tuple[int, ...], role: str = "q") -> StepCharts:
    """The heatmaps of step `name` for the heads on the page (`heads`) and, for project/split, the role
    (q, k or v) shown alone."""
    zrange = step_zrange(run, name)
    s = run.settings
    role = role if role in ROLES else "q"
    if name == "input":
        return StepCharts(matrix_heatmap(run, "x", zrange=zrange))
    if name == "project":
        if s.d_model <= SIDE_BY_SIDE_MAX:
            return StepCharts(projections_heatmap(run, zrange=zrange))
        return StepCharts(matrix_heatmap(run, role, zrange=zrange), one_of_qkv=True)
    if name == "split":
        band = matrix_heatmap(run, role, zrange=zrange, groups=True) if s.d_model <= SIDE_BY_SIDE_MAX else None
        return StepCharts(heads_heatmap(run, f"{role}_heads", heads, zrange=zrange), band=band)
    if name in ("scores", "scale", "mask", "softmax", "mix"):
        field = STEP_BY_NAME[name].fields[0]
        mask = mask_heatmap(run) if name == "mask" and run.mask is not None else None
        return StepCharts(heads_heatmap(run, field, heads, zrange=zrange), mask=mask)
    if name == "concat":
        return StepCharts(matrix_heatmap(run, "concat", zrange=zrange, groups=True))
    return StepCharts(matrix_heatmap(run, "output", zrange=zrange))
