"""The softmax up close: why the scores are divided by sqrt(d_k), and why the max is subtracted first.

Two claims the seed makes in one line each, computed here so a page can show them and tests can check them:

1. "÷ sqrt(d_k) keeps the softmax out of saturation." If the d_k components of q and k are independent with
   mean 0 and variance 1, q·k is a sum of d_k such products, so its variance is d_k (`dot_variance` measures
   it). Undivided, the scores spread more as d_k grows, one score ends far above the rest, and the softmax
   becomes one-hot: its entropy and its gradient go to 0, so training can no longer move that row
   (`scale_variants`). Dividing by sqrt(d_k) brings the variance back to 1 for every d_k; dividing by d_k
   overshoots to 1/d_k and flattens every row towards uniform.
   The order of the entropies is not a matter of luck: softmax(s / c) grows flatter as c grows, for every
   row that is not constant (d entropy / d(1/c) = -(1/c) Var_p(s) <= 0). So per row,
   entropy(÷1) <= entropy(÷sqrt(d_k)) <= entropy(÷d_k), with equality only when d_k = 1 or the row is constant.

2. "Subtract the row max first." exp overflows for large scores: exp(s) is inf in float32 for s > ~88.72
   and in float16 for s > ~11.09. The naive exp(s) / sum exp(s) then gives inf / inf = NaN (and the sum
   alone can overflow, wiping every weight to 0; all-very-negative scores give 0 / 0 = NaN). Since
   softmax(s) = softmax(s - c) for any c, the safe softmax uses c = max(s): every exp is then <= 1.
   The online softmax gets the same result in one pass over the keys, never knowing the max in advance:
   it keeps a running max m and normaliser l and rescales l by exp(m_old - m_new) when m grows. That is
   the trick FlashAttention applies tile by tile (core/tiled_attention.py).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import torch

from core.limits import SOFTMAX_ROW_MAX, VARIANCE_D_K_MAX, VARIANCE_DRAWS_MAX, check_range

DTYPES = {"float32": torch.float32, "float16": torch.float16}
Row = torch.Tensor | Sequence[float]  # one row of scores: a 1-D tensor or a list of numbers
SCALE_NAMES = ("1", "sqrt_d_k", "d_k")  # the three divisors, in increasing order for d_k > 1


# ---------------------------------------------------------------- 1. why ÷ sqrt(d_k)
def divisor(name: str, d_k: int) -> float:
    """The number the scores are divided by: 1, sqrt(d_k) or d_k."""
    values = {"1": 1.0, "sqrt_d_k": math.sqrt(d_k), "d_k": float(d_k)}
    if name not in values:
        raise ValueError(f"scale must be one of {SCALE_NAMES}, got {name!r}")
    return values[name]


def entropy(weights: torch.Tensor) -> torch.Tensor:
    """(...,) entropy in nats of each row of (..., T_k) weights: 0 for one-hot, log(T_k) for uniform.

    0 * log 0 counts as 0 (xlogy), so a saturated row gives exactly 0, not NaN.
    """
    return -torch.special.xlogy(weights, weights).sum(dim=-1)


def softmax_jacobian(weights: torch.Tensor) -> torch.Tensor:
    """(..., T_k, T_k) d weights / d scores of each row: diag(p) - p p^T.

    Entry (i, j) says how much weight i moves when score j moves a little. One-hot p gives the zero
    matrix: a saturated row passes no gradient back to its scores.
    """
    return torch.diag_embed(weights) - weights[..., :, None] * weights[..., None, :]  # (..., T_k, T_k)


def gradient_size(weights: torch.Tensor) -> torch.Tensor:
    """(...,) Frobenius norm of each row's softmax Jacobian: one number for "how much can this row still learn".

    sqrt(T_k - 1) / T_k for a uniform row of T_k keys, 0 for a one-hot row.
    """
    return torch.linalg.matrix_norm(softmax_jacobian(weights))  # (...,)


@dataclass(frozen=True)
class ScaleVariant:
    """The softmax of the same raw scores under one divisor, with per-row measures of saturation."""

    name: str  # "1", "sqrt_d_k" or "d_k"
    divisor: float  # 1, sqrt(d_k) or d_k
    scaled: torch.Tensor  # (..., T_k)  raw scores / divisor
    weights: torch.Tensor  # (..., T_k)  softmax of scaled
    entropy: torch.Tensor  # (...,)  nats; log(T_k) = uniform, 0 = one-hot
    max_weight: torch.Tensor  # (...,)  largest weight of the row; 1 = one-hot
    gradient: torch.Tensor  # (...,)  Frobenius norm of d weights / d scaled (softmax_jacobian)


def scale_variants(raw_scores: torch.Tensor, d_k: int) -> dict[str, ScaleVariant]:
    """The same raw scores q·k (..., T_k) divided by 1, sqrt(d_k) and d_k, each through the softmax.

    The gradient is taken with respect to the softmax's own input (the scaled scores): it measures
    saturation, independent of units. (With respect to the raw q·k it carries one more factor 1 / divisor,
    but the raw scores also grow like sqrt(d_k), so that number mixes saturation with units.)
    Measured on random N(0, 1) q, k (tests/test_softmax_numerics.py): as d_k grows, ÷1's entropy and
    gradient fall towards 0, ÷sqrt(d_k)'s stay level, ÷d_k's entropy rises to log(T_k) (uniform).
    """
    if not isinstance(d_k, int) or d_k < 1:
        raise ValueError(f"d_k must be a positive integer, got {d_k!r}")
    out = {}
    for name in SCALE_NAMES:
        c = divisor(name, d_k)
        scaled = raw_scores / c  # (..., T_k)
        weights = torch.softmax(scaled, dim=-1)  # (..., T_k)
        out[name] = ScaleVariant(
            name=name,
            divisor=c,
            scaled=scaled,
            weights=weights,
            entropy=entropy(weights),
            max_weight=weights.amax(dim=-1),
            gradient=gradient_size(weights),
        )
    return out


def random_scores(d_k: int, T_k: int, rows: int, seed: int) -> torch.Tensor:
    """(rows, T_k) raw scores q·k of random q, k with independent N(0, 1) components (the assumption
    behind ÷ sqrt(d_k)), from the seed alone."""
    gen = torch.Generator().manual_seed(int(seed))
    q = torch.randn(rows, 1, d_k, generator=gen)  # (rows, 1, d_k): one query per row
    k = torch.randn(rows, T_k, d_k, generator=gen)  # (rows, T_k, d_k): its T_k keys
    return (q * k).sum(dim=-1)  # (rows, T_k)


@dataclass(frozen=True)
class DotVariance:
    d_k: int
    draws: int
    variance: float  # measured variance of q·k over the draws
    expected: float  # d_k: the variance if the components are independent N(0, 1)
    scaled_variance: float  # measured variance of q·k / sqrt(d_k): ~1 for every d_k


def dot_variance(d_ks: list[int] | tuple[int, ...], draws: int, seed: int) -> list[DotVariance]:
    """Measure the variance of q·k for each d_k over `draws` random pairs q, k with N(0, 1) components.

    The claim: variance = d_k, so the scores spread like sqrt(d_k) and ÷ sqrt(d_k) undoes it.
    """
    check_range("draws", draws, 2, VARIANCE_DRAWS_MAX)
    gen = torch.Generator().manual_seed(int(seed))
    out = []
    for d_k in d_ks:
        check_range("d_k", d_k, 1, VARIANCE_D_K_MAX)
        chunks = []
        for start in range(0, draws, 1000):  # at most 1000 x d_k numbers at a time
            n = min(1000, draws - start)
            q = torch.randn(n, d_k, generator=gen, dtype=torch.float64)  # (n, d_k)
            k = torch.randn(n, d_k, generator=gen, dtype=torch.float64)  # (n, d_k)
            chunks.append((q * k).sum(dim=-1))  # (n,)
        dots = torch.cat(chunks)  # (draws,)
        var = float(dots.var())
        out.append(DotVariance(d_k=d_k, draws=draws, variance=var, expected=float(d_k), scaled_variance=var / d_k))
    return out


# ---------------------------------------------------------------- 2. why subtract the max
def _as_row(scores: Row, dtype: torch.dtype) -> torch.Tensor:
    row = torch.as_tensor(scores).to(dtype)
    if row.dim() != 1 or not 1 <= row.numel() <= SOFTMAX_ROW_MAX:
        raise ValueError(f"one row of 1 to {SOFTMAX_ROW_MAX} scores is expected, got shape {tuple(row.shape)}")
    if dtype not in DTYPES.values():
        raise ValueError(f"dtype must be float32 or float16, got {dtype}")
    return row


def naive_softmax(scores: Row, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """exp(s) / sum exp(s), straight from the definition, in `dtype`. Overflows for large scores."""
    s = _as_row(scores, dtype)  # (T_k,)
    e = torch.exp(s)  # (T_k,)  inf where s is above the overflow threshold
    return e / e.sum()


def safe_softmax(scores: Row, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """exp(s - max s) / sum exp(s - max s): the same function (the max cancels), but every exp is <= 1."""
    s = _as_row(scores, dtype)  # (T_k,)
    e = torch.exp(s - s.max())  # (T_k,)  in (0, 1], exactly 1 at the max
    return e / e.sum()


@dataclass(frozen=True)
class OnlineSoftmax:
    """One pass over the keys: after key j, m[j] is the max of s[0..j] and l[j] = sum exp(s[0..j] - m[j])."""

    weights: torch.Tensor  # (T_k,)  exp(s - m_final) / l_final
    m: torch.Tensor  # (T_k,)  running max after each key
    l: torch.Tensor  # (T_k,)  running normaliser after each key
    rescale: torch.Tensor  # (T_k,)  exp(m_old - m_new) applied to l at each key (1 when the max did not move)


def online_softmax(scores: Row, dtype: torch.dtype = torch.float32) -> OnlineSoftmax:
    """The softmax without knowing the max in advance: what FlashAttention does with block_k = 1 on one row.

    When a new key beats the running max, the old l was a sum of exp(s - m_old); multiplying it by
    exp(m_old - m_new) turns it into a sum of exp(s - m_new). No exp ever sees a positive argument.
    """
    s = _as_row(scores, dtype)  # (T_k,)
    m = torch.tensor(-math.inf, dtype=dtype)
    l = torch.tensor(0.0, dtype=dtype)
    ms, ls, rescales = [], [], []
    for s_j in s:
        m_new = torch.maximum(m, s_j)
        # Keys that are all -inf so far (a masked key in float16, where -1e9 rounds to -inf): subtract 0,
        # not -inf, so exp gives 0 instead of exp(-inf - (-inf)) = NaN (as tiled_attention's m_safe does).
        m_safe = m_new if m_new > -math.inf else torch.zeros_like(m_new)
        rescale = torch.exp(m - m_safe)  # 0 on the first key (exp(-inf)), 1 while the max stays
        l = l * rescale + torch.exp(s_j - m_safe)
        m = m_new
        ms.append(m)
        ls.append(l)
        rescales.append(rescale)
    weights = torch.exp(s - m) / l  # (T_k,)  the final max and normaliser, applied to every key
    return OnlineSoftmax(weights=weights, m=torch.stack(ms), l=torch.stack(ls), rescale=torch.stack(rescales))


def overflow_threshold(dtype: torch.dtype) -> float:
    """ln(largest finite number): exp(s) overflows to inf for s above this (88.72 float32, 11.09 float16)."""
    return math.log(torch.finfo(dtype).max)


def _rounds_to_inf(x: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """Exact values x (float64) that `dtype` rounds to inf: those at or past the midpoint between its largest
    finite number and the next power of two (round to nearest even: the midpoint itself goes up)."""
    info = torch.finfo(dtype)
    boundary = (info.max + 2.0 ** (math.floor(math.log2(info.max)) + 1)) / 2
    return x >= boundary


@dataclass(frozen=True)
class NaiveFailure:
    """Where exp(s) / sum exp(s) breaks for one row in one dtype, predicted from the scores alone."""

    dtype: str
    threshold: float  # overflow_threshold(dtype)
    exp_overflows: torch.Tensor  # (T_k,) bool: exp(s_j) is inf
    sum_overflows: bool  # sum exp(s) is inf (also when no single exp is, e.g. two scores of 11 in float16)
    sum_underflows: bool  # every exp(s_j) is 0 (all scores very negative): 0 / 0
    nan: torch.Tensor  # (T_k,) bool: weights that come out NaN (inf / inf, or 0 / 0)
    zero: torch.Tensor  # (T_k,) bool: finite exp / inf sum = 0, a weight wrongly wiped out
    ok: bool  # no inf, no NaN, no 0 / 0: the naive weights are a real distribution (if less precise)


def naive_failure(scores: Row, dtype: torch.dtype = torch.float32) -> NaiveFailure:
    """Predict, from the scores and the dtype's range alone, which naive weights come out inf/NaN/0.

    exp(s_j) overflows when its exact value rounds past the dtype's largest number (s_j > threshold);
    the sum overflows when the exact sum of the rounded exps does. Then inf / inf = NaN where exp
    overflowed and finite / inf = 0 elsewhere. If every exp underflows to 0, every weight is 0 / 0 = NaN.
    """
    s = _as_row(scores, dtype)  # (T_k,)
    exact = torch.exp(s.double())  # (T_k,) in float64, which does not overflow below s ~ 709
    exp_over = _rounds_to_inf(exact, dtype)  # (T_k,)
    rounded = exact.to(dtype).double()  # (T_k,) what exp gives in dtype (0 where it underflows)
    sum_over = bool(exp_over.any()) or bool(_rounds_to_inf(rounded.sum(), dtype))
    sum_under = bool((rounded == 0).all())
    if sum_over:
        nan, zero = exp_over.clone(), ~exp_over
    elif sum_under:
        nan, zero = torch.ones_like(exp_over), torch.zeros_like(exp_over)
    else:
        nan, zero = torch.zeros_like(exp_over), torch.zeros_like(exp_over)
    name = next(k for k, v in DTYPES.items() if v == dtype)
    return NaiveFailure(
        dtype=name,
        threshold=overflow_threshold(dtype),
        exp_overflows=exp_over,
        sum_overflows=sum_over,
        sum_underflows=sum_under,
        nan=nan,
        zero=zero,
        ok=not (sum_over or sum_under),
    )
