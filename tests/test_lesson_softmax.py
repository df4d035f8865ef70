"""lessons/softmax/: every number the "Softmax up close" page prints, against an independent computation.

Independent means: numpy float64 by hand (softmax, entropy, running max / sum, tile counts by enumeration,
bytes and traffic by formula), torch autograd for the softmax Jacobian, and a float64 attention for the
tiled result. Plus: bad URL values are corrected, every function runs at the smallest and largest settings
in every mask mode, and the module imports nothing of the UI.
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

import lessons.softmax as L
from core.limits import TILE_BLOCK_MAX
from core.masks import full_grid
from core.softmax_numerics import SCALE_NAMES, gradient_size
from core.tiled_attention import tiled_traffic
from lessons import scenario
from lessons.heatmap import text as tx
from lessons.limits import QUIZ_ANSWER_CHARS
from lessons.settings import Settings

pytestmark = pytest.mark.usefixtures("one_torch_thread")
ROOT = Path(__file__).resolve().parent.parent
MASKS = ("none", "causal", "padding", "custom")
# d_model, h, T: the smallest (d_k 1 and d_k 8 at T 2), the default, the largest (many heads; one wide head)
SIZES = ((8, 8, 2), (8, 1, 2), (64, 4, 8), (512, 64, 32), (512, 1, 32))
# A hand-drawn grid with a fully blocked row (row 1) and a row whose first keys are blocked, for T = 4.
CUSTOM4 = "1000.0000.0110.0011"


def S(d_model=64, h=4, T=8, mask="none", seed=0, lang="en"):
    return Settings(d_model, h, T, mask, seed, lang)


def keep_of(run):
    T = run.settings.seq_len
    return full_grid(run.mask, 1, T, T)[0].numpy()  # (T, T)


def softmax64(x):
    x = np.asarray(x, dtype=np.float64)
    e = np.exp(x - x.max())
    return e / e.sum()


# ---------------------------------------------------------------- the module's imports
# ---------------------------------------------------------------- URL keys
def test_the_url_table_names_every_key_with_a_default_and_its_bounds():
    assert L.URL_KEY_NAMES == (
        "soft_tab",
        "soft_head",
        "soft_row",
        "soft_gain",
        "soft_all_keys",
        "soft_bq",
        "soft_bk",
        "soft_step",
    )
    s = S(64, 4, 8, "causal")
    b = L.url_bounds(s, 4, 4)
    assert b["soft_head"] == (0, 3, 0) and b["soft_row"] == (0, 7, 7) and b["soft_step"] == (1, 3, 1)
    assert b["soft_bq"] == (1, TILE_BLOCK_MAX, 4) and b["soft_tab"] == (("scale", "max", "tiles"), "scale")
    values, fixes = L.parse_url(s, {})
    gain = L.default_gain(s, 0, 7)
    assert values == L.PageValues("scale", 0, 7, gain, False, 4, 4, 1) and fixes == []  # missing keys: defaults, silent


def test_the_gain_a_link_opens_at_is_found_once_per_settings_grid_head_and_row(monkeypatch):
    """soft_gain's default (the gain where the row's naive softmax overflows) is asked for twice by every settle and
    once more by every step of the page: it is kept per (settings, grid, head, row), which decide the run's numbers,
    and is the same number as default_gain's; another row, seed or grid is found anew."""
    from lessons.softmax import keys

    found = []
    real = keys.default_gain
    monkeypatch.setattr(keys, "default_gain", lambda *a, **k: found.append(a[1:3]) or real(*a, **k))
    monkeypatch.setattr(keys, "_GAINS", {})
    s = S(64, 4, 8, "causal", seed=41)
    for _ in range(3):
        assert L.url_bounds(s)["soft_gain"][1] == real(s, 0, 7)
    assert found == [(0, 7)]
    values, _ = L.parse_url(s, {"soft_row": "3"})
    assert values.gain == real(s, 0, 3) and found == [(0, 7), (0, 3)]
    L.url_bounds(S(64, 4, 8, "causal", seed=42))
    L.url_bounds(S(64, 4, 8, "custom", seed=41), custom_text="10.11")
    assert len(found) == 4
    monkeypatch.setattr(keys, "_GAINS_KEPT", 4)
    L.url_bounds(S(64, 4, 8, "causal", seed=43))  # a fifth: the kept ones are let go first
    assert len(keys._GAINS) == 1


@pytest.mark.parametrize("d_model, h, T, mask", [(64, 4, 8, "none"), (512, 16, 32, "causal"), (8, 8, 2, "none")])
@pytest.mark.parametrize("seed", [0, 1, 7])
def test_the_max_section_opens_where_the_naive_softmax_overflows(d_model, h, T, mask, seed):
    """Issue 29 item 3: soft_tab=max opened at gain 1, where nothing overflows. The default is the smallest gain
    where the naive softmax of the opened row breaks (in float32, shown first, else float16), chosen from the
    row, whatever the init; a link's own gain is kept."""
    s = S(d_model, h, T, mask, seed)
    values, fixes = L.parse_url(s, {})
    mr = L.max_row(s, values.head, values.row, values.gain)
    breaks = next((g for g in mr.first_failing_gain if g is not None), None)
    if breaks is None:  # a row whose kept scores are all at most 0 (seen at 8/8/2): no gain breaks it
        assert not fixes and values.gain == L.GAINS[-1] and all(dt.naive_ok for dt in mr.dtypes)
    else:
        assert not fixes and values.gain == breaks != 1
        assert not all(dt.naive_ok for dt in mr.dtypes)  # the overflow is on screen
    assert L.parse_url(s, {"soft_gain": "1"})[0].gain == 1  # the link still carries any other value
    for row in range(T):  # every row the link may open: the default follows the row
        g = L.default_gain(s, 0, row)
        mr = L.max_row(s, 0, row, g)
        assert g == next((f for f in mr.first_failing_gain if f is not None), L.GAINS[-1])  # float32 first


@pytest.mark.parametrize(
    "key, raw, used",
    [
        ("soft_tab", "TILES", "tiles"),
        ("soft_tab", "nope", "scale"),
        ("soft_head", "99", "3"),
        ("soft_head", "-1", "0"),
        ("soft_head", "1.7", "2"),
        ("soft_row", "1e400", "7"),
        ("soft_row", "x", "7"),
        ("soft_gain", "7", "5"),
        ("soft_gain", "1e9", "1000"),
        ("soft_gain", "nan", None),  # the default: where this row's naive softmax overflows (default_gain)
        ("soft_all_keys", "maybe", "false"),
        ("soft_bq", "0", "1"),
        ("soft_bq", "99999999999999999999999999999999999999", "32"),
        ("soft_bk", "abc", "4"),
        ("soft_step", "100", "3"),
        ("soft_step", "0", "1"),
        ("soft_step", "two", "1"),
    ],
)
def test_bad_url_values_are_corrected_and_reported(key, raw, used):
    values, fixes = L.parse_url(S(64, 4, 8, "causal"), {key: raw})
    used = str(L.default_gain(S(64, 4, 8, "causal"), 0, 7)) if used is None else used
    assert [(f.key, f.used) for f in fixes] == [(key, used)]
    field = {
        "soft_tab": "tab",
        "soft_head": "head",
        "soft_row": "row",
        "soft_gain": "gain",
        "soft_all_keys": "all_keys",
        "soft_bq": "block_q",
        "soft_bk": "block_k",
        "soft_step": "step",
    }[key]
    got = getattr(values, field)
    assert (str(got).lower() if isinstance(got, bool) else str(got)) == used


