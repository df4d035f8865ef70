"""Generating one token at a time: the KV cache, and the causal mask it needs.

A decoder produces token t+1 from tokens 0..t. Without a cache it runs the whole causal
pass again over all t+1 tokens and keeps the last row. But the keys and values of tokens
0..t-1 do not change when a token is appended (causal: earlier rows never see later ones),
so a decoder keeps them in a cache and, per new token, computes only

    1. its own q, k, v          (one row each: (B, 1, d_model), (B, 1, h_kv*d_k))
    2. split into heads          k, v of the new token appended to the cache: (B, h_kv, t, d_k)
    3. one row of scores          q_heads (B, h, 1, d_k) against every cached key -> (B, h, 1, t)
    4. its output row             (B, 1, d_model)

Shared K/V heads (GQA/MQA, `num_kv_heads` in core/attention.py) shrink the cache to h_kv
heads; the query still has all h heads, each reading its group's K/V head.

The mask: a new query at absolute position t-1 may see keys 0..t-1, i.e. every cached key.
Masks for T_q queries against T_k >= T_q keys must therefore be aligned at the bottom-right
(the last query row sees all keys), not at the top-left as `masks.causal_mask(T_q, T_k)` and
`F.scaled_dot_product_attention(..., is_causal=True)` are: with one query row those let it
see key 0 only. `bottom_right_causal_mask` builds the right one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F

from core.attention import MultiHeadAttention, repeat_kv
from core.limits import KV_CACHE_MAX_TOKENS, check_range
from core.masks import causal_mask
from core.validation import check_kv_heads


def bottom_right_causal_mask(T_q: int, T_k: int) -> torch.Tensor:
    """(1, 1, T_q, T_k) keep-mask for the LAST T_q of T_k positions (seed convention: True = keep).

    Query row i is the token at absolute position T_k - T_q + i, so it keeps keys
    0 .. T_k - T_q + i: the rows are the bottom T_q rows of the full (T_k, T_k) causal mask.
    With T_q = 1 (one decode step) the row keeps every cached key. With T_q = T_k it is
    `masks.causal_mask(T_k)`. (PyTorch's name for this alignment: `causal_lower_right`.)
    """
    T_q = check_range("T_q", T_q, 1, KV_CACHE_MAX_TOKENS)
    T_k = check_range("T_k", T_k, T_q, KV_CACHE_MAX_TOKENS)
    return torch.ones(T_q, T_k, dtype=torch.bool).tril(diagonal=T_k - T_q)[None, None]  # (1, 1, T_q, T_k)


def top_left_causal_mask(T_q: int, T_k: int) -> torch.Tensor:
    """(1, 1, T_q, T_k) the other alignment, for contrast: row i keeps keys 0..i (what is_causal=True does).

    Wrong with a cache: one new query (T_q = 1) would keep key 0 only.
    """
    return causal_mask(T_q, T_k)


def head_groups(num_heads: int, num_kv_heads: int) -> tuple[tuple[int, ...], ...]:
    """The query heads that read each K/V head: ((0, 1), (2, 3)) for h = 4, h_kv = 2."""
    check_kv_heads(num_heads, num_kv_heads)
    group = num_heads // num_kv_heads
    return tuple(tuple(range(j * group, (j + 1) * group)) for j in range(num_kv_heads))


class KVCache:
    """The keys and values of every token seen so far, per K/V head, appended one step at a time.

    `keys` and `values` are (B, h_kv, t, d_k) with t = the tokens seen; each `append` adds the
    new tokens' rows on axis 2 (a real server preallocates the memory; a concatenation shows
    the same growth). At most `max_tokens` tokens (core/limits.py).
    """

    def __init__(self, batch: int, num_kv_heads: int, d_k: int, *, max_tokens: int = KV_CACHE_MAX_TOKENS):
        for name, value in (("batch", batch), ("num_kv_heads", num_kv_heads), ("d_k", d_k)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
        self.max_tokens = check_range("max_tokens", max_tokens, 1, KV_CACHE_MAX_TOKENS)
        self.batch, self.num_kv_heads, self.d_k = batch, num_kv_heads, d_k
        self.keys = torch.empty(batch, num_kv_heads, 0, d_k)  # (B, h_kv, 0, d_k)
        self.values = torch.empty(batch, num_kv_heads, 0, d_k)  # (B, h_kv, 0, d_k)

    @classmethod
    def for_model(cls, model: MultiHeadAttention, batch: int, *, max_tokens: int = KV_CACHE_MAX_TOKENS) -> KVCache:
        """An empty cache shaped for `model`: h_kv = model.num_kv_heads heads of width d_k."""
        return cls(batch, model.num_kv_heads, model.d_k, max_tokens=max_tokens)

    @property
    def length(self) -> int:
        """t: the tokens cached so far."""
        return self.keys.shape[2]

    def __len__(self) -> int:
        return self.length

    @property
    def shape(self) -> tuple[int, int, int, int]:
        """(B, h_kv, t, d_k) of `keys` (and of `values`)."""
        B, h_kv, t, d_k = self.keys.shape
        return B, h_kv, t, d_k

    @property
    def nbytes(self) -> int:
        """Memory of keys and values together: 2 x B x h_kv x t x d_k x bytes per value."""
        return self.keys.numel() * self.keys.element_size() + self.values.numel() * self.values.element_size()

    def check_new(self, k_new: torch.Tensor, v_new: torch.Tensor) -> None:
        """ValueError unless k_new and v_new are (B, h_kv, T_new, d_k) rows that still fit."""
        want = f"(B, h_kv, T_new, d_k) = ({self.batch}, {self.num_kv_heads}, T_new, {self.d_k})"
        for name, t in (("keys", k_new), ("values", v_new)):
            if not isinstance(t, torch.Tensor) or t.dim() != 4:
                raise ValueError(f"new {name} must be a 4-D tensor {want}, got {getattr(t, 'shape', type(t))}")
            B, h_kv, T_new, d_k = t.shape
            if B != self.batch:
                raise ValueError(f"new {name} have batch {B}, the cache holds batch {self.batch}: {want}")
            if (h_kv, d_k) != (self.num_kv_heads, self.d_k) or T_new < 1:
                raise ValueError(f"new {name} must be {want} with T_new >= 1, got {tuple(t.shape)}")
        if k_new.shape != v_new.shape:
            raise ValueError(f"new keys {tuple(k_new.shape)} and values {tuple(v_new.shape)} differ in shape")
        if self.length + k_new.shape[2] > self.max_tokens:
            raise ValueError(
                f"the cache holds at most {self.max_tokens} tokens (limit in core/limits.py); "
                f"{self.length} cached + {k_new.shape[2]} new"
            )

    def append(self, k_new: torch.Tensor, v_new: torch.Tensor) -> None:
        """Add the new tokens' keys and values, (B, h_kv, T_new, d_k) each, after the cached ones."""
        self.check_new(k_new, v_new)
        self.keys = torch.cat([self.keys, k_new.detach()], dim=2)  # (B, h_kv, t + T_new, d_k)
        self.values = torch.cat([self.values, v_new.detach()], dim=2)  # (B, h_kv, t + T_new, d_k)


