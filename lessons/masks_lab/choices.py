"""The page's choices and the mask they make: which masks combine, the padding defaults, the hand-drawn grid
(parsed from its text, edited by a button or a click), and a mask shown in either polarity.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence

import torch

from core.limits import MAX_GRID_CHARS
from core.masks import (
    FILL_VALUES,
    causal_mask,
    combine,
    custom_mask,
    flip_polarity,
    mask_from_text,
    mask_to_text,
    padding_mask_from_lengths,
)
from lessons.scenario import default_custom_grid, padding_length

PARTS = ("causal", "padding", "custom")  # the masks that can be combined (AND)
EXTRA_PARTS = ("causal", "padding")  # offered on the page on top of the sidebar's kind
POLARITIES = ("keep", "block")  # what a 1 / True means: the seed's "keep", or many libraries' "block"
FILLS = tuple(FILL_VALUES)  # ("-1e9", "-inf")
BATCHES = (1, 2)
DEFAULT_T_K = 5
CROSS_SEED_OFFSET = 7919  # the key/value sequence of cross-attention: same seed, another stream
GRID_ACTIONS = ("all_on", "all_off", "causal", "invert")


SECTIONS = ("grid", "row", "full", "polarity")  # the page's lazy tabs, in the order of a lesson


# ------------------------------------------------------------------ choices -> mask
def mask_parts(kind: str, extra: Iterable[str] | None = ()) -> tuple[str, ...]:
    """The masks combined for the sidebar kind plus the page's extra choices, in PARTS order."""
    chosen = {kind, *(extra or ())}
    return tuple(p for p in PARTS if p in chosen)


def default_padding(T_k: int) -> int:
    """Trailing padding tokens in a batch of one (as in the shared padding example: the last quarter)."""
    return T_k - padding_length(T_k)


def default_lengths(T_k: int) -> tuple[int, int]:
    """Real lengths of a batch of two: the longest sentence sets T_k, the other is padded."""
    return T_k, max(1, T_k // 2)


def parse_grid(text: str | None, T_q: int, T_k: int) -> tuple[torch.Tensor, bool]:
    """(T_q, T_k) keep-grid from its URL text, and whether the text fitted.

    No text means the default grid (fits); text of the wrong size or with other characters
    falls back to the default grid and reports False, never raises.
    """
    if not text:
        return default_custom_grid(T_q, T_k), True
    if len(str(text)) > MAX_GRID_CHARS:  # longer than any grid: not even split
        return default_custom_grid(T_q, T_k), False
    try:
        return mask_from_text(text, T_q, T_k), True
    except ValueError:
        return default_custom_grid(T_q, T_k), False


def edit_grid(text: str | None, T_q: int, T_k: int, action: str, cell: tuple[int, int] | None = None) -> str:
    """The grid text after a button ('all_on', 'all_off', 'causal', 'invert') or 'toggle' of one cell."""
    grid, _ = parse_grid(text, T_q, T_k)
    if action == "all_on":
        grid = torch.ones(T_q, T_k, dtype=torch.bool)
    elif action == "all_off":
        grid = torch.zeros(T_q, T_k, dtype=torch.bool)
    elif action == "causal":
        grid = causal_mask(T_q, T_k)[0, 0]
    elif action == "invert":
        grid = ~grid
    elif action == "toggle":
        if cell is None:
            raise ValueError("'toggle' needs the cell to toggle")
        r, c = cell
        if not (0 <= r < T_q and 0 <= c < T_k):
            raise ValueError(f"cell {cell} is outside the {T_q}x{T_k} grid")
        grid = grid.clone()
        grid[r, c] = ~grid[r, c]
    else:
        raise ValueError(f"unknown grid action {action!r}")
    return mask_to_text(grid)


def assemble_mask(
    parts: Collection[str],
    T_q: int,
    T_k: int,
    lengths: Sequence[int] | None = None,
    custom_grid: torch.Tensor | None = None,
) -> torch.Tensor | None:
    """The keep-mask (seed convention) for the chosen parts, (B, 1, T_q, T_k) or None for no mask."""
    pieces: list[torch.Tensor] = []
    if "causal" in parts:
        pieces.append(causal_mask(T_q, T_k))  # (1, 1, T_q, T_k)
    if "padding" in parts:
        if lengths is None:
            raise ValueError("a padding mask needs the real lengths")
        pieces.append(padding_mask_from_lengths(list(lengths), T_k))  # (B, 1, 1, T_k)
    if "custom" in parts:
        if custom_grid is None:
            raise ValueError("a custom mask needs its grid")
        pieces.append(custom_mask(custom_grid))  # (1, 1, T_q, T_k)
    mask = combine(*pieces)
    if mask is None:
        return None
    return mask.expand(mask.shape[0], 1, T_q, T_k)  # (B, 1, T_q, T_k)


def shown_values(keep: torch.Tensor, polarity: str) -> torch.Tensor:
    """The 1/0 numbers stored in the mask tensor under a polarity: 'keep' 1 = keep, 'block' 1 = blocked."""
    keep = keep.bool()
    return (keep if polarity == "keep" else flip_polarity(keep)).int()
