"""Multi-head attention from scratch, shaped like the seed text's PyTorch outline.

`forward` returns the output, like the seed. `forward_with_trace` runs the very same
code and also keeps every intermediate tensor, by name, in an `AttentionTrace`.
The four numbered steps below are the seed's four steps.

Numerical edge cases (defined results, tested in tests/test_numeric_edges.py):
- Huge but finite scores (e.g. inputs or weights of 1e4): the softmax subtracts each row's maximum
  first, so the weights stay finite, in [0, 1], and each row sums to 1; a row whose top score is far
  above the rest becomes one-hot (weight exactly 1 on the top key, 0 elsewhere).
- Scores that overflow float32 (|Q K^T| > 3.4e38, e.g. inputs of 1e30): they become +-inf or NaN
  (inf - inf inside the dot product), and a row holding NaN or +inf gives NaN weights; rows whose
  scores are all finite are unaffected. Nothing raises; `torch.isfinite(trace.scores)` tells.
  The app's inputs (randn, weights N(0, 1/d_model): scores of a few times sqrt(d_k)) are nowhere near this.
- Blocked cells with the seed's fill -1e9 get weight exactly 0 as long as the row keeps at least one
  key whose score is above about -1e9 + 100; a fully blocked row is uniform 1/T_k (see core/masks.py).
  With fill -inf, a blocked cell is always exactly 0, and a fully blocked row is NaN.
- h = d_model (d_k = 1): every head works on one column and is scaled by sqrt(1) = 1; same maths.
- T = 1: the single key gets weight 1 (if it is not blocked).
- T_q != T_k (cross-attention): scores and weights are (B, h, T_q, T_k); the output has T_q rows.

Shared K/V heads (`num_kv_heads`, default None = num_heads = the seed's MHA, unchanged):
W_k and W_v project to num_kv_heads * d_k columns only, and each group of
num_heads // num_kv_heads neighbouring query heads reads the same K/V head
(grouped-query attention, GQA; num_kv_heads = 1 is multi-query attention, MQA).
Q, the scores, the weights and the output keep all h heads; only K and V (and the
KV cache, core/kv_cache.py) shrink.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field, fields

import torch
import torch.nn as nn
import torch.nn.functional as F

from core.frozen import freeze_module
from core.validation import check_kv_heads, check_mask, check_model_dims

# The seed fills blocked cells with -1e9; -inf is the other common choice (see core/masks.py).
SEED_FILL_VALUE = -1e9


@dataclass(frozen=True)
class AttentionTrace:
    """Every tensor of one attention call, in the order it is computed."""

    q: torch.Tensor  # (B, T_q, d_model)   Q = X W^Q
    k: torch.Tensor  # (B, T_k, d_model)   K = X W^K  ((B, T_k, h_kv*d_k) with shared K/V heads)
    v: torch.Tensor  # (B, T_k, d_model)   V = X W^V
    q_heads: torch.Tensor  # (B, h, T_q, d_k)  after view + transpose
    k_heads: torch.Tensor  # (B, h_kv, T_k, d_k)  h_kv = num_kv_heads (= h for the seed's MHA)
    v_heads: torch.Tensor  # (B, h_kv, T_k, d_k)
    # The K/V each query head actually reads: K/V head j repeated for its group of query heads.
    # For MHA (h_kv = h) these are k_heads / v_heads themselves. Views, not steps: names() leaves them out.
    k_heads_expanded: torch.Tensor = field(metadata={"view": True})  # (B, h, T_k, d_k)
    v_heads_expanded: torch.Tensor = field(metadata={"view": True})  # (B, h, T_k, d_k)
    scores: torch.Tensor  # (B, h, T_q, T_k)  Q K^T
    scaled_scores: torch.Tensor  # (B, h, T_q, T_k)  Q K^T / sqrt(d_k)
    masked_scores: torch.Tensor  # (B, h, T_q, T_k)  blocked cells set to the fill value
    weights: torch.Tensor  # (B, h, T_q, T_k)  softmax over the keys
    head_outputs: torch.Tensor  # (B, h, T_q, d_k)  weights @ V
    concat: torch.Tensor  # (B, T_q, d_model)  heads side by side
    output: torch.Tensor  # (B, T_q, d_model)  concat W^O

    @classmethod
    def names(cls) -> tuple[str, ...]:
        """The 13 computed steps, in order (what the pages, the exports and the accounting list)."""
        return tuple(f.name for f in fields(cls) if not f.metadata.get("view"))


def repeat_kv(heads: torch.Tensor, group: int) -> torch.Tensor:
    """(B, h_kv, T, d_k) -> (B, h_kv * group, T, d_k): K/V head j serves query heads j*group .. (j+1)*group - 1.

    The same order as transformers' `repeat_kv` and `F.scaled_dot_product_attention(enable_gqa=True)`.
    With group 1 (plain MHA) the tensor itself is returned: nothing is copied.
    """
    if group == 1:
        return heads
    return heads.repeat_interleave(group, dim=1)  # (B, h, T, d_k)


def kv_head_rows(num_heads: int, num_kv_heads: int, d_k: int) -> torch.Tensor:
    """Which rows of a full d_model x d_model W^K / W^V build_model keeps: those of each group's first head.

    (h_kv * d_k,) row indices; K/V head j is the MHA's K/V head j * group. For MHA: all rows, in order.
    """
    group = num_heads // num_kv_heads
    leaders = torch.arange(num_kv_heads) * group  # (h_kv,) the first query head of each group
    return (leaders[:, None] * d_k + torch.arange(d_k)[None, :]).reshape(-1)  # (h_kv * d_k,)


class MultiHeadAttention(nn.Module):
    def __init__(
        self,
        d_model: int,
        num_heads: int,
        *,
        num_kv_heads: int | None = None,
        bias: bool = True,
        fill_value: float = SEED_FILL_VALUE,
        device: torch.device | str | None = None,
    ):
        super().__init__()
        check_model_dims(d_model, num_heads)
        num_kv_heads = num_heads if num_kv_heads is None else check_kv_heads(num_heads, num_kv_heads)
        self.d_model = d_model
        self.num_heads = num_heads
        self.num_kv_heads = num_kv_heads  # h_kv: h = MHA, 1 = MQA, in between = GQA
        self.kv_group = num_heads // num_kv_heads  # query heads per K/V head
        self.d_k = d_model // num_heads  # each head's query/key/value width
        self.fill_value = fill_value

        # One d_model x d_model projection per role holds all heads: head i owns columns
        # i*d_k .. (i+1)*d_k of the output, which is its W_i^Q (see head_projection).
        # W_k and W_v hold only the h_kv K/V heads: h_kv * d_k outputs (= d_model for MHA).
        # (`device`: as for nn.Linear; "meta" builds the layers without memory or random init, for build_model.)
        self.W_q = nn.Linear(d_model, d_model, bias=bias, device=device)
        self.W_k = nn.Linear(d_model, num_kv_heads * self.d_k, bias=bias, device=device)
        self.W_v = nn.Linear(d_model, num_kv_heads * self.d_k, bias=bias, device=device)
        self.W_o = nn.Linear(d_model, d_model, bias=bias, device=device)

    def forward(
        self, query: torch.Tensor, key: torch.Tensor, value: torch.Tensor, mask: torch.Tensor | None = None
    ) -> torch.Tensor:
        return self._attend(query, key, value, mask, keep=None)

    def forward_with_trace(
        self, query: torch.Tensor, key: torch.Tensor, value: torch.Tensor, mask: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, AttentionTrace]:
        keep: dict[str, torch.Tensor] = {}
        output = self._attend(query, key, value, mask, keep=keep)
        return output, AttentionTrace(**keep)

    def _attend(
        self,
        query: torch.Tensor,
        key: torch.Tensor,
        value: torch.Tensor,
        mask: torch.Tensor | None,
        keep: dict[str, torch.Tensor] | None,
    ) -> torch.Tensor:
        B, T_q, _ = query.shape
        T_k = key.shape[1]
        if mask is not None:
            mask = check_mask(mask, B, self.num_heads, T_q, T_k)
        h, h_kv, d_k = self.num_heads, self.num_kv_heads, self.d_k

        # 1. Linear projections
        q = self.W_q(query)  # (B, T_q, d_model)
        k = self.W_k(key)  # (B, T_k, h_kv*d_k)  = (B, T_k, d_model) for MHA, where h_kv = h
        v = self.W_v(value)  # (B, T_k, h_kv*d_k)

        # 2. Split into heads: the last axis is cut into h blocks of d_k columns,
        # then heads move next to the batch so each head is its own matrix product.
        q_heads = q.view(B, T_q, h, d_k).transpose(1, 2)  # (B, h, T_q, d_k)
        k_heads = k.view(B, T_k, h_kv, d_k).transpose(1, 2)  # (B, h_kv, T_k, d_k)  MHA: h_kv = h
        v_heads = v.view(B, T_k, h_kv, d_k).transpose(1, 2)  # (B, h_kv, T_k, d_k)
        # Each group of kv_group query heads reads one K/V head (MHA: kv_group = 1, no copy).
        k_heads_expanded = repeat_kv(k_heads, self.kv_group)  # (B, h, T_k, d_k)
        v_heads_expanded = repeat_kv(v_heads, self.kv_group)  # (B, h, T_k, d_k)

        # 3. Scaled dot-product attention, every head at once
        scores = torch.matmul(q_heads, k_heads_expanded.transpose(-2, -1))  # (B, h, T_q, T_k); MHA: k_heads
        scaled_scores = scores / math.sqrt(d_k)  # keeps the softmax out of saturation
        if mask is not None:
            masked_scores = scaled_scores.masked_fill(mask == 0, self.fill_value)
        else:
            masked_scores = scaled_scores
        weights = F.softmax(masked_scores, dim=-1)  # (B, h, T_q, T_k), rows sum to 1
        head_outputs = torch.matmul(weights, v_heads_expanded)  # (B, h, T_q, d_k); MHA: v_heads

        # 4. Concatenate the heads and apply the output projection
        concat = head_outputs.transpose(1, 2).contiguous().view(B, T_q, self.d_model)  # (B, T_q, d_model)
        output = self.W_o(concat)  # (B, T_q, d_model)

        if keep is not None:
            keep.update(
                q=q,
                k=k,
                v=v,
                q_heads=q_heads,
                k_heads=k_heads,
                v_heads=v_heads,
                k_heads_expanded=k_heads_expanded,
                v_heads_expanded=v_heads_expanded,
                scores=scores,
                scaled_scores=scaled_scores,
                masked_scores=masked_scores,
                weights=weights,
                head_outputs=head_outputs,
                concat=concat,
                output=output,
            )
        return output

    def head_projection(self, role: str, head: int) -> tuple[torch.Tensor, torch.Tensor | None]:
        """W_i and b_i of one head for role 'q', 'k' or 'v': a block of rows of the big layer.

        nn.Linear stores its weight as (out, in), so the seed's column block
        W^Q[:, i*d_k:(i+1)*d_k] is weight[i*d_k:(i+1)*d_k, :] here; returned as (d_model, d_k).
        For 'k' and 'v', `head` counts K/V heads (0..num_kv_heads-1; query head i reads i // kv_group).
        """
        layers = {"q": self.W_q, "k": self.W_k, "v": self.W_v}
        if role not in layers:
            raise ValueError(f"role must be one of {sorted(layers)}, got {role!r}")
        layer = layers[role]
        count = self.num_heads if role == "q" else self.num_kv_heads
        if not 0 <= head < count:
            raise ValueError(f"head must be in 0..{count - 1}, got {head}")
        rows = slice(head * self.d_k, (head + 1) * self.d_k)
        w = layer.weight[rows, :].T  # (d_model, d_k)
        b = None if layer.bias is None else layer.bias[rows]  # (d_k,)
        return w, b


def weight_std(d_model: int) -> float:
    """The standard deviation build_model draws every weight with: N(0, 1/d_model).

    The ÷sqrt(d_k) argument (Vaswani et al. 2017, footnote 4) assumes q and k have components of mean 0 and
    variance 1; then Var(q·k) = d_k. For X with unit-variance components, a weight row of variance 1/d_model
    gives each q and k component variance d_model * (1/d_model) = 1 (plus the small bias). nn.Linear's own
    U(-1/sqrt(d_model), 1/sqrt(d_model)) has a third of that: components of variance 1/3, Var(q·k) = d_k/9,
    scaled scores with standard deviation 1/3, and every softmax row almost uniform (weights ~ 1/T).
    """
    return 1.0 / math.sqrt(d_model)


@functools.lru_cache(maxsize=2)
def _drawn_weights(d_model: int, seed: int) -> tuple[tuple[torch.Tensor, torch.Tensor], ...]:
    """The (weight, bias) of W_q, W_k, W_v, W_o as build_model draws them from `seed`, in that order. Kept for the
    last two (d_model, seed): a step of T, h or the mask draws the same weights again, and at d_model = 512 the draw
    (four 512 x 512 normals) was 6.6 ms of a 512/16/32 step's script run (benchmarks/README.md). 4.2 MB each."""
    gen = torch.Generator().manual_seed(seed)
    std = weight_std(d_model)
    bound = 1.0 / math.sqrt(d_model)  # the biases: nn.Linear's own default range (variance 1 / (3 d_model))
    drawn = []
    for _ in range(4):
        weight = torch.empty(d_model, d_model).normal_(0.0, std, generator=gen)
        bias_values = torch.empty(d_model).uniform_(-bound, bound, generator=gen)  # drawn even without bias
        drawn.append((weight, bias_values))
    return tuple(drawn)


def build_model(
    d_model: int,
    num_heads: int,
    seed: int,
    *,
    num_kv_heads: int | None = None,
    bias: bool = True,
    fill_value: float = SEED_FILL_VALUE,
) -> MultiHeadAttention:
    """A model whose weights depend only on (d_model, seed), never on num_heads.

    Weights N(0, 1/d_model) (weight_std: q and k get unit-variance components, the assumption behind
    ÷sqrt(d_k)), biases U(-1/sqrt(d_model), 1/sqrt(d_model)) as nn.Linear draws them.

    Same seed, same W^Q, W^K, W^V, W^O whatever h is: moving the heads slider only
    re-splits the same projections, which is exactly what the lesson wants to show.

    With num_kv_heads = h_kv < h, W^Q and W^O are still the MHA's, and W^K / W^V (h_kv*d_k rows)
    are the MHA's rows of each group's first query head (kv_head_rows): K/V head j = the MHA's
    K/V head j*group. So lowering h_kv only drops K/V heads, the first head of every group
    computes what it did in MHA (to float32 rounding), and the others now read their leader's K and V.
    (The GQA paper converts a trained model by mean-pooling each group instead; keeping one head
    makes every number traceable to the MHA run.)
    """
    # The layers are made on the meta device (no memory, no random init) and get the drawn tensors below as
    # their parameters: nn.Linear's own init, overwritten at once, was ~15 % of a 512/16 walkthrough step.
    model = MultiHeadAttention(
        d_model, num_heads, num_kv_heads=num_kv_heads, bias=bias, fill_value=fill_value, device="meta"
    )
    # (h_kv*d_k,) rows of each group's leader; None for MHA (all rows in order: the whole draw)
    kv_rows = kv_head_rows(num_heads, model.num_kv_heads, model.d_k) if model.num_kv_heads != num_heads else None
    layers = (model.W_q, None), (model.W_k, kv_rows), (model.W_v, kv_rows), (model.W_o, None)
    for (layer, rows), (weight, bias_values) in zip(layers, _drawn_weights(d_model, int(seed))):
        # a copy each: the draw is kept for the next model, which an in-place change must not reach
        weight, bias_values = (
            (weight[rows], bias_values[rows]) if rows is not None else (weight.clone(), bias_values.clone())
        )
        layer.weight = nn.Parameter(weight)
        if layer.bias is not None:
            layer.bias = nn.Parameter(bias_values)
    model.eval()
    return model


# shared_model keeps this many (4.2 MB each at 512); core/reference keeps their twins alike. Four: a page may read
# two at once (the kv-cache page's GQA model beside the MHA's, the heads page's one-head model beside the run's) and
# the Masks lab's fill may differ from the walkthrough's, so two were evicted by every second page's step.
SHARED_MODELS = 4


def shared_model(
    d_model: int,
    num_heads: int,
    seed: int,
    fill_value: float = SEED_FILL_VALUE,
    *,
    num_kv_heads: int | None = None,
    bias: bool = True,
) -> MultiHeadAttention:
    """build_model's model, read-only (core/frozen.py), kept for the last SHARED_MODELS
    (d_model, h, seed, fill_value, h_kv, bias).

    The model does not depend on T or the mask, and a class steps seq_len most: building it again for every new T
    (the layers, a copy of the draw, then the frozen copy of that) was ~3 ms of a 512/16/32 walkthrough step's
    server run, and its torch twin (core/reference.py, kept with it) ~1.5 ms more (benchmarks/README.md). Read-only
    because it is shared: by every run of these settings and by every session of the server. Not for a timing: its
    every op goes through core/frozen's checks (lessons/*/timing.py build their own)."""
    kv = None if num_kv_heads is None or int(num_kv_heads) == int(num_heads) else int(num_kv_heads)
    # one key however it is called
    return _shared_model(int(d_model), int(num_heads), int(seed), float(fill_value), kv, bool(bias))


@functools.lru_cache(maxsize=SHARED_MODELS)
def _shared_model(
    d_model: int, num_heads: int, seed: int, fill_value: float, kv: int | None, bias: bool
) -> MultiHeadAttention:
    model = build_model(d_model, num_heads, seed, fill_value=fill_value, num_kv_heads=kv, bias=bias)
    freeze_module(model)  # in place
    return model


def build_input(batch: int, seq_len: int, d_model: int, seed: int) -> torch.Tensor:
    """The input X, (B, T, d_model), from the seed alone (a different stream than the weights)."""
    gen = torch.Generator().manual_seed(int(seed) + 1_000_003)
    return torch.randn(batch, seq_len, d_model, generator=gen)  # (B, T, d_model)
