"""Positions: attention alone cannot tell word order, and three ways transformers fix it.

1. Attention is blind to order. The seed's multi-head attention treats its input X as a *set*:
   shuffle the rows of X (the tokens) and every output row, and every row and column of the
   weights, moves with its token, unchanged. Nothing in Q K^T, softmax or weights @ V looks at
   *where* a row sits, only at what it holds. `permutation_run` runs the same model on X and on a
   shuffled X and un-shuffles the second run, so the page can print the difference (0 up to float
   error). A causal mask is the exception: it belongs to the positions (query i sees keys 0..i),
   not to the tokens, so a token that moves sees a different set of keys and the symmetry breaks.

2. Absolute positions: add a vector that depends on the position to each token's vector.
   - sinusoidal ("Attention Is All You Need", Vaswani et al. 2017, section 3.5), a fixed formula:
         PE[pos, 2i]   = sin(pos / 10000^(2i / d_model))
         PE[pos, 2i+1] = cos(pos / 10000^(2i / d_model))
   - learned: a table trained with the model. The real heads model (all-MiniLM-L6-v2, a BERT) has
     one row of 384 numbers for each of its 512 positions (`core.pretrained.position_table`).

3. RoPE (rotary position embedding, Su et al. 2021 "RoFormer"), used by Llama and most recent
   models: nothing is added to X. Inside every head, q and k are *rotated* before Q K^T: their
   d_k numbers form d_k / 2 pairs, and pair i of the vector at position p turns by the angle
   p * theta_i, with theta_i = base^(-2i / d_k) (base 10 000 by default; pair 0 turns 1 radian
   per position, the last pairs barely move). v is not rotated. Because a rotation by angle a
   followed by the transpose of a rotation by angle b is a rotation by a - b,
         (R(m) q) . (R(n) k) = q . R(n - m) k,
   the score of a query at position m and a key at position n depends on the distance m - n
   only, never on m and n themselves (`rope_score_grid` computes the whole (m, n) grid).

   Which numbers form a pair. The RoFormer paper pairs neighbours (0, 1), (2, 3), ... ("interleaved").
   We pair dimension i with dimension i + d_k / 2 (the first half with the second half), as
   transformers' Llama does with its `rotate_half`: that is the code the tests compare against
   (tests/test_positions.py), and it needs no reshape into pairs, only two slices. The two
   conventions are the same rotation applied to a fixed reordering of the d_k columns, which the
   learned W^Q and W^K absorb, so they are equally good; a checkpoint trained with one needs that
   one (the test checks the reordering claim too).

Everything here is plain torch: no Streamlit, no text shown on a page. Sizes are bounded by
core/limits.py; bad arguments raise ValueError with a message that says what would be valid.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F

from core.attention import AttentionTrace, MultiHeadAttention
from core.limits import (
    D_MODEL_CHOICES,
    MAX_TEXT_TOKENS,
    ROPE_BASE_MAX,
    ROPE_D_K_MAX,
    ROPE_D_K_MIN,
    ROPE_DISTANCE_MAX,
    ROPE_FALLOFF_SAMPLES,
    ROPE_FALLOFF_SAMPLES_MAX,
    ROPE_GRID_MAX,
    SEQ_LEN_MAX,
    SEQ_LEN_MIN,
    SHUFFLE_SEED_MAX,
    SHUFFLE_SEED_MIN,
    SINUSOID_POSITIONS_MAX,
    check_range,
)
from core.pretrained import Pretrained, encoder_layers, position_table
from core.validation import check_mask

ROPE_BASE = 10_000.0  # the RoFormer paper's and Llama 1/2's base
SINUSOID_BASE = 10_000.0  # the 10000 of "Attention Is All You Need"


# ================================================================ 1. attention is blind to order
def random_permutation(T: int, seed: int) -> torch.Tensor:
    """(T,) a shuffle of 0..T-1 from `seed` alone (the page's shuffle button puts the seed in the URL).

    Never the identity when T >= 2: a "shuffle" that moves nothing would show nothing. If the
    random draw happens to be the identity, it is rolled by one place instead.
    """
    check_range("T", T, SEQ_LEN_MIN, SEQ_LEN_MAX)
    check_range("shuffle seed", seed, SHUFFLE_SEED_MIN, SHUFFLE_SEED_MAX)
    gen = torch.Generator().manual_seed(seed)
    perm = torch.randperm(T, generator=gen)  # (T,)
    if torch.equal(perm, torch.arange(T)):
        perm = torch.roll(perm, 1)
    return perm


def check_permutation(perm: torch.Tensor, T: int) -> torch.Tensor:
    """`perm` as a (T,) long tensor holding each of 0..T-1 exactly once, or ValueError."""
    perm = torch.as_tensor(perm)
    if perm.dim() != 1 or perm.numel() != T or perm.dtype.is_floating_point or perm.dtype == torch.bool:
        raise ValueError(
            f"a permutation of {T} tokens must be {T} integers, got shape {tuple(perm.shape)} of {perm.dtype}"
        )
    perm = perm.long()
    if not torch.equal(torch.sort(perm).values, torch.arange(T)):
        raise ValueError(f"a permutation must hold each of 0..{T - 1} exactly once, got {perm.tolist()}")
    return perm


def inverse_permutation(perm: torch.Tensor) -> torch.Tensor:
    """(T,) the shuffle that undoes `perm`: x[:, perm][:, inverse] == x."""
    return torch.argsort(perm)


@dataclass(frozen=True)
class PermutationRun:
    """The same model on X and on X with its rows shuffled; `perm[i]` is the original row now at row i.

    Without a mask, attention is permutation-equivariant:
        output_shuffled[i]      == output[perm[i]]
        weights_shuffled[i, j]  == weights[perm[i], perm[j]]   (every head)
    so un-shuffling the second run gives back the first: `output_gap` and `weights_gap` are 0 up to
    float error (~1e-7). With a causal mask they are not: the mask stays with the positions.
    """

    perm: torch.Tensor  # (T,)
    x: torch.Tensor  # (B, T, d_model)
    x_shuffled: torch.Tensor  # (B, T, d_model)  x[:, perm]
    mask: torch.Tensor | None  # the same mask for both runs (it belongs to positions, not to tokens)
    trace: AttentionTrace  # the run on x
    trace_shuffled: AttentionTrace  # the run on x_shuffled

    @property
    def output_unshuffled(self) -> torch.Tensor:
        """(B, T, d_model): the shuffled run's output with its rows put back in the original order."""
        return self.trace_shuffled.output[:, inverse_permutation(self.perm)]

    @property
    def weights_unshuffled(self) -> torch.Tensor:
        """(B, h, T, T): the shuffled run's weights with query rows and key columns put back."""
        inv = inverse_permutation(self.perm)
        return self.trace_shuffled.weights[:, :, inv][:, :, :, inv]

    @property
    def output_gap(self) -> float:
        """max |output - un-shuffled output of the shuffled run| (0 up to float error without a mask)."""
        return float((self.output_unshuffled - self.trace.output).abs().max())

    @property
    def weights_gap(self) -> float:
        """max |weights - un-shuffled weights of the shuffled run|, over every head."""
        return float((self.weights_unshuffled - self.trace.weights).abs().max())


def permutation_run(
    model: MultiHeadAttention, x: torch.Tensor, perm: torch.Tensor, mask: torch.Tensor | None = None
) -> PermutationRun:
    """Self-attention on X and on X[:, perm], both traced, with the same optional mask.

    Why both runs and not a formula: the page's claim is about *this* code, so it runs it twice.
    """
    if x.dim() != 3:
        raise ValueError(f"x must be (B, T, d_model), got shape {tuple(x.shape)}")
    perm = check_permutation(perm, x.shape[1])
    x_shuffled = x[:, perm]  # (B, T, d_model): row i is the original row perm[i]
    with torch.no_grad():
        _, trace = model.forward_with_trace(x, x, x, mask)
        _, trace_shuffled = model.forward_with_trace(x_shuffled, x_shuffled, x_shuffled, mask)
    return PermutationRun(perm=perm, x=x, x_shuffled=x_shuffled, mask=mask, trace=trace, trace_shuffled=trace_shuffled)


# ================================================================ 2. absolute positions, added to X
def sinusoidal_table(n_positions: int, d_model: int, base: float = SINUSOID_BASE) -> torch.Tensor:
    """(n_positions, d_model): Vaswani et al.'s fixed position vectors, float32.

        PE[pos, 2i]   = sin(pos / base^(2i / d_model))      even columns
        PE[pos, 2i+1] = cos(pos / base^(2i / d_model))      odd columns: the same angle

    Each pair of columns is a clock turning at its own speed, from 1 radian per position (i = 0)
    down to ~1/base: nearby positions get similar vectors, far ones different. Computed in float64
    and rounded once, so every entry is the formula's value to float32 precision.
    """
    check_range("n_positions", n_positions, 1, SINUSOID_POSITIONS_MAX)
    check_range("d_model", d_model, 1, max(D_MODEL_CHOICES))
    _check_base(base)
    pos = torch.arange(n_positions, dtype=torch.float64)[:, None]  # (P, 1)
    two_i = torch.arange(0, d_model, 2, dtype=torch.float64)  # (ceil(d/2),)  = 0, 2, 4, ...
    angles = pos / base ** (two_i / d_model)  # (P, ceil(d/2))
    table = torch.empty(n_positions, d_model, dtype=torch.float64)
    table[:, 0::2] = torch.sin(angles)  # columns 0, 2, 4, ...
    table[:, 1::2] = torch.cos(angles[:, : d_model // 2])  # columns 1, 3, 5, ... (one fewer if d is odd)
    return table.to(torch.float32)


def learned_table(model: Pretrained) -> torch.Tensor:
    """(512, 384): the real heads model's learned position table (`core.pretrained.position_table`).

    Detached: the page reads it, never trains it. (In the model, row p is added to the token vector
    at position p and the sum goes through a LayerNorm, see core/pretrained.py.)
    """
    return position_table(model).detach()


def position_similarity(table: torch.Tensor, n_positions: int | None = None) -> torch.Tensor:
    """(P, P): cosine similarity between the position vectors of positions 0..P-1 of a table.

    Shows what a table encodes: for the sinusoids, a band along the diagonal (neighbours alike);
    for a learned table, whatever training made of it.
    """
    if table.dim() != 2:
        raise ValueError(f"a position table must be (positions, d_model), got shape {tuple(table.shape)}")
    P = table.shape[0] if n_positions is None else check_range("n_positions", n_positions, 1, table.shape[0])
    rows = F.normalize(table[:P].float(), dim=-1)  # (P, d_model), each row of length 1
    return rows @ rows.T  # (P, P)


def add_positions(x: torch.Tensor, table: torch.Tensor) -> torch.Tensor:
    """(B, T, d_model): X + table[0..T-1], the token at position p gets row p added.

    The table must be as wide as X (a 384-wide learned table fits only a 384-wide model) and have
    at least T rows.
    """
    if x.dim() != 3 or table.dim() != 2:
        raise ValueError(
            f"x must be (B, T, d_model) and the table (positions, d_model), "
            f"got {tuple(x.shape)} and {tuple(table.shape)}"
        )
    T, d_model = x.shape[1], x.shape[2]
    if table.shape[1] != d_model:
        raise ValueError(
            f"the position table is {table.shape[1]} wide but X is {d_model} wide: "
            f"a position vector is added to a token vector, so both need the same width"
        )
    if table.shape[0] < T:
        raise ValueError(f"the position table has {table.shape[0]} rows, fewer than the {T} tokens")
    return x + table[:T].to(x.dtype)[None]  # (1, T, d_model) broadcast over the batch


# ================================================================ 3. RoPE: rotate q and k, add nothing
def _check_base(base: float) -> float:
    if isinstance(base, bool) or not isinstance(base, (int, float)) or not math.isfinite(base):
        raise ValueError(f"base must be a finite number above 1, got {base!r}")
    if base <= 1:
        raise ValueError(
            f"base must be above 1, got {base}: pair i turns by base^(-2i/d_k) radians per position, "
            f"so a base above 1 gives every pair its own speed, from 1 down to about 1/base. With base 1 "
            f"every pair turns at the same 1 radian per position and the score repeats every "
            f"2 pi = 6.28 positions; below 1 the later pairs spin faster instead of slower, so no pair "
            f"turns slowly enough to tell far positions apart (and 0 or less gives no number at all)"
        )
    if base > ROPE_BASE_MAX:
        raise ValueError(f"base must be at most {ROPE_BASE_MAX:g} (limit in core/limits.py), got {base}")
    return float(base)


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
    _check_base(base)


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


# ================================================================ the same sentence under each kind
POSITION_KINDS = ("none", "sinusoidal", "learned", "rope")


def positioned_weights(
    model: MultiHeadAttention,
    x: torch.Tensor,
    kind: str,
    *,
    base: float = ROPE_BASE,
    table: torch.Tensor | None = None,
    mask: torch.Tensor | None = None,
) -> torch.Tensor:
    """(B, h, T, T): the model's per-head weights on X with positions of one kind.

    none: X as it is (order-blind); sinusoidal: X + sinusoidal_table (base SINUSOID_BASE);
    learned: X + `table` (a learned table as wide as X; the real model's 384-wide one fits no random
    model of the app, see real_first_layer_weights);
    rope: X as it is, q and k turned by position (`base`).
    """
    if kind not in POSITION_KINDS:
        raise ValueError(f"kind must be one of {POSITION_KINDS}, got {kind!r}")
    if kind == "rope":
        return rope_attention(model, x, base=base, mask=mask).weights
    if kind == "sinusoidal":
        x = add_positions(x, sinusoidal_table(x.shape[1], x.shape[2]))
    elif kind == "learned":
        if table is None:
            raise ValueError("kind 'learned' needs the learned table (learned_table(model))")
        x = add_positions(x, table)
    with torch.no_grad():
        _, trace = model.forward_with_trace(x, x, x, mask)
    return trace.weights


def real_first_layer_weights(
    model: Pretrained, ids: torch.Tensor, kind: str, *, base: float = ROPE_BASE
) -> torch.Tensor:
    """(h, T, T) = (12, T, T): the real model's first-layer heads on one sentence, positions of one kind.

    The learned table is 384 wide, so it fits only the real model: this is where the page can show all
    four kinds on the same real sentence and the same trained W^Q, W^K, W^V. The embeddings are built
    as core.pretrained.Embeddings does (token + segment [+ positions], then LayerNorm), then layer 0.
    - learned: exactly the model's own computation (equal to its run, tested).
    - none: no position row added: the model never saw this; the same word twice gets the same row.
    - sinusoidal: the 384-wide sinusoid table in place of the learned one (not what it was trained with).
    - rope: no row added; layer 0's q and k turned by RoPE (d_k = 32) instead (not trained with it either).
    """
    if kind not in POSITION_KINDS:
        raise ValueError(f"kind must be one of {POSITION_KINDS}, got {kind!r}")
    ids = torch.as_tensor(ids).reshape(1, -1)  # (1, T): one sentence, [CLS] ... [SEP]
    T = ids.shape[1]
    check_range("tokens", T, 1, MAX_TEXT_TOKENS)
    emb = model.encoder.embeddings
    attention = encoder_layers(model)[0].attention
    with torch.no_grad():
        x = emb.word(ids) + emb.token_type(torch.zeros_like(ids))  # (1, T, 384)
        if kind == "learned":
            x = x + emb.position(torch.arange(T)[None])  # (1, T, 384): row p at position p
        elif kind == "sinusoidal":
            x = add_positions(x, sinusoidal_table(T, x.shape[-1]))
        x = emb.norm(x)  # (1, T, 384)
        if kind == "rope":
            return rope_attention(attention, x, base=base).weights[0]
        _, trace = attention.forward_with_trace(x, x, x)
    return trace.weights[0]  # (h, T, T)
