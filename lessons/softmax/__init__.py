"""The "Softmax up close" page (url_path `softmax`) as plain data: what each section shows.

Three sections, each a lazy tab whose language-neutral id is the URL value `soft_tab`:

- "scale" (why ÷ sqrt(d_k)): the variance of q·k measured against d_k (`variance_curve`), the run's own
  variances of X, q, k and q·k under each divisor (`run_variance`, `variance_table`, `variance_note`), and one row of
  the current run's raw scores q·k through the softmax under ÷1, ÷sqrt(d_k) and ÷d_k side by side, with
  entropy, largest weight and gradient size (`scale_row`). Which head and which query row: URL values.
- "max" (why subtract the max): the same row (÷sqrt(d_k), masked, as the model's softmax sees it), times a
  gain from the URL, through the naive, safe and online softmax in float32 and float16 (`max_row`): where
  exp overflows, the inf/NaN of the naive one, and how far the other two are from the exact softmax.
- "tiles" (tile by tile): the FlashAttention forward walk of one head with the URL's block sizes
  (`tile_walk`, then `tile_step` for the URL's step), the result beside the plain path's (`tile_result`),
  and the memory/traffic table for the current T and the long contexts (`memory_table`).

Which file holds what (each imports `common` and, where it needs a constant, `keys`; never each other in a circle):

- `keys.py`: the page's URL keys (`URL_KEYS`, settled by ui/url_state.py), `PageValues`, `parse_url`, `env_of`,
  `url_bounds`, `step_count` (the step slider's length) and the page's constants (`SECTIONS`, `GAINS`, blocks).
- `common.py`: what every section shares: read-only arrays, the run and its mask (`get_run`), `max_abs_diff`, the
  one-panel `heatmap` helper and `values_of`, the state codes of the step view.
- `scale.py`: section "scale" (`variance_curve`, `scale_row`, `jacobian_norm`).
- `overflow.py`: section "max" (`max_row`, one `DtypeRow` per dtype).
- `tiles.py`: section "tiles", the walk (`tile_walk`, `tile_step`).
- `result.py`: section "tiles", its end: the tiled result against the plain path (`tile_result`).
- `memory.py`: section "tiles", the memory and traffic table (`memory_table`, the page's blocks and a kernel's
  tile `KERNEL_BLOCKS`) and what it says about traffic (`traffic_notes`, chosen by its numbers).
- `quiz.py`: the lesson's quiz questions (`quiz_questions`) and the answer reader (`check_answer`).

Every number comes from the shared settings' scenario (lessons/scenario.py), so it matches the other pages.
Nothing here is worded: the page turns keys into text (i18n/strings); heatmaps are `lessons.heatmap.Heatmap`
descriptions (axis and title keys `softmax.axis.*` / `softmax.hm.*`) handed to ui.heatmaps.show_heatmap. Arrays are
numpy and read-only (the page's shared cache hands the same object to every student). Nothing is cached
here. `tile_walk` (up to 1024 steps at blocks 1 x 1), `tile_result` and `variance_curve` (the seed alone
decides it) are the expensive calls, so the page caches `tile_walk` per (settings, head, blocks) and the
step slider costs only `tile_step` (timings: benchmarks/README.md, "Moved from comments").

Why a lesson package: the page stays thin (read URL values -> call these -> draw), and every number it
prints is tested against an independent computation in tests/test_lesson_softmax.py.
"""

from __future__ import annotations

from core.limits import TILE_BLOCK_MAX
from core.softmax_numerics import SCALE_NAMES
from lessons.softmax.common import CURRENT, DONE, SHOWN_FEATURES, SKIPPED, number, values_of
from lessons.softmax.keys import (
    DEFAULT_BLOCK,
    GAINS,
    SECTIONS,
    URL_KEY_NAMES,
    URL_KEYS,
    WIDGET_KEYS,
    PageValues,
    default_gain,
    env_of,
    head_options,
    key_range,
    moved_step,
    parse_url,
    step_count,
    url_bounds,
)
from lessons.softmax.memory import KERNEL_BLOCKS, fmt_bytes, memory_columns, memory_table, traffic_notes
from lessons.softmax.overflow import (
    GAP,
    TELLING_KEYS,
    WHOLE_ROW_UP_TO,
    ShownKeys,
    breaks_from,
    dtype_notes,
    dtype_table,
    max_row,
    row_text,
    shown_text,
    telling_keys,
)
from lessons.softmax.quiz import QUIZ_KINDS, Checked, QuizQuestion, check_answer, quiz_questions
from lessons.softmax.result import RESULT_TOLERANCE, result_note, tile_result
from lessons.softmax.scale import (
    NEAR_ONE,
    SATURATED,
    SCALE_LABELS,
    VARIANCE_DRAWS,
    BigHint,
    RunVariance,
    VarianceCurve,
    big_hint,
    run_variance,
    scale_notes,
    scale_row,
    scale_table,
    top_two_gap,
    variance_curve,
    variance_note,
    variance_now,
    variance_table,
    wants_hint,
)
from lessons.softmax.tiles import (
    ROW_RUNNING,
    ROW_WAITING,
    ROW_WRITTEN,
    step_text,
    tile_rows_table,
    tile_step,
    tile_walk,
)
from lessons.tables import Column

# The names pages/softmax.py, lessons/quiz/, lessons/url_keys.py, charts/lines.py and the tests use.
# SCALE_NAMES (core.softmax_numerics) and TILE_BLOCK_MAX (core.limits) are read through this module by
# lessons/quiz/ and tests/test_softmax_app.py.
__all__ = [
    "KERNEL_BLOCKS",
    "CURRENT",
    "DEFAULT_BLOCK",
    "DONE",
    "GAINS",
    "GAP",
    "NEAR_ONE",
    "QUIZ_KINDS",
    "RESULT_TOLERANCE",
    "ROW_RUNNING",
    "ROW_WAITING",
    "ROW_WRITTEN",
    "SATURATED",
    "SCALE_LABELS",
    "SCALE_NAMES",
    "SECTIONS",
    "SHOWN_FEATURES",
    "SKIPPED",
    "ShownKeys",
    "TELLING_KEYS",
    "WHOLE_ROW_UP_TO",
    "TILE_BLOCK_MAX",
    "URL_KEYS",
    "URL_KEY_NAMES",
    "VARIANCE_DRAWS",
    "BigHint",
    "RunVariance",
    "WIDGET_KEYS",
    "Checked",
    "Column",
    "PageValues",
    "QuizQuestion",
    "VarianceCurve",
    "big_hint",
    "breaks_from",
    "check_answer",
    "dtype_notes",
    "dtype_table",
    "default_gain",
    "env_of",
    "fmt_bytes",
    "head_options",
    "key_range",
    "max_row",
    "memory_columns",
    "memory_table",
    "traffic_notes",
    "moved_step",
    "number",
    "parse_url",
    "quiz_questions",
    "result_note",
    "row_text",
    "run_variance",
    "scale_notes",
    "scale_row",
    "scale_table",
    "shown_text",
    "step_count",
    "step_text",
    "telling_keys",
    "tile_result",
    "tile_rows_table",
    "tile_step",
    "tile_walk",
    "top_two_gap",
    "url_bounds",
    "values_of",
    "variance_curve",
    "variance_note",
    "variance_now",
    "variance_table",
    "wants_hint",
]
