"""The same sentence under each kind of position (none, sinusoidal, learned, RoPE): on the app's model and on the
real model's first layer."""

from __future__ import annotations

import torch

from core.attention import MultiHeadAttention
from core.limits import (
    MAX_TEXT_TOKENS,
    check_range,
)
from core.positions.absolute import add_positions, sinusoidal_table
from core.positions.freq_base import ROPE_BASE
from core.positions.rope import rope_attention
from core.pretrained import Pretrained, encoder_layers

POSITION_KINDS = ("none", "sinusoidal", "learned", "rope")


def positioned_weights(
    model: MultiHeadAttention,
    x: torch.Tensor,
    kind: str,
    *,
    base: float = ROPE_BASE,
    table: torch.Tensor | None = None,
    mask: torch.Tensor | None = None,
) -> torch.Tensor:
    """(B, h, T, T): the model's per-head weights on X with positions of one kind.

    none: X as it is (order-blind); sinusoidal: X + sinusoidal_table (base SINUSOID_BASE);
    learned: X + `table` (a learned table as wide as X; the real model's 384-wide one fits no random
    model of the app, see real_first_layer_weights);
    rope: X as it is, q and k turned by position (`base`).
    """
    if kind not in POSITION_KINDS:
        raise ValueError(f"kind must be one of {POSITION_KINDS}, got {kind!r}")
    if kind == "rope":
        return rope_attention(model, x, base=base, mask=mask).weights
    if kind == "sinusoidal":
        x = add_positions(x, sinusoidal_table(x.shape[1], x.shape[2]))
    elif kind == "learned":
        if table is None:
            raise ValueError("kind 'learned' needs the learned table (learned_table(model))")
        x = add_positions(x, table)
    with torch.no_grad():
        _, trace = model.forward_with_trace(x, x, x, mask)
    return trace.weights


def real_first_layer_weights(
    model: Pretrained, ids: torch.Tensor, kind: str, *, base: float = ROPE_BASE
) -> torch.Tensor:
    """(h, T, T) = (12, T, T): the real model's first-layer heads on one sentence, positions of one kind.

    The learned table is 384 wide, so it fits only the real model: this is where the page can show all
    four kinds on the same real sentence and the same trained W^Q, W^K, W^V. The embeddings are built
    as core.pretrained.Embeddings does (token + segment [+ positions], then LayerNorm), then layer 0.
    - learned: exactly the model's own computation (equal to its run, tested).
    - none: no position row added: the model never saw this; the same word twice gets the same row.
    - sinusoidal: the 384-wide sinusoid table in place of the learned one (not what it was trained with).
    - rope: no row added; layer 0's q and k turned by RoPE (d_k = 32) instead (not trained with it either).
    """
    if kind not in POSITION_KINDS:
        raise ValueError(f"kind must be one of {POSITION_KINDS}, got {kind!r}")
    ids = torch.as_tensor(ids).reshape(1, -1)  # (1, T): one sentence, [CLS] ... [SEP]
    T = ids.shape[1]
    check_range("tokens", T, 1, MAX_TEXT_TOKENS)
    emb = model.encoder.embeddings
    attention = encoder_layers(model)[0].attention
    with torch.no_grad():
        x = emb.word(ids) + emb.token_type(torch.zeros_like(ids))  # (1, T, 384)
        if kind == "learned":
            x = x + emb.position(torch.arange(T)[None])  # (1, T, 384): row p at position p
        elif kind == "sinusoidal":
            x = add_positions(x, sinusoidal_table(T, x.shape[-1]))
        x = emb.norm(x)  # (1, T, 384)
        if kind == "rope":
            return rope_attention(attention, x, base=base).weights[0]
        _, trace = attention.forward_with_trace(x, x, x)
    return trace.weights[0]  # (h, T, T)
