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
  The app's inputs (randn, weights of nn.Linear's range) are nowhere near this.
- Blocked cells with the seed's fill -1e9 get weight exactly 0 as long as the row keeps at least one
  key whose score is above about -1e9 + 100; a fully blocked row is uniform 1/T_k (see core/masks.py).
  With fill -inf, a blocked cell is always exactly 0, and a fully blocked row is NaN.
- h = d_model (d_k = 1): every head works on one column and is scaled by sqrt(1) = 1; same maths.
- T = 1: the single key gets weight 1 (if it is not blocked).
- T_q != T_k (cross-attention): scores and weights are (B, h, T_q, T_k); the output has T_q rows.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

import torch
import torch.nn as nn
import torch.nn.functional as F

from core.validation import check_mask, check_model_dims

# The seed fills blocked cells with -1e9; -inf is the other common choice (see core/masks.py).
SEED_FILL_VALUE = -1e9


@dataclass(frozen=True)
class AttentionTrace:
    """Every tensor of one attention call, in the order it is computed."""

    q: torch.Tensor  # (B, T_q, d_model)   Q = X W^Q
    k: torch.Tensor  # (B, T_k, d_model)   K = X W^K
    v: torch.Tensor  # (B, T_k, d_model)   V = X W^V
    q_heads: torch.Tensor  # (B, h, T_q, d_k)  after view + transpose
    k_heads: torch.Tensor  # (B, h, T_k, d_k)
    v_heads: torch.Tensor  # (B, h, T_k, d_k)
    scores: torch.Tensor  # (B, h, T_q, T_k)  Q K^T
    scaled_scores: torch.Tensor  # (B, h, T_q, T_k)  Q K^T / sqrt(d_k)
    masked_scores: torch.Tensor  # (B, h, T_q, T_k)  blocked cells set to the fill value
    weights: torch.Tensor  # (B, h, T_q, T_k)  softmax over the keys
    head_outputs: torch.Tensor  # (B, h, T_q, d_k)  weights @ V
    concat: torch.Tensor  # (B, T_q, d_model)  heads side by side
    output: torch.Tensor  # (B, T_q, d_model)  concat W^O

    @classmethod
    def names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in fields(cls))


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model: int, num_heads: int, *, bias: bool = True,
                 fill_value: float = SEED_FILL_VALUE):
        super().__init__()
        check_model_dims(d_model, num_heads)
        self.d_model = d_model
        self.num_heads = num_heads
        self.d_k = d_model // num_heads  # each head's query/key/value width
        self.fill_value = fill_value

        # One d_model x d_model projection per role holds all heads: head i owns columns
        # i*d_k .. (i+1)*d_k of the output, which is its W_i^Q (see head_projection).
        self.W_q = nn.Linear(d_model, d_model, bias=bias)
        self.W_k = nn.Linear(d_model, d_model, bias=bias)
        self.W_v = nn.Linear(d_model, d_model, bias=bias)
        self.W_o = nn.Linear(d_model, d_model, bias=bias)

    def forward(self, query, key, value, mask=None):
        return self._attend(query, key, value, mask, keep=None)

    def forward_with_trace(self, query, key, value, mask=None):
        keep: dict[str, torch.Tensor] = {}
        output = self._attend(query, key, value, mask, keep=keep)
        return output, AttentionTrace(**keep)

    def _attend(self, query, key, value, mask, keep):
        B, T_q, _ = query.shape
        T_k = key.shape[1]
        if mask is not None:
            mask = check_mask(mask, B, self.num_heads, T_q, T_k)
        h, d_k = self.num_heads, self.d_k

        # 1. Linear projections
        q = self.W_q(query)  # (B, T_q, d_model)
        k = self.W_k(key)  # (B, T_k, d_model)
        v = self.W_v(value)  # (B, T_k, d_model)

        # 2. Split into heads: the last axis is cut into h blocks of d_k columns,
        # then heads move next to the batch so each head is its own matrix product.
        q_heads = q.view(B, T_q, h, d_k).transpose(1, 2)  # (B, h, T_q, d_k)
        k_heads = k.view(B, T_k, h, d_k).transpose(1, 2)  # (B, h, T_k, d_k)
        v_heads = v.view(B, T_k, h, d_k).transpose(1, 2)  # (B, h, T_k, d_k)

        # 3. Scaled dot-product attention, every head at once
        scores = torch.matmul(q_heads, k_heads.transpose(-2, -1))  # (B, h, T_q, T_k)
        scaled_scores = scores / math.sqrt(d_k)  # keeps the softmax out of saturation
        if mask is not None:
            masked_scores = scaled_scores.masked_fill(mask == 0, self.fill_value)
        else:
            masked_scores = scaled_scores
        weights = F.softmax(masked_scores, dim=-1)  # (B, h, T_q, T_k), rows sum to 1
        head_outputs = torch.matmul(weights, v_heads)  # (B, h, T_q, d_k)

        # 4. Concatenate the heads and apply the output projection
        concat = head_outputs.transpose(1, 2).contiguous().view(B, T_q, self.d_model)  # (B, T_q, d_model)
        output = self.W_o(concat)  # (B, T_q, d_model)

        if keep is not None:
            keep.update(q=q, k=k, v=v, q_heads=q_heads, k_heads=k_heads, v_heads=v_heads,
                        scores=scores, scaled_scores=scaled_scores, masked_scores=masked_scores,
                        weights=weights, head_outputs=head_outputs, concat=concat, output=output)
        return output

    def head_projection(self, role: str, head: int) -> tuple[torch.Tensor, torch.Tensor | None]:
        """W_i and b_i of one head for role 'q', 'k' or 'v': a block of rows of the big layer.

        nn.Linear stores its weight as (out, in), so the seed's column block
        W^Q[:, i*d_k:(i+1)*d_k] is weight[i*d_k:(i+1)*d_k, :] here; returned as (d_model, d_k).
        """
        layers = {"q": self.W_q, "k": self.W_k, "v": self.W_v}
        if role not in layers:
            raise ValueError(f"role must be one of {sorted(layers)}, got {role!r}")
        layer = layers[role]
        if not 0 <= head < self.num_heads:
            raise ValueError(f"head must be in 0..{self.num_heads - 1}, got {head}")
        rows = slice(head * self.d_k, (head + 1) * self.d_k)
        w = layer.weight[rows, :].T  # (d_model, d_k)
        b = None if layer.bias is None else layer.bias[rows]  # (d_k,)
        return w, b


