"""Everything the Masks lab page computes: the mask from the page's choices, the attention run
(self- or cross-attention, batch of one or two), the polarity-bug demo, the fully-blocked-row
explanation, the hand-drawn grid edits, and the page's figures.

All masks here are in the seed's convention (True = keep, `masked_fill(mask == 0, fill)`);
the other polarity (True = blocked) exists only for display and for the bug demo.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

import plotly.graph_objects as go
import torch
import torch.nn.functional as F

from core.attention import AttentionTrace, MultiHeadAttention, build_input, build_model
from core.figures import (DEFAULT_PALETTE, axis_labels, click_targets, color_range, dark_cells, role_of,
                          scale as palette_scale)
from core.masks import (FILL_VALUES, causal_mask, combine, custom_mask, flip_polarity, full_grid,
                        fully_blocked_rows, mask_from_text, mask_to_text, padding_mask_from_lengths)
from core.scenario import PAD, default_custom_grid, padding_length
from core.limits import MAX_GRID_CHARS, SEQ_LEN_MAX, SEQ_LEN_MIN, T_K_MAX, T_K_MIN, check_range
from core.settings import Settings
from core.tokens import tokens as sentence_tokens

PARTS = ("causal", "padding", "custom")  # the masks that can be combined (AND)
EXTRA_PARTS = ("causal", "padding")  # offered on the page on top of the sidebar's kind
POLARITIES = ("keep", "block")  # what a 1 / True means: the seed's "keep", or many libraries' "block"
FILLS = tuple(FILL_VALUES)  # ("-1e9", "-inf")
BATCHES = (1, 2)
DEFAULT_T_K = 5
CROSS_SEED_OFFSET = 7919  # the key/value sequence of cross-attention: same seed, another stream
GRID_ACTIONS = ("all_on", "all_off", "causal", "invert")
TEXT_MAX_KEYS = 8  # cell numbers are printed in the figures up to this many keys


# ------------------------------------------------------------------ choices -> mask
def mask_parts(kind: str, extra=()) -> tuple[str, ...]:
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
        r, c = cell
        if not (0 <= r < T_q and 0 <= c < T_k):
            raise ValueError(f"cell {cell} is outside the {T_q}x{T_k} grid")
        grid = grid.clone()
        grid[r, c] = ~grid[r, c]
    else:
        raise ValueError(f"unknown grid action {action!r}")
    return mask_to_text(grid)


def cell_from_point(point: dict) -> tuple[int, int] | None:
    """(row, col) of a clicked plotly point: its customdata, else the 'i:token' axis labels."""
    cd = point.get("customdata")
    if isinstance(cd, (list, tuple)) and len(cd) >= 2:
        try:
            return int(cd[0]), int(cd[1])
        except (TypeError, ValueError):
            pass
    try:
        return int(str(point["y"]).split(":", 1)[0]), int(str(point["x"]).split(":", 1)[0])
    except (KeyError, ValueError):
        return None


def assemble_mask(parts, T_q: int, T_k: int, lengths=None, custom_grid: torch.Tensor | None = None):
    """The keep-mask (seed convention) for the chosen parts, (B, 1, T_q, T_k) or None for no mask."""
    pieces = []
    if "causal" in parts:
        pieces.append(causal_mask(T_q, T_k))  # (1, 1, T_q, T_k)
    if "padding" in parts:
        pieces.append(padding_mask_from_lengths(list(lengths), T_k))  # (B, 1, 1, T_k)
    if "custom" in parts:
        pieces.append(custom_mask(custom_grid))  # (1, 1, T_q, T_k)
    mask = combine(*pieces)
    if mask is None:
        return None
    return mask.expand(mask.shape[0], 1, T_q, T_k)  # (B, 1, T_q, T_k)


def shown_values(keep: torch.Tensor, polarity: str) -> torch.Tensor:
    """The 1/0 numbers stored in the mask tensor under a polarity: 'keep' 1 = keep, 'block' 1 = blocked."""
    keep = keep.bool()
    return (keep if polarity == "keep" else flip_polarity(keep)).int()


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

    def __post_init__(self):
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
    lengths = [min(max(int(n), 0), T_k) for n in setup.lengths] if "padding" in setup.parts else None
    mask = assemble_mask(setup.parts, T_q, T_k, lengths, setup.custom_grid)
    model = build_model(settings.d_model, settings.num_heads, settings.seed, fill_value=FILL_VALUES[setup.fill])
    x = build_input(B, T_q, settings.d_model, settings.seed)  # (B, T_q, d_model); sequence 0 is the shared X
    kv = build_input(B, T_k, settings.d_model, settings.seed + CROSS_SEED_OFFSET) if setup.cross else x
    with torch.no_grad():
        output, trace = model.forward_with_trace(x, kv, kv, mask)
    keep = full_grid(mask, B, T_q, T_k)  # (B, T_q, T_k)
    q_labels, k_labels = [], []
    for b in range(B):
        q = _words(settings.lang, b * T_q, T_q)
        k = _words(other_lang(settings.lang), b * T_k, T_k) if setup.cross else list(q)
        if lengths is not None:
            k = [tok if j < lengths[b] else PAD for j, tok in enumerate(k)]
            if not setup.cross:
                q = list(k)  # self-attention: the padded positions are queries too
        q_labels.append(q)
        k_labels.append(k)
    return LabRun(setup, model, x, kv, mask, trace, keep, fully_blocked_rows(mask, B, T_q, T_k),
                  torch.isnan(output).any(dim=-1), q_labels, k_labels)


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


# ------------------------------------------------------------------ the polarity bug
@dataclass(frozen=True)
class PolarityBug:
    intended: torch.Tensor  # (T, T) the causal keep-grid
    stored: torch.Tensor  # (T, T) 0/1 the same causal mask written as True = blocked
    seen_keep: torch.Tensor  # (T, T) what the seed's `mask == 0` code keeps when given `stored`
    correct: torch.Tensor  # (h, T, T) weights with the right polarity
    bug: torch.Tensor  # (h, T, T) weights with the wrong polarity
    labels: list[str]

    def summary(self, head: int) -> list[dict]:
        """Per query: weight on keys 0..i (past and itself) and on keys > i (future), right vs bug."""
        T = self.intended.shape[0]
        future = torch.ones(T, T, dtype=torch.bool).triu(1)  # (T, T) j > i
        rows = []
        for i in range(T):
            c, b = self.correct[head, i], self.bug[head, i]
            rows.append({"i": i, "token": self.labels[i],
                         "correct_past": float(c[~future[i]].sum()), "correct_future": float(c[future[i]].sum()),
                         "bug_past": float(b[~future[i]].sum()), "bug_future": float(b[future[i]].sum()),
                         "bug_nan": bool(torch.isnan(b).any())})
        return rows


def polarity_bug(settings: Settings, fill: str) -> PolarityBug:
    """A causal mask built as True = blocked, fed to the seed's `masked_fill(mask == 0, ...)`."""
    T = settings.seq_len
    model = build_model(settings.d_model, settings.num_heads, settings.seed, fill_value=FILL_VALUES[fill])
    x = build_input(1, T, settings.d_model, settings.seed)  # (1, T, d_model)
    intended = causal_mask(T)  # (1, 1, T, T) True = keep
    stored = flip_polarity(intended)  # True = blocked, as nn.MultiheadAttention expects
    with torch.no_grad():
        _, right = model.forward_with_trace(x, x, x, intended)
        _, wrong = model.forward_with_trace(x, x, x, stored)  # the bug: seed code reads 0 as blocked
    return PolarityBug(intended[0, 0], stored[0, 0].int(), stored[0, 0] != 0, right.weights[0], wrong.weights[0],
                       sentence_tokens(T, settings.lang))