@dataclass(frozen=True)
class DecodeTrace:
    """Every tensor of one decode step, in the order it is computed (T_new = 1 for one token)."""

    position: int  # absolute position of the first new token (= tokens cached before this step)
    x_new: torch.Tensor  # (B, T_new, d_model)        the new token(s) only
    q: torch.Tensor  # (B, T_new, d_model)           its query
    k_new: torch.Tensor  # (B, T_new, h_kv*d_k)       its key: the only K computed this step
    v_new: torch.Tensor  # (B, T_new, h_kv*d_k)       its value
    q_heads: torch.Tensor  # (B, h, T_new, d_k)
    k_new_heads: torch.Tensor  # (B, h_kv, T_new, d_k)  appended to the cache
    v_new_heads: torch.Tensor  # (B, h_kv, T_new, d_k)
    k_cache: torch.Tensor  # (B, h_kv, t, d_k)         every key so far, t = position + T_new
    v_cache: torch.Tensor  # (B, h_kv, t, d_k)
    k_heads_expanded: torch.Tensor  # (B, h, t, d_k)  the cached K each query head reads
    v_heads_expanded: torch.Tensor  # (B, h, t, d_k)
    mask: torch.Tensor  # (1, 1, T_new, t)            bottom-right causal (one row: all kept)
    scores: torch.Tensor  # (B, h, T_new, t)          the new query row(s) against every cached key
    scaled_scores: torch.Tensor  # (B, h, T_new, t)
    masked_scores: torch.Tensor  # (B, h, T_new, t)
    weights: torch.Tensor  # (B, h, T_new, t)
    head_outputs: torch.Tensor  # (B, h, T_new, d_k)
    concat: torch.Tensor  # (B, T_new, d_model)
    output: torch.Tensor  # (B, T_new, d_model)


