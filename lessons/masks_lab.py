"""Everything the Masks lab page computes, as plain data: the mask from the page's choices, the attention
run (self- or cross-attention, batch of one or two), the polarity-bug demo, the fully-blocked-row
explanation, the hand-drawn grid edits, and the page's heatmaps as lessons.heatmap.Heatmap (the mask with
its stored 0/1 as marks, the masked scores with their blocked cells and fill value, the weights with NaN
marked). No Streamlit, no plotly, no wording: the page words the Text keys (i18n/strings/masks.py).

All masks here are in the seed's convention (True = keep, `masked_fill(mask == 0, fill)`);
the other polarity (True = blocked) exists only for display and for the bug demo.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import TypedDict

import numpy as np
import torch
import torch.nn.functional as F

from core.attention import AttentionTrace, MultiHeadAttention, build_input, build_model
from core.limits import MAX_GRID_CHARS, SEQ_LEN_MAX, SEQ_LEN_MIN, T_K_MAX, T_K_MIN, check_range
from core.masks import (
    FILL_VALUES,
    causal_mask,
    combine,
    custom_mask,
    flip_polarity,
    full_grid,
    fully_blocked_rows,
    mask_from_text,
    mask_to_text,
    padding_mask_from_lengths,
)
from core.reference import max_abs_diff, torch_reference
from lessons.heatmap import Heatmap, Mark, Panel, Text, axis_labels, readonly, text, value_range
from lessons.scenario import PAD, default_custom_grid, padding_length
from lessons.settings import Settings
from lessons.tokens import tokens as sentence_tokens
from lessons.url import Env, UrlKey, setting

PARTS = ("causal", "padding", "custom")  # the masks that can be combined (AND)
EXTRA_PARTS = ("causal", "padding")  # offered on the page on top of the sidebar's kind
POLARITIES = ("keep", "block")  # what a 1 / True means: the seed's "keep", or many libraries' "block"
FILLS = tuple(FILL_VALUES)  # ("-1e9", "-inf")
BATCHES = (1, 2)
DEFAULT_T_K = 5
CROSS_SEED_OFFSET = 7919  # the key/value sequence of cross-attention: same seed, another stream
GRID_ACTIONS = ("all_on", "all_off", "causal", "invert")


SECTIONS = ("grid", "row", "full", "polarity")  # the page's lazy tabs, in the order of a lesson


def _T_k(env: Env) -> int:
    """The keys' length: the cross-attention slider's T_k, else the queries' (self-attention)."""
    return int(env["masks_tk"]) if env["masks_cross"] else env["settings"].seq_len


# The page's URL keys (lessons/url.py; ui.url_state.settle reads, corrects and writes them back), in the order
# they depend on each other. Three more have their own handlers: masks_tab (ui.sections.lazy_tabs: one of
# SECTIONS, else the first), masks_extra (several of EXTRA_PARTS: ui.choice.labelled's pills drop the rest) and
# masks_grid (the hand-drawn mask's text: ui.free_text, parse_grid; a grid that does not fit falls back).
URL_KEYS: tuple[UrlKey, ...] = (
    UrlKey("masks_cross", "bool", False),
    UrlKey("masks_tk", "int", DEFAULT_T_K, lo=T_K_MIN, hi=T_K_MAX, note="cross-attention only"),
    UrlKey("masks_batch", "choice", "1", choices=("1", "2"), note="padding only"),
    UrlKey("masks_pad", "int", lambda env: default_padding(_T_k(env)), lo=0, hi=_T_k, note="0..T_k, batch of one"),
    UrlKey("masks_len0", "int", lambda env: default_lengths(_T_k(env))[0], lo=0, hi=_T_k, note="batch of two"),
    UrlKey("masks_len1", "int", lambda env: default_lengths(_T_k(env))[1], lo=0, hi=_T_k, note="batch of two"),
    UrlKey("masks_polarity", "choice", "keep", choices=POLARITIES),
    UrlKey("masks_fill", "choice", "-1e9", choices=FILLS),
    UrlKey("masks_head", "int", 0, lo=0, hi=setting("num_heads", -1)),
    UrlKey(
        "masks_row",
        "int",
        lambda env: min(2, env["settings"].seq_len - 1),
        lo=0,
        hi=setting("seq_len", -1),
        note="section row",
    ),
    UrlKey("masks_seq", "choice", "0", choices=("0", "1"), note="section row, batch of two"),
)
OWN_HANDLERS = ("masks_tab", "masks_extra", "masks_grid")
URL_KEY_NAMES = tuple(k.name for k in URL_KEYS)


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
    model = build_model(settings.d_model, settings.num_heads, settings.seed, fill_value=FILL_VALUES[setup.fill])
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