# ------------------------------------------------------------------ a fully blocked row
@dataclass(frozen=True)
class FullRowDemo:
    seq: int
    query: int
    actual: bool  # True: this row really is fully blocked; False: a "what if" on this row
    scaled: torch.Tensor  # (T_k,) the row's scores / sqrt(d_k)
    masked: dict  # fill text -> (T_k,) masked row
    weights: dict  # fill text -> (T_k,) softmax of it
    shifted: dict  # fill text -> (T_k,) masked - row max (what exp() sees inside the softmax)


def full_row_demo(run: LabRun, head: int) -> FullRowDemo:
    """The first fully blocked row of the run (or query 0 if none) under both fill values."""
    hits = run.blocked_rows.nonzero().tolist()
    seq, query = hits[0] if hits else (0, 0)
    scaled = run.trace.scaled_scores[seq, head, query]  # (T_k,)
    masked, weights, shifted = {}, {}, {}
    for name, value in FILL_VALUES.items():
        row = torch.full_like(scaled, value)  # every key blocked
        masked[name] = row
        weights[name] = F.softmax(row, dim=-1)
        with torch.no_grad():
            shifted[name] = row - row.max()
    return FullRowDemo(seq, query, bool(hits), scaled, masked, weights, shifted)


# ------------------------------------------------------------------ figures
BLOCKED_COLOR = "#555555"
NAN_COLOR = "#e8590c"


