"""Proofs for core/softmax_numerics.py: the claims of "softmax up close", in numbers.

- safe and online softmax = torch.softmax <= 1e-6 (float32) on rows where the naive one overflows;
  in float16 within two float16 steps (2 * 2^-10) of the float32 softmax of the same inputs;
- the naive softmax overflows exactly where `naive_failure` says (float16 and float32), checked on every
  finite float16 and on 400,000 float32 values around the threshold;
- the entropy order ÷1 <= ÷sqrt(d_k) <= ÷d_k holds in every row (it is a theorem, not luck) and, over
  100 seeds x 8 rows per setting, the means behave as the lesson says (tolerances stated at each check);
- the variance of q·k is d_k within 5 standard errors.
"""

from __future__ import annotations

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from core import limits
from core.softmax_numerics import (
    SCALE_NAMES,
    dot_variance,
    entropy,
    gradient_size,
    naive_failure,
    naive_softmax,
    online_softmax,
    overflow_threshold,
    random_scores,
    safe_softmax,
    scale_variants,
    softmax_jacobian,
)

pytestmark = pytest.mark.usefixtures("one_torch_thread")
SETTINGS = settings(max_examples=60, deadline=None, derandomize=True)
TOL32 = 1e-6
TOL16 = 2 * 2.0**-10  # two float16 steps at 1: the inputs, each exp and the division all round to 11 bits

rows = st.lists(st.floats(-200, 200, width=32), min_size=1, max_size=32)


def big_row(draw_row, dtype):
    """A row pushed up so its top score is past the dtype's overflow threshold (the naive one must fail)."""
    s = torch.tensor(draw_row, dtype=torch.float32)
    return (s - s.max() + overflow_threshold(dtype) + 1.0).to(dtype)


# ---------------------------------------------------------------- safe and online are exact where naive fails
@SETTINGS
@given(row=rows)
def test_safe_and_online_equal_torch_softmax_where_naive_overflows_float32(row):
    s = big_row(row, torch.float32)  # (T_k,), max = 89.72 > 88.72
    naive = naive_softmax(s)
    assert not naive_failure(s).ok and torch.isnan(naive).any()  # the naive one really breaks here
    ref = torch.softmax(s, dim=-1)
    assert (safe_softmax(s) - ref).abs().max() <= TOL32
    assert (online_softmax(s).weights - ref).abs().max() <= TOL32
    assert torch.isfinite(online_softmax(s).l).all()


@SETTINGS
@given(row=st.lists(st.floats(-30, 30, width=16), min_size=1, max_size=32))
def test_safe_and_online_in_float16_stay_within_two_float16_steps(row):
    s = big_row(row, torch.float16)  # (T_k,) float16, max ~ 12.1 > 11.09
    assert not naive_failure(s, torch.float16).ok
    assert not torch.isfinite(torch.exp(s)).all()
    ref = torch.softmax(s.float(), dim=-1)  # the exact-ish answer for these float16 inputs
    for w in (safe_softmax(s, torch.float16), online_softmax(s, torch.float16).weights):
        assert w.dtype == torch.float16 and torch.isfinite(w).all()
        assert (w.float() - ref).abs().max() <= TOL16


def test_a_readable_example():
    s = torch.tensor([1.0, 50.0, 90.0, 100.0])
    assert torch.isnan(naive_softmax(s)[2:]).all() and naive_softmax(s)[:2].tolist() == [0.0, 0.0]
    assert safe_softmax(s)[3] == pytest.approx(1 / (1 + math.exp(-10)), abs=1e-7)
    o = online_softmax(s)
    assert o.m.tolist() == [1.0, 50.0, 90.0, 100.0]  # the running max moved at every key
    assert o.rescale[0] == 0 and o.rescale[1] == pytest.approx(math.exp(-49))
    assert torch.allclose(o.l, torch.ones(4), atol=1e-4)  # each new key dwarfs the ones before
    s16 = torch.tensor([11.0, 11.0])  # exp(11) = 59874 fits float16, but the sum 119748 does not
    f = naive_failure(s16, torch.float16)
    assert not f.exp_overflows.any() and f.sum_overflows and f.zero.all()
    assert naive_softmax(s16, torch.float16).tolist() == [0.0, 0.0]  # every weight wiped out, no NaN in sight


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
def test_online_softmax_survives_masked_keys_before_the_first_kept_one(dtype):
    """A masked row in float16: the seed's fill -1e9 rounds to -inf there. Keys that are all -inf so far must
    add 0 to l (not exp(-inf - (-inf)) = NaN), so the online softmax equals torch.softmax like the safe one."""
    for fill in (-1e9, float("-inf")):
        s = torch.tensor([fill, fill, 1.0, 2.0, fill]).to(dtype)
        ref = torch.softmax(s.float(), dim=-1)  # [0, 0, 0.2689, 0.7311, 0]
        o = online_softmax(s, dtype)
        assert torch.isfinite(o.weights).all() and torch.isfinite(o.l).all()
        assert float((o.weights.float() - ref).abs().max()) <= (TOL32 if dtype == torch.float32 else TOL16)
        assert o.weights[[0, 1, 4]].tolist() == [0.0, 0.0, 0.0]
    assert torch.isnan(online_softmax(torch.full((3,), float("-inf"))).weights).all()  # like torch.softmax


