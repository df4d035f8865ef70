"""The model: embeddings of token, position and mark -> one MultiHeadAttention -> a linear readout, with the
same initial weights for every head count, and its loss.
"""

from __future__ import annotations

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from core.accounting import weight_count
from core.attention import AttentionTrace, MultiHeadAttention
from lessons.why_heads.task import D_MODEL, SEQ_LEN, VALUE_KINDS, VOCAB


# ---------------------------------------------------------------- the model
class WhyHeadsModel(nn.Module):
    """Token/position/mark embeddings -> one MultiHeadAttention -> linear readout."""

    def __init__(
        self,
        num_heads: int,
        *,
        d_model: int = D_MODEL,
        vocab: int = VOCAB,
        seq_len: int = SEQ_LEN,
        values: str = "token",
    ) -> None:
        super().__init__()
        if values not in VALUE_KINDS:
            raise ValueError(f"values must be one of {VALUE_KINDS}, got {values!r}")
        self.vocab, self.seq_len, self.num_heads, self.values = vocab, seq_len, num_heads, values
        self.token_embedding = nn.Embedding(vocab, d_model)
        self.position_embedding = nn.Embedding(seq_len, d_model)
        self.marker_embedding = nn.Parameter(torch.zeros(d_model))
        self.attention = MultiHeadAttention(d_model, num_heads)
        self.readout = nn.Linear(d_model, 2 * vocab)  # previous digit, marked digit

    def inputs(self, tokens: torch.Tensor, marker: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """x for queries and keys (what, where, marked?) and the values (what only, unless values='full')."""
        B, T = tokens.shape
        what = self.token_embedding(tokens)  # (B, T, d_model)
        is_marked = (torch.arange(T)[None, :] == marker[:, None]).to(what.dtype)  # (B, T)
        x = what + self.position_embedding.weight[:T][None] + is_marked[..., None] * self.marker_embedding
        return x, (what if self.values == "token" else x)

    def _logits(self, out: torch.Tensor) -> torch.Tensor:
        return self.readout(out[:, 1:]).unflatten(-1, (2, self.vocab))  # (B, T-1, 2, V)

    def forward(self, tokens: torch.Tensor, marker: torch.Tensor) -> torch.Tensor:
        x, values = self.inputs(tokens, marker)
        return self._logits(self.attention(x, x, values))

    def forward_with_trace(self, tokens: torch.Tensor, marker: torch.Tensor) -> tuple[torch.Tensor, AttentionTrace]:
        x, values = self.inputs(tokens, marker)
        out, trace = self.attention.forward_with_trace(x, x, values)
        return self._logits(out), trace


def build_why_model(num_heads: int, seed: int, *, values: str = "token") -> WhyHeadsModel:
    """The initial model: its weights depend only on the seed, never on num_heads."""
    model = WhyHeadsModel(num_heads, values=values)
    gen = torch.Generator().manual_seed(int(seed))
    with torch.no_grad():
        for name, p in model.named_parameters():  # same names, shapes and order for every h
            if name.endswith("bias"):
                p.zero_()
            elif "embedding" in name:
                nn.init.normal_(p, 0.0, 1.0, generator=gen)
            else:  # (out, in) weights: nn.Linear's default range
                bound = 1.0 / math.sqrt(p.shape[1])
                nn.init.uniform_(p, -bound, bound, generator=gen)
    return model


def parameter_count(model: nn.Module) -> int:
    return weight_count(model)  # from the layer shapes, frozen or not


def task_loss(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """Mean cross-entropy per answer (nats); a model that guesses scores ln(VOCAB)."""
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))
