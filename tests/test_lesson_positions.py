"""lessons/positions/: every number the Positions page prints, against an independent computation.

References used here, not the lesson's own code: torch's nn.MultiheadAttention (core.reference.torch_reference)
for weights and outputs, the sinusoid and RoPE formulas written in numpy float64, cosines in numpy, the real
model's own run for its learned positions, and hand-computed URL corrections.
"""

from __future__ import annotations

import math
import time
from pathlib import Path

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from charts import diagrams
from core import limits
from core import positions as P
from core.masks import causal_mask
from core.reference import torch_reference
from lessons import positions as L
from lessons import scenario
from lessons.settings import Settings

pytestmark = pytest.mark.usefixtures("one_torch_thread")
ROOT = Path(__file__).resolve().parents[1]

# smallest, d_k 1 (odd), the default, and the largest settings; every mask kind somewhere
SETTINGS = [
    Settings(8, 1, 2, "none", 0, "en"),
    Settings(8, 8, 2, "padding", 3, "zh"),
    Settings(64, 4, 8, "none", 0, "en"),
    Settings(64, 4, 8, "custom", 5, "zh"),
    Settings(512, 16, 32, "none", 0, "en"),
    Settings(512, 64, 32, "causal", 99_999, "zh"),
    Settings(512, 1, 32, "none", 0, "en"),  # d_k 512: past the RoPE limit
]
DEFAULT = Settings(64, 4, 8, "none", 0, "en")


@pytest.fixture(scope="module")
def real():
    from core import pretrained

    return pretrained.load()


# ================================================================ the module's imports
# ================================================================ 1. Shuffle the words
@pytest.mark.parametrize("s", SETTINGS, ids=str)
@pytest.mark.parametrize("causal", [False, True])
def test_shuffle_view_against_torch(s, causal):
    seed = 4242
    v = L.shuffle_view(s, seed, causal, head=s.num_heads - 1)
    run = scenario.run(s)
    T = s.seq_len
    perm = v.perm
    assert sorted(perm.tolist()) == list(range(T)) and perm.tolist() != list(range(T))
    assert perm.tolist() == P.random_permutation(T, seed).tolist()
    np.testing.assert_array_equal(perm[v.inverse], np.arange(T))
    assert v.moved.tolist() == [int(p) != i for i, p in enumerate(perm)]
    assert v.tokens_after == tuple(v.tokens[p] for p in perm)
    # X: the other pages' X, and the shuffle moves rows without changing a number
    cut = min(s.d_model, 16)
    assert v.dims_shown == cut and v.x.panels[0].col_labels == tuple(str(j) for j in range(cut))
    np.testing.assert_array_equal(v.x.panels[0].values, run.x[0].numpy()[:, :cut])
    np.testing.assert_array_equal(v.x.panels[1].values, run.x[0].numpy()[perm][:, :cut])
    assert v.x_moved_gap == 0.0
    # weights and outputs: nn.MultiheadAttention on both inputs
    mask = causal_mask(T) if causal else None
    xs = run.x[:, torch.as_tensor(perm.copy())]
    out_b, w_b = torch_reference(run.model, run.x, run.x, run.x, mask)
    out_a, w_a = torch_reference(run.model, xs, xs, xs, mask)
    head = s.num_heads - 1
    assert v.head == head
    np.testing.assert_allclose(v.weights.panels[0].values, w_b[0, head].numpy(), atol=1e-5)
    np.testing.assert_allclose(v.weights.panels[1].values, w_a[0, head].numpy(), atol=1e-5)
    np.testing.assert_allclose(v.output.panels[0].values, out_b[0].numpy()[:, :cut], atol=1e-5)
    np.testing.assert_allclose(v.output.panels[1].values, out_a[0].numpy()[:, :cut], atol=1e-5)
    row_gaps = np.abs(out_a[0].numpy() - out_b[0].numpy()[perm]).max(-1)
    np.testing.assert_allclose(v.row_gaps, row_gaps, atol=2e-5)
    if not causal:
        assert v.row_gaps.max() <= 1e-5  # row i after the shuffle is row perm[i] before, every number
    # the printed gaps, by hand from the reference: un-shuffle = take row inverse[i]
    inv = np.argsort(perm)
    gap_out = float(np.abs(out_a[0].numpy()[inv] - out_b[0].numpy()).max())
    gap_w = float(np.abs(w_a[0].numpy()[:, inv][:, :, inv] - w_b[0].numpy()).max())
    assert v.output_gap == pytest.approx(gap_out, abs=2e-5)
    assert v.weights_gap == pytest.approx(gap_w, abs=2e-5)
    assert v.free_output_gap <= 1e-5 and v.free_weights_gap <= 1e-5  # unmasked: 0 up to float error
    assert v.causal_output_gap > 1e-2 and v.causal_weights_gap > 1e-2  # the causal mask breaks it
    assert v.equal is (not causal)
    assert (v.output_gap, v.weights_gap) == (
        (v.causal_output_gap, v.causal_weights_gap) if causal else (v.free_output_gap, v.free_weights_gap)
    )
    # the counter-example the page prints: the token shuffled to the front sees only itself
    assert v.front == perm[0]
    assert v.front_self_after == 1.0
    _, w_causal = torch_reference(run.model, run.x, run.x, run.x, causal_mask(T))
    assert v.front_self_before == pytest.approx(float(w_causal[0, head, v.front, v.front]), abs=1e-5)
    if v.front != 0:
        assert v.front_self_before < 0.999
    assert v.notes == (() if s.mask == "none" else ("shared_mask_not_used",))
    assert v.weights.role == "weights" and (v.weights.vmin, v.weights.vmax) == (0.0, 1.0)
    assert v.x.role == "signed" and v.x.vmin == -v.x.vmax
    assert [p.title.key for p in v.x.panels] == ["pos.panel.before", "pos.panel.after"]
    assert v.x.panels[1].row_labels == v.tokens_after and v.weights.panels[1].col_labels == v.tokens_after
    assert (v.weights.row_axis.key, v.weights.col_axis.key) == ("pos.axis.query", "pos.axis.key")
    assert v.x.panels[0].values.shape == (T, cut) and not v.x.panels[0].values.flags.writeable


