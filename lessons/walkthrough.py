"""The walkthrough's lesson: what each step computes, the code line that computes it, its shapes, its
heatmaps as plain data (lessons.heatmap.Heatmap: arrays, labels, text keys), and the drill-down story of
one attention cell. No Streamlit, no plotly, no words of one language (the page words the keys).

The source shown for a step is read from the running code (lessons/source.py: inspect + ast), so the page
can never show a line that is not the one computing the tensor.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import torch

from core.accounting import Shape, tensor_shapes
from core.attention import AttentionTrace, MultiHeadAttention
from core.masks import full_grid
from core.reference import max_abs_diff, torch_reference
from lessons import scenario, source, url
from lessons.heatmap import Heatmap, Panel, Rect, Text, axis_labels, head_grid, readonly, text
from lessons.source import Source

# ------------------------------------------------------------------ the steps


@dataclass(frozen=True)
class Step:
    name: str  # URL value (walk_step=...), language-neutral
    fields: tuple[str, ...]  # the tensors it produces: AttentionTrace fields, or "x"
    per_head: bool  # the tensor has a head axis


STEPS: tuple[Step, ...] = (
    Step("input", ("x",), False),
    Step("project", ("q", "k", "v"), False),
    Step("split", ("q_heads", "k_heads", "v_heads"), True),
    Step("scores", ("scores",), True),
    Step("scale", ("scaled_scores",), True),
    Step("mask", ("masked_scores",), True),
    Step("softmax", ("weights",), True),
    Step("mix", ("head_outputs",), True),
    Step("concat", ("concat",), False),
    Step("output", ("output",), False),
)
STEP_NAMES: tuple[str, ...] = tuple(s.name for s in STEPS)
STEP_BY_NAME = {s.name: s for s in STEPS}
VIEWS = ("step", "all", "present")
DRILL_STEPS = ("scores", "scale", "mask", "softmax", "mix")  # steps whose story the drill-down tells
ROLES = ("q", "k", "v")

# Q, K and V side by side in the projection step up to this d_model (three panels of 128 columns keep about
# two pixels a column on a laptop); wider, one at a time at full width, which also keeps a step's bytes
# under the 64 KB target (three 32 x 512 matrices of float32 are ~192 KB).
SIDE_BY_SIDE_MAX = 128
# The cell story's mix of V (T_k + 1 rows x d_k) shows at most this many of the head's columns (d_k 512:
# columns under 2 px; 33 x 512 values with the story's other charts would pass a step's 64 KB).
MIX_MAX_COLUMNS = 256
HEADS_PER_PAGE = 8  # head panels one page shows (two rows of four; the renderer thins crowded labels)


def step_index(name: str) -> int:
    return STEP_NAMES.index(name)


# ------------------------------------------------------------------ URL values


def _step_rule(raw: object, env: url.Env) -> tuple[str, url.Fix | None]:
    """walk_step: a step's name (case and spaces forgiven), or its number 1..10 (clamped). Else the first step."""
    text_ = str(raw).strip().lower()
    if text_ in STEP_NAMES:
        return text_, None
    try:
        number = int(float(text_[:30]))
    except (ValueError, OverflowError):
        return STEP_NAMES[0], url.Fix("walk_step", url.shown(raw), STEP_NAMES[0], "unreadable")
    clamped = min(max(number, 1), len(STEPS))
    used = STEP_NAMES[clamped - 1]
    return used, None if clamped == number else url.Fix("walk_step", url.shown(raw), used, "out_of_range")


def _head_pages(env: url.Env) -> int:
    return head_pages(env["settings"].num_heads, env["settings"].seq_len)


# The page's URL keys, declared once (lessons/url.py); env: {"settings": the shared Settings}.
URL_KEYS: tuple[url.UrlKey, ...] = (
    url.UrlKey("walk_view", "choice", VIEWS[0], choices=VIEWS),
    url.UrlKey("walk_step", "choice", STEP_NAMES[0], choices=STEP_NAMES, rule=_step_rule, note="or its number 1..10"),
    url.UrlKey("walk_hpage", "int", 1, lo=1, hi=_head_pages, note="1-based, as st.pagination counts"),
    url.UrlKey("walk_head", "int", 0, lo=0, hi=url.setting("num_heads", -1)),
    url.UrlKey("walk_i", "int", url.setting("seq_len", -1), lo=0, hi=url.setting("seq_len", -1)),
    url.UrlKey("walk_j", "int", 0, lo=0, hi=url.setting("seq_len", -1)),
    url.UrlKey("walk_cellcharts", "bool", False),
    url.UrlKey("walk_drill", "bool", False),
)
URL_KEY_NAMES = url.names(URL_KEYS)
CELL_KEYS = ("walk_head", "walk_i", "walk_j", "walk_cellcharts")  # a link naming one of them opens the cell's story