# ------------------------------------------------------------------ the polarity bug
class BugRow(TypedDict):
    """One query's line of the polarity bug's table (PolarityBug.summary)."""

    i: int
    token: str
    correct_past: float
    correct_future: float
    bug_past: float
    bug_future: float
    bug_nan: bool


@dataclass(frozen=True)
class PolarityBug:
    intended: torch.Tensor  # (T, T) the causal keep-grid
    stored: torch.Tensor  # (T, T) 0/1 the same causal mask written as True = blocked
    seen_keep: torch.Tensor  # (T, T) what the seed's `mask == 0` code keeps when given `stored`
    correct: torch.Tensor  # (h, T, T) weights with the right polarity
    bug: torch.Tensor  # (h, T, T) weights with the wrong polarity
    labels: list[str]

    def summary(self, head: int) -> list[BugRow]:
        """Per query: weight on keys 0..i (past and itself) and on keys > i (future), right vs bug."""
        T = self.intended.shape[0]
        future = torch.ones(T, T, dtype=torch.bool).triu(1)  # (T, T) j > i
        c, b = self.correct[head], self.bug[head]  # (T, T)

        def part(w: torch.Tensor, where: torch.Tensor) -> list[float]:
            """Row sums over `where` only (a NaN elsewhere in the row stays out)."""
            return torch.where(where, w, torch.zeros(())).sum(-1).tolist()

        cols = zip(
            part(c, ~future), part(c, future), part(b, ~future), part(b, future), torch.isnan(b).any(-1).tolist()
        )
        return [
            {
                "i": i,
                "token": self.labels[i],
                "correct_past": cp,
                "correct_future": cf,
                "bug_past": bp,
                "bug_future": bf,
                "bug_nan": bool(nan),
            }
            for i, (cp, cf, bp, bf, nan) in enumerate(cols)
        ]


def polarity_bug(settings: Settings, fill: str, model: MultiHeadAttention | None = None) -> PolarityBug:
    """A causal mask built as True = blocked, fed to the seed's `masked_fill(mask == 0, ...)`. `model`: the same
    settings' model with this fill value when the caller has it (a run of the lab), else built here."""
    T = settings.seq_len
    if model is None or model.fill_value != FILL_VALUES[fill]:
        model = build_model(settings.d_model, settings.num_heads, settings.seed, fill_value=FILL_VALUES[fill])
    x = build_input(1, T, settings.d_model, settings.seed)  # (1, T, d_model)
    intended = causal_mask(T)  # (1, 1, T, T) True = keep
    stored = flip_polarity(intended)  # True = blocked, as nn.MultiheadAttention expects
    with torch.no_grad():
        _, right = model.forward_with_trace(x, x, x, intended)
        _, wrong = model.forward_with_trace(x, x, x, stored)  # the bug: seed code reads 0 as blocked
    return PolarityBug(
        intended[0, 0],
        stored[0, 0].int(),
        stored[0, 0] != 0,
        right.weights[0],
        wrong.weights[0],
        sentence_tokens(T, settings.lang),
    )


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