def fmt_value(x: float, *, fill_text: str | None = None, digits: int = 3) -> str:
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "-inf" if x < 0 else "inf"
    if abs(x) >= 1e8:
        return fill_text or f"{x:.0e}".replace("e+0", "e").replace("e-0", "e-")
    if x == 0:
        return "0"
    return f"{x:.{digits}f}"


def _cell_text(m: torch.Tensor, fill_text: str | None = None) -> list[list[str]]:
    return [[fmt_value(v, fill_text=fill_text, digits=2) for v in row] for row in m.tolist()]


def text_layer(text, dark, x, y, *, size: int = 10) -> go.Scatter:
    """Cell labels as a text-only scatter: white on dark cells, near-black on light ones (plotly's
    heatmap text has one colour for all cells)."""
    xs, ys, ts, cs = [], [], [], []
    for r, row in enumerate(text):
        for c, value in enumerate(row):
            xs.append(x[c])
            ys.append(y[r])
            ts.append(value)
            cs.append("#ffffff" if dark[r][c] else "#1b1f24")
    return go.Scatter(x=xs, y=ys, text=ts, mode="text", textfont=dict(size=size, color=cs), hoverinfo="skip",
                      showlegend=False)


def _layout(fig: go.Figure, title: str, n_rows: int, n_cols: int, x_title: str, y_title: str,
            height: int | None = None) -> go.Figure:
    fig.update_layout(title=dict(text=title, font=dict(size=14)),
                      height=height or panel_height(n_rows),
                      margin=dict(l=8, r=8, t=36, b=8), clickmode="event+select", hovermode="closest",
                      plot_bgcolor="rgba(0,0,0,0)", dragmode=False, showlegend=False)
    # Fixed ranges: the invisible click targets must not pad the axes around the heatmap.
    fig.update_yaxes(type="category", title=y_title, range=[n_rows - 0.5, -0.5], autorange=False,
                     showticklabels=n_rows <= 16, dtick=1, showgrid=False, zeroline=False, fixedrange=True)
    fig.update_xaxes(type="category", title=x_title, range=[-0.5, n_cols - 0.5], autorange=False,
                     showticklabels=n_cols <= 16, dtick=1, tickangle=-45 if n_cols > 4 else 0,
                     showgrid=False, zeroline=False, fixedrange=True)
    return fig


def mask_figure(keep: torch.Tensor, polarity: str, q_labels, k_labels, *, title: str, x_title: str, y_title: str,
                clickable: bool = False, meta: str = "", height: int | None = None,
                words: tuple[str, str] = ("keep", "blocked"), palette: str = DEFAULT_PALETTE) -> go.Figure:
    """The mask as a grid: light = keep, dark = blocked; the numbers are those stored under `polarity`."""
    T_q, T_k = keep.shape
    shown = shown_values(keep, polarity)
    hover = [[f"{int(shown[r, c])} ({words[0] if keep[r, c] else words[1]})" for c in range(T_k)] for r in range(T_q)]
    x, y = axis_labels(k_labels), axis_labels(q_labels)
    fig = go.Figure(go.Heatmap(
        z=keep.int().tolist(), x=x, y=y, zmin=0, zmax=1, colorscale=palette_scale("mask", palette), showscale=False, xgap=1, ygap=1,
        customdata=hover,
        hovertemplate=f"{y_title} %{{y}}<br>{x_title} %{{x}}<br>mask = %{{customdata}}<extra></extra>"))
    if T_k <= 16:
        fig.add_trace(text_layer([[str(v) for v in row] for row in shown.tolist()], (~keep).tolist(), x, y,
                                 size=13 if T_k <= 8 else 11))
    if clickable:
        fig.add_trace(click_targets(T_q, T_k, k_labels, q_labels))
    fig.update_layout(meta=meta)
    return _layout(fig, title, T_q, T_k, x_title, y_title, height)


