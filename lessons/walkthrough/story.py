"""The drill-down: one attention cell of one head recomputed by hand from Q, K and V (checked against the trace),
told step by step (StoryPart), with its q / k chart, the weights' mix of V, and the softmax row as a table."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import torch

from core.masks import full_grid
from core.reference import max_abs_diff
from lessons import scenario
from lessons.heatmap import Heatmap, Panel, Text, text
from lessons.walkthrough.heatmaps import as_printed, column_labels
from lessons.walkthrough.steps import MIX_MAX_COLUMNS

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
    panel = Panel(values=values, row_labels=names, col_labels=column_labels(story.d_k, story.columns[0]))
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
        col_labels=column_labels(shown, first),
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
    browser frames on every redraw, and a pandas Styler server time on every rerun."""

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
