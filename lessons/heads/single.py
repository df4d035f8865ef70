"""The "single" section: the same input through h = 1 and through h heads (`single_vs_multi`), how sharply each
head looks (`head_focus`, drawn as HTML bars by charts/diagrams.py's `focus_html`, also in the grid section), and
the section's numbers (`single_range`, `single_focus`, `single_heads`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch

from core.accounting import weight_count
from core.attention import AttentionTrace, MultiHeadAttention, shared_model
from lessons.heads.heatmaps import data_range
from lessons.heads.keys import PER_PAGE, page_of_heads


@dataclass(frozen=True)
class SingleVsMulti:
    single: AttentionTrace  # h = 1, d_k = d_model
    multi: AttentionTrace  # the current h
    same_weights: bool  # W^Q, W^K, W^V, W^O (and biases) identical in both models
    params_single: int
    params_multi: int


def single_vs_multi(
    model: MultiHeadAttention,
    x: torch.Tensor,
    mask: torch.Tensor | None,
    seed: int,
    multi: AttentionTrace | None = None,
) -> SingleVsMulti:
    """The same X (and mask) through one full-width head and through `model`'s h heads, same weights."""
    # read-only and kept (core.attention.shared_model): a step of T builds no model again
    one = shared_model(model.d_model, 1, seed, model.fill_value, bias=model.W_q.bias is not None)
    with torch.no_grad():
        _, single = one.forward_with_trace(x, x, x, mask)
        if multi is None:
            _, multi = model.forward_with_trace(x, x, x, mask)
    same = all(torch.equal(a, b) for a, b in zip(one.state_dict().values(), model.state_dict().values()))
    return SingleVsMulti(single, multi, same, weight_count(one), weight_count(model))  # frozen or not: the shapes


def head_focus(weights: torch.Tensor) -> torch.Tensor:
    """(h,) how sharply each head looks: the mean over queries of the row's largest weight.

    1 = every query attends to one key; 1/T_k = spread evenly. `weights` is (h, T_q, T_k); NaN rows are skipped.
    """
    top = weights.detach().float().amax(dim=-1)  # (h, T_q)
    return torch.nanmean(top, dim=-1)


def single_range(sv: SingleVsMulti) -> tuple[float, float]:
    """One colour range for the full-width head and the h heads."""
    return data_range(torch.cat([sv.single.weights[0], sv.multi.weights[0]]))


def single_focus(single_w: torch.Tensor, focus: torch.Tensor) -> dict[str, float]:
    """The full-width head's focus (`one`) beside the least and most focused of the h heads (`lo`, `hi`)."""
    return {"one": float(head_focus(single_w)[0]), "lo": float(focus.min()), "hi": float(focus.max())}


def single_heads(pick: Sequence[int], h: int) -> list[int]:
    """The heads the one-vs-many section draws: those picked in the grid (sorted, at most PER_PAGE), else the
    first page."""
    picks = sorted(i for i in pick if 0 <= i < h)
    return (picks or page_of_heads(h, 0, PER_PAGE))[:PER_PAGE]
