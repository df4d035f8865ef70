"""Shared K/V heads (GQA/MQA), the KV cache and its accounting, proved against references.

- GQA/MQA output = F.scaled_dot_product_attention(..., enable_gqa=True) = an explicit
  repeat_interleave reference = transformers' LlamaAttention (tiny config, weights copied, rotary = identity).
- Decoding T tokens one at a time with the cache = one causal pass over all T tokens, row by row.
- The accounting formulas against hand-computed numbers and torch's own FLOP counter.
"""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st
from llama_twin import llama_twin
from torch.nn.attention.bias import causal_lower_right
from torch.utils.flop_counter import FlopCounterMode

from core import accounting as A
from core.attention import AttentionTrace, MultiHeadAttention, build_input, build_model, kv_head_rows, repeat_kv
from core.kv_cache import (
    KVCache,
    bottom_right_causal_mask,
    decode_all,
    decode_step,
    generate_without_cache,
    head_groups,
    top_left_causal_mask,
)
from core.limits import KV_CACHE_MAX_TOKENS
from core.masks import causal_mask
from core.reference import torch_reference, torch_twin

pytestmark = pytest.mark.usefixtures("one_torch_thread")

ATOL = 1e-5  # float32, against other implementations
DECODE_ATOL = 1e-6  # cache vs full pass: the same arithmetic on fewer rows (plus DECODE_RTOL of each value)
DECODE_RTOL = 1e-6  # outputs of the unit-variance lesson model reach |2|: float32 rounding grows with the value
FAST = settings(max_examples=40, deadline=None, database=None)

# (d_model, h, h_kv): MHA, GQA and MQA, d_k from 1 to 16
CASES = [(16, 4, 4), (16, 4, 2), (16, 4, 1), (24, 6, 3), (24, 6, 2), (32, 8, 1), (64, 8, 2), (8, 8, 4), (12, 3, 1)]


def close(actual, expected, atol=ATOL, rtol=0.0):
    torch.testing.assert_close(actual, expected, atol=atol, rtol=rtol)


def close_decoded(actual, expected):
    close(actual, expected, atol=DECODE_ATOL, rtol=DECODE_RTOL)


def random_keep(B: int, T_q: int, T_k: int, seed: int) -> torch.Tensor:
    """(B, 1, T_q, T_k) random keep-mask in which every query keeps at least one key."""
    gen = torch.Generator().manual_seed(seed)
    keep = torch.rand(B, T_q, T_k, generator=gen) < 0.5  # (B, T_q, T_k)
    first = torch.randint(T_k, (B, T_q), generator=gen)
    keep[torch.arange(B)[:, None], torch.arange(T_q)[None, :], first] = True
    return keep[:, None]  # (B, 1, T_q, T_k)


def heads_of(model: MultiHeadAttention, query, key, value):
    """Q, K, V split into heads straight from the weights: (B, h, T_q, d_k), (B, h_kv, T_k, d_k) x 2."""
    B, T_q, _ = query.shape
    T_k = key.shape[1]
    q = F.linear(query, model.W_q.weight, model.W_q.bias).view(B, T_q, model.num_heads, model.d_k).transpose(1, 2)
    k = F.linear(key, model.W_k.weight, model.W_k.bias).view(B, T_k, model.num_kv_heads, model.d_k).transpose(1, 2)
    v = F.linear(value, model.W_v.weight, model.W_v.bias).view(B, T_k, model.num_kv_heads, model.d_k).transpose(1, 2)
    return q, k, v


def merge(model: MultiHeadAttention, head_outputs: torch.Tensor) -> torch.Tensor:
    B, _, T_q, _ = head_outputs.shape
    return F.linear(head_outputs.transpose(1, 2).reshape(B, T_q, model.d_model), model.W_o.weight, model.W_o.bias)


def sdpa_reference(model, query, key, value, keep=None) -> torch.Tensor:
    """PyTorch's fused attention with enable_gqa=True (its bool mask: True = takes part, like ours)."""
    q, k, v = heads_of(model, query, key, value)
    with torch.no_grad():
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=keep, enable_gqa=True)  # (B, h, T_q, d_k)
        return merge(model, out)