@pytest.mark.parametrize("mask", ["none", "causal", "padding"])
def test_shuffle_view_uses_the_scenarios_own_run_and_says_the_same(mask, monkeypatch):
    """The scenario's run is the unshuffled run of its own mask (none: the free one; causal: the masked one): the view
    makes three runs, not four, and every number is what four separate runs give."""
    s = Settings(64, 4, 8, mask, 3, "en")
    run = scenario.run(s)
    perm = P.random_permutation(8, 77)
    free = P.permutation_run(run.model, run.x, perm)  # the four runs, each made here
    masked = P.permutation_run(run.model, run.x, perm, causal_mask(8))
    calls = []
    forward = type(run.model).forward_with_trace
    monkeypatch.setattr(type(run.model), "forward_with_trace", lambda *a, **k: calls.append(1) or forward(*a, **k))
    for causal, shown in ((False, free), (True, masked)):
        calls.clear()
        v = L.shuffle_view(s, 77, causal, 1, run)
        assert len(calls) == (4 if mask == "padding" else 3)
        assert (v.output_gap, v.weights_gap) == (shown.output_gap, shown.weights_gap)
        assert (v.free_output_gap, v.causal_output_gap) == (free.output_gap, masked.output_gap)
        np.testing.assert_array_equal(v.weights.panels[0].values, shown.trace.weights[0, 1].numpy())
        np.testing.assert_array_equal(v.weights.panels[1].values, shown.trace_shuffled.weights[0, 1].numpy())
        np.testing.assert_array_equal(v.output.panels[0].values, shown.trace.output[0, :, :16].numpy())


def test_shuffle_labels_follow_the_tokens():
    v = L.shuffle_view(DEFAULT, 1, False, 0)
    assert v.tokens[:3] == ("0:the", "1:cat", "2:sat")
    assert v.tokens_after[0] == f"{v.perm[0]}:" + v.tokens[v.perm[0]].split(":")[1]


@pytest.mark.parametrize("d_model, T", [(8, 2), (64, 8), (512, 32)])
def test_shuffle_charts_label_every_row_and_mark_what_moved(d_model, T):
    """Issue 29 item 4: X and the output were flat (T, 64) strips with every third row named. Now they carry the
    first few dimensions, every row is labelled, and each token keeps its colour strip (its original index) in
    both panels, so row perm[i] before is found at row i after; the weights' rows and columns too."""
    s = Settings(d_model=d_model, num_heads=4 if d_model > 8 else 2, seq_len=T, mask="none", seed=0, lang="en")
    v = L.shuffle_view(s, 3, False, 0)
    perm = tuple(int(p) for p in v.perm)
    assert v.dims_shown == min(d_model, 16)
    for hm in (v.x, v.weights, v.output):
        assert hm.every_row
        before, after = hm.panels
        assert before.row_groups == tuple(range(T)) and after.row_groups == perm
        assert before.row_labels == v.tokens and after.row_labels == v.tokens_after
        for i, p in enumerate(perm):  # the strip and the label of row i after are those of row perm[i] before
            assert (after.row_groups[i], after.row_labels[i]) == (before.row_groups[p], before.row_labels[p])
    assert v.weights.panels[0].col_groups == tuple(range(T)) and v.weights.panels[1].col_groups == perm
    assert v.x.panels[0].col_groups == ()  # the columns of X are dimensions: nothing moves along them


# ================================================================ 2. Add positions
def sinusoid_np(n, d):
    pe = np.zeros((n, d))
    for pos in range(n):
        for i in range(0, d, 2):
            pe[pos, i] = math.sin(pos / 10000 ** (i / d))
            if i + 1 < d:
                pe[pos, i + 1] = math.cos(pos / 10000 ** (i / d))
    return pe


def rope_np(x, positions, base):
    """(T, d_k) rows turned pair by pair, pairs (i, i + d_k/2), float64: written from the formula."""
    x = np.asarray(x, dtype=np.float64)
    half = x.shape[-1] // 2
    out = x.copy()
    for t, p in enumerate(positions):
        for i in range(half):
            a = p * base ** (-2 * i / x.shape[-1])
            c, s = math.cos(a), math.sin(a)
            out[..., t, i] = x[..., t, i] * c - x[..., t, i + half] * s
            out[..., t, i + half] = x[..., t, i + half] * c + x[..., t, i] * s
    return out