def test_good_url_values_pass_untouched_and_the_step_range_follows_the_blocks():
    s = S(64, 4, 8, "causal")
    raw = {
        "soft_tab": "tiles",
        "soft_head": "2",
        "soft_row": "3",
        "soft_gain": "200",
        "soft_all_keys": "true",
        "soft_bq": "1",
        "soft_bk": "1",
        "soft_step": "36",
    }
    values, fixes = L.parse_url(s, raw)
    assert fixes == [] and values == L.PageValues("tiles", 2, 3, 200, True, 1, 1, 36)  # causal 1 x 1: 8 * 9 / 2 steps
    values, fixes = L.parse_url(s, {**raw, "soft_bq": "8", "soft_bk": "8"})  # one tile: one step
    assert values.step == 1 and [f.key for f in fixes] == ["soft_step"]


@settings(max_examples=150, deadline=None, derandomize=True)
@given(
    raw=st.dictionaries(
        st.sampled_from(L.URL_KEY_NAMES),
        st.one_of(
            st.text(max_size=40),
            st.integers(-(10**30), 10**30).map(str),
            st.floats(allow_nan=True, allow_infinity=True).map(str),
        ),
    ),
    mask=st.sampled_from(MASKS),
)
def test_any_url_garbage_gives_valid_values(raw, mask):
    s = S(64, 4, 8, mask)
    v, fixes = L.parse_url(s, raw)
    assert v.tab in L.SECTIONS and 0 <= v.head < 4 and 0 <= v.row < 8 and v.gain in L.GAINS
    assert 1 <= v.block_q <= TILE_BLOCK_MAX and 1 <= v.block_k <= TILE_BLOCK_MAX
    assert 1 <= v.step <= L.step_count(s, v.block_q, v.block_k)
    assert {f.key for f in fixes} <= set(raw)


@pytest.mark.parametrize("mask", MASKS)
@pytest.mark.parametrize("bq, bk", [(1, 1), (2, 3), (3, 2), (4, 4), (5, 8), (32, 32)])
def test_the_step_count_from_the_mask_is_the_walks_number_of_steps(mask, bq, bk):
    s = S(16, 2, 8, mask)
    text = None if mask != "custom" else "10000000.00000000.11100000.01110000.00111000.00011100.00001110.00000111"
    walk = L.tile_walk(s, 0, bq, bk, custom_text=text)
    assert L.step_count(s, bq, bk, text) == walk.n_steps == len(walk.steps)
    keep = keep_of(scenario.run(s, custom_text=text))
    by_hand = sum(
        1
        for q0 in range(0, 8, bq)
        for k0 in range(0, 8, bk)
        if keep[q0 : q0 + bq, k0 : k0 + bk].any() or (~keep[q0 : q0 + bq].any(axis=1)).any()
    )
    assert walk.n_steps == by_hand


# ---------------------------------------------------------------- section 1: why ÷ sqrt(d_k)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_variance_curve_is_d_k_and_one_after_scaling(seed):
    s = S(64, 4, 8, seed=seed)
    c = L.variance_curve(s)
    assert c.d_ks.tolist() == [2**i for i in range(10)] and c.expected.tolist() == c.d_ks.tolist()
    assert c.current_d_k == 16 and c.d_ks[c.current_index] == 16 and c.draws == L.VARIANCE_DRAWS
    # Var(q.k) = d_k; the estimate's relative standard error is sqrt((2 + 6 / d_k) / N) <= sqrt(8 / 1000) ~ 0.09:
    # within 4 standard errors at every d_k.
    se = np.sqrt((2 + 6 / c.d_ks) / c.draws)
    assert np.all(np.abs(c.variance / c.d_ks - 1) <= 4 * se)
    assert np.allclose(c.scaled_variance, c.variance / c.d_ks) and np.all(np.abs(c.scaled_variance - 1) <= 4 * se)
    with pytest.raises(ValueError):
        c.variance[0] = 1.0  # read-only: shared by every student


def test_the_variance_curve_matches_a_fresh_draw_statistically():
    """Independent draws (numpy, another generator) give the same curve within the stated error."""
    rng = np.random.default_rng(1234)
    c = L.variance_curve(S(seed=7))
    for d_k, var in zip(c.d_ks, c.variance):
        q, k = rng.standard_normal((4000, d_k)), rng.standard_normal((4000, d_k))
        fresh = float(np.var((q * k).sum(axis=1), ddof=1))
        assert abs(var - fresh) / d_k <= 4 * math.sqrt((2 + 6 / d_k) / 1000) + 4 * math.sqrt((2 + 6 / d_k) / 4000)


@pytest.mark.parametrize("mask", MASKS)
@pytest.mark.parametrize("d_model, h, T", [(64, 4, 8), (64, 1, 5), (512, 64, 32)])
def test_scale_row_numbers_by_hand(mask, d_model, h, T):
    s = S(d_model, h, T, mask, seed=3)
    run = scenario.run(s)
    head, row = h - 1, T - 1
    r = L.scale_row(s, head, row, run)
    keep = keep_of(run)[row]
    q = run.trace.q_heads[0, head].double().numpy()
    k = run.trace.k_heads[0, head].double().numpy()
    raw = k @ q[row]  # (T,)  q.k by hand in float64
    assert np.allclose(r.raw, raw, atol=1e-4 * max(1, np.abs(raw).max()))
    assert r.kept.tolist() == keep.tolist() and r.token == run.tokens[row] and r.d_k == s.d_k
    entropies = []
    for v, name, c in zip(r.variants, SCALE_NAMES, (1.0, math.sqrt(s.d_k), float(s.d_k))):
        assert v.name == name and v.divisor == c
        w = np.zeros(T)
        w[keep] = softmax64(r.raw[keep].astype(np.float64) / c)  # blocked keys: weight 0
        assert np.abs(v.weights - w).max() <= 1e-6
        nz = w[w > 0]
        assert v.entropy == pytest.approx(float(-(nz * np.log(nz)).sum()), abs=1e-5)
        assert v.max_weight == pytest.approx(w.max(), abs=1e-6)
        x = torch.tensor(r.raw / c, dtype=torch.float64).masked_fill(~torch.tensor(keep), -1e9)
        jac = torch.autograd.functional.jacobian(lambda z: torch.softmax(z, -1), x)  # autograd, not the formula
        assert v.gradient == pytest.approx(float(jac.norm()), abs=1e-5)
        entropies.append(v.entropy)
        # the means over the whole run: entropy and the closed-form Jacobian norm against core's gradient_size
        sc = run.trace.scores[0] / c
        w_all = torch.softmax(sc.masked_fill(~torch.tensor(keep_of(run)), -1e9), -1)
        assert v.mean_gradient == pytest.approx(float(gradient_size(w_all).mean()), abs=1e-5)
        assert v.mean_max_weight == pytest.approx(float(w_all.amax(-1).mean()), abs=1e-6)
    assert r.order_holds and entropies[0] <= entropies[1] + 1e-6 <= entropies[2] + 2e-6
    assert r.max_entropy == pytest.approx(math.log(keep.sum()))
    assert r.model_diff <= 1e-6  # ÷sqrt(d_k) is what the model's softmax gives for this row
    assert L.values_of(r.heatmap).shape == (3, T) and r.heatmap.panels[0].row_labels == L.SCALE_LABELS
    assert r.heatmap.panels[0].col_labels == tuple(run.tokens) and r.heatmap.role == "weights"
    assert np.array_equal(r.heatmap.panels[0].blocked, np.broadcast_to(~keep, (3, T)))  # blocked keys overlaid
    assert r.heatmap.col_axis.key == "softmax.axis.key" and r.heatmap.title.kw()["row"] == r.row


