"""Section 3, "RoPE is about distance": one q, k pair moved to every (m, n) of a grid, one pair of dimensions
turning, and the fall-off of the score with distance."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch

from core import positions as P
from core.limits import ROPE_D_K_MAX
from lessons import scenario
from lessons.heatmap import Heatmap, Text, text
from lessons.positions.common import (
    EQUAL_TOL,
    FALLOFF_DISTANCE,
    Series,
    _heatmap,
    _np,
    _scenario,
    _signed_range,
    gap_text,
)
from lessons.settings import Settings


# ================================================================ 3. RoPE is about distance
@dataclass(frozen=True)
class PairView:
    """One pair of q's numbers (dimensions pair and pair + d_k/2) turning with position, to draw as an angle."""

    pair: int
    dims: tuple[int, int]
    position: int
    before: tuple[float, float]
    after: tuple[float, float]
    theta: float  # radians per position
    angle: float  # position * theta (not reduced)
    turns: float  # angle / 2 pi
    angle_deg_reduced: float  # the angle as drawn: degrees in [0, 360)
    length_before: float
    length_after: float  # the same: a rotation changes no length
    path: np.ndarray  # (grid, 2): the pair at positions 0..grid-1 (points on one circle)


@dataclass(frozen=True)
class RopeView:
    """The RoPE section: one q, k pair moved to every (m, n) of a grid, and what follows from it."""

    d_k: int
    base: float
    size: int  # the grid's side: positions 0..size-1
    pairs: int  # d_k / 2 pairs of dimensions, each turned by its own frequency
    source: str  # "scenario": q of the last token and k of the first, head `head`; "random": seeded N(0, 1)
    head: int | None
    q_token: str | None
    k_token: str | None
    q: np.ndarray  # (d_k,)
    k: np.ndarray
    grid: Heatmap  # (P, P) signed: rows query position m, cols key position n
    diagonal_spread: float  # max over diagonals of (max - min): 0 up to float error
    constant_on_diagonals: bool
    plain_score: float  # q . k / sqrt(d_k): what the grid holds at m = n (a turn by 0)
    diagonal_gap: float  # max |grid[m, m] - plain_score| over m
    absolute_grid: Heatmap  # the contrast: (q + PE[m]) . (k + PE[n]) / sqrt(d_k), PE the d_k-wide sinusoids
    absolute_spread: float  # its largest spread along a diagonal: not 0, absolute positions are not about distance
    by_distance: Series  # score against m - n (-(P-1)..P-1), read off the grid's diagonals
    by_distance_low: np.ndarray  # the lowest and highest cell of each diagonal (equal if the claim holds)
    by_distance_high: np.ndarray
    pair: PairView
    frequencies: np.ndarray  # (d_k/2,) theta_i, radians per position of each pair
    falloff_matched: Series  # k = q, mean over random q: starts at ~sqrt(d_k), falls with distance
    falloff_expected: Series  # its exact mean (2 / sqrt(d_k)) sum_i cos(r theta_i)
    falloff_unrelated: Series  # k independent of q: mean |score|, flat
    falloff_samples: int
    notes: tuple[str, ...]  # "shared_d_k_odd": the shared d_k (1) cannot be turned, d_k is not the shared one;
    # "shared_d_k_max": the shared d_k (512) is past ROPE_D_K_MAX


def uses_scenario(settings: Settings, d_k: int) -> bool:
    """Whether the section's q and k are the shared scenario's (its d_k is the shared one: a head to choose)."""
    return d_k == settings.d_k


