"""Section 1 of the KV cache page: the num_kv_heads control and which query heads share which K/V head.

The shared settings' self-attention with `num_kv_heads`: Q stays (T, d_model) while K and V shrink to
(T, h_kv * d_k); the output checked against torch's own GQA attention, the groups' first heads against the MHA.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F

from core.accounting import BYTES_PER_FLOAT32, kv_sharing_over_heads
from core.attention import AttentionTrace, MultiHeadAttention, build_input, shared_model
from core.kv_cache import head_groups
from core.validation import divisors
from lessons.heatmap import Heatmap, Panel, Text, readonly, text
from lessons.kv_cache.heatmaps import Axis, first_columns, frozen_array, page_tokens, signed_map
from lessons.kv_cache.keys import attention_kind
from lessons.kv_cache.tables import STEP_VALUES, bytes_text, diff_text, shape_text
from lessons.scenario import settings_mask
from lessons.settings import Settings
from lessons.tables import Column, Table

SDPA_ATOL = 1e-5  # our GQA vs F.scaled_dot_product_attention(enable_gqa=True): another implementation
WEIGHT_PANELS = 8  # query heads drawn (fewer when T is long: STEP_VALUES weights at most)


@dataclass(frozen=True)
class ControlOption:
    kv_heads: int
    kind: str  # mha | gqa | mqa: the label at the ends of the control
    group: int  # query heads per K/V head


@dataclass(frozen=True)
class SharingRow:
    """One choice of h_kv for the current d_model, h: what shrinks (K, V, W_k/W_v, cache) and what stays (Q)."""

    kv_heads: int
    kind: str
    group: int
    q_shape: tuple[int, int]  # Q = (T, d_model): the same for every h_kv
    k_shape: tuple[int, int]  # K = (T, h_kv * d_k) (V the same)
    q_numel: int
    k_numel: int
    kv_params: int  # W_k + W_v weights and biases
    cache_bytes_per_token: int  # one layer, float32, K and V


@dataclass(frozen=True)
class SharingView:
    kv_heads: int
    kind: str
    num_heads: int  # h
    seq_len: int  # T
    d_model: int
    d_k: int
    options: tuple[ControlOption, ...]  # the control, MQA (1) .. MHA (h)
    groups: tuple[tuple[int, ...], ...]  # groups[j] = the query heads that read K/V head j
    kv_head_of: tuple[int, ...]  # kv_head_of[i] = the K/V head query head i reads (its colour group)
    shapes: dict  # trace field -> shape tuple, read from the real tensors (q, k, v, *_heads, *_expanded)
    q: Heatmap  # (T, d_model): rows tokens, columns coloured by the query head's group
    k: Heatmap  # (T, h_kv * d_k): columns coloured by their K/V head
    v: Heatmap
    weights: np.ndarray  # (h, T, T) every query head's weights, rows = queries, cols = keys
    weight_rows: Axis  # query tokens
    weight_cols: Axis  # key tokens
    table: tuple[SharingRow, ...]  # every h_kv: Q stays, K/V/params/cache shrink
    mask_kind: str  # the shared mask used
    sdpa_max_abs_diff: float  # our output vs F.scaled_dot_product_attention(enable_gqa=True)
    sdpa_rows_compared: int  # query rows that keep at least one key (a fully blocked row differs by design)
    sdpa_equal: bool
    leaders_max_abs_diff: float  # each group's first head: its weights here vs in the MHA model (same seed)
    leaders_equal: bool


def control_options(num_heads: int) -> tuple[ControlOption, ...]:
    """The kv_heads control: every divisor of h, 1 (MQA) first, h (MHA) last."""
    return tuple(ControlOption(d, attention_kind(num_heads, d), num_heads // d) for d in divisors(num_heads))


def _column_groups(width: int, d_k: int, per_head: tuple[int, ...]) -> tuple[int, ...]:
    """Group of each column of a (T, heads * d_k) projection: column c belongs to head c // d_k."""
    return tuple(per_head[c // d_k] for c in range(width))


def _sdpa_check(
    model: MultiHeadAttention, x: torch.Tensor, mask: torch.Tensor | None, output: torch.Tensor
) -> tuple[float, int]:
    """Max abs difference of our output against torch's own GQA attention, over the rows that keep a key.

    A row with every key blocked is uniform with the seed's fill (-1e9) and NaN in SDPA: not compared.
    """
    B, T, _ = x.shape
    h, h_kv, d_k = model.num_heads, model.num_kv_heads, model.d_k
    q = model.W_q(x).view(B, T, h, d_k).transpose(1, 2)  # (B, h, T, d_k)
    k = model.W_k(x).view(B, T, h_kv, d_k).transpose(1, 2)  # (B, h_kv, T, d_k)
    v = model.W_v(x).view(B, T, h_kv, d_k).transpose(1, 2)  # (B, h_kv, T, d_k)
    keep = None if mask is None else mask.expand(B, 1, T, T)  # (B, 1, T, T), True = take part
    rows = torch.ones(B, T, dtype=torch.bool) if keep is None else keep[:, 0].any(-1)  # (B, T)
    if keep is not None:
        keep = keep | ~rows[:, None, :, None]  # fully blocked rows: anything finite, excluded below
    ref = F.scaled_dot_product_attention(q, k, v, attn_mask=keep, enable_gqa=True)  # (B, h, T, d_k)
    ref = model.W_o(ref.transpose(1, 2).reshape(B, T, model.d_model))  # (B, T, d_model)
    diff = (output - ref).abs()[rows]  # (rows kept, d_model)
    return (float(diff.max()) if diff.numel() else 0.0), int(rows.sum())


@torch.no_grad()
def sharing_view(
    settings: Settings, kv_heads: int, *, custom_text: str | None = None, mha: AttentionTrace | None = None
) -> SharingView:
    """Which query heads share which K/V head, and the K/V tensors as computed (shrinking with h_kv, Q staying).

    The run is the shared settings' self-attention (same X, same seed, the sidebar's mask) with
    `build_model(..., num_kv_heads=kv_heads)`: its first head of each group keeps the MHA's K/V rows, so
    those heads' weights equal the MHA page's (`leaders_max_abs_diff`); the others now read their leader's.
    `mha`: the MHA trace of the same settings (scenario.run(settings).trace), if the page has it; else built.
    """
    d_model, h, T = settings.d_model, settings.num_heads, settings.seq_len
    groups = head_groups(h, kv_heads)  # ValueError for a kv_heads that does not divide h (parse first)
    group = h // kv_heads
    kv_head_of = tuple(i // group for i in range(h))
    d_k = settings.d_k
    model = shared_model(d_model, h, settings.seed, num_kv_heads=kv_heads)  # read-only, kept for a step of T
    x = build_input(1, T, d_model, settings.seed)  # (1, T, d_model)
    mask = settings_mask(settings.mask, T, T, custom_text)
    output, trace = model.forward_with_trace(x, x, x, mask)
    sdpa_diff, sdpa_rows = _sdpa_check(model, x, mask, output)
    leaders = [g[0] for g in groups]
    if kv_heads == h:
        leaders_diff = 0.0  # the MHA model itself
    else:
        if mha is None:
            _, mha = shared_model(d_model, h, settings.seed).forward_with_trace(x, x, x, mask)
        if tuple(mha.weights.shape) != (1, h, T, T):
            raise ValueError(
                f"mha must be the MHA trace of these settings: weights (1, {h}, {T}, {T}), "
                f"got {tuple(mha.weights.shape)}"
            )
        leaders_diff = float((trace.weights[:, leaders] - mha.weights[:, leaders]).abs().max())

    toks = tuple(page_tokens(settings))
    tok_axis = Axis("token", toks)
    shapes = {
        name: tuple(getattr(trace, name).shape)
        for name in ("q", "k", "v", "q_heads", "k_heads", "v_heads", "k_heads_expanded", "v_heads_expanded", "weights")
    }
    q_cols = Axis("column", tuple(range(d_model)), _column_groups(d_model, d_k, kv_head_of))
    kv_cols = Axis("column", tuple(range(kv_heads * d_k)), _column_groups(kv_heads * d_k, d_k, tuple(range(kv_heads))))
    table = tuple(
        SharingRow(
            r.kv_heads,
            attention_kind(h, r.kv_heads),
            r.group,
            (T, d_model),
            (T, r.kv_heads * d_k),
            T * d_model,
            T * r.kv_heads * d_k,
            r.kv_params,
            r.cache_bytes,
        )
        for r in kv_sharing_over_heads(d_model, h, 1, bytes_per_value=BYTES_PER_FLOAT32)
    )
    return SharingView(
        kv_heads=kv_heads,
        kind=attention_kind(h, kv_heads),
        num_heads=h,
        seq_len=T,
        d_model=d_model,
        d_k=d_k,
        options=control_options(h),
        groups=groups,
        kv_head_of=kv_head_of,
        shapes=shapes,
        # (T, d_model) and (T, h_kv * d_k) strips: many columns (their colour groups are the point) and T token
        # rows, each labelled (on a phone square cells were a few px tall and every third row was named)
        q=signed_map("q", trace.q[0], tok_axis, q_cols, every_row=True),
        k=signed_map("k", trace.k[0], tok_axis, kv_cols, every_row=True),
        v=signed_map("v", trace.v[0], tok_axis, kv_cols, every_row=True),
        weights=frozen_array(trace.weights[0]),
        weight_rows=tok_axis,
        weight_cols=tok_axis,
        table=table,
        mask_kind=settings.mask,
        sdpa_max_abs_diff=sdpa_diff,
        sdpa_rows_compared=sdpa_rows,
        sdpa_equal=sdpa_diff <= SDPA_ATOL,
        leaders_max_abs_diff=leaders_diff,
        leaders_equal=leaders_diff <= SDPA_ATOL,
    )


def weights_heatmap(view: SharingView, heads: Iterable[int]) -> Heatmap:
    """The weights of the chosen query heads, one panel each, titled with the K/V head they read (their group).

    One chart for the page (the renderer tiles the panels); the range is 0..1 for every head.
    """
    heads = tuple(int(i) for i in heads)
    h = len(view.kv_head_of)
    if not heads or any(not 0 <= i < h for i in heads):
        raise ValueError(f"heads must be a non-empty selection of 0..{h - 1}, got {heads!r}")
    labels = tuple(map(str, view.weight_rows.labels))
    panels = tuple(
        Panel(
            readonly(view.weights[i]),
            title=text("kv.panel.head", i=i, kv=view.kv_head_of[i]),
            row_labels=labels,
            col_labels=tuple(map(str, view.weight_cols.labels)),
            row_groups=(view.kv_head_of[i],) * len(labels),
        )
        for i in heads
    )
    return Heatmap("weights", panels, "weights", 0.0, 1.0, text("kv.axis.query"), text("kv.axis.key"))


@dataclass(frozen=True)
class SharingShown:
    """What the sharing section shows of a view: its captions (Text), tables, and heatmaps within a step's budget."""

    groups: Table | None  # K/V head -> the query heads that read it; None for MHA (nothing is shared)
    shapes: Text  # Q, K, V and the K heads before and after expanding
    q: Heatmap | None  # Q beside K, or None when Q alone is past the budget (`q_caption` then says so)
    q_caption: Text
    k: Heatmap  # K, its first columns when wide
    k_caption: tuple[Text, ...]  # the caption, plus "only the first n columns" when cut
    widths: tuple[int, int]  # the Q and K columns' relative widths on the page
    weights: Heatmap  # the first query heads' weights, one panel each
    weights_caption: Text
    table: Table  # every h_kv: Q stays, K, W_k/W_v and the cache shrink
    sdpa: Text  # the check against torch's own GQA attention ...
    sdpa_ok: bool  # ... and whether it holds
    leaders: Text | None  # the groups' first heads against the MHA's (None for MHA itself)
    leaders_ok: bool


def sharing_shown(view: SharingView) -> SharingShown:
    """The section's texts, tables and heatmaps for `view`: K cut to STEP_VALUES numbers (its first K/V heads),
    Q drawn only when it fits too, and as many query heads' weights as fit (WEIGHT_PANELS at most)."""
    h, T, d, kv, d_k = view.num_heads, view.seq_len, view.d_model, view.kv_heads, view.d_k
    width = kv * d_k
    k_cols = min(width, STEP_VALUES // T)
    cut = () if k_cols == width else (text("kv.first_cols", n=k_cols),)
    q_fits = T * d <= STEP_VALUES
    heads = tuple(range(min(h, WEIGHT_PANELS, max(1, STEP_VALUES // (T * T)))))
    groups = (
        Column(text("kv.share.col.kv_head"), tuple(str(j) for j in range(kv))),
        Column(text("kv.share.col.q_heads"), tuple(", ".join(map(str, g)) for g in view.groups)),
    )
    shapes = text(
        "kv.share.shapes",
        T=T,
        d=d,
        w=width,
        kv=kv,
        dk=d_k,
        kh=str(view.shapes["k_heads"]),
        ke=str(view.shapes["k_heads_expanded"]),
    )
    return SharingShown(
        groups=None if kv == h else groups,
        shapes=shapes,
        q=view.q if q_fits else None,
        q_caption=text("kv.share.q" if q_fits else "kv.share.q_big", T=T, d=d),
        k=view.k if k_cols == width else first_columns(view.k, k_cols),
        k_caption=(text("kv.share.k", T=T, w=width), *cut),
        widths=(max(d, 1), k_cols + 8),
        weights=weights_heatmap(view, heads),
        weights_caption=text("kv.share.weights", n=len(heads), h=h),
        table=sharing_table(view),
        sdpa=text(
            "kv.share.sdpa",
            diff=diff_text(view.sdpa_max_abs_diff),
            rows=view.sdpa_rows_compared,
            tol=f"{SDPA_ATOL:.0e}",
        ),
        sdpa_ok=view.sdpa_equal,
        leaders=None if kv == h else text("kv.share.leaders", diff=diff_text(view.leaders_max_abs_diff)),
        leaders_ok=view.leaders_equal,
    )


def sharing_table(view: SharingView) -> Table:
    """Every h_kv as a row: its kind, Q's and K's shapes, W_k + W_v parameters, cache bytes per token; the
    view's own h_kv is marked "(now)"."""
    rows = view.table
    return (
        Column(
            "h_kv",
            tuple(
                text("kv.share.now", kv=r.kv_heads) if r.kv_heads == view.kv_heads else str(r.kv_heads) for r in rows
            ),
        ),
        Column(text("kv.share.col.kind"), tuple(r.kind.upper() for r in rows)),
        Column(text("kv.share.col.q"), tuple(shape_text(r.q_shape) for r in rows)),
        Column(text("kv.share.col.k"), tuple(shape_text(r.k_shape) for r in rows)),
        Column(text("kv.share.col.params"), tuple(f"{r.kv_params:,}" for r in rows)),
        Column(text("kv.share.col.cache"), tuple(bytes_text(r.cache_bytes_per_token) for r in rows)),
    )
