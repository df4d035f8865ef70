"""Section "tiles" (tile by tile): the FlashAttention forward walk of one head with the page's block sizes
(`tile_walk`, every step kept) and the view after one step (`tile_step`: cheap slicing of the walk); result.py
compares the walk's end with the plain path."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np
import torch

from core.tiled_attention import step_traffic, tile_bounds, tiled_attention
from lessons.heatmap import Heatmap, Rect, Text, text
from lessons.scenario import Scenario
from lessons.settings import Settings
from lessons.softmax.common import (
    CURRENT,
    DONE,
    SHOWN_FEATURES,
    SKIPPED,
    TODO,
    _keep,
    _ro,
    get_run,
    heatmap,
    number,
)
from lessons.tables import Column

# Row states of the output so far.
ROW_WAITING, ROW_RUNNING, ROW_WRITTEN = 0, 1, 2


@dataclass(frozen=True)
class WalkStep:
    """One processed (query tile, key tile) step of one head (core TileStep, as numpy)."""

    q_tile: int
    k_tile: int
    q_start: int
    q_stop: int
    k_start: int
    k_stop: int
    scores: np.ndarray  # (r, c)  this tile of the scaled, masked scores
    p: np.ndarray  # (r, c)  exp(scores - m_new)
    m_old: np.ndarray  # (r,)  -inf before the first tile of a query tile
    m_new: np.ndarray  # (r,)
    rescale: np.ndarray  # (r,)  exp(m_old - m_new)
    l: np.ndarray  # (r,)
    acc: np.ndarray  # (r, d_k)
    loads_q: bool
    writes_o: bool
    traffic: Mapping[str, int]  # numbers moved by this step (core step_traffic): read_q, read_k, read_v, write_o


@dataclass(frozen=True)
class TileWalk:
    """The whole walk of one head with the page's blocks: every step, the skipped tiles, the final state."""

    head: int
    block_q: int
    block_k: int
    T: int
    d_k: int
    tokens: tuple[str, ...]
    q_bounds: tuple[tuple[int, int], ...]  # (start, stop) of each query tile
    k_bounds: tuple[tuple[int, int], ...]
    steps: tuple[WalkStep, ...]  # in loop order
    skipped: tuple[tuple[int, int], ...]  # (query tile, key tile) pairs never processed
    scores: np.ndarray  # (T, T)  the full scaled score matrix of the head (trace.scaled_scores), for the overlay
    kept: np.ndarray  # (T, T) bool  the mask
    output: np.ndarray  # (T, d_k)  acc / l at the end
    m: np.ndarray  # (T,)  final running max
    l: np.ndarray  # (T,)  final running normaliser

    @property
    def n_steps(self) -> int:
        return len(self.steps)

    @property
    def n_tiles(self) -> int:
        return len(self.q_bounds) * len(self.k_bounds)


# Inference mode: the walk is ~20 small torch ops a tile, and without autograd's bookkeeping each costs less (one head
# at 512/16/32, blocks 4: 6.8 -> 5.3 ms). Safe here because nothing made inside leaves as a tensor: every array of
# the walk is a numpy copy (an inference tensor could not be used later where autograd records).
@torch.inference_mode()
def tile_walk(
    settings: Settings,
    head: int,
    block_q: int,
    block_k: int,
    run: Scenario | None = None,
    custom_text: str | None = None,
) -> TileWalk:
    """Run core tiled_attention on one head of the run (its q_heads, k_heads, v_heads and mask) and keep every
    step. The expensive call of the section (T 32, blocks 1 x 1: 1024 steps): the page caches it."""
    run = get_run(settings, run, custom_text)
    tr = run.trace
    sl = slice(head, head + 1)
    walk = tiled_attention(
        tr.q_heads[:, sl],
        tr.k_heads_expanded[:, sl],
        tr.v_heads_expanded[:, sl],
        run.mask,
        block_q=block_q,
        block_k=block_k,
    )
    d_k = settings.d_k
    steps = tuple(
        WalkStep(
            q_tile=s.q_tile,
            k_tile=s.k_tile,
            q_start=s.q_start,
            q_stop=s.q_stop,
            k_start=s.k_start,
            k_stop=s.k_stop,
            scores=_ro(s.scores[0, 0]),
            p=_ro(s.p[0, 0]),
            m_old=_ro(s.m_old[0, 0]),
            m_new=_ro(s.m_new[0, 0]),
            rescale=_ro(s.rescale[0, 0]),
            l=_ro(s.l[0, 0]),
            acc=_ro(s.acc[0, 0]),
            loads_q=s.loads_q,
            writes_o=s.writes_o,
            traffic=MappingProxyType(step_traffic(s, d_k)),  # read-only already: the cache's freeze keeps the step
        )
        for s in walk.steps
    )
    T = settings.seq_len
    return TileWalk(
        head=head,
        block_q=block_q,
        block_k=block_k,
        T=T,
        d_k=d_k,
        tokens=tuple(run.tokens),
        q_bounds=tuple(tile_bounds(T, block_q)),
        k_bounds=tuple(tile_bounds(T, block_k)),
        steps=steps,
        skipped=walk.skipped,
        scores=_ro(tr.scaled_scores[0, head]),
        kept=_ro(_keep(run)),
        output=_ro(walk.output[0, 0]),
        m=_ro(walk.m[0, 0]),
        l=_ro(walk.l[0, 0]),
    )


