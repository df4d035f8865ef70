"""The "Heads and shapes" lesson as plain data: what changes with h, and what it costs.

Six sections, each a lazy tab whose language-neutral id is the URL value `heads_tab` (`SECTIONS`):
"shapes" (the layer as boxes with live shapes), "heads" (the grid of attention heatmaps of the picked heads),
"cost" (the accounting against h), "timing" (a live measurement for every h), "slice" (one big W^Q cut into h
column blocks is exactly the heads' W_i^Q) and "single" (the same input through h = 1 and through h heads).

Which file holds what (each imports at most `keys`, `cost` and `heatmaps`; never each other in a circle):

- `keys.py`: the page's URL keys (`URL_KEYS`, settled by ui/url_state.settle; `parse_pick` reads the grid's pick,
  `NEW_MODEL_KEYS`), `SECTIONS` and the grid's paging (`PER_PAGE`, `MAX_PICK`, `head_pages`, `page_of_heads`,
  `heads_on_page`).
- `flow.py`: section "shapes": `shape_flow` (each box's live shape from core.accounting.tensor_shapes, and what it
  was at the previous h; charts/diagrams.py draws them as HTML, `shape_flow_html`) and `track_h`.
- `cost.py`: section "cost": `cost_rows`, `shape_table`, `totals_for`, `all_head_counts` (every h dividing
  d_model), `cost_metrics` (`Metric`), `cost_columns`, `ratio_text`, `human_bytes`, and W^Q's numbers cut into
  heads (`param_split`, `param_columns`).
- `timing.py`: section "timing": `time_forward` (`Timing` per h) and `timing_columns`.
- `slices.py`: section "slice": `full_weight`, `block_slices` (`BlockSlice`), `slice_check`, `slice_numbers` and
  its heatmaps (`slice_heatmaps`, `weight_blocks_heatmap`, `head_weight_heatmap`).
- `single.py`: section "single": `single_vs_multi`, `head_focus` (drawn as HTML bars by charts/diagrams.py's
  `focus_html`, in the grid section too), `single_range`, `single_focus`, `single_heads`.
- `heatmaps.py`: one colour range for a set of heads (`data_range`, `signed_range`) and the attention heatmaps
  `heads_heatmap` (a lessons.heatmap.head_grid) and `single_vs_heads_heatmap`.

The heatmaps are lessons.heatmap.Heatmap (arrays, labels, text keys), drawn by ui.heatmaps.show_heatmap. The bar and
line charts of the cost and timing sections are built by the page's ui/heads_charts.py from `Totals` / `Timing`.
No Streamlit and no plotly here: the page (pages/heads.py) only draws what these return; `from lessons import heads
as H` is the public name, and tests/test_heads.py checks every number.
"""

from __future__ import annotations

from lessons.heads.cost import (
    all_head_counts,
    cost_columns,
    cost_metrics,
    cost_rows,
    cost_takeaway,
    human_bytes,
    param_columns,
    param_split,
    ratio_text,
    shape_table,
    totals_for,
)
from lessons.heads.flow import shape_flow, track_h
from lessons.heads.heatmaps import data_range, heads_heatmap, signed_range, single_vs_heads_heatmap
from lessons.heads.keys import (
    MAX_PICK,
    NEW_MODEL_KEYS,
    PER_PAGE,
    SECTIONS,
    URL_KEYS,
    head_pages,
    heads_on_page,
    page_of_heads,
    parse_pick,
)
from lessons.heads.single import head_focus, single_focus, single_heads, single_range, single_vs_multi
from lessons.heads.slices import (
    block_slices,
    full_weight,
    head_weight_heatmap,
    slice_check,
    slice_heatmaps,
    slice_numbers,
    weight_blocks_heatmap,
)
from lessons.heads.timing import Timing, time_forward, timing_columns, timing_noise

__all__ = [
    "MAX_PICK",
    "NEW_MODEL_KEYS",
    "PER_PAGE",
    "SECTIONS",
    "URL_KEYS",
    "Timing",
    "all_head_counts",
    "block_slices",
    "cost_columns",
    "cost_metrics",
    "cost_takeaway",
    "cost_rows",
    "data_range",
    "full_weight",
    "head_focus",
    "head_pages",
    "head_weight_heatmap",
    "heads_heatmap",
    "heads_on_page",
    "human_bytes",
    "page_of_heads",
    "param_columns",
    "param_split",
    "parse_pick",
    "ratio_text",
    "shape_flow",
    "shape_table",
    "signed_range",
    "single_focus",
    "single_heads",
    "single_range",
    "single_vs_heads_heatmap",
    "single_vs_multi",
    "slice_check",
    "slice_heatmaps",
    "slice_numbers",
    "time_forward",
    "timing_columns",
    "timing_noise",
    "totals_for",
    "track_h",
    "weight_blocks_heatmap",
]
