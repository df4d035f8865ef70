"""The "Heads and shapes" lesson as plain data: what changes with h, and what it costs.

- `shape_flow` / `shape_flow_html`: the whole layer as boxes, each labelled with its live
  shape (from core.accounting.tensor_shapes); boxes whose shape depends on h are coloured
  apart from those that never change, and, given the previous h, the changed ones say what
  they were (the page passes every word: no string of one language here).
- `cost_rows`, `totals_for`: the accounting per step and against h (all divisors of d_model).
- `time_forward`: a live measurement of the forward pass for every h.
- `block_slices`, `param_split`: one big W^Q cut into h column blocks is exactly the heads' W_i^Q.
- `single_vs_multi`, `head_focus`: the same input through h = 1 and through h heads.
- `heads_heatmap`, `weight_blocks_heatmap`, `head_weight_heatmap`, `slice_heatmaps`: the heatmaps as
  lessons.heatmap.Heatmap (arrays, labels, text keys), drawn by ui.heatmaps.show_heatmap. The bar and line charts
  of the cost and timing sections are built by the page's ui/heads_charts.py from `Totals` / `Timing`.
- `URL_KEYS` (the open section, the grid's page and pick, the sliced head; `parse_pick`), settled by
  ui/url_state.settle; the page's numbers and tables as keys and values: `track_h`, `cost_metrics`,
  `cost_columns`, `timing_columns`, `slice_check`, `slice_numbers`, `param_columns`, `single_heads`,
  `single_range`, `single_focus`.

No Streamlit and no plotly here: the page (pages/heads.py) only draws what these return.
"""

from __future__ import annotations

import math
import re
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from html import escape

import numpy as np
import torch

from core.accounting import Shape, Totals, step_costs, tensor_shapes, totals, weight_count
from core.attention import AttentionTrace, MultiHeadAttention, build_input, build_model
from core.threads import single_thread
from core.validation import divisors
from lessons.heatmap import Heatmap, Panel, Rect, head_grid, readonly, text
from lessons.url import Env, Fix, UrlKey, setting, shown

# The page's URL keys, declared once (issue 19 item 4): name, type, allowed values, default. The sidebar's
# shared settings (d_model, num_heads, seq_len, mask, seed, lang) are declared by lessons/settings.py.
SECTIONS = ("shapes", "heads", "cost", "timing", "slice", "single")


PER_PAGE = 8  # heads drawn by default in the grid (one page of heads)
MAX_PICK = 16  # heads drawn at most


def head_pages(h: int) -> int:
    """How many pages of PER_PAGE heads h heads fill (at least 1)."""
    return max(1, math.ceil(h / PER_PAGE))


def _h(env: Env) -> int:
    return int(env["settings"].num_heads)


def _as_head(item: object) -> int | None:
    if isinstance(item, int) and not isinstance(item, bool):
        return item
    return int(item) if isinstance(item, str) and item.isdigit() and len(item) < 6 else None


def parse_pick(raw: object, env: Env) -> tuple[list[int], Fix | None]:
    """The heads picked in the grid (`heads_pick`): a list of at most MAX_PICK distinct heads 0..h-1, from the
    widget's list or a link's "0,1,5". Anything else (a head past h, a repeat, too many, garbage) gives the
    heads of the page `heads_page` (the widget's first state), with the Fix saying why."""
    h = _h(env)
    items = list(raw) if isinstance(raw, (list, tuple)) else str(raw)[:200].strip("[] ").replace(",", " ").split()
    heads = [_as_head(i) for i in items]
    reason = "unreadable" if None in heads else "out_of_range"
    if reason == "out_of_range" and all(0 <= i < h for i in heads if i is not None):
        if len(set(heads)) == len(heads) <= MAX_PICK:
            return [i for i in heads if i is not None], None
    used = page_of_heads(h, env.get("heads_page", 0))
    return used, Fix("heads_pick", shown(raw), ",".join(map(str, used)), reason)


# The page's keys, declared once (issue 19 item 4): name, type, allowed values, default; settled by
# ui/url_state.settle. The sidebar's shared settings (d_model, num_heads, seq_len, mask, seed, lang) are declared
# by lessons/settings.py. heads_page / heads_pick / heads_slice_head are the grid's and the slice's choices: kept in
# the session (their widgets do not write the URL) and read from a link that carries them.
URL_KEYS: tuple[UrlKey, ...] = (
    UrlKey("heads_tab", "choice", SECTIONS[0], choices=SECTIONS),  # the open section (ui/sections.lazy_tabs)
    UrlKey("heads_page", "int", 0, lo=0, hi=lambda env: head_pages(_h(env)) - 1, note="page of PER_PAGE heads"),
    UrlKey(
        "heads_pick",
        "choice",
        lambda env: page_of_heads(_h(env), env.get("heads_page", 0)),
        rule=parse_pick,
        note="heads 0..h-1, at most MAX_PICK",
    ),
    UrlKey("heads_slice_head", "int", 0, lo=0, hi=setting("num_heads", -1)),
)
# The keys a change of the model (d_model or h) starts again from their defaults: a pick means those heads.
NEW_MODEL_KEYS = ("heads_page", "heads_pick")

