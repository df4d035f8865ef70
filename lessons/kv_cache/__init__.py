"""The KV cache page (url_path `kv-cache`) as plain data: shared K/V heads, decoding, memory, timing.

Every section of the page is two functions here: its view takes the shared `Settings` plus the page's own
URL values and returns frozen dataclasses of numpy arrays, numbers, booleans and language-neutral keys:
its `_shown` turns the view into what the page prints (captions as `lessons.heatmap.Text`, tables,
heatmaps within a step's budget). The page words the keys (i18n/strings) and hands the `Heatmap`s to the
chart renderer; no figure, no sentence of one language is made here. The numbers come from the core the other pages run
(core/attention.py with `num_kv_heads`, core/kv_cache.py, core/accounting.py), and each check the page
prints (`max_abs_diff` against a reference path) is computed here, not asserted.

Which file holds what (a section imports `keys`, `heatmaps` and `tables` at most, never another section; this
file re-exports the names the page, lessons/quiz/, lessons/url_keys.py and the tests use):
- keys.py: the page's URL keys (`URL_KEYS`, `parse_url` -> `PageValues`) and the values they take: the
  sections (`SECTIONS`, the page's lazy tabs, `kv_tab` in the URL), the `kv_heads` control (divisors of h:
  MQA at 1, MHA at h, GQA between; `kv_heads_choices`, `gqa_value`, `attention_kind`, `default_kv_heads`,
  `kind_text`), the presets by slug, the context lengths and the tokens the timing generates.
- heatmaps.py: shared heatmap helpers: a tensor as one panel (`Axis`), `first_columns`, `values_of`, the
  token labels (`page_tokens`).
- tables.py: what the sections print besides charts: a table as `Column`s (header a strings key or a
  language-neutral name), bytes in binary units (`bytes_text`), a step's payload budget (`STEP_VALUES`).
- sharing.py (section "sharing"): which query heads read which K/V head (colour groups), Q staying
  (T, d_model) while K and V shrink to (T, h_kv * d_k), checked against torch's own GQA attention.
- decode.py (section "decode"): step t of T: the new query row, the cache K and V with t rows, one row of
  scores and weights, the output row; the same row from one causal pass over all T tokens and their max abs
  difference; the multiply-adds this step costs with and without the cache.
- memory.py (section "memory"): KV-cache bytes against context length for h_kv = h, a GQA value and 1, for
  the published presets (core.accounting.PRESETS, sources cited there) and for our own one-layer float32 model.
- timing.py (section "timing"): generating T tokens with and without the cache, timed on the server
  (`measure_generation`), with the growth exponent fitted from the measured series (linear / quadratic /
  cubic is computed).
- quiz.py: the page's predict-then-reveal questions (`quiz_questions`).

Nothing is cached here (the page uses the server's shared cache). Every view is cheap enough for a step;
`sharing_view` builds a model twice unless the page passes its MHA trace as `mha` (building is most of its
cost). `measure_generation` is the one slow call, so it runs on a click (timings: benchmarks/README.md,
"Moved from comments").
"""

from __future__ import annotations

from lessons.kv_cache.decode import decode_shown, decode_view
from lessons.kv_cache.heatmaps import first_columns, page_tokens, values_of
from lessons.kv_cache.keys import (
    CONTEXT_CHOICES,
    DEFAULT_CONTEXT,
    GEN_MAX,
    GEN_MIN,
    MODEL_CHOICES,
    PRESET_SLUGS,
    SECTIONS,
    URL_KEY_BY_NAME,
    URL_KEYS,
    PageValues,
    default_kv_heads,
    default_step,
    gqa_value,
    kind_text,
    kv_heads_choices,
    parse_url,
)
from lessons.kv_cache.memory import MemoryView, memory_shown, memory_view
from lessons.kv_cache.quiz import QuizQuestion, quiz_questions
from lessons.kv_cache.sharing import (
    SDPA_ATOL,
    SharingView,
    control_options,
    sharing_shown,
    sharing_view,
    weights_heatmap,
)
from lessons.kv_cache.tables import bytes_text
from lessons.kv_cache.timing import (
    TimingResult,
    growth_exponent,
    growth_kind,
    measure_generation,
    timing_lengths,
    timing_shown,
)
from lessons.tables import Table

__all__ = [
    "CONTEXT_CHOICES",
    "DEFAULT_CONTEXT",
    "GEN_MAX",
    "GEN_MIN",
    "MODEL_CHOICES",
    "PRESET_SLUGS",
    "SDPA_ATOL",
    "SECTIONS",
    "URL_KEYS",
    "URL_KEY_BY_NAME",
    "MemoryView",
    "PageValues",
    "QuizQuestion",
    "SharingView",
    "TimingResult",
    "Table",
    "bytes_text",
    "control_options",
    "decode_shown",
    "decode_view",
    "default_kv_heads",
    "default_step",
    "first_columns",
    "gqa_value",
    "growth_exponent",
    "growth_kind",
    "kind_text",
    "kv_heads_choices",
    "measure_generation",
    "memory_shown",
    "memory_view",
    "page_tokens",
    "parse_url",
    "quiz_questions",
    "sharing_shown",
    "sharing_view",
    "timing_lengths",
    "timing_shown",
    "values_of",
    "weights_heatmap",
]
