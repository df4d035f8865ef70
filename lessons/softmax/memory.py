"""Section "tiles", its last table: the memory and traffic of the plain and the tiled path for the current T and the
long contexts (`memory_table`, from core.tiled_attention.context_costs)."""

from __future__ import annotations

from dataclasses import dataclass

from core.tiled_attention import context_costs
from lessons.heatmap import text
from lessons.settings import Settings
from lessons.tables import Column, bytes_text


@dataclass(frozen=True)
class MemoryRow:
    """One line of the memory table (per core ContextCost), for self-attention of length T."""

    T: int
    is_current: bool  # the settings' T (the other lines are LONG_CONTEXTS)
    scores_bytes_per_head: int  # plain path: the T x T float32 score matrix of one head
    scores_bytes_all_heads: int  # h of them (batch 1)
    tile_bytes: int  # tiled path: one block_q x block_k tile
    on_chip_bytes: int  # Q, K, V tiles, the score tile, m, l, acc
    ratio: float  # scores per head / tile
    plain_traffic: int  # numbers read + written per head
    tiled_traffic: int
    tiled_causal_traffic: int
    tiling_saves_traffic: bool  # tiled < plain: only once block_q > 2 d_k (core docstring)
    causal_processed: int
    causal_skipped: int


def memory_table(settings: Settings, block_q: int, block_k: int) -> tuple[MemoryRow, ...]:
    """The current T and the long contexts (8k, 128k), with the settings' d_k and h and the page's blocks."""
    rows = []
    for c in context_costs(settings.seq_len, settings.d_k, 1, settings.num_heads, block_q, block_k):
        rows.append(
            MemoryRow(
                T=c.T,
                is_current=c.T == settings.seq_len,
                scores_bytes_per_head=c.memory.scores_bytes_per_head,
                scores_bytes_all_heads=c.memory.scores_bytes_all_heads,
                tile_bytes=c.memory.tile_bytes,
                on_chip_bytes=c.memory.on_chip_bytes,
                ratio=c.memory.ratio,
                plain_traffic=c.plain.total,
                tiled_traffic=c.tiled.total,
                tiled_causal_traffic=c.tiled_causal.total,
                tiling_saves_traffic=c.tiled.total < c.plain.total,
                causal_processed=c.causal_tiles[0],
                causal_skipped=c.causal_tiles[1],
            )
        )
    return tuple(rows)


def fmt_bytes(n: int) -> str:
    """Bytes in binary units: "512 B", "4 KiB", "1.5 MiB", "64 GiB" (one decimal unless whole)."""
    return bytes_text(n)


def memory_columns(rows: tuple[MemoryRow, ...], num_heads: int) -> tuple[Column, ...]:
    """The memory table as the page shows it: T (the current one marked), the bytes of one head's and of all
    heads' score matrices and of one tile, their ratio, the numbers moved, and the tiles a causal mask skips."""
    return (
        Column(
            text("softmax.mem.col.T"),
            tuple(text("softmax.mem.current", T=f"{r.T:,}") if r.is_current else f"{r.T:,}" for r in rows),
        ),
        Column(text("softmax.mem.col.scores"), tuple(fmt_bytes(r.scores_bytes_per_head) for r in rows)),
        Column(text("softmax.mem.col.all", h=num_heads), tuple(fmt_bytes(r.scores_bytes_all_heads) for r in rows)),
        Column(text("softmax.mem.col.tile"), tuple(fmt_bytes(r.tile_bytes) for r in rows)),
        Column(text("softmax.mem.col.ratio"), tuple(f"{r.ratio:,.0f}×" for r in rows)),
        Column(text("softmax.mem.col.plain"), tuple(f"{r.plain_traffic:,}" for r in rows)),
        Column(text("softmax.mem.col.tiled"), tuple(f"{r.tiled_traffic:,}" for r in rows)),
        Column(text("softmax.mem.col.causal"), tuple(f"{r.tiled_causal_traffic:,}" for r in rows)),
        Column(
            text("softmax.mem.col.skipped"),
            tuple(f"{r.causal_skipped:,} / {r.causal_skipped + r.causal_processed:,}" for r in rows),
        ),
    )