# ------------------------------------------------------------------ heatmaps (plain data: lessons.heatmap)
MASK_STATES = ("masks.state.keep", "masks.state.blocked")  # the mask chart's codes: 0 = keep (light), 1 = blocked


def fmt_value(x: float, *, fill_text: str | None = None, digits: int = 3) -> str:
    """A number as the page's tables print it: NaN, -inf, the fill value's own text for ±1e9, else `digits`."""
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "-inf" if x < 0 else "inf"
    if abs(x) >= 1e8:
        return fill_text or f"{x:.0e}".replace("e+0", "e").replace("e-0", "e-")
    if x == 0:
        return "0"
    return f"{x:.{digits}f}"


def _mask_marks(polarity: str) -> tuple[Mark, Mark]:
    """Marks 1 and 2: the stored 0 and 1 under `polarity`, printed in the cell and worded in the hover
    ('mask = 0 (1 = keep)')."""
    zero, one = (Mark(str(v), text(f"masks.hover.mask.{polarity}", v=v)) for v in (0, 1))
    return zero, one


def mask_heatmap(
    keep: torch.Tensor | None,
    polarity: str,
    q_labels: Sequence[str],
    k_labels: Sequence[str],
    *,
    title: Text | None,
    name: str,
    clickable: bool = False,
    panels: Sequence[tuple[torch.Tensor | None, str, Text | None]] | None = None,
) -> Heatmap:
    """The mask as a grid: light = keep, dark = blocked (states, with a worded legend); each cell prints the
    number stored under `polarity` (1 = keep, or 1 = blocked). `panels`: several masks side by side
    [(keep, polarity, title)], else the one given."""
    rows, cols = axis_labels(q_labels), axis_labels(k_labels)
    specs = panels or [(keep, polarity, title)]
    marks: list[Mark] = []
    out: list[Panel] = []
    for keep_p, pol, title_p in specs:
        hover = marks[0].hover if marks else None  # every mask mark is worded (_mask_marks)
        if hover is None or hover.key != f"masks.hover.mask.{pol}":
            base = len(marks)
            marks.extend(_mask_marks(pol))
        else:
            base = 0
        k = torch.as_tensor(keep_p).bool()
        codes = shown_values(k, pol).numpy().astype(np.uint8) + 1 + base  # mark number (1-based)
        codes.setflags(write=False)
        out.append(Panel(values=readonly((~k).float()), title=title_p, row_labels=rows, col_labels=cols, marks=codes))
    return Heatmap(
        name=name,
        panels=tuple(out),
        role="state",
        vmin=0.0,
        vmax=1.0,
        decimals=0,
        row_axis=text("common.query"),
        col_axis=text("common.key"),
        clickable=clickable,
        states=MASK_STATES,
        marks=tuple(marks),
    )


def score_range(run: LabRun, head: int) -> tuple[float, float]:
    """One signed colour range for every sequence of head `head`: over the kept (unmasked) scores."""
    m = run.trace.masked_scores[:, head]  # (B, T_q, T_k)
    kept = m[run.keep & torch.isfinite(m)]
    return value_range("signed", [kept.numpy()])


def scores_heatmap(
    masked: torch.Tensor,
    keep: torch.Tensor,
    fill: str,
    q_labels: Sequence[str],
    k_labels: Sequence[str],
    *,
    title: Text | None,
    name: str,
    zrange: tuple[float, float],
) -> Heatmap:
    """Masked scores: kept cells coloured by value (signed), blocked cells hatched grey and printed with the
    fill value ('-1e9' or '-inf'), which their hover names too."""
    keep = torch.as_tensor(keep).bool()
    blocked = (~keep).numpy()
    blocked.setflags(write=False)
    marks = blocked.astype(np.uint8)  # mark 1 on every blocked cell: the fill value
    marks.setflags(write=False)
    panel = Panel(
        values=readonly(masked),
        title=title,
        row_labels=axis_labels(q_labels),
        col_labels=axis_labels(k_labels),
        blocked=blocked,
        marks=marks,
    )
    return Heatmap(
        name=name,
        panels=(panel,),
        role="signed",
        vmin=zrange[0],
        vmax=zrange[1],
        decimals=4,
        row_axis=text("common.query"),
        col_axis=text("common.key"),
        marks=(Mark(fill),),
    )