def scores_figure(masked: torch.Tensor, keep: torch.Tensor, fill_text: str, q_labels, k_labels, *, title: str,
                  x_title: str, y_title: str, zrange: tuple[float, float] | None = None,
                  height: int | None = None, palette: str = DEFAULT_PALETTE) -> go.Figure:
    """Masked scores: kept cells coloured by value, blocked cells grey and labelled with the fill value."""
    T_q, T_k = masked.shape
    m = masked.detach().float()
    zmin, zmax = zrange or color_range(m, signed=True)
    signed = palette_scale("signed", palette)
    kept = torch.where(keep, m.clamp(zmin, zmax), torch.full_like(m, float("nan")))
    hover_text = [[fmt_value(v, fill_text=fill_text, digits=4) for v in row] for row in m.tolist()]
    x, y = axis_labels(k_labels), axis_labels(q_labels)
    hover = f"{y_title} %{{y}}<br>{x_title} %{{x}}<br>%{{customdata}}<extra></extra>"
    fig = go.Figure(go.Heatmap(z=kept.tolist(), x=x, y=y, zmin=zmin, zmax=zmax, colorscale=signed,
                               showscale=True, xgap=1, ygap=1, customdata=hover_text, hovertemplate=hover))
    blocked = torch.where(keep, torch.full_like(m, float("nan")), torch.ones_like(m))
    fig.add_trace(go.Heatmap(z=blocked.tolist(), x=x, y=y, zmin=0, zmax=1,
                             colorscale=[[0, BLOCKED_COLOR], [1, BLOCKED_COLOR]], showscale=False, xgap=1, ygap=1,
                             customdata=hover_text, hovertemplate=hover))
    if T_k <= 12:
        text = _cell_text(m, fill_text)
        if T_k > TEXT_MAX_KEYS:  # only the fill value fits
            text = [[v if not keep[r, c] else "" for c, v in enumerate(row)] for r, row in enumerate(text)]
        dark = torch.tensor(dark_cells(m.clamp(zmin, zmax), zmin, zmax, signed)) | ~keep  # blocked cells: grey
        fig.add_trace(text_layer(text, dark.tolist(), x, y, size=13 if T_k <= TEXT_MAX_KEYS else 11))
    return _layout(fig, title, T_q, T_k, x_title, y_title, height)


def weights_figure(weights: torch.Tensor, q_labels, k_labels, *, title: str, x_title: str, y_title: str,
                   height: int | None = None, palette: str = DEFAULT_PALETTE) -> go.Figure:
    """Weights on 0..1 (the palette's weights scale); NaN cells get an orange cross and the text NaN."""
    T_q, T_k = weights.shape
    w = weights.detach().float()
    hover_text = [[fmt_value(v, digits=4) for v in row] for row in w.tolist()]
    x, y = axis_labels(k_labels), axis_labels(q_labels)
    hover = f"{y_title} %{{y}}<br>{x_title} %{{x}}<br>%{{customdata}}<extra></extra>"
    fig = go.Figure(go.Heatmap(z=w.tolist(), x=x, y=y, zmin=0, zmax=1, colorscale=palette_scale("weights", palette), showscale=True,
                               xgap=1, ygap=1, customdata=hover_text, hovertemplate=hover))
    nan = torch.isnan(w).nonzero().tolist()
    if nan:
        fig.add_trace(go.Scatter(
            x=[x[c] for _, c in nan], y=[y[r] for r, _ in nan], mode="markers",
            marker=dict(symbol="x-thin", size=max(5, min(16, int(300 / T_k))), color=NAN_COLOR,
                        line=dict(width=2, color=NAN_COLOR)),
            hovertemplate=f"{y_title} %{{y}}<br>{x_title} %{{x}}<br>NaN<extra></extra>", showlegend=False))
    if T_k <= TEXT_MAX_KEYS:
        text = [["" if v == "NaN" else v for v in row] for row in _cell_text(w)]
        fig.add_trace(text_layer(text, dark_cells(w, 0.0, 1.0, palette_scale("weights", palette)), x, y, size=13))
    return _layout(fig, title, T_q, T_k, x_title, y_title, height)


def panel_height(T_q: int) -> int:
    """Roughly square cells in a third of a wide page, never taller than a screen."""
    return max(300, min(680, 150 + 28 * T_q))


