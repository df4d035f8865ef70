"""Proofs for core/tiled_attention.py: the FlashAttention walk gives the plain path's numbers.

- tiled output = our MultiHeadAttention's trace.head_outputs and F.scaled_dot_product_attention,
  <= 1e-6 in float32, for random shapes, every block size 1..T, no mask / causal / padding (hypothesis);
- the last running l = the row sums of the unnormalised weights exp(scores - row max), the last m = the row max;
- every step's numbers follow the update rule (l = l_old * rescale + sum p, ...);
- skipped causal tiles = a hand count; traffic and memory numbers = what the trace's steps move.
"""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st

from core import limits
from core.attention import build_input, build_model
from core.masks import FILL_NEG_INF, FILL_SEED, causal_mask, custom_mask, padding_mask_from_lengths
from core.tiled_attention import (
    LONG_CONTEXTS,
    attention_memory,
    causal_tile_counts,
    context_costs,
    plain_traffic,
    step_traffic,
    tile_bounds,
    tiled_attention,
    tiled_traffic,
)

pytestmark = pytest.mark.usefixtures("one_torch_thread")
SETTINGS = settings(max_examples=100, deadline=None, derandomize=True)
TOL = 1e-6  # float32: the tiled sums run in another order than the plain path's, nothing more
dims = st.sampled_from([(4, 1), (4, 2), (8, 2), (8, 8), (16, 4), (16, 2)])  # (d_model, h)


def plain_trace(d_model, h, B, T_q, T_k, seed, mask, fill=FILL_SEED):
    model = build_model(d_model, h, seed, fill_value=fill)
    q = build_input(B, T_q, d_model, seed)
    kv = build_input(B, T_k, d_model, seed + 1)
    with torch.no_grad():
        return model.forward_with_trace(q, kv, kv, mask)[1]


def tiled(trace, mask, bq, bk, fill=FILL_SEED, **kw):
    return tiled_attention(
        trace.q_heads, trace.k_heads, trace.v_heads, mask, block_q=bq, block_k=bk, fill_value=fill, **kw
    )


def max_diff(a, b):
    """Largest |a - b|; NaN must sit in the same cells of both (then it counts as equal)."""
    assert torch.equal(torch.isnan(a), torch.isnan(b))
    ok = ~torch.isnan(a)
    return float((a - b)[ok].abs().max()) if ok.any() else 0.0


@st.composite
def cases(draw):
    d_model, h = draw(dims)
    B = draw(st.integers(1, 2))
    kind = draw(st.sampled_from(["none", "causal", "padding", "custom"]))
    T_q = draw(st.integers(1, 8))
    T_k = T_q if kind == "causal" and draw(st.booleans()) else draw(st.integers(1, 8))
    if kind == "none":
        mask = None
    elif kind == "causal":
        mask = causal_mask(T_q, T_k)  # (1, 1, T_q, T_k), top-left aligned when T_q != T_k
    elif kind == "padding":  # lengths 0..T_k: a length of 0 blocks whole rows
        mask = padding_mask_from_lengths(draw(st.lists(st.integers(0, T_k), min_size=B, max_size=B)), T_k)
    else:  # a hand-drawn grid, as in the Masks lab: any cells, any fully blocked rows
        cells = st.lists(st.booleans(), min_size=T_k, max_size=T_k)
        mask = custom_mask(torch.tensor(draw(st.lists(cells, min_size=T_q, max_size=T_q))))
    return d_model, h, B, T_q, T_k, mask, draw(st.integers(0, 10_000))


# ---------------------------------------------------------------- the same numbers as the plain path
@SETTINGS
@given(case=cases(), fill=st.sampled_from([FILL_SEED, FILL_NEG_INF]))
def test_tiled_output_equals_head_outputs_and_pytorch_for_every_block_size(case, fill):
    d_model, h, B, T_q, T_k, mask, seed = case
    trace = plain_trace(d_model, h, B, T_q, T_k, seed, mask, fill)
    keep = torch.ones(1, 1, T_q, T_k, dtype=torch.bool) if mask is None else mask
    sdpa = F.scaled_dot_product_attention(trace.q_heads, trace.k_heads, trace.v_heads, attn_mask=keep)
    blocked_row = ~keep.expand(B, h, T_q, T_k).any(-1)  # (B, h, T_q)
    worst = 0.0
    for bq in range(1, T_q + 1):
        for bk in range(1, T_k + 1):
            t = tiled(trace, mask, bq, bk, fill)
            assert t.output.shape == (B, h, T_q, trace.q_heads.shape[-1])
            worst = max(worst, max_diff(t.output, trace.head_outputs))
            # PyTorch's fused attention agrees wherever a row keeps a key; a fully blocked row is 0 there,
            # while the seed's -1e9 fill (ours, tiled or not) makes it the mean of all values, and -inf NaN.
            worst = max(worst, max_diff(t.output[~blocked_row], sdpa[~blocked_row]))
            assert torch.equal(sdpa[blocked_row], torch.zeros_like(sdpa[blocked_row]))
            if fill == FILL_SEED:
                mean_v = trace.v_heads.mean(-2, keepdim=True).expand_as(t.output)  # (B, h, T_q, d_k)
                assert torch.allclose(t.output[blocked_row], mean_v[blocked_row], atol=TOL)
            else:
                assert torch.isnan(t.output[blocked_row]).all()
    assert worst <= TOL, worst


