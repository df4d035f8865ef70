"""The "Positions" page as plain data: attention alone cannot tell word order, and how positions fix it.

The page has four sections (its tabs, `pos_tab`), each one function in a module of its own.
Which file holds what:

- `shuffle.py`  `shuffle_view`, "Shuffle the words": the shared scenario's X, weights and output before and
                after a seeded shuffle, the permutation (which row moved where), the max abs difference after
                un-shuffling (0 up to float error) and, with the page's causal toggle, how the mask breaks it.
- `add.py`      `add_view`, "Add positions": the per-head weights of one sentence with no positions,
                sinusoidal, learned and RoPE positions. The learned table is the real model's, 384 wide; no
                d_model of the shared settings is 384 (they are powers of two, 8..512), and a position vector
                is *added* to a token vector, so it fits only the real model. Decision: the section has two
                models (`pos_model`): "random" (the shared scenario: none / sinusoidal / RoPE, and "learned"
                is returned as unavailable with the reason `learned_width` and both widths), and "real"
                (all-MiniLM-L6-v2's first layer on one of its example sentences: all four kinds on the same
                trained W^Q, W^K, W^V, core.positions.real_first_layer_weights). Both give the numbers that
                show order: the shuffle gap per kind (0 only without positions), and on the real model the gap
                between two copies of the same word (0 only without positions).
- `rope.py`     `rope_view`, "RoPE is about distance": the (m, n) grid of scores for one q, k pair, its spread
                along every diagonal (0 up to float error), the score against m - n, one pair of dimensions
                turning (angle, before/after, its path), the fall-off with distance; base and d_k controls;
                and the contrast: the same q, k with sinusoids *added* change along a diagonal.
- `learned.py`  `learned_view`: the real model's learned position table, cosine similarity of positions as a
                heatmap (next to the 384-wide sinusoidal table's for comparison), the table's shape and first
                values.
- `values.py`   the page's URL keys (`URL_KEYS`, lessons/url.py's `UrlKey`), the rules of the keys whose
                correction the page explains (`parse_pos_dk`: an odd d_k is never computed, it becomes the
                nearest even d_k with the reason `odd_d_k`, since RoPE turns *pairs*; `parse_pos_base`: a
                base at most 1), and `parse_url` -> `PageValues`, every value corrected.
- `quiz.py`     `quiz_items` (predict-then-reveal questions as data) and `accepts` (grading a typed answer).
- `common.py`   what the others share: the page's constants (sections, models, kinds, spans, sizes, the float
                tolerance) and the helpers that hand out plain data (read-only numpy copies, heatmaps, series,
                the shared scenario). Every module imports it; only quiz.py imports another section (shuffle)
                and values.py; nothing imports in a circle.

Next to each view, what the page prints of it, so the page only words and draws: `<section>_numbers(view)` (every
number of the section's messages, formatted as printed, by message; `gap_text` for a max abs difference),
`add_table` and `similarity_table` (a `Table`: Text keys and printed numbers), `head_within` and `next_shuffle`
(the head a section shows, the seed "Shuffle again" picks). The RoPE pair's picture is charts/diagrams.py's
`angle_svg`.

What this package returns holds numpy arrays (read-only), numbers, booleans and language-neutral keys only:
no wording, no figure. Token labels are data (the sentence's own words). It imports only `core`, numpy and
torch; it caches nothing (the page uses the server's shared cache). The real model comes in as an argument
(the page's once-per-server frozen `core.pretrained.load()`), so nothing here loads a file; likewise the
shared settings' scenario may come in as `run=` (the page's cached one; building the d_model 512 model is
most of the cost), else it is computed here.

Sizes sent to the browser stay within the 64 KB a step may cost: the shuffle section's X and output carry
at most DIMS_SHOWN_MAX columns, the similarity heatmap at most SIMILARITY_SIDE_MAX per side, the RoPE grid
at most ROPE_GRID_MAX; the per-head weights come whole ((h, T, T)) and the page draws one head of them.

This file re-exports what pages/positions.py, lessons/quiz/, lessons/url_keys.py and the tests use, so
`from lessons import positions as L` reads as one module.
"""

from lessons.positions.add import add_numbers, add_table, add_view, twin_positions
from lessons.positions.common import (
    FALLOFF_DISTANCE,
    KINDS,
    MODELS,
    RANDOM_KINDS,
    REAL_HEADS,
    REAL_WIDTH,
    SIMILARITY_SIDE_MAX,
    SPANS,
    TABS,
    Table,
    gap_text,
)
from lessons.positions.learned import learned_numbers, learned_read, learned_shape, learned_view, similarity_table
from lessons.positions.quiz import QuizItem, accepts, quiz_items
from lessons.positions.rope import by_distance_text, falloff_text, rope_numbers, rope_view, uses_scenario
from lessons.positions.shuffle import shuffle_numbers, shuffle_view
from lessons.positions.values import (
    URL_KEY,
    URL_KEYS,
    PageValues,
    default_dk,
    head_within,
    heads_of,
    next_shuffle,
    parse_url,
)

__all__ = [
    "FALLOFF_DISTANCE",
    "KINDS",
    "MODELS",
    "RANDOM_KINDS",
    "REAL_HEADS",
    "REAL_WIDTH",
    "SIMILARITY_SIDE_MAX",
    "SPANS",
    "TABS",
    "URL_KEY",
    "URL_KEYS",
    "PageValues",
    "QuizItem",
    "Table",
    "accepts",
    "add_numbers",
    "add_table",
    "add_view",
    "default_dk",
    "gap_text",
    "head_within",
    "heads_of",
    "learned_numbers",
    "learned_read",
    "learned_shape",
    "learned_view",
    "next_shuffle",
    "parse_url",
    "quiz_items",
    "rope_numbers",
    "by_distance_text",
    "falloff_text",
    "rope_view",
    "shuffle_numbers",
    "shuffle_view",
    "similarity_table",
    "twin_positions",
    "uses_scenario",
]