def test_the_float16_sum_overflows_at_the_rounding_midpoint_not_at_the_largest_number():
    """65504 is float16's largest number, 65536 would be the next: exact sums below their midpoint 65520
    round down to 65504 (finite), sums from 65520 up round to inf. Found by searching all float16 pairs."""
    below = torch.tensor([9.1328125, 10.9375], dtype=torch.float16)  # exps 5640 + 59872 = 65512
    above = torch.tensor([11.0, 8.640625], dtype=torch.float16)  # exps 59872 + 5656 = 65528
    assert float(torch.exp(below).double().sum()) == 65512 and float(torch.exp(above).double().sum()) == 65528
    assert naive_failure(below, torch.float16).ok and torch.isfinite(naive_softmax(below, torch.float16)).all()
    f = naive_failure(above, torch.float16)
    assert f.sum_overflows and not f.exp_overflows.any()
    assert naive_softmax(above, torch.float16).tolist() == [0.0, 0.0]


@SETTINGS
@given(row=rows)
def test_online_running_state_is_the_max_and_sum_so_far(row):
    s = torch.tensor(row, dtype=torch.float32)
    o = online_softmax(s)
    assert torch.equal(o.m, torch.cummax(s, 0).values)
    s64 = s.double()
    for j in range(len(row)):
        expected = torch.exp(s64[: j + 1] - s64[: j + 1].max()).sum()
        assert float(o.l[j]) == pytest.approx(float(expected), rel=TOL32 * (j + 1))


# ---------------------------------------------------------------- naive overflows exactly where predicted
def test_float16_exp_overflows_exactly_where_predicted_for_every_float16():
    bits = torch.arange(-(2**15), 2**15, dtype=torch.int32).to(torch.int16)  # every 16-bit pattern
    s = bits.view(torch.float16)
    s = s[torch.isfinite(s)]  # (63488,) every finite float16
    for chunk in s.split(limits.SOFTMAX_ROW_MAX):
        f = naive_failure(chunk, torch.float16)
        assert torch.equal(f.exp_overflows, torch.isinf(torch.exp(chunk)))
    first = s[torch.isinf(torch.exp(s))].min()
    assert float(first) == 11.09375 > overflow_threshold(torch.float16) > 11.0859375  # 11.0859 is the float16 below


def test_float32_exp_overflows_exactly_where_predicted_around_the_threshold():
    t = torch.tensor(overflow_threshold(torch.float32), dtype=torch.float32)  # 88.72284
    s = (t.view(torch.int32) + torch.arange(-200_000, 200_000, dtype=torch.int32)).view(torch.float32)
    agree = torch.cat(
        [torch.eq(naive_failure(c).exp_overflows, torch.isinf(torch.exp(c))) for c in s.split(limits.SOFTMAX_ROW_MAX)]
    )
    assert agree.all()
    assert 100_000 < int(torch.isinf(torch.exp(s)).sum()) < 300_000  # the sweep really straddles it


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
@settings(max_examples=200, deadline=None, derandomize=True)
@given(
    row=st.lists(st.floats(-1.0, 1.0), min_size=1, max_size=32),
    centre=st.floats(-1.3, 1.3),
    spread=st.sampled_from([0.0, 0.01, 0.1, 1.0, 10.0]),
)
def test_naive_result_is_nan_zero_or_right_exactly_where_predicted(dtype, row, centre, spread):
    """Rows centred anywhere from well below the underflow point to past the overflow point (in units of the
    threshold), tight or spread: the naive weights are NaN, 0 or a real softmax exactly as predicted."""
    thr = overflow_threshold(dtype)
    s = (torch.tensor(row, dtype=torch.float64) * spread * thr + centre * thr).to(dtype)  # (T_k,)
    f = naive_failure(s, dtype)
    w = naive_softmax(s, dtype)
    assert torch.equal(f.exp_overflows, torch.isinf(torch.exp(s)))
    assert torch.equal(torch.isnan(w), f.nan)
    assert bool((w[f.zero] == 0).all())
    assert torch.isinf(torch.exp(s).sum()).item() == f.sum_overflows
    if f.ok:
        assert torch.isfinite(w).all() and float(w.double().sum()) == pytest.approx(1.0, abs=len(row) * 2.0**-8)


