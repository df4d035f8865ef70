"""The walkthrough's lesson: what each step computes, the code line that computes it, its shapes, its
heatmaps as plain data (lessons.heatmap.Heatmap: arrays, labels, text keys), and the drill-down story of
one attention cell. No Streamlit, no plotly, no words of one language (the page words the keys).

The source shown for a step is read from the running code (lessons/source.py: inspect + ast), so the page
can never show a line that is not the one computing the tensor.

Which file holds what (each imports only the ones above it; `from lessons import walkthrough as W` gives all):
- steps.py: the ten steps (Step, STEPS, names, views, roles), step_after, step_source / warm, heads a page shows.
- links.py: the page's URL keys (URL_KEYS, lessons/url.py) and link_opens_drill (a link to a cell opens it).
- numbers.py: each step's shapes, tensor, checks and paragraph (text keys), the reference check.
- heatmaps.py: a step's heatmaps as plain data and step_charts (what a step draws).
- story.py: the drill-down, one cell's story (CellStory, story_parts, its charts, its table rows).
"""

from lessons.heatmap import axis_labels, page_of_heads  # page_of_heads: the head grid's paging (heads lesson too)
from lessons.walkthrough.heatmaps import (
    StepCharts,
    drill_heatmap,
    heads_heatmap,
    mask_heatmap,
    matrix_heatmap,
    step_charts,
    step_zrange,
)
from lessons.walkthrough.links import (
    CELL_KEYS,
    URL_KEY_NAMES,
    URL_KEYS,
    link_opens_drill,
)
from lessons.walkthrough.numbers import (
    RUN_TEXT_STEPS,
    ReferenceCheck,
    blocked_count,
    concat_max_diff,
    fixed_text,
    pipeline,
    reference_check,
    reference_text,
    reshape_chain,
    role_label,
    row_sum_deviation,
    run_text,
    shape_lines,
    shapes,
    split_map,
    split_max_diff,
    step_shapes,
    step_tensor,
    step_text,
)
from lessons.walkthrough.steps import (
    DRILL_STEPS,
    MIX_MAX_COLUMNS,
    ROLES,
    SIDE_BY_SIDE_MAX,
    STEP_BY_NAME,
    STEP_NAMES,
    STEPS,
    VIEWS,
    Step,
    head_pages,
    heads_per_page,
    step_after,
    step_index,
    step_source,
    warm,
)
from lessons.walkthrough.story import (
    STORY_COLUMNS,
    CellStory,
    StoryPart,
    cell_story,
    dot_terms,
    mix_heatmap,
    story_parts,
    story_rows,
    summary_text,
    top_contributions,
    vectors_heatmap,
)

__all__ = [
    "CELL_KEYS",
    "CellStory",
    "DRILL_STEPS",
    "MIX_MAX_COLUMNS",
    "ROLES",
    "ReferenceCheck",
    "RUN_TEXT_STEPS",
    "SIDE_BY_SIDE_MAX",
    "STEPS",
    "STEP_BY_NAME",
    "STEP_NAMES",
    "STORY_COLUMNS",
    "Step",
    "StepCharts",
    "StoryPart",
    "URL_KEYS",
    "URL_KEY_NAMES",
    "VIEWS",
    "axis_labels",
    "blocked_count",
    "cell_story",
    "concat_max_diff",
    "dot_terms",
    "drill_heatmap",
    "fixed_text",
    "head_pages",
    "heads_heatmap",
    "heads_per_page",
    "link_opens_drill",
    "mask_heatmap",
    "matrix_heatmap",
    "mix_heatmap",
    "page_of_heads",
    "pipeline",
    "reference_check",
    "reference_text",
    "reshape_chain",
    "role_label",
    "row_sum_deviation",
    "run_text",
    "shape_lines",
    "shapes",
    "split_map",
    "split_max_diff",
    "step_after",
    "step_charts",
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
