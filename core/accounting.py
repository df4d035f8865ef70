"""Shapes, parameters and multiply-adds of every step, as plain data for the pages.

The claim this module makes checkable (the seed's "total cost similar to one full-width
head"): with d_k = d_model / h, every matrix product costs the same whatever h is;
only the element-wise work on the (B, h, T_q, T_k) score tensors, and their memory,
grow with h.

The serving section at the end counts what shared K/V heads (GQA/MQA) and the KV cache change:
cache bytes, W_k/W_v parameters, multiply-adds per generated token, and real models' sizes (PRESETS).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from core.validation import check_kv_heads, check_model_dims, divisors

if TYPE_CHECKING:  # torch is imported only by weight_count, when it is called
    from torch import Tensor, nn

BYTES_PER_FLOAT32 = 4


@dataclass(frozen=True)
class Shape:
    axes: tuple[str, ...]  # named axes, e.g. ("B", "h", "T_q", "d_k")
    sizes: tuple[int, ...]  # live numbers, e.g. (1, 4, 8, 16)

    def text(self) -> str:
        """'(B, h, T_q, d_k) = (1, 4, 8, 16)'."""
        return f"({', '.join(self.axes)}) = ({', '.join(str(s) for s in self.sizes)})"

    @property
    def numel(self) -> int:
        n = 1
        for s in self.sizes:
            n *= s
        return n


@dataclass(frozen=True)
class StepCost:
    step: str  # the trace field this step produces
    params: int  # learned numbers used by the step
    macs: int  # multiply-adds of matrix products
    elementwise: int  # other per-element operations (scale, mask, softmax), one per element


def tensor_shapes(B: int, T_q: int, T_k: int, d_model: int, h: int) -> dict[str, Shape]:
    """The shape of every field of AttentionTrace, plus the input x."""
    check_model_dims(d_model, h)
    d_k = d_model // h
    S = Shape
    return {
        "x": S(("B", "T_q", "d_model"), (B, T_q, d_model)),
        "q": S(("B", "T_q", "d_model"), (B, T_q, d_model)),
        "k": S(("B", "T_k", "d_model"), (B, T_k, d_model)),
        "v": S(("B", "T_k", "d_model"), (B, T_k, d_model)),
        "q_heads": S(("B", "h", "T_q", "d_k"), (B, h, T_q, d_k)),
        "k_heads": S(("B", "h", "T_k", "d_k"), (B, h, T_k, d_k)),
        "v_heads": S(("B", "h", "T_k", "d_k"), (B, h, T_k, d_k)),
        "scores": S(("B", "h", "T_q", "T_k"), (B, h, T_q, T_k)),
        "scaled_scores": S(("B", "h", "T_q", "T_k"), (B, h, T_q, T_k)),
        "masked_scores": S(("B", "h", "T_q", "T_k"), (B, h, T_q, T_k)),
        "weights": S(("B", "h", "T_q", "T_k"), (B, h, T_q, T_k)),
        "head_outputs": S(("B", "h", "T_q", "d_k"), (B, h, T_q, d_k)),
        "concat": S(("B", "T_q", "d_model"), (B, T_q, d_model)),
        "output": S(("B", "T_q", "d_model"), (B, T_q, d_model)),
    }


def step_costs(
    B: int, T_q: int, T_k: int, d_model: int, h: int, *, bias: bool = True, masked: bool = True
) -> list[StepCost]:
    """Parameters, multiply-adds and element-wise operations per step, in computation order."""
    check_model_dims(d_model, h)
    d_k = d_model // h
    linear_params = d_model * d_model + (d_model if bias else 0)
    grid = B * h * T_q * T_k  # elements of one (B, h, T_q, T_k) tensor
    return [
        StepCost("q", linear_params, B * T_q * d_model * d_model, 0),
        StepCost("k", linear_params, B * T_k * d_model * d_model, 0),
        StepCost("v", linear_params, B * T_k * d_model * d_model, 0),
        StepCost("q_heads", 0, 0, 0),  # a view: no arithmetic
        StepCost("k_heads", 0, 0, 0),
        StepCost("v_heads", 0, 0, 0),
        StepCost("scores", 0, B * h * T_q * T_k * d_k, 0),  # = B*T_q*T_k*d_model for any h
        StepCost("scaled_scores", 0, 0, grid),
        StepCost("masked_scores", 0, 0, grid if masked else 0),
        StepCost("weights", 0, 0, grid),  # counted as one op per element; exp+sum+divide in practice
        StepCost("head_outputs", 0, B * h * T_q * T_k * d_k, 0),
        StepCost("concat", 0, 0, 0),  # a copy, no arithmetic
        StepCost("output", linear_params, B * T_q * d_model * d_model, 0),
    ]


@dataclass(frozen=True)
class Totals:
    h: int
    d_k: int
    params: int
    macs: int
    elementwise: int
    weights_bytes: int  # memory of the attention weights alone (grows with h)


def totals(B: int, T_q: int, T_k: int, d_model: int, h: int, *, bias: bool = True, masked: bool = True) -> Totals:
    costs = step_costs(B, T_q, T_k, d_model, h, bias=bias, masked=masked)
    return Totals(
        h=h,
        d_k=d_model // h,
        params=sum(c.params for c in costs),
        macs=sum(c.macs for c in costs),
        elementwise=sum(c.elementwise for c in costs),
        weights_bytes=B * h * T_q * T_k * BYTES_PER_FLOAT32,
    )


def totals_over_heads(B: int, T_q: int, T_k: int, d_model: int, **kw: bool) -> list[Totals]:
    """Totals for every valid h (every divisor of d_model)."""
    return [totals(B, T_q, T_k, d_model, h, **kw) for h in range(1, d_model + 1) if d_model % h == 0]


# ---------------------------------------------------------------- serving: the KV cache, shared K/V heads
BYTES_PER_FLOAT16 = 2  # fp16 / bf16: how the presets below are published and usually served


@dataclass(frozen=True)
class ModelPreset:
    """The attention sizes of a published model that decide its KV cache."""

    name: str
    layers: int  # decoder layers, each with its own cache
    heads: int  # query heads h
    kv_heads: int  # K/V heads h_kv (= heads: MHA; 1: MQA; in between: GQA)
    head_dim: int  # d_k
    d_model: int  # hidden size (heads x head_dim for all five)
    source: str  # where the numbers are published
    max_context: int | None = None  # the longest context it was built for (None: no fixed limit, see the preset)
    sliding_window: int | None = None  # attends to the last `sliding_window` tokens only: a rolling cache that size

    @property
    def attention(self) -> str:
        return "MHA" if self.kv_heads == self.heads else "MQA" if self.kv_heads == 1 else "GQA"

    def fits(self, tokens: int) -> bool:
        """Whether a context of `tokens` is within the model's maximum context."""
        return self.max_context is None or tokens <= self.max_context

    def cached_tokens(self, tokens: int) -> int:
        """Tokens the KV cache holds after a context of `tokens`: all of them, or the last `sliding_window` of them
        (a rolling buffer: Mistral 7B overwrites position i mod W, Jiang et al. 2023, section 2)."""
        return tokens if self.sliding_window is None else min(tokens, self.sliding_window)


