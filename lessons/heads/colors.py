"""The colours the heads page's HTML and its bar charts (ui/heads_charts.py) share."""

from __future__ import annotations

CURRENT_COLOR, OTHER_COLOR = "#2a6fdb", "#a9bedf"  # bars: the current h vs the other h
