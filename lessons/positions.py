"""The "Positions" page as plain data: attention alone cannot tell word order, and how positions fix it.

Issue 23's page has four sections (its tabs, `pos_tab`), each one function here:

- `shuffle_view`   "Shuffle the words": the shared scenario's X, weights and output before and after a
                   seeded shuffle, the permutation (which row moved where), the max abs difference after
                   un-shuffling (0 up to float error) and, with the page's causal toggle, how the mask breaks it.
- `add_view`       "Add positions": the per-head weights of one sentence with no positions, sinusoidal,
                   learned and RoPE positions. The learned table is the real model's, 384 wide; no d_model
                   of the shared settings is 384 (they are powers of two, 8..512), and a position vector is
                   *added* to a token vector, so it fits only the real model. Decision: the section has two
                   models (`pos_model`): "random" (the shared scenario: none / sinusoidal / RoPE, and
                   "learned" is returned as unavailable with the reason `learned_width` and both widths), and
                   "real" (all-MiniLM-L6-v2's first layer on one of its example sentences: all four kinds on
                   the same trained W^Q, W^K, W^V, core.positions.real_first_layer_weights). Both give the
                   numbers that show order: the shuffle gap per kind (0 only without positions), and on the
                   real model the gap between two copies of the same word (0 only without positions).
- `rope_view`      "RoPE is about distance": the (m, n) grid of scores for one q, k pair, its spread along
                   every diagonal (0 up to float error), the score against m - n, one pair of dimensions
                   turning (angle, before/after, its path), the fall-off with distance; base and d_k controls;
                   and the contrast: the same q, k with sinusoids *added* change along a diagonal.
                   An odd d_k is never computed: `parse_pos_dk` turns it into the nearest even d_k and
                   reports the reason `odd_d_k` (RoPE turns *pairs*; the page explains, nothing crashes).
- `learned_view`   The real model's learned position table: cosine similarity of positions as a heatmap
                   (next to the 384-wide sinusoidal table's for comparison), the table's shape and first values.

plus `quiz_items` (predict-then-reveal questions as data) and `URL_KEYS` with one `parse_<key>` each.

What this module returns holds numpy arrays (read-only), numbers, booleans and language-neutral keys only:
no wording, no figure. Token labels are data (the sentence's own words). It imports only `core`, numpy and
torch; it caches nothing (the page uses the server's shared cache). The real model comes in as an argument
(the page's once-per-server frozen `core.pretrained.load()`), so nothing here loads a file; likewise the
shared settings' scenario may come in as `run=` (the page's cached one; building the d_model 512 model is
most of the cost), else it is computed here.

Sizes sent to the browser stay within the 64 KB a step may cost: the shuffle section's X and output carry
at most DIMS_SHOWN_MAX columns, the similarity heatmap at most SIMILARITY_SIDE_MAX per side, the RoPE grid
at most ROPE_GRID_MAX; the per-head weights come whole ((h, T, T)) and the page draws one head of them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

from core import positions as P
from core.limits import (
    MAX_INT_CHARS,
    ROPE_BASE_MAX,
    ROPE_D_K_MAX,
    ROPE_D_K_MIN,
    ROPE_DISTANCE_MAX,
    ROPE_GRID_MAX,
    SHUFFLE_SEED_MAX,
    SHUFFLE_SEED_MIN,
    SINUSOID_POSITIONS_MAX,
)
from core.masks import causal_mask
from core.pretrained import EXAMPLES, SPECIAL_TOKENS, Pretrained
from lessons import scenario, url
from lessons.heatmap import Heatmap, Panel, text
from lessons.settings import Settings, clamp_int
from lessons.tokens import tokens as sentence_tokens
from lessons.url import Fix, UrlKey, shown

# ================================================================ the page's own URL keys
TABS = ("shuffle", "add", "rope", "learned")  # the sections, in the page's order
MODELS = ("random", "real")  # the "Add positions" section's model
KINDS = P.POSITION_KINDS  # ("none", "sinusoidal", "learned", "rope")
RANDOM_KINDS = ("none", "sinusoidal", "rope")  # what fits the random model (learned is 384 wide)
SPANS = (16, 32, 64, 128, 256, 512)  # positions of the learned table shown in its similarity heatmap
# Cells per side of that heatmap: a wider span is shown every (span / 64)-th position. Its two panels (learned,
# sinusoidal) travel as float32 (charts/payload.py): 2 x 64 x 64 x 4 bytes = 32 KB, half the 64 KB a view may
# send; 128 per side was 131 KB.
SIMILARITY_SIDE_MAX = 64
# Columns of the X and output heatmaps of the shuffle section: four (T, d_model) charts at d_model 512, T 32
# would be ~4 x 34 KB, over the 64 KB a step may cost (docs/DEVELOPING.md), so they carry the first 64
# dimensions (the shuffle moves whole rows: every column tells the same story); every gap uses all of them.
DIMS_SHOWN_MAX = 64
GRID_DEFAULT = 16
FALLOFF_DISTANCE = ROPE_DISTANCE_MAX  # the fall-off curve runs over distances 0..512 (cheap: 256 x 513 dots)
REAL_HEADS, REAL_WIDTH = 12, 384  # all-MiniLM-L6-v2's heads and width (tested against the loaded model)
EQUAL_TOL = 1e-5  # what the page calls "equal up to float error" (the proofs use 1e-6 for equivariance)


def _fix(key: str, raw: object, used: object, reason: str) -> Fix:
    return Fix(key, shown(raw), str(used), reason)


def _choice(key: str, raw: object, options: tuple[Any, ...], default: Any) -> tuple[Any, Fix | None]:
    """A choice from raw text: the option whose text it is, else the default (reason unreadable)."""
    if url.missing(raw):
        return default, None
    text = str(raw).strip()
    for option in options:
        if text == str(option):
            return option, None
    if isinstance(options[0], int) and not isinstance(raw, bool) and url.is_number(raw):
        used, _ = clamp_int(raw, options[0], options[-1], default, options)  # the nearest: "100" -> 128, "1e9" -> 512
        return used, _fix(key, raw, used, "out_of_range")
    return default, _fix(key, raw, default, "unreadable")


def parse_pos_tab(raw: object) -> tuple[str, Fix | None]:
    """The open section; anything else opens the first one."""
    return _choice("pos_tab", raw, TABS, URL_KEY["pos_tab"].default)


def parse_pos_model(raw: object) -> tuple[str, Fix | None]:
    """Which model the "Add positions" section runs: the shared random one or the real one."""
    return _choice("pos_model", raw, MODELS, URL_KEY["pos_model"].default)


def parse_pos_span(raw: object) -> tuple[int, Fix | None]:
    """One of SPANS; a number in between goes to the nearest (ties to the smaller)."""
    return _choice("pos_span", raw, SPANS, URL_KEY["pos_span"].default)


def parse_pos_causal(raw: object) -> tuple[bool, Fix | None]:
    """A toggle as Streamlit writes it ('true' / 'false'; 1/0, yes/no, on/off accepted too); else off."""
    if url.missing(raw):
        return False, None
    if isinstance(raw, bool):
        return raw, None
    text = str(raw).strip().lower()
    if text in url.TRUE:
        return True, None if text == "true" else _fix("pos_causal", raw, "true", "unreadable")
    if text in url.FALSE:
        return False, None if text == "false" else _fix("pos_causal", raw, "false", "unreadable")
    return False, _fix("pos_causal", raw, "false", "unreadable")


def heads_of(settings: Settings, model: str) -> int:
    """Heads of the section's model: the shared num_heads, or the real model's 12 (REAL_HEADS)."""
    return REAL_HEADS if model == "real" else settings.num_heads


def default_dk(settings: Settings) -> int:
    """The RoPE section starts at the shared d_k, so its q and k are the scenario's; an odd shared d_k (only
    d_k = 1, e.g. d_model 8 with 8 heads) cannot be turned, so it starts at the nearest even one."""
    return nearest_even(settings.d_k)


def nearest_even(value: int) -> int:
    """The even d_k nearest to value within ROPE_D_K_MIN..ROPE_D_K_MAX; an odd value between two goes down."""
    value = min(max(value, ROPE_D_K_MIN), ROPE_D_K_MAX)
    return value if value % 2 == 0 else (value - 1 if value - 1 >= ROPE_D_K_MIN else value + 1)


def parse_pos_dk(raw: object, settings: Settings) -> tuple[int, Fix | None]:
    """An even d_k. Odd ones become the nearest even one with reason `odd_d_k` (RoPE turns pairs of numbers,
    an odd d_k leaves one without a partner); out of range clamps; garbage gives the default."""
    default = default_dk(settings)
    if url.missing(raw):
        return default, None
    if not url.is_number(raw) or isinstance(raw, bool):
        return default, _fix("pos_dk", raw, default, "unreadable")
    value, ok = clamp_int(raw, ROPE_D_K_MIN, ROPE_D_K_MAX, default)
    whole, _ = clamp_int(raw, -(10**18), 10**18, default)  # the number asked for, before clamping ("1" is odd too)
    if whole % 2:
        used = nearest_even(whole)
        return used, _fix("pos_dk", raw, used, "odd_d_k")
    return value, None if ok else _fix("pos_dk", raw, value, "out_of_range")


def parse_pos_base(raw: object) -> tuple[float, Fix | None]:
    """A RoPE base above 1, at most ROPE_BASE_MAX. At most 1 (or 0, negative) -> the default 10 000 with
    reason `base_at_most_1` (the page says why: with base 1 every pair turns alike; core raises for it);
    above the limit clamps; unreadable, NaN or infinite text -> the default."""
    default = _float_default("pos_base")
    if url.missing(raw):
        return default, None
    if isinstance(raw, bool):
        return default, _fix("pos_base", raw, default, "unreadable")
    text = str(raw).strip()
    if len(text) > MAX_INT_CHARS:
        body = text[1:] if text[:1] in "+-" else text
        if not body.isdigit():
            return default, _fix("pos_base", raw, _num(default), "unreadable")
        value = -math.inf if text.startswith("-") else math.inf
    else:
        try:
            value = float(text)
        except ValueError:
            return default, _fix("pos_base", raw, _num(default), "unreadable")
    if math.isnan(value):
        return default, _fix("pos_base", raw, _num(default), "unreadable")
    if value <= 1:
        return default, _fix("pos_base", raw, _num(default), "base_at_most_1")
    if value > ROPE_BASE_MAX:
        return ROPE_BASE_MAX, _fix("pos_base", raw, _num(ROPE_BASE_MAX), "out_of_range")
    return value, None


def _num(value: float) -> str:
    return f"{value:g}"


@dataclass(frozen=True)
class PageValues:
    """Every URL value of the page, corrected, and what was corrected (in URL_KEYS order)."""

    tab: str
    shuffle: int
    causal: bool
    model: str
    head: int  # of the add section's model (`model`); the shuffle section uses head_random
    head_random: int
    example: int
    d_k: int
    base: float
    grid: int
    pair: int
    at: int
    span: int
    fixes: tuple[Fix, ...] = field(default=())


def _heads_hi(env: url.Env) -> int:
    return heads_of(env["settings"], env["pos_model"]) - 1


# The page's URL keys, declared once (lessons/url.py parses them in this order: pos_head's range depends on
# pos_model, pos_pair's on pos_dk). Keys whose correction the page explains with its own reason (RoPE's odd
# d_k, a base at most 1, a toggle written another way) name their rule.
URL_KEYS: tuple[UrlKey, ...] = (
    UrlKey("pos_tab", "choice", "shuffle", choices=TABS, rule=lambda raw, env: parse_pos_tab(raw)),
    UrlKey("pos_shuffle", "int", 1, lo=SHUFFLE_SEED_MIN, hi=SHUFFLE_SEED_MAX),
    UrlKey("pos_causal", "bool", False, rule=lambda raw, env: parse_pos_causal(raw)),
    UrlKey("pos_model", "choice", "random", choices=MODELS, rule=lambda raw, env: parse_pos_model(raw)),
    UrlKey("pos_head", "int", 0, lo=0, hi=_heads_hi, note="0..h-1 of the section's model (12 on the real one)"),
    UrlKey("pos_example", "int", 0, lo=0, hi=len(EXAMPLES) - 1),
    UrlKey(
        "pos_dk",
        "even_int",
        lambda env: default_dk(env["settings"]),
        lo=ROPE_D_K_MIN,
        hi=ROPE_D_K_MAX,
        rule=lambda raw, env: parse_pos_dk(raw, env["settings"]),
        note="the shared d_k when it is even, else the nearest even d_k (d_k 1 -> 2)",
    ),
    UrlKey(
        "pos_base",
        "float",
        P.ROPE_BASE,
        lo=1.0,
        hi=ROPE_BASE_MAX,
        rule=lambda raw, env: parse_pos_base(raw),
        note="above 1 (1 itself is refused)",
    ),
    UrlKey("pos_grid", "int", GRID_DEFAULT, lo=2, hi=ROPE_GRID_MAX),
    UrlKey("pos_pair", "int", 0, lo=0, hi=lambda env: env["pos_dk"] // 2 - 1, note="0..d_k/2-1"),
    UrlKey("pos_at", "int", 3, lo=0, hi=ROPE_DISTANCE_MAX),
    UrlKey("pos_span", "choice", 64, choices=SPANS, rule=lambda raw, env: parse_pos_span(raw)),
)
URL_KEY = {k.name: k for k in URL_KEYS}


def _float_default(name: str) -> float:
    value = URL_KEY[name].default
    assert isinstance(value, (int, float)), name
    return float(value)


FIELD = {
    "pos_tab": "tab",
    "pos_shuffle": "shuffle",
    "pos_causal": "causal",
    "pos_model": "model",
    "pos_head": "head",
    "pos_example": "example",
    "pos_dk": "d_k",
    "pos_base": "base",
    "pos_grid": "grid",
    "pos_pair": "pair",
    "pos_at": "at",
    "pos_span": "span",
}  # URL key -> PageValues field


def parse_url(raw: Mapping[str, object], settings: Settings) -> PageValues:
    """All of the page's URL values from a raw mapping (missing keys: defaults, silently)."""
    values, fixes = url.parse(URL_KEYS, raw, {"settings": settings})
    got = {FIELD[k]: v for k, v in values.items()}
    got["head_random"] = min(got["head"], settings.num_heads - 1)
    return PageValues(**got, fixes=tuple(fixes))