# Every number is read from the model's own config.json on its Hugging Face hub page (the URL in
# `source`); the gated Meta and Mistral repositories were checked through public copies of the
# same config.json that name them as their origin. head_dim = hidden_size / num_attention_heads.
PRESETS: tuple[ModelPreset, ...] = (
    # openai-community/gpt2 config.json: "n_layer": 12, "n_head": 12, "n_embd": 768 (768 / 12 = 64),
    # "n_positions": 1024 (its learned position table has 1,024 rows: no longer context exists);
    # GPT-2 has no K/V sharing (Radford et al. 2019).
    ModelPreset(
        "GPT-2 small",
        12,
        12,
        12,
        64,
        768,
        "https://huggingface.co/openai-community/gpt2/blob/main/config.json",
        max_context=1024,
    ),
    # meta-llama/Llama-2-7b-hf config.json: "num_hidden_layers": 32, "num_attention_heads": 32,
    # "num_key_value_heads": 32, "hidden_size": 4096 (4096 / 32 = 128), "max_position_embeddings": 4096.
    # GQA only in the 70B (Touvron et al. 2023).
    ModelPreset(
        "Llama-2-7B",
        32,
        32,
        32,
        128,
        4096,
        "https://huggingface.co/meta-llama/Llama-2-7b-hf/blob/main/config.json",
        max_context=4096,
    ),
    # meta-llama/Meta-Llama-3-8B config.json: "num_hidden_layers": 32, "num_attention_heads": 32,
    # "num_key_value_heads": 8, "hidden_size": 4096 (128 per head; k_proj is 4096 -> 1024 = 8 x 128),
    # "max_position_embeddings": 8192.
    ModelPreset(
        "Llama-3-8B",
        32,
        32,
        8,
        128,
        4096,
        "https://huggingface.co/meta-llama/Meta-Llama-3-8B/blob/main/config.json",
        max_context=8192,
    ),
    # mistralai/Mistral-7B-v0.1 config.json: "num_hidden_layers": 32, "num_attention_heads": 32,
    # "num_key_value_heads": 8, "hidden_size": 4096, "sliding_window": 4096; its params.json: "head_dim": 128
    # (Jiang et al. 2023, Table 1). Each layer attends to the last 4,096 tokens only, so its rolling buffer cache
    # never holds more than 4,096 tokens (section 2 of the paper); the window moves along, so no fixed context
    # limit is set here (the paper's "theoretical attention span" over 32 layers is about 131k tokens).
    ModelPreset(
        "Mistral-7B",
        32,
        32,
        8,
        128,
        4096,
        "https://huggingface.co/mistralai/Mistral-7B-v0.1/blob/main/config.json",
        sliding_window=4096,
    ),
    # tiiuae/falcon-7b config.json: "n_layer": 32, "n_head": 71, "hidden_size": 4544 (4544 / 71 = 64),
    # "multi_query": true -> one K/V head (transformers' FalconAttention: num_kv_heads = 1 when multi_query).
    # Its model card: trained with a sequence length of 2,048 tokens (its config.json names no maximum).
    ModelPreset(
        "Falcon-7B",
        32,
        71,
        1,
        64,
        4544,
        "https://huggingface.co/tiiuae/falcon-7b/blob/main/config.json",
        max_context=2048,
    ),
)
PRESET_BY_NAME = {p.name: p for p in PRESETS}


