"""The walkthrough's ten steps: their names (the URL's walk_step values), the tensors each produces, the exact
lines of core that compute them (lessons/source.py), moving between steps, and how many heads a page shows."""

from __future__ import annotations

import math
from dataclasses import dataclass

from core.attention import MultiHeadAttention
from lessons import scenario, source
from lessons.source import Source

# ------------------------------------------------------------------ the steps


@dataclass(frozen=True)
class Step:
    name: str  # URL value (walk_step=...), language-neutral
    fields: tuple[str, ...]  # the tensors it produces: AttentionTrace fields, or "x"
    per_head: bool  # the tensor has a head axis


STEPS: tuple[Step, ...] = (
    Step("input", ("x",), False),
    Step("project", ("q", "k", "v"), False),
    Step("split", ("q_heads", "k_heads", "v_heads"), True),
    Step("scores", ("scores",), True),
    Step("scale", ("scaled_scores",), True),
    Step("mask", ("masked_scores",), True),
    Step("softmax", ("weights",), True),
    Step("mix", ("head_outputs",), True),
    Step("concat", ("concat",), False),
    Step("output", ("output",), False),
)
STEP_NAMES: tuple[str, ...] = tuple(s.name for s in STEPS)
STEP_BY_NAME = {s.name: s for s in STEPS}
VIEWS = ("step", "all", "present")
DRILL_STEPS = ("scores", "scale", "mask", "softmax", "mix")  # steps whose story the drill-down tells
ROLES = ("q", "k", "v")

# Q, K and V side by side in the projection step up to this d_model (three panels of 128 columns keep about
# two pixels a column on a laptop); wider, one at a time at full width, which also keeps a step's bytes
# under the 64 KB target (three 32 x 512 matrices of float32 are ~192 KB).
SIDE_BY_SIDE_MAX = 128
# The cell story's mix of V (T_k + 1 rows x d_k) shows at most this many of the head's columns (d_k 512:
# columns under 2 px; 33 x 512 values with the story's other charts would pass a step's 64 KB).
MIX_MAX_COLUMNS = 256
HEADS_PER_PAGE = 8  # head panels one page shows (two rows of four; the renderer thins crowded labels)


def step_index(name: str) -> int:
    return STEP_NAMES.index(name)


def step_after(current: str | None, delta: int) -> str:
    """The step `delta` steps after `current` (before it when negative), stopping at the first and last; no
    current step counts as the first."""
    index = step_index(current) if current in STEP_BY_NAME else 0
    return STEP_NAMES[min(max(index + delta, 0), len(STEPS) - 1)]


# ------------------------------------------------------------------ the source of each step


def step_source(name: str) -> Source:
    """The exact lines of core that compute this step's tensor(s)."""
    step = STEP_BY_NAME[name]
    if step.fields == ("x",):
        return source.source_of(scenario.run, ("x",))
    return source.source_of(MultiHeadAttention._attend, step.fields)


def warm() -> None:
    """Read every source a page shows once (app.py, when the server process starts): the steps' lines here,
    Real heads' classes through lessons.source.warm."""
    source.warm()
    for step in STEPS:
        step_source(step.name)


# ------------------------------------------------------------------ heads shown


def heads_per_page(seq_len: int) -> int:
    """How many head panels one page shows: 8 at any T (at a large T the renderer thins the token labels to
    what fits, so 8 panels of 32 x 32 still read)."""
    return HEADS_PER_PAGE


def head_pages(num_heads: int, seq_len: int) -> int:
    return max(1, math.ceil(num_heads / heads_per_page(seq_len)))