# ================================================================ plain data the page draws
def _np(t: torch.Tensor) -> np.ndarray:
    """A read-only float32 (or int64) numpy copy: what a lesson hands out cannot be changed by a page."""
    a = t.detach().cpu().numpy().copy()
    a.setflags(write=False)
    return a


def _heatmap(
    name: str,
    panels: list[tuple[np.ndarray, tuple[str, ...], tuple[str, ...], str | None]],
    role: str,
    vmin: float,
    vmax: float,
    row_axis: str,
    col_axis: str,
) -> Heatmap:
    """One chart in lessons/heatmap.py's plain form: `panels` are (values, row labels, col labels, title key).

    Axis keys are "pos.axis.<what>" (query, key, token, dimension, position, query_position, key_position) and
    panel titles "pos.panel.before" / "pos.panel.after" / "pos.kind.<kind>": the page words them."""
    return Heatmap(
        name=name,
        panels=tuple(
            Panel(values=v, title=text(title) if title else None, row_labels=rows, col_labels=cols)
            for v, rows, cols, title in panels
        ),
        role=role,
        vmin=float(vmin),
        vmax=float(vmax),
        row_axis=text(f"pos.axis.{row_axis}"),
        col_axis=text(f"pos.axis.{col_axis}"),
    )


@dataclass(frozen=True)
class Series:
    """A line: y against x; x_axis / y_axis / name are keys the page words."""

    x: np.ndarray
    y: np.ndarray
    x_axis: str
    y_axis: str
    name: str