def link_opens_drill(query: Mapping[str, Sequence[str]]) -> bool:
    """Does a link open the drill-down by itself? `query`: the link's values of each key (a key may repeat). It
    does when it names a cell (CELL_KEYS) and its walk_drill, if any, is one valid value; a bad or repeated
    walk_drill is corrected instead (to closed, and said)."""
    if not any(query.get(k) for k in CELL_KEYS):
        return False
    drill = list(query.get("walk_drill") or ())
    if not drill:
        return True
    key = next(k for k in URL_KEYS if k.name == "walk_drill")
    return len(drill) == 1 and url.parse_value(key, drill[0])[1] is None


def step_after(current: str | None, delta: int) -> str:
    """The step `delta` steps after `current` (before it when negative), stopping at the first and last; no
    current step counts as the first."""
    index = step_index(current) if current in STEP_BY_NAME else 0
    return STEP_NAMES[min(max(index + delta, 0), len(STEPS) - 1)]


# ------------------------------------------------------------------ the source of each step


def step_source(name: str) -> Source:
    """The exact lines of core that compute this step's tensor(s)."""
    step = STEP_BY_NAME[name]
    if step.fields == ("x",):
        return source.source_of(scenario.run, ("x",))
    return source.source_of(MultiHeadAttention._attend, step.fields)


def warm() -> None:
    """Read every source a page shows once (app.py, when the server process starts): the steps' lines here,
    Real heads' classes through lessons.source.warm."""
    source.warm()
    for step in STEPS:
        step_source(step.name)


# ------------------------------------------------------------------ shapes


def shapes(run: scenario.Scenario) -> dict[str, Shape]:
    s = run.settings
    return tensor_shapes(1, s.seq_len, s.seq_len, s.d_model, s.num_heads)


def step_shapes(run: scenario.Scenario, name: str) -> list[tuple[str, Shape]]:
    """(tensor name, shape) of every tensor the step produces."""
    all_shapes = shapes(run)
    return [(f, all_shapes[f]) for f in STEP_BY_NAME[name].fields]


def reshape_chain(run: scenario.Scenario, name: str) -> list[tuple[str, Shape]]:
    """The view/transpose path of the split and concat steps: (operation, shape after it)."""
    s = run.settings
    B, T, d, h, d_k = 1, s.seq_len, s.d_model, s.num_heads, s.d_k
    flat = Shape(("B", "T_q", "d_model"), (B, T, d))
    viewed = Shape(("B", "T_q", "h", "d_k"), (B, T, h, d_k))
    heads = Shape(("B", "h", "T_q", "d_k"), (B, h, T, d_k))
    if name == "split":
        return [("q", flat), (f"view({B}, {T}, {h}, {d_k})", viewed), ("transpose(1, 2)", heads)]
    if name == "concat":
        return [("head_outputs", heads), ("transpose(1, 2).contiguous()", viewed), (f"view({B}, {T}, {d})", flat)]
    return []


def shape_lines(run: scenario.Scenario, name: str, present: bool = False) -> list[str]:
    """The step's shapes as markdown lines (code spans: names and sizes, no words). Split and concat first show
    their reshape chain, on one line, or (`present`: the presenter view) one operation a line and then only
    the tensor the chain ends at (split: q's heads; concat: concat) instead of every role's."""
    shapes = step_shapes(run, name)
    lines: list[str] = []
    if name in ("split", "concat"):
        chain = reshape_chain(run, name)
        parts = [f"`{chain[0][0]}` `{chain[0][1].text()}`"]
        parts += [f"→ `{op}` → `{shape.text()}`" for op, shape in chain[1:]]
        lines += parts if present else [" ".join(parts)]
        if present:
            shapes = shapes[-1:] if name == "concat" else shapes[:1]
    return lines + [f"`{field}` &nbsp; `{shape.text()}`" for field, shape in shapes]


def pipeline(run: scenario.Scenario) -> list[tuple[str, str]]:
    """(step name, compact sizes) for the whole chain, e.g. ('split', '1×4×8×16')."""
    all_shapes = shapes(run)
    return [(step.name, "×".join(str(n) for n in all_shapes[step.fields[0]].sizes)) for step in STEPS]