# Colours of the shape-flow boxes: warm = shape depends on h, cool grey = same for every h.
DEPENDS_FILL, DEPENDS_LINE = "#fde4c8", "#d9730d"
SAME_FILL, SAME_LINE = "#e6ecf5", "#5b6b82"
CHANGED_LINE = "#b03a00"
CURRENT_COLOR, OTHER_COLOR = "#2a6fdb", "#a9bedf"  # bars: the current h vs the other h

# ---------------------------------------------------------------- the shape flow

# (name, column centre, row, width in columns): X on top, Q/K/V side by side, the score
# steps under Q and K, V running down on the right until it meets the weights.
FLOW_LAYOUT = (
    ("x", 1.0, 0, 1.0),
    ("q", 0.0, 1, 0.94),
    ("k", 1.0, 1, 0.94),
    ("v", 2.0, 1, 0.94),
    ("q_heads", 0.0, 2, 0.94),
    ("k_heads", 1.0, 2, 0.94),
    ("v_heads", 2.0, 2, 0.94),
    ("scores", 0.5, 3, 1.94),
    ("scaled_scores", 0.5, 4, 1.94),
    ("masked_scores", 0.5, 5, 1.94),
    ("weights", 0.5, 6, 1.94),
    ("head_outputs", 1.0, 7, 2.94),
    ("concat", 1.0, 8, 2.94),
    ("output", 1.0, 9, 2.94),
)


def depends_on_h(shape: Shape) -> bool:
    """A shape changes with h exactly when it has a head axis or a per-head width."""
    return "h" in shape.axes or "d_k" in shape.axes


@dataclass(frozen=True)
class FlowBox:
    name: str  # "x" or an AttentionTrace field
    shape: Shape  # at the current h
    prev_shape: Shape | None  # at the previous h, when one was given and valid
    x: float  # centre column
    row: int
    width: float  # in columns

    @property
    def depends_on_h(self) -> bool:
        return depends_on_h(self.shape)

    @property
    def changed(self) -> bool:
        return self.prev_shape is not None and self.prev_shape.sizes != self.shape.sizes


def shape_flow(
    d_model: int, h: int, T_q: int, T_k: int | None = None, *, B: int = 1, prev_h: int | None = None
) -> list[FlowBox]:
    """Every box of the diagram with its live shape; `prev_h` (if it divides d_model) adds the old shapes."""
    T_k = T_q if T_k is None else T_k
    shapes = tensor_shapes(B, T_q, T_k, d_model, h)
    prev = None
    if (
        isinstance(prev_h, int)
        and not isinstance(prev_h, bool)
        and prev_h >= 1
        and d_model % prev_h == 0
        and prev_h != h
    ):
        prev = tensor_shapes(B, T_q, T_k, d_model, prev_h)
    return [
        FlowBox(name, shapes[name], prev[name] if prev else None, x, row, width) for name, x, row, width in FLOW_LAYOUT
    ]


def _sizes(shape: Shape) -> str:
    return f"({', '.join(str(s) for s in shape.sizes)})"


def _axes(shape: Shape) -> str:
    return f"({', '.join(shape.axes)})"


def parse_sizes(box_text: str) -> tuple[int, ...]:
    """The live sizes written in a box of shape_flow_html (its bold third line), back as integers: for tests."""
    found = re.search(r"class='al-sizes'>\(([^)]*)\)</b>", box_text)
    if found is None:
        raise ValueError("no sizes in this box")
    inner = found.group(1)
    return tuple(int(p) for p in inner.split(","))


def _grid_span(x: float, width: float) -> tuple[int, int]:
    """A FLOW_LAYOUT box (centre column, width in columns) as (first grid column, span) on a 6-column grid."""
    first = round((x - width / 2 + 0.5) * 2) + 1
    return first, max(1, round(width * 2))