@pytest.mark.parametrize("s", SETTINGS, ids=str)
def test_add_view_random_model(s, real):
    base = 500.0
    v = L.add_view(s, "random", head=0, base=base, shuffle_seed=7, real=real)
    run = scenario.run(s)
    kinds = {k.kind: k for k in v.kinds}
    assert tuple(kinds) == L.KINDS
    assert not kinds["learned"].available and kinds["learned"].reason == "learned_width"
    assert v.table_width == 384 == L.REAL_WIDTH and v.d_model == s.d_model != v.table_width
    # none: exactly the other pages' weights (the scenario's trace, shared mask included), and nn.MHA's
    np.testing.assert_array_equal(kinds["none"].weights, run.trace.weights[0].numpy())
    assert v.scenario_gap == 0.0
    _, w_ref = torch_reference(run.model, run.x, run.x, run.x, run.mask)
    np.testing.assert_allclose(kinds["none"].weights, w_ref[0].numpy(), atol=1e-5)
    # sinusoidal: X + the paper's table (numpy), through nn.MHA
    xp = run.x + torch.tensor(sinusoid_np(s.seq_len, s.d_model), dtype=torch.float32)[None]
    _, w_sin = torch_reference(run.model, xp, xp, xp, run.mask)
    np.testing.assert_allclose(kinds["sinusoidal"].weights, w_sin[0].numpy(), atol=1e-5)
    assert kinds["sinusoidal"].change == pytest.approx(
        float(np.abs(w_sin[0].numpy() - w_ref[0].numpy()).max()), abs=1e-5
    )
    # rope: q and k turned by the formula in numpy, softmax by hand
    if s.d_k % 2:
        assert not kinds["rope"].available and kinds["rope"].reason == "rope_odd_d_k" and "rope_odd_d_k" in v.notes
    elif s.d_k > limits.ROPE_D_K_MAX:
        assert not kinds["rope"].available and kinds["rope"].reason == "rope_d_k_max"
    else:
        tr = run.trace
        q = rope_np(tr.q_heads[0].numpy(), range(s.seq_len), base)
        k = rope_np(tr.k_heads[0].numpy(), range(s.seq_len), base)
        sc = q @ k.transpose(0, 2, 1) / math.sqrt(s.d_k)
        if run.mask is not None:
            sc = np.where(
                np.broadcast_to(run.mask.numpy().reshape(-1, s.seq_len, s.seq_len)[0], sc.shape) == 0,
                run.model.fill_value,
                sc,
            )
        w = np.exp(sc - sc.max(-1, keepdims=True))
        w /= w.sum(-1, keepdims=True)
        np.testing.assert_allclose(kinds["rope"].weights, w, atol=1e-5)
    # lengths: the tokens' rows, and what each kind adds (the paper's sinusoid rows have length sqrt(d_model / 2))
    assert v.token_norm == pytest.approx(float(np.linalg.norm(run.x[0].numpy(), axis=1).mean()), rel=1e-5)
    assert kinds["none"].added_norm == 0.0 and kinds["learned"].added_norm is None
    pe_len = np.linalg.norm(sinusoid_np(s.seq_len, s.d_model), axis=1).mean()
    assert kinds["sinusoidal"].added_norm == pytest.approx(pe_len, rel=1e-5)
    if s.d_model % 2 == 0:
        assert kinds["sinusoidal"].added_norm == pytest.approx(math.sqrt(s.d_model / 2), rel=1e-5)
    # the side-by-side panels: the head of every available kind
    shown = [k for k in L.KINDS if kinds[k].available]
    assert tuple(shown) == (
        L.RANDOM_KINDS if s.d_k % 2 == 0 and s.d_k <= limits.ROPE_D_K_MAX else ("none", "sinusoidal")
    )
    assert tuple(p.title.key for p in v.side_by_side.panels) == tuple(f"pos.kind.{k}" for k in shown)
    for i, kind in enumerate(shown):
        np.testing.assert_array_equal(v.side_by_side.panels[i].values, kinds[kind].weights[0])
    # the shuffle gap per kind: 0 without positions (and without a mask), not 0 with them
    if s.mask == "none":
        assert kinds["none"].shuffle_gap <= 1e-5
        assert kinds["sinusoidal"].shuffle_gap > 1e-3
        if kinds["rope"].available:
            assert kinds["rope"].shuffle_gap > 1e-3
    else:
        assert "shuffle_gap_with_mask" in v.notes
    perm = torch.as_tensor(v.perm.copy())
    inv = torch.argsort(perm)
    pe = torch.tensor(sinusoid_np(s.seq_len, s.d_model), dtype=torch.float32)[None]
    xs = run.x[:, perm] + pe  # the words move, the position rows stay in their slots
    _, w_sin_s = torch_reference(run.model, xs, xs, xs, run.mask)
    gap = float(np.abs(w_sin_s[0].numpy()[:, inv][:, :, inv] - w_sin[0].numpy()).max())
    assert kinds["sinusoidal"].shuffle_gap == pytest.approx(gap, abs=2e-5)


def test_add_view_real_model(real):
    from core.pretrained import EXAMPLES

    assert L.REAL_HEADS == real.cfg.num_heads and L.REAL_WIDTH == real.cfg.d_model
    assert all(len(real.encode(text).ids) <= limits.SEQ_LEN_MAX for text, _, _ in EXAMPLES)  # shuffled like T
    for example in range(len(EXAMPLES)):
        v = L.add_view(DEFAULT, "real", head=11, base=10_000.0, shuffle_seed=1, real=real, example=example)
        encoded, run = real.run_text(EXAMPLES[example][0])
        kinds = {k.kind: k for k in v.kinds}
        assert all(k.available for k in v.kinds) and tuple(p.title.key for p in v.side_by_side.panels) == tuple(
            f"pos.kind.{k}" for k in L.KINDS
        )
        assert (v.num_heads, v.d_model, v.d_k, v.head) == (12, 384, 32, 11)
        assert v.tokens == tuple(f"{i}:{t}" for i, t in enumerate(encoded.tokens))
        # learned: the real model's own first layer
        np.testing.assert_allclose(kinds["learned"].weights, run.weights[0, 0].numpy(), atol=1e-6)
        assert [k.trained for k in v.kinds] == [kind == "learned" for kind in L.KINDS]
        # a repeated word ("the"): the same row without positions, different rows with any kind of them
        a, b = v.twin
        assert encoded.tokens[a] == encoded.tokens[b] and a < b
        w_none = kinds["none"].weights
        assert kinds["none"].twin_gap == pytest.approx(float(np.abs(w_none[:, a] - w_none[:, b]).max()), abs=1e-7)
        assert kinds["none"].twin_gap <= 1e-6
        for kind in ("sinusoidal", "learned", "rope"):
            assert kinds[kind].twin_gap > 1e-2, kind
            assert kinds[kind].shuffle_gap > 1e-2, kind
        assert kinds["none"].shuffle_gap <= 1e-5
        np.testing.assert_array_equal(v.side_by_side.panels[2].values, kinds["learned"].weights[11])
        # lengths: word + segment rows as the model adds them, the table's rows, the sinusoids' sqrt(192)
        emb = real.encoder.embeddings
        ids = np.array(encoded.ids)
        tok = emb.word.weight.detach().numpy()[ids] + emb.token_type.weight.detach().numpy()[0]
        assert v.token_norm == pytest.approx(float(np.linalg.norm(tok, axis=1).mean()), rel=1e-5)
        learned_rows = emb.position.weight.detach().numpy()[: len(ids)]
        assert kinds["learned"].added_norm == pytest.approx(
            float(np.linalg.norm(learned_rows, axis=1).mean()), rel=1e-5
        )
        assert kinds["sinusoidal"].added_norm == pytest.approx(math.sqrt(192), rel=1e-5)
        assert kinds["none"].added_norm == kinds["rope"].added_norm == 0.0
        assert kinds["sinusoidal"].added_norm > 5 * v.token_norm > 5 * kinds["learned"].added_norm