# ------------------------------------------------------------------ many panels as one chart
def tile_panels(panels: list[go.Figure], hovers: list[list[str]], *, x_title: str, y_title: str, height: int,
                meta: str = "") -> go.Figure:
    """A row of single-panel figures (mask_figure, scores_figure, weights_figure: the same queries, the
    same number of keys) as ONE chart.

    Why: the browser pays one or two animation frames per plotly chart and per subplot on every
    redraw, even when nothing changed (benchmarks/bench_browser.py). So every trace goes on one pair
    of axes. The queries stay categories (the same in every panel); the keys are numbers, panel n's
    key j at n * (C + gap) + j (x0/dx), labelled with their tokens: plotly places a heatmap's cell
    numbers by the heatmap's own column index, so panels side by side on category columns would all
    print their numbers into the first panel. A heatmap's hover names the key by its index in its
    panel (customdata) and takes `hovers[n]`, one template per heatmap of panel n. Each panel keeps
    its colour scale, cell numbers, NaN crosses and click targets (customdata [row, col]).
    """
    first = next(t for t in panels[0].data if t.type == "heatmap")
    xs, ys = list(first.x), list(first.y)  # 'j:token' per key, 'i:token' per query
    C, R = len(xs), len(ys)
    gap = max(1, math.ceil(C * 0.12))  # empty columns between panels
    col_of = {v: j for j, v in enumerate(xs)}
    key_index = [list(range(C)) for _ in range(R)]  # (R, C): the key j of each cell, for the hover
    traces, titles, tiles, tickvals, ticktext = [], [], [], [], []
    for n, (panel, templates) in enumerate(zip(panels, hovers)):
        col0 = n * (C + gap)
        templates = iter(templates)
        bar = None  # the trace whose colour bar this panel shows (its values' heatmap: scores, weights)
        for trace in _numbers_on_heatmaps(panel):
            if trace.type == "heatmap" and trace.showscale and bar is None:
                bar = len(traces)
            if trace.type == "heatmap":
                trace.update(x=None, x0=col0, dx=1, customdata=key_index, hovertemplate=next(templates),
                             z=_rounded(trace.z))
            else:  # scatter: its points name their key's category; the NaN crosses' hover names the key by index
                keys = [col_of[v] for v in trace.x]
                if trace.customdata is None:
                    trace.update(customdata=keys, hovertemplate=(trace.hovertemplate or "").replace("%{x}", "%{customdata}"))
                trace.update(x=[col0 + j for j in keys])
            traces.append(trace)
        title = panel.layout.title.text or ""
        titles.append(dict(x=col0 + (C - 1) / 2, y=-0.5, yanchor="bottom", text=title, showarrow=False,
                           font=dict(size=14)))
        tiles.append(dict(title=title, row=0, col=col0, bar=bar))
        tickvals += [col0 + j for j in range(C)]
        ticktext += xs
    width = len(panels) * (C + gap) - gap
    fig = go.Figure(traces)
    # meta: where each panel sits (the accessible name counts them), and the drawn grid: a new grid is
    # a new chart, so a click's selection never carries over to the next figure.
    fig.update_layout(height=height, margin=dict(l=8, r=8, t=12, b=8), annotations=titles, showlegend=False,
                      clickmode="event+select", hovermode="closest", plot_bgcolor="rgba(0,0,0,0)", dragmode=False,
                      meta=dict(tiles=tiles, rows=R, cols=C, per_row=len(panels), grid=meta, stack=True))
    show_keys = True  # every key labelled; on a crowded axis the renderer thins the labels to what fits
    fig.update_xaxes(range=[-0.5, width - 0.5], autorange=False, tickmode="array", tickvals=tickvals if show_keys else [],
                     ticktext=ticktext if show_keys else [], showticklabels=show_keys, tickangle=-45 if C > 4 else 0,
                     title=x_title, showgrid=False, zeroline=False, fixedrange=True)
    title_rows = max(0.6, 22 * R / max(height - 110, 100))  # room above the first row for the titles (~22 px)
    fig.update_yaxes(type="category", range=[R - 0.5, -0.5 - title_rows], autorange=False,
                     showticklabels=True, dtick=1, title=y_title, showgrid=False, zeroline=False, fixedrange=True)
    return fig


def _rounded(z) -> list[list]:
    """Colours need no 17 digits: 5 decimals (the hover shows 4) keep the chart's bytes down at T = 32."""
    return [[v if v is None or isinstance(v, int) else round(float(v), 5) for v in row] for row in z]