# One class per role; the page injects this once with the diagram. Boxes whose shape depends on h are
# drawn as a small stack of cards (one per head, up to 4) by box-shadows.
FLOW_CSS = f"""
.al-flow{{display:grid;grid-template-columns:repeat(6,minmax(0,1fr));column-gap:14px;row-gap:26px;
  font-size:13px;line-height:1.3;color:#1b1f24;max-width:760px;margin:4px 0 8px}}
.al-box{{position:relative;border-radius:6px;padding:5px 6px;text-align:center;min-width:0;overflow-wrap:anywhere}}
.al-box::before{{content:"↓";position:absolute;top:-25px;left:50%;transform:translateX(-50%);color:#4a5566;font-size:17px;line-height:1}}
.al-box.al-top::before{{content:none}}
.al-same{{background:{SAME_FILL};border:1.2px solid {SAME_LINE}}}
.al-dep{{background:{DEPENDS_FILL};border:1.2px solid {DEPENDS_LINE}}}
.al-changed{{border:3.5px solid {CHANGED_LINE};padding:3px 4px}}
.al-axes{{color:#555}}
.al-was{{color:{CHANGED_LINE};font-size:13px}}
.al-wire{{border-left:1.6px solid #4a5566;margin-left:50%;margin-top:-26px;margin-bottom:-26px}}
.al-legend{{display:flex;flex-wrap:wrap;gap:6px 18px;font-size:13px;margin:2px 0 10px}}
.al-key{{display:inline-block;width:14px;height:14px;border-radius:3px;vertical-align:-2px;margin-right:6px}}
"""


def _stack_shadow(h: int) -> str:
    """The heads behind a per-head box: up to three offset cards, up and to the right."""
    cards = [
        f"{4 * k}px {-4 * k}px 0 -1px {DEPENDS_FILL}, {4 * k}px {-4 * k}px 0 0 {DEPENDS_LINE}"
        for k in range(1, min(max(h, 1), 4))
    ]
    return f"box-shadow:{', '.join(cards)};" if cards else ""


def shape_flow_html(
    boxes: Sequence[FlowBox],
    titles: dict[str, str],
    *,
    legend_depends: str,
    legend_same: str,
    legend_changed: str = "changed",
    was: str = "was {sizes}",
    numbers: str = "{n} numbers",
    h: int = 1,
) -> str:
    """The layer as a flow of labelled boxes in plain HTML/CSS (one `data-name` box per tensor).

    HTML, not a chart: a redraw of text and boxes costs the browser almost nothing, where the same
    diagram as a plotly figure of shapes cost ~200 ms per slider step (benchmarks/bench_browser.py),
    and on a phone the text wraps instead of shrinking. Boxes whose shape depends on h are warm-coloured
    and stacked (one card per head, up to 4); the others are grey. Changed boxes get a thick border and a
    'was' line. Hovering a box shows the number of values it holds.
    """
    by_name = {b.name: b for b in boxes}
    cells = []
    for b in boxes:
        first, span = _grid_span(b.x, b.width)
        kind = "al-dep" if b.depends_on_h else "al-same"
        classes = " ".join(
            c for c in ("al-box", kind, "al-changed" if b.changed else "", "al-top" if b.row == 0 else "") if c
        )
        title = titles.get(b.name, b.name)
        tip = f"{title}: {b.shape.text()}, " + numbers.format(n=f"{b.shape.numel:,}")
        lines = [
            f"<b>{escape(title)}</b>",
            f"<span class='al-axes'>{escape(_axes(b.shape))}</span>",
            f"<b class='al-sizes'>{_sizes(b.shape)}</b>",
        ]
        if b.changed and b.prev_shape is not None:
            lines.append(f"<span class='al-was'>{escape(was.format(sizes=_sizes(b.prev_shape)))}</span>")
        style = f"grid-column:{first}/span {span};grid-row:{b.row + 1};" + (_stack_shadow(h) if b.depends_on_h else "")
        cells.append(
            f"<div class='{classes}' data-name='{b.name}' title='{escape(tip, quote=True)}' "
            f"style='{style}'>{'<br>'.join(lines)}</div>"
        )
    # V skips the score rows: a wire down its column from v_heads to head_outputs.
    v, out = by_name["v_heads"], by_name["head_outputs"]
    first, span = _grid_span(v.x, v.width)
    if out.row - v.row > 1:
        cells.append(
            f"<div class='al-wire' style='grid-column:{first}/span {span};grid-row:{v.row + 2}/{out.row + 1}'></div>"
        )
    legend = [
        (legend_depends, f"background:{DEPENDS_FILL};border:1.5px solid {DEPENDS_LINE}"),
        (legend_same, f"background:{SAME_FILL};border:1.5px solid {SAME_LINE}"),
    ]
    if any(b.changed for b in boxes):
        legend.append((legend_changed, f"background:{DEPENDS_FILL};border:3px solid {CHANGED_LINE}"))
    keys = "".join(f"<span><span class='al-key' style='{css}'></span>{escape(text)}</span>" for text, css in legend)
    return (
        f"<style>{FLOW_CSS}</style><div class='al-legend'>{keys}</div>"
        f"<div class='al-flow' role='list'>{''.join(cells)}</div>"
    )


def flow_box_texts(html: str) -> dict[str, str]:
    """Each box's text in shape_flow_html's output, by tensor name: for tests."""
    return {m.group(1): m.group(2) for m in re.finditer(r"data-name='([^']+)'[^>]*>(.*?)</div>", html)}


# ---------------------------------------------------------------- cost


