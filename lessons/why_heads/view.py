"""What the page shows, as plain data: its URL keys, the loss curves, the example, the trained heads' heatmap,
the results and heads tables (column ids, not words), the session's interrupted run and the cache status.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from lessons import url
from lessons.heatmap import Heatmap, Panel, readonly, text
from lessons.url import UrlKey
from lessons.why_heads.measure import RunResult
from lessons.why_heads.task import (
    D_MODEL,
    DEFAULT_STEPS,
    EXAMPLE_MARKER,
    EXAMPLE_TOKENS,
    FULL_VALUES_ACCURACY,
    HEAD_COUNTS,
    SEED_MAX,
    SEED_MIN,
    STEP_CHOICES,
    VOCAB,
    example_batch,
)
from lessons.why_heads.training import Trainer

# ---------------------------------------------------------------- what the page shows
# The page's URL keys, declared once (lessons/url.py parses them; ui/url_state.py reads and writes them back).
VIEWS = ("results", "heads")  # the trained results as two lazy tabs: only the open one runs and draws
URL_KEYS: tuple[UrlKey, ...] = (
    UrlKey("why_tab", "choice", VIEWS[0], choices=VIEWS),
    UrlKey("why_seed", "int", 0, lo=SEED_MIN, hi=SEED_MAX),
    UrlKey("why_steps", "choice", DEFAULT_STEPS, choices=STEP_CHOICES),  # the nearest offered step count
)
URL_KEY_NAMES = url.names(URL_KEYS)


@dataclass(frozen=True)
class Curve:
    """One run's training loss for the loss chart: `label` is worded by the page (h = 2, or "h = 1 (stopped)")."""

    label: str
    num_heads: int
    losses: tuple[float, ...] | list[float]
    dashed: bool = False


def chance_loss() -> float:
    """The loss of a model that guesses: ln(VOCAB) nats per answer (the loss chart's dotted line)."""
    return math.log(VOCAB)


def example_labels() -> tuple[str, ...]:
    """The example's digits as axis labels, the marked one with a star ("9*")."""
    return tuple(f"{d}*" if i == EXAMPLE_MARKER else str(d) for i, d in enumerate(EXAMPLE_TOKENS))


def example_rows() -> tuple[tuple[int, str, tuple[int, int] | None], ...]:
    """The example sequence, one row per position: (position, digit label, (previous, marked) answer or None at
    position 0, which has no previous digit)."""
    answers = [None] + [tuple(pair) for pair in example_batch().targets[0].tolist()]
    return tuple((i, label, answers[i]) for i, label in enumerate(example_labels()))


def heads_heatmap(result: RunResult) -> Heatmap:
    """A trained model's attention weights on the example sequence, one panel per head (query rows, key columns),
    four panels a row on a wide screen."""
    labels = example_labels()
    weights = result.example_weights
    panels = tuple(
        Panel(readonly(weights[i]), title=text("why.panel.head", i=i), row_labels=labels, col_labels=labels)
        for i in range(int(weights.shape[0]))
    )
    return Heatmap(
        f"trained-weights-h{result.num_heads}",
        panels,
        "weights",
        0.0,
        1.0,
        text("common.query"),
        text("common.key"),
        panel_columns=4,
    )


# ---------------------------------------------------------------- the page's tables, curves and verdicts (plain data)
# Column and text ids, never words: the page words "why.col.<id>", "why.verdict.<verdict>", "why.reason.<id>".
RESULT_COLUMNS = ("h", "d_k", "params", "loss", "acc", "acc_prev", "acc_mark", "seconds")
HEAD_COLUMNS = ("head", "relation", "mass_prev", "mass_mark")
RUN_STATUSES = ("running", "stopped", "done")


