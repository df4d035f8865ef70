"""The verdict: how a multi-head run compares with the single head of the same seed and steps, what the single
head did, and both as the page's data (text ids and their values, never words).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from lessons.why_heads.measure import RunResult
from lessons.why_heads.task import CLEAN_ACCURACY, D_MODEL, LOSS_MARGIN, MATCH_THRESHOLD, SOLVED_ACCURACY


# ---------------------------------------------------------------- the verdict
@dataclass(frozen=True)
class Comparison:
    """How one multi-head run compares with the single-head run of the same seed and steps."""

    num_heads: int
    loss_gap: float  # single-head eval loss minus this run's (nats per answer)
    previous_heads: tuple[int, ...]
    marker_heads: tuple[int, ...]
    accuracy: float  # this run's, both answers right

    @property
    def clearly_lower(self) -> bool:
        return self.loss_gap >= LOSS_MARGIN

    @property
    def both_relations(self) -> bool:
        return bool(self.previous_heads) and bool(self.marker_heads)

    @property
    def shows_effect(self) -> bool:
        return self.clearly_lower and self.both_relations

    @property
    def verdict(self) -> str:
        """'effect' (clean), 'partial' (effect, but the heads did not fully separate) or 'no_effect'."""
        if not self.shows_effect:
            return "no_effect"
        return "effect" if self.accuracy >= CLEAN_ACCURACY else "partial"


def compare(single: RunResult, multi: RunResult) -> Comparison:
    return Comparison(
        num_heads=multi.num_heads,
        loss_gap=single.eval_loss - multi.eval_loss,
        previous_heads=tuple(multi.heads_for("previous")),
        marker_heads=tuple(multi.heads_for("marker")),
        accuracy=multi.accuracy,
    )


def single_head_story(single: RunResult) -> str:
    """What the single head did: 'solved' (unexpected), 'marker' / 'previous' (locked onto one) or 'split'."""
    if single.accuracy >= SOLVED_ACCURACY:
        return "solved"
    role = single.roles[0]
    return role if role is not None else "split"


def single_head_facts(single: RunResult) -> tuple[str, dict]:
    """The single head's story (single_head_story) and the values its text "why.single.<story>" shows."""
    facts = dict(
        d_k=D_MODEL,
        pm=single.previous_mass[0],
        mm=single.marker_mass[0],
        acc=single.accuracy,
        acc_prev=single.previous_accuracy,
        acc_mark=single.marker_accuracy,
    )
    return single_head_story(single), facts


@dataclass(frozen=True)
class Verdict:
    """One multi-head run against the single head: `verdict` ("effect" | "partial" | "no_effect") and the values
    of its text; tuples are lists the page joins with its list separator. A "no_effect" verdict says why:
    `reasons`, each (reason id of "why.reason.<id>", its values)."""

    num_heads: int
    verdict: str
    facts: dict
    reasons: tuple[tuple[str, dict], ...] = ()


def verdicts(finished: Mapping[int, RunResult]) -> list[Verdict]:
    """Every finished multi-head run against the finished single head (none without it)."""
    single = finished.get(1)
    if single is None:
        return []
    out = []
    for h, multi in finished.items():
        if h == 1:
            continue
        cmp = compare(single, multi)
        if cmp.verdict in ("effect", "partial"):
            facts = dict(
                h=h,
                pis=tuple(map(str, cmp.previous_heads)),
                pms=tuple(f"{multi.previous_mass[i]:.2f}" for i in cmp.previous_heads),
                mis=tuple(map(str, cmp.marker_heads)),
                mms=tuple(f"{multi.marker_mass[i]:.2f}" for i in cmp.marker_heads),
                loss=multi.eval_loss,
                single=single.eval_loss,
                acc=multi.accuracy,
            )
            out.append(Verdict(h, cmp.verdict, facts))
            continue
        reasons: list[tuple[str, dict]] = []
        if not cmp.previous_heads:
            reasons.append(("no_previous", dict(thr=MATCH_THRESHOLD, best=max(multi.previous_mass))))
        if not cmp.marker_heads:
            reasons.append(("no_marker", dict(thr=MATCH_THRESHOLD, best=max(multi.marker_mass))))
        if not cmp.clearly_lower:
            reasons.append(("loss", dict(loss=multi.eval_loss, single=single.eval_loss, margin=LOSS_MARGIN)))
        out.append(Verdict(h, "no_effect", dict(h=h), tuple(reasons)))
    return out