def _signed_range(*arrays: np.ndarray) -> tuple[float, float]:
    top = max(float(np.abs(a).max()) if a.size else 0.0 for a in arrays) or 1.0
    return -top, top


def _labels(tokens: list[str]) -> tuple[str, ...]:
    """Row labels "i:token": a sentence repeats words ("the" twice), a label must name one row."""
    return tuple(f"{i}:{tok}" for i, tok in enumerate(tokens))


def _scenario(settings: Settings, run: scenario.Scenario | None) -> scenario.Scenario:
    """The shared settings' run: the page's (server-cached) one when it passes it, else computed here.

    Why optional: building the model is most of the cost at d_model 512 (~20 ms of ~25); the page already
    holds the scenario for these settings, and this module caches nothing itself.
    """
    if run is None:
        return scenario.run(settings)
    if run.settings != settings:
        raise ValueError(f"the scenario passed is for {run.settings}, not {settings}")
    return run


# ================================================================ 1. Shuffle the words
@dataclass(frozen=True)
class ShuffleView:
    """Before and after one seeded shuffle of the shared scenario's tokens.

    perm[i] = the original row now at row i (so tokens_after[i] = tokens[perm[i]]); inverse undoes it.
    The heatmaps of the chosen mode (causal or not) for head `head`; the gaps of both modes, so the page
    can print "without the mask: 0, with it: 0.43" whichever is open.
    """

    T: int
    d_model: int
    head: int
    causal: bool
    perm: np.ndarray  # (T,) int
    inverse: np.ndarray  # (T,) int
    moved: np.ndarray  # (T,) bool: row i of the shuffled run holds a different token than row i before
    tokens: tuple[str, ...]  # labels before ("i:token")
    tokens_after: tuple[str, ...]  # labels after: the token and its ORIGINAL index, so a row can be followed
    dims_shown: int  # columns of the X and output heatmaps: min(d_model, DIMS_SHOWN_MAX)
    # Each chart has two panels, before (panel 0) and after the shuffle (panel 1), on one colour range:
    x: Heatmap  # (T, dims_shown) signed, rows tokens, cols dimensions 0..dims_shown-1
    weights: Heatmap  # (T, T) of `head`, rows queries, cols keys
    output: Heatmap  # (T, dims_shown) signed
    row_gaps: np.ndarray  # (T,) max |output_after[i] - output_before[perm[i]]| over all d_model: row i is row perm[i]
    x_moved_gap: float  # max |x_after - x_before[perm]|: the shuffle moves rows and changes no number (0 exactly)
    output_gap: float  # max |output - un-shuffled output after| in this mode
    weights_gap: float  # the same for the weights, every head
    free_output_gap: float  # without a mask (0 up to float error)
    free_weights_gap: float
    causal_output_gap: float  # with the causal mask (large: the symmetry is broken)
    causal_weights_gap: float
    equal: bool  # output_gap and weights_gap <= EQUAL_TOL in this mode
    front: int  # the original index of the token the shuffle put first
    front_self_before: float  # under the causal mask, its weight on itself where it was (head `head`)
    front_self_after: float  # and at position 0, where it sees only itself (1.0)
    notes: tuple[str, ...]  # "shared_mask_not_used" when the shared mask is not "none" (the toggle decides here)