def test_at_d_k_1_the_three_divisors_coincide():
    r = L.scale_row(S(8, 8, 6, "none"), 2, 5)
    assert r.divisors_equal and r.d_k == 1
    assert np.array_equal(r.variants[0].weights, r.variants[2].weights)


def test_without_scaling_a_wide_head_saturates():
    """The page's claim for d_k = 512: ÷1 is almost one-hot (largest weight >= 0.9) on average, ÷sqrt(d_k) is not;
    with nn.Linear's third-size init the ÷sqrt(d_k) rows were uniform (mean largest weight 0.061 at T 32)."""
    r = L.scale_row(S(512, 1, 32, "none", seed=0), 0, 31)
    one, sqrt, dk = r.variants
    assert one.mean_max_weight > 0.85 and sqrt.mean_max_weight < 0.3 and dk.mean_max_weight < 0.05
    assert sqrt.mean_max_weight > 0.1  # the model's own rows are not uniform (1/32 = 0.031)
    assert one.mean_entropy < sqrt.mean_entropy < dk.mean_entropy
    wide = L.scale_row(S(512, 16, 32, "none", seed=0), 0, 31)  # d_k 32: this row is one-hot under ÷1
    assert wide.variants[0].max_weight > 0.98 and wide.variants[0].gradient < 0.03


# ---------------------------------------------------------------- section 2: why subtract the max
@pytest.mark.parametrize("mask", MASKS)
@pytest.mark.parametrize("gain", L.GAINS)
def test_the_three_softmaxes_by_hand(mask, gain):
    s = S(64, 4, 8, mask, seed=1)
    run = scenario.run(
        s,
        custom_text="10000000.01000000.00100000.00010000.00001000.00000100.00000010.11111111"
        if mask == "custom"
        else None,
    )
    m = L.max_row(s, 1, 7, gain, run)
    keep = keep_of(run)[7]
    assert np.array_equal(m.base, run.trace.masked_scores[0, 1, 7].numpy())  # gain 1 = the model's softmax input
    assert m.row_max == pytest.approx(float(m.base[keep].max()))
    for d, dtype, np_dtype, thr in zip(m.dtypes, ("float32", "float16"), (np.float32, np.float16), (88.72, 11.09)):
        assert d.dtype == dtype and d.threshold == pytest.approx(thr, abs=0.005)
        with np.errstate(over="ignore"):  # -1e9 is -inf in float16
            row = np.where(keep, m.base.astype(np.float64) * gain, -1e9).astype(np_dtype)  # the row in this dtype
        assert np.array_equal(d.scores, row.astype(np.float32))
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            e = np.exp(row)  # numpy in the same dtype: inf where it overflows
            naive = e / e.sum(dtype=np_dtype)
        assert np.array_equal(np.isinf(d.exp), np.isinf(e)) and np.array_equal(d.exp_overflows, np.isinf(e))
        assert np.array_equal(np.isnan(d.naive), np.isnan(naive)) and np.array_equal(d.naive_nan, np.isnan(naive))
        exact = softmax64(row.astype(np.float64))
        assert np.abs(d.exact - exact).max() <= 1e-12
        for got, diff in ((d.safe, d.safe_diff), (d.online, d.online_diff)):
            assert np.isfinite(got).all() and np.abs(got - exact).max() <= d.tolerance
            assert diff == pytest.approx(np.abs(got.astype(np.float64) - exact).max(), abs=1e-12)
        if d.naive_ok:
            assert np.isfinite(d.naive).all() and d.naive_diff <= d.tolerance
        else:
            assert d.naive_diff == math.inf and not np.allclose(np.nan_to_num(naive, nan=9.0), exact, atol=1e-3)
        # online: the running max and sum after each key, by hand
        kept_scores = row.astype(np.float64)
        for j in range(8):
            seen = kept_scores[: j + 1]
            assert d.online_m[j] == pytest.approx(seen.max(), rel=1e-3)
            if np.isfinite(seen.max()):
                assert d.online_l[j] == pytest.approx(np.exp(seen - seen.max()).sum(), rel=2e-3)
    # which gains break the naive softmax: run it at each gain and look (not naive_failure's prediction)
    for i, g in enumerate(L.GAINS):
        for k, np_dtype in enumerate((np.float32, np.float16)):
            with np.errstate(over="ignore", invalid="ignore"):
                row = np.where(keep, m.base.astype(np.float64) * g, -1e9).astype(np_dtype)
                e = np.exp(row)
                naive = e / e.sum(dtype=np_dtype)
            works = np.isfinite(naive).all() and abs(naive.astype(np.float64).sum() - 1) < 1e-2
            assert bool(m.naive_ok_by_gain[i, k]) == works
    for k in range(2):
        failing = [g for i, g in enumerate(L.GAINS) if not m.naive_ok_by_gain[i, k]]
        assert m.first_failing_gain[k] == (failing[0] if failing else None)


def test_the_gain_control_reaches_overflow_in_both_dtypes_at_the_default_settings():
    m = L.max_row(S(), 0, 7, 1000)
    assert [d.naive_ok for d in m.dtypes] == [False, False]
    assert all(d.safe_diff <= d.tolerance and d.online_diff <= d.tolerance for d in m.dtypes)
    f32, f16 = m.first_failing_gain
    assert f16 is not None and f32 is not None and f16 < f32  # float16 breaks at a smaller gain
    assert m.exp_overflow_gain[0] == pytest.approx(math.log(torch.finfo(torch.float32).max) / m.row_max)


# ---------------------------------------------------------------- section 3: tile by tile
def attention64(run, head):
    """softmax(q k^T / sqrt(d_k) with blocked cells -1e9) @ v, by hand in float64."""
    tr = run.trace
    q, k, v = (t[0, head].double().numpy() for t in (tr.q_heads, tr.k_heads, tr.v_heads))
    s = q @ k.T / math.sqrt(q.shape[1])
    s = np.where(keep_of(run), s, -1e9)
    w = np.exp(s - s.max(axis=1, keepdims=True))
    return (w / w.sum(axis=1, keepdims=True)) @ v, s