# exp(-120) is 0 in float32 (its smallest number, 1.4e-45, is ~exp(-103)); exp(-20) is 0 in float16 (6e-8 ~ exp(-16.6))
@pytest.mark.parametrize("dtype, low", [(torch.float32, -120.0), (torch.float16, -20.0)])
def test_all_very_negative_scores_underflow_to_nan_in_naive_only(dtype, low):
    s = torch.tensor([low, low, low - 1, low - 2], dtype=dtype)
    f = naive_failure(s, dtype)
    assert f.sum_underflows and not f.sum_overflows and f.nan.all() and torch.isnan(naive_softmax(s, dtype)).all()
    ref = torch.softmax(s.float(), -1)
    for w in (safe_softmax(s, dtype), online_softmax(s, dtype).weights):
        assert (w.float() - ref).abs().max() <= (TOL32 if dtype == torch.float32 else TOL16)


# ---------------------------------------------------------------- why ÷ sqrt(d_k)
def variants_over_seeds(d_k, T_k, seeds=100, rows=8):
    """Entropy and gradient of every row under each divisor, for `seeds` x `rows` random rows."""
    out = {n: {"entropy": [], "gradient": []} for n in SCALE_NAMES}
    for seed in range(seeds):
        v = scale_variants(random_scores(d_k, T_k, rows, seed), d_k)
        for n in SCALE_NAMES:
            out[n]["entropy"].append(v[n].entropy)
            out[n]["gradient"].append(v[n].gradient)
    return {n: {k: torch.cat(x) for k, x in d.items()} for n, d in out.items()}


D_KS = (4, 16, 64, 512)


@pytest.mark.parametrize("T_k", [8, 32])
def test_entropy_order_holds_in_every_row_and_the_means_move_as_claimed(T_k):
    """800 rows per d_k (100 seeds x 8 rows). Every row: H(÷1) <= H(÷sqrt d_k) <= H(÷d_k) up to 1e-6 nats
    of float rounding, strictly in at least 99% of rows. Means (standard error ~0.02 nats at 800 rows):
    ÷sqrt(d_k) stays within 0.1 nats (5 s.e.) whatever d_k, ÷1 falls with every step of d_k to under 15%
    of it at d_k = 512, ÷d_k ends within 0.01 nats of log(T_k) (uniform)."""
    means = {}
    for d_k in D_KS:
        v = variants_over_seeds(d_k, T_k)
        h1, hs, hd = (v[n]["entropy"] for n in SCALE_NAMES)
        assert bool((h1 <= hs + 1e-6).all()) and bool((hs <= hd + 1e-6).all())
        strict = ((h1 < hs - 1e-6) & (hs < hd - 1e-6)).float().mean()
        assert strict >= 0.99, (d_k, float(strict))
        means[d_k] = [float(h.mean()) for h in (h1, hs, hd)]
    level = [means[d][1] for d in D_KS]
    assert max(level) - min(level) <= 0.1, level
    falling = [means[d][0] for d in D_KS]
    assert falling == sorted(falling, reverse=True) and falling[-1] < 0.15 * level[-1], falling
    assert means[512][2] == pytest.approx(math.log(T_k), abs=0.01)


