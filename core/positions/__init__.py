"""Positions: attention alone cannot tell word order, and three ways transformers fix it.

1. Attention is blind to order. The seed's multi-head attention treats its input X as a *set*:
   shuffle the rows of X (the tokens) and every output row, and every row and column of the
   weights, moves with its token, unchanged. Nothing in Q K^T, softmax or weights @ V looks at
   *where* a row sits, only at what it holds. `permutation_run` runs the same model on X and on a
   shuffled X and un-shuffles the second run, so the page can print the difference (0 up to float
   error). A causal mask is the exception: it belongs to the positions (query i sees keys 0..i),
   not to the tokens, so a token that moves sees a different set of keys and the symmetry breaks.

2. Absolute positions: add a vector that depends on the position to each token's vector.
   - sinusoidal ("Attention Is All You Need", Vaswani et al. 2017, section 3.5), a fixed formula:
         PE[pos, 2i]   = sin(pos / 10000^(2i / d_model))
         PE[pos, 2i+1] = cos(pos / 10000^(2i / d_model))
   - learned: a table trained with the model. The real heads model (all-MiniLM-L6-v2, a BERT) has
     one row of 384 numbers for each of its 512 positions (`core.pretrained.position_table`).

3. RoPE (rotary position embedding, Su et al. 2021 "RoFormer"), used by Llama and most recent
   models: nothing is added to X. Inside every head, q and k are *rotated* before Q K^T: their
   d_k numbers form d_k / 2 pairs, and pair i of the vector at position p turns by the angle
   p * theta_i, with theta_i = base^(-2i / d_k) (base 10 000 by default; pair 0 turns 1 radian
   per position, the last pairs barely move). v is not rotated. Because a rotation by angle a
   followed by the transpose of a rotation by angle b is a rotation by a - b,
         (R(m) q) . (R(n) k) = q . R(n - m) k,
   the score of a query at position m and a key at position n depends on the distance m - n
   only, never on m and n themselves (`rope_score_grid` computes the whole (m, n) grid).

   Which numbers form a pair. The RoFormer paper pairs neighbours (0, 1), (2, 3), ... ("interleaved").
   We pair dimension i with dimension i + d_k / 2 (the first half with the second half), as
   transformers' Llama does with its `rotate_half`: that is the code the tests compare against
   (tests/test_positions.py), and it needs no reshape into pairs, only two slices. The two
   conventions are the same rotation applied to a fixed reordering of the d_k columns, which the
   learned W^Q and W^K absorb, so they are equally good; a checkpoint trained with one needs that
   one (the test checks the reordering claim too).

Everything here is plain torch: no Streamlit, no text shown on a page. Sizes are bounded by
core/limits.py; bad arguments raise ValueError with a message that says what would be valid.

Files (each part of the story above in its own module; import from here: `from core import positions as P`):
- freq_base.py: ROPE_BASE, SINUSOID_BASE and `check_base` (why the base must be above 1).
- order.py: 1, the permutation run and the permutations.
- absolute.py: 2, the sinusoidal and learned tables, position similarity, `add_positions`.
- rope.py: 3, the rotation, `rope_attention`, the score grid, one pair's turn, the fall-off with distance.
- compare.py: the same sentence under each kind (`positioned_weights`, `real_first_layer_weights`).
"""

from __future__ import annotations

from core.positions.absolute import add_positions, learned_table, position_similarity, sinusoidal_table
from core.positions.compare import POSITION_KINDS, positioned_weights, real_first_layer_weights
from core.positions.freq_base import ROPE_BASE, SINUSOID_BASE, check_base
from core.positions.order import (
    PermutationRun,
    check_permutation,
    inverse_permutation,
    permutation_run,
    random_permutation,
)
from core.positions.rope import (
    Falloff,
    PairTurn,
    RopeRun,
    apply_rope,
    check_rope,
    distance_falloff,
    pair_rotation,
    rope_attention,
    rope_cos_sin,
    rope_frequencies,
    rope_score_grid,
    rotate_half,
    scores_by_distance,
    shifted_scores,
)

__all__ = [
    "ROPE_BASE",
    "SINUSOID_BASE",
    "check_base",
    "random_permutation",
    "check_permutation",
    "inverse_permutation",
    "PermutationRun",
    "permutation_run",
    "sinusoidal_table",
    "learned_table",
    "position_similarity",
    "add_positions",
    "check_rope",
    "rope_frequencies",
    "rope_cos_sin",
    "rotate_half",
    "apply_rope",
    "RopeRun",
    "rope_attention",
    "rope_score_grid",
    "scores_by_distance",
    "PairTurn",
    "pair_rotation",
    "Falloff",
    "shifted_scores",
    "distance_falloff",
    "POSITION_KINDS",
    "positioned_weights",
    "real_first_layer_weights",
]
