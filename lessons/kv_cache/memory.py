"""Section 3 of the KV cache page: KV-cache bytes against context length.

For h_kv = h, a GQA value and 1, for the published presets (core.accounting.PRESETS, sources cited there)
and for our own one-layer float32 model, whose formula is checked against a real filled KVCache.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from core.accounting import BYTES_PER_FLOAT16, BYTES_PER_FLOAT32, kv_cache_bytes, preset_cache_bytes
from core.attention import build_input, shared_model
from core.kv_cache import decode_all, head_groups
from lessons.heatmap import Text, text
from lessons.kv_cache.keys import CONTEXT_CHOICES, MODEL_CHOICES, OURS, PRESET_SLUGS, attention_kind, gqa_value
from lessons.kv_cache.tables import bytes_text
from lessons.settings import Settings
from lessons.tables import Column, Table

# Context lengths of the memory chart (x axis) and of its table (`kv_context`): GPT-2's 1k to 128k.
MEMORY_CONTEXTS = tuple(2**p for p in range(8, 18))  # 256 .. 131072


@dataclass(frozen=True)
class MemoryLine:
    kv_heads: int
    kind: str  # mha | gqa | mqa
    actual: bool  # the model's own h_kv (presets: published; ours: the page's kv_heads)
    bytes: np.ndarray  # (len(contexts),) int64: KV-cache bytes at each context length (a sliding window caps it)
    at_context: int  # bytes at the table's context length


@dataclass(frozen=True)
class PresetRow:
    slug: str
    name: str
    layers: int
    heads: int
    kv_heads: int
    head_dim: int
    kind: str
    bytes_at_context: int  # with its published h_kv, fp16, batch 1
    bytes_if_mha: int  # the same model with h_kv = h
    saving: float  # bytes_if_mha / bytes_at_context (the group size h / h_kv)
    source: str  # its config.json (core.accounting.PRESETS cites it)
    max_context: int | None  # the longest context the model takes (None: no fixed limit)
    fits: bool  # `context` is within it: otherwise the page marks the row "beyond its context", not a size
    window: int | None  # its sliding window: the cache holds at most this many tokens
    cached_tokens: int  # tokens the cache holds at `context` (capped by the window)


@dataclass(frozen=True)
class MemoryView:
    model: str  # the chart's model: a preset slug or 'ours'
    name: str  # its published name (a proper name, the same in every language) or 'ours'
    layers: int
    heads: int
    head_dim: int
    bytes_per_value: int  # 2 (fp16, presets) or 4 (float32, ours)
    contexts: np.ndarray  # (n,) the x axis: context length in tokens
    shown: np.ndarray  # (n,) bool: the contexts the model takes (the chart draws only these)
    max_context: int | None  # the chart's model: its longest context (None: ours, or no fixed limit)
    window: int | None  # the chart's model: its sliding window (its cache stops growing there)
    lines: tuple[MemoryLine, ...]  # h_kv = h, a GQA value (when h has one), 1 -- and the actual h_kv if other
    context: int  # the table's context length
    presets: tuple[PresetRow, ...]  # every preset at `context`
    ours_kv_heads: int
    ours_d_k: int  # d_k of the shared settings
    ours_bytes_at_context: int  # the formula for our model (1 layer, float32) at `context`
    ours_cache_tokens: int  # T: a real KVCache filled by decoding the shared input ...
    ours_cache_nbytes: int  # ... and its bytes as torch counts them
    ours_formula_at_T: int  # ... and the formula's: equal (the page prints both)


def _memory_lines(
    heads: int, actual: int, layers: int, head_dim: int, bytes_per_value: int, context: int, window: int | None
) -> tuple[MemoryLine, ...]:
    wanted = sorted({heads, gqa_value(heads) or heads, 1, actual}, reverse=True)  # MHA first, MQA last
    contexts = np.array(MEMORY_CONTEXTS, dtype=np.int64)
    held = contexts if window is None else np.minimum(contexts, window)  # a rolling cache holds the last `window`
    held_at_context = context if window is None else min(context, window)
    out = []
    for h_kv in wanted:
        per_token = kv_cache_bytes(layers, h_kv, head_dim, 1, 1, bytes_per_value)
        values = held * per_token
        values.setflags(write=False)
        out.append(
            MemoryLine(
                h_kv,
                attention_kind(heads, h_kv),
                h_kv == actual,
                values,
                kv_cache_bytes(layers, h_kv, head_dim, held_at_context, 1, bytes_per_value),
            )
        )
    return tuple(out)


@torch.no_grad()
def memory_view(settings: Settings, kv_heads: int, model: str, context: int) -> MemoryView:
    """KV-cache bytes = 2 x layers x h_kv x d_k x tokens x batch x bytes per value, over context length.

    For the chosen model at h_kv = h, its GQA value and 1 (and its own h_kv); every preset at `context`;
    and our own model (one layer, float32) where the formula is checked against a real filled KVCache.
    """
    h, T, d_k = settings.num_heads, settings.seq_len, settings.d_k
    head_groups(h, kv_heads)  # ValueError for an invalid kv_heads
    if model not in MODEL_CHOICES:
        raise ValueError(f"model must be one of {MODEL_CHOICES}, got {model!r}")
    if context not in CONTEXT_CHOICES:
        raise ValueError(f"context must be one of {CONTEXT_CHOICES}, got {context!r}")
    presets = tuple(
        PresetRow(
            slug,
            p.name,
            p.layers,
            p.heads,
            p.kv_heads,
            p.head_dim,
            attention_kind(p.heads, p.kv_heads),
            preset_cache_bytes(p, context),
            preset_cache_bytes(p, context, kv_heads=p.heads),
            p.heads / p.kv_heads,
            p.source,
            p.max_context,
            p.fits(context),
            p.sliding_window,
            p.cached_tokens(context),
        )
        for slug, p in PRESET_SLUGS.items()
    )
    max_context: int | None = None
    window: int | None = None
    if model == OURS:
        name, layers, heads, head_dim, bpv, actual = OURS, 1, h, d_k, BYTES_PER_FLOAT32, kv_heads
    else:
        p = PRESET_SLUGS[model]
        name, layers, heads, head_dim, actual = p.name, p.layers, p.heads, p.head_dim, p.kv_heads
        bpv, max_context, window = BYTES_PER_FLOAT16, p.max_context, p.sliding_window
    contexts = np.array(MEMORY_CONTEXTS, dtype=np.int64)
    contexts.setflags(write=False)
    shown = contexts <= max_context if max_context is not None else np.ones(len(contexts), dtype=bool)
    shown.setflags(write=False)
    ours = shared_model(settings.d_model, h, settings.seed, num_kv_heads=kv_heads)  # read-only: the cache is its own
    # A real cache, filled by one prefill step of the shared input (the same rows as T single steps, one pass).
    _, _, cache = decode_all(ours, build_input(1, T, settings.d_model, settings.seed), prefill=T)
    return MemoryView(
        model=model,
        name=name,
        layers=layers,
        heads=heads,
        head_dim=head_dim,
        bytes_per_value=bpv,
        contexts=contexts,
        shown=shown,
        max_context=max_context,
        window=window,
        lines=_memory_lines(heads, actual, layers, head_dim, bpv, context, window),
        context=context,
        presets=presets,
        ours_kv_heads=kv_heads,
        ours_d_k=d_k,
        ours_bytes_at_context=kv_cache_bytes(1, kv_heads, d_k, context, 1, BYTES_PER_FLOAT32),
        ours_cache_tokens=cache.length,
        ours_cache_nbytes=cache.nbytes,
        ours_formula_at_T=kv_cache_bytes(1, kv_heads, d_k, cache.length, 1, BYTES_PER_FLOAT32),
    )


@dataclass(frozen=True)
class MemoryShown:
    """What the memory section prints of a view (the chart is charts.lines.memory_chart's)."""

    chart: Text  # the chart's model: its name (ours worded), layers, heads, d_k, bytes per value
    limit: Text | None  # the chart's model: where its lines stop (maximum context) or flatten (sliding window)
    table_title: Text
    table: Table  # every preset at the context length (past a model's maximum context: "beyond", not a size)
    sources: str  # markdown links to each preset's config.json (names are proper names: no wording)
    ours: Text
    check: Text  # the formula against a real filled KVCache ...
    check_ok: bool  # ... equal


def _limit(r: PresetRow) -> Text | str:
    """The model's context column: its maximum context, or its sliding window."""
    if r.window is not None:
        return text("kv.mem.window", w=f"{r.window:,}")
    return "–" if r.max_context is None else f"{r.max_context:,}"


def _size(r: PresetRow, n: int, context: int) -> Text | str:
    """A preset's cache cell: the bytes, or "beyond its context" (no such cache exists), or the bytes of a rolling
    cache capped by the window (said, so 512 MiB at 128k tokens is not read as a mistake)."""
    if not r.fits:
        return text("kv.mem.beyond", max=f"{r.max_context:,}")
    if r.cached_tokens < context:
        return text("kv.mem.capped", b=bytes_text(n), w=f"{r.cached_tokens:,}")
    return bytes_text(n)


def _chart_limit(view: MemoryView) -> Text | None:
    if view.max_context is not None and view.max_context < int(view.contexts[-1]):
        return text("kv.mem.chart_stops", max=f"{view.max_context:,}")
    if view.window is not None and view.window < int(view.contexts[-1]):
        return text("kv.mem.chart_window", w=f"{view.window:,}")
    return None


def memory_shown(view: MemoryView) -> MemoryShown:
    p = view.presets
    context = f"{view.context:,}"
    return MemoryShown(
        chart=text(
            "kv.mem.chart",
            name=text("kv.mem.ours_name") if view.model == OURS else view.name,
            L=view.layers,
            h=view.heads,
            dk=view.head_dim,
            b=view.bytes_per_value,
        ),
        limit=_chart_limit(view),
        table_title=text("kv.mem.table", ctx=context),
        table=(
            Column(text("kv.mem.col.model"), tuple(r.name for r in p)),
            Column(text("kv.mem.col.layers"), tuple(r.layers for r in p)),
            Column(text("kv.mem.col.heads"), tuple(r.heads for r in p)),
            Column(text("kv.mem.col.kv"), tuple(f"{r.kv_heads} ({r.kind.upper()})" for r in p)),
            Column("d_k", tuple(r.head_dim for r in p)),
            Column(text("kv.mem.col.max"), tuple(_limit(r) for r in p)),
            Column(text("kv.mem.col.bytes"), tuple(_size(r, r.bytes_at_context, view.context) for r in p)),
            Column(text("kv.mem.col.mha"), tuple(_size(r, r.bytes_if_mha, view.context) for r in p)),
            Column(text("kv.mem.col.saving"), tuple(f"×{r.saving:g}" for r in p)),
        ),
        sources=" · ".join(f"[{r.name}]({r.source})" for r in p),
        ours=text(
            "kv.mem.ours",
            kv=view.ours_kv_heads,
            dk=view.ours_d_k,
            ctx=context,
            b=bytes_text(view.ours_bytes_at_context),
        ),
        check=text(
            "kv.mem.check",
            T=view.ours_cache_tokens,
            real=f"{view.ours_cache_nbytes:,}",
            formula=f"{view.ours_formula_at_T:,}",
        ),
        check_ok=view.ours_cache_nbytes == view.ours_formula_at_T,
    )