def build_model(d_model: int, num_heads: int, seed: int, *, bias: bool = True,
                fill_value: float = SEED_FILL_VALUE) -> MultiHeadAttention:
    """A model whose weights depend only on (d_model, seed), never on num_heads.

    Same seed, same W^Q, W^K, W^V, W^O whatever h is: moving the heads slider only
    re-splits the same projections, which is exactly what the lesson wants to show.
    """
    model = MultiHeadAttention(d_model, num_heads, bias=bias, fill_value=fill_value)
    gen = torch.Generator().manual_seed(int(seed))
    bound = 1.0 / math.sqrt(d_model)  # nn.Linear's own default range
    with torch.no_grad():
        for layer in (model.W_q, model.W_k, model.W_v, model.W_o):
            layer.weight.copy_(torch.empty(d_model, d_model).uniform_(-bound, bound, generator=gen))
            bias_values = torch.empty(d_model).uniform_(-bound, bound, generator=gen)
            if layer.bias is not None:
                layer.bias.copy_(bias_values)
    model.eval()
    return model


def build_input(batch: int, seq_len: int, d_model: int, seed: int) -> torch.Tensor:
    """The input X, (B, T, d_model), from the seed alone (a different stream than the weights)."""
    gen = torch.Generator().manual_seed(int(seed) + 1_000_003)
    return torch.randn(batch, seq_len, d_model, generator=gen)  # (B, T, d_model)
