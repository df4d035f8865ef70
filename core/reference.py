"""The same computation done by PyTorch's own nn.MultiheadAttention, to prove ours equal."""

from __future__ import annotations

import weakref

import torch

from core.attention import SHARED_MODELS, MultiHeadAttention
from core.frozen import is_frozen
from core.masks import flip_polarity

# The twins of the last KEPT_TWINS read-only models (as many as core.attention.shared_model keeps), made once: their
# weights cannot change under them. At most that many: the server's byte-bounded cache of runs holds the models of
# many seeds, and a twin there would be 4.2 MB a model at 512 that its budget does not count. Only torch_reference
# uses them (a frozen twin's every op would go through core/frozen's checks: 4x slower at 512/16/32), so no shared
# module leaves this file; torch_twin() gives a new one.
KEPT_TWINS = SHARED_MODELS
_TWINS: list[tuple[weakref.ref, torch.nn.MultiheadAttention]] = []  # (the model, its twin), newest first


def _kept_twin(model: MultiHeadAttention) -> torch.nn.MultiheadAttention:
    """torch_twin(model), kept while it is one of the last KEPT_TWINS read-only models (a walkthrough step of seq_len
    checks the same model again)."""
    kept = list(_TWINS)  # one read of the list: other sessions' threads replace it
    for ref, twin in kept:
        if ref() is model:
            return twin
    twin = torch_twin(model)
    if is_frozen(model):
        _TWINS[:] = [(weakref.ref(model), twin), *kept][:KEPT_TWINS]
    return twin


def torch_twin(model: MultiHeadAttention) -> torch.nn.MultiheadAttention:
    """nn.MultiheadAttention holding exactly our weights (its in_proj stacks W_q, W_k, W_v)."""
    if model.num_kv_heads != model.num_heads:  # it has no shared K/V heads; tests use SDPA's enable_gqa
        raise ValueError(
            f"nn.MultiheadAttention needs num_kv_heads = num_heads ({model.num_heads}), got {model.num_kv_heads}"
        )
    bias = model.W_q.bias is not None
    # Made on the meta device (no memory, no random init: every parameter is ours, set below, so a random
    # init would only be overwritten), then given copies of our tensors as parameters.
    twin = torch.nn.MultiheadAttention(model.d_model, model.num_heads, bias=bias, batch_first=True, device="meta")
    P = torch.nn.Parameter
    with torch.no_grad():
        twin.in_proj_weight = P(torch.cat([model.W_q.weight, model.W_k.weight, model.W_v.weight]))
        twin.out_proj.weight = P(model.W_o.weight.clone())
        if bias:
            twin.in_proj_bias = P(torch.cat([model.W_q.bias, model.W_k.bias, model.W_v.bias]))
            twin.out_proj.bias = P(model.W_o.bias.clone())
    return twin.eval()


def torch_reference(
    model: MultiHeadAttention,
    query: torch.Tensor,
    key: torch.Tensor,
    value: torch.Tensor,
    mask: torch.Tensor | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """(output, per-head weights) from nn.MultiheadAttention; its bool mask means True = blocked."""
    B, T_q, T_k = query.shape[0], query.shape[1], key.shape[1]
    attn_mask = None
    if mask is not None:
        m = mask.bool()
        m = m[None, None] if m.dim() == 2 else m
        m = m.expand(B, model.num_heads, T_q, T_k).reshape(B * model.num_heads, T_q, T_k)  # (B*h, T_q, T_k)
        attn_mask = flip_polarity(m)
    with torch.no_grad():
        output, weights = _kept_twin(model)(
            query, key, value, attn_mask=attn_mask, need_weights=True, average_attn_weights=False
        )
    return output, weights  # (B, T_q, d_model), (B, h, T_q, T_k)


def max_abs_diff(a: torch.Tensor, b: torch.Tensor) -> float:
    """Largest |a - b| over the cells where both are numbers (NaN rows are compared as NaN == NaN)."""
    both = ~(torch.isnan(a) & torch.isnan(b))
    return float((a - b)[both].abs().max()) if both.any() else 0.0