def head_widths() -> tuple[int, ...]:
    """d_k of each model the page trains: d_model / h for h in HEAD_COUNTS."""
    return tuple(D_MODEL // h for h in HEAD_COUNTS)


def example_cells() -> tuple[tuple[str, str, str], ...]:
    """The example as table cells, one row per position: (position, digit label, answer "(previous, marked)" or
    "–" at position 0, which has no previous digit)."""
    return tuple(
        (str(i), label, "–" if pair is None else f"({pair[0]}, {pair[1]})") for i, label, pair in example_rows()
    )


def interrupted_run(
    raw: object, seed: int, steps: int, results: Mapping[int, RunResult | None]
) -> tuple[dict | None, dict | None]:
    """The session's last training run and, when it was stopped before it finished for this seed and these steps
    (a run still "running" when a new script run begins was interrupted: marked "stopped" in place), that run.

    `raw` is whatever the session holds; anything this page cannot read is (None, None)."""
    if not (
        isinstance(raw, dict)
        and raw.get("h") in HEAD_COUNTS
        and isinstance(raw.get("losses"), list)
        and raw.get("status") in RUN_STATUSES
    ):
        return None, None
    if raw["status"] == "running":
        raw["status"] = "stopped"
    stopped = raw["status"] == "stopped" and (raw.get("seed"), raw.get("steps")) == (seed, steps)
    return raw, raw if stopped and results.get(raw["h"]) is None else None


def cache_status(results: Mapping[int, RunResult | None]) -> tuple[str, tuple[int, ...], tuple[int, ...]]:
    """("all" | "some" | "none", the h already trained, the h still to train)."""
    done = tuple(h for h in HEAD_COUNTS if results.get(h) is not None)
    todo = tuple(h for h in HEAD_COUNTS if results.get(h) is None)
    return ("all" if not todo else "some" if done else "none"), done, todo


def loss_curves(
    results: Mapping[int, RunResult | None], running: Trainer | None = None, stopped: Mapping | None = None
) -> list[Curve]:
    """The loss chart's curves: every finished run, the one training now, and a stopped run's partial curve
    (dashed; the page words its label "h = 1 (stopped)")."""
    out = [Curve(f"h = {h}", h, r.losses) for h, r in results.items() if r is not None]
    if running is not None:
        out.append(Curve(f"h = {running.num_heads}", running.num_heads, running.losses))
    if stopped is not None:
        out.append(Curve(f"h = {stopped['h']}", stopped["h"], stopped["losses"], dashed=True))
    return out


def results_table(finished: Mapping[int, RunResult]) -> dict[str, list]:
    """The results tab's table: column id (RESULT_COLUMNS) -> one value per finished run."""
    rows = list(finished.values())
    return {
        "h": [r.num_heads for r in rows],
        "d_k": [D_MODEL // r.num_heads for r in rows],
        "params": [r.parameters for r in rows],
        "loss": [f"{r.eval_loss:.3f}" for r in rows],
        "acc": [f"{r.accuracy:.0%}" for r in rows],
        "acc_prev": [f"{r.previous_accuracy:.0%}" for r in rows],
        "acc_mark": [f"{r.marker_accuracy:.0%}" for r in rows],
        "seconds": [f"{r.seconds:.1f}" for r in rows],
    }


def heads_table(result: RunResult) -> dict[str, list]:
    """The heads tab's table of one run: column id (HEAD_COLUMNS) -> one value per head; "relation" holds the
    relation each head does (RELATIONS) or None."""
    return {
        "head": list(range(result.num_heads)),
        "relation": list(result.roles),
        "mass_prev": [f"{v:.2f}" for v in result.previous_mass],
        "mass_mark": [f"{v:.2f}" for v in result.marker_mass],
    }


def full_values_accuracy() -> dict[int, tuple[str, ...]]:
    """The measured accuracies with full-width values (FULL_VALUES_ACCURACY) as percentages, per step count."""
    return {n: tuple(f"{a:.0%}" for a in values) for n, values in FULL_VALUES_ACCURACY.items()}
