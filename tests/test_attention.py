"""MultiHeadAttention against PyTorch's own, its trace, its invariants and its failure modes.

Run with `.venv/bin/python -m pytest` from the repository root.
"""

from __future__ import annotations

import dataclasses
import math

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st

from core import masks
from core.accounting import tensor_shapes, totals
from core.attention import AttentionTrace, MultiHeadAttention, build_input, build_model
from core.reference import max_abs_diff, torch_reference, torch_twin

ATOL = 1e-5  # float32
FAST = settings(max_examples=40, deadline=None, database=None)


pytestmark = pytest.mark.usefixtures("one_torch_thread")

TRACE_ORDER = (
    "q",
    "k",
    "v",
    "q_heads",
    "k_heads",
    "v_heads",
    "scores",
    "scaled_scores",
    "masked_scores",
    "weights",
    "head_outputs",
    "concat",
    "output",
)

# (d_model, h): h = 1 (one full-width head), h = d_model (d_k = 1), and the usual in between.
DIMS = [(8, 1), (8, 8), (12, 3), (16, 4), (24, 6), (32, 2), (64, 8), (16, 16)]


def close(actual, expected, atol=ATOL):
    torch.testing.assert_close(actual, expected, atol=atol, rtol=0)


def torch_attn_mask(keep: torch.Tensor, B: int, h: int, T_q: int, T_k: int) -> torch.Tensor:
    """Our keep-mask (any broadcastable shape) as nn.MultiheadAttention's (B*h, T_q, T_k) True = blocked."""
    keep4 = keep if keep.dim() == 4 else keep[None, None]  # (·, ·, T_q, T_k)
    blocked = masks.flip_polarity(keep4).expand(B, h, T_q, T_k)  # (B, h, T_q, T_k)
    return blocked.reshape(B * h, T_q, T_k)  # (B*h, T_q, T_k), batch-major like torch's heads


def random_keep(B: int, T_q: int, T_k: int, seed: int, p: float = 0.5) -> torch.Tensor:
    """(B, 1, T_q, T_k) random keep-mask in which every query keeps at least one key."""
    gen = torch.Generator().manual_seed(seed)
    keep = torch.rand(B, T_q, T_k, generator=gen) < p  # (B, T_q, T_k)
    first = torch.randint(T_k, (B, T_q), generator=gen)  # one guaranteed key per query
    keep[torch.arange(B)[:, None], torch.arange(T_q)[None, :], first] = True
    return keep[:, None]  # (B, 1, T_q, T_k)


def run_both(model, query, key, value, keep=None, *, torch_kwargs=None):
    """Our output + trace and torch's output + per-head weights on the same inputs."""
    B, T_q, _ = query.shape
    T_k = key.shape[1]
    twin = torch_twin(model)
    if torch_kwargs is None:
        torch_kwargs = {} if keep is None else {"attn_mask": torch_attn_mask(keep, B, model.num_heads, T_q, T_k)}
    with torch.no_grad():
        ours, trace = model.forward_with_trace(query, key, value, keep)
        theirs, weights = twin(query, key, value, need_weights=True, average_attn_weights=False, **torch_kwargs)
    return ours, trace, theirs, weights


def assert_matches_torch(model, query, key, value, keep=None, **kw):
    ours, trace, theirs, weights = run_both(model, query, key, value, keep, **kw)
    close(ours, theirs)
    close(trace.weights, weights)  # (B, h, T_q, T_k) per head
    # The attention step alone, against PyTorch's fused kernel (bool mask: True = keep, like ours).
    sdpa = F.scaled_dot_product_attention(
        trace.q_heads, trace.k_heads, trace.v_heads, attn_mask=None if keep is None else keep.bool()
    )
    close(trace.head_outputs, sdpa)
    return trace