@dataclass(frozen=True)
class TileStepView:
    """What the page shows at step `step` (1-based) of the walk."""

    step: int
    n_steps: int
    is_last: bool
    current: WalkStep
    tile: tuple[int, int]  # (query tile, key tile)
    cells: tuple[int, int, int, int]  # (q_start, q_stop, k_start, k_stop) on the full score matrix
    tile_state: Heatmap  # (n_q_tiles, n_k_tiles) STATE codes: todo / done / current / skipped
    cell_state: Heatmap  # (T, T) the same per cell, for greying/highlighting the full score matrix
    scores: Heatmap  # (T, T) the head's full scaled score matrix (signed), blocked cells NaN and `blocked`;
    # rects: the skipped tiles (style "skipped", runs of one query tile merged) and the current one (last)
    skipped_so_far: int  # skipped tiles before the current one in loop order
    skipped_total: int
    # (T, min(d_k, SHOWN_FEATURES)) written rows = final, running rows = acc / l now, waiting rows = NaN
    output_so_far: Heatmap
    row_state: np.ndarray  # (T,) ROW_WAITING / ROW_RUNNING / ROW_WRITTEN
    m_rows: np.ndarray  # (T,)  running max of each row so far (NaN: its query tile has not started)
    l_rows: np.ndarray  # (T,)
    traffic_so_far: dict  # numbers moved by steps 1..step (read_q, read_k, read_v, write_o)
    tile_scores: Heatmap  # (r, c) this tile's scaled scores, rows/cols = its query/key positions, blocked NaN
    tile_p: Heatmap  # (r, c) exp(scores - m_new): this tile's unnormalised weights, each in 0..1
    # (r, min(d_k, SHOWN_FEATURES)) the running unnormalised output of the tile's rows after this step
    tile_acc: Heatmap


def _skipped_rects(walk: TileWalk) -> tuple[Rect, ...]:
    """The skipped tiles as outlined rectangles, neighbours in one query tile merged into one: a causal walk at
    blocks 1 x 1 skips 496 tiles, but they are 31 runs (the chart's payload stays a few KB, not ~30 KB)."""
    out: list[Rect] = []
    for i, j in walk.skipped:  # loop order: by query tile, then key tile
        last = out[-1] if out else None
        q0, q1 = walk.q_bounds[i]
        k0, k1 = walk.k_bounds[j]
        if last is not None and (last.r0, last.r1, last.c1) == (q0, q1, k0):
            out[-1] = Rect(0, q0, q1, last.c0, k1, style="skipped")
        else:
            out.append(Rect(0, q0, q1, k0, k1, style="skipped"))
    return tuple(out)