@pytest.mark.parametrize("mask", MASKS)
@pytest.mark.parametrize("bq, bk", [(1, 1), (2, 3), (3, 2), (4, 4), (8, 8), (3, 8)])
def test_every_step_of_the_walk_by_hand(mask, bq, bk):
    T = 7  # not a multiple of the blocks
    s = S(16, 2, T, mask, seed=5)
    text = "1000000.0000000.0110000.0011000.1111111.0000011.0000001" if mask == "custom" else None
    run = scenario.run(s, custom_text=text)
    walk = L.tile_walk(s, 1, bq, bk, run, custom_text=text)
    ref_out, ref_s = attention64(run, 1)
    keep = keep_of(run)
    n_q, n_k = math.ceil(T / bq), math.ceil(T / bk)
    assert walk.n_tiles == n_q * n_k and walk.n_steps + len(walk.skipped) == n_q * n_k
    for step in range(1, walk.n_steps + 1):
        v = L.tile_step(walk, step)
        cur = v.current
        assert v.step == step and v.is_last == (step == walk.n_steps) and v.tile == (cur.q_tile, cur.k_tile)
        assert (cur.q_start, cur.q_stop) == (cur.q_tile * bq, min(T, cur.q_tile * bq + bq))
        assert (cur.k_start, cur.k_stop) == (cur.k_tile * bk, min(T, cur.k_tile * bk + bk)) and v.cells == (
            cur.q_start,
            cur.q_stop,
            cur.k_start,
            cur.k_stop,
        )
        q0, q1, k0, k1 = v.cells
        assert np.abs(cur.scores - ref_s[q0:q1, k0:k1]).max() <= 1e-5  # the tile of the full score matrix
        # the running max and sum after this step = over the processed keys of each row so far, by hand
        done_cols = np.zeros(T, dtype=bool)
        for st_ in walk.steps[:step]:
            if st_.q_tile == cur.q_tile:
                done_cols[st_.k_start : st_.k_stop] = True
        seen = ref_s[q0:q1][:, done_cols]
        assert np.abs(v.m_rows[q0:q1] - seen.max(axis=1)).max() <= 1e-5
        l_hand = np.exp(seen - seen.max(axis=1, keepdims=True)).sum(axis=1)
        assert np.abs(v.l_rows[q0:q1] - l_hand).max() <= 1e-5 * l_hand.max()
        so_far = np.exp(seen - seen.max(axis=1, keepdims=True)) @ run.trace.v_heads[0, 1].double().numpy()[done_cols]
        assert np.abs(L.values_of(v.output_so_far)[q0:q1] - so_far / l_hand[:, None]).max() <= 1e-5
        # rows of finished query tiles are written (final), later ones wait (NaN)
        assert np.abs(L.values_of(v.output_so_far)[:q0] - ref_out[:q0]).max(initial=0) <= 1e-5
        assert np.isnan(L.values_of(v.output_so_far)[q1:]).all() and np.isnan(v.m_rows[q1:]).all()
        assert (v.row_state[:q0] == L.ROW_WRITTEN).all() and (v.row_state[q1:] == L.ROW_WAITING).all()
        assert (v.row_state[q0:q1] == (L.ROW_WRITTEN if cur.writes_o else L.ROW_RUNNING)).all()
        # the tile grid: done = earlier steps, one current, the skipped ones
        tiles = L.values_of(v.tile_state)
        assert (tiles == L.DONE).sum() == step - 1 and (tiles == L.CURRENT).sum() == 1
        assert {tuple(x) for x in np.argwhere(tiles == L.SKIPPED)} == set(walk.skipped)
        for i in range(n_q):
            for j in range(n_k):
                block = L.values_of(v.cell_state)[i * bq : (i + 1) * bq, j * bk : (j + 1) * bk]
                assert (block == tiles[i, j]).all()
                kept_any = keep[i * bq : (i + 1) * bq, j * bk : (j + 1) * bk].any()
                row_blocked = (~keep[i * bq : (i + 1) * bq].any(axis=1)).any()
                assert ((i, j) in walk.skipped) == (not kept_any and not row_blocked)
        assert v.skipped_so_far == sum(1 for (i, j) in walk.skipped if i * n_k + j < cur.q_tile * n_k + cur.k_tile)
        assert np.array_equal(np.isnan(L.values_of(v.scores)), ~keep)
        tile_keep = keep[q0:q1, k0:k1]
        assert np.array_equal(np.isnan(L.values_of(v.tile_scores)), ~tile_keep)
        assert np.abs(L.values_of(v.tile_scores)[tile_keep] - ref_s[q0:q1, k0:k1][tile_keep]).max(initial=0) <= 1e-5
        assert v.tile_scores.panels[0].row_labels == tuple(run.tokens[q0:q1])
        assert v.tile_p.panels[0].col_labels == tuple(run.tokens[k0:k1])
        # the full score matrix outlines the current tile (last rect) and every skipped tile
        rects = v.scores.rects
        assert (rects[-1].style, rects[-1].r0, rects[-1].r1, rects[-1].c0, rects[-1].c1) == ("current", q0, q1, k0, k1)
        outlined = np.zeros((T, T), dtype=bool)  # the skipped rects cover exactly the skipped tiles' cells
        for x in rects[:-1]:
            assert x.style == "skipped" and not outlined[x.r0 : x.r1, x.c0 : x.c1].any()  # no overlap
            outlined[x.r0 : x.r1, x.c0 : x.c1] = True
        assert np.array_equal(outlined, L.values_of(v.cell_state) == L.SKIPPED)
        assert np.array_equal(v.scores.panels[0].blocked, ~keep)
        p_hand = np.exp(ref_s[q0:q1, k0:k1] - v.m_rows[q0:q1, None])
        assert np.abs(L.values_of(v.tile_p) - p_hand).max() <= 1e-5 and L.values_of(v.tile_p).max() <= 1
        assert L.values_of(v.tile_acc).shape == (q1 - q0, min(s.d_k, L.SHOWN_FEATURES))
    last = L.tile_step(walk, 10**6)  # clamped to the last step
    assert last.is_last and np.abs(L.values_of(last.output_so_far) - ref_out).max() <= 1e-5
    assert (last.row_state == L.ROW_WRITTEN).all()
    if mask in ("none", "causal"):  # what the steps moved = core's traffic formula for the whole walk
        t = tiled_traffic(T, T, s.d_k, bq, bk, causal=mask == "causal")
        assert last.traffic_so_far == {"read_q": t.read_q, "read_k": t.read_k, "read_v": t.read_v, "write_o": t.write_o}


@pytest.mark.parametrize("T, bq, bk", [(8, 4, 4), (8, 1, 1), (7, 2, 3), (32, 5, 7), (32, 32, 1)])
def test_skipped_causal_tiles_are_a_hand_count(T, bq, bk):
    walk = L.tile_walk(S(16, 2, T, "causal"), 0, bq, bk)
    by_hand = [
        (i, j) for i in range(math.ceil(T / bq)) for j in range(math.ceil(T / bk)) if j * bk > min(T, (i + 1) * bq) - 1
    ]  # the tile's first key is after its last query
    assert list(walk.skipped) == by_hand
    assert L.memory_table(S(16, 2, T, "causal"), bq, bk)[0].causal_skipped == len(by_hand)
    # on the chart, each query tile's skipped tiles are one outlined run (31 rects at T 32, 1 x 1, not 496)
    rects = [x for x in L.tile_step(walk, 1).scores.rects if x.style == "skipped"]
    assert len(rects) == len({i for i, _ in by_hand})


