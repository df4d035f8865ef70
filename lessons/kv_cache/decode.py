"""Section 2 of the KV cache page: decoding one token at a time.

Step t of T: the new query row, the cache K and V with t rows, one row of scores and weights, the output
row; the same row from one causal pass over all T tokens and their max abs difference; the multiply-adds
this step costs with and without the cache.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np
import torch

from core.accounting import decode_macs
from core.attention import MultiHeadAttention, build_input, build_model
from core.kv_cache import KVCache, bottom_right_causal_mask, decode_step, head_groups, top_left_causal_mask
from core.masks import causal_mask
from lessons.heatmap import Heatmap, Rect, Text, text
from lessons.kv_cache.heatmaps import Axis, first_columns, frozen_array, mask_map, page_tokens, signed_map, weights_map
from lessons.kv_cache.tables import bytes_text, diff_text
from lessons.settings import Settings
from lessons.tables import Column, Table

# Cache vs full pass: the same arithmetic on fewer rows; "equal up to float error" as SDPA_ATOL. Outputs of the
# unit-variance lesson model (core.attention.weight_std) reach |2| at T 8 and differ by up to 1.1e-6 in float32.
DECODE_ATOL = 1e-5
CACHE_DIMS = 64  # dims of the cache drawn (its first ones when d_k is wider: a step's byte budget)
OUTPUT_DIMS = 8  # numbers of the output row the table prints


@dataclass(frozen=True)
class StepCost:
    """Multiply-adds of the attention layer for the output of token t (core.accounting.decode_macs)."""

    t: int
    with_cache: int
    without_cache: int
    saved: int


@dataclass(frozen=True)
class DecodeView:
    step: int  # t: tokens in the cache after this step (1..T); the new token is at position t - 1
    seq_len: int  # T
    num_heads: int  # h
    d_model: int
    d_k: int
    head: int  # the focused query head
    kv_head: int  # the K/V head it reads (head // group)
    group: tuple[int, ...]  # the query heads that read the same K/V head
    new_token: str
    cache_shape: tuple[int, int, int, int]  # (B, h_kv, t, d_k) of the cache's keys (and values)
    cache_nbytes: int  # the cache's own bytes (float32): 2 x h_kv x t x d_k x 4
    cache_rows: tuple[int, ...]  # cache length after each step 1..t (one row per step)
    q_row: Heatmap  # (h, d_k): the new token's query, one row per query head
    k_cache: Heatmap  # (t, d_k): the focused K/V head's cached keys; the last row is new this step
    v_cache: Heatmap  # (t, d_k)
    scores_row: Heatmap  # (h, t): scaled scores of the new query against every cached key
    weights_row: Heatmap  # (h, t): their softmax, one row per query head
    full_weights_row: Heatmap  # (h, t): row t-1 of the full causal pass's weights (first t keys)
    mask_row: Heatmap  # (1, t): bottom-right causal mask for one query: every cached key kept
    top_left_row: Heatmap  # (1, t): what is_causal=True would keep for one query row: key 0 only
    output_row: np.ndarray  # (d_model,) the decode step's output
    full_output_row: np.ndarray  # (d_model,) row t-1 of one causal pass over all T tokens
    output_max_abs_diff: float
    weights_max_abs_diff: float
    equal: bool  # both differences <= DECODE_ATOL
    cost: StepCost  # this step
    cost_so_far: StepCost  # steps 1..t added up
    shared_mask: str  # the sidebar's mask; decoding is causal whatever it is
    shared_mask_differs: bool  # True when the page must say the sidebar's mask is not used here


@dataclass(frozen=True)
class _Step:
    """What the page reads of one decode step (core DecodeTrace keeps much more: the whole cache at every step)."""

    cache_rows: int  # the cache's length after it
    q_heads: torch.Tensor  # (1, h, 1, d_k)
    scaled_scores: torch.Tensor  # (1, h, 1, t)
    weights: torch.Tensor  # (1, h, 1, t)
    output: torch.Tensor  # (1, 1, d_model)


class _Decoding:
    """The decode of one model (d_model, h, seed, h_kv), one token at a time, kept and carried on when a later step is
    asked: a seq_len step, or the next token, adds the steps it needs instead of decoding every token again (step 16
    at 512/16/32 decoded 16 tokens anew: 7 ms of the step's server run). A step's numbers are those of decoding
    tokens 0..t-1 from an empty cache, whichever view asked first: the steps so far are reused only while the input
    rows they read are the same numbers (build_input's first rows are the same for every T, except when T x d_model
    is no multiple of 16: then it starts again)."""

    def __init__(self, d_model: int, h: int, seed: int, kv_heads: int):
        self.model = build_model(d_model, h, seed, num_kv_heads=kv_heads)
        self.lock = threading.Lock()
        self._start()

    def _start(self) -> None:
        self.cache = KVCache.for_model(self.model, 1)
        self.x = torch.empty(1, 0, self.model.d_model)  # (1, steps so far, d_model): the rows decoded
        self.steps: list[_Step] = []

    def upto(self, t: int, x: torch.Tensor) -> tuple[MultiHeadAttention, tuple[_Step, ...], torch.Tensor, torch.Tensor]:
        """(model, steps 1..t, keys, values of the cache after step t) for the input x (1, T, d_model), T >= t."""
        with self.lock:
            done = min(len(self.steps), t)
            if not torch.equal(self.x[:, :done], x[:, :done]):
                self._start()
            for i in range(len(self.steps), t):  # one token at a time: the page's "next token"
                _, trace = decode_step(self.model, self.cache, x[:, i : i + 1])
                self.x = torch.cat([self.x, x[:, i : i + 1]], dim=1)
                self.steps.append(
                    _Step(self.cache.length, trace.q_heads, trace.scaled_scores, trace.weights, trace.output)
                )
            keys, values = self.cache.keys[:, :, :t], self.cache.values[:, :, :t]  # (1, h_kv, t, d_k) each
            return self.model, tuple(self.steps[:t]), keys.clone(), values.clone()


KEPT_DECODINGS = 2  # models of 4.2 MB at 512 each, as core.attention.SHARED_MODELS
_DECODINGS: OrderedDict[tuple[int, int, int, int], _Decoding] = OrderedDict()
_DECODINGS_LOCK = threading.Lock()


def _decoding(d_model: int, h: int, seed: int, kv_heads: int) -> _Decoding:
    """The kept decode of this model (a new one for a model not among the last KEPT_DECODINGS). Nothing of it leaves
    this module but copies and the values the view makes from it."""
    key = (int(d_model), int(h), int(seed), int(kv_heads))
    with _DECODINGS_LOCK:
        found = _DECODINGS.get(key)
        if found is None:
            found = _DECODINGS[key] = _Decoding(*key)
            while len(_DECODINGS) > KEPT_DECODINGS:
                _DECODINGS.popitem(last=False)
        _DECODINGS.move_to_end(key)
        return found


@torch.no_grad()
def decode_view(settings: Settings, kv_heads: int, step: int, head: int) -> DecodeView:
    """Step t of generating the shared settings' T tokens one at a time, beside one full causal pass.

    The cache holds the keys and values of tokens 0..t-1 after step t. The decode step computes one new
    query row, one row of scores against the t cached keys and one output row; the full pass computes
    all T rows at once. Their row t-1 must agree (the later tokens do not reach it through the causal mask).
    """
    d_model, h, T = settings.d_model, settings.num_heads, settings.seq_len
    groups = head_groups(h, kv_heads)
    if isinstance(step, bool) or not isinstance(step, int) or not 1 <= step <= T:
        raise ValueError(f"step must be from 1 to seq_len {T}, got {step!r}")
    if isinstance(head, bool) or not isinstance(head, int) or not 0 <= head < h:
        raise ValueError(f"head must be from 0 to {h - 1}, got {head!r}")
    t = step
    x = build_input(1, T, d_model, settings.seed)  # (1, T, d_model)
    model, steps, keys, values = _decoding(d_model, h, settings.seed, kv_heads).upto(t, x)
    trace = steps[-1]  # step t's
    B, h_kv, rows_t, d_k = keys.shape  # (1, h_kv, t, d_k)
    rows = [s.cache_rows for s in steps]
    full_out, full = model.forward_with_trace(x, x, x, causal_mask(T))  # (1, T, d_model)

    kv_head = head // model.kv_group
    toks = tuple(page_tokens(settings))
    seen = Axis("token", toks[:t])
    q_heads_axis = Axis("query_head", tuple(range(h)), tuple(i // model.kv_group for i in range(h)))
    dims = Axis("dim", tuple(range(model.d_k)))
    one = Axis("token", (toks[t - 1],))
    new_row = (Rect(0, t - 1, t, 0, model.d_k, "current"),)  # the row this step appended to the cache
    out_row, full_row = trace.output[0, 0], full_out[0, t - 1]  # (d_model,) each
    w_row, full_w_row = trace.weights[0, :, 0], full.weights[0, :, t - 1, :t]  # (h, t) each
    out_diff = float((out_row - full_row).abs().max())
    w_diff = float((w_row - full_w_row).abs().max())
    cost = decode_macs(d_model, h, kv_heads, t)
    so_far = [decode_macs(d_model, h, kv_heads, s) for s in range(1, t + 1)]
    with_sum, without_sum = sum(c.with_cache for c in so_far), sum(c.without_cache for c in so_far)
    return DecodeView(
        step=t,
        seq_len=T,
        num_heads=h,
        d_model=d_model,
        d_k=model.d_k,
        head=head,
        kv_head=kv_head,
        group=groups[kv_head],
        new_token=toks[t - 1],
        cache_shape=(B, h_kv, rows_t, d_k),
        cache_nbytes=keys.numel() * keys.element_size() + values.numel() * values.element_size(),
        cache_rows=tuple(rows),
        q_row=signed_map("q_row", trace.q_heads[0, :, 0], q_heads_axis, dims),
        k_cache=signed_map("k_cache", keys[0, kv_head], seen, dims, new_row),
        v_cache=signed_map("v_cache", values[0, kv_head], seen, dims, new_row),
        scores_row=signed_map("scores_row", trace.scaled_scores[0, :, 0], q_heads_axis, seen),
        weights_row=weights_map("weights_row", w_row, q_heads_axis, seen),
        full_weights_row=weights_map("full_weights_row", full_w_row, q_heads_axis, seen),
        mask_row=mask_map("mask_row", bottom_right_causal_mask(1, t)[0, 0], one, seen),
        top_left_row=mask_map("top_left_row", top_left_causal_mask(1, t)[0, 0], one, seen),
        output_row=frozen_array(out_row),
        full_output_row=frozen_array(full_row),
        output_max_abs_diff=out_diff,
        weights_max_abs_diff=w_diff,
        equal=out_diff <= DECODE_ATOL and w_diff <= DECODE_ATOL,
        cost=StepCost(t, cost.with_cache, cost.without_cache, cost.saved),
        cost_so_far=StepCost(t, with_sum, without_sum, without_sum - with_sum),
        shared_mask=settings.mask,
        shared_mask_differs=settings.mask != "causal",
    )


@dataclass(frozen=True)
class DecodeShown:
    """What the decode section shows of a view: captions (Text), the cache within a step's budget, the tables."""

    now: Text  # step, position, cache shape and bytes, the head and its group (the page adds the token: `tok`)
    q_row: Text
    k_cache: Heatmap  # the cache's first CACHE_DIMS dims when d_k is wider
    v_cache: Heatmap
    k_caption: tuple[Text, ...]  # the caption, plus "only the first n columns" when cut
    v_caption: tuple[Text, ...]
    scores: Text
    weights: Text
    full_weights: Text
    output: Text
    output_table: Table  # the first OUTPUT_DIMS numbers of the output row: cached step vs full pass
    equal: Text
    cost_title: Text
    costs: tuple[tuple[str, str], ...]  # (label key, value) of this step's multiply-adds: with, without, saved
    so_far: Text
    bottom_right: Text


def decode_shown(view: DecodeView) -> DecodeShown:
    """The section's texts and tables for `view`, and the K/V cache cut to CACHE_DIMS dims."""
    t, h, d_k, d = view.step, view.num_heads, view.d_k, view.d_model
    dims = min(d_k, CACHE_DIMS)
    cut = () if dims == d_k else (text("kv.first_cols", n=dims),)
    n = min(d, OUTPUT_DIMS)
    return DecodeShown(
        now=text(
            "kv.dec.now",
            t=t,
            pos=t - 1,
            shape=str(view.cache_shape),
            bytes=bytes_text(view.cache_nbytes),
            head=view.head,
            kv=view.kv_head,
            group=", ".join(map(str, view.group)),
        ),
        q_row=text("kv.dec.q_row", h=h, dk=d_k),
        k_cache=view.k_cache if dims == d_k else first_columns(view.k_cache, dims),
        v_cache=view.v_cache if dims == d_k else first_columns(view.v_cache, dims),
        k_caption=(text("kv.dec.k_cache", kv=view.kv_head, t=t, dk=d_k), *cut),
        v_caption=(text("kv.dec.v_cache", kv=view.kv_head, t=t, dk=d_k), *cut),
        scores=text("kv.dec.scores", h=h, t=t),
        weights=text("kv.dec.weights", h=h, t=t),
        full_weights=text("kv.dec.full_weights", r=t - 1, t=t),
        output=text("kv.dec.output", n=n, d=d, r=t - 1),
        output_table=(
            Column(text("kv.dec.col.dim"), tuple(str(i) for i in range(n))),
            Column(text("kv.dec.col.cache"), tuple(f"{float(v):.6f}" for v in view.output_row[:n])),
            Column(text("kv.dec.col.full"), tuple(f"{float(v):.6f}" for v in view.full_output_row[:n])),
        ),
        equal=text(
            "kv.dec.equal",
            out=diff_text(view.output_max_abs_diff),
            w=diff_text(view.weights_max_abs_diff),
            tol=f"{DECODE_ATOL:.0e}",
        ),
        cost_title=text("kv.dec.cost.title", t=t),
        costs=(
            ("kv.dec.cost.with", f"{view.cost.with_cache:,}"),
            ("kv.dec.cost.without", f"{view.cost.without_cache:,}"),
            ("kv.dec.cost.saved", f"{view.cost.saved:,}"),
        ),
        so_far=text(
            "kv.dec.cost.so_far",
            t=t,
            w=f"{view.cost_so_far.with_cache:,}",
            wo=f"{view.cost_so_far.without_cache:,}",
            saved=f"{view.cost_so_far.saved:,}",
        ),
        bottom_right=text("kv.dec.mask.bottom_right", t=t),
    )