@SETTINGS
@given(case=cases(), data=st.data())
def test_the_last_running_l_and_m_are_the_row_sums_and_maxima_of_the_unnormalised_weights(case, data):
    d_model, h, B, T_q, T_k, mask, seed = case
    trace = plain_trace(d_model, h, B, T_q, T_k, seed, mask)
    bq, bk = data.draw(st.integers(1, T_q)), data.draw(st.integers(1, T_k))
    t = tiled(trace, mask, bq, bk)
    row_max = trace.masked_scores.amax(-1)  # (B, h, T_q)
    unnormalised = torch.exp(trace.masked_scores - row_max[..., None])  # (B, h, T_q, T_k)
    assert torch.allclose(t.m, row_max, rtol=0, atol=TOL)  # the max of the tile maxima is the row max
    assert torch.allclose(t.l, unnormalised.sum(-1), rtol=TOL, atol=0)
    # the steps that write O carry the final l of their rows
    for s in t.steps:
        if s.writes_o:
            assert torch.equal(s.l, t.l[:, :, s.q_start : s.q_stop])


@pytest.mark.parametrize("d_model, h", [(64, 4), (512, 64), (512, 1)])
def test_every_block_size_at_the_apps_longest_sequence(d_model, h):
    """T = SEQ_LEN_MAX (32) under the causal mask, every (block_q, block_k) in 1..32 x 1..32."""
    T, mask = limits.SEQ_LEN_MAX, causal_mask(limits.SEQ_LEN_MAX)
    trace = plain_trace(d_model, h, 1, T, T, 42, mask)
    worst = max(
        max_diff(tiled(trace, mask, bq, bk, keep_steps=False).output, trace.head_outputs)
        for bq in range(1, T + 1)
        for bk in range(1, T + 1)
    )
    assert worst <= TOL, worst


def test_fill_minus_inf_gives_nan_rows_exactly_where_the_plain_path_does():
    B, T, mask = 2, 6, padding_mask_from_lengths([0, 4], 6)  # sequence 0 blocks every key
    trace = plain_trace(8, 2, B, T, T, 3, mask, fill=FILL_NEG_INF)
    assert torch.isnan(trace.head_outputs[0]).all() and torch.isfinite(trace.head_outputs[1]).all()
    for bq in range(1, T + 1):
        for bk in range(1, T + 1):
            t = tiled(trace, mask, bq, bk, fill=FILL_NEG_INF)
            assert max_diff(t.output, trace.head_outputs) <= TOL
            assert torch.equal(t.l[0], torch.zeros_like(t.l[0]))  # nothing kept: l = 0, 0 / 0 = NaN


def test_a_row_blocked_only_in_some_tiles_loses_nothing_with_minus_inf():
    """Causal, fill -inf: row 0's later tiles are all -inf but its first is not; the m_safe guard keeps it finite,
    and a custom mask whose first tile blocks a row entirely (later tiles keep it) does too."""
    T = 6
    grid = torch.ones(T, T, dtype=torch.bool)
    grid[:, :2] = False  # keys 0, 1 blocked for everyone: with block_k = 2 the first key tile is all -inf
    grid[0, 0] = True  # ...except for query 0, so the tile is processed and rows 1..5 see -inf first
    for mask in (causal_mask(T), custom_mask(grid)):
        trace = plain_trace(8, 2, 1, T, T, 5, mask, fill=FILL_NEG_INF)
        t = tiled(trace, mask, 2, 2, fill=FILL_NEG_INF)
        assert torch.isfinite(t.output).all()
        assert max_diff(t.output, trace.head_outputs) <= TOL


