"""3. RoPE: q and k turned by position inside every head, nothing added to X. The rotation itself, attention with
it (`rope_attention`), the (m, n) score grid, one pair's turn, and how a score falls off with distance."""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F

from core.attention import MultiHeadAttention
from core.limits import (
    ROPE_D_K_MAX,
    ROPE_D_K_MIN,
    ROPE_DISTANCE_MAX,
    ROPE_FALLOFF_SAMPLES,
    ROPE_FALLOFF_SAMPLES_MAX,
    ROPE_GRID_MAX,
    SHUFFLE_SEED_MAX,
    SHUFFLE_SEED_MIN,
    check_range,
)
from core.positions.freq_base import ROPE_BASE, check_base
from core.validation import check_mask


def check_rope(d_k: int, base: float) -> None:
    """ValueError unless d_k is an even integer in ROPE_D_K_MIN..ROPE_D_K_MAX and 1 < base <= ROPE_BASE_MAX.

    Why even: RoPE turns *pairs* of numbers, like the (x, y) of a point in a plane; an odd d_k
    would leave one number with no partner, and a single number cannot be rotated.
    """
    if isinstance(d_k, bool) or not isinstance(d_k, int):
        raise ValueError(f"d_k must be an integer, got {d_k!r}")
    if d_k % 2:
        near = " or ".join(str(v) for v in (d_k - 1, d_k + 1) if ROPE_D_K_MIN <= v <= ROPE_D_K_MAX)
        raise ValueError(
            f"RoPE needs an even d_k, got {d_k}: it rotates the {d_k} numbers of q and k as pairs, "
            f"like the (x, y) of a point turning around the origin, and with an odd d_k one number "
            f"would have no partner to turn with. Choose an even d_k (= d_model / heads) from "
            f"{ROPE_D_K_MIN} to {ROPE_D_K_MAX}" + (f", e.g. {near}" if near else "")
        )
    check_range("d_k", d_k, ROPE_D_K_MIN, ROPE_D_K_MAX)
    check_base(base)


def rope_frequencies(d_k: int, base: float = ROPE_BASE) -> torch.Tensor:
    """(d_k / 2,): theta_i = 1 / base^(2i / d_k), radians per position for pair i, float32.

    Written exactly as transformers' Llama computes it (`compute_default_rope_parameters`), in
    float32, so that our angles are the same floats as the reference's.
    """
    check_rope(d_k, base)
    return 1.0 / (base ** (torch.arange(0, d_k, 2, dtype=torch.int64).float() / d_k))  # (d_k/2,)


def rope_cos_sin(positions: torch.Tensor, d_k: int, base: float = ROPE_BASE) -> tuple[torch.Tensor, torch.Tensor]:
    """cos and sin of every angle, each (T, d_k), for the halves pairing.

    Column j and column j + d_k/2 belong to the same pair, so they get the same angle:
    angles = [p*theta_0 .. p*theta_{d/2-1}, p*theta_0 .. p*theta_{d/2-1}] for each position p.
    """
    positions = _check_positions(positions)
    freqs = positions.float()[:, None] * rope_frequencies(d_k, base)[None, :]  # (T, d_k/2): angle p * theta_i
    angles = torch.cat((freqs, freqs), dim=-1)  # (T, d_k): both halves of a pair share the angle
    return angles.cos(), angles.sin()


def rotate_half(x: torch.Tensor) -> torch.Tensor:
    """(..., d_k): the pair partner of every number, turned a quarter: (a, b) -> (-b, a) for each pair.

    With a = x[..., i] and b = x[..., i + d_k/2], the rotation by angle t is
    (a cos t - b sin t,  b cos t + a sin t) = x * cos t + rotate_half(x) * sin t.
    """
    half = x.shape[-1] // 2
    first, second = x[..., :half], x[..., half:]  # (..., d_k/2) each: the a's and the b's
    return torch.cat((-second, first), dim=-1)  # (..., d_k)