def shuffle_view(
    settings: Settings, shuffle_seed: int, causal: bool, head: int, run: scenario.Scenario | None = None
) -> ShuffleView:
    """Section 1. The shared scenario's model and X (the numbers of every other page), run on X and on
    X with its rows shuffled by `shuffle_seed`, without a mask or with the causal mask (`causal`).

    Why the page's own toggle and not the shared mask: the lesson is "no mask: equivariant; causal: broken",
    and padding / hand-drawn masks would only blur it; the shared mask is noted as not used here.
    """
    run = _scenario(settings, run)
    T, d = settings.seq_len, settings.d_model
    head = min(max(int(head), 0), settings.num_heads - 1)
    perm = P.random_permutation(T, shuffle_seed)
    inv = P.inverse_permutation(perm)
    free = P.permutation_run(run.model, run.x, perm)
    masked = P.permutation_run(run.model, run.x, perm, causal_mask(T))
    shown = masked if causal else free
    words = sentence_tokens(T, settings.lang)  # the words, without the padding example's [PAD] labels
    labels = _labels(words)
    after = tuple(labels[int(p)] for p in perm)
    cut = min(d, DIMS_SHOWN_MAX)
    dims = tuple(str(j) for j in range(cut))
    x_b, x_a = _np(run.x[0, :, :cut]), _np(shown.x_shuffled[0, :, :cut])
    o_b, o_a = _np(shown.trace.output[0, :, :cut]), _np(shown.trace_shuffled.output[0, :, :cut])
    row_gaps = (shown.trace_shuffled.output[0] - shown.trace.output[0, perm]).abs().amax(-1)  # (T,)
    xr, orng = _signed_range(x_b), _signed_range(o_b, o_a)
    w_b, w_a = _np(shown.trace.weights[0, head]), _np(shown.trace_shuffled.weights[0, head])
    front = int(perm[0])
    cw, cws = masked.trace.weights[0, head], masked.trace_shuffled.weights[0, head]
    return ShuffleView(
        T=T,
        d_model=d,
        head=head,
        causal=causal,
        perm=_np(perm),
        inverse=_np(inv),
        moved=_np(perm != torch.arange(T)),
        tokens=labels,
        tokens_after=after,
        dims_shown=cut,
        x=_heatmap(
            "x",
            [(x_b, labels, dims, "pos.panel.before"), (x_a, after, dims, "pos.panel.after")],
            "signed",
            *xr,
            "token",
            "dimension",
        ),
        weights=_heatmap(
            f"weights-head{head}",
            [(w_b, labels, labels, "pos.panel.before"), (w_a, after, after, "pos.panel.after")],
            "weights",
            0.0,
            1.0,
            "query",
            "key",
        ),
        output=_heatmap(
            "output",
            [(o_b, labels, dims, "pos.panel.before"), (o_a, after, dims, "pos.panel.after")],
            "signed",
            *orng,
            "token",
            "dimension",
        ),
        row_gaps=_np(row_gaps),
        x_moved_gap=float((shown.x_shuffled - run.x[:, perm]).abs().max()),
        output_gap=shown.output_gap,
        weights_gap=shown.weights_gap,
        free_output_gap=free.output_gap,
        free_weights_gap=free.weights_gap,
        causal_output_gap=masked.output_gap,
        causal_weights_gap=masked.weights_gap,
        equal=shown.output_gap <= EQUAL_TOL and shown.weights_gap <= EQUAL_TOL,
        front=front,
        front_self_before=float(cw[front, front]),
        front_self_after=float(cws[0, 0]),
        notes=("shared_mask_not_used",) if settings.mask != "none" else (),
    )


# ================================================================ 2. Add positions
@dataclass(frozen=True)
class KindResult:
    """One kind of positions on the section's sentence."""

    kind: str
    available: bool
    reason: str  # "" or why not: "learned_width" (384-wide table, d_model wide X), "rope_odd_d_k",
    # "rope_d_k_max" (d_k above core.limits.ROPE_D_K_MAX: d_model 512 with one head)
    weights: np.ndarray | None  # (h, T, T)
    shuffle_gap: float | None  # max |weights - un-shuffled weights of the shuffled sentence|: 0 only without positions
    twin_gap: float | None  # real model: max |row of the first copy - row of the second| of a repeated word
    change: float | None  # max |weights - weights without positions|: how much the positions moved them
    trained: bool = False  # the model was trained with this kind (only "learned" on the real model)
    added_norm: float | None = None  # mean length of the rows added to the tokens (0: none, RoPE add nothing)


