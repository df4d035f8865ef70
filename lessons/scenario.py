"""One attention run for the shared settings: the model, the input, the mask and the trace.

Every page that shows the random-weights example gets it from here, so all pages (and
every student's laptop) show the same numbers for the same settings.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from core.attention import AttentionTrace, MultiHeadAttention, build_input, shared_model
from core.masks import FILL_SEED, causal_mask, custom_mask, mask_from_text, padding_mask_from_lengths
from lessons.settings import Settings
from lessons.tokens import tokens as sentence_tokens

PAD = "[PAD]"


def padding_length(seq_len: int) -> int:
    """Real tokens in the padding example: the last quarter (at least one token) is padding."""
    return seq_len - max(1, seq_len // 4)


def default_custom_grid(T_q: int, T_k: int) -> torch.Tensor:
    """The hand-drawn mask before anyone draws: a local window, each query sees itself and 2 neighbours back."""
    i = torch.arange(T_q)[:, None]
    j = torch.arange(T_k)[None, :]
    return (j <= i) & (j >= i - 2)  # (T_q, T_k)


def settings_mask(kind: str, T_q: int, T_k: int, custom_text: str | None = None) -> torch.Tensor | None:
    """The mask for a shared-settings kind, in the seed's convention (True = keep).

    A custom mask comes from its URL text; text that does not fit (T changed, garbage)
    falls back to the default grid instead of failing.
    """
    if kind == "causal":
        return causal_mask(T_q, T_k)
    if kind == "padding":
        return padding_mask_from_lengths([padding_length(T_k)], T_k)
    if kind == "custom":
        try:
            grid = mask_from_text(custom_text, T_q, T_k) if custom_text else default_custom_grid(T_q, T_k)
        except ValueError:
            grid = default_custom_grid(T_q, T_k)
        return custom_mask(grid)
    return None


@dataclass(frozen=True)
class Scenario:
    settings: Settings
    tokens: list[str]  # labels of the T positions ([PAD] where padding)
    x: torch.Tensor  # (1, T, d_model)
    model: MultiHeadAttention
    mask: torch.Tensor | None  # seed convention, broadcastable to (1, h, T, T)
    trace: AttentionTrace


def run(settings: Settings, *, custom_text: str | None = None, fill_value: float = FILL_SEED) -> Scenario:
    T = settings.seq_len
    toks = sentence_tokens(T, settings.lang)
    if settings.mask == "padding":
        real = padding_length(T)
        toks = toks[:real] + [PAD] * (T - real)
    # read-only and shared by every run of (d_model, h, seed): a step of T or the mask does not build it again
    model = shared_model(settings.d_model, settings.num_heads, settings.seed, fill_value)
    x = build_input(1, T, settings.d_model, settings.seed)  # (1, T, d_model)
    mask = settings_mask(settings.mask, T, T, custom_text)
    with torch.no_grad():
        _, trace = model.forward_with_trace(x, x, x, mask)  # self-attention: query = key = value = X
    return Scenario(settings, toks, x, model, mask, trace)