def apply_rope(x: torch.Tensor, positions: torch.Tensor, base: float = ROPE_BASE) -> torch.Tensor:
    """(..., T, d_k): every row of x turned by its position, pair by pair (q or k of one or all heads).

    Row t is at position positions[t]. Each pair (x[i], x[i + d_k/2]) turns by positions[t] * theta_i;
    lengths do not change (a rotation), only directions.
    """
    if x.dim() < 2:
        raise ValueError(f"x must be (..., T, d_k), got shape {tuple(x.shape)}")
    d_k = x.shape[-1]
    check_rope(d_k, base)
    positions = _check_positions(positions)
    if positions.numel() != x.shape[-2]:
        raise ValueError(f"{positions.numel()} positions for {x.shape[-2]} rows")
    cos, sin = rope_cos_sin(positions, d_k, base)  # (T, d_k) each, broadcast over batch and heads
    return x * cos.to(x.dtype) + rotate_half(x) * sin.to(x.dtype)


def _check_positions(positions: torch.Tensor) -> torch.Tensor:
    """`positions` as a (T,) long tensor of whole numbers in 0..ROPE_DISTANCE_MAX, or ValueError."""
    positions = torch.as_tensor(positions)
    if positions.dim() != 1 or positions.dtype.is_floating_point or positions.dtype == torch.bool:
        raise ValueError(
            f"positions must be a 1-D tensor of integers, got shape {tuple(positions.shape)} of {positions.dtype}"
        )
    if positions.numel() and (positions.min() < 0 or positions.max() > ROPE_DISTANCE_MAX):
        raise ValueError(
            f"positions must be in 0..{ROPE_DISTANCE_MAX} (limit in core/limits.py), "
            f"got {positions.min().item()}..{positions.max().item()}"
        )
    return positions.long()


@dataclass(frozen=True)
class RopeRun:
    """The seed's four steps with RoPE inserted after the split into heads (q and k only)."""

    positions: torch.Tensor  # (T,)
    q_heads: torch.Tensor  # (B, h, T, d_k)  before rotation
    k_heads: torch.Tensor  # (B, h, T, d_k)
    q_rotated: torch.Tensor  # (B, h, T, d_k)  apply_rope(q_heads)
    k_rotated: torch.Tensor  # (B, h, T, d_k)
    scaled_scores: torch.Tensor  # (B, h, T, T)  q_rotated k_rotated^T / sqrt(d_k)
    weights: torch.Tensor  # (B, h, T, T)  softmax over the keys (after the mask, if any)
    output: torch.Tensor  # (B, T, d_model)


def rope_attention(
    model: MultiHeadAttention,
    x: torch.Tensor,
    *,
    base: float = ROPE_BASE,
    positions: torch.Tensor | None = None,
    mask: torch.Tensor | None = None,
) -> RopeRun:
    """Self-attention of `model` on X with RoPE: the same weights, q and k turned by position.

    Why a copy of the four steps instead of a flag in core.attention: the seed's code stays the
    seed's; this is the one line Llama-style models add (step 2b). With every position 0 nothing
    turns and this is exactly model(x, x, x, mask).
    """
    if x.dim() != 3:
        raise ValueError(f"x must be (B, T, d_model), got shape {tuple(x.shape)}")
    B, T, _ = x.shape
    h, d_k = model.num_heads, model.d_k
    check_rope(d_k, base)
    positions = torch.arange(T) if positions is None else _check_positions(positions)
    if positions.numel() != T:
        raise ValueError(f"{positions.numel()} positions for {T} tokens")
    if mask is not None:
        mask = check_mask(mask, B, h, T, T)
    with torch.no_grad():
        # 1. Linear projections, then 2. split into heads (as in core.attention)
        q_heads = model.W_q(x).view(B, T, h, d_k).transpose(1, 2)  # (B, h, T, d_k)
        k_heads = model.W_k(x).view(B, T, h, d_k).transpose(1, 2)  # (B, h, T, d_k)
        v_heads = model.W_v(x).view(B, T, h, d_k).transpose(1, 2)  # (B, h, T, d_k)
        # 2b. RoPE: turn q and k by their positions; v is not turned
        q_rotated = apply_rope(q_heads, positions, base)  # (B, h, T, d_k)
        k_rotated = apply_rope(k_heads, positions, base)  # (B, h, T, d_k)
        # 3. Scaled dot-product attention
        scaled_scores = q_rotated @ k_rotated.transpose(-2, -1) / math.sqrt(d_k)  # (B, h, T, T)
        masked = scaled_scores if mask is None else scaled_scores.masked_fill(mask == 0, model.fill_value)
        weights = F.softmax(masked, dim=-1)  # (B, h, T, T)
        head_outputs = weights @ v_heads  # (B, h, T, d_k)
        # 4. Concatenate the heads, output projection
        concat = head_outputs.transpose(1, 2).reshape(B, T, h * d_k)  # (B, T, d_model)
        output = model.W_o(concat)  # (B, T, d_model)
    return RopeRun(
        positions=positions,
        q_heads=q_heads,
        k_heads=k_heads,
        q_rotated=q_rotated,
        k_rotated=k_rotated,
        scaled_scores=scaled_scores,
        weights=weights,
        output=output,
    )