@dataclass(frozen=True)
class AddView:
    """The same sentence under every kind of positions, side by side for one head (and all heads per kind).

    model "random": the shared scenario (d_model, h, T, seed, the shared mask), its tokens; "learned" is not
    available (reason "learned_width": table_width 384 vs d_model) and the page points to model "real".
    model "real": all-MiniLM-L6-v2's layer 0 (12 heads, d_k 32) on EXAMPLES[example]: all four kinds.
    """

    model: str
    head: int
    num_heads: int
    d_model: int
    d_k: int
    table_width: int  # the learned table's width (384)
    base: float
    tokens: tuple[str, ...]
    kinds: tuple[KindResult, ...]  # in KINDS order
    side_by_side: Heatmap  # (available kinds, T, T) of `head`, panels = their kind keys, one colour range 0..1
    perm: np.ndarray  # the shuffle used for shuffle_gap (pos_shuffle's seed)
    twin: tuple[int, int] | None  # real model: the two positions of a repeated word, else None
    scenario_gap: float | None  # random model: max |kind none - the scenario's own weights| (the other pages' numbers)
    token_norm: float  # mean length of the tokens' vectors before positions (compare with each kind's added_norm:
    # on the real model the sinusoid rows are ~11x longer than its token vectors and ~25x its learned rows,
    # so after the LayerNorm they drown the words -- one reason a model needs the positions it was trained with)
    notes: tuple[str, ...]


def _unshuffle(w: torch.Tensor, inv: torch.Tensor) -> torch.Tensor:
    return w[..., inv, :][..., :, inv]


def _mean_norm(rows: torch.Tensor) -> float:
    return float(rows.norm(dim=-1).mean())


def twin_positions(tokens: list[str]) -> tuple[int, int] | None:
    """The first word (not [CLS]/[SEP]) that occurs twice: its two positions."""
    seen: dict[str, int] = {}
    for i, tok in enumerate(tokens):
        if tok in SPECIAL_TOKENS:
            continue
        if tok in seen:
            return seen[tok], i
        seen[tok] = i
    return None


def add_view(
    settings: Settings,
    model: str,
    head: int,
    base: float,
    shuffle_seed: int,
    real: Pretrained | None = None,
    example: int = 0,
    run: scenario.Scenario | None = None,
) -> AddView:
    """Section 2. Per-head weights of one sentence with no / sinusoidal / learned / RoPE positions.

    Why also the shuffle gap per kind: it is the number that says "now order matters" (0 only for none).
    `real` (the loaded real model) is needed only for model "real" (and for the table width).
    """
    if model not in MODELS:
        raise ValueError(f"model must be one of {MODELS}, got {model!r}")
    width = int(P.learned_table(real).shape[1]) if real is not None else REAL_WIDTH
    results: list[KindResult] = []
    notes: list[str] = []
    if model == "random":
        run = _scenario(settings, run)
        h, d_k, T = settings.num_heads, settings.d_k, settings.seq_len
        head = min(max(int(head), 0), h - 1)
        tokens = list(run.tokens)
        perm = P.random_permutation(T, shuffle_seed)
        inv = P.inverse_permutation(perm)
        none = None
        scenario_gap = None
        for kind in KINDS:
            if kind == "learned":
                results.append(KindResult(kind, False, "learned_width", None, None, None, None))
                continue
            if kind == "rope" and d_k % 2:
                results.append(KindResult(kind, False, "rope_odd_d_k", None, None, None, None))
                notes.append("rope_odd_d_k")
                continue
            if kind == "rope" and d_k > ROPE_D_K_MAX:  # d_model 512 with one head: past core's RoPE limit
                results.append(KindResult(kind, False, "rope_d_k_max", None, None, None, None))
                continue
            w = P.positioned_weights(run.model, run.x, kind, base=base, mask=run.mask)[0]  # (h, T, T)
            added = _mean_norm(P.sinusoidal_table(T, settings.d_model)) if kind == "sinusoidal" else 0.0
            # the shuffled words; the positions (and the mask) stay in their slots
            w_s = P.positioned_weights(run.model, run.x[:, perm], kind, base=base, mask=run.mask)[0]
            if kind == "none":
                none = w
                scenario_gap = float((w - run.trace.weights[0]).abs().max())
            assert none is not None  # KINDS starts with "none"
            results.append(
                KindResult(
                    kind,
                    True,
                    "",
                    _np(w),
                    float((_unshuffle(w_s, inv) - w).abs().max()),
                    None,
                    float((w - none).abs().max()),
                    added_norm=added,
                )
            )
        twin = None
        token_norm = _mean_norm(run.x[0])
        if settings.mask != "none":
            notes.append("shuffle_gap_with_mask")  # a mask is positional too: the none gap is not 0 then
        d_model = settings.d_model
    else:
        if real is None:
            raise ValueError("model 'real' needs the loaded real model")
        check = min(max(int(example), 0), len(EXAMPLES) - 1)
        encoded = real.encode(EXAMPLES[check][0])  # 14 to 16 tokens: within the shuffle's SEQ_LEN_MAX (tested)
        tokens = list(encoded.tokens)
        ids = torch.tensor(encoded.ids)
        T = len(tokens)
        h, d_model = real.cfg.num_heads, real.cfg.d_model
        d_k = d_model // h
        head = min(max(int(head), 0), h - 1)
        perm = P.random_permutation(T, shuffle_seed)
        inv = P.inverse_permutation(perm)
        twin = twin_positions(tokens)
        emb = real.encoder.embeddings
        with torch.no_grad():
            token_norm = _mean_norm(emb.word(ids) + emb.token_type(torch.zeros_like(ids)))  # as the model adds them
        added_of = {
            "none": 0.0,
            "rope": 0.0,
            "learned": _mean_norm(P.learned_table(real)[:T]),
            "sinusoidal": _mean_norm(P.sinusoidal_table(T, d_model)),
        }
        none = None
        scenario_gap = None
        for kind in KINDS:
            w = P.real_first_layer_weights(real, ids, kind, base=base)  # (h, T, T)
            w_s = P.real_first_layer_weights(real, ids[perm], kind, base=base)
            if kind == "none":
                none = w
            twin_gap = None if twin is None else float((w[:, twin[0]] - w[:, twin[1]]).abs().max())
            assert none is not None  # KINDS starts with "none"
            results.append(
                KindResult(
                    kind,
                    True,
                    "",
                    _np(w),
                    float((_unshuffle(w_s, inv) - w).abs().max()),
                    twin_gap,
                    float((w - none).abs().max()),
                    trained=kind == "learned",
                    added_norm=added_of[kind],
                )
            )
    labels = _labels(tokens)
    shown = [r for r in results if r.available]
    side = np.stack([r.weights[head] for r in shown if r.weights is not None])
    side.setflags(write=False)
    return AddView(
        model=model,
        head=head,
        num_heads=h,
        d_model=d_model,
        d_k=d_k,
        table_width=width,
        base=float(base),
        tokens=labels,
        kinds=tuple(results),
        side_by_side=_heatmap(
            f"weights-{model}-head{head}",
            [(side[i], labels, labels, f"pos.kind.{r.kind}") for i, r in enumerate(shown)],
            "weights",
            0.0,
            1.0,
            "query",
            "key",
        ),
        perm=_np(perm),
        twin=twin,
        scenario_gap=scenario_gap,
        token_norm=token_norm,
        notes=tuple(dict.fromkeys(notes)),
    )