# ---------------------------------------------------------------- the steps themselves
def test_every_step_follows_the_update_rule():
    T, mask = 7, causal_mask(7)
    trace = plain_trace(16, 4, 2, T, T, 11, mask)
    t = tiled(trace, mask, 3, 2)
    state = {}
    for s in t.steps:
        rows, keys = slice(s.q_start, s.q_stop), slice(s.k_start, s.k_stop)
        assert torch.allclose(s.scores, trace.masked_scores[:, :, rows, keys], atol=TOL)  # the tile of scores
        assert torch.equal(s.m_new, torch.maximum(s.m_old, s.scores.amax(-1)))
        assert torch.equal(s.rescale, torch.exp(s.m_old - s.m_new))
        assert torch.equal(s.p, torch.exp(s.scores - s.m_new[..., None]))
        assert bool((s.p <= 1).all())  # no exp ever sees a positive argument
        l_old, acc_old = state.get(s.q_tile, (torch.zeros_like(s.l), torch.zeros_like(s.acc)))
        assert s.loads_q == (s.q_tile not in state)
        assert torch.allclose(s.l, l_old * s.rescale + s.p.sum(-1), rtol=TOL)
        expected_acc = acc_old * s.rescale[..., None] + s.p @ trace.v_heads[:, :, keys]
        assert torch.allclose(s.acc, expected_acc, atol=TOL)
        state[s.q_tile] = (s.l, s.acc)
    # the walk: query tiles in order, key tiles left to right, each pair exactly once (processed or skipped)
    order = [(s.q_tile, s.k_tile) for s in t.steps]
    assert order == sorted(order)
    assert sorted(order + list(t.skipped)) == [(i, j) for i in range(t.n_q_tiles) for j in range(t.n_k_tiles)]
    assert (t.n_q_tiles, t.n_k_tiles) == (3, 4)  # 7 rows in tiles of 3 (3, 3, 1), 7 keys in tiles of 2 (2, 2, 2, 1)


def test_tile_bounds_cover_any_length_with_a_short_last_tile():
    assert tile_bounds(7, 3) == [(0, 3), (3, 6), (6, 7)]
    assert tile_bounds(6, 3) == [(0, 3), (3, 6)]
    assert tile_bounds(5, 8) == [(0, 5)]
    assert tile_bounds(1, 1) == [(0, 1)]


# ---------------------------------------------------------------- skipped tiles
# (T, block_q, block_k, skipped), counted by hand on paper: tile (i, j) is skipped when its first key
# comes after its last query. E.g. T = 7, blocks 2 x 3: query tiles {0,1} {2,3} {4,5} {6}, key tiles
# {0,1,2} {3,4,5} {6}: skipped (0,1) (0,2) (1,2) (2,2) = 4.
HAND_COUNTS = [
    (8, 4, 4, 1),  # 2 x 2 tiles, the top-right one
    (8, 2, 2, 6),  # 4 x 4 tiles, the 6 above the diagonal
    (8, 1, 1, 28),  # every cell: 8 * 7 / 2
    (5, 2, 3, 1),  # query tiles {0,1} {2,3} {4}, key tiles {0,1,2} {3,4}: only (0,1)
    (7, 2, 3, 4),
    (6, 4, 1, 2),  # query tile {0..3} skips keys 4 and 5; query tile {4,5} sees every key
    (32, 8, 8, 6),
    (32, 1, 1, 496),  # 32 * 31 / 2
    (32, 8, 32, 0),  # one key tile: nothing to skip
    (3, 32, 32, 0),  # blocks longer than T: one tile
]


@pytest.mark.parametrize("T, bq, bk, skipped", HAND_COUNTS)
def test_skipped_causal_tiles_equal_a_hand_count(T, bq, bk, skipped):
    trace = plain_trace(8, 2, 1, T, T, 0, causal_mask(T))
    t = tiled(trace, causal_mask(T), bq, bk)
    assert len(t.skipped) == skipped
    assert len(t.steps) + len(t.skipped) == math.ceil(T / bq) * math.ceil(T / bk) == t.n_tiles
    assert causal_tile_counts(T, T, bq, bk) == (len(t.steps), skipped)
    assert max_diff(t.output, trace.head_outputs) <= TOL


