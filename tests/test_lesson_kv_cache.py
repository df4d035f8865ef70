"""lessons/kv_cache/: every number the KV cache page will print, against an independent computation.

References here are written from the formulas (or torch's own kernels), never by calling the lesson's
code path again: F.scaled_dot_product_attention for the full causal pass, hand-written projections
and softmax for the decode row, the cache-bytes formula by hand, lessons.quiz's parsers for the answers.
"""

from __future__ import annotations

import math
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from core.accounting import PRESETS, kv_shapes, preset_cache_bytes
from core.attention import build_input, build_model
from core.limits import KV_CACHE_MAX_TOKENS
from core.masks import MASK_KINDS
from lessons import kv_cache as K
from lessons import quiz as Q
from lessons import url
from lessons.heatmap import text
from lessons.kv_cache import timing
from lessons.scenario import settings_mask
from lessons.settings import Settings

pytestmark = pytest.mark.usefixtures("one_torch_thread")

SMALLEST = Settings(8, 1, 2, "none", 0, "en")
DEFAULT = Settings(64, 4, 8, "none", 0, "en")
LARGEST = Settings(512, 64, 32, "none", 0, "en")
WIDE = Settings(512, 16, 32, "none", 0, "zh")
EVERY_SIZE = (SMALLEST, DEFAULT, Settings(16, 8, 5, "none", 3, "zh"), WIDE, LARGEST)
MiB = 2**20


def with_mask(s: Settings, mask: str) -> Settings:
    return Settings(s.d_model, s.num_heads, s.seq_len, mask, s.seed, s.lang)


def kv_choices(h: int) -> list[int]:
    return [d for d in range(1, h + 1) if h % d == 0]


# ------------------------------------------------------------------ what the module may import


def test_the_package_exports_what_exists():
    """`__all__` names what exists (the docstring's map of files and their sizes: scripts/check_source.py)."""
    assert all(hasattr(K, name) for name in K.__all__) and len(set(K.__all__)) == len(K.__all__)