def weights_heatmap(
    weights_list: Sequence[torch.Tensor],
    q_labels: Sequence[str],
    k_labels: Sequence[str],
    *,
    titles: Sequence[Text | None],
    name: str,
) -> Heatmap:
    """Softmax weights on 0..1, one panel per matrix given; a NaN cell (a fully blocked row under -inf) is drawn
    as blocked (hatched: every key of its row is) and prints NaN (cell and hover: 'blocked (NaN)')."""
    rows, cols = axis_labels(q_labels), axis_labels(k_labels)
    panels: list[Panel] = []
    for w, title in zip(weights_list, titles):
        values = readonly(w)
        nan = np.isnan(values)
        marks: np.ndarray | None = None
        blocked: np.ndarray | None = None
        if nan.any():
            marks = nan.astype(np.uint8)
            marks.setflags(write=False)
            blocked = nan.copy()
            blocked.setflags(write=False)
        panels.append(Panel(values=values, title=title, row_labels=rows, col_labels=cols, blocked=blocked, marks=marks))
    return Heatmap(
        name=name,
        panels=tuple(panels),
        role="weights",
        vmin=0.0,
        vmax=1.0,
        decimals=4,
        row_axis=text("common.query"),
        col_axis=text("common.key"),
        marks=(Mark("NaN"),),
    )


@dataclass(frozen=True)
class LabView:
    """Sequence b's three charts of the first section: the mask, the masked scores, the weights (one head)."""

    mask: Heatmap
    scores: Heatmap
    weights: Heatmap


def lab_view(run: LabRun, b: int, head: int, polarity: str, *, clickable: bool = False) -> LabView:
    """Sequence b's mask (clickable: the hand-drawn grid), masked scores and weights of head `head`."""
    T_q, T_k = run.setup.T_q, run.setup.T_k
    ql, kl = run.q_labels[b], run.k_labels[b]
    keep = run.keep[b]
    tag = f"seq{b}-{polarity}-head{head}-T{T_q}x{T_k}"
    return LabView(
        mask=mask_heatmap(
            keep,
            polarity,
            ql,
            kl,
            title=text("masks.fig.mask", polarity=polarity),
            name=f"mask-{tag}",
            clickable=clickable,
        ),
        scores=scores_heatmap(
            run.trace.masked_scores[b, head],
            keep,
            run.setup.fill,
            ql,
            kl,
            title=text("masks.fig.scores", h=head),
            name=f"masked-scores-{tag}",
            zrange=score_range(run, head),
        ),
        weights=weights_heatmap(
            [run.trace.weights[b, head]], ql, kl, titles=[text("masks.fig.weights", h=head)], name=f"weights-{tag}"
        ),
    )


@dataclass(frozen=True)
class BugView:
    """The polarity bug's two charts: the stored mask beside what the seed's code keeps of it, then the right
    weights beside the wrong ones (head `head`). Two panels a chart stay readable on a phone."""

    masks: Heatmap
    weights: Heatmap


def bug_view(bug: PolarityBug, head: int) -> BugView:
    labels = bug.labels
    T = len(labels)
    return BugView(
        masks=mask_heatmap(
            None,
            "block",
            labels,
            labels,
            title=None,
            name=f"polarity-bug-masks-T{T}",
            panels=[(bug.intended, "block", text("masks.bug.stored")), (bug.seen_keep, "keep", text("masks.bug.seen"))],
        ),
        weights=weights_heatmap(
            [bug.correct[head], bug.bug[head]],
            labels,
            labels,
            titles=[text("masks.fig.correct", h=head), text("masks.fig.bug", h=head)],
            name=f"polarity-bug-weights-head{head}-T{T}",
        ),
    )


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