def _non_negative(**values: int) -> None:
    for name, v in values.items():
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise ValueError(f"{name} must be a non-negative integer, got {v!r}")


def kv_cache_bytes(
    layers: int, kv_heads: int, head_dim: int, tokens: int, batch: int = 1, bytes_per_value: int = BYTES_PER_FLOAT16
) -> int:
    """2 (K and V) x layers x h_kv x d_k x tokens x batch x bytes per value."""
    _non_negative(
        layers=layers, kv_heads=kv_heads, head_dim=head_dim, tokens=tokens, batch=batch, bytes_per_value=bytes_per_value
    )
    return 2 * layers * kv_heads * head_dim * tokens * batch * bytes_per_value


def preset_cache_bytes(
    preset: ModelPreset,
    tokens: int,
    batch: int = 1,
    bytes_per_value: int = BYTES_PER_FLOAT16,
    kv_heads: int | None = None,
) -> int:
    """KV cache of a preset after a context of `tokens` (optionally as if it had `kv_heads` K/V heads instead of its
    own): a sliding window caps the tokens it holds (`cached_tokens`). Whether the model takes that context at all
    is `preset.fits(tokens)`: the formula does not say."""
    h_kv = preset.kv_heads if kv_heads is None else kv_heads
    return kv_cache_bytes(preset.layers, h_kv, preset.head_dim, preset.cached_tokens(tokens), batch, bytes_per_value)


