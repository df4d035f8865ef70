"""Numerical edge cases of core.attention and core.masks: huge logits, fully blocked rows, h = d_model,
T = 1, T_q != T_k. Each gives the result its docstring promises (core/attention.py, core/masks.py)."""

from __future__ import annotations

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from core.attention import MultiHeadAttention, build_input, build_model
from core.masks import FILL_NEG_INF, FILL_SEED, causal_mask, custom_mask, fully_blocked_rows
from core.reference import torch_reference

pytestmark = pytest.mark.usefixtures("one_torch_thread")
SETTINGS = settings(max_examples=40, deadline=None, derandomize=True)
dims = st.sampled_from([(4, 1), (4, 2), (4, 4), (8, 2), (8, 8), (16, 4), (16, 16)])  # (d_model, h), h = d_model too
lengths = st.integers(1, 6)


def run(model, q, kv, mask=None):
    with torch.no_grad():
        return model.forward_with_trace(q, kv, kv, mask)


@SETTINGS
@given(dims=dims, T_q=lengths, T_k=lengths, seed=st.integers(0, 10_000), scale=st.sampled_from([1.0, 1e2, 1e4]))
def test_huge_finite_logits_keep_rows_that_sum_to_one(dims, T_q, T_k, seed, scale):
    d_model, h = dims
    model = build_model(d_model, h, seed)
    q = build_input(2, T_q, d_model, seed) * scale
    kv = build_input(2, T_k, d_model, seed + 1) * scale
    _, trace = run(model, q, kv)
    assert trace.weights.shape == (2, h, T_q, T_k) and trace.output.shape == (2, T_q, d_model)
    if torch.isfinite(trace.scores).all():
        w = trace.weights
        assert torch.isfinite(w).all() and (w >= 0).all() and (w <= 1).all()
        assert torch.allclose(w.sum(-1), torch.ones(2, h, T_q), atol=1e-5)
        assert torch.isfinite(trace.output).all()


@SETTINGS
@given(dims=dims, T=lengths, seed=st.integers(0, 10_000))
def test_one_dominant_key_gives_a_one_hot_row(dims, T, seed):
    """Weights of 1e4: the scores are ~1e8 apart, the softmax is exactly one-hot on the top key."""
    d_model, h = dims
    model = build_model(d_model, h, seed)
    with torch.no_grad():
        for layer in (model.W_q, model.W_k):
            layer.weight.mul_(1e4)
    x = build_input(1, T, d_model, seed)
    _, trace = run(model, x, x)
    w = trace.weights
    if T > 1 and torch.isfinite(trace.scaled_scores).all():
        top = trace.scaled_scores.argmax(-1, keepdim=True)
        gap = trace.scaled_scores.gather(-1, top) - trace.scaled_scores.masked_fill(
            torch.nn.functional.one_hot(top[..., 0], T).bool(), -math.inf
        ).amax(-1, keepdim=True)
        clear = gap[..., 0] > 200  # exp(-200) underflows to 0 in float32
        assert torch.equal(w.gather(-1, top)[..., 0][clear], torch.ones_like(w[..., 0][clear]))
    assert torch.allclose(w.sum(-1), torch.ones_like(w[..., 0]), atol=1e-5)


def test_overflowing_scores_are_inf_and_their_rows_nan_as_documented():
    model = build_model(8, 2, 0)
    x = torch.full((1, 3, 8), 1e30)
    _, trace = run(model, x, x)
    s = trace.scaled_scores
    assert not torch.isfinite(s).all()
    bad_rows = (torch.isnan(s) | (s == math.inf)).any(-1)  # (B, h, T_q)
    assert bad_rows.any() and torch.isnan(trace.weights[bad_rows]).all()
    good = torch.isfinite(s).all(-1)
    assert torch.allclose(trace.weights[good].sum(-1), torch.ones(int(good.sum())))