@dataclass(frozen=True)
class CostRow:
    step: str  # AttentionTrace field
    shape: Shape  # the tensor this step produces
    params: int
    macs: int
    elementwise: int


def cost_rows(B: int, T_q: int, T_k: int, d_model: int, h: int, *, masked: bool) -> list[CostRow]:
    """core.accounting.step_costs joined with the shape each step produces."""
    shapes = tensor_shapes(B, T_q, T_k, d_model, h)
    return [
        CostRow(c.step, shapes[c.step], c.params, c.macs, c.elementwise)
        for c in step_costs(B, T_q, T_k, d_model, h, masked=masked)
    ]


def all_head_counts(d_model: int) -> list[int]:
    """Every h that divides d_model (the cost chart's x axis), beyond the slider's limit too."""
    return divisors(d_model)


NBSP = "\u00a0"


def shape_table(rows: Sequence[CostRow], titles: dict, *, step: str, axes: str, sizes: str) -> dict:
    """The cost rows' output shapes as a table of three columns: step, named axes, sizes. Inside a shape the
    spaces do not break ("(1, 4, 8, 16)" stays on one line): a phone wraps the step's words instead."""
    return {
        step: [titles[r.step] for r in rows],
        axes: ["(" + ("," + NBSP).join(r.shape.axes) + ")" for r in rows],
        sizes: ["(" + ("," + NBSP).join(str(n) for n in r.shape.sizes) + ")" for r in rows],
    }


def ratio_text(value: int | float, base: int | float) -> str:
    """'×4' for value = 4·base, '×1' when equal (no float noise such as ×1.0000001)."""
    if base == 0:
        return "–"
    r = value / base
    return f"×{r:.0f}" if abs(r - round(r)) < 1e-9 else f"×{r:.2f}"


def human_bytes(n: int) -> str:
    for unit, size in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            v = n / size
            return f"{v:.0f} {unit}" if v == int(v) else f"{v:.1f} {unit}"
    return f"{n} B"


# ---------------------------------------------------------------- timing


@dataclass(frozen=True)
class Timing:
    h: int
    d_k: int
    median_ms: float  # one forward pass, median over the repeats
    min_ms: float
    max_ms: float
    repeats: int
    inner: int  # forward calls averaged inside one repeat (short calls are batched)


