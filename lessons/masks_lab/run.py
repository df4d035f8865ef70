"""The attention run for the page's choices (self- or cross-attention, a batch of one or two) and what it
promises: blocked cells weigh 0, the same weights as nn.MultiheadAttention, a fully blocked row explained.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypedDict

import torch
import torch.nn.functional as F

from core.attention import AttentionTrace, MultiHeadAttention, build_input, shared_model
from core.limits import SEQ_LEN_MAX, SEQ_LEN_MIN, T_K_MAX, T_K_MIN, check_range
from core.masks import FILL_VALUES, full_grid, fully_blocked_rows, mask_to_text
from core.reference import max_abs_diff, torch_reference
from lessons.masks_lab.choices import BATCHES, CROSS_SEED_OFFSET, FILLS, assemble_mask
from lessons.scenario import PAD
from lessons.settings import Settings
from lessons.tokens import tokens as sentence_tokens


# ------------------------------------------------------------------ labels
def _words(lang: str, start: int, n: int) -> list[str]:
    return sentence_tokens(start + n, lang)[start:]


def other_lang(lang: str) -> str:
    return "en" if lang == "zh" else "zh"


# ------------------------------------------------------------------ the run
@dataclass(frozen=True)
class LabSetup:
    parts: tuple[str, ...]
    T_q: int
    T_k: int
    cross: bool = False
    lengths: tuple[int, ...] | None = None  # real key lengths per sequence (padding only)
    custom_grid: torch.Tensor | None = None  # (T_q, T_k) keep-grid (custom only)
    fill: str = "-1e9"

    def __post_init__(self) -> None:
        """Sizes within core/limits.py, or a clear ValueError (the page clamps before it gets here)."""
        check_range("T_q", self.T_q, SEQ_LEN_MIN, SEQ_LEN_MAX)
        check_range("T_k", self.T_k, T_K_MIN, T_K_MAX)
        if self.lengths is not None and len(self.lengths) not in BATCHES:
            raise ValueError(f"a batch has {BATCHES} sequences, got {len(self.lengths)} lengths")
        if self.fill not in FILLS:
            raise ValueError(f"fill must be one of {FILLS}, got {self.fill!r}")

    @property
    def batch(self) -> int:
        return len(self.lengths) if self.lengths is not None and "padding" in self.parts else 1

    @property
    def cache_key(self) -> tuple:
        """Everything run_lab reads of the choices, hashable (the grid as its text): a shared cache's key."""
        grid = None if self.custom_grid is None else mask_to_text(self.custom_grid)
        return (self.parts, self.T_q, self.T_k, self.cross, self.lengths, grid, self.fill)


@dataclass(frozen=True)
class LabRun:
    setup: LabSetup
    model: MultiHeadAttention
    x: torch.Tensor  # (B, T_q, d_model)   the queries' sequence
    kv: torch.Tensor  # (B, T_k, d_model)  the keys'/values' sequence (X itself in self-attention)
    mask: torch.Tensor | None  # (B, 1, T_q, T_k) keep-mask, or None
    trace: AttentionTrace
    keep: torch.Tensor  # (B, T_q, T_k) the mask drawn per sequence (all True without a mask)
    blocked_rows: torch.Tensor  # (B, T_q) queries that may attend to no key
    nan_rows: torch.Tensor  # (B, T_q) queries whose output has NaN
    q_labels: list[list[str]]  # per sequence
    k_labels: list[list[str]]

    @property
    def batch(self) -> int:
        return self.x.shape[0]


def run_lab(settings: Settings, setup: LabSetup) -> LabRun:
    """One attention call for the page's choices. Never raises for a fully blocked row."""
    B, T_q, T_k = setup.batch, setup.T_q, setup.T_k
    if not setup.cross and T_q != T_k:
        raise ValueError(f"self-attention needs T_q == T_k, got {T_q} and {T_k}")
    lengths: list[int] | None = None
    if "padding" in setup.parts:
        if setup.lengths is None:
            raise ValueError("a padding mask needs the real lengths")
        lengths = [min(max(int(n), 0), T_k) for n in setup.lengths]
    mask = assemble_mask(setup.parts, T_q, T_k, lengths, setup.custom_grid)
    # read-only and shared (core.attention.shared_model): a step of T, or another choice of masks, builds no model
    model = shared_model(settings.d_model, settings.num_heads, settings.seed, FILL_VALUES[setup.fill])
    x = build_input(B, T_q, settings.d_model, settings.seed)  # (B, T_q, d_model); sequence 0 is the shared X
    kv = build_input(B, T_k, settings.d_model, settings.seed + CROSS_SEED_OFFSET) if setup.cross else x
    with torch.no_grad():
        output, trace = model.forward_with_trace(x, kv, kv, mask)
    keep = full_grid(mask, B, T_q, T_k)  # (B, T_q, T_k)
    q_labels: list[list[str]] = []
    k_labels: list[list[str]] = []
    for b in range(B):
        q = _words(settings.lang, b * T_q, T_q)
        k = _words(other_lang(settings.lang), b * T_k, T_k) if setup.cross else list(q)
        if lengths is not None:
            k = [tok if j < lengths[b] else PAD for j, tok in enumerate(k)]
            if not setup.cross:
                q = list(k)  # self-attention: the padded positions are queries too
        q_labels.append(q)
        k_labels.append(k)
    return LabRun(
        setup,
        model,
        x,
        kv,
        mask,
        trace,
        keep,
        fully_blocked_rows(mask, B, T_q, T_k),
        torch.isnan(output).any(dim=-1),
        q_labels,
        k_labels,
    )