def repeat_reference(model, query, key, value, keep=None) -> tuple[torch.Tensor, torch.Tensor]:
    """The textbook version: repeat every K/V head for its group with repeat_interleave, then plain MHA."""
    q, k, v = heads_of(model, query, key, value)
    group = model.num_heads // model.num_kv_heads
    k = k.repeat_interleave(group, dim=1)  # (B, h, T_k, d_k)
    v = v.repeat_interleave(group, dim=1)
    with torch.no_grad():
        scores = q @ k.transpose(-2, -1) / math.sqrt(model.d_k)
        if keep is not None:
            scores = scores.masked_fill(~keep, float("-inf"))
        weights = scores.softmax(dim=-1)  # (B, h, T_q, T_k)
        return merge(model, weights @ v), weights


# ------------------------------------------------------------------ GQA / MQA = the references
@FAST
@given(
    h_and_kv=st.sampled_from([(h, g) for h in (1, 2, 3, 4, 6, 8) for g in range(1, h + 1) if h % g == 0]),
    d_k=st.integers(1, 5),
    B=st.integers(1, 3),
    T_q=st.integers(1, 6),
    T_k=st.integers(1, 6),
    cross=st.booleans(),
    mask=st.sampled_from(["none", "random", "causal"]),
    bias=st.booleans(),
    seed=st.integers(0, 10_000),
)
def test_gqa_equals_sdpa_enable_gqa_and_repeat_interleave(h_and_kv, d_k, B, T_q, T_k, cross, mask, bias, seed):
    h, h_kv = h_and_kv
    d_model = h * d_k
    T_k = T_k if cross else T_q
    model = build_model(d_model, h, seed, num_kv_heads=h_kv, bias=bias)
    x = build_input(B, T_q, d_model, seed)
    kv = build_input(B, T_k, d_model, seed + 1) if cross else x
    keep = {
        "none": None,
        "random": random_keep(B, T_q, T_k, seed),
        "causal": bottom_right_causal_mask(T_q, T_k) if T_k >= T_q else None,
    }[mask]
    with torch.no_grad():
        ours, trace = model.forward_with_trace(x, kv, kv, keep)
    close(ours, sdpa_reference(model, x, kv, kv, keep))
    ref_out, ref_weights = repeat_reference(model, x, kv, kv, keep)
    close(ours, ref_out)
    close(trace.weights, ref_weights)
    assert trace.k_heads.shape == (B, h_kv, T_k, d_k) and trace.k_heads_expanded.shape == (B, h, T_k, d_k)
    assert trace.k.shape == (B, T_k, h_kv * d_k)


