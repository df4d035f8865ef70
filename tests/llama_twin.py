"""transformers' eager LlamaAttention holding our model's weights: the reference the KV-cache and RoPE tests
compare our attention with (transformers is a test-only dependency, imported when a test asks for it)."""

from __future__ import annotations

import torch

from core.attention import MultiHeadAttention


def llama_twin(model: MultiHeadAttention, config=None):
    """(LlamaAttention with `model`'s W_q, W_k, W_v, W_o and biases, its config). `config`: a LlamaConfig to use
    (e.g. with RoPE's base); by default a tiny one of the model's sizes."""
    from transformers import LlamaConfig
    from transformers.models.llama.modeling_llama import LlamaAttention

    bias = model.W_q.bias is not None
    if config is None:
        config = LlamaConfig(
            hidden_size=model.d_model,
            num_attention_heads=model.num_heads,
            num_key_value_heads=model.num_kv_heads,
            head_dim=model.d_k,
            attention_bias=bias,
            num_hidden_layers=1,
            intermediate_size=8,
            vocab_size=8,
        )
    config._attn_implementation = "eager"  # the readable path: repeat_kv, matmul, softmax
    llama = LlamaAttention(config, layer_idx=0).eval()
    with torch.no_grad():
        for ours, theirs in (
            (model.W_q, llama.q_proj),
            (model.W_k, llama.k_proj),
            (model.W_v, llama.v_proj),
            (model.W_o, llama.o_proj),
        ):
            theirs.weight.copy_(ours.weight)
            if bias:
                theirs.bias.copy_(ours.bias)
    return llama, config
