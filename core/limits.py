"""The attention library's size limits: the largest input each `core` function accepts.

A whole class opens the app at once on one small server, with links copied, edited and
mangled: no input may cost unbounded memory or CPU. Each limit below is imported by the
`core` module that enforces it (raising a clear ValueError, or clamping and reporting a
`lessons.settings.Correction`), so a widget's own bounds are a convenience, never the guard.

Worst case with these limits (measured on one core, see README "Limits"): the largest
random-weights run (d_model 512, 64 heads, T 32) is a few ms of maths; the real model on 64
tokens ~30 ms; a why-heads training of 1600 steps ~25 s, run only on a click.
"""

from __future__ import annotations

# ---------------------------------------------------------------- the shared settings (sidebar, URL)
D_MODEL_CHOICES = (8, 16, 32, 64, 128, 256, 512)  # lessons.settings.sanitize clamps to the nearest
MAX_HEADS = 64  # num_heads is a divisor of d_model up to this (d_k >= 2 at d_model 8 needs fewer)
SEQ_LEN_MIN, SEQ_LEN_MAX = 2, 32  # T of the random example
SEED_MIN, SEED_MAX = 0, 99_999

# ---------------------------------------------------------------- Masks lab
T_K_MIN, T_K_MAX = SEQ_LEN_MIN, SEQ_LEN_MAX  # keys of the cross-attention example
# The hand-drawn grid as text: T_q rows of T_k characters joined by '.'. Longer text is not parsed.
MAX_GRID_CHARS = SEQ_LEN_MAX * T_K_MAX + SEQ_LEN_MAX - 1

# ---------------------------------------------------------------- Real heads (all-MiniLM-L6-v2)
MAX_TEXT_CHARS = 1000  # refused before tokenizing, so a pasted book costs nothing
MAX_TEXT_TOKENS = 64  # including [CLS] and [SEP]; longer text is refused, never truncated

# ---------------------------------------------------------------- Why many heads (live training)
WHY_STEP_CHOICES = (100, 200, 400, 800, 1600)
WHY_SEED_MIN, WHY_SEED_MAX = SEED_MIN, SEED_MAX

# ---------------------------------------------------------------- Positions (core/positions/)
SHUFFLE_SEED_MIN, SHUFFLE_SEED_MAX = SEED_MIN, SEED_MAX  # the seeded shuffle of the permutation run
SINUSOID_POSITIONS_MAX = 512  # rows of a sinusoidal table (the real model's learned table has 512 too)
ROPE_D_K_MIN, ROPE_D_K_MAX = 2, 256  # even only: RoPE turns pairs of dimensions (Llama's heads use 128)
ROPE_BASE_MAX = 1_000_000.0  # base must be > 1; 10 000 is the paper's, Llama 3 uses 500 000
ROPE_GRID_MAX = 64  # positions per side of the (m, n) score grid: 64 x 64 cells
ROPE_DISTANCE_MAX = 512  # distances 0..this in the fall-off curve
ROPE_FALLOFF_SAMPLES = 256  # random (q, k) pairs averaged per curve (a fixed count, not a setting)
ROPE_FALLOFF_SAMPLES_MAX = 4096  # what a caller (the tests) may ask for instead

# ---------------------------------------------------------------- KV cache (core/kv_cache.py)
# Tokens one KVCache (and one generation without it) may hold. At d_model 512, batch 1, float32 the
# cache is 2 x 256 x 512 x 4 B = 1 MB; on one core (measured, h 8, h_kv 2) generating 256 tokens takes
# ~0.1 s with the cache and ~1.4 s without (256 causal passes; the time grows ~T^2 .. T^3 without).
KV_CACHE_MAX_TOKENS = 256

# --------------------------------------------- Softmax up close (core/softmax_numerics.py, core/tiled_attention.py)
TILE_BLOCK_MIN, TILE_BLOCK_MAX = 1, SEQ_LEN_MAX  # block_q and block_k of the tiled (FlashAttention) walk
SOFTMAX_ROW_MAX = 4096  # scores in one row of the three softmaxes (the online one loops over them in Python)
VARIANCE_D_K_MAX = D_MODEL_CHOICES[-1]  # widest d_k whose q.k variance is measured (one head of the widest model)
VARIANCE_DRAWS_MAX = 20_000  # random (q, k) pairs per d_k (drawn in chunks, so memory stays ~1 MB)
# The memory and traffic accounting is arithmetic only (a loop over query tiles), so it takes long
# contexts: any T up to 2**20 tokens (the page shows 8k and 128k), blocks up to that long.
ACCOUNTING_T_MAX = 1 << 20

# The server's own policy (shared-cache bytes, idle time) is in ui/cache.py; the bounds on what a link, a text box
# or a class asks of the server (text limits, finished trainings kept) are in lessons/limits.py.


def check_range(name: str, value: object, lo: int, hi: int) -> int:
    """`value` as an int in lo..hi, or a ValueError that says the limit."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{name} must be an integer from {lo} to {hi}, got {value!r}")
    if not lo <= value <= hi:
        raise ValueError(f"{name} must be from {lo} to {hi} (limit in core/limits.py), got {value}")
    return value