@pytest.mark.parametrize("d_model,h,h_kv", CASES)
def test_gqa_is_mha_with_each_kv_head_copied_for_its_group(d_model, h, h_kv):
    """GQA = an ordinary MHA whose K/V heads in a group are copies: checked by nn.MultiheadAttention too."""
    gqa = build_model(d_model, h, seed=5, num_kv_heads=h_kv)
    mha = build_model(d_model, h, seed=5)
    with torch.no_grad():
        for name in ("W_k", "W_v"):
            small, big = getattr(gqa, name), getattr(mha, name)
            big.weight.copy_(
                small.weight.view(h_kv, gqa.d_k, d_model).repeat_interleave(h // h_kv, dim=0).reshape(d_model, d_model)
            )
            big.bias.copy_(small.bias.view(h_kv, gqa.d_k).repeat_interleave(h // h_kv, dim=0).reshape(d_model))
    x = build_input(2, 5, d_model, seed=5)
    with torch.no_grad():
        out, trace = gqa.forward_with_trace(x, x, x, causal_mask(5))
        torch_out, torch_weights = torch_reference(mha, x, x, x, causal_mask(5))
    close(out, torch_out)
    close(trace.weights, torch_weights)
    close(trace.k_heads_expanded, mha.forward_with_trace(x, x, x)[1].k_heads, atol=1e-6)


@pytest.mark.parametrize("d_model,h,h_kv", CASES)
def test_trace_shapes_and_what_the_views_are(d_model, h, h_kv):
    model = build_model(d_model, h, seed=2, num_kv_heads=h_kv)
    x = build_input(2, 3, d_model, seed=2)
    with torch.no_grad():
        out, tr = model.forward_with_trace(x, x, x)
        assert torch.equal(out, model(x, x, x))  # the same code with and without the trace
    d_k, g = d_model // h, h // h_kv
    assert model.W_k.weight.shape == model.W_v.weight.shape == (h_kv * d_k, d_model)
    assert tr.k_heads.shape == tr.v_heads.shape == (2, h_kv, 3, d_k)
    assert tr.q_heads.shape == tr.k_heads_expanded.shape == tr.v_heads_expanded.shape == (2, h, 3, d_k)
    for i in range(h):  # query head i reads K/V head i // group, exactly
        assert torch.equal(tr.k_heads_expanded[:, i], tr.k_heads[:, i // g])
        assert torch.equal(tr.v_heads_expanded[:, i], tr.v_heads[:, i // g])
    for name, shape in A.kv_shapes(2, 3, d_model, h, h_kv).items():  # the accounting says the same
        assert tuple(getattr(tr, name).shape) == shape.sizes, name
    assert AttentionTrace.names()[:6] == ("q", "k", "v", "q_heads", "k_heads", "v_heads")
    assert "k_heads_expanded" not in AttentionTrace.names()  # a view, not an exported step


# ------------------------------------------------------------------ build_model and num_kv_heads
@pytest.mark.parametrize("d_model,h,h_kv", CASES)
def test_build_model_keeps_the_group_leaders_kv_rows(d_model, h, h_kv):
    gqa = build_model(d_model, h, seed=11, num_kv_heads=h_kv)
    mha = build_model(d_model, h, seed=11)
    assert torch.equal(gqa.W_q.weight, mha.W_q.weight) and torch.equal(gqa.W_o.bias, mha.W_o.bias)
    rows = kv_head_rows(h, h_kv, d_model // h)
    for name in ("W_k", "W_v"):
        assert torch.equal(getattr(gqa, name).weight, getattr(mha, name).weight[rows])
        assert torch.equal(getattr(gqa, name).bias, getattr(mha, name).bias[rows])
    for j in range(h_kv):  # K/V head j is the MHA's head j * group
        w, b = gqa.head_projection("k", j)
        w_mha, b_mha = mha.head_projection("k", j * (h // h_kv))
        assert torch.equal(w, w_mha) and torch.equal(b, b_mha)
    # so each group's first query head computes what it did in MHA (same K/V: equal up to float32 rounding)
    x = build_input(1, 6, d_model, seed=11)
    with torch.no_grad():
        _, tg = gqa.forward_with_trace(x, x, x, causal_mask(6))
        _, tm = mha.forward_with_trace(x, x, x, causal_mask(6))
    leaders = [j * (h // h_kv) for j in range(h_kv)]
    close_decoded(tg.k_heads, tm.k_heads[:, leaders])
    close_decoded(tg.weights[:, leaders], tm.weights[:, leaders])
    close_decoded(tg.head_outputs[:, leaders], tm.head_outputs[:, leaders])
    if h_kv < h:  # and the others now read their leader's K/V, so they differ from MHA
        others = [i for i in range(h) if i not in leaders]
        assert (tg.weights[:, others] - tm.weights[:, others]).abs().max() > 1e-3


def test_lowering_h_kv_only_drops_kv_heads():
    """The K/V heads kept at h_kv = 2 are among those kept at h_kv = 4 (nested), for the same seed."""
    by_kv = {g: build_model(64, 8, seed=4, num_kv_heads=g) for g in (8, 4, 2, 1)}
    for small, big in ((4, 8), (2, 4), (1, 2)):
        kept_big = {tuple(by_kv[big].W_k.weight[j * 8 : (j + 1) * 8].flatten().tolist()) for j in range(big)}
        for j in range(small):
            assert tuple(by_kv[small].W_k.weight[j * 8 : (j + 1) * 8].flatten().tolist()) in kept_big
    assert by_kv[1].W_k.weight.shape == (8, 64)  # MQA: one head of d_k = 8
    assert torch.equal(build_model(64, 8, seed=4, num_kv_heads=2).W_v.weight, by_kv[2].W_v.weight)  # deterministic


def test_none_and_h_are_the_same_mha():
    a, b = build_model(16, 4, seed=9), build_model(16, 4, seed=9, num_kv_heads=4)
    assert all(torch.equal(p, q) for p, q in zip(a.state_dict().values(), b.state_dict().values()))
    assert a.num_kv_heads == 4 and a.kv_group == 1


def test_repeat_kv_order_and_no_copy_for_mha():
    k = torch.arange(2 * 3 * 1 * 1.0).view(1, 2, 3, 1)  # (B, h_kv=2, T=3, d_k=1)
    assert repeat_kv(k, 1) is k
    assert repeat_kv(k, 2)[0, :, 0, 0].tolist() == [0.0, 0.0, 3.0, 3.0]  # head j serves 2j and 2j+1
    assert head_groups(4, 2) == ((0, 1), (2, 3))
    assert head_groups(6, 1) == ((0, 1, 2, 3, 4, 5),)
    assert head_groups(3, 3) == ((0,), (1,), (2,))
    with pytest.raises(ValueError, match=r"one of \[1, 2, 4\]"):
        head_groups(4, 3)


# ------------------------------------------------------------------ transformers' LlamaAttention
def identity_rotary(B: int, T: int, d_k: int):
    """cos = 1, sin = 0: apply_rotary_pos_emb(q, k) returns q and k unchanged."""
    return torch.ones(B, T, d_k), torch.zeros(B, T, d_k)


@pytest.mark.parametrize("bias", [False, True])
@pytest.mark.parametrize("d_model,h,h_kv", [(16, 4, 2), (16, 4, 1), (24, 6, 3), (32, 8, 2), (16, 4, 4)])
def test_equals_transformers_llama_attention(d_model, h, h_kv, bias):
    model = build_model(d_model, h, seed=21, num_kv_heads=h_kv, bias=bias)
    llama, _ = llama_twin(model)
    assert llama.num_key_value_groups == h // h_kv
    B, T = 2, 7
    x = build_input(B, T, d_model, seed=21)
    keep = causal_mask(T)
    additive = torch.zeros(B, 1, T, T).masked_fill(~keep, float("-inf"))  # Llama adds its mask to the scores
    with torch.no_grad():
        out, trace = model.forward_with_trace(x, x, x, keep)
        theirs, their_weights = llama(x, position_embeddings=identity_rotary(B, T, model.d_k), attention_mask=additive)
    close(out, theirs)
    close(trace.weights, their_weights)


@pytest.mark.parametrize("d_model,h,h_kv", [(16, 4, 2), (32, 8, 1)])
def test_decode_equals_transformers_with_its_dynamic_cache(d_model, h, h_kv):
    """Step by step, our cache and transformers' DynamicCache hold the same K/V and give the same rows."""
    from transformers import DynamicCache

    model = build_model(d_model, h, seed=8, num_kv_heads=h_kv)
    llama, config = llama_twin(model)
    their_cache = DynamicCache(config=config)
    B, T = 1, 6
    x = build_input(B, T, d_model, seed=8)
    cache = KVCache.for_model(model, B)
    for t in range(T):
        ours, _ = decode_step(model, cache, x[:, t : t + 1])
        with torch.no_grad():
            theirs, _ = llama(
                x[:, t : t + 1],
                position_embeddings=identity_rotary(B, 1, model.d_k),
                attention_mask=None,
                cache=their_cache,
            )
        close(ours, theirs)
        their_keys = their_cache.layers[0].keys
        assert their_keys.shape == cache.keys.shape == (B, h_kv, t + 1, model.d_k)
        close(cache.keys, their_keys)
        close(cache.values, their_cache.layers[0].values)


# ------------------------------------------------------------------ decoding = one causal pass
def check_decode_matches_full_pass(model, x, prefill=0):
    B, T, _ = x.shape
    with torch.no_grad():
        full, ft = model.forward_with_trace(x, x, x, causal_mask(T))
    outputs, traces, cache = decode_all(model, x, prefill=prefill)
    close_decoded(outputs, full)
    row = 0
    for step, tr in enumerate(traces):
        T_new = tr.x_new.shape[1]
        t = row + T_new  # tokens cached after this step
        assert tr.position == row
        assert tr.k_cache.shape == tr.v_cache.shape == (B, model.num_kv_heads, t, model.d_k), step
        assert tr.k_heads_expanded.shape == (B, model.num_heads, t, model.d_k)
        assert tr.weights.shape == (B, model.num_heads, T_new, t)
        assert tr.mask.shape == (1, 1, T_new, t)
        close_decoded(tr.output, full[:, row:t])  # the same output rows
        close_decoded(tr.weights, ft.weights[:, :, row:t, :t])  # the same weights on the keys so far
        assert torch.all(ft.weights[:, :, row:t, t:] == 0)  # and the full pass gives later keys exactly 0
        close_decoded(tr.k_cache, ft.k_heads[:, :, :t])  # the cache is the full pass's K, V so far
        close_decoded(tr.v_cache, ft.v_heads[:, :, :t])
        row = t
    assert row == T and cache.shape == (B, model.num_kv_heads, T, model.d_k)
    return traces


@pytest.mark.parametrize("d_model,h,h_kv", CASES)
@pytest.mark.parametrize("B", [1, 3])
def test_decoding_one_token_at_a_time_equals_one_causal_pass(d_model, h, h_kv, B):
    model = build_model(d_model, h, seed=13, num_kv_heads=h_kv)
    x = build_input(B, 8, d_model, seed=13)
    traces = check_decode_matches_full_pass(model, x)
    assert len(traces) == 8
    for t, tr in enumerate(traces):  # one query row per step, against t + 1 cached keys
        assert tr.q_heads.shape == (B, h, 1, d_model // h)
        assert tr.scores.shape == (B, h, 1, t + 1)
        assert bool(tr.mask.all())  # the one row sees every cached key


@FAST
@given(
    h_and_kv=st.sampled_from([(4, 4), (4, 2), (4, 1), (6, 3), (6, 2), (8, 1), (2, 1)]),
    d_k=st.integers(1, 6),
    B=st.integers(1, 2),
    T=st.integers(1, 10),
    prefill=st.integers(0, 10),
    bias=st.booleans(),
    seed=st.integers(0, 10_000),
)
def test_decoding_property(h_and_kv, d_k, B, T, prefill, bias, seed):
    h, h_kv = h_and_kv
    model = build_model(h * d_k, h, seed, num_kv_heads=h_kv, bias=bias)
    check_decode_matches_full_pass(model, build_input(B, T, h * d_k, seed), prefill=min(prefill, T))


def test_generate_without_cache_gives_the_same_rows():
    model = build_model(32, 8, seed=3, num_kv_heads=2)
    x = build_input(2, 7, 32, seed=3)
    with torch.no_grad():
        full = model(x, x, x, causal_mask(7))
    close_decoded(generate_without_cache(model, x), full)
    close_decoded(decode_all(model, x)[0], full)


def test_decode_keeps_the_model_fill_value():
    model = build_model(16, 4, seed=1, num_kv_heads=2, fill_value=float("-inf"))
    x = build_input(1, 5, 16, seed=1)
    traces = check_decode_matches_full_pass(model, x, prefill=3)
    assert traces[0].masked_scores[0, 0, 0, 1].item() == float("-inf")  # the prefill's blocked cells


# ------------------------------------------------------------------ the bottom-right causal mask
@pytest.mark.parametrize("T_q,T_k", [(1, 1), (1, 5), (2, 5), (3, 3), (4, 9), (7, 7)])
def test_bottom_right_mask_is_the_last_rows_of_the_full_causal_mask(T_q, T_k):
    m = bottom_right_causal_mask(T_q, T_k)
    assert m.shape == (1, 1, T_q, T_k) and m.dtype == torch.bool
    assert torch.equal(m, causal_mask(T_k)[:, :, T_k - T_q :])
    assert torch.equal(m[0, 0], causal_lower_right(T_q, T_k)._materialize())  # PyTorch's own name for it
    assert torch.equal(top_left_causal_mask(T_q, T_k)[0, 0], torch.ones(T_q, T_k, dtype=torch.bool).tril())
    assert bool(m[0, 0, -1].all())  # the newest query sees every key
    if T_q == 1:
        assert top_left_causal_mask(1, T_k)[0, 0, 0].tolist() == [True] + [False] * (T_k - 1)


def test_top_left_mask_with_a_cache_is_wrong_and_is_causal_does_that():
    """The classic bug: one new query with is_causal=True sees key 0 only."""
    model = build_model(16, 4, seed=6, num_kv_heads=2)
    x = build_input(1, 6, 16, seed=6)
    cache = KVCache.for_model(model, 1)
    decode_step(model, cache, x[:, :5])  # 5 tokens cached
    out, tr = decode_step(model, cache, x[:, 5:])  # the 6th, with the bottom-right mask
    with torch.no_grad():
        full = model(x, x, x, causal_mask(6))
        q = tr.q_heads
        is_causal = F.scaled_dot_product_attention(q, cache.keys, cache.values, is_causal=True, enable_gqa=True)
        right = F.scaled_dot_product_attention(
            q, cache.keys, cache.values, attn_mask=bottom_right_causal_mask(1, 6), enable_gqa=True
        )
    close_decoded(out[:, 0], full[:, 5])
    close(tr.head_outputs, right)
    close(is_causal, tr.v_heads_expanded[:, :, :1])  # top-left: weight 1 on key 0, so the output is V of token 0
    assert (is_causal - right).abs().max() > 1e-3


# ------------------------------------------------------------------ the cache object
def test_cache_grows_one_row_per_step_and_counts_its_bytes():
    model = build_model(32, 8, seed=1, num_kv_heads=2)
    cache = KVCache.for_model(model, 3)
    assert cache.shape == (3, 2, 0, 4) and len(cache) == 0 and cache.nbytes == 0
    x = build_input(3, 5, 32, seed=1)
    for t in range(1, 6):
        decode_step(model, cache, x[:, t - 1 : t])
        assert cache.shape == (3, 2, t, 4) and cache.values.shape == (3, 2, t, 4) and len(cache) == t
        assert cache.nbytes == A.kv_cache_bytes(1, 2, 4, t, batch=3, bytes_per_value=4) == 2 * 3 * 2 * t * 4 * 4


def test_cache_refuses_wrong_d_model_and_batch_and_stays_usable():
    model = build_model(16, 4, seed=1, num_kv_heads=2)
    cache = KVCache.for_model(model, 2)
    x = build_input(2, 3, 16, seed=1)
    decode_step(model, cache, x[:, :1])
    before = cache.keys.clone()
    with pytest.raises(ValueError, match="d_model 8, the model expects 16"):
        decode_step(model, cache, build_input(2, 1, 8, seed=1))
    with pytest.raises(ValueError, match="batch 3, the cache holds batch 2"):
        decode_step(model, cache, build_input(3, 1, 16, seed=1))
    with pytest.raises(ValueError, match="3-D"):
        decode_step(model, cache, x[0])
    with pytest.raises(ValueError, match="batch 1, the cache holds batch 2"):
        cache.append(torch.zeros(1, 2, 1, 4), torch.zeros(1, 2, 1, 4))
    with pytest.raises(ValueError, match=r"\(2, 2, T_new, 4\)"):
        cache.append(torch.zeros(2, 4, 1, 4), torch.zeros(2, 4, 1, 4))  # 4 heads: the MHA's, not h_kv
    with pytest.raises(ValueError, match="differ"):
        cache.append(torch.zeros(2, 2, 1, 4), torch.zeros(2, 2, 2, 4))
    with pytest.raises(ValueError, match="K/V heads"):
        decode_step(build_model(16, 4, seed=1), cache, x[:, 1:2])  # an MHA model on a GQA cache
    assert torch.equal(cache.keys, before) and len(cache) == 1  # nothing appended by a refused step
    out, _ = decode_step(model, cache, x[:, 1:2])
    with torch.no_grad():
        close_decoded(out[:, 0], model(x[:, :2], x[:, :2], x[:, :2], causal_mask(2))[:, 1])


def test_cache_limit():
    model = build_model(8, 2, seed=1, num_kv_heads=1)
    cache = KVCache.for_model(model, 1, max_tokens=3)
    x = build_input(1, 4, 8, seed=1)
    decode_step(model, cache, x[:, :3])
    with pytest.raises(ValueError, match="at most 3 tokens"):
        decode_step(model, cache, x[:, 3:])
    with pytest.raises(ValueError, match=f"from 1 to {KV_CACHE_MAX_TOKENS}"):
        KVCache(1, 1, 4, max_tokens=KV_CACHE_MAX_TOKENS + 1)
    for bad in (0, -1, 1.5, True, "2"):
        with pytest.raises(ValueError, match="positive integer"):
            KVCache(bad, 1, 4)
    with pytest.raises(ValueError, match="T_k must be from"):
        bottom_right_causal_mask(3, 2)  # more queries than keys
    with pytest.raises(ValueError, match="prefill must be from 0 to 4"):
        decode_all(model, x, prefill=5)
    with pytest.raises(ValueError, match="T \\(tokens to decode\\) must be from 1 to 3"):
        decode_all(model, x, max_tokens=3)  # refused before the first step
    too_long = torch.zeros(1, KV_CACHE_MAX_TOKENS + 1, 8)
    with pytest.raises(ValueError, match=f"must be from 1 to {KV_CACHE_MAX_TOKENS}"):
        generate_without_cache(model, too_long)
    with pytest.raises(ValueError, match=f"must be from 1 to {KV_CACHE_MAX_TOKENS}"):
        decode_all(model, too_long)


def test_export_and_freeze_of_a_gqa_trace():
    """The .npz export lists the 13 steps (no expanded views); a shared, frozen GQA trace is read-only."""
    from core.frozen import freeze, is_frozen
    from lessons import export

    model = build_model(16, 4, seed=1, num_kv_heads=2)
    x = build_input(1, 5, 16, seed=1)
    with torch.no_grad():
        _, tr = model.forward_with_trace(x, x, x, causal_mask(5))
    tensors = export.collect(x, tr, model, causal_mask(5))
    assert [n for n in tensors if n in AttentionTrace.names()] == list(AttentionTrace.names())
    assert not any(n.endswith("_expanded") for n in tensors)
    assert tensors["k_heads"].shape == (1, 2, 5, 4) and tensors["W_k.weight"].shape == (8, 16)
    frozen = freeze(tr)
    assert is_frozen(frozen) and torch.equal(frozen.k_heads_expanded, tr.k_heads_expanded)


# ------------------------------------------------------------------ num_kv_heads errors
@pytest.mark.parametrize(
    "h,bad,allowed",
    [
        (4, 3, "[1, 2, 4]"),
        (4, 0, "[1, 2, 4]"),
        (4, -2, "[1, 2, 4]"),
        (4, 8, "[1, 2, 4]"),
        (6, 4, "[1, 2, 3, 6]"),
        (8, 2.0, "[1, 2, 4, 8]"),
        (8, True, "[1, 2, 4, 8]"),
        (8, "2", "[1, 2, 4, 8]"),
        (1, 2, "[1]"),
    ],
)
def test_bad_num_kv_heads_names_the_allowed_values(h, bad, allowed):
    with pytest.raises(ValueError, match=rf"num_kv_heads must divide num_heads \({h}\): one of {re_escape(allowed)}"):
        MultiHeadAttention(h * 4, h, num_kv_heads=bad)
    with pytest.raises(ValueError, match=re_escape(allowed)):
        build_model(h * 4, h, seed=0, num_kv_heads=bad)
    with pytest.raises(ValueError, match=re_escape(allowed)):
        A.kv_projection_params(h * 4, h, bad)


def re_escape(text: str) -> str:
    import re

    return re.escape(text)


def test_kv_head_index_and_torch_twin_refuse_gqa_misuse():
    model = build_model(16, 4, seed=0, num_kv_heads=2)
    model.head_projection("q", 3)
    model.head_projection("k", 1)
    with pytest.raises(ValueError, match=r"head must be in 0\.\.1, got 2"):
        model.head_projection("v", 2)
    with pytest.raises(ValueError, match="num_kv_heads = num_heads"):
        torch_twin(model)


# ------------------------------------------------------------------ accounting
def test_preset_table_is_consistent():
    names = [p.name for p in A.PRESETS]
    assert names == ["GPT-2 small", "Llama-2-7B", "Llama-3-8B", "Mistral-7B", "Falcon-7B"]
    for p in A.PRESETS:
        assert p.heads * p.head_dim == p.d_model and p.heads % p.kv_heads == 0
        assert p.source.startswith("https://huggingface.co/") and p.source.endswith("/config.json")
    kinds = {p.name: p.attention for p in A.PRESETS}
    assert kinds == {
        "GPT-2 small": "MHA",
        "Llama-2-7B": "MHA",
        "Llama-3-8B": "GQA",
        "Mistral-7B": "GQA",
        "Falcon-7B": "MQA",
    }


@pytest.mark.parametrize(
    "name,tokens,batch,bytes_per_value,expected",
    [
        # 2 x 32 layers x 32 heads x 128 x 4096 tokens x 2 B = 2 GiB
        ("Llama-2-7B", 4096, 1, 2, 2_147_483_648),
        # 2 x 32 x 8 x 128 x 2 B = 128 KiB per token; 8192 tokens = 1 GiB
        ("Llama-3-8B", 8192, 1, 2, 1_073_741_824),
        ("Mistral-7B", 1, 1, 2, 131_072),
        # 2 x 32 x 1 x 64 x 2 B = 8 KiB per token; 2048 tokens, batch 4 = 64 MiB
        ("Falcon-7B", 2048, 4, 2, 67_108_864),
        # 2 x 12 x 12 x 64 x 1024 tokens x 4 B (float32) = 72 MiB
        ("GPT-2 small", 1024, 1, 4, 75_497_472),
    ],
)
def test_kv_cache_bytes_by_hand(name, tokens, batch, bytes_per_value, expected):
    assert A.preset_cache_bytes(A.PRESET_BY_NAME[name], tokens, batch, bytes_per_value) == expected


def test_presets_know_their_context_and_mistrals_window_caps_its_cache():
    """Issue 29: past a model's maximum context no cache exists; Mistral-7B-v0.1's sliding window (4,096) caps its
    rolling cache: 512 MiB at 128k tokens, not 16 GiB."""
    limits = {p.name: p.max_context for p in A.PRESETS}
    assert limits == {
        "GPT-2 small": 1024,
        "Llama-2-7B": 4096,
        "Llama-3-8B": 8192,
        "Mistral-7B": None,
        "Falcon-7B": 2048,
    }
    gpt2, mistral = A.PRESET_BY_NAME["GPT-2 small"], A.PRESET_BY_NAME["Mistral-7B"]
    assert gpt2.fits(1024) and not gpt2.fits(1025) and mistral.fits(131072)
    assert (
        mistral.sliding_window == 4096 and mistral.cached_tokens(131072) == 4096 and mistral.cached_tokens(100) == 100
    )
    assert A.preset_cache_bytes(mistral, 131072) == 512 * 2**20 == A.preset_cache_bytes(mistral, 4096)
    assert A.preset_cache_bytes(gpt2, 1024) == 36 * 2**20


def test_gqa_shrinks_the_cache_by_the_group_size():
    llama3 = A.PRESET_BY_NAME["Llama-3-8B"]
    as_mha = A.preset_cache_bytes(llama3, 8192, kv_heads=32)
    assert as_mha == 4 * A.preset_cache_bytes(llama3, 8192) == 4 * 1024**3
    falcon = A.PRESET_BY_NAME["Falcon-7B"]
    assert A.preset_cache_bytes(falcon, 2048, kv_heads=71) == 71 * A.preset_cache_bytes(falcon, 2048)


def test_kv_projection_params_by_hand_and_from_the_model():
    # Llama-3-8B's k_proj and v_proj: 4096 -> 8 x 128 = 1024, no bias: 2 x 4096 x 1024
    assert A.kv_projection_params(4096, 32, 8, bias=False) == 8_388_608
    assert A.kv_projection_params(4096, 32, 32, bias=False) == 2 * 4096 * 4096  # Llama-2-7B
    assert A.kv_projection_params(4544, 71, 1, bias=False) == 2 * 4544 * 64  # Falcon-7B
    for h_kv in (1, 2, 4, 8):
        for bias in (True, False):
            model = MultiHeadAttention(64, 8, num_kv_heads=h_kv, bias=bias)
            counted = sum(p.numel() for layer in (model.W_k, model.W_v) for p in layer.parameters())
            assert A.kv_projection_params(64, 8, h_kv, bias=bias) == counted
    rows = A.kv_sharing_over_heads(64, 8, tokens=10)
    assert [r.kv_heads for r in rows] == [1, 2, 4, 8] and [r.group for r in rows] == [8, 4, 2, 1]
    assert [r.cache_bytes for r in rows] == [2 * g * 8 * 10 * 4 for g in (1, 2, 4, 8)]


def test_decode_macs_by_hand():
    # d = 16, h = 4, h_kv = 2 (d_k 4, K/V width 8), t = 5:
    # with: 2*16*16 + 2*16*8 + 2*5*16 = 512 + 256 + 160 = 928; without: 5*(512 + 256) + 2*25*16 = 4640
    cost = A.decode_macs(16, 4, 2, 5)
    assert (cost.with_cache, cost.without_cache, cost.saved) == (928, 4640, 3712)
    assert A.decode_macs(16, 4, 2, 5, batch=3).with_cache == 3 * 928
    with pytest.raises(ValueError, match="non-negative"):
        A.decode_macs(16, 4, 2, -1)
    with pytest.raises(ValueError, match="non-negative"):
        A.kv_cache_bytes(1, 1, 1, 10, batch=-2)


def flop_count(fn) -> int:
    with FlopCounterMode(display=False) as counter:
        fn()
    return counter.get_total_flops()


@pytest.mark.parametrize("d_model,h,h_kv,B", [(16, 4, 2, 1), (32, 8, 1, 2), (24, 6, 6, 1)])
def test_decode_macs_equal_torch_flop_counter(d_model, h, h_kv, B):
    """torch counts 2 FLOPs per multiply-add of every matrix product it actually runs."""
    model = build_model(d_model, h, seed=1, num_kv_heads=h_kv)
    x = build_input(B, 7, d_model, seed=1)
    cache = KVCache.for_model(model, B)
    for t in range(1, 8):
        flops = flop_count(lambda t=t: decode_step(model, cache, x[:, t - 1 : t]))
        cost = A.decode_macs(d_model, h, h_kv, t, batch=B)
        assert flops == 2 * cost.with_cache, t
        prefix = x[:, :t]
        with torch.no_grad():
            full = flop_count(lambda prefix=prefix, t=t: model(prefix, prefix, prefix, causal_mask(t)))
        assert full == 2 * cost.without_cache, t