def blocked_cells_ok(run: LabRun) -> bool:
    """The promise of a mask: every blocked cell has weight exactly 0, or NaN in a fully blocked -inf row."""
    w = run.trace.weights  # (B, h, T_q, T_k)
    blocked = ~run.keep[:, None]  # (B, 1, T_q, T_k)
    full = run.blocked_rows[:, None, :, None]  # (B, 1, T_q, 1)
    zero = (w == 0) & blocked & ~full
    if run.setup.fill == "-inf":
        nan_ok = torch.isnan(w) & full
    else:
        nan_ok = (w - 1.0 / w.shape[-1]).abs() < 1e-6  # -1e9: the fully blocked row is uniform
        nan_ok = nan_ok & full
    return bool((zero | nan_ok | ~blocked.expand_as(w)).all())


def reference_diff(run: LabRun) -> float:
    """The largest difference between the lab's weights and torch's own nn.MultiheadAttention given the same
    weights and the same mask (converted to its True = blocked convention): 0 up to float rounding."""
    return max_abs_diff(run.trace.weights, torch_reference(run.model, run.x, run.kv, run.kv, run.mask)[1])


# ------------------------------------------------------------------ a fully blocked row
@dataclass(frozen=True)
class FullRowDemo:
    seq: int
    query: int
    actual: bool  # True: this row really is fully blocked; False: a "what if" on this row
    scaled: torch.Tensor  # (T_k,) the row's scores / sqrt(d_k)
    masked: dict[str, torch.Tensor]  # fill text -> (T_k,) masked row
    weights: dict[str, torch.Tensor]  # fill text -> (T_k,) softmax of it
    shifted: dict[str, torch.Tensor]  # fill text -> (T_k,) masked - row max (what exp() sees inside the softmax)


def full_row_demo(run: LabRun, head: int) -> FullRowDemo:
    """The first fully blocked row of the run (or query 0 if none) under both fill values."""
    hits = run.blocked_rows.nonzero().tolist()
    seq, query = hits[0] if hits else (0, 0)
    scaled = run.trace.scaled_scores[seq, head, query]  # (T_k,)
    masked: dict[str, torch.Tensor] = {}
    weights: dict[str, torch.Tensor] = {}
    shifted: dict[str, torch.Tensor] = {}
    for name, value in FILL_VALUES.items():
        row = torch.full_like(scaled, value)  # every key blocked
        masked[name] = row
        weights[name] = F.softmax(row, dim=-1)
        with torch.no_grad():
            shifted[name] = row - row.max()
    return FullRowDemo(seq, query, bool(hits), scaled, masked, weights, shifted)


class BlockedCheck(TypedDict):
    """What blocked_check measures."""

    blocked: int
    total: int
    checked: int
    largest: float | None


def blocked_check(run: LabRun, head: int) -> BlockedCheck:
    """What the page's check line says: how many cells are blocked, and the largest weight on a blocked
    cell of a row that still sees a key (0 is the promise of a mask), in head `head` and over all heads."""
    w = run.trace.weights  # (B, h, T_q, T_k)
    blocked = ~run.keep[:, None].expand_as(w)  # (B, h, T_q, T_k)
    outside_full = blocked & ~run.blocked_rows[:, None, :, None]  # blocked cells of rows that still see a key
    return {
        "blocked": int((~run.keep).sum()),
        "total": run.keep.numel(),
        "checked": int(outside_full[:, head].sum()),
        "largest": float(w[outside_full].abs().max()) if outside_full.any() else None,
    }
