"""The pretrained model every page that needs it reads: one copy per server process.

Real heads and Positions both read all-MiniLM-L6-v2; each used to cache its own copy (~90 MB of weights
each). Shared by every session, so frozen: an in-place write into a weight raises instead of leaking.
"""

from __future__ import annotations

import streamlit as st

from core import pretrained
from core.frozen import freeze


@st.cache_resource(show_spinner=False)
def load_real_model() -> pretrained.Pretrained:
    """Once per server process (~0.3 s). It runs in this session's own script thread, so other pages and
    sessions keep running; only a second session asking at the same moment waits for it."""
    return freeze(pretrained.load())