@pytest.mark.parametrize("mask", MASKS)
@pytest.mark.parametrize(
    "d_model, h, T, bq, bk",
    [(64, 4, 8, 4, 4), (64, 4, 8, 3, 5), (512, 64, 32, 7, 3), (512, 1, 32, 32, 32), (8, 8, 2, 1, 1)],
)
def test_the_result_equals_the_plain_path_and_a_float64_attention(mask, d_model, h, T, bq, bk):
    s = S(d_model, h, T, mask, seed=2)
    run = scenario.run(s)
    head = h // 2
    r = L.tile_result(s, head, bq, bk, run)
    ref, _ = attention64(run, head)
    assert np.abs(L.values_of(r.tiled) - ref).max() <= 1e-5  # float32 against float64
    assert np.array_equal(L.values_of(r.plain), run.trace.head_outputs[0, head].numpy())
    assert r.head_diff == pytest.approx(float(np.abs(L.values_of(r.tiled) - L.values_of(r.plain)).max()), abs=1e-12)
    assert max(r.head_diff, r.all_heads_diff, r.sdpa_diff, r.l_diff) <= L.RESULT_TOLERANCE and r.equal
    assert r.steps == L.step_count(s, bq, bk) and r.steps + r.skipped == math.ceil(T / bq) * math.ceil(T / bk)
    assert r.tiled.row_axis.key == "softmax.axis.query" and r.tiled.col_axis.key == "softmax.axis.feature"
    assert r.tiled.panels[0].row_labels == tuple(run.tokens)
    f = min(s.d_k, L.SHOWN_FEATURES)  # the side-by-side chart: the first f features of both, one colour range
    assert [p.values.shape for p in r.side_by_side.panels] == [(T, f), (T, f)]
    assert np.array_equal(r.side_by_side.panels[0].values, L.values_of(r.tiled)[:, :f])
    assert np.array_equal(r.side_by_side.panels[1].values, L.values_of(r.plain)[:, :f])
    assert r.side_by_side.vmax == pytest.approx(float(np.abs(L.values_of(r.plain)[:, :f]).max()), rel=1e-5)


def test_a_fully_blocked_row_gets_the_plain_paths_uniform_weights_tile_by_tile():
    s = S(16, 2, 4, "custom")
    run = scenario.run(s, custom_text=CUSTOM4)
    r = L.tile_result(s, 0, 2, 2, run, custom_text=CUSTOM4)
    assert r.equal
    v = run.trace.v_heads[0, 0].numpy()
    assert np.abs(L.values_of(r.tiled)[1] - v.mean(axis=0)).max() <= 1e-6  # row 1 sees nothing: the mean of V
    sr = L.scale_row(s, 0, 1, run)
    assert sr.row_blocked and not L.scale_row(s, 0, 2, run).row_blocked
    assert all(np.allclose(v.weights, 0.25) for v in sr.variants) and sr.max_entropy == pytest.approx(math.log(4))
    m = L.max_row(s, 0, 1, 10, run)
    f32, f16 = m.dtypes
    assert m.row_blocked and np.allclose(f32.safe, 0.25) and np.allclose(f32.online, 0.25) and not f32.naive_ok
    assert np.isnan(f16.safe).all() and np.isnan(f16.exact).all() and np.isneginf(f16.scores).all()


@pytest.mark.parametrize(
    "d_model, h, T, bq, bk", [(64, 4, 8, 4, 4), (512, 64, 32, 1, 1), (512, 1, 32, 128, 64), (8, 8, 2, 32, 32)]
)
def test_the_memory_table_by_formula(d_model, h, T, bq, bk):
    s = S(d_model, h, T, "none")
    bq, bk = min(bq, TILE_BLOCK_MAX), min(bk, TILE_BLOCK_MAX)
    rows = L.memory_table(s, bq, bk)
    # the page's blocks at every T, a kernel's tile (64-128 rows) at the long contexts, each after the page's row
    kq, kk = L.KERNEL_BLOCKS
    assert [(r.T, r.block_q, r.block_k, r.is_kernel) for r in rows] == [
        (T, bq, bk, False),
        (8192, bq, bk, False),
        (8192, kq, kk, True),
        (131072, bq, bk, False),
        (131072, kq, kk, True),
    ]
    assert [r.is_current for r in rows] == [True, False, False, False, False] and 64 <= kq <= 128
    d = s.d_k
    for r in rows:
        n, bq, bk = r.T, r.block_q, r.block_k
        assert r.scores_bytes_per_head == n * n * 4 and r.scores_bytes_all_heads == h * n * n * 4
        assert r.tile_bytes == min(bq, n) * min(bk, n) * 4 and r.ratio == n * n / (min(bq, n) * min(bk, n))
        a, b = min(bq, n), min(bk, n)
        assert r.on_chip_bytes == 4 * (2 * a * d + 2 * b * d + a * b + 2 * a)
        assert r.plain_traffic == 4 * n * d + 4 * n * n  # Q, K, V, O + S and P written and read
        assert r.tiled_traffic == 2 * n * d + 2 * n * d * math.ceil(n / bq)  # K, V once per query tile
        causal_rows = (
            sum(min(n, math.ceil(min(n, (i + 1) * bq) / bk) * bk) for i in range(math.ceil(n / bq)))
            if n <= 8192
            else None
        )
        if causal_rows is not None:
            assert r.tiled_causal_traffic == 2 * n * d + 2 * d * causal_rows
        assert r.tiling_saves_traffic == (r.tiled_traffic < r.plain_traffic)
        q_tiles, k_tiles = math.ceil(n / bq), math.ceil(n / bk)
        assert r.causal_processed + r.causal_skipped == q_tiles * k_tiles
        # the rule the page states (softmax.mem.rule): at a long context tiling saves traffic iff block_q > d_k / 2
        if n > T:
            assert r.tiling_saves_traffic == (bq >= d / 2), (bq, d)


# ---------------------------------------------------------------- quiz questions
@pytest.mark.parametrize("seed", range(12))
def test_quiz_answers_by_hand(seed):
    s = S(64, 4, 8, MASKS[seed % 4], seed=seed)
    qs = L.quiz_questions(s)
    assert [q.kind for q in qs] == list(L.QUIZ_KINDS)
    assert qs == L.quiz_questions(s)  # the same set for the whole class
    for q in qs:
        p = q.params
        if q.kind == "causal_skipped":
            T, bq, bk = p["T"], p["block_q"], p["block_k"]
            keep = np.tril(np.ones((T, T), dtype=bool))
            hand = sum(
                1 for q0 in range(0, T, bq) for k0 in range(0, T, bk) if not keep[q0 : q0 + bq, k0 : k0 + bk].any()
            )
            assert q.answer == hand and q.facts["total"] == math.ceil(T / bq) * math.ceil(T / bk)
        elif q.kind == "tile_count":
            T, bq, bk = p["T"], p["block_q"], p["block_k"]
            assert q.answer == len(range(0, T, bq)) * len(range(0, T, bk))
        elif q.kind == "entropy_order":
            assert q.answer == ("1", "sqrt_d_k", "d_k") and q.answer in q.options and len(q.options) == 6
            r = L.scale_row(s, 0, s.seq_len - 1)  # the current run's row orders that way too
            assert r.variants[0].entropy <= r.variants[1].entropy + 1e-6 <= r.variants[2].entropy + 2e-6
            assert q.facts["entropies"] == tuple(v.entropy for v in r.variants) and q.facts["row"] == s.seq_len - 1
        elif q.kind == "overflow_threshold":
            dtype = getattr(torch, p["dtype"])
            below = torch.tensor(q.answer - 0.02, dtype=torch.float64).to(dtype)
            above = torch.tensor(q.answer + 0.02, dtype=torch.float64).to(dtype)
            assert torch.isfinite(torch.exp(below)) and torch.isinf(torch.exp(above))
        elif q.kind == "dot_variance":
            assert q.answer == (1 if p["scaled"] else p["d_k"])
        elif q.kind == "score_bytes":
            assert q.answer == p["T"] ** 2 * 4
        for form in q.accepted:
            assert L.check_answer(q, form).correct, (q.kind, form)


