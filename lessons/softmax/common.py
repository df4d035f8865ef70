"""What every section of the Softmax page shares: read-only arrays, the run and its mask, the largest difference
between two results, and `heatmap`, the one-panel `lessons.heatmap.Heatmap` every section draws (axis keys
`softmax.axis.*`, the state codes of the tiles' step view)."""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np
import numpy.typing as npt
import torch

from core.masks import full_grid
from lessons import scenario as scenario_mod
from lessons.heatmap import Heatmap, Panel, Rect, Text, readonly, text, value_range
from lessons.scenario import Scenario
from lessons.settings import Settings

# Cell and tile states of the step view (codes of a "state" heatmap).
TODO, DONE, CURRENT, SKIPPED = 0, 1, 2, 3
STATE_NAMES = ("todo", "done", "current", "skipped")
STATE_KEYS = tuple(f"softmax.state.{n}" for n in STATE_NAMES)  # the words of a "state" heatmap's codes


def _ro(a: torch.Tensor | npt.ArrayLike) -> np.ndarray:
    """A read-only numpy copy of a tensor / array: shared by every student through the page's cache."""
    if isinstance(a, torch.Tensor):
        a = a.detach().cpu()
        a = a.float().numpy() if a.dtype in (torch.float16, torch.bfloat16) else a.numpy()
    out = np.array(a, copy=True)
    out.setflags(write=False)
    return out


AXES = ("query", "key", "feature", "scale", "query_tile", "key_tile")  # axis keys: softmax.axis.<name>
SHOWN_FEATURES = 64  # output heatmaps carry the first d_k columns up to this (32 x 64 values; the checks use all)


def _labels(axis: str, positions: Iterable[int | np.integer], tokens: list[str]) -> tuple[str, ...]:
    return tuple(tokens[int(p)] if axis in ("query", "key") else str(int(p)) for p in positions)


def heatmap(
    name: str,
    values: torch.Tensor | npt.ArrayLike,
    row_axis: str,
    col_axis: str,
    tokens: list[str],
    role: str,
    *,
    rows: npt.ArrayLike | None = None,
    cols: npt.ArrayLike | None = None,
    vmin: float | None = None,
    vmax: float | None = None,
    blocked: npt.ArrayLike | None = None,
    rects: Iterable[Rect] = (),
    title: Text | None = None,
    row_labels: tuple[str, ...] | None = None,
) -> Heatmap:
    """One panel as a `lessons.heatmap.Heatmap` (the chart route's plain description). Axis keys become
    texts `softmax.axis.<axis>`; rows / cols: the positions the rows / columns stand for (their labels are
    the run's tokens on query/key axes, the numbers otherwise). The range defaults to the role's
    (`value_range`): 0..1 weights, symmetric signed, 0..3 for the STATE_NAMES codes."""
    v = readonly(values)
    r = np.arange(v.shape[0]) if rows is None else np.asarray(rows)
    c = np.arange(v.shape[1]) if cols is None else np.asarray(cols)
    if vmin is None or vmax is None:
        vmin, vmax = (0.0, float(len(STATE_NAMES) - 1)) if role == "state" else value_range(role, [v])
    panel = Panel(
        values=v,
        row_labels=row_labels or _labels(row_axis, r, tokens),
        col_labels=_labels(col_axis, c, tokens),
        blocked=None if blocked is None else _ro(np.asarray(blocked, dtype=bool)),
    )
    return Heatmap(
        name=name,
        panels=(panel,),
        role=role,
        vmin=float(vmin),
        vmax=float(vmax),
        row_axis=text(f"softmax.axis.{row_axis}"),
        col_axis=text(f"softmax.axis.{col_axis}"),
        rects=tuple(rects),
        states=STATE_KEYS if role == "state" else (),
        title=title,
    )


def values_of(hm: Heatmap) -> np.ndarray:
    """The (only) panel's matrix: what tests and tables read."""
    return hm.panels[0].values


def get_run(settings: Settings, run: Scenario | None = None, custom_text: str | None = None) -> Scenario:
    """The shared settings' run (the page passes its cached one); a run for other settings is refused."""
    if run is None:
        return scenario_mod.run(settings, custom_text=custom_text)
    if run.settings != settings:
        raise ValueError("the run was made for other settings")
    return run


def _keep(run: Scenario) -> torch.Tensor:
    T = run.settings.seq_len
    return full_grid(run.mask, 1, T, T)[0]  # (T, T) True = keep


def max_abs_diff(a: torch.Tensor, b: torch.Tensor) -> float:
    """Largest |a - b| over the cells where both are finite; inf if they disagree on where NaN/inf sit."""
    a, b = a.double(), b.double()
    if not torch.equal(torch.isfinite(a), torch.isfinite(b)):
        return math.inf
    ok = torch.isfinite(a)
    return float((a - b)[ok].abs().max()) if ok.any() else 0.0


# ================================================================ what the page prints, as keys and numbers
def number(v: float) -> str:
    """A value in a table: 6 significant digits, inf / nan as they are (the overflow is the point)."""
    return f"{float(v):.6g}"