def check_step_input(model: MultiHeadAttention, cache: KVCache, x_new: torch.Tensor) -> None:
    """ValueError unless x_new is (B, T_new, d_model) for this model and this cache's batch."""
    if (cache.num_kv_heads, cache.d_k) != (model.num_kv_heads, model.d_k):
        raise ValueError(
            f"the cache holds {cache.num_kv_heads} K/V heads of width {cache.d_k}; the model has "
            f"{model.num_kv_heads} of width {model.d_k}"
        )
    if not isinstance(x_new, torch.Tensor) or x_new.dim() != 3:
        raise ValueError(f"x_new must be a 3-D tensor (B, T_new, d_model), got {getattr(x_new, 'shape', type(x_new))}")
    B, T_new, d_model = x_new.shape
    if d_model != model.d_model:
        raise ValueError(f"x_new has d_model {d_model}, the model expects {model.d_model}")
    if B != cache.batch:
        raise ValueError(f"x_new has batch {B}, the cache holds batch {cache.batch}")
    if T_new < 1:
        raise ValueError("x_new must hold at least one new token (T_new >= 1)")
    if cache.length + T_new > cache.max_tokens:
        raise ValueError(
            f"the cache holds at most {cache.max_tokens} tokens (limit in core/limits.py); "
            f"{cache.length} cached + {T_new} new"
        )


