"""Attention tile by tile: the FlashAttention forward pass, written out so every step can be looked at.

Why this exists. The plain path (core/attention.py) builds the whole (T_q, T_k) score matrix of every
head, then its softmax, then multiplies by V. At T = 128k that matrix alone is 64 GiB per head in float32.
Fused kernels (FlashAttention, PyTorch's `F.scaled_dot_product_attention`) never build it: they walk over
small tiles of it and keep, for each query row, only three running things:

- m: the largest score seen so far in the row,
- l: the sum of exp(score - m) over the keys seen so far (the softmax's denominator, so far),
- acc: the sum of exp(score - m) * v over the keys seen so far (the output, not yet divided by l).

When a new tile brings a larger maximum, the old l and acc were computed against the old m; multiplying
them by exp(m_old - m_new) ("rescale") puts them on the new m. After the last key tile, acc / l is exactly
softmax(scores) @ V: the same numbers as the plain path, up to float rounding (tests/test_tiled_attention.py).

The loop order is FlashAttention-2's: for each query tile (block_q rows), walk the key/value tiles
(block_k rows each) left to right. T need not be a multiple of the block sizes: the last tile is smaller.

Masks follow the seed (core/masks.py): True = keep, blocked cells are filled with `fill_value` before the
softmax. A tile whose cells are all blocked (for every sequence and head of the batch) is skipped and
counted: it could only add exp(fill - m) = 0. Under the causal mask these are the tiles right of the
diagonal, about half of them.

A row the mask blocks entirely (e.g. a padding length of 0) gets what the plain path gives it:
- fill -1e9 (the seed's): every cell of the row is -1e9, so the running max is -1e9, each cell adds
  exp(0) = 1 to l, and the output is the mean of all values (uniform 1/T_k weights). To keep that, a tile
  holding such a row is never skipped.
- fill -inf: the running max stays -inf. A real kernel guards against exp(-inf - (-inf)) = NaN by
  subtracting 0 instead (`m_safe` below), so l stays 0 and the output is 0 / 0 = NaN, like the plain path.
- (`F.scaled_dot_product_attention` with a bool mask returns 0 for such a row: a third convention.)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from core.limits import ACCOUNTING_T_MAX, TILE_BLOCK_MAX, TILE_BLOCK_MIN, check_range
from core.masks import FILL_SEED
from core.validation import check_mask

BYTES_PER_FLOAT32 = 4
LONG_CONTEXTS = (8 * 1024, 128 * 1024)  # the long T the page prices (8k and 128k tokens)


# ---------------------------------------------------------------- the trace
@dataclass(frozen=True)
class TileStep:
    """One (query tile, key tile) step: what came in, and the running state after it.

    Rows are the tile's queries (r = q_stop - q_start of them), columns its keys (c = k_stop - k_start).
    """

    q_tile: int  # index of the query tile (0-based)
    k_tile: int  # index of the key/value tile
    q_start: int  # the tile's query rows are q_start .. q_stop - 1
    q_stop: int
    k_start: int  # the tile's keys are k_start .. k_stop - 1
    k_stop: int
    scores: torch.Tensor  # (B, h, r, c)  this tile of Q K^T / sqrt(d_k), blocked cells = fill_value
    m_old: torch.Tensor  # (B, h, r)  running row max before this tile (-inf before the first)
    m_new: torch.Tensor  # (B, h, r)  max(m_old, the tile's row max)
    rescale: torch.Tensor  # (B, h, r)  exp(m_old - m_new): how much the old l and acc shrink
    p: torch.Tensor  # (B, h, r, c)  exp(scores - m_new): this tile's unnormalised weights
    l: torch.Tensor  # (B, h, r)  running normaliser after this tile: l_old * rescale + p.sum(-1)
    acc: torch.Tensor  # (B, h, r, d_k)  running unnormalised output: acc_old * rescale + p @ V_tile
    loads_q: bool  # the first step of a query tile reads its Q rows from memory
    writes_o: bool  # the last step of a query tile writes its output rows (acc / l)


@dataclass(frozen=True)
class TiledTrace:
    """The whole walk: the result, the final running state, and every step in order."""

    output: torch.Tensor  # (B, h, T_q, d_k)  acc / l: equals the plain path's head_outputs
    m: torch.Tensor  # (B, h, T_q)  final running max = each row's largest (masked, scaled) score
    l: torch.Tensor  # (B, h, T_q)  final running normaliser = row sums of exp(scores - m)
    steps: tuple[TileStep, ...]  # the processed (query tile, key tile) pairs, in loop order
    skipped: tuple[tuple[int, int], ...]  # (query tile, key tile) pairs skipped as fully blocked
    block_q: int
    block_k: int
    n_q_tiles: int  # ceil(T_q / block_q)
    n_k_tiles: int  # ceil(T_k / block_k)

    @property
    def n_tiles(self) -> int:
        """All (query tile, key tile) pairs, processed or skipped."""
        return self.n_q_tiles * self.n_k_tiles


def tile_bounds(T: int, block: int) -> list[tuple[int, int]]:
    """(start, stop) of each tile of `block` rows over T rows; the last one is shorter when block does not divide T."""
    return [(start, min(start + block, T)) for start in range(0, T, block)]


# ---------------------------------------------------------------- the algorithm
def tiled_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    mask: torch.Tensor | None = None,
    *,
    block_q: int,
    block_k: int,
    fill_value: float = FILL_SEED,
    keep_steps: bool = True,
) -> TiledTrace:
    """softmax(q k^T / sqrt(d_k), masked) @ v for every head, computed one (block_q x block_k) tile at a time.

    q: (B, h, T_q, d_k), k and v: (B, h, T_k, d_k), as in AttentionTrace.q_heads / k_heads / v_heads.
    mask: the seed's convention (True = keep), broadcastable to (B, h, T_q, T_k), or None.
    Block sizes run from TILE_BLOCK_MIN to TILE_BLOCK_MAX (core/limits.py); a block longer than T is one tile.
    keep_steps=False keeps only the result and the final m, l (no per-step tensors).
    """
    if q.dim() != 4 or k.dim() != 4 or v.dim() != 4:
        raise ValueError("q, k, v must be 4-D (B, h, T, d_k), like AttentionTrace.q_heads")
    B, h, T_q, d_k = q.shape
    T_k = k.shape[2]
    if k.shape != (B, h, T_k, d_k) or v.shape != k.shape:
        raise ValueError(
            f"k and v must be (B, h, T_k, d_k) = ({B}, {h}, T_k, {d_k}); got {tuple(k.shape)} and {tuple(v.shape)}"
        )
    check_range("block_q", block_q, TILE_BLOCK_MIN, TILE_BLOCK_MAX)
    check_range("block_k", block_k, TILE_BLOCK_MIN, TILE_BLOCK_MAX)
    # Plain copies (a few KB): the walk slices q, k, v and the mask in ~20 small ops a tile, and a shared read-only
    # input (core/frozen, as the app's cached runs are) would put every one through its checks: 9.0 -> 4.5 ms for
    # one head at 512/16/32, blocks 4 (benchmarks/README.md, 2026-12-05).
    q, k, v = (x.detach().clone() for x in (q, k, v))
    keep = None
    if mask is not None:
        keep = check_mask(mask, B, h, T_q, T_k).bool().clone()  # 4-D, each axis its full size or 1
        keep = keep.expand(keep.shape[0], keep.shape[1], T_q, T_k)  # (B|1, h|1, T_q, T_k): rows and keys by index
    row_blocked = _fully_blocked_rows(keep, T_q, T_k)  # (T_q,) True if blocked in some sequence/head

    output = torch.empty(B, h, T_q, d_k, dtype=q.dtype)
    m_all = torch.empty(B, h, T_q, dtype=q.dtype)
    l_all = torch.empty(B, h, T_q, dtype=q.dtype)
    steps: list[TileStep] = []
    skipped: list[tuple[int, int]] = []
    q_tiles, k_tiles = tile_bounds(T_q, block_q), tile_bounds(T_k, block_k)

    for i, (q0, q1) in enumerate(q_tiles):
        q_tile = q[:, :, q0:q1]  # (B, h, r, d_k): read once, kept on chip for the whole row of tiles
        r = q1 - q0
        m = torch.full((B, h, r), -math.inf, dtype=q.dtype)  # running max
        l = torch.zeros(B, h, r, dtype=q.dtype)  # running normaliser
        acc = torch.zeros(B, h, r, d_k, dtype=q.dtype)  # running unnormalised output
        processed = [j for j, (k0, k1) in enumerate(k_tiles) if not _skippable(keep, row_blocked, q0, q1, k0, k1)]
        skipped += [(i, j) for j in range(len(k_tiles)) if j not in processed]

        for n, j in enumerate(processed):
            k0, k1 = k_tiles[j]
            s = torch.matmul(q_tile, k[:, :, k0:k1].transpose(-2, -1)) / math.sqrt(d_k)  # (B, h, r, c)
            if keep is not None:
                s = s.masked_fill(~keep[:, :, q0:q1, k0:k1], fill_value)  # (B, h, r, c)
            m_new = torch.maximum(m, s.amax(dim=-1))  # (B, h, r)
            # A row with nothing but -inf so far: subtract 0, not -inf, so exp gives 0 instead of NaN.
            m_safe = torch.where(m_new == -math.inf, torch.zeros_like(m_new), m_new)  # (B, h, r)
            rescale = torch.exp(m - m_safe)  # (B, h, r); exp(-inf) = 0 on the first tile
            p = torch.exp(s - m_safe[..., None])  # (B, h, r, c)
            l = l * rescale + p.sum(dim=-1)  # (B, h, r)
            acc = acc * rescale[..., None] + torch.matmul(p, v[:, :, k0:k1])  # (B, h, r, d_k)
            if keep_steps:
                steps.append(
                    TileStep(
                        i,
                        j,
                        q0,
                        q1,
                        k0,
                        k1,
                        scores=s,
                        m_old=m,
                        m_new=m_new,
                        rescale=rescale,
                        p=p,
                        l=l,
                        acc=acc,
                        loads_q=n == 0,
                        writes_o=n == len(processed) - 1,
                    )
                )
            m = m_new

        output[:, :, q0:q1] = acc / l[..., None]  # (B, h, r, d_k); 0 / 0 = NaN where nothing was kept
        m_all[:, :, q0:q1] = m
        l_all[:, :, q0:q1] = l

    return TiledTrace(
        output=output,
        m=m_all,
        l=l_all,
        steps=tuple(steps),
        skipped=tuple(skipped),
        block_q=block_q,
        block_k=block_k,
        n_q_tiles=len(q_tiles),
        n_k_tiles=len(k_tiles),
    )


def _fully_blocked_rows(keep: torch.Tensor | None, T_q: int, T_k: int) -> torch.Tensor:
    """(T_q,) True where some sequence or head of the batch may attend to no key at all."""
    if keep is None:
        return torch.zeros(T_q, dtype=torch.bool)
    none_kept = ~keep.any(dim=-1)  # (B|1, h|1, T_q)
    return none_kept.flatten(0, 1).any(dim=0)  # (T_q,)


def _skippable(keep: torch.Tensor | None, row_blocked: torch.Tensor, q0: int, q1: int, k0: int, k1: int) -> bool:
    """A tile may be skipped when it keeps no cell in any sequence or head, and none of its rows is blocked
    everywhere (such a row needs every -1e9 cell, see the module docstring)."""
    if keep is None or row_blocked[q0:q1].any():
        return False
    return not bool(keep[:, :, q0:q1, k0:k1].any())


# ---------------------------------------------------------------- accounting (numbers only, any T)
def causal_tile_counts(T_q: int, T_k: int, block_q: int, block_k: int) -> tuple[int, int]:
    """(processed, skipped) tiles under the causal mask (query i sees keys 0..i), from the indices alone.

    Query tile i ends at row q1 - 1; key tile j starts at j * block_k. The tile holds a kept cell iff
    j * block_k <= q1 - 1, so tile i processes ceil(min(q1, T_k) / block_k) key tiles and skips the rest.
    """
    _check_accounting(T_q, T_k, block_q, block_k)
    processed = int(_key_tiles_per_query_tile(T_q, T_k, block_q, block_k, causal=True).sum())
    return processed, math.ceil(T_q / block_q) * math.ceil(T_k / block_k) - processed


def _key_tiles_per_query_tile(T_q: int, T_k: int, block_q: int, block_k: int, *, causal: bool) -> torch.Tensor:
    """(n_q_tiles,) how many key tiles each query tile processes: all of them, or under the causal mask
    those starting at or before its last row. One tensor op instead of a loop, so T = 128k costs nothing."""
    q_stops = torch.arange(1, math.ceil(T_q / block_q) + 1, dtype=torch.int64) * block_q  # (n_q,)
    q_stops = q_stops.clamp(max=T_q)  # (n_q,) the last query tile may be short
    visible = q_stops.clamp(max=T_k) if causal else torch.full_like(q_stops, T_k)  # (n_q,) keys 0..visible-1
    return (visible + block_k - 1) // block_k  # (n_q,) ceil(visible / block_k)


@dataclass(frozen=True)
class AttentionMemory:
    """The largest intermediate of each path, in bytes, for one head and for all B * h of them."""

    T_q: int
    T_k: int
    scores_bytes_per_head: int  # plain path: the (T_q, T_k) score matrix (and the weights: same size again)
    scores_bytes_all_heads: int  # B * h of them
    tile_bytes: int  # tiled path: one (block_q, block_k) tile of scores
    on_chip_bytes: int  # tiled path, per running query tile: Q, K, V tiles, the score tile, m, l and acc
    ratio: float  # scores_bytes_per_head / tile_bytes: how many times smaller the tiled intermediate is


def attention_memory(
    T_q: int,
    T_k: int,
    d_k: int,
    B: int,
    h: int,
    block_q: int,
    block_k: int,
    *,
    bytes_per_number: int = BYTES_PER_FLOAT32,
) -> AttentionMemory:
    """Bytes of the largest intermediate: the plain path's T_q x T_k scores vs one tile of the tiled path.

    Block sizes longer than T are cut to T (a tile is never larger than the matrix).
    """
    _check_accounting(T_q, T_k, block_q, block_k)
    bq, bk = min(block_q, T_q), min(block_k, T_k)
    per_head = T_q * T_k * bytes_per_number
    tile = bq * bk * bytes_per_number
    # Q tile (bq x d_k) + K and V tiles (bk x d_k each) + scores (bq x bk) + m, l (bq each) + acc (bq x d_k)
    on_chip = (bq * d_k + 2 * bk * d_k + bq * bk + 2 * bq + bq * d_k) * bytes_per_number
    return AttentionMemory(
        T_q=T_q,
        T_k=T_k,
        scores_bytes_per_head=per_head,
        scores_bytes_all_heads=B * h * per_head,
        tile_bytes=tile,
        on_chip_bytes=on_chip,
        ratio=per_head / tile,
    )


@dataclass(frozen=True)
class Traffic:
    """Numbers read from and written to main memory by one head, by tensor (elements, not bytes)."""

    read_q: int
    read_k: int
    read_v: int
    write_o: int
    read_write_scores: int  # plain path only: S written, read, P written, read (0 for the tiled path)

    @property
    def total(self) -> int:
        return self.read_q + self.read_k + self.read_v + self.write_o + self.read_write_scores


def plain_traffic(T_q: int, T_k: int, d_k: int) -> Traffic:
    """The plain path (the FlashAttention paper's "standard attention"): S = Q K^T is written to memory,
    read back for the softmax, P written, read back for P V. Each is T_q x T_k numbers."""
    _check_accounting(T_q, T_k, 1, 1)
    return Traffic(
        read_q=T_q * d_k, read_k=T_k * d_k, read_v=T_k * d_k, write_o=T_q * d_k, read_write_scores=4 * T_q * T_k
    )


def tiled_traffic(T_q: int, T_k: int, d_k: int, block_q: int, block_k: int, *, causal: bool = False) -> Traffic:
    """The tiled path: each query tile reads its Q rows once and writes its O rows once; every processed
    (query tile, key tile) step reads that key tile's K and V rows. Scores never leave the chip.

    So K and V are read once per query tile: T_k * d_k * ceil(T_q / block_q) numbers each without a mask,
    about half that under the causal mask (its skipped tiles are never read). Against the plain path's
    4 T^2 numbers of scores that is about 2 block_q / d_k times less traffic: the tiled path always wins
    on memory, but on traffic only once block_q >= d_k / 2 (real kernels use tiles of 64 to 128 rows); with
    small blocks and a wide head it moves more numbers than the plain path.
    """
    _check_accounting(T_q, T_k, block_q, block_k)
    n_tiles = _key_tiles_per_query_tile(T_q, T_k, block_q, block_k, causal=causal)  # (n_q,)
    kv_rows = int((n_tiles * block_k).clamp(max=T_k).sum())  # key rows read over all steps (last tile may be short)
    return Traffic(read_q=T_q * d_k, read_k=kv_rows * d_k, read_v=kv_rows * d_k, write_o=T_q * d_k, read_write_scores=0)


def step_traffic(step: TileStep, d_k: int) -> dict[str, int]:
    """What one traced step moves (numbers per sequence and head): Q rows on a query tile's first step,
    this tile's K and V rows on every step, O rows on the query tile's last step."""
    r, c = step.q_stop - step.q_start, step.k_stop - step.k_start
    return {
        "read_q": r * d_k if step.loads_q else 0,
        "read_k": c * d_k,
        "read_v": c * d_k,
        "write_o": r * d_k if step.writes_o else 0,
    }


@dataclass(frozen=True)
class ContextCost:
    """One line of the memory table: what the two paths cost at one sequence length T (self-attention)."""

    T: int
    memory: AttentionMemory
    plain: Traffic  # per head
    tiled: Traffic  # per head, no mask
    tiled_causal: Traffic  # per head, causal mask (skipped tiles never read)
    causal_tiles: tuple[int, int]  # (processed, skipped) under the causal mask


def context_costs(
    T: int, d_k: int, B: int, h: int, block_q: int, block_k: int, *, long_contexts: tuple[int, ...] = LONG_CONTEXTS
) -> list[ContextCost]:
    """The costs at the current T and at the long contexts (8k, 128k), with the same d_k, heads and blocks:
    the numbers behind "the T x T matrix does not fit, one tile does"."""
    out = []
    for length in (T, *long_contexts):
        out.append(
            ContextCost(
                T=length,
                memory=attention_memory(length, length, d_k, B, h, block_q, block_k),
                plain=plain_traffic(length, length, d_k),
                tiled=tiled_traffic(length, length, d_k, block_q, block_k),
                tiled_causal=tiled_traffic(length, length, d_k, block_q, block_k, causal=True),
                causal_tiles=causal_tile_counts(length, length, block_q, block_k),
            )
        )
    return out


def _check_accounting(T_q: int, T_k: int, block_q: int, block_k: int) -> None:
    check_range("T_q", T_q, 1, ACCOUNTING_T_MAX)
    check_range("T_k", T_k, 1, ACCOUNTING_T_MAX)
    check_range("block_q", block_q, 1, ACCOUNTING_T_MAX)
    check_range("block_k", block_k, 1, ACCOUNTING_T_MAX)