# --------------------------------------------------------------------------------------------
# Equality with PyTorch
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("d_model,h", DIMS)
def test_self_attention_matches_torch_no_mask(d_model, h, bias):
    model = build_model(d_model, h, seed=3, bias=bias)
    x = build_input(2, 5, d_model, seed=3)
    assert_matches_torch(model, x, x, x)


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("d_model,h", DIMS)
def test_causal_matches_torch(d_model, h, bias):
    model = build_model(d_model, h, seed=4, bias=bias)
    x = build_input(3, 6, d_model, seed=4)
    keep = masks.causal_mask(6)  # (1, 1, 6, 6)
    assert_matches_torch(model, x, x, x, keep)
    # Also as torch's own 2-D (T_q, T_k) attn_mask and as is_causal-style upper triangle.
    blocked_2d = torch.ones(6, 6, dtype=torch.bool).triu(1)
    assert_matches_torch(model, x, x, x, keep, torch_kwargs={"attn_mask": blocked_2d})


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("d_model,h", [(8, 1), (16, 4), (16, 16), (64, 8)])
def test_key_padding_from_lengths_matches_torch(d_model, h, bias):
    B, T = 3, 7
    model = build_model(d_model, h, seed=5, bias=bias)
    x = build_input(B, T, d_model, seed=5)
    keep = masks.padding_mask_from_lengths([7, 4, 1], T)  # (B, 1, 1, T_k)
    assert keep.shape == (B, 1, 1, T)
    # torch's key_padding_mask is (B, T_k) with True = padding = blocked.
    key_padding = masks.flip_polarity(keep)[:, 0, 0, :]  # (B, T_k)
    assert_matches_torch(model, x, x, x, keep, torch_kwargs={"key_padding_mask": key_padding})
    assert_matches_torch(model, x, x, x, keep)  # the same, as a (B*h, T_q, T_k) attn_mask


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("d_model,h", [(8, 2), (12, 12), (32, 4)])
def test_key_padding_from_flags_matches_torch(d_model, h, bias):
    B, T = 2, 5
    is_pad = torch.tensor(
        [[False, False, True, False, True], [False, True, True, True, True]]
    )  # (B, T_k), True = padding
    keep = masks.padding_mask_from_flags(is_pad)  # (B, 1, 1, T_k)
    model = build_model(d_model, h, seed=6, bias=bias)
    x = build_input(B, T, d_model, seed=6)
    assert_matches_torch(model, x, x, x, keep, torch_kwargs={"key_padding_mask": is_pad})


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("d_model,h", [(8, 4), (16, 1), (24, 6)])
def test_custom_masks_match_torch(d_model, h, bias):
    model = build_model(d_model, h, seed=7, bias=bias)
    x = build_input(2, 4, d_model, seed=7)
    grid = masks.mask_from_text("1001.0110.1111.0001", 4, 4)  # (T_q, T_k)
    for keep in (masks.custom_mask(grid), grid, grid.int(), random_keep(2, 4, 4, seed=d_model)):
        assert_matches_torch(model, x, x, x, keep)


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("d_model,h", [(8, 2), (16, 16), (64, 8)])
def test_causal_and_padding_combined_match_torch(d_model, h, bias):
    B, T = 3, 6
    causal = masks.causal_mask(T)  # (1, 1, T, T)
    padding = masks.padding_mask_from_lengths([6, 3, 2], T)  # (B, 1, 1, T)
    keep = masks.combine(causal, padding)  # (B, 1, T, T)
    assert keep.shape == (B, 1, T, T)
    model = build_model(d_model, h, seed=8, bias=bias)
    x = build_input(B, T, d_model, seed=8)
    assert_matches_torch(model, x, x, x, keep)
    # torch's own way of combining: a causal attn_mask plus a key_padding_mask.
    assert_matches_torch(
        model,
        x,
        x,
        x,
        keep,
        torch_kwargs={
            "attn_mask": masks.flip_polarity(causal)[0, 0],
            "key_padding_mask": masks.flip_polarity(padding)[:, 0, 0, :],
        },
    )


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("d_model,h", DIMS)
@pytest.mark.parametrize("T_q,T_k", [(3, 7), (6, 2), (1, 5), (4, 1)])
def test_cross_attention_matches_torch(d_model, h, T_q, T_k, bias):
    model = build_model(d_model, h, seed=9, bias=bias)
    query = build_input(2, T_q, d_model, seed=9)  # (B, T_q, d_model)
    key = build_input(2, T_k, d_model, seed=10)  # (B, T_k, d_model)
    value = build_input(2, T_k, d_model, seed=11)  # a different tensor than key
    trace = assert_matches_torch(model, query, key, value)
    assert trace.weights.shape == (2, h, T_q, T_k)
    assert trace.output.shape == (2, T_q, d_model)
    # With a padding mask on the keys and a rectangular causal mask too.
    keep = masks.combine(masks.causal_mask(T_q, T_k), masks.padding_mask_from_lengths([T_k, 1], T_k))
    assert_matches_torch(model, query, key, value, keep)


@pytest.mark.parametrize("B", [1, 2, 5])
def test_batch_sizes_match_torch(B):
    model = build_model(16, 4, seed=12)
    x = build_input(B, 5, 16, seed=12)
    trace = assert_matches_torch(model, x, x, x, random_keep(B, 5, 5, seed=B))
    # Each batch row is independent: running one sequence alone gives the same numbers.
    for b in range(B):
        with torch.no_grad():
            alone = model(x[b : b + 1], x[b : b + 1], x[b : b + 1], random_keep(B, 5, 5, seed=B)[b : b + 1])
        close(alone, trace.output[b : b + 1])


def test_non_contiguous_input_matches_torch():
    x = torch.randn(2, 16, 5).transpose(1, 2)  # (B, T, d_model), not contiguous
    assert not x.is_contiguous()
    assert_matches_torch(build_model(16, 4, seed=13), x, x, x, masks.causal_mask(5))


def test_neg_inf_fill_matches_torch():
    """torch blocks with -inf; our -1e9 and -inf fills agree with it when no row is fully blocked."""
    model = build_model(16, 4, seed=14, fill_value=masks.FILL_NEG_INF)
    x = build_input(2, 5, 16, seed=14)
    assert_matches_torch(model, x, x, x, random_keep(2, 5, 5, seed=14))


@FAST
@given(
    h=st.integers(1, 4),
    d_k=st.integers(1, 4),
    B=st.integers(1, 2),
    T_q=st.integers(1, 5),
    T_k=st.integers(1, 5),
    bias=st.booleans(),
    masked=st.booleans(),
    seed=st.integers(0, 10_000),
)
def test_matches_torch_property(h, d_k, B, T_q, T_k, bias, masked, seed):
    d_model = h * d_k
    model = build_model(d_model, h, seed, bias=bias)
    query = build_input(B, T_q, d_model, seed)
    kv = build_input(B, T_k, d_model, seed + 1)
    keep = random_keep(B, T_q, T_k, seed) if masked else None
    assert_matches_torch(model, query, kv, kv, keep)