# ================================================================ 3. RoPE is about distance
@dataclass(frozen=True)
class PairView:
    """One pair of q's numbers (dimensions pair and pair + d_k/2) turning with position, to draw as an angle."""

    pair: int
    dims: tuple[int, int]
    position: int
    before: tuple[float, float]
    after: tuple[float, float]
    theta: float  # radians per position
    angle: float  # position * theta (not reduced)
    turns: float  # angle / 2 pi
    angle_deg_reduced: float  # the angle as drawn: degrees in [0, 360)
    length_before: float
    length_after: float  # the same: a rotation changes no length
    path: np.ndarray  # (grid, 2): the pair at positions 0..grid-1 (points on one circle)


@dataclass(frozen=True)
class RopeView:
    """The RoPE section: one q, k pair moved to every (m, n) of a grid, and what follows from it."""

    d_k: int
    base: float
    source: str  # "scenario": q of the last token and k of the first, head `head`; "random": seeded N(0, 1)
    head: int | None
    q_token: str | None
    k_token: str | None
    q: np.ndarray  # (d_k,)
    k: np.ndarray
    grid: Heatmap  # (P, P) signed: rows query position m, cols key position n
    diagonal_spread: float  # max over diagonals of (max - min): 0 up to float error
    constant_on_diagonals: bool
    plain_score: float  # q . k / sqrt(d_k): what the grid holds at m = n (a turn by 0)
    diagonal_gap: float  # max |grid[m, m] - plain_score| over m
    absolute_grid: Heatmap  # the contrast: (q + PE[m]) . (k + PE[n]) / sqrt(d_k), PE the d_k-wide sinusoids
    absolute_spread: float  # its largest spread along a diagonal: not 0, absolute positions are not about distance
    by_distance: Series  # score against m - n (-(P-1)..P-1), read off the grid's diagonals
    by_distance_low: np.ndarray  # the lowest and highest cell of each diagonal (equal if the claim holds)
    by_distance_high: np.ndarray
    pair: PairView
    frequencies: np.ndarray  # (d_k/2,) theta_i, radians per position of each pair
    falloff_matched: Series  # k = q, mean over random q: starts at ~sqrt(d_k), falls with distance
    falloff_expected: Series  # its exact mean (2 / sqrt(d_k)) sum_i cos(r theta_i)
    falloff_unrelated: Series  # k independent of q: mean |score|, flat
    falloff_samples: int
    notes: tuple[str, ...]  # "shared_d_k_odd": the shared d_k (1) cannot be turned, d_k is not the shared one;
    # "shared_d_k_max": the shared d_k (512) is past ROPE_D_K_MAX


