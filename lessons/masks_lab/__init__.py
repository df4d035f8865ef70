"""Everything the Masks lab page computes, as plain data: the mask from the page's choices, the attention
run (self- or cross-attention, batch of one or two), the polarity-bug demo, the fully-blocked-row
explanation, the hand-drawn grid edits, and the page's heatmaps as lessons.heatmap.Heatmap (the mask with
its stored 0/1 as marks, the masked scores with their blocked cells and fill value, the weights with NaN
marked). No Streamlit, no plotly, no wording: the page words the Text keys (i18n/strings/masks.py).

All masks here are in the seed's convention (True = keep, `masked_fill(mask == 0, fill)`);
the other polarity (True = blocked) exists only for display and for the bug demo.

Which file holds what (each imports only the ones above it; `from lessons import masks_lab as lab` is the public
name; T_K_MIN, T_K_MAX and axis_labels are passed on from core.limits and lessons.heatmap):
- choices.py   the page's choices and the mask they make: parts, padding defaults, the hand-drawn grid and its
               edits, a mask shown in either polarity
- urls.py      URL_KEYS (and the keys with their own handlers, OWN_HANDLERS)
- run.py       LabSetup -> run_lab -> LabRun; blocked_check, blocked_cells_ok, reference_diff, full_row_demo
- bug.py       the polarity bug (PolarityBug, polarity_bug)
- tables.py    fmt_value and the page's tables as column ids -> values (row, fully blocked rows, the bug)
- heatmaps.py  the mask, scores and weights heatmaps (lab_view) and the bug's two charts (bug_view)
"""

from __future__ import annotations

from core.limits import T_K_MAX, T_K_MIN
from lessons.heatmap import axis_labels
from lessons.masks_lab.bug import polarity_bug
from lessons.masks_lab.choices import (
    DEFAULT_T_K,
    EXTRA_PARTS,
    FILLS,
    GRID_ACTIONS,
    POLARITIES,
    default_lengths,
    default_padding,
    edit_grid,
    mask_parts,
    parse_grid,
    shown_values,
)
from lessons.masks_lab.heatmaps import MASK_STATES, bug_view, lab_view, mask_heatmap, scores_heatmap, weights_heatmap
from lessons.masks_lab.run import (
    LabRun,
    LabSetup,
    blocked_cells_ok,
    blocked_check,
    full_row_demo,
    reference_diff,
    run_lab,
)
from lessons.masks_lab.tables import (
    BUG_COLUMNS,
    FULL_COLUMNS,
    ROW_COLUMNS,
    bug_table,
    fmt_value,
    full_row_table,
    full_rows,
    row_table,
    short,
    uniform_weight,
)
from lessons.masks_lab.urls import OWN_HANDLERS, URL_KEY_NAMES, URL_KEYS

__all__ = [
    "BUG_COLUMNS",
    "DEFAULT_T_K",
    "EXTRA_PARTS",
    "FILLS",
    "FULL_COLUMNS",
    "GRID_ACTIONS",
    "LabRun",
    "LabSetup",
    "MASK_STATES",
    "OWN_HANDLERS",
    "POLARITIES",
    "ROW_COLUMNS",
    "T_K_MAX",
    "T_K_MIN",
    "URL_KEYS",
    "URL_KEY_NAMES",
    "axis_labels",
    "blocked_cells_ok",
    "blocked_check",
    "bug_table",
    "bug_view",
    "default_lengths",
    "default_padding",
    "edit_grid",
    "fmt_value",
    "full_row_demo",
    "full_row_table",
    "full_rows",
    "lab_view",
    "mask_heatmap",
    "mask_parts",
    "parse_grid",
    "polarity_bug",
    "reference_diff",
    "row_table",
    "run_lab",
    "scores_heatmap",
    "short",
    "shown_values",
    "uniform_weight",
    "weights_heatmap",
]
