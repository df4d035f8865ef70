"""Shapes, parameters and multiply-adds of every step, as plain data for the pages.

The claim this module makes checkable (the seed's "total cost similar to one full-width
head"): with d_k = d_model / h, every matrix product costs the same whatever h is;
only the element-wise work on the (B, h, T_q, T_k) score tensors, and their memory,
grow with h.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.validation import check_model_dims

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


def step_costs(B: int, T_q: int, T_k: int, d_model: int, h: int, *, bias: bool = True,
               masked: bool = True) -> list[StepCost]:
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


def totals(B: int, T_q: int, T_k: int, d_model: int, h: int, *, bias: bool = True,
           masked: bool = True) -> Totals:
    costs = step_costs(B, T_q, T_k, d_model, h, bias=bias, masked=masked)
    return Totals(
        h=h,
        d_k=d_model // h,
        params=sum(c.params for c in costs),
        macs=sum(c.macs for c in costs),
        elementwise=sum(c.elementwise for c in costs),
        weights_bytes=B * h * T_q * T_k * BYTES_PER_FLOAT32,
    )


def totals_over_heads(B: int, T_q: int, T_k: int, d_model: int, **kw) -> list[Totals]:
    """Totals for every valid h (every divisor of d_model)."""
    return [totals(B, T_q, T_k, d_model, h, **kw) for h in range(1, d_model + 1) if d_model % h == 0]


def weight_count(module) -> int:
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
            own = [p for p in sub._parameters.values() if p is not None]
            own += [b for name, b in sub._buffers.items() if b is not None and name in getattr(sub, FROZEN_PARAMETERS, ())]
            total += sum(t.numel() for t in own)
    return total
