"""1. Attention is blind to order: the same model on X and on a shuffled X (`permutation_run`), the permutations
and their checks. core/positions/__init__.py tells the whole story."""

from __future__ import annotations

from dataclasses import dataclass

import torch

from core.attention import AttentionTrace, MultiHeadAttention
from core.limits import (
    SEQ_LEN_MAX,
    SEQ_LEN_MIN,
    SHUFFLE_SEED_MAX,
    SHUFFLE_SEED_MIN,
    check_range,
)


def random_permutation(T: int, seed: int) -> torch.Tensor:
    """(T,) a shuffle of 0..T-1 from `seed` alone (the page's shuffle button puts the seed in the URL).

    Never the identity when T >= 2: a "shuffle" that moves nothing would show nothing. If the
    random draw happens to be the identity, it is rolled by one place instead.
    """
    check_range("T", T, SEQ_LEN_MIN, SEQ_LEN_MAX)
    check_range("shuffle seed", seed, SHUFFLE_SEED_MIN, SHUFFLE_SEED_MAX)
    gen = torch.Generator().manual_seed(seed)
    perm = torch.randperm(T, generator=gen)  # (T,)
    if torch.equal(perm, torch.arange(T)):
        perm = torch.roll(perm, 1)
    return perm


def check_permutation(perm: torch.Tensor, T: int) -> torch.Tensor:
    """`perm` as a (T,) long tensor holding each of 0..T-1 exactly once, or ValueError."""
    perm = torch.as_tensor(perm)
    if perm.dim() != 1 or perm.numel() != T or perm.dtype.is_floating_point or perm.dtype == torch.bool:
        raise ValueError(
            f"a permutation of {T} tokens must be {T} integers, got shape {tuple(perm.shape)} of {perm.dtype}"
        )
    perm = perm.long()
    if not torch.equal(torch.sort(perm).values, torch.arange(T)):
        raise ValueError(f"a permutation must hold each of 0..{T - 1} exactly once, got {perm.tolist()}")
    return perm


def inverse_permutation(perm: torch.Tensor) -> torch.Tensor:
    """(T,) the shuffle that undoes `perm`: x[:, perm][:, inverse] == x."""
    return torch.argsort(perm)


@dataclass(frozen=True)
class PermutationRun:
    """The same model on X and on X with its rows shuffled; `perm[i]` is the original row now at row i.

    Without a mask, attention is permutation-equivariant:
        output_shuffled[i]      == output[perm[i]]
        weights_shuffled[i, j]  == weights[perm[i], perm[j]]   (every head)
    so un-shuffling the second run gives back the first: `output_gap` and `weights_gap` are 0 up to
    float error (~1e-7). With a causal mask they are not: the mask stays with the positions.
    """

    perm: torch.Tensor  # (T,)
    x: torch.Tensor  # (B, T, d_model)
    x_shuffled: torch.Tensor  # (B, T, d_model)  x[:, perm]
    mask: torch.Tensor | None  # the same mask for both runs (it belongs to positions, not to tokens)
    trace: AttentionTrace  # the run on x
    trace_shuffled: AttentionTrace  # the run on x_shuffled

    @property
    def output_unshuffled(self) -> torch.Tensor:
        """(B, T, d_model): the shuffled run's output with its rows put back in the original order."""
        return self.trace_shuffled.output[:, inverse_permutation(self.perm)]

    @property
    def weights_unshuffled(self) -> torch.Tensor:
        """(B, h, T, T): the shuffled run's weights with query rows and key columns put back."""
        inv = inverse_permutation(self.perm)
        return self.trace_shuffled.weights[:, :, inv][:, :, :, inv]

    @property
    def output_gap(self) -> float:
        """max |output - un-shuffled output of the shuffled run| (0 up to float error without a mask)."""
        return float((self.output_unshuffled - self.trace.output).abs().max())

    @property
    def weights_gap(self) -> float:
        """max |weights - un-shuffled weights of the shuffled run|, over every head."""
        return float((self.weights_unshuffled - self.trace.weights).abs().max())


def permutation_run(
    model: MultiHeadAttention,
    x: torch.Tensor,
    perm: torch.Tensor,
    mask: torch.Tensor | None = None,
    trace: AttentionTrace | None = None,
) -> PermutationRun:
    """Self-attention on X and on X[:, perm], both traced, with the same optional mask.

    Why both runs and not a formula: the page's claim is about *this* code, so it runs it twice. `trace`: this same
    call's run on X (`model.forward_with_trace(x, x, x, mask)`) when the caller has already made it (the lesson's
    scenario, whose own run it is): it is not made a second time.
    """
    if x.dim() != 3:
        raise ValueError(f"x must be (B, T, d_model), got shape {tuple(x.shape)}")
    perm = check_permutation(perm, x.shape[1])
    x_shuffled = x[:, perm]  # (B, T, d_model): row i is the original row perm[i]
    with torch.no_grad():
        if trace is None:
            _, trace = model.forward_with_trace(x, x, x, mask)
        _, trace_shuffled = model.forward_with_trace(x_shuffled, x_shuffled, x_shuffled, mask)
    return PermutationRun(perm=perm, x=x, x_shuffled=x_shuffled, mask=mask, trace=trace, trace_shuffled=trace_shuffled)