def test_answer_forms():
    qs = {q.kind: q for q in L.quiz_questions(S())}
    order, nbytes, thr = qs["entropy_order"], qs["score_bytes"], qs["overflow_threshold"]
    for good in ("1 < sqrt(d_k) < d_k", "1, √d_k, d_k", "÷1 ÷√dk ÷dk", "d_k > √d_k > 1", "1，sqrt dk，d k"):
        assert L.check_answer(order, good).correct, good
    for bad in ("d_k < sqrt_d_k < 1", "1 < 1 < d_k", "sqrt", "1 < d_k < sqrt_d_k"):
        assert not L.check_answer(order, bad).correct, bad
    assert L.check_answer(order, "hello").value is None
    T = nbytes.params["T"]
    forms = {8192: ("268435456", "268,435,456", "256 MiB", "256MiB"), 131072: ("68719476736", "64 GiB", "64gib")}
    for good in forms[T]:
        assert L.check_answer(nbytes, good).correct, good
    assert not L.check_answer(nbytes, "256 MB" if T == 8192 else "64 GB").correct  # decimal units: not read
    assert L.check_answer(thr, str(thr.answer + 0.04)).correct
    assert not L.check_answer(thr, str(thr.answer + 0.1)).correct
    for q in qs.values():
        assert L.check_answer(q, "") == L.Checked(None, False) and L.check_answer(q, None).value is None
        assert L.check_answer(q, "1" * (QUIZ_ANSWER_CHARS + 1)).value is None  # too long: not read
        assert not L.check_answer(q, "inf").correct and not L.check_answer(q, "nan").correct


# ---------------------------------------------------------------- every function, every mode, the extremes
@pytest.mark.parametrize("mask", MASKS)
@pytest.mark.parametrize("d_model, h, T", SIZES)
def test_every_function_runs_at_the_extremes_in_every_mode(mask, d_model, h, T):
    s = S(d_model, h, T, mask, seed=99999)
    text = CUSTOM4 if mask == "custom" and T == 4 else None
    run = scenario.run(s, custom_text=text)
    values, _ = L.parse_url(s, {"soft_head": h - 1, "soft_row": 0, "soft_bq": 1, "soft_bk": 1}, text)
    assert L.variance_curve(s).current_d_k == s.d_k
    for row in (0, T - 1):
        assert L.scale_row(s, values.head, row, run).model_diff <= 1e-6
        for gain in (1, 1000):
            m = L.max_row(s, values.head, row, gain, run)
            assert all(d.safe_diff <= d.tolerance and d.online_diff <= d.tolerance for d in m.dtypes)
    for bq, bk in ((1, 1), (3, 2), (TILE_BLOCK_MAX, TILE_BLOCK_MAX)):
        walk = L.tile_walk(s, values.head, bq, bk, run)
        assert walk.n_steps == L.step_count(s, bq, bk)
        for step in (1, walk.n_steps):
            L.tile_step(walk, step)
        assert L.tile_result(s, values.head, bq, bk, run).equal
        assert len(L.memory_table(s, bq, bk)) == 5
    assert len(L.quiz_questions(s)) == len(L.QUIZ_KINDS)


def test_a_run_for_other_settings_is_refused():
    with pytest.raises(ValueError):
        L.scale_row(S(64, 4, 8), 0, 0, scenario.run(S(64, 2, 8)))


def test_returned_arrays_are_read_only():
    walk = L.tile_walk(S(), 0, 4, 4)
    v = L.tile_step(walk, 2)
    naive16 = L.max_row(S(), 0, 7, 10).dtypes[1].naive
    for a in (walk.scores, walk.steps[0].acc, L.values_of(v.output_so_far), v.m_rows, naive16):
        with pytest.raises(ValueError):
            a.flat[0] = 0


def test_each_function_is_cheap_at_the_largest_settings():
    """Generous bounds for a busy 2-core machine (measured: see the report); tile_walk at 1 x 1 is the top."""
    s = S(512, 64, 32, "causal")
    run = scenario.run(s)
    calls = {
        "variance_curve": lambda: L.variance_curve(s),
        "scale_row": lambda: L.scale_row(s, 0, 31, run),
        "max_row": lambda: L.max_row(s, 0, 31, 1000, run),
        "walk": lambda: L.tile_walk(s, 0, 1, 1, run),
        "result": lambda: L.tile_result(s, 0, 1, 1, run),
        "memory": lambda: L.memory_table(s, 1, 1),
        "quiz": lambda: L.quiz_questions(s),
        "url": lambda: L.parse_url(s, {"soft_bq": "1", "soft_bk": "1"}),
    }
    walk = L.tile_walk(s, 0, 1, 1, run)
    calls["step"] = lambda: L.tile_step(walk, walk.n_steps)
    for name, call in calls.items():
        call()
        t0 = time.perf_counter()
        call()
        assert time.perf_counter() - t0 < 1.5, name


@pytest.mark.parametrize("mask", MASKS)
def test_every_function_works_on_the_pages_frozen_shared_run_and_gives_the_same_numbers(mask):
    """The page passes the run from its shared cache, frozen (core.frozen): nothing here may write into it."""
    from core.frozen import freeze

    s = S(64, 4, 8, mask)
    run, frozen = scenario.run(s), freeze(scenario.run(s))
    one, two = L.scale_row(s, 1, 5, frozen), L.scale_row(s, 1, 5, run)
    assert np.array_equal(one.variants[1].weights, two.variants[1].weights) and one.model_diff == two.model_diff
    a, b = L.max_row(s, 1, 5, 1000, frozen), L.max_row(s, 1, 5, 1000, run)
    assert np.array_equal(a.dtypes[1].safe, b.dtypes[1].safe) and np.array_equal(a.naive_ok_by_gain, b.naive_ok_by_gain)
    w1, w2 = L.tile_walk(s, 2, 3, 2, frozen), L.tile_walk(s, 2, 3, 2, run)
    assert np.array_equal(
        L.values_of(L.tile_step(w1, 4).output_so_far), L.values_of(L.tile_step(w2, 4).output_so_far), equal_nan=True
    )
    assert L.tile_result(s, 2, 3, 2, frozen).head_diff == L.tile_result(s, 2, 3, 2, run).head_diff
    assert L.quiz_questions(s, frozen) == L.quiz_questions(s, run)


# ---------------------------------------------------------------- what the page prints: its notes and tables
def test_the_widgets_ranges_and_the_step_buttons_follow_the_url_keys():
    s = S(64, 4, 8)
    assert L.key_range("soft_row", s) == (0, 7) and L.key_range("soft_head", s) == (0, 3)
    assert L.head_options(s) == [0, 1, 2, 3] and L.head_options(S(8, 8, 2)) == list(range(8))
    assert tuple(k.name for k in L.WIDGET_KEYS) == L.URL_KEY_NAMES[1:]  # every key but the tab id
    assert [L.moved_step(3, 1, 5), L.moved_step(5, 1, 5), L.moved_step(1, -1, 5), L.moved_step(None, 1, 5)] == [
        4,
        5,
        1,
        2,
    ]
    assert L.moved_step(9, -1, 4) == 4  # a step past a shorter walk lands on its last step