@SETTINGS
@given(dims=dims, T_q=lengths, T_k=lengths, seed=st.integers(0, 10_000), data=st.data())
def test_fully_blocked_rows_by_fill_value(dims, T_q, T_k, seed, data):
    """-1e9: a fully blocked row is uniform 1/T_k; other rows have exactly 0 on blocked cells.
    -inf: a fully blocked row is NaN; other rows are exactly what -1e9 gives."""
    d_model, h = dims
    grid = torch.tensor(
        data.draw(st.lists(st.lists(st.booleans(), min_size=T_k, max_size=T_k), min_size=T_q, max_size=T_q))
    )
    mask = custom_mask(grid)
    q = build_input(1, T_q, d_model, seed)
    kv = build_input(1, T_k, d_model, seed + 1)
    full = fully_blocked_rows(mask, 1, T_q, T_k)[0]  # (T_q,)
    _, seed_trace = run(build_model(d_model, h, seed, fill_value=FILL_SEED), q, kv, mask)
    _, inf_trace = run(build_model(d_model, h, seed, fill_value=FILL_NEG_INF), q, kv, mask)
    ws, wi = seed_trace.weights[0], inf_trace.weights[0]  # (h, T_q, T_k)
    assert torch.allclose(ws[:, full], torch.full_like(ws[:, full], 1.0 / T_k))
    assert torch.isnan(wi[:, full]).all()
    ok = ~full
    blocked = ~grid[ok][None].expand(h, -1, -1)
    assert (ws[:, ok][blocked] == 0).all() and (wi[:, ok][blocked] == 0).all()
    assert torch.allclose(ws[:, ok], wi[:, ok], atol=1e-6)
    assert torch.isfinite(seed_trace.output).all()
    assert torch.isnan(inf_trace.output[0, full]).all() and torch.isfinite(inf_trace.output[0, ok]).all()


def test_the_seed_fill_stops_blocking_below_minus_1e9_as_documented():
    """Scores far below -1e9 (logits of ~-1e10): a -1e9 cell now beats them; -inf still blocks."""
    model = MultiHeadAttention(1, 1, bias=False, fill_value=FILL_SEED)
    with torch.no_grad():
        for layer in (model.W_q, model.W_k, model.W_v, model.W_o):
            layer.weight.fill_(1.0)
    q = torch.tensor([[[-1e5]]])
    kv = torch.tensor([[[1e5], [2.0]]])  # scores -1e10 (kept) and -2e5 (blocked)
    mask = torch.tensor([[True, False]])
    _, trace = run(model, q, kv, mask)
    assert trace.weights[0, 0, 0].tolist() == [0.0, 1.0]  # the blocked key wins: the fill is not low enough
    model.fill_value = FILL_NEG_INF
    _, trace = run(model, q, kv, mask)
    assert trace.weights[0, 0, 0].tolist() == [1.0, 0.0]


@SETTINGS
@given(d_model=st.sampled_from([1, 2, 4, 8, 16]), T=lengths, seed=st.integers(0, 10_000))
def test_h_equal_to_d_model_matches_pytorch(d_model, T, seed):
    model = build_model(d_model, d_model, seed)
    assert model.d_k == 1
    x = build_input(1, T, d_model, seed)
    out, trace = run(model, x, x, causal_mask(T))
    ref_out, ref_w = torch_reference(model, x, x, x, causal_mask(T))
    assert torch.allclose(trace.scaled_scores, trace.scores)  # divided by sqrt(1) = 1
    assert torch.allclose(out, ref_out, atol=1e-5) and torch.allclose(trace.weights, ref_w, atol=1e-6)


@SETTINGS
@given(dims=dims, T_k=lengths, seed=st.integers(0, 10_000))
def test_a_single_query_and_a_single_key(dims, T_k, seed):
    d_model, h = dims
    model = build_model(d_model, h, seed)
    q = build_input(1, 1, d_model, seed)
    one = build_input(1, 1, d_model, seed + 1)
    _, trace = run(model, q, one)  # T = 1: the only key gets everything
    assert torch.equal(trace.weights, torch.ones(1, h, 1, 1))
    # the output is then W_o(V of that key), whatever the query
    expected = model.W_o(model.W_v(one))
    assert torch.allclose(trace.output, expected.detach(), atol=1e-5)
    kv = build_input(1, T_k, d_model, seed + 2)
    out, trace = run(model, q, kv)  # T_q = 1, T_k keys
    assert trace.weights.shape == (1, h, 1, T_k)
    assert torch.allclose(out, torch_reference(model, q, kv, kv)[0], atol=1e-5)


@SETTINGS
@given(dims=dims, T_q=lengths, T_k=lengths, seed=st.integers(0, 10_000))
def test_cross_attention_shapes_and_values_match_pytorch(dims, T_q, T_k, seed):
    d_model, h = dims
    model = build_model(d_model, h, seed)
    q = build_input(2, T_q, d_model, seed)
    kv = build_input(2, T_k, d_model, seed + 1)
    mask = causal_mask(T_q, T_k)  # top-left aligned: query i sees keys 0..i
    out, trace = run(model, q, kv, mask)
    assert trace.scores.shape == (2, h, T_q, T_k) and out.shape == (2, T_q, d_model)
    ref_out, ref_w = torch_reference(model, q, kv, kv, mask)
    assert torch.allclose(out, ref_out, atol=1e-5) and torch.allclose(trace.weights, ref_w, atol=1e-6)