def test_importing_it_loads_no_streamlit_plotly_or_drawing():
    """Even through core (lessons.settings names the languages via i18n, which is not this module's import)."""
    code = (
        "import sys, lessons.kv_cache; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('streamlit', 'plotly', 'charts', 'ui')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=Path(__file__).resolve().parents[1],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert out.stdout.strip() == "[]"


# ------------------------------------------------------------------ URL keys and their corrections


def test_url_table_lists_every_key_and_the_one_parser_reads_each():
    names = [k.name for k in K.URL_KEYS]
    assert names == ["kv_tab", "kv_heads", "kv_step", "kv_head", "kv_model", "kv_context", "kv_gen"]
    assert all(n.startswith("kv_") for n in names)  # page-local, never a shared setting's name
    for s in (DEFAULT, LARGEST, SMALLEST):  # every key is read by the one parser: its default reads back as itself
        env = {"settings": s}
        for key in K.URL_KEYS:
            default = key.resolved(env)["default"]
            assert url.parse_value(key, url.as_url(default), env) == (default, None), key.name
    assert K.URL_KEY_BY_NAME["kv_model"].choices == (
        "gpt2-small",
        "llama-2-7b",
        "llama-3-8b",
        "mistral-7b",
        "falcon-7b",
        "ours",
    )
    assert (K.URL_KEY_BY_NAME["kv_gen"].lo, K.URL_KEY_BY_NAME["kv_gen"].hi) == (8, KV_CACHE_MAX_TOKENS)


def test_missing_values_take_the_defaults_silently():
    values, fixes = K.parse_url({}, DEFAULT)
    assert fixes == []
    assert values == K.PageValues("sharing", 2, 4, 0, "llama-3-8b", 4096, 128)  # T = 8: step 4, not 1 (issue 29)


@pytest.mark.parametrize("T", range(2, 33))
def test_the_decode_view_opens_past_step_1(T):
    """Issue 29 item 3: step 1 has one key, weight 1: nothing to see. The view opens half way, Next still works,
    and a link's step 1 is kept."""
    s = Settings(16, 4, T, "none", 0, "en")
    step = K.parse_url({}, s)[0].step
    assert 2 <= step <= T and step == K.default_step(T) and (T <= 3 or step < T)
    view = K.decode_view(s, 2, step, 0)
    w = K.values_of(view.weights_row)  # (h, step): every query head spreads its weight over the cached keys
    assert w.shape[-1] == step >= 2 and float(w.max()) < 1.0
    assert K.parse_url({"kv_step": "1"}, s)[0].step == 1
    values, fixes = K.parse_url({k: "" for k in K.URL_KEY_BY_NAME}, Settings(64, 64, 8, "none", 0, "en"))
    assert fixes == [] and values.kv_heads == 16  # the GQA default: the divisor nearest h/4


def test_valid_values_pass_unchanged():
    raw = {
        "kv_tab": "timing",
        "kv_heads": "1",
        "kv_step": "8",
        "kv_head": "3",
        "kv_model": "ours",
        "kv_context": "131072",
        "kv_gen": "256",
    }
    values, fixes = K.parse_url(raw, DEFAULT)
    assert fixes == []
    assert values == K.PageValues("timing", 1, 8, 3, "ours", 131072, 256)


@pytest.mark.parametrize(
    "key, raw, h, T, used",
    [
        ("kv_heads", "3", 8, 8, 2),  # nearest divisor of 8; 3 is between 2 and 4, ties to the smaller
        ("kv_heads", "0", 8, 8, 1),
        ("kv_heads", "-7", 8, 8, 1),
        ("kv_heads", "99", 8, 8, 8),
        ("kv_heads", "1e400", 8, 8, 8),  # huge clamps, never crashes
        ("kv_heads", "7", 16, 8, 8),
        ("kv_heads", "abc", 4, 8, 2),  # unreadable -> the default (GQA)
        ("kv_heads", "2.0", 4, 8, 2),  # readable, but not as written: reported
        ("kv_step", "99", 4, 8, 8),
        ("kv_step", "0", 4, 8, 1),
        ("kv_step", "nan", 4, 8, 4),  # the default, half way
        ("kv_step", "9" * 500, 4, 32, 32),
        ("kv_head", "-5", 4, 8, 0),
        ("kv_head", "4", 4, 8, 3),
        ("kv_model", "LLAMA-3-8B", 4, 8, "llama-3-8b"),
        ("kv_model", "gpt-5", 4, 8, "llama-3-8b"),
        ("kv_model", "<script>alert(1)</script>", 4, 8, "llama-3-8b"),
        ("kv_context", "5000", 4, 8, 4096),
        ("kv_context", "1", 4, 8, 1024),
        ("kv_context", "1e9", 4, 8, 131072),
        ("kv_gen", "1", 4, 8, 8),
        ("kv_gen", "100000", 4, 8, 256),
        ("kv_gen", "inf", 4, 8, 256),
        ("kv_tab", "nope", 4, 8, "sharing"),
        ("kv_tab", " Decode ", 4, 8, "decode"),
    ],
)
def test_bad_values_are_corrected_and_reported(key, raw, h, T, used):
    s = Settings(64, h, T, "none", 0, "en")
    values, fixes = K.parse_url({key: raw}, s)
    field = {
        "kv_tab": "tab",
        "kv_heads": "kv_heads",
        "kv_step": "step",
        "kv_head": "head",
        "kv_model": "model",
        "kv_context": "context",
        "kv_gen": "gen",
    }[key]
    assert getattr(values, field) == used
    assert len(fixes) == 1 and fixes[0].key == key and fixes[0].used == str(used)
    assert len(fixes[0].given) <= 24  # a long value is shortened in the notice


@pytest.mark.parametrize("raw", [None, 5, 3.7, ["2", "4"], b"2", True, float("nan"), "\u0000", "１"])
def test_any_raw_type_is_read_or_corrected_never_a_crash(raw):
    values, fixes = K.parse_url({key.name: raw for key in K.URL_KEYS}, DEFAULT)
    assert values.tab in K.SECTIONS and values.kv_heads in (1, 2, 4) and 1 <= values.step <= 8
    assert 0 <= values.head <= 3 and values.model in K.MODEL_CHOICES and values.context in K.CONTEXT_CHOICES
    assert K.GEN_MIN <= values.gen <= K.GEN_MAX
    assert raw is None or fixes  # anything present but not valid as written is reported


def test_a_shared_link_reproduces_the_view():
    raw = {"kv_heads": "2", "kv_step": "5", "kv_head": "3"}
    a, _ = K.parse_url(raw, DEFAULT)
    b, _ = K.parse_url(dict(raw), DEFAULT)
    assert a == b
    v1 = K.decode_view(DEFAULT, a.kv_heads, a.step, a.head)
    v2 = K.decode_view(DEFAULT, b.kv_heads, b.step, b.head)
    assert np.array_equal(K.values_of(v1.weights_row), K.values_of(v2.weights_row))
    assert np.array_equal(v1.output_row, v2.output_row)


# ------------------------------------------------------------------ the control and the sharing view


def test_gqa_value_and_control_labels():
    assert [K.gqa_value(h) for h in (1, 2, 3, 4, 8, 12, 32, 64, 71)] == [None, None, None, 2, 2, 3, 8, 16, None]
    opts = K.control_options(8)
    assert [(o.kv_heads, o.kind, o.group) for o in opts] == [(1, "mqa", 8), (2, "gqa", 4), (4, "gqa", 2), (8, "mha", 1)]
    assert [(o.kv_heads, o.kind) for o in K.control_options(1)] == [(1, "mha")]  # one head: MHA, nothing shared
    assert [o.kind for o in K.control_options(2)] == ["mqa", "mha"]


@torch.no_grad()
def reference_run(s: Settings, kv_heads: int, mask):
    """Our GQA attention from its weights by hand: repeat_interleave + explicit softmax (no core code path)."""
    model = build_model(s.d_model, s.num_heads, s.seed, num_kv_heads=kv_heads)
    x = build_input(1, s.seq_len, s.d_model, s.seed)[0].double()  # (T, d_model)
    h, d_k, g = s.num_heads, s.d_k, s.num_heads // kv_heads
    W = {n: (getattr(model, n).weight.double(), getattr(model, n).bias.double()) for n in ("W_q", "W_k", "W_v", "W_o")}
    q, k, v = (x @ W[n][0].T + W[n][1] for n in ("W_q", "W_k", "W_v"))  # (T, d_model), (T, h_kv d_k) x 2
    weights = torch.zeros(h, s.seq_len, s.seq_len, dtype=torch.float64)
    outs = []
    for i in range(h):
        j = i // g  # the K/V head query head i reads
        qi, kj, vj = q[:, i * d_k : (i + 1) * d_k], k[:, j * d_k : (j + 1) * d_k], v[:, j * d_k : (j + 1) * d_k]
        sc = qi @ kj.T / math.sqrt(d_k)
        if mask is not None:
            sc = sc.masked_fill(~mask.expand(1, 1, s.seq_len, s.seq_len)[0, 0], -1e9)
        w = torch.exp(sc - sc.max(-1, keepdim=True).values)
        w = w / w.sum(-1, keepdim=True)
        weights[i] = w
        outs.append(w @ vj)
    out = torch.cat(outs, dim=1) @ W["W_o"][0].T + W["W_o"][1]
    return q, k, v, weights, out


@pytest.mark.parametrize("mask", MASK_KINDS)
@pytest.mark.parametrize("s", EVERY_SIZE, ids=lambda s: f"{s.d_model}-{s.num_heads}-{s.seq_len}")
def test_sharing_view_against_a_hand_reference(s, mask):
    s = with_mask(s, mask)
    for kv in sorted({1, K.default_kv_heads(s.num_heads), s.num_heads}):
        view = K.sharing_view(s, kv)
        h, g, d_k, T = s.num_heads, s.num_heads // kv, s.d_k, s.seq_len
        assert view.kind == ("mha" if kv == h else "mqa" if kv == 1 else "gqa")
        assert view.groups == tuple(tuple(range(j * g, j * g + g)) for j in range(kv))
        assert view.kv_head_of == tuple(i // g for i in range(h))
        want = kv_shapes(1, T, s.d_model, h, kv)
        for name in ("k", "v", "k_heads", "v_heads", "k_heads_expanded", "v_heads_expanded"):
            assert view.shapes[name] == want[name].sizes
        assert view.shapes["q"] == (1, T, s.d_model) and view.shapes["q_heads"] == (1, h, T, d_k)
        q, k, v, weights, _ = reference_run(s, kv, settings_mask(mask, T, T))
        assert K.values_of(view.q).shape == (T, s.d_model) and K.values_of(view.k).shape == (T, kv * d_k)
        assert np.abs(K.values_of(view.q) - q.numpy()).max() < 1e-5
        assert np.abs(K.values_of(view.k) - k.numpy()).max() < 1e-5
        assert np.abs(K.values_of(view.v) - v.numpy()).max() < 1e-5
        assert np.abs(view.weights - weights.numpy()).max() < 1e-5
        assert view.q.panels[0].col_groups == tuple((c // d_k) // g for c in range(s.d_model))
        assert view.k.panels[0].col_groups == tuple(c // d_k for c in range(kv * d_k))
        assert view.q.role == "signed" and view.q.vmin == -view.q.vmax
        assert abs(view.q.vmax - float(np.abs(q.numpy()).max())) < 1e-5
        assert len(view.weight_rows.labels) == T and view.q.row_axis.key == "kv.axis.token"
        assert view.sdpa_equal and view.sdpa_max_abs_diff <= K.SDPA_ATOL
        assert view.leaders_equal and view.leaders_max_abs_diff <= K.SDPA_ATOL
        # The table: Q stays, K, W_k/W_v and the cache shrink with h_kv.
        assert [r.kv_heads for r in view.table] == kv_choices(h)
        for r in view.table:
            other = build_model(s.d_model, h, 0, num_kv_heads=r.kv_heads)
            assert r.q_numel == T * s.d_model and r.q_shape == (T, s.d_model)
            assert r.k_shape == (T, other.W_k.out_features) == (T, r.kv_heads * d_k)
            assert r.k_numel == T * r.kv_heads * d_k
            assert r.kv_params == sum(p.numel() for p in (*other.W_k.parameters(), *other.W_v.parameters()))
            assert r.cache_bytes_per_token == 2 * r.kv_heads * d_k * 4


def test_sharing_strips_label_every_token_row():
    """Issue 29 item 4: Q (T, d_model) and K (T, h_kv * d_k) drawn as square cells were a few px tall on a phone
    with every third token named; every row is labelled now, also when K is cut to its first columns."""
    view = K.sharing_view(Settings(64, 8, 32, "none", 0, "en"), 2)
    assert view.q.every_row and view.k.every_row and view.v.every_row
    shown = K.sharing_shown(view)
    assert shown.q is not None and shown.q.every_row and shown.k.every_row
    cut = K.first_columns(view.k, 4)
    assert cut.every_row and cut.panels[0].values.shape == (32, 4)


def test_sharing_view_leader_heads_are_the_mha_heads_and_the_others_differ():
    mha = K.sharing_view(DEFAULT, 4)
    gqa = K.sharing_view(DEFAULT, 2)
    assert np.abs(gqa.weights[[0, 2]] - mha.weights[[0, 2]]).max() < 1e-6  # the groups' first heads
    assert np.abs(gqa.weights[[1, 3]] - mha.weights[[1, 3]]).max() > 1e-3  # the others read their leader's K


@pytest.mark.parametrize("mask", MASK_KINDS)
def test_sharing_view_takes_the_pages_mha_trace(mask):
    from lessons import scenario

    s = with_mask(DEFAULT, mask)
    run = scenario.run(s)
    given, built = K.sharing_view(s, 1, mha=run.trace), K.sharing_view(s, 1)
    assert given.leaders_max_abs_diff == built.leaders_max_abs_diff and given.leaders_equal
    with pytest.raises(ValueError):
        K.sharing_view(s, 1, mha=scenario.run(Settings(64, 4, 5, mask, 0, "en")).trace)


def test_sharing_view_with_a_fully_blocked_custom_row_compares_the_other_rows():
    s = with_mask(Settings(16, 4, 3, "none", 0, "en"), "custom")
    view = K.sharing_view(s, 2, custom_text="000.110.111")  # query 0 keeps no key
    assert view.sdpa_rows_compared == 2 and view.sdpa_equal
    assert np.allclose(view.weights[:, 0], 1 / 3)  # the seed's fill: a blocked row is uniform


# ------------------------------------------------------------------ decoding step by step


def hand_macs(d: int, h: int, h_kv: int, t: int) -> tuple[int, int]:
    kvw = h_kv * (d // h)
    per_row = 2 * d * d + 2 * d * kvw
    return per_row + 2 * t * d, t * per_row + 2 * t * t * d


def test_decode_view_every_step_against_sdpa_and_by_hand():
    s = Settings(16, 4, 6, "none", 2, "en")
    kv, T, d_k = 2, s.seq_len, s.d_k
    model = build_model(16, 4, 2, num_kv_heads=kv)
    x = build_input(1, T, 16, 2)
    with torch.no_grad():
        q = model.W_q(x).view(1, T, 4, d_k).transpose(1, 2)
        k = model.W_k(x).view(1, T, kv, d_k).transpose(1, 2)
        v = model.W_v(x).view(1, T, kv, d_k).transpose(1, 2)
        full = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)  # (1, h, T, d_k)
        full_out = model.W_o(full.transpose(1, 2).reshape(1, T, 16))[0]  # (T, d_model)
        k_rep = k.repeat_interleave(2, dim=1)  # each K/V head read by its group of 2 query heads
    for t in range(1, T + 1):
        for head in range(4):
            view = K.decode_view(s, kv, t, head)
            assert view.step == t and view.new_token == K.page_tokens(s)[t - 1]
            assert view.kv_head == head // 2 and view.group == ((0, 1), (2, 3))[head // 2]
            assert view.cache_shape == (1, kv, t, d_k) and view.cache_rows == tuple(range(1, t + 1))
            assert view.cache_nbytes == 2 * kv * t * d_k * 4
            assert np.abs(K.values_of(view.k_cache) - k[0, head // 2, :t].numpy()).max() < 1e-6
            assert np.abs(K.values_of(view.v_cache) - v[0, head // 2, :t].numpy()).max() < 1e-6
            assert np.abs(K.values_of(view.q_row) - q[0, :, t - 1].numpy()).max() < 1e-6
            scores = (q[0, :, t - 1 : t] @ k_rep[0, :, :t].transpose(-1, -2))[:, 0] / math.sqrt(d_k)  # (h, t)
            assert np.abs(K.values_of(view.scores_row) - scores.numpy()).max() < 1e-5
            w = torch.softmax(scores.double(), -1).float()
            assert np.abs(K.values_of(view.weights_row) - w.numpy()).max() < 1e-6
            assert np.abs(K.values_of(view.full_weights_row) - w.numpy()).max() < 1e-6
            assert np.abs(view.output_row - full_out[t - 1].numpy()).max() < 1e-5  # SDPA's causal pass
            assert view.equal and view.output_max_abs_diff <= 1e-6 and view.weights_max_abs_diff <= 1e-6
            assert (
                K.values_of(view.weights_row).shape == (4, t) and view.weights_row.row_axis.key == "kv.axis.query_head"
            )
            assert view.weights_row.panels[0].row_groups == (0, 0, 1, 1)
            assert K.values_of(view.mask_row).tolist() == [[True] * t]
            assert K.values_of(view.top_left_row).tolist() == [[True] + [False] * (t - 1)]
            with_c, without_c = hand_macs(16, 4, kv, t)
            assert (view.cost.with_cache, view.cost.without_cache, view.cost.saved) == (
                with_c,
                without_c,
                without_c - with_c,
            )
            sums = [hand_macs(16, 4, kv, u) for u in range(1, t + 1)]
            assert view.cost_so_far.with_cache == sum(a for a, _ in sums)
            assert view.cost_so_far.without_cache == sum(b for _, b in sums)
    assert K.decode_view(s, kv, 1, 0).cost.saved == 0  # one token: nothing to reuse yet
    assert K.decode_view(s, kv, 1, 0).shared_mask_differs  # the sidebar's "none": the page says it is causal here
    assert not K.decode_view(with_mask(s, "causal"), kv, 1, 0).shared_mask_differs


@pytest.mark.parametrize("mask", MASK_KINDS)
@pytest.mark.parametrize("s", EVERY_SIZE, ids=lambda s: f"{s.d_model}-{s.num_heads}-{s.seq_len}")
def test_decode_view_runs_everywhere_and_equals_the_full_pass(s, mask):
    s = with_mask(s, mask)
    for kv in sorted({1, s.num_heads}):
        view = K.decode_view(s, kv, s.seq_len, s.num_heads - 1)
        assert view.equal, (view.output_max_abs_diff, view.weights_max_abs_diff)
        assert view.cache_shape == (1, kv, s.seq_len, s.d_k)
        assert np.allclose(K.values_of(view.weights_row).sum(-1), 1, atol=1e-5)


def _same_view(a, b, where: str = "view") -> None:
    """Two decode views with the same numbers: every field, into heatmaps and panels (arrays by value)."""
    import dataclasses

    if dataclasses.is_dataclass(a):
        for f in dataclasses.fields(a):
            _same_view(getattr(a, f.name), getattr(b, f.name), f"{where}.{f.name}")
    elif isinstance(a, np.ndarray):
        assert np.array_equal(a, b, equal_nan=True), where
    elif isinstance(a, tuple) and a and not isinstance(a[0], (int, str)):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            _same_view(x, y, f"{where}[{i}]")
    else:
        assert a == b, where


@pytest.mark.parametrize(
    "d_model,h,steps,decoded",
    [
        # carried on: the next T with the next step decodes one token; a step back reads the steps it has
        (512, 16, ((31, 15), (32, 16), (32, 17), (30, 12), (29, 13), (32, 16)), [15, 1, 1, 0, 0, 0]),
        # T 31 x d_model 8 is no multiple of 16: build_input's rows 29 and 30 differ from T 32's, so the kept decode
        # starts again where a view reads them, and only there
        (8, 2, ((31, 31), (32, 32), (32, 29), (31, 31), (31, 12)), [31, 32, 0, 31, 0]),
    ],
)
def test_the_kept_decode_carries_on_and_gives_a_fresh_decodes_numbers(monkeypatch, d_model, h, steps, decoded):
    """The decode section keeps one model's decode and carries it on: a seq_len step to T 32 with the step one
    further decodes one more token, not 16 again. Each view has exactly the numbers of a decode from an empty cache
    (the kept decode emptied before every view), also where build_input's rows for the new T are other numbers than
    the kept ones (then it starts again)."""
    from lessons.kv_cache import decode as D

    calls = []
    real = D.decode_step
    monkeypatch.setattr(D, "decode_step", lambda *a: calls.append(1) or real(*a))
    D._DECODINGS.clear()
    views, counts = [], []
    for T, t in steps:
        calls.clear()
        views.append(K.decode_view(Settings(d_model, h, T, "causal", 5, "en"), 1, t, h - 1))
        counts.append(len(calls))
    assert counts == decoded
    for (T, t), kept in zip(steps, views):
        D._DECODINGS.clear()
        _same_view(kept, K.decode_view(Settings(d_model, h, T, "causal", 5, "en"), 1, t, h - 1))


def test_decode_view_refuses_what_parse_would_have_corrected():
    for bad in (
        dict(kv_heads=3, step=1, head=0),
        dict(kv_heads=2, step=0, head=0),
        dict(kv_heads=2, step=9, head=0),
        dict(kv_heads=2, step=1, head=4),
        dict(kv_heads=2, step=True, head=0),
    ):
        with pytest.raises(ValueError):
            K.decode_view(DEFAULT, **bad)


# ------------------------------------------------------------------ memory


def test_published_presets_by_hand():
    # 2 x layers x h_kv x d_k x tokens x 2 bytes (fp16), written out:
    assert preset_cache_bytes(PRESETS[2], 4096) == 2 * 32 * 8 * 128 * 4096 * 2 == 512 * MiB  # Llama-3-8B
    view = K.memory_view(DEFAULT, 2, "llama-3-8b", 4096)
    rows = {r.slug: r for r in view.presets}
    assert rows["llama-3-8b"].bytes_at_context == 512 * MiB and rows["llama-3-8b"].bytes_if_mha == 2048 * MiB
    assert rows["llama-2-7b"].bytes_at_context == 2 * 32 * 32 * 128 * 4096 * 2 == 2048 * MiB
    assert rows["mistral-7b"].bytes_at_context == 512 * MiB
    assert rows["gpt2-small"].bytes_at_context == 2 * 12 * 12 * 64 * 4096 * 2 == 144 * MiB
    assert rows["falcon-7b"].bytes_at_context == 2 * 32 * 1 * 64 * 4096 * 2 == 32 * MiB
    assert rows["falcon-7b"].bytes_if_mha == 71 * 32 * MiB and rows["falcon-7b"].saving == 71
    assert [r.kind for r in view.presets] == ["mha", "mha", "gqa", "gqa", "mqa"]
    assert [r.fits for r in view.presets] == [False, True, True, True, False]  # GPT-2 1,024, Falcon 2,048 < 4,096
    assert all(
        r.source.startswith("https://huggingface.co/") and r.source.endswith("config.json") for r in view.presets
    )


@pytest.mark.parametrize("model", K.MODEL_CHOICES)
def test_memory_lines_by_hand(model):
    for s in (DEFAULT, LARGEST, SMALLEST):
        kv = K.default_kv_heads(s.num_heads)
        view = K.memory_view(s, kv, model, 8192)
        window, limit = None, None
        if model == "ours":
            layers, heads, d_k, bpv, actual = 1, s.num_heads, s.d_k, 4, kv
        else:
            p = K.PRESET_SLUGS[model]
            layers, heads, d_k, bpv, actual = p.layers, p.heads, p.head_dim, 2, p.kv_heads
            window, limit = p.sliding_window, p.max_context
        cap = 2**62 if window is None else window  # a rolling cache stops growing at its window
        assert view.shown.tolist() == [limit is None or n <= limit for n in view.contexts.tolist()]
        assert (view.layers, view.heads, view.head_dim, view.bytes_per_value) == (layers, heads, d_k, bpv)
        assert view.contexts.tolist() == [256 * 2**i for i in range(10)]
        gqa = [d for d in range(2, heads) if heads % d == 0]
        want = {heads, 1, actual} | ({min(gqa, key=lambda d: (abs(d - heads / 4), d))} if gqa else set())
        assert [ln.kv_heads for ln in view.lines] == sorted(want, reverse=True)
        for ln in view.lines:
            assert ln.bytes.tolist() == [
                2 * layers * ln.kv_heads * d_k * min(n, cap) * bpv for n in view.contexts.tolist()
            ]
            assert ln.at_context == 2 * layers * ln.kv_heads * d_k * min(8192, cap) * bpv
            assert ln.actual == (ln.kv_heads == actual)
        assert view.ours_bytes_at_context == 2 * kv * s.d_k * 8192 * 4
        assert view.ours_cache_tokens == s.seq_len
        assert view.ours_cache_nbytes == view.ours_formula_at_T == 2 * kv * s.d_k * s.seq_len * 4


def test_memory_view_refuses_unknown_choices():
    with pytest.raises(ValueError):
        K.memory_view(DEFAULT, 2, "gpt-5", 4096)
    with pytest.raises(ValueError):
        K.memory_view(DEFAULT, 2, "ours", 5000)


# ------------------------------------------------------------------ live timing


def test_growth_exponent_and_kind_on_known_curves():
    L = np.array([4, 8, 16, 32, 64, 128])
    assert abs(K.growth_exponent(L, 3e-4 * L) - 1) < 1e-9
    assert abs(K.growth_exponent(L, 2e-6 * L**2) - 2) < 1e-9
    # a fixed cost dominates the small lengths: only the larger half decides
    noisy = np.where(L < 16, 1.0, 1e-3 * L**2)
    assert abs(K.growth_exponent(L, noisy) - 2) < 1e-9
    assert [K.growth_kind(e) for e in (0.2, 1.4, 1.6, 2.4, 2.6, 4.0)] == [
        "linear",
        "linear",
        "quadratic",
        "quadratic",
        "cubic",
        "cubic",
    ]
    with pytest.raises(ValueError):
        K.growth_exponent([4], [1.0])
    with pytest.raises(ValueError):
        K.growth_exponent([4, 8], [1.0, 0.0])


def test_timing_lengths():
    assert K.timing_lengths(8) == (2, 3, 5, 6, 8)  # geometric 2..8, rounded, distinct
    assert K.timing_lengths(64) == (4, 7, 12, 21, 37, 64)
    for T in (8, 64, 128, 256):
        lengths = K.timing_lengths(T)
        assert lengths[-1] == T and lengths[0] == max(2, T // 16)
        assert list(lengths) == sorted(set(lengths)) and len(lengths) >= 4


@pytest.mark.parametrize(
    "s, tokens", [(SMALLEST, 8), (DEFAULT, 16), (LARGEST, 8)], ids=["smallest", "default", "largest"]
)
def test_measure_generation_returns_a_fitted_series(s, tokens):
    kv = K.default_kv_heads(s.num_heads)
    r = K.measure_generation(s, kv, tokens, repeats=2)
    assert r.tokens == tokens and r.kv_heads == kv and 1 <= r.repeats <= 2
    for series in (r.step_with, r.step_without, r.total_with, r.total_without):
        assert series.shape == (tokens,) and np.all(series > 0) and np.all(np.isfinite(series))
    assert np.allclose(r.total_with, np.cumsum(r.step_with)) and np.allclose(r.total_without, np.cumsum(r.step_without))
    assert r.lengths.tolist() == list(K.timing_lengths(tokens))
    for i, L in enumerate(r.lengths.tolist()):
        sums = [hand_macs(s.d_model, s.num_heads, kv, t) for t in range(1, L + 1)]
        assert r.macs_with[i] == sum(a for a, _ in sums) and r.macs_without[i] == sum(b for _, b in sums)
    at = r.lengths - 1
    n = len(r.lengths)
    half = max(2, math.ceil(n / 2))
    for series, exponent in (
        (r.total_with[at], r.exponent_with),
        (r.total_without[at], r.exponent_without),
        (r.macs_with, r.macs_exponent_with),
        (r.macs_without, r.macs_exponent_without),
        (r.step_without[at], r.step_exponent_without),
    ):
        x, y = np.log(r.lengths[-half:].astype(float)), np.log(series[-half:].astype(float))
        slope = ((x - x.mean()) * (y - y.mean())).sum() / ((x - x.mean()) ** 2).sum()
        assert abs(exponent - slope) < 1e-9
    assert r.kind_with == K.growth_kind(r.exponent_with) and r.kind_without == K.growth_kind(r.exponent_without)
    assert r.macs_exponent_without > r.macs_exponent_with  # the count itself grows faster without the cache
    assert r.speedup == pytest.approx(r.total_without[-1] / r.total_with[-1])
    assert r.outputs_max_abs_diff <= 1e-5  # both generations computed the same rows
    assert r.wall_seconds > 0


def test_the_timed_loops_are_the_cores_generations():
    """The per-step timing loops compute exactly what decode_all and generate_without_cache compute."""
    from core.kv_cache import decode_all, generate_without_cache

    model = build_model(32, 4, 5, num_kv_heads=2)
    x = build_input(1, 9, 32, 5)
    with torch.no_grad():
        times_c, rows_c = timing._generate_timed(model, x, cached=True)
        times_n, rows_n = timing._generate_timed(model, x, cached=False)
        assert torch.equal(rows_c, decode_all(model, x)[0])
        assert torch.equal(rows_n, generate_without_cache(model, x))
    assert len(times_c) == len(times_n) == 9 and min(times_c + times_n) >= 0


def test_measure_generation_stays_within_its_budget_and_limits():
    start = time.perf_counter()
    r = K.measure_generation(DEFAULT, 2, 16, repeats=5, budget_s=0.0)
    assert r.repeats == 1  # the budget is spent after the first generation of each mode
    assert time.perf_counter() - start < 30
    assert K.measure_generation(DEFAULT, 2, 8, repeats=3, budget_s=60.0).repeats == 3
    for bad in (7, 257, 10**9, True, 16.0):
        with pytest.raises(ValueError):
            K.measure_generation(DEFAULT, 2, bad)
    with pytest.raises(ValueError):
        K.measure_generation(DEFAULT, 3, 16)
    with pytest.raises(ValueError):
        K.measure_generation(DEFAULT, 2, 16, repeats=0)


# ------------------------------------------------------------------ quiz
def test_the_preset_question_asks_only_for_a_cache_that_exists():
    """Issue 29: the question never prices GPT-2 at 131,072 tokens (past its 1,024) or Mistral past its window."""
    seen = set()
    for seed in range(200):
        q = K.quiz_questions(Settings(64, 4, 8, "none", seed, "en"), 2)[1]
        p = K.PRESET_SLUGS[q.params["slug"]]
        tokens = q.params["tokens"]
        assert p.fits(tokens) and p.cached_tokens(tokens) == tokens, (p.name, tokens)
        seen.add((q.params["slug"], tokens))
    assert len(seen) >= 12  # still a spread of models and lengths


@pytest.mark.parametrize("s", EVERY_SIZE, ids=lambda s: f"{s.d_model}-{s.num_heads}-{s.seq_len}")
def test_quiz_answers_by_hand_and_through_the_quiz_parsers(s):
    for seed in (0, 1, 7):
        s2 = Settings(s.d_model, s.num_heads, s.seq_len, s.mask, seed, s.lang)
        for kv in sorted({1, K.default_kv_heads(s.num_heads), s.num_heads}):
            shape_q, bytes_q, share_q = K.quiz_questions(s2, kv)
            t = shape_q.params["t"]
            assert 1 <= t <= s.seq_len
            assert shape_q.answer == (1, kv, t, s.d_k) and shape_q.answer_type == "shape"
            assert (shape_q.section, bytes_q.section, share_q.section) == ("decode", "memory", "sharing")
            for form in shape_q.accepted:
                assert Q.parse_shape(form).value == shape_q.answer, form
            p = bytes_q.params
            assert bytes_q.answer_type == "int"
            by_hand = 2 * p["layers"] * p["kv_heads"] * p["head_dim"] * p["tokens"] * 2
            assert bytes_q.answer * MiB == p["bytes"] == by_hand
            preset = K.PRESET_SLUGS[p["slug"]]
            assert (p["layers"], p["kv_heads"], p["head_dim"]) == (preset.layers, preset.kv_heads, preset.head_dim)
            for form in bytes_q.accepted:
                assert Q.parse_int(form).value == bytes_q.answer, form
            h_kv, j = share_q.params["h_kv"], share_q.params["kv_head"]
            g = s.num_heads // h_kv
            assert h_kv == (kv if kv < s.num_heads else (K.gqa_value(s.num_heads) or 1))
            assert share_q.answer == tuple(range(j * g, (j + 1) * g)) and share_q.answer_type == "cells"
            for form in share_q.accepted:
                assert Q.parse_cells(form, share_q.options).value == share_q.answer
            assert K.quiz_questions(s2, kv) == (shape_q, bytes_q, share_q)  # the same link, the same questions


def test_quiz_set_varies_with_the_seed_and_every_preset_context_is_whole_mib():
    asked = {K.quiz_questions(Settings(64, 4, 8, "none", seed, "en"), 2)[1].params["slug"] for seed in range(40)}
    assert len(asked) >= 4
    for p in PRESETS:
        for n in K.CONTEXT_CHOICES:
            assert preset_cache_bytes(p, n) % MiB == 0


# ------------------------------------------------------------------ cost


def test_every_function_is_cheap_at_the_largest_settings():
    """Each section's function at d_model 512, h 64, T 32 (one torch thread, as the app runs): best of 3."""
    s = with_mask(LARGEST, "causal")
    calls = {
        "parse_url": lambda: K.parse_url({"kv_heads": "5"}, s),
        "sharing": lambda: K.sharing_view(s, 16),
        "decode": lambda: K.decode_view(s, 16, 32, 63),
        "memory": lambda: K.memory_view(s, 16, "ours", 4096),
        "quiz": lambda: K.quiz_questions(s, 16),
    }
    for name, fn in calls.items():
        best = min(_time(fn) for _ in range(3))
        assert best < 1.0, (name, best)  # a few tens of ms unloaded; generous for a shared machine


def _time(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def test_heatmaps_are_the_renderers_plain_description():
    """Every matrix the page draws is a lessons.heatmap.Heatmap (issue 18's one chart route), with the new cache
    row outlined and the sharing weights one panel per chosen head, titled with the K/V head it reads."""
    from lessons.heatmap import Heatmap

    s = Settings(16, 4, 5, "causal", 0, "en")
    view = K.decode_view(s, 2, 3, 1)
    for hm in (
        view.q_row,
        view.k_cache,
        view.v_cache,
        view.scores_row,
        view.weights_row,
        view.full_weights_row,
        view.mask_row,
        view.top_left_row,
    ):
        assert isinstance(hm, Heatmap) and len(hm.panels) == 1
    assert view.k_cache.rects[0].r0 == 2 and view.k_cache.rects[0].r1 == 3 and view.k_cache.rects[0].c1 == s.d_k
    assert view.k_cache.panels[0].row_labels == tuple(K.page_tokens(s)[:3])
    sv = K.sharing_view(s, 2)
    hm = K.weights_heatmap(sv, (1, 3))
    assert [p.title.kw() for p in hm.panels] == [dict(i=1, kv=0), dict(i=3, kv=1)]
    assert np.array_equal(hm.panels[1].values, sv.weights[3])
    with pytest.raises(ValueError):
        K.weights_heatmap(sv, (4,))


def test_first_columns_cuts_a_wide_heatmap_keeping_its_range_and_outline():
    view = K.decode_view(Settings(64, 2, 4, "causal", 0, "en"), 1, 3, 0)  # d_k 32
    cut = K.first_columns(view.k_cache, 8)
    assert np.array_equal(K.values_of(cut), K.values_of(view.k_cache)[:, :8])
    assert cut.panels[0].col_labels == tuple(map(str, range(8))) and (cut.vmin, cut.vmax) == (
        view.k_cache.vmin,
        view.k_cache.vmax,
    )
    assert (cut.rects[0].r0, cut.rects[0].c1) == (2, 8)
    with pytest.raises(ValueError):
        K.first_columns(view.k_cache, 0)


# ------------------------------------------------------------------ what the page prints (<section>_shown)


def test_bytes_text_in_binary_units():
    assert [K.bytes_text(n) for n in (512, 1000, 1536, 3 * MiB, 4 * 2**30, 2**40, 2**30 + 2**29)] == [
        "512 B",
        "1,000 B",
        "1.50 KiB",
        "3 MiB",
        "4 GiB",
        "1 TiB",
        "1.50 GiB",
    ]


def test_the_control_values_and_what_each_is_called():
    assert K.kv_heads_choices(8) == (1, 2, 4, 8) and K.kv_heads_choices(1) == (1,) and K.kv_heads_choices(7) == (1, 7)
    assert K.kind_text(8, 2) == text("kv.kind.gqa", h=8, kv=2, g=4)
    assert K.kind_text(8, 1) == text("kv.kind.mqa", h=8, kv=1, g=8)
    assert K.kind_text(8, 8) == text("kv.kind.mha", h=8, kv=8, g=1)
    assert K.URL_KEY_BY_NAME["kv_heads"].resolved({"settings": DEFAULT})["choices"] == K.kv_heads_choices(4)


def cells(table) -> list[tuple]:
    return [c.cells for c in table]


def test_sharing_shown_small_draws_everything():
    s = Settings(32, 8, 4, "causal", 0, "en")
    view = K.sharing_view(s, 2)
    shown = K.sharing_shown(view)
    assert [c.header for c in shown.groups] == [text("kv.share.col.kv_head"), text("kv.share.col.q_heads")]
    assert cells(shown.groups) == [("0", "1"), ("0, 1, 2, 3", "4, 5, 6, 7")]
    assert shown.shapes == text("kv.share.shapes", T=4, d=32, w=8, kv=2, dk=4, kh="(1, 2, 4, 4)", ke="(1, 8, 4, 4)")
    assert shown.q is view.q and shown.k is view.k and shown.q_caption == text("kv.share.q", T=4, d=32)
    assert shown.k_caption == (text("kv.share.k", T=4, w=8),) and shown.widths == (32, 16)
    assert [p.title.kw()["i"] for p in shown.weights.panels] == list(range(8))  # 8 heads of 4 x 4 fit
    assert shown.weights_caption == text("kv.share.weights", n=8, h=8)
    h_kv, kind, q, k, params, cache = cells(shown.table)
    assert shown.table[0].header == "h_kv" and h_kv == ("1", text("kv.share.now", kv=2), "4", "8")
    assert (
        kind == ("MQA", "GQA", "GQA", "MHA")
        and q == ("(4, 32)",) * 4
        and k == ("(4, 4)", "(4, 8)", "(4, 16)", "(4, 32)")
    )
    assert params == tuple(f"{2 * (32 * n * 4 + n * 4):,}" for n in (1, 2, 4, 8))  # W_k + W_v weights and biases
    assert cache == tuple(K.bytes_text(2 * n * 4 * 4) for n in (1, 2, 4, 8)) == ("32 B", "64 B", "128 B", "256 B")
    assert shown.sdpa == text("kv.share.sdpa", diff=f"{view.sdpa_max_abs_diff:.2e}", rows=4, tol="1e-05")
    assert shown.sdpa_ok and shown.leaders_ok
    assert shown.leaders == text("kv.share.leaders", diff=f"{view.leaders_max_abs_diff:.2e}")
    mha = K.sharing_shown(K.sharing_view(s, 8))
    assert mha.groups is None and mha.leaders is None  # nothing is shared: no table, no leaders' check


def test_sharing_shown_large_cuts_k_and_leaves_q_out():
    s = Settings(512, 64, 32, "none", 0, "en")
    view = K.sharing_view(s, 64)
    shown = K.sharing_shown(view)
    assert shown.q is None and shown.q_caption == text("kv.share.q_big", T=32, d=512)  # 32 x 512 > 4096 numbers
    assert K.values_of(shown.k).shape == (32, 128)  # 4096 // 32 columns of 512
    assert np.array_equal(K.values_of(shown.k), K.values_of(view.k)[:, :128])
    assert shown.k_caption == (text("kv.share.k", T=32, w=512), text("kv.first_cols", n=128))
    assert len(shown.weights.panels) == 4  # 4096 // (32 x 32) heads


def test_decode_shown():
    s = Settings(16, 4, 5, "causal", 0, "en")
    view = K.decode_view(s, 2, 3, 1)
    shown = K.decode_shown(view)
    assert shown.now == text(
        "kv.dec.now", t=3, pos=2, shape="(1, 2, 3, 4)", bytes="192 B", head=1, kv=0, group="0, 1"
    )  # K and V: 2 x h_kv 2 x t 3 x d_k 4 x 4 bytes
    assert shown.k_cache is view.k_cache and shown.k_caption == (text("kv.dec.k_cache", kv=0, t=3, dk=4),)
    assert shown.v_caption == (text("kv.dec.v_cache", kv=0, t=3, dk=4),)
    assert shown.full_weights == text("kv.dec.full_weights", r=2, t=3)
    assert shown.output == text("kv.dec.output", n=8, d=16, r=2)
    dims, cached, full = cells(shown.output_table)
    assert dims == tuple(str(i) for i in range(8))
    assert cached == tuple(f"{float(x):.6f}" for x in view.output_row[:8])
    assert full == tuple(f"{float(x):.6f}" for x in view.full_output_row[:8])
    with_c, without_c = hand_macs(16, 4, 2, 3)
    assert shown.costs == (
        ("kv.dec.cost.with", f"{with_c:,}"),
        ("kv.dec.cost.without", f"{without_c:,}"),
        ("kv.dec.cost.saved", f"{without_c - with_c:,}"),
    )
    sums = [hand_macs(16, 4, 2, u) for u in (1, 2, 3)]
    w, wo = sum(a for a, _ in sums), sum(b for _, b in sums)
    assert shown.so_far == text("kv.dec.cost.so_far", t=3, w=f"{w:,}", wo=f"{wo:,}", saved=f"{wo - w:,}")
    assert shown.equal == text(
        "kv.dec.equal", out=f"{view.output_max_abs_diff:.2e}", w=f"{view.weights_max_abs_diff:.2e}", tol="1e-05"
    )
    wide = K.decode_shown(K.decode_view(Settings(512, 4, 4, "causal", 0, "en"), 4, 4, 0))  # d_k 128
    assert K.values_of(wide.k_cache).shape == K.values_of(wide.v_cache).shape == (4, 64)
    assert wide.k_caption[1] == wide.v_caption[1] == text("kv.first_cols", n=64)


def test_memory_shown():
    view = K.memory_view(DEFAULT, 2, "llama-3-8b", 32768)
    shown = K.memory_shown(view)
    assert shown.chart == text("kv.mem.chart", name="Llama-3-8B", L=32, h=32, dk=128, b=2)
    assert shown.table_title == text("kv.mem.table", ctx="32,768")
    names, layers, heads, kv, d_k, limit, nbytes, mha, saving = cells(shown.table)
    assert shown.table[4].header == "d_k" and d_k == (64, 128, 128, 128, 64)
    assert names == ("GPT-2 small", "Llama-2-7B", "Llama-3-8B", "Mistral-7B", "Falcon-7B")
    assert layers == (12, 32, 32, 32, 32) and heads == (12, 32, 32, 32, 71)
    assert kv == ("12 (MHA)", "32 (MHA)", "8 (GQA)", "8 (GQA)", "1 (MQA)")
    assert limit == ("1,024", "4,096", "8,192", text("kv.mem.window", w="4,096"), "2,048")
    # Issue 29: past a model's maximum context there is no cache to size; Mistral's window caps its rolling cache
    beyond = {i: text("kv.mem.beyond", max=m) for i, m in ((0, "1,024"), (1, "4,096"), (2, "8,192"), (4, "2,048"))}
    for i, cell in beyond.items():
        assert nbytes[i] == mha[i] == cell
    assert nbytes[3] == text("kv.mem.capped", b="512 MiB", w="4,096")  # 2 x 32 x 8 x 128 x 4096 x 2
    assert mha[3] == text("kv.mem.capped", b="2 GiB", w="4,096") and saving == ("×1", "×1", "×4", "×4", "×71")
    at_8k = cells(K.memory_shown(K.memory_view(DEFAULT, 2, "llama-3-8b", 8192)).table)
    assert (
        at_8k[6][2] == "1 GiB"
        and at_8k[7][2] == "4 GiB"
        and at_8k[6][3] == text("kv.mem.capped", b="512 MiB", w="4,096")
    )
    at_1k = cells(K.memory_shown(K.memory_view(DEFAULT, 2, "gpt2-small", 1024)).table)
    assert at_1k[6][0] == "36 MiB"  # 2 x 12 x 12 x 64 x 1024 x 2
    assert shown.limit == text("kv.mem.chart_stops", max="8,192")  # the chart's lines end at the model's context
    mistral = K.memory_shown(K.memory_view(DEFAULT, 2, "mistral-7b", 131072))
    assert mistral.limit == text("kv.mem.chart_window", w="4,096")
    assert cells(mistral.table)[6][3] == text("kv.mem.capped", b="512 MiB", w="4,096")
    assert all(f"[{p.name}]({p.source})" in shown.sources for p in view.presets)
    assert shown.ours == text("kv.mem.ours", kv=2, dk=16, ctx="32,768", b="8 MiB")  # 2 x 2 x 16 x 32768 x 4
    assert shown.check == text("kv.mem.check", T=8, real="2,048", formula="2,048") and shown.check_ok
    ours = K.memory_shown(K.memory_view(DEFAULT, 2, "ours", 4096))
    assert ours.chart.kw()["name"] == text("kv.mem.ours_name") and ours.limit is None  # worded by the page


def test_timing_shown():
    a = np.array([0.001, 0.0123])
    res = K.TimingResult(
        tokens=2,
        kv_heads=1,
        step_with=a,
        step_without=a,
        total_with=a,
        total_without=np.array([0.002, 0.0425]),
        lengths=np.array([1, 2]),
        macs_with=np.array([1, 2]),
        macs_without=np.array([1, 4]),
        exponent_with=1.004,
        exponent_without=2.345,
        kind_with="linear",
        kind_without="quadratic",
        macs_exponent_with=1.1,
        macs_exponent_without=2.06,
        step_exponent_without=1.0,
        speedup=3.456,
        outputs_max_abs_diff=1.5e-7,
        repeats=3,
        wall_seconds=0.456,
    )
    shown = K.timing_shown(res)
    assert shown.metrics == (
        (text("kv.time.total_with", n=2), "12.3 ms"),
        (text("kv.time.total_without", n=2), "42.5 ms"),
        (text("kv.time.speedup"), "×3.5"),
    )
    assert shown.fit == text(
        "kv.time.fit",
        ew="1.00",
        kw=text("kv.growth.linear"),
        ewo="2.35",
        kwo=text("kv.growth.quadratic"),
        mw="1.10",
        mwo="2.06",
    )
    assert shown.meta == text("kv.time.meta", repeats=3, wall="0.46", diff="1.5e-07")
