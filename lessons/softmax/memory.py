"""Section "tiles", its last table: the memory and traffic of the plain and the tiled path for the current T and the
long contexts (`memory_table`, from core.tiled_attention.context_costs), with the page's blocks and, at the long
contexts, a kernel's tile (KERNEL_BLOCKS); and what the table says about traffic (`traffic_notes`), chosen by its
numbers."""

from __future__ import annotations

from dataclasses import dataclass

from core.tiled_attention import context_costs
from lessons.heatmap import Text, text
from lessons.settings import Settings
from lessons.tables import Column, bytes_text

# A fused kernel's tile: 128 query rows x 64 key rows (FlashAttention-2's forward uses 64 to 128 rows a tile, the
# size its on-chip memory allows). The page's blocks stop at T <= 32, where tiling cannot pay: the long contexts are
# priced with this tile too, so the table shows both sides of the rule in `traffic_notes`.
KERNEL_BLOCKS = (128, 64)


@dataclass(frozen=True)
class MemoryRow:
    """One line of the memory table (per core ContextCost), for self-attention of length T."""

    T: int
    is_current: bool  # the settings' T (the other lines are LONG_CONTEXTS)
    block_q: int
    block_k: int
    is_kernel: bool  # KERNEL_BLOCKS, not the page's blocks
    scores_bytes_per_head: int  # plain path: the T x T float32 score matrix of one head
    scores_bytes_all_heads: int  # h of them (batch 1)
    tile_bytes: int  # tiled path: one block_q x block_k tile
    on_chip_bytes: int  # Q, K, V tiles, the score tile, m, l, acc
    ratio: float  # scores per head / tile
    plain_traffic: int  # numbers read + written per head
    tiled_traffic: int
    tiled_causal_traffic: int
    tiling_saves_traffic: bool  # tiled < plain: about when block_q >= d_k / 2 (traffic_notes)
    causal_processed: int
    causal_skipped: int


def memory_table(settings: Settings, block_q: int, block_k: int) -> tuple[MemoryRow, ...]:
    """The current T and the long contexts (8k, 128k), with the settings' d_k and h: the page's blocks at each T,
    and KERNEL_BLOCKS at the long contexts (after the page's row of the same T)."""
    T, d_k, h = settings.seq_len, settings.d_k, settings.num_heads
    page = [(c, block_q, block_k, False) for c in context_costs(T, d_k, 1, h, block_q, block_k)]
    kq, kk = KERNEL_BLOCKS
    kernel = [(c, kq, kk, True) for c in context_costs(T, d_k, 1, h, kq, kk)[1:]]  # the long contexts only
    rows = []
    for c, bq, bk, is_kernel in sorted(page + kernel, key=lambda x: (x[0].T, x[3])):
        rows.append(
            MemoryRow(
                T=c.T,
                is_current=c.T == settings.seq_len,
                block_q=bq,
                block_k=bk,
                is_kernel=is_kernel,
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


def _traffic_ratio(r: MemoryRow) -> float:
    return r.tiled_traffic / r.plain_traffic


def ratio_text(r: MemoryRow) -> str:
    """tiled / plain traffic as printed: two decimals, more where two would round a ratio just under or over 1 to
    "1.00" (the reader must see fewer or more, as the sentence beside it says; equal only when equal)."""
    ratio = _traffic_ratio(r)
    for decimals in range(2, 10):
        shown = f"{ratio:.{decimals}f}"
        if r.tiled_traffic == r.plain_traffic or float(shown) != 1.0:
            return shown
    return shown


def traffic_notes(rows: tuple[MemoryRow, ...], d_k: int) -> tuple[Text, ...]:
    """What the traffic columns say, one sentence per block size at the longest context in the table, chosen by
    its numbers: the tiled path moves fewer numbers than the plain one (`softmax.mem.pays`) or more
    (`softmax.mem.costs`); then the rule behind both (`softmax.mem.rule`). The rule: K and V are reread once per
    query tile, 2 T d_k ceil(T / block_q) numbers against the plain path's 4 T^2, so tiling moves fewer numbers
    from block_q = d_k / 2 on (exactly so when block_q divides T)."""
    longest = max(r.T for r in rows)
    out = []
    for r in (r for r in rows if r.T == longest):
        out.append(
            text(
                "softmax.mem.pays" if r.tiling_saves_traffic else "softmax.mem.costs",
                bq=r.block_q,
                bk=r.block_k,
                T=f"{r.T:,}",
                ratio=ratio_text(r),
            )
        )
    out.append(text("softmax.mem.rule", d_k=d_k, half=f"{d_k / 2:g}"))
    return tuple(out)


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
        Column(
            text("softmax.mem.col.blocks"),
            tuple(
                text("softmax.mem.kernel", bq=r.block_q, bk=r.block_k) if r.is_kernel else f"{r.block_q} × {r.block_k}"
                for r in rows
            ),
        ),
        Column(text("softmax.mem.col.scores"), tuple(fmt_bytes(r.scores_bytes_per_head) for r in rows)),
        Column(text("softmax.mem.col.all", h=num_heads), tuple(fmt_bytes(r.scores_bytes_all_heads) for r in rows)),
        Column(text("softmax.mem.col.tile"), tuple(fmt_bytes(r.tile_bytes) for r in rows)),
        Column(text("softmax.mem.col.ratio"), tuple(f"{r.ratio:,.0f}×" for r in rows)),
        Column(text("softmax.mem.col.plain"), tuple(f"{r.plain_traffic:,}" for r in rows)),
        Column(text("softmax.mem.col.tiled"), tuple(f"{r.tiled_traffic:,}" for r in rows)),
        Column(text("softmax.mem.col.vs_plain"), tuple(f"{ratio_text(r)}×" for r in rows)),
        Column(text("softmax.mem.col.causal"), tuple(f"{r.tiled_causal_traffic:,}" for r in rows)),
        Column(
            text("softmax.mem.col.skipped"),
            tuple(f"{r.causal_skipped:,} / {r.causal_skipped + r.causal_processed:,}" for r in rows),
        ),
    )