# ------------------------------------------------------------------ the page's tables (plain data)
# Column ids, never words: the page words "masks.col.<id>" (and "masks.bug.col.<id>").
ROW_COLUMNS = ("j", "key", "mask", "scaled", "masked", "weight")
FULL_COLUMNS = ("j", "scaled", "masked_f", "shift", "weight")
BUG_COLUMNS = ("i", "query", "cp", "cf", "bp", "bf")
FULL_ROWS_SHOWN = 4  # the fully blocked rows the warning names; more are "…"


def short(values: Iterable[str], n_head: int = 4, n_tail: int = 2) -> list[str]:
    """A long column as its first and last entries around an ellipsis (the rows in between look alike)."""
    out = list(values)
    return out if len(out) <= n_head + n_tail + 2 else out[:n_head] + ["…"] + out[-n_tail:]


def uniform_weight(n: int) -> str:
    """1/n as the tables print it: the weight of each of n keys in a row where every score is the same."""
    return fmt_value(1.0 / n)


def row_table(run: LabRun, seq: int, row: int, head: int, polarity: str) -> dict[str, list[str]]:
    """One query row up close: column id (ROW_COLUMNS) -> one value per key j."""
    trace, T_k, fill = run.trace, run.setup.T_k, run.setup.fill
    return {
        "j": [str(j) for j in range(T_k)],
        "key": list(run.k_labels[seq]),
        "mask": [str(int(v)) for v in shown_values(run.keep[seq, row], polarity).tolist()],
        "scaled": [fmt_value(v) for v in trace.scaled_scores[seq, head, row].tolist()],
        "masked": [fmt_value(v, fill_text=fill) for v in trace.masked_scores[seq, head, row].tolist()],
        "weight": [fmt_value(v) for v in trace.weights[seq, head, row].tolist()],
    }


@dataclass(frozen=True)
class FullRows:
    """The run's fully blocked rows: the first FULL_ROWS_SHOWN as (sequence, query, its token), whether there are
    more, how many, how many rows came out NaN, and the uniform weight 1/T_k a -1e9 row gets."""

    where: tuple[tuple[int, int, str], ...]
    more: bool
    count: int
    nan: int
    uniform: str


def full_rows(run: LabRun) -> FullRows:
    rows = run.blocked_rows.nonzero().tolist()
    where = tuple((b, i, run.q_labels[b][i]) for b, i in rows[:FULL_ROWS_SHOWN])
    nan = int(run.nan_rows.sum())
    return FullRows(where, len(rows) > FULL_ROWS_SHOWN, len(rows), nan, uniform_weight(run.setup.T_k))


def full_row_table(demo: FullRowDemo, fill: str) -> dict[str, list[str]]:
    """A fully blocked row under one fill value, shortened: column id (FULL_COLUMNS) -> values."""
    return {
        "j": short(str(j) for j in range(demo.scaled.numel())),
        "scaled": short(fmt_value(v) for v in demo.scaled.tolist()),
        "masked_f": short(fmt_value(v, fill_text=fill) for v in demo.masked[fill].tolist()),
        "shift": short(fmt_value(v) for v in demo.shifted[fill].tolist()),
        "weight": short(fmt_value(v) for v in demo.weights[fill].tolist()),
    }


def bug_table(summary: Sequence[BugRow]) -> dict[str, list[str]]:
    """The polarity bug's rows, shortened: column id (BUG_COLUMNS) -> values."""
    return {
        "i": short(str(r["i"]) for r in summary),
        "query": short(r["token"] for r in summary),
        "cp": short(fmt_value(r["correct_past"]) for r in summary),
        "cf": short(fmt_value(r["correct_future"]) for r in summary),
        "bp": short(fmt_value(r["bug_past"]) for r in summary),
        "bf": short(fmt_value(r["bug_future"]) for r in summary),
    }