@torch.no_grad()
def decode_step(model: MultiHeadAttention, cache: KVCache, x_new: torch.Tensor) -> tuple[torch.Tensor, DecodeTrace]:
    """Attend from the new token(s) x_new (B, T_new, d_model) to every token so far; grows `cache` by T_new.

    The same four steps as MultiHeadAttention._attend, for the new rows only: returns the output
    (B, T_new, d_model), equal to the last T_new rows of one causal pass over all tokens, and its trace.
    Nothing is changed when the input is refused (ValueError), so the cache stays usable.
    """
    check_step_input(model, cache, x_new)
    B, T_new, _ = x_new.shape
    h, h_kv, d_k = model.num_heads, model.num_kv_heads, model.d_k
    position = cache.length

    # 1. Linear projections of the new token(s) only
    q = model.W_q(x_new)  # (B, T_new, d_model)
    k_new = model.W_k(x_new)  # (B, T_new, h_kv*d_k)
    v_new = model.W_v(x_new)  # (B, T_new, h_kv*d_k)

    # 2. Split into heads, and append the new keys/values to the cache
    q_heads = q.view(B, T_new, h, d_k).transpose(1, 2)  # (B, h, T_new, d_k)
    k_new_heads = k_new.view(B, T_new, h_kv, d_k).transpose(1, 2)  # (B, h_kv, T_new, d_k)
    v_new_heads = v_new.view(B, T_new, h_kv, d_k).transpose(1, 2)  # (B, h_kv, T_new, d_k)
    cache.append(k_new_heads, v_new_heads)
    k_cache, v_cache = cache.keys, cache.values  # (B, h_kv, t, d_k), t = position + T_new
    t = cache.length
    k_heads_expanded = repeat_kv(k_cache, model.kv_group)  # (B, h, t, d_k)
    v_heads_expanded = repeat_kv(v_cache, model.kv_group)  # (B, h, t, d_k)

    # 3. Scaled dot-product attention of the new row(s) against every cached key
    mask = bottom_right_causal_mask(T_new, t)  # (1, 1, T_new, t)
    scores = torch.matmul(q_heads, k_heads_expanded.transpose(-2, -1))  # (B, h, T_new, t)
    scaled_scores = scores / math.sqrt(d_k)
    masked_scores = scaled_scores.masked_fill(mask == 0, model.fill_value)
    weights = F.softmax(masked_scores, dim=-1)  # (B, h, T_new, t), rows sum to 1
    head_outputs = torch.matmul(weights, v_heads_expanded)  # (B, h, T_new, d_k)

    # 4. Concatenate the heads and apply the output projection
    concat = head_outputs.transpose(1, 2).contiguous().view(B, T_new, model.d_model)  # (B, T_new, d_model)
    output = model.W_o(concat)  # (B, T_new, d_model)

    trace = DecodeTrace(
        position,
        x_new,
        q,
        k_new,
        v_new,
        q_heads,
        k_new_heads,
        v_new_heads,
        k_cache,
        v_cache,
        k_heads_expanded,
        v_heads_expanded,
        mask,
        scores,
        scaled_scores,
        masked_scores,
        weights,
        head_outputs,
        concat,
        output,
    )
    return output, trace


def decode_all(
    model: MultiHeadAttention, x: torch.Tensor, *, prefill: int = 0, max_tokens: int = KV_CACHE_MAX_TOKENS
) -> tuple[torch.Tensor, list[DecodeTrace], KVCache]:
    """Run x (B, T, d_model) through a fresh cache: the first `prefill` tokens in one step, then one at a time.

    Returns the outputs (B, T, d_model), one DecodeTrace per step, and the filled cache.
    """
    if not isinstance(x, torch.Tensor) or x.dim() != 3:
        raise ValueError(f"x must be a 3-D tensor (B, T, d_model), got {getattr(x, 'shape', type(x))}")
    T = check_range("T (tokens to decode)", x.shape[1], 1, max_tokens)  # refused before any step
    prefill = check_range("prefill", prefill, 0, T)
    cache = KVCache.for_model(model, x.shape[0], max_tokens=max_tokens)
    starts = ([0] if prefill else []) + list(range(prefill, T))  # where each step's new tokens begin
    outputs, traces = [], []
    for i, start in enumerate(starts):
        end = starts[i + 1] if i + 1 < len(starts) else T
        out, trace = decode_step(model, cache, x[:, start:end])
        outputs.append(out)
        traces.append(trace)
    return torch.cat(outputs, dim=1), traces, cache


@torch.no_grad()
def generate_without_cache(model: MultiHeadAttention, x: torch.Tensor) -> torch.Tensor:
    """What a decoder without a cache does: for each t, one causal pass over tokens 0..t, keeping its last row.

    (B, T, d_model); row t equals decode_all's row t. Costs a full pass per token (accounting.decode_macs).
    """
    if not isinstance(x, torch.Tensor) or x.dim() != 3:
        raise ValueError(f"x must be a 3-D tensor (B, T, d_model), got {getattr(x, 'shape', type(x))}")
    check_range("T (tokens to generate)", x.shape[1], 1, KV_CACHE_MAX_TOKENS)
    rows = []
    for t in range(1, x.shape[1] + 1):
        prefix = x[:, :t]  # (B, t, d_model): everything so far, recomputed
        rows.append(model(prefix, prefix, prefix, causal_mask(t))[:, -1:])  # (B, 1, d_model)
    return torch.cat(rows, dim=1)  # (B, T, d_model)