@pytest.mark.parametrize(
    "keep", [None, masks.causal_mask(4), masks.causal_mask(4)[0, 0], masks.padding_mask_from_lengths([4, 2], 4)]
)
def test_core_reference_agrees(keep):
    """core.reference (used by the pages to show "equal to PyTorch") says what these tests say."""
    model = build_model(16, 4, seed=15)
    x = build_input(2, 4, 16, seed=15)
    with torch.no_grad():  # as the pages run it
        output, trace = model.forward_with_trace(x, x, x, keep)
    theirs, weights = torch_reference(model, x, x, x, keep)
    assert max_abs_diff(output, theirs) < ATOL
    assert max_abs_diff(trace.weights, weights) < ATOL


def test_max_abs_diff_treats_matching_nans_as_equal():
    a = torch.tensor([[float("nan"), 1.0], [2.0, 3.0]])
    assert max_abs_diff(a, a.clone()) == 0.0
    assert max_abs_diff(a, a + 0.5) == 0.5
    assert max_abs_diff(torch.full((2,), float("nan")), torch.full((2,), float("nan"))) == 0.0


# --------------------------------------------------------------------------------------------
# forward vs forward_with_trace, and the trace itself
# --------------------------------------------------------------------------------------------


def test_trace_field_order():
    assert AttentionTrace.names() == TRACE_ORDER
    # The two expanded K/V views sit after v_heads in the dataclass but are no step of their own.
    views = ("k_heads_expanded", "v_heads_expanded")
    assert tuple(f.name for f in dataclasses.fields(AttentionTrace)) == TRACE_ORDER[:6] + views + TRACE_ORDER[6:]


@pytest.mark.parametrize("d_model,h", DIMS)
def test_mha_expanded_views_are_the_heads_themselves(d_model, h):
    model = build_model(d_model, h, seed=3)
    x = build_input(1, 4, d_model, seed=3)
    _, tr = model.forward_with_trace(x, x, x)
    assert model.num_kv_heads == h and model.kv_group == 1
    assert tr.k_heads_expanded is tr.k_heads and tr.v_heads_expanded is tr.v_heads  # MHA: nothing copied


@pytest.mark.parametrize("masked", [False, True])
@pytest.mark.parametrize("d_model,h", DIMS)
def test_forward_equals_traced_output_exactly(d_model, h, masked):
    model = build_model(d_model, h, seed=20)
    x = build_input(2, 6, d_model, seed=20)
    keep = masks.causal_mask(6) if masked else None
    with torch.no_grad():
        plain = model(x, x, x, keep)
        output, trace = model.forward_with_trace(x, x, x, keep)
    assert torch.equal(plain, output)
    assert trace.output is output


@pytest.mark.parametrize(
    "B,T_q,T_k,d_model,h", [(1, 4, 4, 8, 2), (2, 3, 7, 16, 4), (3, 5, 2, 12, 12), (1, 1, 1, 8, 1), (2, 6, 6, 64, 8)]
)
def test_trace_shapes_match_accounting(B, T_q, T_k, d_model, h):
    model = build_model(d_model, h, seed=21)
    query = build_input(B, T_q, d_model, seed=21)
    kv = build_input(B, T_k, d_model, seed=22)
    _, trace = model.forward_with_trace(query, kv, kv, masks.padding_mask_from_lengths([T_k] * B, T_k))
    shapes = tensor_shapes(B, T_q, T_k, d_model, h)
    assert shapes["x"].sizes == tuple(query.shape)
    for name in TRACE_ORDER:
        assert tuple(getattr(trace, name).shape) == shapes[name].sizes, name
        assert getattr(trace, name).dtype == torch.float32


def test_trace_steps_are_what_their_names_say():
    model = build_model(16, 4, seed=23)
    x = build_input(2, 5, 16, seed=23)
    keep = masks.causal_mask(5)
    with torch.no_grad():
        _, t = model.forward_with_trace(x, x, x, keep)
    d_k = 4
    close(t.q, x @ model.W_q.weight.T + model.W_q.bias)
    assert torch.equal(t.q_heads, t.q.view(2, 5, 4, d_k).transpose(1, 2))
    close(t.scores, t.q_heads @ t.k_heads.transpose(-2, -1))
    close(t.scaled_scores, t.scores / math.sqrt(d_k))
    assert torch.equal(t.masked_scores[..., ~keep[0, 0]], torch.full_like(t.masked_scores[..., ~keep[0, 0]], -1e9))
    assert torch.equal(t.masked_scores[..., keep[0, 0]], t.scaled_scores[..., keep[0, 0]])
    close(t.weights, torch.softmax(t.masked_scores, dim=-1))
    close(t.head_outputs, t.weights @ t.v_heads)
    close(t.output, t.concat @ model.W_o.weight.T + model.W_o.bias)