@pytest.mark.parametrize("T_k", [8, 32])
def test_the_gradient_dies_without_scaling_and_stays_level_with_sqrt_d_k(T_k):
    """Mean Frobenius norm of the softmax Jacobian over 800 rows: ÷1 falls with every step of d_k (to under
    40% of ÷sqrt(d_k)'s at d_k = 512; measured 18% at T_k = 8, 33% at T_k = 32), ÷sqrt(d_k) stays within 10%.
    (It is not monotone in the divisor: at small d_k and T_k = 32, ÷1's rows are sharper yet pass more
    gradient than ÷sqrt(d_k)'s; the uniform row of ÷d_k gives sqrt(T_k - 1) / T_k.)"""
    g = {d_k: [float(variants_over_seeds(d_k, T_k)[n]["gradient"].mean()) for n in SCALE_NAMES] for d_k in D_KS}
    level = [g[d][1] for d in D_KS]
    assert max(level) <= 1.1 * min(level), level
    falling = [g[d][0] for d in D_KS]
    assert falling == sorted(falling, reverse=True) and falling[-1] < 0.4 * level[-1], g
    assert g[512][2] == pytest.approx(math.sqrt(T_k - 1) / T_k, rel=0.02)


def test_at_d_k_1_the_three_divisors_are_the_same():
    v = scale_variants(random_scores(1, 8, 16, 0), 1)
    assert torch.equal(v["1"].weights, v["sqrt_d_k"].weights) and torch.equal(v["1"].weights, v["d_k"].weights)


def test_saturation_measures_at_the_extremes():
    T = 8
    uniform = torch.full((T,), 1 / T)
    one_hot = torch.nn.functional.one_hot(torch.tensor(3), T).float()
    assert float(entropy(uniform)) == pytest.approx(math.log(T), abs=1e-6) and float(entropy(one_hot)) == 0.0
    assert float(gradient_size(uniform)) == pytest.approx(math.sqrt(T - 1) / T, abs=1e-6)
    assert float(gradient_size(one_hot)) == 0.0
    v = scale_variants(torch.tensor([[0.0, 0.0, 400.0, 0.0]]), 4)  # one score far above: ÷1 is one-hot
    assert v["1"].max_weight.item() == 1.0 and v["1"].gradient.item() == 0.0 and v["1"].entropy.item() == 0.0
    assert v["d_k"].max_weight.item() == 1.0  # 400 / 4 = 100 is still far above: saturated too


@settings(max_examples=30, deadline=None, derandomize=True)
@given(row=st.lists(st.floats(-5, 5, width=32), min_size=1, max_size=12))
def test_the_jacobian_is_what_autograd_says(row):
    s = torch.tensor(row, dtype=torch.float32)
    w = torch.softmax(s, -1)
    auto = torch.autograd.functional.jacobian(lambda x: torch.softmax(x, -1), s)  # (T_k, T_k)
    assert torch.allclose(softmax_jacobian(w), auto, atol=TOL32)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_variance_of_q_dot_k_is_d_k(seed):
    """q·k of N(0, 1) components: Var = d_k. The sample variance of n draws has standard error
    sqrt((2 d_k^2 + 6 d_k) / n) (from E[(q·k)^4] = 3 d_k^2 + 6 d_k); each estimate must be within 5 of them."""
    n = 20_000
    for r in dot_variance([1, 2, 4, 16, 64, 512], n, seed):
        se = math.sqrt((2 * r.d_k**2 + 6 * r.d_k) / n)
        assert abs(r.variance - r.expected) <= 5 * se, (r.d_k, r.variance)
        assert abs(r.scaled_variance - 1) <= 5 * se / r.d_k


# ---------------------------------------------------------------- bad input
def test_bad_input_is_refused_with_the_limit():
    with pytest.raises(ValueError, match="one row"):
        safe_softmax(torch.zeros(2, 3))
    with pytest.raises(ValueError, match="one row"):
        naive_softmax(torch.zeros(limits.SOFTMAX_ROW_MAX + 1))
    with pytest.raises(ValueError, match="one row"):
        online_softmax(torch.zeros(0))
    with pytest.raises(ValueError, match="float32 or float16"):
        safe_softmax(torch.zeros(3), torch.float64)
    with pytest.raises(ValueError, match="draws"):
        dot_variance([4], limits.VARIANCE_DRAWS_MAX + 1, 0)
    with pytest.raises(ValueError, match="d_k"):
        dot_variance([limits.VARIANCE_D_K_MAX + 1], 10, 0)
    with pytest.raises(ValueError, match="d_k"):
        scale_variants(torch.zeros(3), 0)