def test_numbers_in_tables_keep_six_digits_and_say_inf_and_nan():
    assert [L.number(x) for x in (1234567.0, 0.000123456789, math.inf, -math.inf, math.nan, 2.0)] == [
        "1.23457e+06",
        "0.000123457",
        "inf",
        "-inf",
        "nan",
        "2",
    ]
    assert [L.fmt_bytes(n) for n in (0, 1023, 1024, 1536, 2**20 * 3, 2**30 * 64, 2**30 + 2**29)] == [
        "0 B",
        "1023 B",
        "1 KiB",
        "1.5 KiB",
        "3 MiB",
        "64 GiB",
        "1.5 GiB",
    ]


def test_the_scale_table_and_notes_carry_the_rows_numbers():
    s = S(64, 4, 8, "causal", seed=7)  # d_k 16
    r = L.scale_row(s, 2, 5)
    cols = L.scale_table(r)
    assert [c.header.key for c in cols] == [
        f"softmax.scale.col.{k}"
        for k in ("divisor", "value", "entropy", "max", "grad", "mean_entropy", "mean_max", "mean_grad")
    ]
    assert cols[0].cells == L.SCALE_LABELS and cols[1].cells == ("1", "4", "16")
    assert cols[2].cells == tuple(f"{v.entropy:.4f}" for v in r.variants)
    assert cols[4].cells == tuple(f"{v.gradient:.4f}" for v in r.variants)
    assert cols[6].cells == tuple(f"{v.mean_max_weight:.4f}" for v in r.variants)
    assert cols[7].cells == tuple(f"{v.mean_gradient:.4f}" for v in r.variants)
    hint = L.big_hint(s) if L.wants_hint(s, r) else None
    notes = L.scale_notes(r, hint)
    keys = [n.key for n in notes]
    assert keys[0] == "softmax.scale.order" and keys[-2:] == ["softmax.scale.grad", "softmax.scale.check"]
    assert notes[0].kw() == {f"e{i}": v.entropy for i, v in enumerate(r.variants, 1)}
    assert notes[-1].kw() == {"diff": r.model_diff}
    one = r.variants[0]
    if one.max_weight >= L.SATURATED:
        assert keys[1] == "softmax.scale.saturated" and hint is None
    else:
        gap = L.top_two_gap(r)
        assert keys[1:3] == ["softmax.scale.not_saturated", "softmax.scale.try_big"]
        assert notes[1].kw() == {"top": one.max_weight, "gap": gap, "ratio": math.exp(-gap)}
    assert [n.key for n in L.scale_notes(L.scale_row(S(8, 8, 6), 2, 5))][0] == "softmax.scale.d_k_1"
    blocked = L.scale_row(S(64, 4, 4, "custom"), 0, 1, scenario.run(S(64, 4, 4, "custom"), custom_text=CUSTOM4))
    assert blocked.row_blocked and L.scale_notes(blocked)[0].key == "softmax.scale.blocked"
    first = L.scale_row(s, 0, 0)  # causal row 0: one visible key, weight 1 everywhere
    assert [n.key for n in L.scale_notes(first)][1:3] == ["softmax.scale.saturated", "softmax.scale.grad_one_key"]
    mid = L.variance_now(L.variance_curve(s))
    vc = L.variance_curve(s)
    assert mid.key == "softmax.scale.variance_now" and mid.kw() == {
        "d_k": 16,
        "var": float(vc.variance[4]),
        "scaled": float(vc.scaled_variance[4]),
    }


def test_the_max_notes_and_tables_say_where_the_naive_softmax_breaks():
    s = S(64, 4, 8, "causal", seed=3)
    run = scenario.run(s)
    big = L.max_row(s, 1, 6, 1000, run)
    naive32, safe32 = L.dtype_notes(big, big.dtypes[0])
    d = big.dtypes[0]
    assert naive32.key == "softmax.max.naive_broken" and naive32.kw() == {
        "dtype": "float32",
        "n": int(d.exp_overflows.sum()),
        "thr": d.threshold,
        "nan": int(d.naive_nan.sum()),
        "zero": int(d.naive_zero.sum()),
    }
    assert naive32.kw()["n"] >= 1 and safe32.key == "softmax.max.safe_ok" and safe32.kw()["safe"] == d.safe_diff
    small = L.max_row(s, 1, 6, 1, run)
    naive, safe = L.dtype_notes(small, small.dtypes[0])
    keep = keep_of(run)[6]
    assert naive.key == "softmax.max.naive_ok" and naive.kw()["top"] == pytest.approx(small.base[keep].max(), abs=1e-6)
    assert safe.key == "softmax.max.safe_ok"
    cols = L.dtype_table(big, d)
    assert cols[1].header == "s" and cols[1].cells == tuple(f"{float(v):.6g}" for v in d.scores)
    assert cols[2].header == "exp(s)" and "inf" in cols[2].cells and "nan" in cols[3].cells
    assert cols[0].cells == tuple(f"{j} {tok}" + ("" if keep[j] else " ✕") for j, tok in enumerate(run.tokens))
    assert sum(c.endswith("✕") for c in cols[0].cells) == 1  # causal, row 6 of 8: key 7 is blocked
    g32, g16 = small.first_failing_gain
    broke = L.breaks_from(small).kw()
    assert broke["g32"] == str(g32) and broke["g16"] == str(g16)  # both break within GAINS on this row
    assert L.row_text(big).kw() == {
        "gain": 1000,
        "row_max": big.row_max,
        "t32": d.threshold,
        "t16": big.dtypes[1].threshold,
    }
    tiny = L.max_row(S(64, 4, 8, "none", seed=0), 0, 0, 1)
    never = L.breaks_from(tiny).kw()
    assert [never[k] for k in ("g32", "g16")] == [
        str(g) if g is not None else tx("softmax.max.never") for g in tiny.first_failing_gain
    ]


@pytest.mark.parametrize(
    "d_model, h, T, mask, seed", [(8, 1, 2, "none", 0), (64, 4, 8, "causal", 3), (512, 16, 32, "none", 1)]
)
def test_the_naive_softmax_note_names_the_failure_its_numbers_show(d_model, h, T, mask, seed):
    """The naive note is chosen by what happened in that dtype: exp overflowing at some keys, only the sum
    overflowing, or every exp rounding to 0 (0/0: NaN everywhere), never one said for another. At 8/1/2 the page
    opens at gain 200, where float16's exps all underflow: the note said its sum had overflowed."""
    s = S(d_model, h, T, mask, seed)
    run = scenario.run(s)
    seen = set()
    for row in (0, T - 1):
        for gain in L.GAINS:
            mr = L.max_row(s, 0, row, gain, run)
            for dt in mr.dtypes:
                note = L.dtype_notes(mr, dt)[0]
                seen.add(note.key)
                exps = torch.exp(torch.tensor(dt.scores, dtype=torch.float64)).to(getattr(torch, dt.dtype))
                if note.key == "softmax.max.sum_underflow":
                    assert (exps == 0).all() and not dt.exp_overflows.any() and np.isnan(dt.naive).all()
                    assert note.kw()["top"] == pytest.approx(float(np.max(np.where(mr.kept, dt.scores, -np.inf))))
                elif note.key == "softmax.max.sum_overflow":
                    assert not dt.exp_overflows.any() and torch.isinf(exps.double().sum().to(exps.dtype))
                elif note.key == "softmax.max.naive_broken":
                    assert torch.isinf(exps).any()
                elif note.key == "softmax.max.naive_ok":
                    assert not (exps == 0).all() and np.isfinite(dt.naive).all()
    if (d_model, T) == (8, 2):
        values, _ = L.parse_url(s, {})
        opened = L.max_row(s, values.head, values.row, values.gain, run)
        assert L.dtype_notes(opened, opened.dtypes[1])[0].key == "softmax.max.sum_underflow"
        assert "softmax.max.sum_underflow" in seen


