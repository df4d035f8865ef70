"""The pretrained model every page that needs it reads: one copy per server process.

Real heads and Positions both read all-MiniLM-L6-v2; each used to cache its own copy of its weights.
Shared by every session, so frozen: an in-place write into a weight raises instead of leaking.
Kept with ui.cache.process_wide, out of reach of Streamlit's clear_cache message.
"""

from __future__ import annotations

from core import pretrained
from core.frozen import freeze
from ui.cache import process_wide


def load_real_model() -> pretrained.Pretrained:
    """Once per server process (~0.3 s). It runs in this session's own script thread, so other pages and
    sessions keep running; only a second session asking at the same moment waits for it."""
    return process_wide("real-model", lambda: freeze(pretrained.load()))