# ------------------------------------------------------------------ per-step numbers


def step_tensor(run: scenario.Scenario, field: str) -> torch.Tensor:
    """The tensor without its batch axis: (T, d_model) or (h, T, ·)."""
    value = run.x if field == "x" else getattr(run.trace, field)
    return value[0]


def sqrt_dk(run: scenario.Scenario) -> float:
    return math.sqrt(run.settings.d_k)


def split_max_diff(trace: AttentionTrace, h: int, d_k: int) -> float:
    """max |q_heads[:, i] - q[:, :, i*d_k:(i+1)*d_k]| over every head and role: 0 if the split is a pure cut."""
    diff = 0.0
    for whole, heads in ((trace.q, trace.q_heads), (trace.k, trace.k_heads), (trace.v, trace.v_heads)):
        for i in range(h):
            block = whole[:, :, i * d_k : (i + 1) * d_k]  # (B, T, d_k)
            diff = max(diff, float((heads[:, i] - block).abs().max()))
    return diff


def concat_max_diff(trace: AttentionTrace, h: int, d_k: int) -> float:
    """max |concat[:, :, i*d_k:(i+1)*d_k] - head_outputs[:, i]|: head i fills its own columns again."""
    return max(
        float((trace.concat[:, :, i * d_k : (i + 1) * d_k] - trace.head_outputs[:, i]).abs().max()) for i in range(h)
    )


def row_sum_deviation(trace: AttentionTrace) -> float:
    """Largest |sum of a row of weights - 1| (NaN rows ignored)."""
    dev = (trace.weights.sum(dim=-1) - 1).abs()
    dev = dev[~torch.isnan(dev)]
    return float(dev.max()) if dev.numel() else 0.0


def blocked_count(run: scenario.Scenario) -> tuple[int, int]:
    """(blocked cells, all cells) of the (T_q, T_k) grid."""
    T = run.settings.seq_len
    grid = full_grid(run.mask, 1, T, T)[0]
    return int((~grid).sum()), T * T


def step_text(run: scenario.Scenario, name: str, present: bool = False) -> tuple[Text, ...]:
    """What the step's paragraph says, with this run's numbers (the page words and joins them with a space).
    The softmax step points on to the cell's story except in the presenter view, which has no story."""
    s = run.settings
    if name == "scale":
        return (text("walk.scale.text", d_k=s.d_k, root=sqrt_dk(run)),)
    if name == "mask":
        if run.mask is None:
            return (text("walk.mask.none"),)
        blocked, total = blocked_count(run)
        return (text("walk.mask.text", kind=text(f"mask.{s.mask}"), blocked=blocked, total=total),)
    if name == "softmax":
        body = text("walk.softmax.text", dev=row_sum_deviation(run.trace))
        return (body,) if present else (body, text("walk.softmax.follow"))
    if name == "mix":
        return (text("walk.mix.text", d_k=s.d_k),)
    if name == "concat":
        return (text("walk.concat.text", h=s.num_heads, d_k=s.d_k, d_model=s.d_model),)
    return (text(f"walk.{name}.text"),)


def role_label(name: str, d_model: int) -> str | None:
    """The text key of the Q / K / V choice a step offers, or None: the split always (one role's heads), the
    projection only where q, k and v are too wide to sit side by side."""
    if name == "split":
        return "walk.role"
    if name == "project" and d_model > SIDE_BY_SIDE_MAX:
        return "walk.project.role"
    return None


def split_map(heads: Iterable[int], d_k: int) -> tuple[Text, ...]:
    """Which columns of the whole tensor each head shown takes: head i, columns i·d_k .. (i+1)·d_k - 1."""
    return tuple(text("walk.split.map", i=i, a=i * d_k, b=(i + 1) * d_k - 1) for i in heads)


@dataclass(frozen=True)
class ReferenceCheck:
    output_diff: float
    weights_diff: float


def reference_check(run: scenario.Scenario) -> ReferenceCheck:
    """Our result against torch.nn.MultiheadAttention holding the same weights, computed now."""
    out, weights = torch_reference(run.model, run.x, run.x, run.x, run.mask)
    return ReferenceCheck(max_abs_diff(run.trace.output, out), max_abs_diff(run.trace.weights, weights))


# ------------------------------------------------------------------ heads shown


def heads_per_page(seq_len: int) -> int:
    """How many head panels one page shows: 8 at any T (at a large T the renderer thins the token labels to
    what fits, so 8 panels of 32 x 32 still read)."""
    return HEADS_PER_PAGE