def rope_view(
    settings: Settings,
    d_k: int,
    base: float,
    head: int,
    grid: int,
    pair: int,
    at: int,
    run: scenario.Scenario | None = None,
) -> RopeView:
    """Section 3. All arguments already corrected (parse_url). When d_k is the shared d_k, q and k are the
    scenario's own (the last token's q, the first token's k in head `head`), so the grid uses the numbers of
    the other pages; with another d_k they are seeded random vectors (settings.seed)."""
    P.check_rope(d_k, base)
    notes: list[str] = []
    if uses_scenario(settings, d_k):
        run = _scenario(settings, run)
        head = min(max(int(head), 0), settings.num_heads - 1)
        shown_head: int | None = head
        q = run.trace.q_heads[0, head, -1].clone()
        k = run.trace.k_heads[0, head, 0].clone()
        words = run.tokens
        source, q_tok, k_tok = "scenario", f"{len(words) - 1}:{words[-1]}", f"0:{words[0]}"
    else:
        gen = torch.Generator().manual_seed(settings.seed)
        q, k = torch.randn(d_k, generator=gen), torch.randn(d_k, generator=gen)
        source, shown_head, q_tok, k_tok = "random", None, None, None
        if settings.d_k % 2:
            notes.append("shared_d_k_odd")
        elif settings.d_k > ROPE_D_K_MAX:
            notes.append("shared_d_k_max")
    g = P.rope_score_grid(q, k, grid, base)  # (P, P)
    distances, lows, highs = P.scores_by_distance(g)
    spread = float((highs - lows).max())
    plain = float(q @ k / math.sqrt(d_k))
    # The contrast, as the proofs write it: add a sinusoidal position to q and k instead of turning them (what a
    # model with W^Q = W^K = I would see of X + PE); the same cells along a diagonal now differ.
    pe = P.sinusoidal_table(grid, d_k)  # (P, d_k)
    absolute = (q + pe) @ (k + pe).T / math.sqrt(d_k)  # (P, P)
    _, a_lows, a_highs = P.scores_by_distance(absolute)
    av = _np(absolute)
    positions = tuple(str(i) for i in range(grid))
    gv = _np(g)
    pair = min(max(int(pair), 0), d_k // 2 - 1)
    turn = P.pair_rotation(q, at, pair, base)
    path = P.apply_rope(q.expand(grid, d_k), torch.arange(grid), base)[:, [pair, pair + d_k // 2]]
    fall = P.distance_falloff(d_k, FALLOFF_DISTANCE, base, seed=settings.seed)
    dist = _np(fall.distances)
    return RopeView(
        d_k=d_k,
        size=grid,
        pairs=d_k // 2,
        base=float(base),
        source=source,
        head=shown_head,
        q_token=q_tok,
        k_token=k_tok,
        q=_np(q),
        k=_np(k),
        grid=_heatmap(
            "rope-grid",
            [(gv, positions, positions, None)],
            "signed",
            *_signed_range(gv),
            "query_position",
            "key_position",
        ),
        diagonal_spread=spread,
        constant_on_diagonals=spread <= EQUAL_TOL,
        plain_score=plain,
        absolute_grid=_heatmap(
            "absolute-grid",
            [(av, positions, positions, None)],
            "signed",
            *_signed_range(av),
            "query_position",
            "key_position",
        ),
        absolute_spread=float((a_highs - a_lows).max()),
        diagonal_gap=float((torch.diagonal(g) - plain).abs().max()),
        by_distance=Series(_np(distances), _np((lows + highs) / 2), "distance", "score", "grid"),
        by_distance_low=_np(lows),
        by_distance_high=_np(highs),
        pair=PairView(
            pair=pair,
            dims=(pair, pair + d_k // 2),
            position=at,
            before=turn.before,
            after=turn.after,
            theta=turn.theta,
            angle=turn.angle,
            turns=turn.turns,
            angle_deg_reduced=math.degrees(turn.angle) % 360.0,
            length_before=math.hypot(*turn.before),
            length_after=math.hypot(*turn.after),
            path=_np(path),
        ),
        frequencies=_np(P.rope_frequencies(d_k, base)),
        falloff_matched=Series(dist, _np(fall.matched), "distance", "score", "matched"),
        falloff_expected=Series(dist, _np(fall.expected), "distance", "score", "expected"),
        falloff_unrelated=Series(dist, _np(fall.unrelated), "distance", "abs_score", "unrelated"),
        falloff_samples=fall.samples,
        notes=tuple(notes),
    )


def rope_numbers(v: RopeView) -> dict[str, dict[str, object]]:
    """Every number the section prints, as it prints them, by message (`pos.rope.<message>`, `pos.pair.numbers`,
    `pos.falloff.about`): gaps as gap_text, scores and coordinates to 4 places."""
    pv = v.pair
    return {
        "equal": {
            "spread": gap_text(v.diagonal_spread),
            "plain": f"{v.plain_score:.4f}",
            "diag": gap_text(v.diagonal_gap),
        },
        "not_equal": {"spread": gap_text(v.diagonal_spread)},
        "grid": {"n": v.size},
        "absolute": {"spread": f"{v.absolute_spread:.4f}"},
        "pair": {
            "i": pv.pair,
            "a": pv.dims[0],
            "b": pv.dims[1],
            "m": pv.position,
            "dk": v.d_k,
            "base": f"{v.base:g}",
            "theta": f"{pv.theta:.6g}",
            "angle": f"{pv.angle:.4f}",
            "turns": f"{pv.turns:.3f}",
            "deg": f"{pv.angle_deg_reduced:.1f}",
            "b0": f"{pv.before[0]:.4f}",
            "b1": f"{pv.before[1]:.4f}",
            "a0": f"{pv.after[0]:.4f}",
            "a1": f"{pv.after[1]:.4f}",
            "lb": f"{pv.length_before:.4f}",
            "la": f"{pv.length_after:.4f}",
            "last": v.size - 1,
        },
        "falloff": {"samples": v.falloff_samples, "dk": v.d_k, "sq": f"{math.sqrt(v.d_k):.2f}"},
    }


FALLS_BELOW = 0.9  # "falls off": beyond half the distances the k = q score never climbs back above this of its start


def falloff_envelope(v: RopeView) -> float:
    """How high the k = q curve climbs beyond half the distances shown, as a share of its start (1: all the way)."""
    m = np.asarray(v.falloff_matched.y, dtype=np.float64)
    return float(np.abs(m[len(m) // 2 :]).max() / m[0])


def falloff_text(v: RopeView) -> Text:
    """The fall-off chart's caption, chosen by its curve: the k = q score falls off with distance (the far half
    stays below FALLS_BELOW of the start), or keeps swinging back (few pairs turning: their cosines never average
    out, e.g. d_k = 2, a pure cosine)."""
    env = falloff_envelope(v)
    m = np.asarray(v.falloff_matched.y, dtype=np.float64)
    kw = {
        "samples": v.falloff_samples,
        "dk": v.d_k,
        "sq": f"{math.sqrt(v.d_k):.2f}",
        "start": f"{m[0]:.2f}",
        "half": (len(m) - 1) // 2,
        "env": f"{env:.0%}",
        "pairs": v.pairs,
    }
    return text("pos.falloff.about" if env < FALLS_BELOW else "pos.falloff.swings", **kw)


def by_distance_text(v: RopeView) -> Text:
    """The by-distance chart's caption: its two lines (lowest and highest cell of each diagonal) coincide only
    when the grid is constant along its diagonals."""
    return text("pos.rope.by_distance" if v.constant_on_diagonals else "pos.rope.by_distance_apart")
