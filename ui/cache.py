"""One server-wide cache for what a page builds from the settings alone (runs, figures).

A class shares settings: the teacher moves a slider and 40 students ask for the same run.
Something built once per distinct key (a run, a check, a plain figure) serves every session.

Rule: whatever comes back is SHARED between sessions — never mutate it. So no figure that goes
through ui.charts.show_chart: that restyles it in place for the session's display options. The
key must name everything the builder reads (settings, language, page-local choices); the builder
itself is not part of the hash.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, TypeVar

import streamlit as st

from core.frozen import freeze

T = TypeVar("T")


@st.cache_resource(max_entries=256, show_spinner=False)
def _shared(name: str, key: Hashable, _build: Callable[[], Any]) -> Any:
    # Frozen (core/frozen.py): tensors and module weights inside become read-only, lists tuples, so an
    # in-place write raises instead of reaching every other session. (Figures are left as they are.)
    return freeze(_build())


def shared(name: str, key: Hashable, build: Callable[[], T]) -> T:
    """build() once per (name, key) for the whole server; `key` must be a tuple of plain values."""
    return _shared(name, key, build)