def test_add_view_refuses_what_the_page_never_sends():
    with pytest.raises(ValueError, match="model"):
        L.add_view(DEFAULT, "bert", 0, 10_000.0, 1)
    with pytest.raises(ValueError, match="real model"):
        L.add_view(DEFAULT, "real", 0, 10_000.0, 1)


def test_twin_positions():
    assert L.twin_positions(["[CLS]", "a", "b", "a", "[SEP]"]) == (1, 3)
    assert L.twin_positions(["[CLS]", "a", "b", "[SEP]"]) is None


# ================================================================ 3. RoPE is about distance
@pytest.mark.parametrize("s", SETTINGS, ids=str)
def test_rope_view_grid_against_the_formula(s):
    d_k = L.default_dk(s)
    base, grid, pair, at = 10_000.0, 12, d_k // 2 - 1, 5
    v = L.rope_view(s, d_k, base, s.num_heads - 1, grid, pair, at)
    run = scenario.run(s)
    if s.d_k > limits.ROPE_D_K_MAX:  # d_k 512 (one head of 512): the largest RoPE d_k, random q and k
        assert v.source == "random" and v.notes == ("shared_d_k_max",) and d_k == limits.ROPE_D_K_MAX
    elif s.d_k % 2 == 0:  # the scenario's own q and k
        assert v.source == "scenario" and v.head == s.num_heads - 1 and v.notes == ()
        np.testing.assert_array_equal(v.q, run.trace.q_heads[0, s.num_heads - 1, -1].numpy())
        np.testing.assert_array_equal(v.k, run.trace.k_heads[0, s.num_heads - 1, 0].numpy())
        assert v.q_token == f"{s.seq_len - 1}:{run.tokens[-1]}" and v.k_token == f"0:{run.tokens[0]}"
    else:
        assert v.source == "random" and v.notes == ("shared_d_k_odd",) and d_k == 2
    q = rope_np(np.tile(v.q, (grid, 1)), range(grid), base)  # (P, d_k): q at every position
    k = rope_np(np.tile(v.k, (grid, 1)), range(grid), base)
    expected = q @ k.T / math.sqrt(d_k)
    np.testing.assert_allclose(v.grid.panels[0].values, expected, atol=1e-4)
    assert v.grid.panels[0].values.shape == (grid, grid) and v.grid.role == "signed"
    # constant along diagonals: the printed spread, by hand
    spread = max(np.ptp(np.diagonal(v.grid.panels[0].values, offset=-r)) for r in range(-(grid - 1), grid))
    assert v.diagonal_spread == pytest.approx(spread, abs=1e-6) and v.diagonal_spread <= 1e-5
    assert v.constant_on_diagonals
    pe = sinusoid_np(grid, d_k)
    absolute = (v.q + pe) @ (v.k + pe).T / math.sqrt(d_k)
    np.testing.assert_allclose(v.absolute_grid.panels[0].values, absolute, atol=1e-4)
    a_spread = max(np.ptp(np.diagonal(absolute, offset=-r)) for r in range(-(grid - 1), grid))
    assert v.absolute_spread == pytest.approx(a_spread, abs=1e-4) and v.absolute_spread > 1e-2
    plain = float(np.dot(v.q.astype(np.float64), v.k) / math.sqrt(d_k))
    assert v.plain_score == pytest.approx(plain, abs=1e-5)
    assert v.diagonal_gap <= 1e-5
    # score against m - n: the diagonal's value, for every distance
    assert v.by_distance.x.tolist() == list(range(-(grid - 1), grid))
    for r, y in zip(v.by_distance.x, v.by_distance.y):
        m = max(r, 0)
        assert y == pytest.approx(expected[m, m - r], abs=1e-4)
    # one pair turning: angle = position * base^(-2 pair / d_k), a rotation of (q[pair], q[pair + d_k/2])
    theta = base ** (-2 * pair / d_k)
    assert v.pair.theta == pytest.approx(theta, rel=1e-6) and v.pair.angle == pytest.approx(at * theta, rel=1e-6)
    assert v.pair.dims == (pair, pair + d_k // 2)
    a, b = float(v.q[pair]), float(v.q[pair + d_k // 2])
    c, sn = math.cos(at * theta), math.sin(at * theta)
    assert v.pair.before == pytest.approx((a, b), abs=1e-7)
    assert v.pair.after == pytest.approx((a * c - b * sn, b * c + a * sn), abs=1e-5)
    assert v.pair.length_after == pytest.approx(v.pair.length_before, rel=1e-5)
    assert v.pair.angle_deg_reduced == pytest.approx(math.degrees(at * theta) % 360, abs=1e-3)
    assert v.pair.turns == pytest.approx(at * theta / (2 * math.pi), rel=1e-6)
    np.testing.assert_allclose(v.pair.path, q[:, [pair, pair + d_k // 2]], atol=1e-5)
    np.testing.assert_allclose(v.frequencies, base ** (-2 * np.arange(d_k // 2) / d_k), rtol=1e-6)
    # the fall-off: its exact mean, and the matched curve starts at mean |q|^2 / sqrt(d_k) ~ sqrt(d_k)
    r = np.arange(L.FALLOFF_DISTANCE + 1)
    exp = 2 / math.sqrt(d_k) * np.cos(r[:, None] * v.frequencies[None].astype(np.float64)).sum(-1)
    np.testing.assert_allclose(v.falloff_expected.y, exp, atol=1e-4)
    assert v.falloff_expected.y[0] == pytest.approx(math.sqrt(d_k), rel=1e-5)
    gen = torch.Generator().manual_seed(s.seed)
    qs = torch.randn(v.falloff_samples, d_k, generator=gen).double()
    assert v.falloff_matched.y[0] == pytest.approx(float((qs * qs).sum(-1).mean()) / math.sqrt(d_k), rel=1e-4)
    assert v.falloff_matched.x.tolist() == r.tolist()
    assert 0.5 < float(v.falloff_unrelated.y.mean()) < 1.0  # flat around sqrt(2/pi) = 0.80


def test_rope_view_base_and_d_k_controls():
    """Another d_k: seeded random q, k (not the scenario's); another base: another grid, still on diagonals."""
    a = L.rope_view(DEFAULT, 16, 10_000.0, 0, 16, 0, 3)
    b = L.rope_view(DEFAULT, 16, 10.0, 0, 16, 0, 3)
    c = L.rope_view(DEFAULT, 6, 10_000.0, 0, 16, 2, 3)
    assert a.source == "scenario" and c.source == "random" and c.head is None
    assert float(np.abs(a.grid.panels[0].values - b.grid.panels[0].values).max()) > 1e-2
    assert b.constant_on_diagonals and c.constant_on_diagonals
    assert c.q.shape == (6,) and c.pair.dims == (2, 5)
    # a larger base decays more slowly: the matched curve at distance 64 is higher with base 1e6 than with 100
    slow = L.rope_view(DEFAULT, 64, 1e6, 0, 4, 0, 1).falloff_expected.y[64]
    fast = L.rope_view(DEFAULT, 64, 100.0, 0, 4, 0, 1).falloff_expected.y[64]
    assert slow > fast
    for bad_dk in (7, 1):
        with pytest.raises(ValueError, match="even"):  # only parsed (even) values come in; core says why
            L.rope_view(DEFAULT, bad_dk, 10_000.0, 0, 8, 0, 1)
    with pytest.raises(ValueError, match="above 1"):
        L.rope_view(DEFAULT, 16, 1.0, 0, 8, 0, 1)


# ================================================================ 4. the learned table
@pytest.mark.parametrize("span", L.SPANS)
def test_learned_view_against_numpy_cosines(real, span):
    v = L.learned_view(real, span)
    table = real.encoder.embeddings.position.weight.detach().numpy().astype(np.float64)  # (512, 384)
    assert v.table_shape == (512, 384)
    np.testing.assert_allclose(v.first_values, [-0.0856, -0.0329, -0.0170, 0.1042], atol=5e-5)
    stride = max(1, span // 64)
    assert L.SIMILARITY_SIDE_MAX == 64
    assert v.stride == stride and v.positions.tolist() == list(range(0, span, stride))
    assert v.similarity.panels[0].values.shape == (len(v.positions),) * 2 and len(v.positions) <= 64
    rows = table[:span] / np.linalg.norm(table[:span], axis=1, keepdims=True)
    sim = rows @ rows.T
    np.testing.assert_allclose(v.similarity.panels[0].values, sim[::stride, ::stride], atol=1e-5)
    sines = sinusoid_np(span, 384)
    srows = sines / np.linalg.norm(sines, axis=1, keepdims=True)
    ssim = srows @ srows.T
    np.testing.assert_allclose(v.similarity.panels[1].values, ssim[::stride, ::stride], atol=1e-5)
    far = np.abs(np.arange(span)[:, None] - np.arange(span)[None]) >= span // 2
    assert v.learned_neighbour == pytest.approx(np.diagonal(sim, 1).mean(), abs=1e-5)
    assert v.learned_far == pytest.approx(sim[far].mean(), abs=1e-5)
    assert v.sinusoidal_neighbour == pytest.approx(np.diagonal(ssim, 1).mean(), abs=1e-5)
    assert v.sinusoidal_far == pytest.approx(ssim[far].mean(), abs=1e-5)
    assert v.learned_neighbour > v.learned_far  # neighbours are alike in the trained table too
    assert v.similarity.role == "similarity" and (v.similarity.vmin, v.similarity.vmax) == (-1.0, 1.0)
    with pytest.raises(ValueError):
        L.learned_view(real, 100)


# ================================================================ URL keys
def test_url_keys_table():
    assert [k.name for k in L.URL_KEYS] == [
        "pos_tab",
        "pos_shuffle",
        "pos_causal",
        "pos_model",
        "pos_head",
        "pos_example",
        "pos_dk",
        "pos_base",
        "pos_grid",
        "pos_pair",
        "pos_at",
        "pos_span",
    ]
    for k in L.URL_KEYS:
        assert k.name.startswith("pos_") and k.kind in ("choice", "int", "float", "bool", "even_int")
        assert k.default is not None
    v = L.parse_url({}, DEFAULT)
    assert v.fixes == ()
    assert (v.tab, v.shuffle, v.causal, v.model, v.head, v.example, v.d_k, v.base, v.grid, v.pair, v.at, v.span) == (
        "shuffle",
        1,
        False,
        "random",
        0,
        0,
        16,
        10_000.0,
        16,
        0,
        3,
        64,
    )


# (key, raw, settings, value used, reason or None)
D1 = Settings(8, 8, 2, "none", 0, "en")  # d_k 1
BAD = [
    ("pos_tab", "rope", DEFAULT, "rope", None),
    ("pos_tab", "ROPE", DEFAULT, "shuffle", "unreadable"),
    ("pos_tab", "<script>", DEFAULT, "shuffle", "unreadable"),
    ("pos_shuffle", "-5", DEFAULT, 0, "out_of_range"),
    ("pos_shuffle", "1e400", DEFAULT, 99_999, "out_of_range"),
    ("pos_shuffle", "9" * 500, DEFAULT, 99_999, "out_of_range"),
    ("pos_shuffle", "abc", DEFAULT, 1, "unreadable"),
    ("pos_shuffle", "12", DEFAULT, 12, None),
    ("pos_causal", "true", DEFAULT, True, None),
    ("pos_causal", "1", DEFAULT, True, "unreadable"),
    ("pos_causal", "maybe", DEFAULT, False, "unreadable"),
    ("pos_head", "99", DEFAULT, 3, "out_of_range"),
    ("pos_head", "-1", DEFAULT, 0, "out_of_range"),
    ("pos_head", "nan", DEFAULT, 0, "unreadable"),
    ("pos_model", "bert", DEFAULT, "random", "unreadable"),
    ("pos_example", "9", DEFAULT, 3, "out_of_range"),
    ("pos_dk", "7", DEFAULT, 6, "odd_d_k"),
    ("pos_dk", "1", DEFAULT, 2, "odd_d_k"),
    ("pos_dk", "0", DEFAULT, 2, "out_of_range"),
    ("pos_dk", "1000", DEFAULT, 256, "out_of_range"),
    ("pos_dk", "255", DEFAULT, 254, "odd_d_k"),
    ("pos_dk", "x", DEFAULT, 16, "unreadable"),
    ("pos_dk", "x", D1, 2, "unreadable"),
    ("pos_dk", "32", DEFAULT, 32, None),
    ("pos_base", "1", DEFAULT, 10_000.0, "base_at_most_1"),
    ("pos_base", "0.5", DEFAULT, 10_000.0, "base_at_most_1"),
    ("pos_base", "-3", DEFAULT, 10_000.0, "base_at_most_1"),
    ("pos_base", "-inf", DEFAULT, 10_000.0, "base_at_most_1"),
    ("pos_base", "nan", DEFAULT, 10_000.0, "unreadable"),
    ("pos_base", "inf", DEFAULT, 1e6, "out_of_range"),
    ("pos_base", "1e400", DEFAULT, 1e6, "out_of_range"),
    ("pos_base", "9" * 100, DEFAULT, 1e6, "out_of_range"),
    ("pos_base", "x" * 100, DEFAULT, 10_000.0, "unreadable"),
    ("pos_base", "1.5", DEFAULT, 1.5, None),
    ("pos_base", "500000", DEFAULT, 500_000.0, None),
    ("pos_grid", "1", DEFAULT, 2, "out_of_range"),
    ("pos_grid", "100", DEFAULT, 64, "out_of_range"),
    ("pos_pair", "50", DEFAULT, 7, "out_of_range"),
    ("pos_at", "-1", DEFAULT, 0, "out_of_range"),
    ("pos_at", "600", DEFAULT, 512, "out_of_range"),
    ("pos_span", "100", DEFAULT, 128, "out_of_range"),
    ("pos_span", "1e9", DEFAULT, 512, "out_of_range"),
    ("pos_span", "abc", DEFAULT, 64, "unreadable"),
    ("pos_span", "256", DEFAULT, 256, None),
]
FIELD = {
    "pos_tab": "tab",
    "pos_shuffle": "shuffle",
    "pos_causal": "causal",
    "pos_head": "head",
    "pos_model": "model",
    "pos_example": "example",
    "pos_dk": "d_k",
    "pos_base": "base",
    "pos_grid": "grid",
    "pos_pair": "pair",
    "pos_at": "at",
    "pos_span": "span",
}


@pytest.mark.parametrize("key,raw,s,used,reason", BAD, ids=lambda x: str(x)[:20])
def test_bad_url_values_are_corrected(key, raw, s, used, reason):
    v = L.parse_url({key: raw}, s)
    assert getattr(v, FIELD[key]) == used
    if reason is None:
        assert v.fixes == ()
    else:
        assert [(f.key, f.reason) for f in v.fixes] == [(key, reason)]
        assert len(v.fixes[0].given) <= 24


def test_head_and_pair_follow_the_model_and_d_k():
    v = L.parse_url({"pos_model": "real", "pos_head": "11"}, DEFAULT)
    assert (v.head, v.head_random, v.fixes) == (11, 3, ())  # 12 real heads; the random model's last is 3
    v = L.parse_url({"pos_dk": "4", "pos_pair": "3"}, DEFAULT)
    assert (v.d_k, v.pair) == (4, 1) and [f.key for f in v.fixes] == ["pos_pair"]
    assert L.parse_url({}, D1).d_k == 2  # the shared d_k 1 cannot be turned: the nearest even one


@settings(max_examples=200, deadline=None, database=None)
@given(
    key=st.sampled_from([k.name for k in L.URL_KEYS]),
    raw=st.one_of(
        st.text(max_size=60),
        st.integers(-(10**30), 10**30).map(str),
        st.floats(allow_nan=True, allow_infinity=True).map(str),
    ),
    s=st.sampled_from(SETTINGS),
)
def test_any_url_text_gives_valid_values(key, raw, s):
    v = L.parse_url({key: raw}, s)
    assert v.tab in L.TABS and v.model in L.MODELS and v.span in L.SPANS
    assert 0 <= v.shuffle <= limits.SHUFFLE_SEED_MAX and isinstance(v.causal, bool)
    assert 0 <= v.head < L.heads_of(s, v.model) and 0 <= v.head_random < s.num_heads
    assert v.d_k % 2 == 0 and limits.ROPE_D_K_MIN <= v.d_k <= limits.ROPE_D_K_MAX
    assert 1 < v.base <= limits.ROPE_BASE_MAX and math.isfinite(v.base)
    assert 2 <= v.grid <= limits.ROPE_GRID_MAX and 0 <= v.pair < v.d_k // 2 and 0 <= v.at <= 512
    P.check_rope(v.d_k, v.base)  # what the page passes on is always valid for the core
    for f in v.fixes:
        assert f.reason in ("unreadable", "out_of_range", "odd_d_k", "base_at_most_1")


# ================================================================ every function, smallest to largest
@pytest.mark.parametrize("s", [SETTINGS[0], SETTINGS[1], SETTINGS[-1]], ids=str)
def test_every_function_runs_in_every_mode(s, real):
    v = L.parse_url({}, s)
    for causal in (False, True):
        assert L.shuffle_view(s, limits.SHUFFLE_SEED_MAX, causal, s.num_heads - 1).T == s.seq_len
    for model in L.MODELS:
        assert L.add_view(s, model, v.head, v.base, v.shuffle, real).model == model
    for d_k, base, grid, at in ((2, 1.0001, 2, 0), (256, 1e6, 64, 512), (v.d_k, v.base, v.grid, v.at)):
        r = L.rope_view(s, d_k, base, v.head_random, grid, d_k // 2 - 1, at)
        assert r.constant_on_diagonals, (d_k, base)
    for span in L.SPANS:
        assert L.learned_view(real, span).span == span
    assert len(L.quiz_items(s, v)) == 8


def test_costs_at_the_largest_settings(real):
    """Cheap at d_model 512, h 64, T 32 (a loose bound for a busy 2-core machine; README numbers are measured)."""
    s = SETTINGS[-1]
    v = L.parse_url({"pos_grid": "64", "pos_span": "512", "pos_dk": "256"}, s)
    calls = [
        lambda: L.shuffle_view(s, v.shuffle, True, 63),
        lambda: L.add_view(s, "random", 63, v.base, 1, real),
        lambda: L.add_view(s, "real", 11, v.base, 1, real),
        lambda: L.rope_view(s, 256, v.base, 63, 64, 127, 512),
        lambda: L.learned_view(real, 512),
        lambda: L.quiz_items(s, v),
    ]
    for call in calls:
        call()
        start = time.perf_counter()
        call()
        assert time.perf_counter() - start < 1.0


# ================================================================ quiz
@pytest.mark.parametrize("s", SETTINGS, ids=str)
def test_quiz_answers(s):
    v = L.parse_url({"pos_shuffle": "77", "pos_pair": "1", "pos_at": "9"}, s)
    items = {q.key: q for q in L.quiz_items(s, v)}
    perm = P.random_permutation(s.seq_len, 77).tolist()
    q = items["pos.q.shuffled_row"]
    assert q.answer == perm[q.params["row"]] and perm[q.params["row"]] != q.params["row"]
    assert L.accepts(q, str(q.answer)) and not L.accepts(q, str(q.params["row"]))
    assert items["pos.q.gap_free"].answer == "zero" and items["pos.q.gap_causal"].answer == "nonzero"
    assert L.accepts(items["pos.q.gap_free"], " Zero ") and not L.accepts(items["pos.q.gap_free"], "nonzero")
    assert items["pos.q.front_self"].answer == 1.0 and L.accepts(items["pos.q.front_self"], "1")
    d = items["pos.q.rope_diagonal"]
    assert d.params["m"] - d.params["n"] == d.params["m0"] - d.params["n0"]
    assert d.answer == pytest.approx(d.params["score0"], abs=1e-4)  # the same distance, the same score
    assert L.accepts(d, str(d.params["score0"])) and not L.accepts(d, str(d.params["score0"] + 0.1))
    a = items["pos.q.rope_angle"]
    assert a.answer == pytest.approx(9 * v.base ** (-2 * a.params["pair"] / v.d_k), rel=1e-6)
    assert a.params["pair"] == min(1, v.d_k // 2 - 1)
    assert items["pos.q.rope_odd"].answer == "no" and items["pos.q.rope_odd"].params["d_k"] % 2 == 1
    sn = items["pos.q.sinusoid"]
    assert sn.answer == pytest.approx(math.sin(sn.params["position"]), abs=1e-6)
    assert not L.accepts(sn, "") and not L.accepts(sn, "abc")


def test_the_pages_scenario_can_be_passed_in():
    """The page passes its server-cached scenario: the same numbers, and one for other settings is refused."""
    s = SETTINGS[-1]
    run = scenario.run(s)
    v = L.parse_url({}, s)
    a, b = L.shuffle_view(s, 5, True, 3), L.shuffle_view(s, 5, True, 3, run)
    np.testing.assert_array_equal(a.weights.panels[1].values, b.weights.panels[1].values)
    assert a.causal_output_gap == b.causal_output_gap
    np.testing.assert_array_equal(
        L.add_view(s, "random", 3, 10.0, 5).side_by_side.panels[0].values,
        L.add_view(s, "random", 3, 10.0, 5, run=run).side_by_side.panels[0].values,
    )
    np.testing.assert_array_equal(
        L.rope_view(s, v.d_k, 10.0, 3, 8, 0, 1).grid.panels[0].values,
        L.rope_view(s, v.d_k, 10.0, 3, 8, 0, 1, run).grid.panels[0].values,
    )
    assert [q.answer for q in L.quiz_items(s, v)] == [q.answer for q in L.quiz_items(s, v, run)]
    with pytest.raises(ValueError, match="scenario"):
        L.shuffle_view(DEFAULT, 5, False, 0, run)


@settings(max_examples=100, deadline=None, database=None)
@given(
    raw=st.fixed_dictionaries(
        {k.name: st.one_of(st.none(), st.text(max_size=40), st.integers(-999, 999).map(str)) for k in L.URL_KEYS}
    ),
    s=st.sampled_from(SETTINGS),
)
def test_a_whole_mangled_link_gives_valid_values_and_runs(raw, s):
    v = L.parse_url(raw, s)
    assert all(len(f.given) <= 24 and f.key in L.URL_KEY for f in v.fixes)
    assert len({f.key for f in v.fixes}) == len(v.fixes)
    L.rope_view(s, v.d_k, v.base, v.head_random, v.grid, v.pair, v.at)  # what the page passes on runs


# ================================================================ what the page prints, as the lesson formats it
def test_shuffle_numbers_are_the_views_numbers_as_printed():
    """Every number the shuffle section prints: the moves read back give the shuffled tokens, gaps to 2 decimals."""
    for s, causal in ((DEFAULT, False), (DEFAULT, True), (SETTINGS[-3], True)):
        v = L.shuffle_view(s, 7, causal, s.num_heads - 1)
        n = L.shuffle_numbers(v)
        moves = [m.split("←") for m in n["perm"]["moves"].split(", ")]
        for i, p in ((int(i), int(p)) for i, p in moves):
            assert i != p and v.tokens_after[i].split(":")[1] == v.tokens[p].split(":")[1]  # row i holds row p's word
        moved = [i for i in range(s.seq_len) if int(v.perm[i]) != i]
        assert [int(i) for i, _ in moves] == moved and n["perm"]["n"] == len(moved) and n["perm"]["T"] == s.seq_len
        assert n["equal"] == {"out": f"{v.output_gap:.2e}", "w": f"{v.weights_gap:.2e}", "x": "0.00e+00"}
        assert n["broken"]["free"] == f"{v.free_output_gap:.2e}"
        assert n["output"]["row"] == f"{float(np.max(v.row_gaps)):.2e}" and n["output"]["dims"] == min(s.d_model, 16)
        front = n["front"]
        assert front["token"] == v.tokens[v.perm[0]] and front["after"] == "1.0000" and front["h"] == s.num_heads - 1
        assert front["before"] == f"{v.front_self_before:.4f}"
    assert L.gap_text(0.000123456) == "1.23e-04" and L.gap_text(0.0) == "0.00e+00"


def test_add_table_rows_are_the_kinds_that_run():
    v = L.add_view(DEFAULT, "random", 0, 500.0, 1)
    table = L.add_table(v)
    titles = [c.key for c, _ in table.columns]
    assert titles == ["pos.add.col.kind", "pos.add.col.shuffle", "pos.add.col.change", "pos.add.col.added"]
    kinds, shuffle, change, added = (cells for _, cells in table.columns)
    assert [k.key for k in kinds] == ["pos.kind.none", "pos.kind.sinusoidal", "pos.kind.rope"]  # learned: 384 wide
    ran = [k for k in v.kinds if k.available]
    assert list(shuffle) == [f"{k.shuffle_gap:.2e}" for k in ran] and float(shuffle[0]) <= 1e-5 < float(shuffle[1])
    assert list(change) == [f"{k.change:.2e}" for k in ran] and change[0] == "0.00e+00"
    assert added[0] == "0.000" and added[2] == "0.000" and float(added[1]) > 1  # RoPE adds nothing, sinusoids do
    n = L.add_numbers(v)
    assert n["model"] == {"h": 4, "d": 64, "dk": 16, "T": 8} and n["reason"]["width"] == 384
    assert n["reason"]["max"] == limits.ROPE_D_K_MAX and n["table"]["token"] == f"{v.token_norm:.3f}"


def test_add_table_on_the_real_model_marks_its_trained_kind_and_the_twin(real):
    from ui.words import in_language

    v = L.add_view(DEFAULT, "real", 3, 10_000.0, 1, real=real, example=1)
    table = L.add_table(v)
    assert len(table.columns) == 5 and v.twin is not None
    kinds = [in_language(k, "en") for k in table.columns[0][1]]
    assert kinds == ["no positions", "sinusoidal", "learned ★", "RoPE"]
    assert in_language(table.columns[0][1][2], "zh") == "可学习的位置编码 ★"
    title, twins = table.columns[4]
    a, b = v.tokens[v.twin[0]], v.tokens[v.twin[1]]
    assert in_language(title, "en") == f"rows {a} vs {b}"
    assert list(twins) == [f"{k.twin_gap:.2e}" for k in v.kinds] and twins[0] == "0.00e+00"  # none: the same rows


def test_rope_numbers_and_the_pair_picture():
    v = L.rope_view(DEFAULT, 16, 500.0, 0, 12, 2, 5)
    n = L.rope_numbers(v)
    assert v.size == 12 and v.pairs == 8 and n["grid"] == {"n": 12} and n["pair"]["last"] == 11
    pair = n["pair"]
    assert (pair["i"], pair["a"], pair["b"], pair["m"], pair["dk"], pair["base"]) == (2, 2, 10, 5, 16, "500")
    theta = 500.0 ** (-2 * 2 / 16)
    assert float(pair["theta"]) == pytest.approx(theta, rel=1e-5)
    assert float(pair["angle"]) == pytest.approx(5 * theta, abs=1e-4)
    assert pair["la"] == pair["lb"] == f"{math.hypot(*v.pair.before):.4f}"  # a turn keeps the length
    assert n["falloff"] == {"samples": v.falloff_samples, "dk": 16, "sq": "4.00"}
    assert n["equal"]["plain"] == f"{v.plain_score:.4f}" and n["equal"]["spread"] == f"{v.diagonal_spread:.2e}"
    assert L.uses_scenario(DEFAULT, 16) and not L.uses_scenario(DEFAULT, 6)
    svg = diagrams.angle_svg(v.pair)
    # the arrows: from the centre (110, 110) to the pair before (blue) and after the turn (red), radius 90
    r = math.hypot(*v.pair.before)
    for colour, (x, y) in (("#1f77b4", v.pair.before), ("#d62728", v.pair.after)):
        end = f'x2="{110 + x * 90 / r:.1f}" y2="{110 - y * 90 / r:.1f}" stroke="{colour}"'
        assert end in svg, (colour, end)
    assert svg.count("h0") == 12  # one dot per position of the grid
    assert 'stroke="#ff7f0e"' in svg  # the angle's arc: 5 * theta = 1.77 rad = 101 degrees
    none = L.rope_view(DEFAULT, 16, 500.0, 0, 12, 2, 0).pair  # position 0: no turn, no arc
    assert 'stroke="#ff7f0e"' not in diagrams.angle_svg(none)
    assert "<text" not in svg and "<script" not in svg  # numbers only: safe for st.image


def test_learned_numbers_and_similarity_table(real):
    v = L.learned_view(real, 128)
    shape = L.learned_numbers(v)["shape"]
    assert (shape["rows"], shape["cols"], shape["last"], shape["stride"]) == (512, 384, 127, 2)
    assert shape["first"] == ", ".join(f"{x:.4f}" for x in v.first_values) and shape["first"].count(",") == 3
    table = L.similarity_table(v)
    assert [c.key for c, _ in table.columns] == ["pos.learned.col.table", "pos.learned.col.near", "pos.learned.col.far"]
    assert table.columns[2][0].kw() == {"half": 64}
    assert [k.key for k in table.columns[0][1]] == ["pos.kind.learned", "pos.kind.sinusoidal"]
    assert table.columns[1][1] == (f"{v.learned_neighbour:.3f}", f"{v.sinusoidal_neighbour:.3f}")
    assert table.columns[2][1] == (f"{v.learned_far:.3f}", f"{v.sinusoidal_far:.3f}")
    assert float(table.columns[1][1][0]) > float(table.columns[2][1][0])  # neighbours more alike than far positions


def test_head_within_and_next_shuffle():
    assert [L.head_within(h, 4) for h in (0, 3, 11, -2, None, "2")] == [0, 3, 3, 0, 0, 0]
    assert L.head_within(11, 12) == 11 and L.head_within(5, 1) == 0
    assert L.next_shuffle(41, 1) == 42 and L.next_shuffle(None, 7) == 8 and L.next_shuffle("x", 7) == 8
    assert L.next_shuffle(limits.SHUFFLE_SEED_MAX, 1) == 1  # after the largest seed, back to 1
