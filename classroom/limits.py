"""What a client may send to a class, bounded before anything is parsed or stored.

A nickname is optional text shown to the class as inert text (never markup): control and bidi characters are
dropped, whitespace collapsed, and one longer than NICKNAME_MAX characters is refused by the store (a 1 MB one
unread; through the page, Streamlit cuts the text box's value to its max_chars first). A student's actions (join,
vote, follow/explore) pass a token bucket per student and class: a burst of BURST, then RATE a second; beyond that
the action is refused, not queued (10,000 votes a second from one student cost the database nothing).

The buckets live in each process's memory, on purpose. What must hold across processes holds in the database:
one vote per (question, round, student) is a unique constraint, so a vote is idempotent wherever it lands (a
second one is "already counted" and changes nothing). The buckets only keep a flood off the database, and a bucket
kept in the database would cost a write for every action of the flood: the cost it is there to avoid. Across P
processes a student gets at most P buckets (nginx keeps a browser on one process; a client forging route cookies
reaches at most all P), so the database sees at most P x (BURST + RATE a second) actions from one student, each
a small transaction. tests/test_classroom_store.py checks this bound and the single count with four processes.
"""

from __future__ import annotations

import re
import threading
import time
from collections import OrderedDict

NICKNAME_MAX = 24
ANSWER_MAX = 120  # a parsed answer's canonical text (a shape, a number, a list of cells)
RAW_ANSWER_MAX = 200  # a typed answer longer than this is refused unparsed
MAX_MEMBERS = 500  # students in one class; more joins are refused ("class full")
VIEW_MAX_CHARS = 8_000  # the teacher's view as JSON (a hand-drawn grid at 32 x 32 is ~1,100 characters)
CHOICES_MIN, CHOICES_MAX = 2, 6  # a quick multiple-choice question: options A..F
BURST, RATE = 10, 4.0

_INVISIBLE = re.compile(
    "[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]"
)


def clean_nickname(raw: object) -> tuple[str | None, str | None]:
    """(nickname or None, error id or None). Empty means no nickname; too long is refused."""
    if raw is None:
        return None, None
    if not isinstance(raw, str):
        return None, "nickname_invalid"
    if len(raw) > 4 * NICKNAME_MAX:
        return None, "nickname_too_long"
    text = " ".join(_INVISIBLE.sub("", raw).split())
    if len(text) > NICKNAME_MAX:
        return None, "nickname_too_long"
    return (text or None), None


def neutral_value(value: object) -> bool:
    """A value a page state may hold (ui/url_state.page_state): text, a number, a bool, or a list of those."""
    items = value if isinstance(value, list) else [value]
    return all(isinstance(v, (str, int, float, bool)) for v in items)


class RateLimiter:
    """Token buckets keyed by (class, student); at most `keys` buckets kept (the least recently used go)."""

    def __init__(self, burst: int = BURST, rate: float = RATE, keys: int = 20_000, clock=time.monotonic) -> None:
        self.burst, self.rate, self.keys, self.clock = burst, rate, keys, clock
        self._buckets: OrderedDict[tuple[str, str], tuple[float, float]] = OrderedDict()
        self._lock = threading.Lock()

    def allow(self, key: tuple[str, str]) -> bool:
        now = self.clock()
        with self._lock:
            tokens, last = self._buckets.pop(key, (float(self.burst), now))
            tokens = min(float(self.burst), tokens + (now - last) * self.rate)
            allowed = tokens >= 1.0
            self._buckets[key] = (tokens - 1.0 if allowed else tokens, now)
            while len(self._buckets) > self.keys:
                self._buckets.popitem(last=False)
            return allowed