def head_pages(num_heads: int, seq_len: int) -> int:
    return max(1, math.ceil(num_heads / heads_per_page(seq_len)))


def page_of_heads(num_heads: int, page: int, per_page: int = HEADS_PER_PAGE) -> list[int]:
    """The heads shown on one page of a large head grid (page counts from 0, clamped)."""
    pages = max(1, math.ceil(num_heads / per_page))
    page = min(max(0, page), pages - 1)
    return list(range(page * per_page, min(num_heads, (page + 1) * per_page)))


# ------------------------------------------------------------------ heatmaps (plain data)


def _finite_range(values: torch.Tensor) -> tuple[float, float]:
    """min/max over the finite entries (masked cells hold -1e9 or -inf and would flatten the colours)."""
    finite = values[torch.isfinite(values) & (values.abs() < 1e8)]
    if finite.numel() == 0:
        return -1.0, 1.0
    lo, hi = float(finite.min()), float(finite.max())
    return (lo, hi) if lo < hi else (lo - 1.0, hi + 1.0)


def step_zrange(run: scenario.Scenario, name: str) -> tuple[float, float]:
    """One colour range for the whole step (all heads, all of Q/K/V): 0..max for the weights, symmetric
    about 0 over the finite values (not the mask's -1e9) for the rest."""
    step = STEP_BY_NAME[name]
    values = torch.cat([step_tensor(run, f).reshape(-1) for f in step.fields]).detach().float()
    if name == "softmax":
        finite = values[~torch.isnan(values)]
        return 0.0, float(finite.max()) if finite.numel() else 1.0
    lo, hi = _finite_range(values)
    m = max(abs(lo), abs(hi))
    return -m, m


def as_printed(tensors: Iterable[torch.Tensor | np.ndarray]) -> tuple[list[np.ndarray], int]:
    """Read-only arrays of `tensors` with the values as the chart prints them, and the decimals it prints:
    4 while every value fits int16 codes at 4 decimals (|v| < 3.2767), else 3, else 2. Rounded to them
    (+ 0.0: no "-0.0000"), so a panel travels as int16 codes (charts.payload, compact): half the bytes, and
    a (32, 512) tensor stays under a step's 64 KB. Masked cells (|v| >= 1e8, the -1e9 fill) and non-finite
    ones stay as they are."""
    arrays = [np.asarray(t.detach().float().numpy() if hasattr(t, "detach") else t, dtype=np.float32) for t in tensors]
    finite = [a[np.isfinite(a) & (np.abs(a) < 1e8)] for a in arrays]
    top = max((float(np.abs(f).max()) for f in finite if f.size), default=0.0)
    decimals = 4 if top < 3.2767 else 3 if top < 32.767 else 2
    out: list[np.ndarray] = []
    for a in arrays:
        keep = np.isfinite(a) & (np.abs(a) < 1e8)
        out.append(readonly(np.where(keep, np.round(a, decimals) + np.float32(0.0), a)))
    return out, decimals


def _columns(n: int, first: int = 0) -> tuple[str, ...]:
    return tuple(str(first + c) for c in range(n))