def rope_score_grid(q: torch.Tensor, k: torch.Tensor, n_positions: int, base: float = ROPE_BASE) -> torch.Tensor:
    """(P, P): grid[m, n] = the scaled score of the same q at position m and the same k at position n.

        grid[m, n] = apply_rope(q, m) . apply_rope(k, n) / sqrt(d_k)

    The page's claim is that it depends on m - n only: constant along every diagonal.
    """
    if q.dim() != 1 or q.shape != k.shape:
        raise ValueError(f"q and k must be two (d_k,) vectors of one head, got {tuple(q.shape)} and {tuple(k.shape)}")
    d_k = q.shape[0]
    check_rope(d_k, base)
    check_range("n_positions", n_positions, 1, ROPE_GRID_MAX)
    positions = torch.arange(n_positions)  # (P,)
    q_at = apply_rope(q.expand(n_positions, d_k), positions, base)  # (P, d_k): row m = q at position m
    k_at = apply_rope(k.expand(n_positions, d_k), positions, base)  # (P, d_k): row n = k at position n
    return q_at @ k_at.T / math.sqrt(d_k)  # (P, P)


def scores_by_distance(grid: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """For a (P, P) grid: distances m - n = -(P-1)..P-1, and the min and max score on each diagonal.

    If the score depends on m - n only, min == max on every diagonal; the page plots the score
    against m - n and prints max(max - min), the largest disagreement along any diagonal.
    """
    P = grid.shape[0]
    distances = torch.arange(-(P - 1), P)  # (2P-1,)
    lows, highs = [], []
    for r in distances.tolist():
        diagonal = torch.diagonal(grid, offset=-r)  # the cells with m - n = r
        lows.append(diagonal.min())
        highs.append(diagonal.max())
    return distances, torch.stack(lows), torch.stack(highs)


@dataclass(frozen=True)
class PairTurn:
    """One pair of q's numbers before and after RoPE at one position, to draw as an arrow turning."""

    before: tuple[float, float]  # (q[i], q[i + d_k/2])
    after: tuple[float, float]  # the same pair after apply_rope at `position`
    theta: float  # radians per position of this pair: base^(-2i/d_k)
    angle: float  # position * theta, radians (not reduced: a turn past 2 pi shows as turns > 1)

    @property
    def turns(self) -> float:
        """The angle in full turns."""
        return self.angle / (2 * math.pi)


def pair_rotation(q: torch.Tensor, position: int, pair: int, base: float = ROPE_BASE) -> PairTurn:
    """Pair `pair` of the (d_k,) vector q, before and after RoPE at `position` (computed by apply_rope)."""
    if q.dim() != 1:
        raise ValueError(f"q must be one (d_k,) vector, got shape {tuple(q.shape)}")
    d_k = q.shape[0]
    check_rope(d_k, base)
    check_range("pair", pair, 0, d_k // 2 - 1)
    check_range("position", position, 0, ROPE_DISTANCE_MAX)
    turned = apply_rope(q.reshape(1, d_k), torch.tensor([position]), base)[0]  # (d_k,)
    j = pair + d_k // 2  # the halves pairing: pair i is dimensions (i, i + d_k/2)
    theta = float(rope_frequencies(d_k, base)[pair])
    return PairTurn(
        before=(float(q[pair]), float(q[j])),
        after=(float(turned[pair]), float(turned[j])),
        theta=theta,
        angle=position * theta,
    )


@dataclass(frozen=True)
class Falloff:
    """How a RoPE score changes with the distance r = m - n, over random vectors (what is averaged is stated).

    matched:   k = q (a key that matches its query: "the same word"), S random q ~ N(0, I).
               mean over the S samples of the scaled score q-at-r . q-at-0 / sqrt(d_k).
               It starts at ~sqrt(d_k) (|q|^2 / sqrt(d_k)) and falls, wiggling, with distance:
               far apart, the fast pairs have turned by unrelated angles and their parts cancel.
               It does not reach 0 within ROPE_DISTANCE_MAX: the slowest pairs (theta near 1/base)
               have hardly turned yet, so a larger base decays more slowly (why long-context
               models raise it).
    expected:  the exact mean of `matched` over all q: (2 / sqrt(d_k)) * sum_i cos(r * theta_i).
    unrelated: k drawn independently of q: mean over the samples of |scaled score|. Nothing decays:
               turning a random k gives another random k, so this stays ~sqrt(2/pi) = 0.80 (0.71 at
               d_k = 2) at every distance, up to sampling noise. RoPE's fall-off is for keys that
               match the query.
    """

    distances: torch.Tensor  # (R,)  0..max_distance
    matched: torch.Tensor  # (R,)
    expected: torch.Tensor  # (R,)
    unrelated: torch.Tensor  # (R,)
    samples: int


def shifted_scores(q: torch.Tensor, k: torch.Tensor, max_distance: int, base: float = ROPE_BASE) -> torch.Tensor:
    """(S, R): score[s, r] = apply_rope(q[s], r) . k[s] / sqrt(d_k), the query r positions after the key.

    The key sits at position 0 (no rotation); by the distance property this is the score of any
    pair of positions m, n with m - n = r. Computed without building the (R, S, d_k) rotated
    queries: apply_rope(q, r) = q * cos_r + rotate_half(q) * sin_r, so its dot product with k is
    (q * k) . cos_r + (rotate_half(q) * k) . sin_r, two (S, d_k) @ (d_k, R) products.
    """
    if q.dim() != 2 or q.shape != k.shape:
        raise ValueError(f"q and k must both be (S, d_k), got {tuple(q.shape)} and {tuple(k.shape)}")
    d_k = q.shape[-1]
    check_rope(d_k, base)
    check_range("max_distance", max_distance, 0, ROPE_DISTANCE_MAX)
    cos, sin = rope_cos_sin(torch.arange(max_distance + 1), d_k, base)  # (R, d_k) each
    scores = (q * k) @ cos.T + (rotate_half(q) * k) @ sin.T  # (S, R)
    return scores / math.sqrt(d_k)


def distance_falloff(
    d_k: int, max_distance: int, base: float = ROPE_BASE, seed: int = 0, samples: int = ROPE_FALLOFF_SAMPLES
) -> Falloff:
    """The RoPE score against distance for `samples` random q (seeded), see `Falloff` for what is averaged."""
    check_rope(d_k, base)
    check_range("max_distance", max_distance, 0, ROPE_DISTANCE_MAX)
    check_range("samples", samples, 1, ROPE_FALLOFF_SAMPLES_MAX)
    check_range("seed", seed, SHUFFLE_SEED_MIN, SHUFFLE_SEED_MAX)
    gen = torch.Generator().manual_seed(seed)
    q = torch.randn(samples, d_k, generator=gen)  # (S, d_k)
    k = torch.randn(samples, d_k, generator=gen)  # (S, d_k), independent of q
    distances = torch.arange(max_distance + 1)  # (R,)
    angles = distances[:, None].double() * rope_frequencies(d_k, base).double()[None, :]  # (R, d_k/2)
    expected = (2.0 / math.sqrt(d_k)) * torch.cos(angles).sum(-1)  # (R,): E|pair|^2 = 2 for N(0, I)
    return Falloff(
        distances=distances,
        matched=shifted_scores(q, q, max_distance, base).mean(0),  # (R,)
        expected=expected.float(),
        unrelated=shifted_scores(q, k, max_distance, base).abs().mean(0),  # (R,)
        samples=samples,
    )
