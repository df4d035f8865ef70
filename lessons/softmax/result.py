"""Section "tiles", its end: the tiled result of every head against the plain path's head outputs and torch's fused
scaled_dot_product_attention, and the final l against the plain path's row sums (`tile_result`)."""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F

from core.masks import FILL_SEED
from core.tiled_attention import tiled_attention
from lessons.heatmap import Heatmap, Panel, Text, readonly, text, value_range
from lessons.scenario import Scenario
from lessons.settings import Settings
from lessons.softmax.common import SHOWN_FEATURES, _keep, get_run, heatmap, max_abs_diff, values_of

# Tiled vs plain path, float32: "equal up to float error", as lessons.kv_cache's SDPA check and positions' EQUAL_TOL.
# With the lesson model's unit-variance projections (core.attention.weight_std) the outputs reach |5| and the scores
# spread wider; the rounding differences measured up to 1.5e-6 (512 x 32 x 1 x 1 tiles), past the 1e-6 that fitted
# nn.Linear's third-size values. A wrong rescale or a lost tile is off by more than 1e-3.
RESULT_TOLERANCE = 1e-5


@dataclass(frozen=True)
class TileResult:
    """At the end: the tiled result beside the plain path's, and the differences the page prints."""

    head: int
    tiled: Heatmap  # (T, d_k) the head's tiled output
    plain: Heatmap  # (T, d_k) the same head's trace.head_outputs
    side_by_side: Heatmap  # two panels, tiled | plain, the first min(d_k, SHOWN_FEATURES) features: what the page draws
    head_diff: float  # max |tiled - plain| on this head
    all_heads_diff: float  # over every head of the run
    sdpa_diff: float  # max |tiled - F.scaled_dot_product_attention| over every head (mask as -1e9 added)
    l_diff: float  # max relative |final l - row sums of exp(masked scores - row max)| over every head
    tolerance: float  # RESULT_TOLERANCE
    equal: bool  # all three differences within the tolerance
    steps: int  # processed tiles (same for every head: the mask does not depend on the head)
    skipped: int


@torch.inference_mode()  # as tile_walk: the tensors made inside leave as numbers and numpy heatmaps only
def tile_result(
    settings: Settings,
    head: int,
    block_q: int,
    block_k: int,
    run: Scenario | None = None,
    custom_text: str | None = None,
) -> TileResult:
    """The tiled walk over every head (no per-step trace) against the model's head_outputs and torch's fused
    scaled_dot_product_attention; and the final l against the plain path's unnormalised row sums."""
    run = get_run(settings, run, custom_text)
    tr = run.trace
    walk = tiled_attention(
        tr.q_heads,
        tr.k_heads_expanded,
        tr.v_heads_expanded,
        run.mask,
        block_q=block_q,
        block_k=block_k,
        keep_steps=False,
    )
    keep = _keep(run)  # (T, T)
    additive = torch.zeros(keep.shape).masked_fill(~keep, FILL_SEED)  # (T, T)
    sdpa = F.scaled_dot_product_attention(tr.q_heads, tr.k_heads_expanded, tr.v_heads_expanded, attn_mask=additive)
    masked = tr.masked_scores  # (1, h, T, T)
    row_sums = torch.exp(masked - masked.amax(dim=-1, keepdim=True)).sum(dim=-1)  # (1, h, T)
    head_diff = max_abs_diff(walk.output[0, head], tr.head_outputs[0, head])
    all_diff = max_abs_diff(walk.output, tr.head_outputs)
    sdpa_diff = max_abs_diff(walk.output, sdpa)
    l_diff = float(((walk.l - row_sums).abs() / row_sums).max())
    tok = run.tokens
    n_skipped = len(walk.skipped)
    f = min(settings.d_k, SHOWN_FEATURES)
    tiled_hm = heatmap("tiled", walk.output[0, head], "query", "feature", tok, "signed")
    plain_hm = heatmap("plain", tr.head_outputs[0, head], "query", "feature", tok, "signed")
    lo, hi = value_range("signed", [values_of(tiled_hm)[:, :f], values_of(plain_hm)[:, :f]])
    both = Heatmap(
        name="tiled_vs_plain",
        role="signed",
        vmin=lo,
        vmax=hi,
        row_axis=text("softmax.axis.query"),
        col_axis=text("softmax.axis.feature"),
        title=text("softmax.hm.result", shown=f, d_k=settings.d_k),
        panels=tuple(
            Panel(
                values=readonly(values_of(hm)[:, :f]),
                title=text(f"softmax.hm.{hm.name}"),
                row_labels=tuple(tok),
                col_labels=tuple(str(i) for i in range(f)),
            )
            for hm in (tiled_hm, plain_hm)
        ),
    )
    return TileResult(
        head=head,
        tiled=tiled_hm,
        plain=plain_hm,
        side_by_side=both,
        head_diff=head_diff,
        all_heads_diff=all_diff,
        sdpa_diff=sdpa_diff,
        l_diff=l_diff,
        tolerance=RESULT_TOLERANCE,
        equal=max(all_diff, sdpa_diff, l_diff) <= RESULT_TOLERANCE,
        steps=walk.n_tiles - n_skipped,
        skipped=n_skipped,
    )


def result_note(res: TileResult, num_heads: int) -> Text:
    """What the page says under the tiled | plain chart: equal within the tolerance (with the steps processed and
    skipped) or not, with the four differences."""
    kw = dict(head=res.head_diff, all=res.all_heads_diff, sdpa=res.sdpa_diff, l=res.l_diff, tol=res.tolerance)
    if res.equal:
        return text("softmax.tiles.equal", h=num_heads, steps=res.steps, skipped=res.skipped, **kw)
    return text("softmax.tiles.not_equal", **kw)
