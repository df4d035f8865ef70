"""What a link, a text box or a class may ask of the server: bounds as plain data, kept by the lessons.

Why here and not in core/: these are the app's policy for its pages and its one server (which texts a link may
carry, how much a class's finished trainings may hold), not limits of the attention library itself; core/limits.py
keeps those, and ui/cache.py the server's shared-cache budget.
"""

from __future__ import annotations

from core.limits import MAX_GRID_CHARS, MAX_TEXT_CHARS

QUIZ_ANSWER_CHARS = 100  # a longer quiz answer is refused (with a message) before any parsing

# URL values: every one goes through a bounded parser -- numbers through lessons.settings.clamp_int (at
# most this many characters are parsed; longer runs of digits just mean "huge"), the grid and the sentence
# through their text limits below, everything else is compared with a short list of options.
MAX_INT_CHARS = 30

# Every free-text input, by the name ui/free_text.py checks it under: text longer than its limit is refused
# (a message, the previous text kept) before it is kept in session state, written to the URL or echoed.
TEXT_LIMITS = {"masks_grid": MAX_GRID_CHARS, "real_text": MAX_TEXT_CHARS, "quiz_answer": QUIZ_ANSWER_CHARS}

# Why many heads: what the class's trainings may hold in the server (lessons/why_heads/store.ResultStore).
WHY_RESULTS_BYTES = 24 * 2**20  # finished trainings, beside ui/cache.py's shared budget: 200 MB in all
MAX_TRAININGS_IN_FLIGHT = 8  # half-done trainings kept for whoever asks next


def too_long(raw: object, limit: int) -> bool:
    """True when `raw` as text is longer than `limit` characters (None is empty)."""
    return raw is not None and len(raw if isinstance(raw, str) else str(raw)) > limit