def _numbers_on_heatmaps(panel: go.Figure) -> list:
    """A panel's traces with its cell numbers (text_layer) moved onto its heatmaps as their text.

    Why: side by side, a panel's cells are narrow (on a phone ~13 px); a heatmap's own text is sized
    to its cells by plotly and coloured black or white per cell for contrast, where the fixed-size
    text of a scatter would overlap. A number goes on the heatmap that colours its cell (the grey of
    a blocked score, the colour of a kept one); one trace fewer per panel too.
    """
    heats = [t for t in panel.data if t.type == "heatmap"]
    layers = [t for t in panel.data if t.type == "scatter" and t.mode == "text"]
    if not layers or not heats:
        return list(panel.data)
    col = {v: j for j, v in enumerate(heats[0].x)}
    row = {v: i for i, v in enumerate(heats[0].y)}
    for heat in heats:
        z = heat.z
        text = [[""] * len(col) for _ in row]
        for layer in layers:
            for x, y, value in zip(layer.x, layer.y, layer.text):
                i, j = row[y], col[x]
                cell = z[i][j]
                if cell is not None and not (isinstance(cell, float) and math.isnan(cell)):
                    text[i][j] = value
        heat.update(text=text, texttemplate="%{text}")
    return [t for t in panel.data if not (t.type == "scatter" and t.mode == "text")]


def _hover(x_title: str, y_title: str, what: str) -> str:
    return f"{y_title} %{{y}}<br>{x_title} %{{customdata}}<br>{what}<extra></extra>"


def _mask_panel(keep: torch.Tensor, polarity: str, q_labels, k_labels, *, words, **kw) -> tuple[go.Figure, str]:
    """mask_figure, with the stored numbers as the heatmap's text (shown in the cells up to 16 keys, always
    in the hover), and its hover: 'mask = 1 (1 = keep)'."""
    fig = mask_figure(keep, polarity, q_labels, k_labels, words=words, **kw)
    heat = fig.data[0]
    if heat.text is None:  # no cell numbers (more than 16 keys): the hover still needs them
        heat.text = [[str(v) for v in row] for row in shown_values(keep, polarity).tolist()]
    one = words[0] if polarity == "keep" else words[1]
    return fig, _hover(kw["x_title"], kw["y_title"], f"mask = %{{text}} (1 = {one})")


def lab_figure(run: LabRun, b: int, head: int, polarity: str, *, titles: tuple[str, str, str], x_title: str,
               y_title: str, words: tuple[str, str], clickable: bool = False, meta: str = "",
               palette: str = DEFAULT_PALETTE, numbers: bool = True) -> go.Figure:
    """Sequence b's mask, masked scores and weights (head `head`) side by side in one chart.
    `clickable`: a click on a mask cell selects its click target, customdata [row, col].
    `numbers`: print the scores and weights in their cells (the mask's 0/1 always are)."""
    T_q = run.setup.T_q
    ql, kl = run.q_labels[b], run.k_labels[b]
    keep = run.keep[b]
    zrange = color_range(run.trace.masked_scores[:, head], signed=True)  # one colour range for every sequence
    kw = dict(x_title=x_title, y_title=y_title)
    mask, mask_hover = _mask_panel(keep, polarity, ql, kl, title=titles[0], clickable=clickable, words=words,
                                   palette=palette, **kw)
    scores = scores_figure(run.trace.masked_scores[b, head], keep, run.setup.fill, ql, kl, title=titles[1],
                           zrange=zrange, palette=palette, **kw)
    weights = weights_figure(run.trace.weights[b, head], ql, kl, title=titles[2], palette=palette, **kw)
    value = _hover(x_title, y_title, "%{z:.4f}")  # kept scores lie inside zrange: the colour's value is exact
    hovers = [[mask_hover], [value, _hover(x_title, y_title, f"{run.setup.fill} ({words[1]})")], [value]]
    fig = tile_panels([mask, scores, weights], hovers, x_title=x_title, y_title=y_title, height=panel_height(T_q),
                      meta=meta)
    return fig if numbers else _mask_numbers_only(fig)


def _mask_numbers_only(fig: go.Figure) -> go.Figure:
    """The figure without the numbers of its value panels (the mask keeps its 0/1, the polarity lesson).
    Why: plotly lays out every cell's text on each redraw, ~2 frames for 128 cells under load
    (benchmarks/bench_browser.py); the exact values stay in the hover, the table view and "One row"."""
    for trace in fig.data:
        if trace.type == "heatmap" and role_of(trace) != "mask":
            trace.update(text=None, texttemplate=None)
    return fig