def rope_view(
    settings: Settings,
    d_k: int,
    base: float,
    head: int,
    grid: int,
    pair: int,
    at: int,
    run: scenario.Scenario | None = None,
) -> RopeView:
    """Section 3. All arguments already corrected (parse_url). When d_k is the shared d_k, q and k are the
    scenario's own (the last token's q, the first token's k in head `head`), so the grid uses the numbers of
    the other pages; with another d_k they are seeded random vectors (settings.seed)."""
    P.check_rope(d_k, base)
    notes: list[str] = []
    if d_k == settings.d_k:
        run = _scenario(settings, run)
        head = min(max(int(head), 0), settings.num_heads - 1)
        shown_head: int | None = head
        q = run.trace.q_heads[0, head, -1].clone()
        k = run.trace.k_heads[0, head, 0].clone()
        words = run.tokens
        source, q_tok, k_tok = "scenario", f"{len(words) - 1}:{words[-1]}", f"0:{words[0]}"
    else:
        gen = torch.Generator().manual_seed(settings.seed)
        q, k = torch.randn(d_k, generator=gen), torch.randn(d_k, generator=gen)
        source, shown_head, q_tok, k_tok = "random", None, None, None
        if settings.d_k % 2:
            notes.append("shared_d_k_odd")
        elif settings.d_k > ROPE_D_K_MAX:
            notes.append("shared_d_k_max")
    g = P.rope_score_grid(q, k, grid, base)  # (P, P)
    distances, lows, highs = P.scores_by_distance(g)
    spread = float((highs - lows).max())
    plain = float(q @ k / math.sqrt(d_k))
    # The contrast, as the proofs write it: add a sinusoidal position to q and k instead of turning them (what a
    # model with W^Q = W^K = I would see of X + PE); the same cells along a diagonal now differ.
    pe = P.sinusoidal_table(grid, d_k)  # (P, d_k)
    absolute = (q + pe) @ (k + pe).T / math.sqrt(d_k)  # (P, P)
    _, a_lows, a_highs = P.scores_by_distance(absolute)
    av = _np(absolute)
    positions = tuple(str(i) for i in range(grid))
    gv = _np(g)
    pair = min(max(int(pair), 0), d_k // 2 - 1)
    turn = P.pair_rotation(q, at, pair, base)
    path = P.apply_rope(q.expand(grid, d_k), torch.arange(grid), base)[:, [pair, pair + d_k // 2]]
    fall = P.distance_falloff(d_k, FALLOFF_DISTANCE, base, seed=settings.seed)
    dist = _np(fall.distances)
    return RopeView(
        d_k=d_k,
        base=float(base),
        source=source,
        head=shown_head,
        q_token=q_tok,
        k_token=k_tok,
        q=_np(q),
        k=_np(k),
        grid=_heatmap(
            "rope-grid",
            [(gv, positions, positions, None)],
            "signed",
            *_signed_range(gv),
            "query_position",
            "key_position",
        ),
        diagonal_spread=spread,
        constant_on_diagonals=spread <= EQUAL_TOL,
        plain_score=plain,
        absolute_grid=_heatmap(
            "absolute-grid",
            [(av, positions, positions, None)],
            "signed",
            *_signed_range(av),
            "query_position",
            "key_position",
        ),
        absolute_spread=float((a_highs - a_lows).max()),
        diagonal_gap=float((torch.diagonal(g) - plain).abs().max()),
        by_distance=Series(_np(distances), _np((lows + highs) / 2), "distance", "score", "grid"),
        by_distance_low=_np(lows),
        by_distance_high=_np(highs),
        pair=PairView(
            pair=pair,
            dims=(pair, pair + d_k // 2),
            position=at,
            before=turn.before,
            after=turn.after,
            theta=turn.theta,
            angle=turn.angle,
            turns=turn.turns,
            angle_deg_reduced=math.degrees(turn.angle) % 360.0,
            length_before=math.hypot(*turn.before),
            length_after=math.hypot(*turn.after),
            path=_np(path),
        ),
        frequencies=_np(P.rope_frequencies(d_k, base)),
        falloff_matched=Series(dist, _np(fall.matched), "distance", "score", "matched"),
        falloff_expected=Series(dist, _np(fall.expected), "distance", "score", "expected"),
        falloff_unrelated=Series(dist, _np(fall.unrelated), "distance", "abs_score", "unrelated"),
        falloff_samples=fall.samples,
        notes=tuple(notes),
    )


# ================================================================ 4. the real model's learned table
@dataclass(frozen=True)
class LearnedView:
    """How the real model's 512 learned position vectors resemble each other (cosine), next to sinusoids."""

    table_shape: tuple[int, int]  # (512, 384)
    first_values: np.ndarray  # row 0's first 4 numbers (the checkpoint's, as the proofs check)
    span: int  # positions 0..span-1
    stride: int  # every stride-th position is a row/column of the heatmaps (1 up to SIMILARITY_SIDE_MAX positions)
    positions: np.ndarray  # the positions shown
    # (n, n) cosine similarity, rows and cols position numbers: panel 0 the learned table, panel 1 a 384-wide
    # sinusoidal table (a fixed formula) for comparison
    similarity: Heatmap
    learned_neighbour: float  # mean cosine of positions p and p+1, p in 0..span-2 (at full resolution)
    learned_far: float  # mean cosine of pairs at least span/2 apart
    sinusoidal_neighbour: float
    sinusoidal_far: float


def _near_far(sim: torch.Tensor) -> tuple[float, float]:
    n = sim.shape[0]
    gap = (torch.arange(n)[:, None] - torch.arange(n)[None, :]).abs()
    return float(torch.diagonal(sim, 1).mean()), float(sim[gap >= n // 2].mean())


def learned_view(real: Pretrained, span: int) -> LearnedView:
    """Section 4. `span` is one of SPANS (parse_pos_span); above SIMILARITY_SIDE_MAX positions the heatmap
    shows every (span / SIMILARITY_SIDE_MAX)-th one, so the page never sends more than 64 x 64 cells a panel."""
    if span not in SPANS:
        raise ValueError(f"span must be one of {SPANS}, got {span!r}")
    table = P.learned_table(real)  # (512, 384)
    sines = P.sinusoidal_table(min(span, SINUSOID_POSITIONS_MAX), table.shape[1])  # (span, 384)
    stride = max(1, span // SIMILARITY_SIDE_MAX)
    shown = torch.arange(0, span, stride)
    sim_l = P.position_similarity(table, span)  # (span, span)
    sim_s = P.position_similarity(sines)
    labels = tuple(str(int(p)) for p in shown)
    ln, lf = _near_far(sim_l)
    sn, sf = _near_far(sim_s)
    return LearnedView(
        table_shape=(int(table.shape[0]), int(table.shape[1])),
        first_values=_np(table[0, :4]),
        span=span,
        stride=stride,
        positions=_np(shown),
        similarity=_heatmap(
            f"position-similarity-{span}",
            [
                (_np(sim_l[shown][:, shown]), labels, labels, "pos.kind.learned"),
                (_np(sim_s[shown][:, shown]), labels, labels, "pos.kind.sinusoidal"),
            ],
            "similarity",
            -1.0,
            1.0,
            "position",
            "position",
        ),
        learned_neighbour=ln,
        learned_far=lf,
        sinusoidal_neighbour=sn,
        sinusoidal_far=sf,
    )


# ================================================================ predict, then reveal
@dataclass(frozen=True)
class QuizItem:
    """One question as data: `key` names its wording (the page / core.quiz words it), `params` fill it in.

    answer_type: "int" (exact), "number" (within `tolerance`), "choice" (one of `options`).
    accepted: the answer's accepted texts (lower case; for a number, its rounded forms).
    """

    key: str
    params: dict
    answer_type: str
    answer: object
    options: tuple = ()
    tolerance: float = 0.0
    accepted: tuple[str, ...] = ()


def _number_forms(value: float, tolerance: float = 1e-3) -> tuple[str, ...]:
    """The rounded forms of a number answer that `accepts` takes (within `tolerance`: -0.81 is not -0.8056)."""
    forms = (f"{value:.2f}", f"{value:.3f}", f"{value:.4f}", f"{value:g}")
    return tuple(f for f in dict.fromkeys(forms) if abs(float(f) - value) <= tolerance)


def quiz_items(settings: Settings, values: PageValues, run: scenario.Scenario | None = None) -> tuple[QuizItem, ...]:
    """The page's predict-then-reveal questions for these settings and URL values; every answer computed by
    the code the page runs (no formula written again here)."""
    items: list[QuizItem] = []
    T = settings.seq_len
    words = sentence_tokens(T, settings.lang)
    perm = P.random_permutation(T, values.shuffle)
    i = int(torch.argmax((perm != torch.arange(T)).int()))  # the first row the shuffle changed
    # 1. Which original token's output is row i after the shuffle? (computed from the two runs: the original row
    # whose output equals the shuffled run's row i)
    sv = shuffle_view(settings, values.shuffle, False, 0, run)
    row = sv.output.panels[1].values[i]
    match = int(np.argmin(np.abs(sv.output.panels[0].values - row[None]).max(axis=1)))
    items.append(
        QuizItem(
            "pos.q.shuffled_row",
            {"row": i, "token": words[match], "perm": sv.perm.tolist()},
            "int",
            match,
            accepted=(str(match), f"{match}:{words[match]}".lower()),
        )
    )
    # 2. Un-shuffled, how far is the output from the original? without / with the causal mask
    free_zero = sv.free_output_gap <= EQUAL_TOL
    items.append(
        QuizItem(
            "pos.q.gap_free",
            {"tolerance": EQUAL_TOL},
            "choice",
            "zero" if free_zero else "nonzero",
            options=("zero", "nonzero"),
            accepted=("zero" if free_zero else "nonzero",),
        )
    )
    causal_zero = sv.causal_output_gap <= EQUAL_TOL
    items.append(
        QuizItem(
            "pos.q.gap_causal",
            {"tolerance": EQUAL_TOL},
            "choice",
            "zero" if causal_zero else "nonzero",
            options=("zero", "nonzero"),
            accepted=("zero" if causal_zero else "nonzero",),
        )
    )
    # 3. Under the causal mask, the token moved to the front: its weight on itself
    self_after = sv.front_self_after
    items.append(
        QuizItem(
            "pos.q.front_self",
            {"token": words[sv.front]},
            "number",
            self_after,
            tolerance=1e-3,
            accepted=_number_forms(self_after),
        )
    )
    # 4. RoPE: the score at (m, n) given the score at (m', n') with the same distance
    d_k, base = values.d_k, values.base
    gen = torch.Generator().manual_seed(settings.seed)
    q, k = torch.randn(d_k, generator=gen), torch.randn(d_k, generator=gen)
    g = P.rope_score_grid(q, k, 8, base)
    m0, n0, m1, n1 = 3, 1, 7, 5  # the same distance 2
    items.append(
        QuizItem(
            "pos.q.rope_diagonal",
            {"m0": m0, "n0": n0, "score0": round(float(g[m0, n0]), 4), "m": m1, "n": n1, "d_k": d_k, "base": base},
            "number",
            float(g[m1, n1]),
            tolerance=1e-3,
            accepted=_number_forms(float(g[m1, n1])),
        )
    )
    # 5. RoPE: the angle of pair `pair` at position `at` (radians)
    turn = P.pair_rotation(q, values.at, min(values.pair, d_k // 2 - 1), base)
    items.append(
        QuizItem(
            "pos.q.rope_angle",
            {"pair": min(values.pair, d_k // 2 - 1), "position": values.at, "d_k": d_k, "base": base},
            "number",
            turn.angle,
            tolerance=max(1e-3, 1e-4 * abs(turn.angle)),
            accepted=_number_forms(turn.angle, max(1e-3, 1e-4 * abs(turn.angle))),
        )
    )
    # 6. Can RoPE run with an odd d_k (d_k + 1 of the shared, or 7)? Answered by the core's own check.
    odd = settings.d_k + 1 if settings.d_k % 2 == 0 else settings.d_k
    try:
        P.check_rope(odd, base)
        ok = "yes"
    except ValueError:
        ok = "no"
    items.append(QuizItem("pos.q.rope_odd", {"d_k": odd}, "choice", ok, options=("yes", "no"), accepted=(ok,)))
    # 7. The sinusoidal table: PE[pos, 0] and PE[pos, 1]
    pos = min(T - 1, 3)
    table = P.sinusoidal_table(pos + 1, settings.d_model)
    items.append(
        QuizItem(
            "pos.q.sinusoid",
            {"position": pos, "column": 0, "d_model": settings.d_model},
            "number",
            float(table[pos, 0]),
            tolerance=1e-3,
            accepted=_number_forms(float(table[pos, 0])),
        )
    )
    return tuple(items)


def accepts(item: QuizItem, raw: str) -> bool:
    """Whether a typed answer is right: exact for int / choice (any accepted form), within tolerance for a number."""
    text = str(raw or "").strip().lower()[:40]
    if not text:
        return False
    if item.answer_type == "number":
        try:
            assert isinstance(item.answer, (int, float)), item.key
            return abs(float(text) - float(item.answer)) <= item.tolerance
        except ValueError:
            return False
    return text in item.accepted