def kv_projection_params(d_model: int, num_heads: int, num_kv_heads: int, *, bias: bool = True) -> int:
    """Learned numbers of W_k and W_v together: 2 x (d_model x h_kv*d_k + h_kv*d_k if bias)."""
    check_model_dims(d_model, num_heads)
    check_kv_heads(num_heads, num_kv_heads)
    width = num_kv_heads * (d_model // num_heads)  # h_kv * d_k outputs
    return 2 * (d_model * width + (width if bias else 0))


def kv_shapes(B: int, T_k: int, d_model: int, h: int, h_kv: int) -> dict[str, Shape]:
    """The K/V tensors of a model with h_kv K/V heads (the other fields are as in tensor_shapes)."""
    check_model_dims(d_model, h)
    check_kv_heads(h, h_kv)
    d_k = d_model // h
    S = Shape
    return {
        "k": S(("B", "T_k", "h_kv*d_k"), (B, T_k, h_kv * d_k)),
        "v": S(("B", "T_k", "h_kv*d_k"), (B, T_k, h_kv * d_k)),
        "k_heads": S(("B", "h_kv", "T_k", "d_k"), (B, h_kv, T_k, d_k)),
        "v_heads": S(("B", "h_kv", "T_k", "d_k"), (B, h_kv, T_k, d_k)),
        "k_heads_expanded": S(("B", "h", "T_k", "d_k"), (B, h, T_k, d_k)),
        "v_heads_expanded": S(("B", "h", "T_k", "d_k"), (B, h, T_k, d_k)),
    }


@dataclass(frozen=True)
class DecodeCost:
    """Multiply-adds of the attention layer to produce the output of token t (t tokens so far, it included)."""

    t: int
    with_cache: int  # project the new token only, one row of scores against t cached keys
    without_cache: int  # rerun the causal pass over all t tokens (every row, as a multi-layer model must)

    @property
    def saved(self) -> int:
        return self.without_cache - self.with_cache


def decode_macs(d_model: int, num_heads: int, num_kv_heads: int, t: int, *, batch: int = 1) -> DecodeCost:
    """Matrix-product multiply-adds per generated token, with and without the KV cache.

    With: W_q and W_o on one row (2 d^2), W_k and W_v on one row (2 d h_kv d_k), one score row and one
    weighted sum over t keys (2 t d): linear in t. Without: the same for all t rows, and the full
    t x t scores: 2 t d^2 + 2 t d h_kv d_k + 2 t^2 d, quadratic in t. (d = d_model = h d_k.)
    """
    check_model_dims(d_model, num_heads)
    check_kv_heads(num_heads, num_kv_heads)
    _non_negative(t=t, batch=batch)
    d, kv_width = d_model, num_kv_heads * (d_model // num_heads)
    per_row = 2 * d * d + 2 * d * kv_width  # projections of one token: W_q, W_o and W_k, W_v
    with_cache = batch * (per_row + 2 * t * d)  # + q_heads @ K^T (h x t x d_k) and weights @ V
    without_cache = batch * (t * per_row + 2 * t * t * d)
    return DecodeCost(t, with_cache, without_cache)


@dataclass(frozen=True)
class KVSharing:
    """One choice of h_kv for a model of d_model, h: what it costs to keep and to learn."""

    kv_heads: int
    group: int  # query heads per K/V head
    kv_params: int  # W_k + W_v
    cache_bytes: int  # one layer, `tokens` tokens


def kv_sharing_over_heads(
    d_model: int,
    num_heads: int,
    tokens: int,
    *,
    batch: int = 1,
    layers: int = 1,
    bytes_per_value: int = BYTES_PER_FLOAT32,
    bias: bool = True,
) -> list[KVSharing]:
    """Every valid h_kv (the divisors of h), from MQA (1) to MHA (h)."""
    check_model_dims(d_model, num_heads)
    d_k = d_model // num_heads
    return [
        KVSharing(
            h_kv,
            num_heads // h_kv,
            kv_projection_params(d_model, num_heads, h_kv, bias=bias),
            kv_cache_bytes(layers, h_kv, d_k, tokens, batch, bytes_per_value),
        )
        for h_kv in divisors(num_heads)
    ]


def weight_count(module: nn.Module) -> int:
    """The learned numbers of a torch module, counted from its layers' shapes.

    Why not `sum(p.numel() for p in module.parameters())`: a model shared by every session is frozen
    (core/frozen.py turns its parameters into read-only buffers), and a frozen model's parameters() is
    empty, so it would count 0. nn.Linear is in·out (+ out for the bias), nn.Embedding n·d, nn.LayerNorm
    its shape per affine tensor; any other module's own parameters (or the buffers that were parameters
    before freezing) are counted as they are.
    """
    import torch.nn as nn

    from core.frozen import FROZEN_PARAMETERS

    total = 0
    for sub in module.modules():
        if isinstance(sub, nn.Linear):
            total += sub.in_features * sub.out_features + (sub.out_features if sub.bias is not None else 0)
        elif isinstance(sub, nn.Embedding):
            total += sub.num_embeddings * sub.embedding_dim
        elif isinstance(sub, nn.LayerNorm):
            n = 1
            for size in sub.normalized_shape:
                n *= size
            total += n * ((sub.weight is not None) + (sub.bias is not None))
        else:
            own: list[Tensor] = [p for p in sub._parameters.values() if p is not None]
            frozen = getattr(sub, FROZEN_PARAMETERS, ())
            own += [b for name, b in sub._buffers.items() if b is not None and name in frozen]
            total += sum(t.numel() for t in own)
    return total