def head_owner(d_model: int, d_k: int) -> tuple[int, ...]:
    """The head that owns each column of a (·, d_model) tensor: column c belongs to head c // d_k."""
    return tuple(c // d_k for c in range(d_model))


def matrix_heatmap(run: scenario.Scenario, field: str, *, zrange: tuple[float, float], groups: bool = False) -> Heatmap:
    """A (T, d_model) tensor (X, q, k, v, concat, output): tokens down, columns across. `groups`: a strip over
    the columns in the colour of the head that owns them (split, concat)."""
    m = step_tensor(run, field)
    s = run.settings
    (values,), decimals = as_printed([m])
    panel = Panel(
        values=values,
        row_labels=axis_labels(run.tokens),
        col_labels=_columns(m.shape[1]),
        col_groups=head_owner(s.d_model, s.d_k) if groups else (),
    )
    return Heatmap(
        name=field,
        panels=(panel,),
        role="signed",
        vmin=float(zrange[0]),
        vmax=float(zrange[1]),
        row_axis=text("walk.axis.token"),
        col_axis=text("walk.axis.col"),
        title=text("walk.chart.tensor", name=field),
        decimals=decimals,
    )


def projections_heatmap(run: scenario.Scenario, *, zrange: tuple[float, float]) -> Heatmap:
    """q, k and v side by side: three panels on the colour scale they share."""
    labels = axis_labels(run.tokens)
    arrays, decimals = as_printed([step_tensor(run, f) for f in ROLES])
    panels = tuple(
        Panel(
            values=a,
            title=text("walk.chart.tensor", name=f),
            row_labels=labels,
            col_labels=_columns(run.settings.d_model),
        )
        for f, a in zip(ROLES, arrays)
    )
    return Heatmap(
        name="qkv",
        panels=panels,
        role="signed",
        vmin=float(zrange[0]),
        vmax=float(zrange[1]),
        row_axis=text("walk.axis.token"),
        col_axis=text("walk.axis.col"),
        panel_columns=3,
        decimals=decimals,
    )


TOKEN_GRIDS = ("scores", "scaled_scores", "masked_scores", "weights")  # (h, T_q, T_k): tokens on both axes


def heads_heatmap(run: scenario.Scenario, field: str, heads: Iterable[int], *, zrange: tuple[float, float]) -> Heatmap:
    """A panel per chosen head (a page of them) of a (h, T, ·) tensor, one colour range for every head.

    Token x token tensors have the tokens on both axes; feature tensors (q/k/v heads, the heads' outputs)
    have the head's own columns of d_model (the split) or 0..d_k-1 (the outputs), and a strip in the
    head's colour over them. Blocked cells of the masked scores are hatched; they keep the -1e9 that enters
    the softmax (hover and table view print it)."""
    m = step_tensor(run, field).detach().float()
    s = run.settings
    labels = axis_labels(run.tokens)
    grid = field in TOKEN_GRIDS
    blocked = None
    if field == "masked_scores" and run.mask is not None:
        blocked = ~full_grid(run.mask, 1, s.seq_len, s.seq_len)[0].numpy()  # (T_q, T_k) True = blocked
        blocked = blocked if blocked.any() else None
    heads = tuple(heads)
    arrays, decimals = as_printed([m[h] for h in heads])
    C = int(m.shape[-1])
    own_columns = field in ("q_heads", "k_heads", "v_heads")  # the head's own columns of d_model; else 0..d_k-1
    return head_grid(
        field,
        arrays,
        heads,
        title=lambda h: text("walk.chart.head", head=h),
        role="weights" if field == "weights" else "signed",
        vrange=zrange,
        row_axis=text("walk.axis.query" if grid else "walk.axis.token"),
        col_axis=text("walk.axis.key" if grid else "walk.axis.col"),
        row_labels=labels,
        col_labels=labels if grid else (lambda h: _columns(C, h * C if own_columns else 0)),
        blocked=blocked,
        head_columns=not grid,
        panel_columns=4,
        decimals=decimals,
    )


def mask_heatmap(run: scenario.Scenario) -> Heatmap:
    """The (T_q, T_k) keep (1) / block (0) grid of the run's mask."""
    T = run.settings.seq_len
    grid = full_grid(run.mask, 1, T, T)[0].float()
    labels = axis_labels(run.tokens)
    return Heatmap(
        name=f"mask-{run.settings.mask}",
        panels=(Panel(values=readonly(grid), row_labels=labels, col_labels=labels),),
        role="mask",
        vmin=0.0,
        vmax=1.0,
        row_axis=text("walk.axis.query"),
        col_axis=text("walk.axis.key"),
        decimals=0,
    )


def drill_heatmap(run: scenario.Scenario, head: int, i: int, j: int) -> Heatmap:
    """The weights of one head, clickable (a click follows that cell), the followed cell outlined."""
    labels = axis_labels(run.tokens)
    panel = Panel(values=readonly(run.trace.weights[0, head]), row_labels=labels, col_labels=labels)
    return Heatmap(
        name=f"weights-head{head}",
        panels=(panel,),
        role="weights",
        vmin=0.0,
        vmax=1.0,
        row_axis=text("walk.axis.query"),
        col_axis=text("walk.axis.key"),
        clickable=True,
        rects=(Rect(0, i, i + 1, j, j + 1),),
    )


# ------------------------------------------------------------------ drill-down: one cell's story


@dataclass(frozen=True)
class CellStory:
    head: int
    i: int  # query position
    j: int  # key position
    d_k: int
    columns: tuple[int, int]  # the head's columns of Q/K/V: first, last
    q_i: torch.Tensor  # (d_k,) row i of Q, this head's columns
    k_j: torch.Tensor  # (d_k,)
    products: torch.Tensor  # (d_k,) q_i * k_j
    dot: float  # q_i . k_j
    sqrt_dk: float
    scaled: float  # dot / sqrt(d_k)
    kept: bool  # mask says keep
    fill_value: float
    masked: float  # what enters the softmax
    row_scaled: torch.Tensor  # (T_k,) the whole row i, scaled
    row_kept: torch.Tensor  # (T_k,) bool
    row_masked: torch.Tensor  # (T_k,)
    row_max: float
    row_exp: torch.Tensor  # (T_k,) exp(row - max)
    row_sum: float
    row_weights: torch.Tensor  # (T_k,)
    weight: float  # row_weights[j]
    v: torch.Tensor  # (T_k, d_k) this head's value rows
    contributions: torch.Tensor  # (T_k, d_k) weight_j' * v_j'
    out: torch.Tensor  # (d_k,) the head's output row i
    check: float  # max |recomputed - trace| over dot, scaled, weights row and output row


def cell_story(run: scenario.Scenario, head: int, i: int, j: int) -> CellStory:
    """Recompute one cell of one head by hand, from Q/K/V's columns, and check it against the trace."""
    s, tr = run.settings, run.trace
    T, d_k = s.seq_len, s.d_k
    if not (0 <= head < s.num_heads and 0 <= i < T and 0 <= j < T):
        raise ValueError(f"cell (head={head}, i={i}, j={j}) outside h={s.num_heads}, T={T}")
    cols = slice(head * d_k, (head + 1) * d_k)
    q_i = tr.q[0, i, cols]  # (d_k,)  this head's columns of row i of Q
    K = tr.k[0, :, cols]  # (T_k, d_k)
    V = tr.v[0, :, cols]  # (T_k, d_k)
    k_j = K[j]
    products = q_i * k_j
    dot = float(products.sum())
    root = math.sqrt(d_k)
    row_scaled = (K @ q_i) / root  # (T_k,)
    row_kept = full_grid(run.mask, 1, T, T)[0, i]  # (T_k,)
    fill = run.model.fill_value
    row_masked = torch.where(row_kept, row_scaled, torch.full_like(row_scaled, fill))
    row_max = float(row_masked.max())
    row_exp = torch.exp(row_masked - row_max)
    row_sum = float(row_exp.sum())
    row_weights = row_exp / row_sum
    contributions = row_weights[:, None] * V  # (T_k, d_k)
    out = contributions.sum(dim=0)
    check = max(
        abs(dot - float(tr.scores[0, head, i, j])),
        abs(dot / root - float(tr.scaled_scores[0, head, i, j])),
        max_abs_diff(row_weights, tr.weights[0, head, i]),
        max_abs_diff(out, tr.head_outputs[0, head, i]),
    )
    return CellStory(
        head,
        i,
        j,
        d_k,
        (cols.start, cols.stop - 1),
        q_i,
        k_j,
        products,
        dot,
        root,
        dot / root,
        bool(row_kept[j]),
        fill,
        float(row_masked[j]),
        row_scaled,
        row_kept,
        row_masked,
        row_max,
        row_exp,
        row_sum,
        row_weights,
        float(row_weights[j]),
        V,
        contributions,
        out,
        check,
    )


def dot_terms(story: CellStory, shown: int = 3) -> str:
    """'(0.1234)(−0.5000) + (…)(…) + … ' — the first terms of the dot product, then the count."""
    terms = [f"({a:.3f})·({b:.3f})" for a, b in zip(story.q_i[:shown].tolist(), story.k_j[:shown].tolist())]
    text_ = " + ".join(terms)
    if story.d_k > shown:
        text_ += f" + … ({story.d_k})"
    return text_


@dataclass(frozen=True)
class StoryPart:
    """One element of the cell's story, in page order. kind: "title" (a Text, in bold), "text" (a Text),
    "latex" (a formula with the cell's numbers), "caption" (language-neutral text), "vectors" (where the q, k
    chart goes when the story's charts are on; no body)."""

    kind: str
    body: Text | str = ""


def story_parts(story: CellStory, tokens: Sequence[str], *, masked: bool) -> tuple[StoryPart, ...]:
    """Steps 1-5 of one cell's story (`masked`: the run has a mask): the head's columns, q_i · k_j term by term,
    ÷√d_k, the mask, the softmax of row i, each with its numbers."""
    i, j, head = story.i, story.j, story.head
    if not masked:
        s4 = text("walk.drill.s4_none", v=story.masked)
    elif story.kept:
        s4 = text("walk.drill.s4_keep", i=i, j=j, v=story.masked)
    else:
        s4 = text("walk.drill.s4_block", i=i, j=j, fill=story.fill_value)
    entering = f"{story.masked:.0e}" if story.masked <= -1e8 else f"{story.masked:.4f}"
    c0, c1 = story.columns
    return (
        StoryPart("title", text("walk.drill.cell", head=head, i=i, j=j, qi=tokens[i], kj=tokens[j])),
        StoryPart("text", text("walk.drill.s1", i=i, j=j, head=head, c0=c0, c1=c1, d_k=story.d_k)),
        StoryPart("vectors"),
        StoryPart("text", text("walk.drill.s2")),
        StoryPart("latex", rf"q_{{{i}}} \cdot k_{{{j}}} = \sum_{{c}} q_{{{i}}}[c]\,k_{{{j}}}[c] = {story.dot:.4f}"),
        StoryPart("caption", dot_terms(story) + f" = {story.dot:.4f}"),
        StoryPart("text", text("walk.drill.s3", root=story.sqrt_dk)),
        StoryPart("latex", rf"\frac{{{story.dot:.4f}}}{{{story.sqrt_dk:.4g}}} = {story.scaled:.4f}"),
        StoryPart("text", s4),
        StoryPart("text", text("walk.drill.s5", i=i, m=story.row_max, total=story.row_sum)),
        StoryPart(
            "latex",
            rf"\text{{w}}[{i},{j}] = \frac{{e^{{{entering} - ({story.row_max:.4f})}}}}{{{story.row_sum:.4f}}}"
            rf" = {story.weight:.4f}",
        ),
    )


def _signed(values: torch.Tensor) -> tuple[float, float]:
    top = float(values.abs().max()) if values.numel() else 1.0
    return -(top or 1.0), (top or 1.0)


def vectors_heatmap(story: CellStory) -> Heatmap:
    """q_i, k_j and their element-wise product as three rows over the head's d_k columns."""
    rows = torch.stack([story.q_i, story.k_j, story.products])  # (3, d_k)
    names = (f"q_{story.i}", f"k_{story.j}", f"q_{story.i}⊙k_{story.j}")
    lo, hi = _signed(rows)
    (values,), decimals = as_printed([rows])
    panel = Panel(values=values, row_labels=names, col_labels=_columns(story.d_k, story.columns[0]))
    return Heatmap(
        name="qk",
        panels=(panel,),
        role="signed",
        vmin=lo,
        vmax=hi,
        row_axis=text("walk.axis.vector"),
        col_axis=text("walk.axis.col"),
        decimals=decimals,
    )


def mix_heatmap(story: CellStory, tokens: Sequence[str]) -> Heatmap:
    """weight_j' · v_j' for every key j' (rows), and their sum, the head's output row i (last row), over the
    head's columns: the first MIX_MAX_COLUMNS of a wider head (d_k 512: columns under 2 px, and 33 x 512
    printed values would pass a step's 64 KB with the story's other charts); the title says which."""
    m = torch.cat([story.contributions, story.out[None]])  # (T_k + 1, d_k)
    shown = min(story.d_k, MIX_MAX_COLUMNS)
    y = [f"{w:.3f}·v_{k} ({tok})" for k, (w, tok) in enumerate(zip(story.row_weights.tolist(), tokens))]
    y.append(f"Σ = head_{story.head}[{story.i}]")
    lo, hi = _signed(m)
    (values,), decimals = as_printed([m[:, :shown]])
    first = story.columns[0]
    panel = Panel(
        values=values,
        row_labels=tuple(y),
        col_labels=_columns(shown, first),
        title=text("walk.chart.mix_part", a=first, b=first + shown - 1, d_k=story.d_k) if shown < story.d_k else None,
    )
    return Heatmap(
        name="mix",
        panels=(panel,),
        role="signed",
        vmin=lo,
        vmax=hi,
        row_axis=text("walk.axis.term"),
        col_axis=text("walk.axis.col"),
        decimals=decimals,
    )


def story_rows(story: CellStory, tokens: Sequence[str]) -> list[list[str]]:
    """Row i of the softmax, key by key, as text: key (the chosen one marked ▶), token, scaled score, mask,
    the value entering the softmax, e^(s - m), weight. Text for a static table: a data grid costs the
    browser frames on every redraw, and a pandas Styler ~20 ms of server time a rerun (32 rows)."""

    def num(v: float) -> str:
        return f"{v:.0e}" if v <= -1e8 else f"{v:.4f}"

    return [
        [
            ("▶ " if k == story.j else "") + str(k),
            str(tok),
            num(float(story.row_scaled[k])),
            str(int(story.row_kept[k])),
            num(float(story.row_masked[k])),
            f"{float(story.row_exp[k]):.4f}",
            f"{float(story.row_weights[k]):.4f}",
        ]
        for k, tok in enumerate(tokens)
    ]


STORY_COLUMNS = ("key", "token", "scaled", "mask", "masked", "exp", "weight")


def top_contributions(story: CellStory, tokens: Sequence[str], n: int = 3) -> list[tuple[int, str, float]]:
    """The n keys with the largest weights in row i: (position, token, weight)."""
    w = torch.nan_to_num(story.row_weights, nan=0.0)
    order = torch.argsort(w, descending=True)[:n].tolist()
    return [(k, tokens[k], float(story.row_weights[k])) for k in order]


def summary_text(story: CellStory, tokens: Sequence[str]) -> Text:
    """Step 6 of the story: row i of the head's output is the weights' mix of V, its three largest terms named."""
    top = ", ".join(f"{w:.3f}·v_{k} ({tok})" for k, tok, w in top_contributions(story, tokens))
    return text("walk.drill.s6", head=story.head, i=story.i, top=top)


# ------------------------------------------------------------------ a step's charts, as the page shows them


@dataclass(frozen=True)
class StepCharts:
    """What a step draws: its heatmaps in page order, by role ("main": the step's tensor; "mask": the mask
    grid beside the masked scores; "band": the whole tensor with each head's columns marked, above the
    heads of the split). `one_of_qkv`: the projection step is too wide for q, k, v side by side, so the
    page offers a choice of one (`role`)."""

    main: Heatmap
    mask: Heatmap | None = None
    band: Heatmap | None = None
    one_of_qkv: bool = False


def step_charts(run: scenario.Scenario, name: str, heads: tuple[int, ...], role: str = "q") -> StepCharts:
    """The heatmaps of step `name` for the heads on the page (`heads`) and, for project/split, the role
    (q, k or v) shown alone."""
    zrange = step_zrange(run, name)
    s = run.settings
    role = role if role in ROLES else "q"
    if name == "input":
        return StepCharts(matrix_heatmap(run, "x", zrange=zrange))
    if name == "project":
        if s.d_model <= SIDE_BY_SIDE_MAX:
            return StepCharts(projections_heatmap(run, zrange=zrange))
        return StepCharts(matrix_heatmap(run, role, zrange=zrange), one_of_qkv=True)
    if name == "split":
        band = matrix_heatmap(run, role, zrange=zrange, groups=True) if s.d_model <= SIDE_BY_SIDE_MAX else None
        return StepCharts(heads_heatmap(run, f"{role}_heads", heads, zrange=zrange), band=band)
    if name in ("scores", "scale", "mask", "softmax", "mix"):
        field = STEP_BY_NAME[name].fields[0]
        mask = mask_heatmap(run) if name == "mask" and run.mask is not None else None
        return StepCharts(heads_heatmap(run, field, heads, zrange=zrange), mask=mask)
    if name == "concat":
        return StepCharts(matrix_heatmap(run, "concat", zrange=zrange, groups=True))
    return StepCharts(matrix_heatmap(run, "output", zrange=zrange))


__all__ = [
    "DRILL_STEPS",
    "MIX_MAX_COLUMNS",
    "ROLES",
    "SIDE_BY_SIDE_MAX",
    "STEPS",
    "STEP_BY_NAME",
    "STEP_NAMES",
    "CELL_KEYS",
    "STORY_COLUMNS",
    "URL_KEYS",
    "URL_KEY_NAMES",
    "VIEWS",
    "CellStory",
    "ReferenceCheck",
    "Step",
    "StepCharts",
    "StoryPart",
    "blocked_count",
    "cell_story",
    "concat_max_diff",
    "dot_terms",
    "drill_heatmap",
    "head_pages",
    "heads_heatmap",
    "heads_per_page",
    "mask_heatmap",
    "matrix_heatmap",
    "mix_heatmap",
    "page_of_heads",
    "pipeline",
    "link_opens_drill",
    "reference_check",
    "reshape_chain",
    "role_label",
    "row_sum_deviation",
    "shape_lines",
    "shapes",
    "split_map",
    "split_max_diff",
    "step_charts",
    "step_after",
    "step_index",
    "step_shapes",
    "step_source",
    "step_tensor",
    "step_text",
    "step_zrange",
    "story_parts",
    "story_rows",
    "summary_text",
    "top_contributions",
    "vectors_heatmap",
    "warm",
]
