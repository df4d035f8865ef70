"""The "Heads and shapes" lesson as plain data: what changes with h, and what it costs.

Six sections, each a lazy tab whose language-neutral id is the URL value `heads_tab` (`SECTIONS`):
"shapes" (the layer as boxes with live shapes), "heads" (the grid of attention heatmaps of the picked heads),
"cost" (the accounting against h), "timing" (a live measurement for every h), "slice" (one big W^Q cut into h
column blocks is exactly the heads' W_i^Q) and "single" (the same input through h = 1 and through h heads).

Which file holds what (each imports at most `keys`, `colors`, `cost` and `heatmaps`; never each other in a circle):

- `keys.py`: the page's URL keys (`URL_KEYS`, settled by ui/url_state.settle; `parse_pick` reads the grid's pick,
  `NEW_MODEL_KEYS`), `SECTIONS` and the grid's paging (`PER_PAGE`, `MAX_PICK`, `head_pages`, `page_of_heads`,
  `heads_on_page`).
- `colors.py`: `CURRENT_COLOR` / `OTHER_COLOR`, shared by the focus bars here and ui/heads_charts.py.
- `flow.py`: section "shapes": `shape_flow` (each box's live shape from core.accounting.tensor_shapes, and what it
  was at the previous h), `shape_flow_html` (the boxes as HTML; the page passes every word), `track_h`, and for
  tests `parse_sizes` / `flow_box_texts`.
- `cost.py`: section "cost": `cost_rows`, `shape_table`, `totals_for`, `all_head_counts` (every h dividing
  d_model), `cost_metrics` (`Metric`), `cost_columns`, `ratio_text`, `human_bytes`, and W^Q's numbers cut into
  heads (`param_split`, `param_columns`).
- `timing.py`: section "timing": `time_forward` (`Timing` per h) and `timing_columns`.
- `slices.py`: section "slice": `full_weight`, `block_slices` (`BlockSlice`), `slice_check`, `slice_numbers` and
  its heatmaps (`slice_heatmaps`, `weight_blocks_heatmap`, `head_weight_heatmap`).
- `single.py`: section "single": `single_vs_multi`, `head_focus` and its HTML bars `focus_html` (the grid section
  draws them too), `single_range`, `single_focus`, `single_heads`.
- `heatmaps.py`: one colour range for a set of heads (`data_range`, `signed_range`) and the attention heatmaps
  `heads_heatmap` (a lessons.heatmap.head_grid) and `one_head_heatmap`.

The heatmaps are lessons.heatmap.Heatmap (arrays, labels, text keys), drawn by ui.heatmaps.show_heatmap. The bar and
line charts of the cost and timing sections are built by the page's ui/heads_charts.py from `Totals` / `Timing`.
No Streamlit and no plotly here: the page (pages/heads.py) only draws what these return; `from lessons import heads
as H` is the public name, and tests/test_heads.py checks every number.
"""

from __future__ import annotations

from lessons.heads.colors import CURRENT_COLOR, OTHER_COLOR
from lessons.heads.cost import (
    all_head_counts,
    cost_columns,
    cost_metrics,
    cost_rows,
    human_bytes,
    param_columns,
    param_split,
    ratio_text,
    shape_table,
    totals_for,
)
from lessons.heads.flow import flow_box_texts, parse_sizes, shape_flow, shape_flow_html, track_h
from lessons.heads.heatmaps import data_range, heads_heatmap, one_head_heatmap, signed_range
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
from lessons.heads.single import focus_html, head_focus, single_focus, single_heads, single_range, single_vs_multi
from lessons.heads.slices import (
    block_slices,
    full_weight,
    head_weight_heatmap,
    slice_check,
    slice_heatmaps,
    slice_numbers,
    weight_blocks_heatmap,
)
from lessons.heads.timing import Timing, time_forward, timing_columns

__all__ = [
    "CURRENT_COLOR",
    "MAX_PICK",
    "NEW_MODEL_KEYS",
    "OTHER_COLOR",
    "PER_PAGE",
    "SECTIONS",
    "URL_KEYS",
    "Timing",
    "all_head_counts",
    "block_slices",
    "cost_columns",
    "cost_metrics",
    "cost_rows",
    "data_range",
    "flow_box_texts",
    "focus_html",
    "full_weight",
    "head_focus",
    "head_pages",
    "head_weight_heatmap",
    "heads_heatmap",
    "heads_on_page",
    "human_bytes",
    "one_head_heatmap",
    "page_of_heads",
    "param_columns",
    "param_split",
    "parse_pick",
    "parse_sizes",
    "ratio_text",
    "shape_flow",
    "shape_flow_html",
    "shape_table",
    "signed_range",
    "single_focus",
    "single_heads",
    "single_range",
    "single_vs_multi",
    "slice_check",
    "slice_heatmaps",
    "slice_numbers",
    "time_forward",
    "timing_columns",
    "totals_for",
    "track_h",
    "weight_blocks_heatmap",
]
