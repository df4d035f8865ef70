"""The Positions lesson's shared parts: the page's constants (sections, models, kinds, spans, sizes sent to the
browser, the float tolerance) and the helpers every section uses to hand out plain data (read-only numpy copies,
heatmaps in lessons/heatmap.py's form, line series, the shared scenario)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from core import positions as P
from core.limits import ROPE_DISTANCE_MAX
from lessons import scenario
from lessons.heatmap import Heatmap, Panel, Text, text
from lessons.settings import Settings

# ================================================================ the page's constants
TABS = ("shuffle", "add", "rope", "learned")  # the sections, in the page's order
MODELS = ("random", "real")  # the "Add positions" section's model
KINDS = P.POSITION_KINDS  # ("none", "sinusoidal", "learned", "rope")
RANDOM_KINDS = ("none", "sinusoidal", "rope")  # what fits the random model (learned is 384 wide)
SPANS = (16, 32, 64, 128, 256, 512)  # positions of the learned table shown in its similarity heatmap
# Cells per side of that heatmap: a wider span is shown every (span / 64)-th position. Its two panels (learned,
# sinusoidal) travel as float32 (charts/payload.py): 2 x 64 x 64 x 4 bytes = 32 KB, half the 64 KB a view may
# send; 128 per side was 131 KB.
SIMILARITY_SIDE_MAX = 64
# Columns of the X and output heatmaps of the shuffle section: the shuffle moves whole rows and every column
# tells the same story, so they carry the first 16 dimensions (every gap uses all of them). 64 drew 8 x 64
# strips whose rows, a few px tall, could not be followed; 16 cells a row are a pattern one can find again
# after the move, and stay at least 13 px wide in a 390 px phone's panel. (Four (T, d_model) charts at 512/32
# would also be ~4 x 34 KB, over the 64 KB a step may cost.)
DIMS_SHOWN_MAX = 16
GRID_DEFAULT = 16
FALLOFF_DISTANCE = ROPE_DISTANCE_MAX  # the fall-off curve runs over distances 0..512 (cheap: 256 x 513 dots)
REAL_HEADS, REAL_WIDTH = 12, 384  # all-MiniLM-L6-v2's heads and width (tested against the loaded model)
EQUAL_TOL = 1e-5  # what the page calls "equal up to float error" (the proofs use 1e-6 for equivariance)


# ================================================================ plain data the page draws
def _np(t: torch.Tensor) -> np.ndarray:
    """A read-only float32 (or int64) numpy copy: what a lesson hands out cannot be changed by a page."""
    a = t.detach().cpu().numpy().copy()
    a.setflags(write=False)
    return a


def _heatmap(
    name: str,
    panels: list[tuple[np.ndarray, tuple[str, ...], tuple[str, ...], str | None]],
    role: str,
    vmin: float,
    vmax: float,
    row_axis: str,
    col_axis: str,
) -> Heatmap:
    """One chart in lessons/heatmap.py's plain form: `panels` are (values, row labels, col labels, title key).

    Axis keys are "pos.axis.<what>" (query, key, token, dimension, position, query_position, key_position) and
    panel titles "pos.panel.before" / "pos.panel.after" / "pos.kind.<kind>": the page words them."""
    return Heatmap(
        name=name,
        panels=tuple(
            Panel(values=v, title=text(title) if title else None, row_labels=rows, col_labels=cols)
            for v, rows, cols, title in panels
        ),
        role=role,
        vmin=float(vmin),
        vmax=float(vmax),
        row_axis=text(f"pos.axis.{row_axis}"),
        col_axis=text(f"pos.axis.{col_axis}"),
    )


def gap_text(value: float) -> str:
    """A max abs difference as the page prints it everywhere (2 decimals of a power of ten; tests read it back)."""
    return f"{value:.2e}"


@dataclass(frozen=True)
class Table:
    """A small table as data: each column is its title and its cells, each a Text key the page words (with its
    params, which may be Texts too) or a language-neutral string (a number already printed, a token)."""

    columns: tuple[tuple[Text, tuple[Text | str, ...]], ...]


@dataclass(frozen=True)
class Series:
    """A line: y against x; x_axis / y_axis / name are keys the page words."""

    x: np.ndarray
    y: np.ndarray
    x_axis: str
    y_axis: str
    name: str


def _signed_range(*arrays: np.ndarray) -> tuple[float, float]:
    top = max(float(np.abs(a).max()) if a.size else 0.0 for a in arrays) or 1.0
    return -top, top


def _labels(tokens: list[str]) -> tuple[str, ...]:
    """Row labels "i:token": a sentence repeats words ("the" twice), a label must name one row."""
    return tuple(f"{i}:{tok}" for i, tok in enumerate(tokens))


def _scenario(settings: Settings, run: scenario.Scenario | None) -> scenario.Scenario:
    """The shared settings' run: the page's (server-cached) one when it passes it, else computed here.

    Why optional: building the model is most of the cost at large d_model; the page already
    holds the scenario for these settings, and this module caches nothing itself.
    """
    if run is None:
        return scenario.run(settings)
    if run.settings != settings:
        raise ValueError(f"the scenario passed is for {run.settings}, not {settings}")
    return run