def tile_step(walk: TileWalk, step: int) -> TileStepView:
    """The state of the walk after step `step` (1-based, clamped to 1..n_steps): cheap numpy slicing only."""
    n = walk.n_steps
    step = min(max(int(step), 1), n)
    cur = walk.steps[step - 1]
    nq, nk = len(walk.q_bounds), len(walk.k_bounds)
    tiles = np.full((nq, nk), TODO, dtype=np.int8)
    for s in walk.steps[: step - 1]:
        tiles[s.q_tile, s.k_tile] = DONE
    for i, j in walk.skipped:
        tiles[i, j] = SKIPPED
    tiles[cur.q_tile, cur.k_tile] = CURRENT
    cells = np.empty((walk.T, walk.T), dtype=np.int8)
    for i, (q0, q1) in enumerate(walk.q_bounds):
        for j, (k0, k1) in enumerate(walk.k_bounds):
            cells[q0:q1, k0:k1] = tiles[i, j]
    out = np.full((walk.T, walk.d_k), np.nan, dtype=np.float32)
    m_rows = np.full(walk.T, np.nan, dtype=np.float32)
    l_rows = np.full(walk.T, np.nan, dtype=np.float32)
    rows = np.full(walk.T, ROW_WAITING, dtype=np.int8)
    for q0, q1 in walk.q_bounds[: cur.q_tile]:  # finished query tiles: their output rows are written
        out[q0:q1], m_rows[q0:q1], l_rows[q0:q1], rows[q0:q1] = (
            walk.output[q0:q1],
            walk.m[q0:q1],
            walk.l[q0:q1],
            ROW_WRITTEN,
        )
    q0, q1 = cur.q_start, cur.q_stop
    with np.errstate(invalid="ignore", divide="ignore"):
        out[q0:q1] = cur.acc / cur.l[:, None]
    m_rows[q0:q1], l_rows[q0:q1] = cur.m_new, cur.l
    rows[q0:q1] = ROW_WRITTEN if cur.writes_o else ROW_RUNNING
    traffic = {key: sum(s.traffic[key] for s in walk.steps[:step]) for key in ("read_q", "read_k", "read_v", "write_o")}
    tok = list(walk.tokens)
    shown = np.where(walk.kept, walk.scores, np.nan)
    f = min(walk.d_k, SHOWN_FEATURES)
    rects = _skipped_rects(walk) + (Rect(0, cur.q_start, cur.q_stop, cur.k_start, cur.k_stop, style="current"),)
    tile_rows, tile_cols = np.arange(q0, q1), np.arange(cur.k_start, cur.k_stop)
    tile_kept = walk.kept[q0:q1, cur.k_start : cur.k_stop]
    return TileStepView(
        step=step,
        n_steps=n,
        is_last=step == n,
        current=cur,
        tile=(cur.q_tile, cur.k_tile),
        cells=(cur.q_start, cur.q_stop, cur.k_start, cur.k_stop),
        tile_state=heatmap("tile_state", tiles, "query_tile", "key_tile", tok, "state"),
        cell_state=heatmap("cell_state", cells, "query", "key", tok, "state"),
        scores=heatmap(
            "scores",
            shown,
            "query",
            "key",
            tok,
            "signed",
            blocked=~walk.kept,
            rects=rects,
            title=text("softmax.hm.scores", head=walk.head, d_k=walk.d_k),
        ),
        skipped_so_far=sum(1 for t in walk.skipped if t < (cur.q_tile, cur.k_tile)),
        skipped_total=len(walk.skipped),
        output_so_far=heatmap(
            "output_so_far",
            out[:, :f],
            "query",
            "feature",
            tok,
            "signed",
            title=text("softmax.hm.output_so_far", shown=f, d_k=walk.d_k),
        ),
        row_state=_ro(rows),
        m_rows=_ro(m_rows),
        l_rows=_ro(l_rows),
        traffic_so_far=traffic,
        tile_scores=heatmap(
            "tile_scores",
            np.where(tile_kept, cur.scores, np.nan),
            "query",
            "key",
            tok,
            "signed",
            rows=tile_rows,
            cols=tile_cols,
            blocked=~tile_kept,
        ),
        tile_p=heatmap(
            "tile_p",
            cur.p,
            "query",
            "key",
            tok,
            "weights",
            rows=tile_rows,
            cols=tile_cols,
            blocked=~tile_kept,
            title=text("softmax.hm.tile_p"),
        ),
        tile_acc=heatmap("tile_acc", cur.acc[:, :f], "query", "feature", tok, "signed", rows=tile_rows),
    )


# ================================================================ what the section prints
def step_text(walk: TileWalk, v: TileStepView) -> Text:
    """Where the walk is: step s of n, the query and key tiles with their first and last rows and keys, the tiles
    in all and those skipped (before this step and in all)."""
    q0, q1, k0, k1 = v.cells
    return text(
        "softmax.tiles.now",
        step=v.step,
        n=v.n_steps,
        i=v.tile[0],
        j=v.tile[1],
        q0=q0,
        q1=q1 - 1,
        k0=k0,
        k1=k1 - 1,
        tiles=walk.n_tiles,
        skipped=v.skipped_total,
        skipped_before=v.skipped_so_far,
    )


def tile_rows_table(walk: TileWalk, v: TileStepView) -> tuple[Column, ...]:
    """The current tile's query rows (index and token): running max before and after, the rescale factor, l."""
    cur = v.current
    return (
        Column(text("softmax.tiles.col.row"), tuple(f"{r} {walk.tokens[r]}" for r in range(cur.q_start, cur.q_stop))),
        Column(text("softmax.tiles.col.m_old"), tuple(number(x) for x in cur.m_old)),
        Column(text("softmax.tiles.col.m_new"), tuple(number(x) for x in cur.m_new)),
        Column(text("softmax.tiles.col.rescale"), tuple(number(x) for x in cur.rescale)),
        Column(text("softmax.tiles.col.l"), tuple(number(x) for x in cur.l)),
    )
