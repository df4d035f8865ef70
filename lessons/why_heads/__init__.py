"""Why many heads (the lesson of pages/why-heads.py, plain data): a tiny task that needs two attention patterns at
once, a tiny model built
on our MultiHeadAttention, a deterministic training loop, and the measurements the page reports.

The task ("previous digit + marked digit")
------------------------------------------
A sequence of SEQ_LEN digits 0..VOCAB-1; exactly one position is *marked*. At every position
i >= 1 the model answers two digits: the digit at i-1 (the previous token, a relation by
position) and the marked digit (a relation by content: "the token that carries the mark").

The model
---------
One attention layer and a linear readout, nothing else (no FFN, no residual, no second layer):

    x_j      = E[token_j] + P[j] + (M if j is marked)       what a query/key sees
    value_j  = E[token_j]                                    what a token *is*
    out      = MultiHeadAttention(query=x, key=x, value=value)
    logits_i = readout(out_i) -> two groups of VOCAB logits (previous digit, marked digit)

Position and mark only steer *where* to look (queries and keys); the values carry the digit
alone. Every head count uses the same d_model and the same parameter count (W^Q, W^K, W^V, W^O
are d_model x d_model whatever h is), and the same seed gives the same initial weights for
every h, so the three models differ only in how the projections are split into heads.

Why one head cannot solve it: a head's output is a weighted average of value vectors (softmax
weights are >= 0 and sum to 1). One head that looks at both positions returns
w*v(a) + (1-w)*v(b): the two digits are mixed in one vector, and two linear readouts (one per
answer) cannot get both answers right for every pair: once the pairs with a = b are right, the
two readouts put contradictory conditions on the weight ratio w/(1-w) of the sequences (a, b)
and (b, a), whatever w is for each. So it either locks onto one position and guesses the other
digit, or splits its attention and confuses the two. Two heads put v(a) and v(b) into different
subspaces, side by side in the concatenation. If the values also carried position and mark
(values="full", benchmark only), a full-width single head can tag the two positions through
its weights and does learn the task for some seeds (FULL_VALUES_ACCURACY).

Everything is deterministic for a fixed seed: weights and batches come from explicit
torch.Generator objects, never from the global RNG (the app serves several sessions at once).

Which file holds what (each imports only the ones above it; `from lessons import why_heads as W` is the public name):
- task.py      the task's batches and every shared number: sizes, training, thresholds, measured results
- model.py     WhyHeadsModel, build_why_model (the same initial weights for every h), the loss
- measure.py   attention mass per head and relation, head_roles, RunResult, evaluate
- training.py  Trainer (advanced a chunk at a time, shared by sessions) and train
- verdict.py   compare, single_head_story, and the page's verdicts (Verdict: text ids and values)
- store.py     ResultStore: finished runs for the whole server, bounded, frozen; one Trainer per run in flight
- view.py      what the page shows: URL_KEYS, loss curves, the example, heads_heatmap, the tables, the
               session's interrupted run and the cache status
"""

from __future__ import annotations

from lessons.why_heads.measure import RunResult, head_roles, pattern_masses
from lessons.why_heads.model import build_why_model, parameter_count
from lessons.why_heads.store import ResultStore, cache_key
from lessons.why_heads.task import (
    BATCH_SIZE,
    D_MODEL,
    DEFAULT_STEPS,
    EVAL_SIZE,
    EXAMPLE_MARKER,
    EXAMPLE_TOKENS,
    HEAD_COUNTS,
    LOSS_MARGIN,
    MATCH_THRESHOLD,
    SEED_MAX,
    SEED_MIN,
    SEQ_LEN,
    SINGLE_HEAD_LONG_RUN,
    SOLVED_ACCURACY,
    STEP_CHOICES,
    SURVEY,
    VOCAB,
    example_batch,
    make_batch,
)
from lessons.why_heads.training import Trainer, train
from lessons.why_heads.verdict import compare, single_head_facts, single_head_story, verdicts
from lessons.why_heads.view import (
    HEAD_COLUMNS,
    RESULT_COLUMNS,
    URL_KEY_NAMES,
    URL_KEYS,
    Curve,
    cache_status,
    chance_loss,
    example_cells,
    example_rows,
    full_values_accuracy,
    head_widths,
    heads_heatmap,
    heads_table,
    interrupted_run,
    loss_curves,
    results_table,
)

__all__ = [
    "BATCH_SIZE",
    "Curve",
    "DEFAULT_STEPS",
    "D_MODEL",
    "EVAL_SIZE",
    "EXAMPLE_MARKER",
    "EXAMPLE_TOKENS",
    "HEAD_COLUMNS",
    "HEAD_COUNTS",
    "LOSS_MARGIN",
    "MATCH_THRESHOLD",
    "RESULT_COLUMNS",
    "ResultStore",
    "RunResult",
    "SEED_MAX",
    "SEED_MIN",
    "SEQ_LEN",
    "SINGLE_HEAD_LONG_RUN",
    "SOLVED_ACCURACY",
    "STEP_CHOICES",
    "SURVEY",
    "Trainer",
    "URL_KEYS",
    "URL_KEY_NAMES",
    "VOCAB",
    "build_why_model",
    "cache_key",
    "cache_status",
    "chance_loss",
    "compare",
    "example_batch",
    "example_cells",
    "example_rows",
    "full_values_accuracy",
    "head_roles",
    "head_widths",
    "heads_heatmap",
    "heads_table",
    "interrupted_run",
    "loss_curves",
    "make_batch",
    "parameter_count",
    "pattern_masses",
    "results_table",
    "single_head_facts",
    "single_head_story",
    "train",
    "verdicts",
]