def test_no_mask_skips_nothing_and_padding_skips_keys_padded_in_every_sequence():
    T = 8
    trace = plain_trace(8, 2, 2, T, T, 1, None)
    assert tiled(trace, None, 2, 2).skipped == ()
    mask = padding_mask_from_lengths([3, 5], T)  # keys 5, 6, 7 are padding in both sequences
    trace = plain_trace(8, 2, 2, T, T, 1, mask)
    t = tiled(trace, mask, 4, 2)  # key tiles {0,1} {2,3} {4,5} {6,7}: only {6,7} is padding everywhere
    assert t.skipped == ((0, 3), (1, 3))
    mask = padding_mask_from_lengths([0, 5], T)  # sequence 0 blocks every row: no tile may be skipped
    t = tiled(plain_trace(8, 2, 2, T, T, 1, mask), mask, 4, 2)
    assert t.skipped == ()


def test_long_context_tile_counts():
    T = LONG_CONTEXTS[0]
    n = T // 64
    assert causal_tile_counts(T, T, 64, 64) == (n * (n + 1) // 2, n * (n - 1) // 2)  # 8256 processed, 8128 skipped
    processed, skipped = causal_tile_counts(LONG_CONTEXTS[1], LONG_CONTEXTS[1], 128, 64)
    assert processed + skipped == 1024 * 2048 and skipped / (processed + skipped) == pytest.approx(0.5, abs=1e-3)


# ---------------------------------------------------------------- memory and traffic
def test_memory_numbers():
    m = attention_memory(128 * 1024, 128 * 1024, 64, 1, 8, 64, 64)
    assert m.scores_bytes_per_head == 64 * 2**30  # 2^17 * 2^17 numbers of 4 bytes: 64 GiB for ONE head
    assert m.scores_bytes_all_heads == 8 * 64 * 2**30
    assert m.tile_bytes == 64 * 64 * 4 == 16 * 1024
    assert m.on_chip_bytes == (64 * 64 * 4 + 64 * 64 + 2 * 64) * 4  # Q, K, V, acc tiles + scores + m, l
    assert m.ratio == 2**22
    small = attention_memory(8, 8, 16, 1, 4, 32, 32)  # blocks longer than T are cut to T
    assert small.tile_bytes == small.scores_bytes_per_head == 8 * 8 * 4 and small.ratio == 1


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("T, bq, bk", [(7, 3, 2), (8, 4, 4), (5, 1, 5), (6, 6, 1)])
def test_traffic_equals_what_the_traced_steps_move(T, bq, bk, causal):
    mask = causal_mask(T) if causal else None
    trace = plain_trace(8, 2, 1, T, T, 2, mask)
    d_k = trace.q_heads.shape[-1]
    t = tiled(trace, mask, bq, bk)
    moved = {"read_q": 0, "read_k": 0, "read_v": 0, "write_o": 0}
    for s in t.steps:
        for name, n in step_traffic(s, d_k).items():
            moved[name] += n
    traffic = tiled_traffic(T, T, d_k, bq, bk, causal=causal)
    assert moved == {
        "read_q": traffic.read_q,
        "read_k": traffic.read_k,
        "read_v": traffic.read_v,
        "write_o": traffic.write_o,
    }
    assert traffic.read_q == traffic.write_o == T * d_k  # Q read once, O written once
    if not causal:
        assert traffic.read_k == T * d_k * math.ceil(T / bq)  # K read once per query tile


def test_traffic_at_long_contexts_plain_moves_the_scores_tiled_rereads_k_and_v():
    """Plain: 4 T^2 numbers of scores dominate. Tiled: K and V are re-read once per query tile,
    2 T^2 d_k / block_q numbers, so the saving grows with block_q (about 2 block_q / d_k times)."""
    T, d_k = LONG_CONTEXTS[0], 64
    plain = plain_traffic(T, T, d_k)
    assert plain.read_write_scores == 4 * T * T and plain.total == 4 * T * T + 4 * T * d_k
    ratios = []
    for bq in (64, 128, 256):
        flash = tiled_traffic(T, T, d_k, bq, 64)
        assert flash.read_write_scores == 0
        assert flash.total == 2 * T * d_k + 2 * T * d_k * (T // bq)
        ratios.append(plain.total / flash.total)
    assert ratios == pytest.approx([2 * (T + d_k) / (d_k * (1 + T / bq)) for bq in (64, 128, 256)])
    assert [round(r, 2) for r in ratios] == [2.0, 3.97, 7.82]  # ~2 block_q / d_k
    # the causal mask skips about half the tiles, so about half the K and V reads
    causal = tiled_traffic(T, T, d_k, 64, 64, causal=True)
    assert causal.read_k / tiled_traffic(T, T, d_k, 64, 64).read_k == pytest.approx(0.5, abs=0.01)


def test_context_costs_at_the_current_t_and_the_long_contexts():
    rows = context_costs(16, 16, 1, 4, 4, 8)  # d_model 64, h 4 at T = 16, blocks 4 x 8
    assert [r.T for r in rows] == [16, 8192, 131072]
    current, _, longest = rows
    assert current.memory.scores_bytes_per_head == 16 * 16 * 4 and current.memory.tile_bytes == 4 * 8 * 4
    assert current.causal_tiles == (6, 2)  # query tiles of 4 rows, key tiles {0..7} {8..15}: hand count
    assert longest.memory.scores_bytes_all_heads == 4 * 2**34 * 4  # 4 heads x (2^17)^2 x 4 bytes = 256 GiB
    # blocks of 4 rows with d_k = 16: K and V re-read 2^15 times; more traffic than the plain path (block_q < 2 d_k),
    # while the largest intermediate is 2^29 times smaller
    ratio = longest.plain.total / longest.tiled.total
    assert ratio == pytest.approx(2 * (131072 + 16) / (16 * (1 + 131072 / 4))) and round(ratio, 3) == 0.5
    assert longest.memory.ratio == 2**34 / 32
    assert longest.tiled_causal.total < longest.tiled.total
    assert longest.causal_tiles == causal_tile_counts(131072, 131072, 4, 8)


# ---------------------------------------------------------------- bad input
def test_bad_block_sizes_and_shapes_are_refused_with_the_limit():
    trace = plain_trace(8, 2, 1, 4, 4, 0, None)
    for bq, bk in [(0, 1), (1, 0), (limits.TILE_BLOCK_MAX + 1, 1), (1, 2.0), (True, 1)]:
        with pytest.raises(ValueError, match="block_"):
            tiled(trace, None, bq, bk)
    with pytest.raises(ValueError, match="4-D"):
        tiled_attention(trace.q_heads[0], trace.k_heads, trace.v_heads, block_q=1, block_k=1)
    with pytest.raises(ValueError, match="k and v"):
        tiled_attention(trace.q_heads, trace.k_heads[:, :1], trace.v_heads, block_q=1, block_k=1)
    with pytest.raises(ValueError, match="broadcast"):
        tiled(trace, torch.ones(1, 1, 3, 4, dtype=torch.bool), 1, 1)
    with pytest.raises(ValueError, match="T_q"):
        attention_memory(limits.ACCOUNTING_T_MAX + 1, 8, 8, 1, 1, 1, 1)


def test_keep_steps_false_gives_the_same_result_without_steps():
    mask = causal_mask(6)
    trace = plain_trace(8, 2, 1, 6, 6, 4, mask)
    full, lean = tiled(trace, mask, 2, 3), tiled(trace, mask, 2, 3, keep_steps=False)
    assert lean.steps == () and lean.skipped == full.skipped
    assert torch.equal(lean.output, full.output) and torch.equal(lean.l, full.l)


def test_shared_read_only_inputs_give_the_same_walk_without_a_check_per_op(monkeypatch):
    """The app's runs are frozen (core/frozen): the walk copies q, k, v and the mask once, so its ~20 ops a tile do
    not each go through ReadOnlyTensor's checks (twice the walk's time at 512/16/32), and its steps are plain tensors
    equal to a walk of writable inputs; the shared inputs are unchanged."""
    from core.frozen import ReadOnlyTensor, freeze

    torch.manual_seed(0)
    q, k, v = (torch.randn(1, 2, 9, 4) for _ in range(3))
    mask = causal_mask(9)
    plain = tiled_attention(q, k, v, mask, block_q=2, block_k=3)
    shared = [freeze(x) for x in (q, k, v, mask)]
    calls = []
    seen = ReadOnlyTensor.__torch_function__.__func__

    def counted(cls, func, types, args=(), kwargs=None):
        calls.append(getattr(func, "__name__", func))
        return seen(cls, func, types, args, kwargs)

    monkeypatch.setattr(ReadOnlyTensor, "__torch_function__", classmethod(counted))
    walk = tiled_attention(*shared, block_q=2, block_k=3)
    checks = len(calls)
    calls.clear()
    tiled_attention(*shared, block_q=1, block_k=1)
    assert len(calls) == checks < 40  # the copies and the input checks: as many for 45 tiles as for 11
    assert torch.equal(walk.output, plain.output) and len(walk.steps) == len(plain.steps) == 11  # 4 skipped
    assert all(type(s.p) is torch.Tensor and torch.equal(s.p, t.p) for s, t in zip(walk.steps, plain.steps))
    assert all(torch.equal(a, b) for a, b in zip(shared, (q, k, v, mask)))