def time_forward(
    d_model: int,
    seq_len: int,
    seed: int,
    heads: Sequence[int] | None = None,
    *,
    repeats: int = 5,
    sample_seconds: float = 0.004,
    on_progress: Callable[[int, int, int], None] | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> list[Timing]:
    """Time MultiHeadAttention.forward(x, x, x) (B = 1, no mask, no grad) for every h in `heads`.

    Each h: same weights (build_model), one warm-up call, then `repeats` samples; a sample is the
    mean of enough back-to-back calls to last about `sample_seconds`. Runs on one torch thread
    (core.threads.single_thread). `on_progress(done, total, h)` is called just before h is timed
    (done = how many h are finished). Wall-clock numbers: noisy, never asserted by tests.
    """
    heads = list(all_head_counts(d_model) if heads is None else heads)
    with single_thread():
        return _time_heads(d_model, seq_len, seed, heads, max(1, int(repeats)), sample_seconds, on_progress, clock)


def _time_heads(
    d_model: int,
    seq_len: int,
    seed: int,
    heads: Sequence[int],
    repeats: int,
    sample_seconds: float,
    on_progress: Callable[[int, int, int], None] | None,
    clock: Callable[[], float],
) -> list[Timing]:
    x = build_input(1, seq_len, d_model, seed)  # (1, T, d_model), the same for every h
    out: list[Timing] = []
    for i, h in enumerate(heads):
        if on_progress is not None:
            on_progress(i, len(heads), h)
        model = build_model(d_model, h, seed)
        with torch.no_grad():
            model(x, x, x)  # warm-up
            t0 = clock()
            model(x, x, x)
            once = max(clock() - t0, 1e-7)
            inner = min(200, max(1, math.ceil(sample_seconds / once)))
            samples = []
            for _ in range(repeats):
                t0 = clock()
                for _ in range(inner):
                    model(x, x, x)
                samples.append((clock() - t0) / inner * 1000.0)
        out.append(Timing(h, d_model // h, statistics.median(samples), min(samples), max(samples), repeats, inner))
    return out


# ---------------------------------------------------------------- one big projection = h small ones


@dataclass(frozen=True)
class BlockSlice:
    head: int
    cols: tuple[int, int]  # columns first .. last+1 of the big W (seed orientation d_model x d_model)
    weight_diff: float  # max |W[:, cols] - W_i| (0.0: the very same numbers)
    bias_diff: float  # max |b[cols] - b_i|
    output_diff: float  # max |Q_i - (X W_i + b_i)|, Q_i the head's slice of the traced q_heads


def full_weight(model: MultiHeadAttention, role: str = "q") -> torch.Tensor:
    """The seed's W^Q (or W^K, W^V): (d_model in, d_model out); nn.Linear stores its transpose."""
    return {"q": model.W_q, "k": model.W_k, "v": model.W_v}[role].weight.detach().T


def block_slices(
    model: MultiHeadAttention, x: torch.Tensor, per_head: torch.Tensor, role: str = "q"
) -> list[BlockSlice]:
    """For every head: cut the big W into column blocks and compare with model.head_projection.

    `per_head` is the traced (B, h, T, d_k) tensor of that role (trace.q_heads for 'q').
    """
    layer = {"q": model.W_q, "k": model.W_k, "v": model.W_v}[role]
    W = full_weight(model, role)  # (d_model, d_model)
    d_k = model.d_k
    out = []
    with torch.no_grad():
        for i in range(model.num_heads):
            cols = (i * d_k, (i + 1) * d_k)
            w_i, b_i = model.head_projection(role, i)  # (d_model, d_k), (d_k,)
            w_diff = float((W[:, cols[0] : cols[1]] - w_i).abs().max())
            b_diff = 0.0 if b_i is None else float((layer.bias[cols[0] : cols[1]] - b_i).abs().max())
            direct = x @ w_i + (0 if b_i is None else b_i)  # (B, T, d_k): this head's own projection
            o_diff = float((per_head[:, i] - direct).abs().max())
            out.append(BlockSlice(i, cols, w_diff, b_diff, o_diff))
    return out


@dataclass(frozen=True)
class ParamSplit:
    h: int
    d_k: int
    per_head: int  # d_model*d_k (+ d_k bias) numbers in W_i^Q
    total: int  # h * per_head == d_model*d_model (+ d_model): the same for every h


def param_split(d_model: int, h: int, *, bias: bool = True) -> ParamSplit:
    d_k = d_model // h
    per_head = d_model * d_k + (d_k if bias else 0)
    return ParamSplit(h, d_k, per_head, h * per_head)


# ---------------------------------------------------------------- one head vs h heads


@dataclass(frozen=True)
class SingleVsMulti:
    single: AttentionTrace  # h = 1, d_k = d_model
    multi: AttentionTrace  # the current h
    same_weights: bool  # W^Q, W^K, W^V, W^O (and biases) identical in both models
    params_single: int
    params_multi: int


def _params(model: torch.nn.Module) -> int:
    return weight_count(model)  # from the layer shapes: `model` may be a frozen shared one (no parameters())


def single_vs_multi(
    model: MultiHeadAttention,
    x: torch.Tensor,
    mask: torch.Tensor | None,
    seed: int,
    multi: AttentionTrace | None = None,
) -> SingleVsMulti:
    """The same X (and mask) through one full-width head and through `model`'s h heads, same weights."""
    one = build_model(model.d_model, 1, seed, bias=model.W_q.bias is not None, fill_value=model.fill_value)
    with torch.no_grad():
        _, single = one.forward_with_trace(x, x, x, mask)
        if multi is None:
            _, multi = model.forward_with_trace(x, x, x, mask)
    same = all(torch.equal(a, b) for a, b in zip(one.state_dict().values(), model.state_dict().values()))
    return SingleVsMulti(single, multi, same, _params(one), _params(model))


def head_focus(weights: torch.Tensor) -> torch.Tensor:
    """(h,) how sharply each head looks: the mean over queries of the row's largest weight.

    1 = every query attends to one key; 1/T_k = spread evenly. `weights` is (h, T_q, T_k); NaN rows are skipped.
    """
    top = weights.detach().float().amax(dim=-1)  # (h, T_q)
    return torch.nanmean(top, dim=-1)


def totals_for(seq_len: int, d_model: int, h: int, *, masked: bool) -> Totals:
    """Totals of one B = 1 self-attention call (T_q = T_k = seq_len)."""
    return totals(1, seq_len, seq_len, d_model, h, masked=masked)


def focus_html(
    focus: torch.Tensor,
    shown: Sequence[int],
    *,
    uniform: float,
    axis_title: str,
    head_label: str = "head",
    height_px: int = 120,
) -> str:
    """One bar per head (the overview for many heads) in plain HTML: `head_focus`, the heads on display
    darker, a dotted line at 1/T_k (a head that spreads its attention evenly). Hovering a bar gives its
    value. HTML, not a chart: it redraws at no cost in the browser (a plotly bar chart cost a frame or two).
    """
    on_display = set(shown)
    n = focus.shape[0]
    values = [float(v) for v in focus]
    top = max([uniform, *[v for v in values if v == v]]) or 1.0  # NaN-free maximum (a head with no rows is NaN)
    bars = []
    for i, v in enumerate(values):
        pct = 0.0 if v != v else 100.0 * v / top
        color = CURRENT_COLOR if i in on_display else OTHER_COLOR
        label = str(i) if n <= 16 or i % 4 == 0 else ""
        bars.append(
            f"<div class='al-col' title='{escape(head_label)} {i}: {v:.3f}' data-head='{i}'>"
            f"<div class='al-bar' style='height:{pct:.1f}%;background:{color}'></div>"
            f"<span class='al-tick'>{label}</span></div>"
        )
    line = 100.0 * uniform / top
    return (
        f"<style>.al-focus{{display:flex;align-items:flex-end;gap:2px;height:{height_px}px;position:relative;"
        f"border-bottom:1px solid #888;margin:18px 0 22px;max-width:900px}}"
        ".al-col{flex:1 1 0;height:100%;display:flex;flex-direction:column;justify-content:flex-end;"
        "position:relative;min-width:0}.al-bar{width:100%;border-radius:2px 2px 0 0}"
        ".al-tick{position:absolute;bottom:-19px;left:50%;transform:translateX(-50%);font-size:13px;color:#444}"
        ".al-uniform{position:absolute;left:0;right:0;border-top:1.5px dotted #555}"
        ".al-focus-title{font-size:13px;color:#444;margin-top:6px}</style>"
        f"<div class='al-focus-title'>{escape(axis_title)} (▮ {top:.3f} · ┄ 1/T = {uniform:.3f})</div>"
        f"<div class='al-focus' role='img' aria-label='{escape(axis_title, quote=True)}'>{''.join(bars)}"
        f"<div class='al-uniform' style='bottom:{line:.1f}%' title='1/T = {uniform:.3f}'></div></div>"
        f"<div class='al-focus-title'>{escape(head_label)}</div>"
    )


# ---------------------------------------------------------------- the page's numbers and tables (keys, not words)


def track_h(
    last: object, prev: object, d_model: int, T: int, h: int
) -> tuple[int | None, tuple[int, int, int], object]:
    """The h shown before the latest change of h (same d_model and T), for the shapes section to say what changed.

    `last` is the (d_model, T, h) seen on the previous run and `prev` the h before the latest change (both from
    the session, so possibly garbage). Returns (that h or None, the new `last`, the new `prev`)."""
    if not (isinstance(last, tuple) and len(last) == 3) or last[:2] != (d_model, T):
        prev = None
    elif last[2] != h:
        prev = last[2]
    ok = isinstance(prev, int) and not isinstance(prev, bool) and 0 < prev != h and d_model % prev == 0
    return (prev if ok and isinstance(prev, int) else None), (d_model, T, h), prev


def heads_on_page(h: int, page: int) -> tuple[int, int]:
    """(first, last) head on page `page` of the grid's page selector."""
    heads = page_of_heads(h, page)
    return heads[0], heads[-1]


@dataclass(frozen=True)
class Metric:
    """One of the cost section's four numbers: `name` (params / macs / elementwise / memory; the page's words
    are heads.cost.<name>), the value as printed, and how it compares with one head of width d_model."""

    name: str
    shown: str
    same: bool  # the same as at h = 1
    ratio: str  # ratio_text(value, value at h = 1)


def cost_metrics(T: int, d_model: int, h: int, *, masked: bool) -> list[Metric]:
    now, one = totals_for(T, d_model, h, masked=masked), totals_for(T, d_model, 1, masked=masked)
    pairs = {
        "params": (now.params, one.params),
        "macs": (now.macs, one.macs),
        "elementwise": (now.elementwise, one.elementwise),
        "memory": (now.weights_bytes, one.weights_bytes),
    }
    return [
        Metric(name, human_bytes(v) if name == "memory" else f"{v:,}", v == base, ratio_text(v, base))
        for name, (v, base) in pairs.items()
    ]


def cost_columns(rows: Sequence[CostRow], total: Totals) -> dict[str, list[str]]:
    """The cost table's number columns (params, macs, elementwise): each step's count, then the layer's total."""
    return {
        "params": [f"{r.params:,}" for r in rows] + [f"{total.params:,}"],
        "macs": [f"{r.macs:,}" for r in rows] + [f"{total.macs:,}"],
        "elementwise": [f"{r.elementwise:,}" for r in rows] + [f"{total.elementwise:,}"],
    }


def timing_columns(timings: Sequence[Timing], unmasked: Sequence[Totals]) -> dict[str, list]:
    """The timing table: h, d_k, median / min / max ms (4 decimals) and the predicted operations (no mask,
    like the timing)."""
    ops = {r.h: r.macs + r.elementwise for r in unmasked}
    return {
        "h": [r.h for r in timings],
        "d_k": [r.d_k for r in timings],
        "median": [round(r.median_ms, 4) for r in timings],
        "min": [round(r.min_ms, 4) for r in timings],
        "max": [round(r.max_ms, 4) for r in timings],
        "ops": [ops.get(r.h, 0) for r in timings],
    }


def slice_check(slices: Sequence[BlockSlice]) -> dict[str, float]:
    """The largest difference over all heads: weights (w), biases (b), outputs (o). 0.0: the very same numbers."""
    return {
        "w": max(b.weight_diff for b in slices),
        "b": max(b.bias_diff for b in slices),
        "o": max(b.output_diff for b in slices),
    }


def slice_numbers(model: MultiHeadAttention, head: int, *, rows: int = 4, cols: int = 4) -> dict[str, list]:
    """The first `rows` x `cols` numbers of head `head`'s block of the big W^Q beside the same of W_i^Q, column by
    column (6 decimals): the same numbers."""
    W, w_i = full_weight(model, "q"), model.head_projection("q", head)[0].detach()  # (d_model, d_model), (.., d_k)
    d_model, d_k = w_i.shape
    n_rows, n_cols, c0 = min(d_model, rows), min(d_k, cols), head * d_k
    out = {}
    for j in range(n_cols):
        out[f"W^Q[:, {c0 + j}]"] = [f"{float(W[r, c0 + j]):.6f}" for r in range(n_rows)]
        out[f"W_{head}^Q[:, {j}]"] = [f"{float(w_i[r, j]):.6f}" for r in range(n_rows)]
    return out


def param_columns(T: int, d_model: int, h: int, *, masked: bool) -> dict[str, list]:
    """W^Q's numbers cut into heads for h = 1, 8 and the current h (those dividing d_model): h, d_k, one head's
    count, all heads' count, the layer's parameters."""
    counts = sorted(n for n in {1, 8, h} if d_model % n == 0)
    splits = [param_split(d_model, n) for n in counts]
    return {
        "h": [p.h for p in splits],
        "d_k": [p.d_k for p in splits],
        "per_head": [f"{d_model}·{p.d_k} + {p.d_k} = {p.per_head:,}" for p in splits],
        "total": [f"{p.h} × {p.per_head:,} = {p.total:,}" for p in splits],
        "layer": [f"{totals_for(T, d_model, p.h, masked=masked).params:,}" for p in splits],
    }


def single_range(sv: SingleVsMulti) -> tuple[float, float]:
    """One colour range for the full-width head and the h heads."""
    return data_range(torch.cat([sv.single.weights[0], sv.multi.weights[0]]))


def single_focus(single_w: torch.Tensor, focus: torch.Tensor) -> dict[str, float]:
    """The full-width head's focus (`one`) beside the least and most focused of the h heads (`lo`, `hi`)."""
    return {"one": float(head_focus(single_w)[0]), "lo": float(focus.min()), "hi": float(focus.max())}


def single_heads(pick: Sequence[int], h: int) -> list[int]:
    """The heads the one-vs-many section draws: those picked in the grid (sorted, at most PER_PAGE), else the
    first page."""
    picks = sorted(i for i in pick if 0 <= i < h)
    return (picks or page_of_heads(h, 0))[:PER_PAGE]


# ---------------------------------------------------------------- the heatmaps (plain descriptions)


def page_of_heads(h: int, page: int, per_page: int = PER_PAGE) -> list[int]:
    """The heads on page `page` (from 0, clamped) of `per_page` heads each."""
    pages = max(1, math.ceil(h / per_page))
    page = min(max(0, int(page)), pages - 1)
    return list(range(page * per_page, min(h, (page + 1) * per_page)))


def data_range(values: torch.Tensor | np.ndarray) -> tuple[float, float]:
    """min..max over the finite values (NaN, inf and a mask's -1e9 are skipped), widened by 1 when flat:
    one colour range for a whole set of heads, even those not drawn. (In numpy: a shared, read-only tensor
    pays a Python hook per torch operation.)"""
    a = np.asarray(values.detach().cpu().numpy() if hasattr(values, "detach") else values, dtype=np.float32)
    ok = np.isfinite(a) & (np.abs(a) < 1e8)
    if not ok.all():
        a = a[ok]
    if a.size == 0:
        return -1.0, 1.0
    lo, hi = float(a.min()), float(a.max())
    return (lo, hi) if lo < hi else (lo - 1.0, hi + 1.0)


def signed_range(values: torch.Tensor | np.ndarray) -> tuple[float, float]:
    """data_range made symmetric about 0 (signed values: weights of a projection)."""
    lo, hi = data_range(values)
    m = max(abs(lo), abs(hi))
    return -m, m


def heads_heatmap(
    name: str,
    weights: torch.Tensor,
    heads: Sequence[int],
    tokens: Sequence[str],
    *,
    vrange: tuple[float, float],
    columns: int = 0,
) -> Heatmap:
    """Attention weights (h, T_q, T_k) of the chosen heads, one panel per head titled "head i"
    (text "heads.hm.head"), rows the queries and columns the keys (their tokens as labels): a
    lessons.heatmap.head_grid."""
    labels = tuple(str(tok) for tok in tokens)
    rows, cols = weights.shape[-2], weights.shape[-1]
    return head_grid(
        name,
        [weights[i] for i in heads],
        heads,
        title=lambda i: text("heads.hm.head", i=i),
        role="weights",
        vrange=vrange,
        row_axis=text("common.query"),
        col_axis=text("common.key"),
        row_labels=labels[:rows],
        col_labels=labels[:cols],
        panel_columns=columns,
    )


def one_head_heatmap(
    name: str, weights: torch.Tensor, tokens: Sequence[str], *, vrange: tuple[float, float]
) -> Heatmap:
    """One (T_q, T_k) matrix of weights (the single full-width head), rows queries, columns keys."""
    labels = tuple(str(tok) for tok in tokens)
    panel = Panel(
        values=readonly(weights), row_labels=labels[: weights.shape[0]], col_labels=labels[: weights.shape[1]]
    )
    return Heatmap(
        name=name,
        panels=(panel,),
        role="weights",
        vmin=float(vrange[0]),
        vmax=float(vrange[1]),
        row_axis=text("common.query"),
        col_axis=text("common.key"),
    )


def _no_negative_zero(values: np.ndarray, decimals: int = 4) -> np.ndarray:
    """`values` with the few tiny negatives that would print as "-0.0000" set to 0: the page sends these
    heatmaps as int16 codes of their printed numbers (ui.heatmaps compact, 16 x 512 twice at h = 1 passes
    64 KB as float32), and a code has no signed zero. Every other value is untouched."""
    tiny = (values < 0) & (values > -0.5 * 10.0**-decimals)
    if not tiny.any():
        return values
    out = np.where(tiny, np.float32(0.0), values).astype(np.float32)
    out.setflags(write=False)
    return out


def weight_blocks_heatmap(
    W: torch.Tensor, d_k: int, head: int, *, vrange: tuple[float, float], rows_shown: int
) -> Heatmap:
    """The first `rows_shown` rows of the big W (d_model in x d_model out): every head's block of d_k
    columns outlined (and marked by a colour strip above its columns), `head`'s block as the current one."""
    view = _no_negative_zero(readonly(W[:rows_shown]))
    n_rows, n_cols = view.shape
    h = max(1, n_cols // d_k)
    rects = tuple(Rect(0, 0, n_rows, i * d_k, (i + 1) * d_k, "done") for i in range(h) if i != head)
    rects += (Rect(0, 0, n_rows, head * d_k, (head + 1) * d_k, "current"),)
    panel = Panel(
        values=view,
        title=text("heads.hm.big", i=int(head)),
        row_labels=tuple(str(r) for r in range(n_rows)),
        col_labels=tuple(str(c) for c in range(n_cols)),
        col_groups=tuple(c // d_k for c in range(n_cols)),
    )
    return Heatmap(
        name=f"W_q-d{n_cols}-h{h}",
        panels=(panel,),
        role="signed",
        vmin=float(vrange[0]),
        vmax=float(vrange[1]),
        row_axis=text("heads.axis.in"),
        col_axis=text("heads.axis.out"),
        rects=rects,
    )


def head_weight_heatmap(
    w_i: torch.Tensor, head: int, *, vrange: tuple[float, float], rows_shown: int, first_col: int
) -> Heatmap:
    """W_i (d_model x d_k), its first `rows_shown` rows; the columns are labelled with the big W's column
    numbers (first_col ...), so a hover reads the same cell in both charts."""
    view = _no_negative_zero(readonly(w_i[:rows_shown]))
    n_rows, n_cols = view.shape
    panel = Panel(
        values=view,
        title=text("heads.hm.small", i=int(head)),
        row_labels=tuple(str(r) for r in range(n_rows)),
        col_labels=tuple(str(first_col + c) for c in range(n_cols)),
    )
    d_model = w_i.shape[0]
    return Heatmap(
        name=f"W_q-head{head}-d{d_model}-h{d_model // max(1, n_cols)}",
        panels=(panel,),
        role="signed",
        vmin=float(vrange[0]),
        vmax=float(vrange[1]),
        row_axis=text("heads.axis.in"),
        col_axis=text("heads.axis.dk"),
    )


def slice_heatmaps(model: MultiHeadAttention, head: int, *, rows_shown: int) -> tuple[Heatmap, Heatmap]:
    """The slice section's two heatmaps, in one colour range (the big W^Q's, symmetric about 0): the first
    `rows_shown` rows of W^Q with every head's block outlined, and head `head`'s own W_i^Q."""
    W = full_weight(model, "q")  # (d_model, d_model)
    w_i = model.head_projection("q", head)[0].detach()  # (d_model, d_k)
    vrange = signed_range(W)
    return (
        weight_blocks_heatmap(W, model.d_k, head, vrange=vrange, rows_shown=rows_shown),
        head_weight_heatmap(w_i, head, vrange=vrange, rows_shown=rows_shown, first_col=head * model.d_k),
    )