def lab_tables(run: LabRun, b: int, head: int, polarity: str, titles: tuple[str, str, str]) -> list:
    """The table view of lab_figure: (title, row labels, column labels, values) per panel."""
    rows, cols = axis_labels(run.q_labels[b]), axis_labels(run.k_labels[b])
    return [(titles[0], rows, cols, shown_values(run.keep[b], polarity).tolist()),
            (titles[1], rows, cols, run.trace.masked_scores[b, head].tolist()),
            (titles[2], rows, cols, run.trace.weights[b, head].tolist())]


def bug_figures(bug: PolarityBug, head: int, *, titles: tuple[str, str, str, str], x_title: str, y_title: str,
                words: tuple[str, str], palette: str = DEFAULT_PALETTE, numbers: bool = True) -> tuple[go.Figure, go.Figure]:
    """The polarity bug in two charts of two panels: the causal mask stored as True = blocked beside what
    the seed's code keeps of it, then the right weights beside the wrong ones (head `head`). Two panels
    a chart stay readable on a phone; four in a row would not."""
    labels = bug.labels
    kw = dict(x_title=x_title, y_title=y_title)
    stored, stored_hover = _mask_panel(bug.intended, "block", labels, labels, title=titles[0], words=words,
                                       palette=palette, **kw)
    seen, seen_hover = _mask_panel(bug.seen_keep, "keep", labels, labels, title=titles[1], words=words,
                                   palette=palette, **kw)
    right = weights_figure(bug.correct[head], labels, labels, title=titles[2], palette=palette, **kw)
    wrong = weights_figure(bug.bug[head], labels, labels, title=titles[3], palette=palette, **kw)
    value = _hover(x_title, y_title, "%{z:.4f}")
    height = panel_height(len(labels))
    masks = tile_panels([stored, seen], [[stored_hover], [seen_hover]], x_title=x_title, y_title=y_title, height=height)
    weights = tile_panels([right, wrong], [[value], [value]], x_title=x_title, y_title=y_title, height=height)
    return masks, weights if numbers else _mask_numbers_only(weights)


def bug_tables(bug: PolarityBug, head: int, titles: tuple[str, str, str, str], part: int) -> list:
    """The table view of bug_figures' chart `part` (0: the masks, 1: the weights)."""
    labels = axis_labels(bug.labels)
    return [[(titles[0], labels, labels, bug.stored.tolist()),
             (titles[1], labels, labels, bug.seen_keep.int().tolist())],
            [(titles[2], labels, labels, bug.correct[head].tolist()),
             (titles[3], labels, labels, bug.bug[head].tolist())]][part]


def blocked_check(run: LabRun, head: int) -> dict:
    """What the page's check line says: how many cells are blocked, and the largest weight on a blocked
    cell of a row that still sees a key (0 is the promise of a mask), in head `head` and over all heads."""
    w = run.trace.weights  # (B, h, T_q, T_k)
    blocked = ~run.keep[:, None].expand_as(w)  # (B, h, T_q, T_k)
    outside_full = blocked & ~run.blocked_rows[:, None, :, None]  # blocked cells of rows that still see a key
    return {"blocked": int((~run.keep).sum()), "total": run.keep.numel(),
            "checked": int(outside_full[:, head].sum()),
            "largest": float(w[outside_full].abs().max()) if outside_full.any() else None}


# ------------------------------------------------------------------ a figure shared between sessions
def figure_json(fig: go.Figure) -> str:
    """A figure as text: what a server-wide cache keeps (immutable; every session builds its own copy)."""
    spec = json.loads(fig.to_json(validate=False))
    # No plotly template: Streamlit's theme styles the chart in the browser (theme="streamlit"), and
    # plotly's default one is ~7 KB of every message and most of the copying in to_dict(). (An empty
    # one, not none: a figure built from this text would get plotly's default template again.)
    spec["layout"]["template"] = {}
    return json.dumps(spec, separators=(",", ":"))


def figure_from_json(text: str) -> go.Figure:
    """A session's own figure from figure_json's text, without validating every cell again
    (what it holds was validated when it was built: ~3 ms instead of ~50 ms for three panels)."""
    return go.Figure(json.loads(text), _validate=False)