def hidden_of(cells) -> list[int]:
    """The keys a table's gap lines ("⋯ 3–9", "⋯ 4") stand for."""
    out = []
    for c in cells:
        if c.startswith(L.GAP):
            a, _, b = c[len(L.GAP) + 1 :].partition("–")
            out += list(range(int(a), int(b or a) + 1))
    return out


@pytest.mark.parametrize("mask, seed", [("causal", 0), ("none", 3), ("padding", 5)])
@pytest.mark.parametrize("gain", [1, 50, 1000])
def test_a_long_rows_tables_show_the_keys_that_tell_its_story_and_say_so(mask, seed, gain):
    """A row of more than WHOLE_ROW_UP_TO keys: each dtype's table shows at most TELLING_KEYS keys (and single keys
    between them), chosen by that dtype's numbers: the largest kept score, the last key, where the online m grows,
    where exp overflows, the largest weight the naive softmax wipes; the rest of the budget the largest exact weights.
    Every hidden key sits in exactly one gap line; every shown line is the whole table's line; the caption's counts
    are the table's."""
    s = S(512, 16, 32, mask, seed)
    run = scenario.run(s)
    for row in (31, 20, 0):
        mr = L.max_row(s, 3, row, gain, run)
        keep = mr.kept
        for dt in mr.dtypes:
            sh = L.telling_keys(mr, dt)
            scores = np.asarray(dt.scores, dtype=np.float64)
            assert sh.top == int(np.argmax(np.where(keep, scores, -np.inf)) if keep.any() else np.argmax(scores))
            m = np.asarray(dt.online_m, dtype=np.float64)
            grows = [0] + [j for j in range(1, 32) if m[j] > np.max(m[:j])]  # a new running max
            assert list(sh.grows) == grows
            assert sorted(sh.overflows) == np.flatnonzero(dt.exp_overflows).tolist()
            core = [sh.top, 31, *sh.grows, *sh.overflows] + ([] if sh.wiped is None else [sh.wiped])
            need = list(dict.fromkeys(core))[: L.TELLING_KEYS]  # the budget, in order of need
            assert set(need) <= set(sh.keys)
            fills = [j for j in sh.keys if j not in need and j not in sh.heaviest]
            assert all(j - 1 in sh.keys and j + 1 in sh.keys for j in fills)  # only single keys between two shown
            assert len(sh.keys) - len(fills) <= L.TELLING_KEYS
            hidden = [j for j in range(32) if j not in sh.keys]
            exact = np.asarray(dt.exact, dtype=np.float64)
            for j in sh.heaviest:  # a key shown for its weight weighs at least as much as any hidden one
                assert all(exact[j] >= exact[h] for h in hidden)
            whole = L.dtype_table(mr, dt)
            cols = L.dtype_table(mr, dt, sh)
            assert hidden_of(cols[0].cells) == hidden
            assert not any(b - a == 2 for a, b in zip(sh.keys, sh.keys[1:]))  # no gap line hides a single key
            lines = [c for c in cols[0].cells if not c.startswith(L.GAP)]
            assert lines == [whole[0].cells[j] for j in sh.keys]
            for col, full in zip(cols[1:], whole[1:]):
                assert [c for c, k in zip(col.cells, cols[0].cells) if not k.startswith(L.GAP)] == [
                    full.cells[j] for j in sh.keys
                ]
                assert all(c == L.GAP for c, k in zip(col.cells, cols[0].cells) if k.startswith(L.GAP))
            said = L.shown_text(sh).kw()
            assert (said["shown"], said["total"], said["top"]) == (len(sh.keys), 32, sh.top)
            assert (said["grows"], said["grows_shown"]) == (len(grows), sum(j in sh.keys for j in grows))
            if sh.overflows:
                assert (said["over"], said["over_shown"]) == (
                    len(sh.overflows),
                    sum(j in sh.keys for j in sh.overflows),
                )
            assert (said.get("wiped") is not None) == (
                sh.wiped is not None and sh.wiped in sh.keys and bool(sh.overflows)
            )
            assert (said["rest"] != "") == bool(sh.heaviest)
            every = L.telling_keys(mr, dt, every=True)
            assert every.keys == tuple(range(32)) and L.shown_text(every) is None
            assert L.dtype_table(mr, dt, every) == whole


def test_a_short_row_is_shown_whole():
    s = S(64, 4, L.WHOLE_ROW_UP_TO, "causal", 0)
    mr = L.max_row(s, 0, L.WHOLE_ROW_UP_TO - 1, 1000)
    for dt in mr.dtypes:
        sh = L.telling_keys(mr, dt)
        assert sh.whole and L.shown_text(sh) is None and L.dtype_table(mr, dt, sh) == L.dtype_table(mr, dt)


def test_the_tile_notes_and_tables_carry_the_steps_numbers():
    s = S(64, 4, 7, "causal", seed=5)
    run = scenario.run(s)
    walk = L.tile_walk(s, 3, 2, 3, run)
    v = L.tile_step(walk, 3)
    kw = L.step_text(walk, v).kw()
    q0, q1, k0, k1 = v.cells
    assert kw == {
        "step": 3,
        "n": walk.n_steps,
        "i": v.tile[0],
        "j": v.tile[1],
        "q0": q0,
        "q1": q1 - 1,
        "k0": k0,
        "k1": k1 - 1,
        "tiles": 12,  # ceil(7 / 2) x ceil(7 / 3)
        "skipped": len(walk.skipped),
        "skipped_before": v.skipped_so_far,
    }
    rows = L.tile_rows_table(walk, v)
    assert rows[0].cells == tuple(f"{r} {run.tokens[r]}" for r in range(q0, q1))
    assert rows[2].cells == tuple(f"{float(x):.6g}" for x in v.current.m_new)
    assert rows[4].cells == tuple(f"{float(x):.6g}" for x in v.current.l)
    res = L.tile_result(s, 3, 2, 3, run)
    note = L.result_note(res, s.num_heads)
    assert (
        res.equal and note.key == "softmax.tiles.equal" and note.kw()["h"] == 4 and note.kw()["sdpa"] == res.sdpa_diff
    )
    assert (note.kw()["steps"], note.kw()["skipped"]) == (res.steps, res.skipped)
    mem = L.memory_columns(L.memory_table(s, 2, 3), s.num_heads)
    assert mem[0].cells[0] == tx("softmax.mem.current", T="7") and mem[0].cells[-1] == "131,072"
    assert mem[1].cells[0] == "2 × 3" and mem[1].cells[-1] == tx("softmax.mem.kernel", bq=128, bk=64)
    assert mem[3].header == tx("softmax.mem.col.all", h=4)
    assert mem[2].cells[-1] == "64 GiB"  # 131,072² float32 scores of one head
    assert mem[2].cells[0] == f"{7 * 7 * 4} B"