def test_masked_scores_is_scaled_scores_without_mask():
    model = build_model(8, 2, seed=24)
    x = build_input(1, 3, 8, seed=24)
    _, trace = model.forward_with_trace(x, x, x)
    assert trace.masked_scores is trace.scaled_scores
    _, trace = model.forward_with_trace(x, x, x, masks.causal_mask(3))
    assert trace.masked_scores is not trace.scaled_scores


def test_trace_is_frozen():
    model = build_model(8, 2, seed=25)
    x = build_input(1, 3, 8, seed=25)
    _, trace = model.forward_with_trace(x, x, x)
    with pytest.raises(dataclasses.FrozenInstanceError):
        trace.weights = torch.zeros(1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        del trace.output


def test_forward_with_trace_does_not_change_the_model():
    model = build_model(16, 4, seed=26)
    before = {k: v.clone() for k, v in model.state_dict().items()}
    x = build_input(2, 4, 16, seed=26)
    model.forward_with_trace(x, x, x, masks.causal_mask(4))
    model(x, x, x)
    after = model.state_dict()
    assert before.keys() == after.keys()
    assert all(torch.equal(before[k], after[k]) for k in before)


# --------------------------------------------------------------------------------------------
# Properties (hypothesis)
# --------------------------------------------------------------------------------------------

dims = st.tuples(st.integers(1, 4), st.integers(1, 4)).map(lambda hd: (hd[0] * hd[1], hd[0]))  # (d_model, h)


@FAST
@given(
    dm_h=dims,
    B=st.integers(1, 2),
    T_q=st.integers(1, 6),
    T_k=st.integers(1, 6),
    masked=st.booleans(),
    seed=st.integers(0, 10_000),
)
def test_softmax_rows_sum_to_one(dm_h, B, T_q, T_k, masked, seed):
    d_model, h = dm_h
    model = build_model(d_model, h, seed)
    query = build_input(B, T_q, d_model, seed)
    kv = build_input(B, T_k, d_model, seed + 1)
    keep = random_keep(B, T_q, T_k, seed) if masked else None
    _, trace = model.forward_with_trace(query, kv, kv, keep)
    close(trace.weights.sum(dim=-1), torch.ones(B, h, T_q))
    assert (trace.weights >= 0).all()


@FAST
@given(
    dm_h=dims,
    B=st.integers(1, 2),
    T_q=st.integers(1, 6),
    T_k=st.integers(1, 6),
    fill=st.sampled_from(sorted(masks.FILL_VALUES)),
    p=st.floats(0.0, 1.0),
    seed=st.integers(0, 10_000),
)
def test_blocked_cells_get_exactly_zero_weight(dm_h, B, T_q, T_k, fill, p, seed):
    d_model, h = dm_h
    model = build_model(d_model, h, seed, fill_value=masks.FILL_VALUES[fill])
    query = build_input(B, T_q, d_model, seed)
    kv = build_input(B, T_k, d_model, seed + 1)
    keep = random_keep(B, T_q, T_k, seed, p)  # (B, 1, T_q, T_k), no row fully blocked
    _, trace = model.forward_with_trace(query, kv, kv, keep)
    blocked = ~keep.expand(B, h, T_q, T_k)  # (B, h, T_q, T_k)
    assert (trace.weights[blocked] == 0).all()
    assert torch.isfinite(trace.weights).all()
    close(trace.weights.sum(dim=-1), torch.ones(B, h, T_q))


@FAST
@given(dm_h=dims, B=st.integers(1, 2), T=st.integers(1, 5), masked=st.booleans(), seed=st.integers(0, 10_000))
def test_concat_is_the_heads_side_by_side(dm_h, B, T, masked, seed):
    d_model, h = dm_h
    d_k = d_model // h
    model = build_model(d_model, h, seed)
    x = build_input(B, T, d_model, seed)
    _, trace = model.forward_with_trace(x, x, x, masks.causal_mask(T) if masked else None)
    for i in range(h):
        assert torch.equal(trace.concat[..., i * d_k : (i + 1) * d_k], trace.head_outputs[:, i])


@FAST
@given(dm_h=dims, B=st.integers(1, 2), T=st.integers(1, 5), bias=st.booleans(), seed=st.integers(0, 10_000))
def test_head_projection_is_a_column_block(dm_h, B, T, bias, seed):
    d_model, h = dm_h
    model = build_model(d_model, h, seed, bias=bias)
    x = build_input(B, T, d_model, seed)  # (B, T, d_model)
    with torch.no_grad():
        _, trace = model.forward_with_trace(x, x, x)
        for role in ("q", "k", "v"):
            heads = getattr(trace, f"{role}_heads")  # (B, h, T, d_k)
            for i in range(h):
                w, b = model.head_projection(role, i)  # (d_model, d_k), (d_k,) or None
                assert w.shape == (d_model, d_model // h)
                assert (b is None) == (not bias)
                projected = x @ w + (0 if b is None else b)  # (B, T, d_k)
                close(projected, heads[:, i])


@FAST
@given(d_model=st.sampled_from([1, 4, 6, 8, 12, 16, 24, 64]), bias=st.booleans(), seed=st.integers(0, 100))
def test_parameter_count_does_not_depend_on_h(d_model, bias, seed):
    expected = 4 * (d_model * d_model + (d_model if bias else 0))
    for h in [h for h in range(1, d_model + 1) if d_model % h == 0]:
        model = build_model(d_model, h, seed, bias=bias)
        assert sum(p.numel() for p in model.parameters()) == expected
        assert totals(1, 3, 3, d_model, h, bias=bias).params == expected


def test_fresh_module_parameter_count_matches_torch():
    for bias in (True, False):
        ours = MultiHeadAttention(32, 4, bias=bias)
        theirs = nn.MultiheadAttention(32, 4, bias=bias, batch_first=True)
        assert sum(p.numel() for p in ours.parameters()) == sum(p.numel() for p in theirs.parameters())


# --------------------------------------------------------------------------------------------
# Fully blocked rows: defined, non-raising behaviour
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("T_k", [1, 3, 7])
def test_fully_blocked_row_with_seed_fill_is_uniform(T_k):
    B, T_q, h = 2, 3, 2
    grid = torch.ones(T_q, T_k, dtype=torch.bool)
    grid[1] = False  # query 1 may look at nothing
    keep = masks.custom_mask(grid)  # (1, 1, T_q, T_k)
    model = build_model(8, h, seed=30, fill_value=masks.FILL_SEED)
    x = build_input(B, T_q, 8, seed=30)
    kv = build_input(B, T_k, 8, seed=31)
    with torch.no_grad():
        out, trace = model.forward_with_trace(x, kv, kv, keep)
    assert torch.equal(trace.weights[:, :, 1], torch.full((B, h, T_k), 1.0 / T_k))
    # The query silently averages all values.
    close(trace.head_outputs[:, :, 1], trace.v_heads.mean(dim=2))
    assert torch.isfinite(out).all()
    found = masks.fully_blocked_rows(keep, B, T_q, T_k)  # (B, T_q)
    assert found.tolist() == [[False, True, False]] * B


def test_fully_blocked_row_with_neg_inf_is_nan():
    B, T, h = 2, 4, 2
    keep = masks.combine(masks.causal_mask(T), masks.padding_mask_from_lengths([4, 0], T))  # seq 1 all padding
    model = build_model(8, h, seed=32, fill_value=masks.FILL_NEG_INF)
    x = build_input(B, T, 8, seed=32)
    with torch.no_grad():
        out, trace = model.forward_with_trace(x, x, x, keep)  # must not raise
    assert torch.isnan(trace.weights[1]).all()
    assert torch.isnan(out[1]).all()
    assert not torch.isnan(trace.weights[0]).any()  # the NaN stays in its own sequence
    assert torch.isfinite(out[0]).all()
    assert masks.fully_blocked_rows(keep, B, T, T).tolist() == [[False] * T, [True] * T]


def test_fully_blocked_row_neg_inf_nan_stays_in_its_query():
    grid = torch.tensor([[1, 0, 0], [0, 0, 0], [1, 1, 1]])
    keep = masks.custom_mask(grid)
    model = build_model(8, 4, seed=33, fill_value=masks.FILL_NEG_INF)
    x = build_input(1, 3, 8, seed=33)
    out, trace = model.forward_with_trace(x, x, x, keep)
    assert torch.isnan(trace.weights[:, :, 1]).all()
    assert torch.isnan(out[:, 1]).all()
    assert torch.isfinite(out[:, [0, 2]]).all()
    assert masks.fully_blocked_rows(keep, 1, 3, 3).tolist() == [[False, True, False]]
    seed_model = build_model(8, 4, seed=33)  # same weights, -1e9 fill
    seed_out, _ = seed_model.forward_with_trace(x, x, x, keep)
    close(seed_out[:, [0, 2]], out[:, [0, 2]])  # the other queries do not notice the fill choice


# --------------------------------------------------------------------------------------------
# Invalid settings: ValueError with a helpful message
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "d_model,h,divs",
    [
        (12, 5, "[1, 2, 3, 4, 6, 12]"),
        (512, 7, "[1, 2, 4, 8, 16, 32, 64, 128, 256, 512]"),
        (7, 2, "[1, 7]"),
        (4, 8, "[1, 2, 4]"),
    ],
)
def test_indivisible_heads_message_lists_divisors(d_model, h, divs):
    with pytest.raises(ValueError, match="divisible") as info:
        MultiHeadAttention(d_model, h)
    assert divs in str(info.value)
    with pytest.raises(ValueError, match="divisible"):
        build_model(d_model, h, seed=0)


@pytest.mark.parametrize("d_model", [0, -1, -64, 8.0, "64", None, True, 8193, 10**9])
def test_bad_d_model(d_model):
    with pytest.raises(ValueError, match="d_model must be an integer from 1 to 8192"):
        MultiHeadAttention(d_model, 1)


@pytest.mark.parametrize("h", [0, -1, -4, 2.0, "2", None, True])
def test_bad_num_heads(h):
    with pytest.raises(ValueError, match="num_heads must be a positive integer"):
        MultiHeadAttention(8, h)


def test_largest_d_model_is_accepted():
    with torch.device("meta"):  # shapes only: 4 x 8192^2 real floats would be 1 GB
        model = MultiHeadAttention(8192, 8192)  # the limit itself is valid
    assert model.d_k == 1


@pytest.mark.parametrize(
    "shape,pattern",
    [
        ((5, 4), "axis T_q is 5"),
        ((4, 5), "axis T_k is 5"),
        ((3, 1, 1, 4), "axis B is 3"),
        ((1, 3, 4, 4), "axis h is 3"),
        ((2, 4, 4), "3-D"),
        ((4,), "1-D"),
        ((1, 1, 1, 4, 4), "5-D"),
        ((), "0-D"),
    ],
)
def test_mask_that_does_not_broadcast(shape, pattern):
    model = build_model(8, 2, seed=40)
    x = build_input(2, 4, 8, seed=40)
    with pytest.raises(ValueError, match=pattern) as info:
        model(x, x, x, torch.ones(shape, dtype=torch.bool))
    assert "(B, h, T_q, T_k) = (2, 2, 4, 4)" in str(info.value)
    with pytest.raises(ValueError, match=pattern):
        model.forward_with_trace(x, x, x, torch.ones(shape, dtype=torch.bool))


def test_mask_must_be_a_tensor():
    model = build_model(8, 2, seed=41)
    x = build_input(1, 2, 8, seed=41)
    with pytest.raises(ValueError, match="torch.Tensor"):
        model(x, x, x, [[1, 0], [1, 1]])


@pytest.mark.parametrize("shape", [(4, 4), (1, 1, 4, 4), (2, 1, 1, 4), (2, 2, 4, 4), (1, 2, 1, 1), (1, 1, 4, 1)])
def test_broadcastable_masks_are_accepted(shape):
    model = build_model(8, 2, seed=42)
    x = build_input(2, 4, 8, seed=42)
    out = model(x, x, x, torch.ones(shape, dtype=torch.bool))
    close(out, model(x, x, x))  # an all-keep mask changes nothing


def test_head_projection_rejects_bad_head_and_role():
    model = build_model(8, 2, seed=43)
    for head in (-1, 2):
        with pytest.raises(ValueError, match=r"head must be in 0\.\.1"):
            model.head_projection("q", head)
    with pytest.raises(ValueError, match="role"):
        model.head_projection("o", 0)


# --------------------------------------------------------------------------------------------
# Determinism of build_model / build_input
# --------------------------------------------------------------------------------------------


def _weights(model):
    return [
        t.detach()
        for layer in (model.W_q, model.W_k, model.W_v, model.W_o)
        for t in (layer.weight, layer.bias)
        if t is not None
    ]


def test_same_seed_same_tensors():
    a, b = build_model(32, 4, seed=7), build_model(32, 4, seed=7)
    assert all(torch.equal(s, t) for s, t in zip(_weights(a), _weights(b)))
    assert torch.equal(build_input(2, 5, 32, seed=7), build_input(2, 5, 32, seed=7))
    x = build_input(2, 5, 32, seed=7)
    assert torch.equal(a(x, x, x), b(x, x, x))


def test_different_seed_different_tensors():
    a, b = build_model(32, 4, seed=7), build_model(32, 4, seed=8)
    assert not torch.equal(a.W_q.weight, b.W_q.weight)
    assert not torch.equal(build_input(1, 5, 32, seed=7), build_input(1, 5, 32, seed=8))


@pytest.mark.parametrize("d_model,hs", [(16, (1, 2, 8, 16)), (64, (2, 8)), (12, (1, 3, 4, 12))])
def test_weights_do_not_depend_on_num_heads(d_model, hs):
    models = [build_model(d_model, h, seed=5) for h in hs]
    for other in models[1:]:
        assert all(torch.equal(s, t) for s, t in zip(_weights(models[0]), _weights(other)))


def test_bias_free_model_shares_the_weight_matrices():
    with_bias, without = build_model(16, 4, seed=9), build_model(16, 4, seed=9, bias=False)
    for a, b in zip(
        (with_bias.W_q, with_bias.W_k, with_bias.W_v, with_bias.W_o),
        (without.W_q, without.W_k, without.W_v, without.W_o),
    ):
        assert torch.equal(a.weight, b.weight)
        assert b.bias is None


def test_input_does_not_depend_on_global_rng_and_model_is_eval():
    torch.manual_seed(123)
    first = build_input(1, 4, 8, seed=1)
    torch.manual_seed(456)
    assert torch.equal(first, build_input(1, 4, 8, seed=1))
    assert not build_model(8, 2, seed=1).training


def _model_as_nn_linear_builds_it(d_model, h, seed, num_kv_heads=None, bias=True):
    """build_model's recipe the plain way: nn.Linear's random init, then overwritten by the seeded draws
    (weights N(0, 1/d_model), biases nn.Linear's U(-1/sqrt(d_model), 1/sqrt(d_model)); the code before
    build_model skipped that init). Our model must hold exactly these numbers."""
    from core.attention import kv_head_rows

    model = MultiHeadAttention(d_model, h, num_kv_heads=num_kv_heads, bias=bias)
    rows = kv_head_rows(h, model.num_kv_heads, model.d_k)
    gen = torch.Generator().manual_seed(seed)
    bound = 1.0 / math.sqrt(d_model)
    with torch.no_grad():
        for layer, keep in ((model.W_q, None), (model.W_k, rows), (model.W_v, rows), (model.W_o, None)):
            weight = torch.empty(d_model, d_model).normal_(0.0, 1.0 / math.sqrt(d_model), generator=gen)
            bias_values = torch.empty(d_model).uniform_(-bound, bound, generator=gen)
            if keep is not None:
                weight, bias_values = weight[keep], bias_values[keep]
            layer.weight.copy_(weight)
            if layer.bias is not None:
                layer.bias.copy_(bias_values)
    return model.eval()


@pytest.mark.parametrize(
    "d_model,h,kv,bias",
    [
        (64, 4, None, True),
        (512, 16, None, True),
        (512, 16, 4, True),
        (64, 8, 1, False),
        (8, 8, None, False),
        (12, 3, None, True),
    ],
)
def test_model_without_random_init_holds_the_same_numbers(d_model, h, kv, bias):
    ours = build_model(d_model, h, 11, num_kv_heads=kv, bias=bias)
    plain = _model_as_nn_linear_builds_it(d_model, h, 11, num_kv_heads=kv, bias=bias)
    a, b = ours.state_dict(), plain.state_dict()
    assert list(a) == list(b)
    for name in a:  # byte-identical: same values, dtype, shape, strides, on the CPU, trainable
        assert torch.equal(a[name], b[name]) and a[name].stride() == b[name].stride(), name
        assert a[name].device.type == "cpu" and a[name].dtype == torch.float32, name
    assert all(p.requires_grad for p in ours.parameters()) and not ours.training
    x = build_input(1, 5, d_model, 11)
    assert torch.equal(ours(x, x, x), plain(x, x, x))


def test_torch_twin_without_random_init_holds_our_weights():
    model = build_model(64, 4, seed=3)
    twin = torch_twin(model)
    assert all(p.device.type == "cpu" for p in twin.parameters())
    assert torch.equal(twin.in_proj_weight, torch.cat([model.W_q.weight, model.W_k.weight, model.W_v.weight]))
    assert torch.equal(twin.in_proj_bias, torch.cat([model.W_q.bias, model.W_k.bias, model.W_v.bias]))
    assert torch.equal(twin.out_proj.weight, model.W_o.weight) and torch.equal(twin.out_proj.bias, model.W_o.bias)
    assert twin.out_proj.weight.data_ptr() != model.W_o.weight.data_ptr()  # a copy: the twin may not alias ours


@pytest.mark.parametrize("d_model,h", [(8, 2), (64, 4), (64, 64), (512, 1), (512, 16)])
def test_projections_give_unit_variance_q_and_k_so_scores_spread_like_sqrt_d_k(d_model, h):
    """Vaswani et al.'s assumption behind ÷sqrt(d_k): for X with unit-variance components, q and k have
    unit-variance components (weights N(0, 1/d_model)), so Var(q·k) = d_k and the scaled scores have variance 1.
    nn.Linear's default range gave 1/3 and d_k/9 (softmax rows almost uniform): this fails on it.
    One model's mean component variance scatters by sqrt(2)/d_model around 1, so small d_model averages seeds."""
    seeds = range(max(1, 4096 // d_model**2))  # 64 models at d_model 8, one from 64 on: ~0.02 scatter each
    x = torch.randn(1, 2000, d_model, generator=torch.Generator().manual_seed(1))  # many unit-variance rows
    y = torch.randn(1, 2000, d_model, generator=torch.Generator().manual_seed(2))  # independent of x
    var = {"q": 0.0, "k": 0.0, "v": 0.0, "dots": 0.0}
    for seed in seeds:
        model = build_model(d_model, h, seed=seed)
        # The model's own projections, q from x, k and v from y (independent pairs), without the (h, 2000, 2000)
        # attention a forward pass would add: only the weights' spread is asked about here.
        with torch.no_grad():
            qkv = {"q": model.W_q(x), "k": model.W_k(y), "v": model.W_v(y)}
        for name in ("q", "k", "v"):
            var[name] += float(qkv[name].var(dim=1).mean()) / len(seeds)  # per component, then mean
        q_heads, k_heads = (qkv[n][0].view(2000, h, d_model // h).transpose(0, 1) for n in ("q", "k"))
        dots = (q_heads * k_heads).sum(-1)  # (h, 2000) q_i·k_i of independent rows
        var["dots"] += float(dots.var()) / (d_model // h) / len(seeds)
    bias_var = 1.0 / (3 * d_model)  # U(-1/sqrt(d), 1/sqrt(d)) biases add their spread to each component
    for name in ("q", "k", "v"):
        assert abs(var[name] - (1.0 + bias_var)) < 0.1, (name, var)
    assert 0.85 < var["dots"] < 1.2, var  # Var(q·k) / d_k


def test_build_model_keeps_its_draw_and_gives_each_model_its_own_copy():
    """build_model keeps the last draws (core.attention._drawn_weights): a step of T, h or the mask draws the same
    weights again. The numbers are the draw's own, N(0, 1/d_model) weights and nn.Linear-range biases in the order
    W_q, W_k, W_v, W_o from one generator, and a change to one model's tensors never reaches the next model."""
    d_model, seed = 32, 41
    gen = torch.Generator().manual_seed(seed)
    bound = 1.0 / math.sqrt(d_model)
    expected = []
    for _ in range(4):
        weight = torch.empty(d_model, d_model).normal_(0.0, 1.0 / math.sqrt(d_model), generator=gen)
        expected.append((weight, torch.empty(d_model).uniform_(-bound, bound, generator=gen)))
    first = build_model(d_model, 4, seed)
    layers = lambda m: (m.W_q, m.W_k, m.W_v, m.W_o)  # noqa: E731
    for layer, (weight, bias) in zip(layers(first), expected):
        assert torch.equal(layer.weight, weight) and torch.equal(layer.bias, bias)
    with torch.no_grad():
        for layer in layers(first):
            layer.weight.mul_(0.0)
            layer.bias.add_(1.0)
    second = build_model(d_model, 8, seed)  # another h: the same weights, from the kept draw
    for layer, (weight, bias) in zip(layers(second), expected):
        assert torch.equal(layer.weight, weight) and torch.equal(layer.bias, bias)
    gqa = build_model(d_model, 4, seed, num_kv_heads=2)  # K/V keep each group's first head's rows of the draw
    rows = torch.cat([torch.arange(0, 8), torch.arange(16, 24)])
    assert torch.equal(gqa.W_k.weight, expected[1][0][rows]) and torch.equal(gqa.W_v.bias, expected[2][1][rows])


def test_shared_model_is_build_models_read_only_and_kept_for_a_step_of_t():
    """lessons.scenario.run takes its model from core.attention.shared_model: the same numbers as build_model, read
    only (it is shared by every run and session of these settings), and the same object for a step of T or the mask,
    so that step builds no model and no torch twin again (core.reference keeps a read-only model's twin)."""
    from core.attention import shared_model
    from core.frozen import ReadOnlyError, is_frozen
    from lessons import scenario
    from lessons.settings import Settings

    shared, built = shared_model(64, 4, 23), build_model(64, 4, 23)
    assert is_frozen(shared)
    for name, tensor in built.state_dict().items():
        assert torch.equal(shared.state_dict()[name], tensor), name
    with pytest.raises(ReadOnlyError):
        shared.W_q.weight.mul_(0.0)
    a, b = (scenario.run(Settings(64, 4, T, mask, 23, "en")) for T, mask in ((6, "none"), (7, "causal")))
    assert a.model is b.model is shared_model(64, 4, 23)
    assert scenario.run(Settings(64, 8, 6, "none", 23, "en")).model is not a.model  # another h: another model
    from core.reference import _kept_twin

    assert _kept_twin(a.model) is _kept_twin(b.model)  # kept with the read-only model, for torch_reference only
    assert torch_twin(a.model) is not _kept_twin(a.model)  # what leaves core.reference is a twin of its own
    # Only the last KEPT_TWINS models' twins are kept: the cache of runs holds the models of many seeds.
    from core.reference import KEPT_TWINS

    first = _kept_twin(a.model)
    for seed in range(101, 101 + KEPT_TWINS):
        _kept_twin(shared_model(64, 4, seed))
    assert _kept_twin(a.model) is not first  # made again
    out, weights = torch_reference(b.model, b.x, b.x, b.x, b.mask)
    assert max_abs_diff(out, b.trace.output) < 1e-5 and max_abs_diff(weights, b.trace.weights) < 1e-6


def test_a_writable_models_twin_is_made_again_and_sees_a_change():
    """Only a read-only model's twin is kept: a model that can change in place gets a new twin every time, which
    holds its weights as they are now, and torch_reference follows the change."""
    from core.reference import _kept_twin

    model = build_model(32, 4, seed=5)
    first = _kept_twin(model)
    x = build_input(1, 5, 32, 5)
    with torch.no_grad():
        model.W_o.weight.mul_(2.0)
    second = _kept_twin(model)
    assert second is not first and torch.equal(second.out_proj.weight, model.W_o.weight)
    assert not torch.equal(first.out_proj.weight, model.W_o.weight)
    with torch.no_grad():
        assert max_abs_diff(torch_reference(model, x, x, x)[0], model(x, x, x)) < 1e-5


def test_the_labs_and_the_gqa_pages_read_the_kept_read_only_model():
    """The Masks lab's run and the GQA model take core.attention.shared_model too: a step of T builds no model (a
    512/16 model was ~3 ms of the lab's step), h_kv = h is the MHA's own key, and the GQA model holds build_model's
    numbers, read-only."""
    from core.attention import shared_model
    from core.frozen import ReadOnlyError, is_frozen
    from core.masks import FILL_VALUES
    from lessons import masks_lab as lab
    from lessons.settings import Settings

    runs = [lab.run_lab(Settings(64, 4, T, "causal", 31, "en"), lab.LabSetup(("causal",), T, T)) for T in (5, 6)]
    assert runs[0].model is runs[1].model is shared_model(64, 4, 31, FILL_VALUES["-1e9"])
    inf = lab.run_lab(Settings(64, 4, 5, "causal", 31, "en"), lab.LabSetup(("causal",), 5, 5, fill="-inf"))
    assert inf.model is not runs[0].model and inf.model.fill_value == float("-inf")
    assert shared_model(64, 4, 31, num_kv_heads=4) is shared_model(64, 4, 31)  # h_kv = h: the MHA, one key
    gqa, built = shared_model(64, 4, 31, num_kv_heads=2), build_model(64, 4, 31, num_kv_heads=2)
    assert is_frozen(gqa) and gqa.num_kv_heads == 2
    for name, tensor in built.state_dict().items():
        assert torch.equal(gqa.state_dict()[name], tensor), name
    with pytest.raises(ReadOnlyError):
        gqa.W_k.weight.add_(1.0)
