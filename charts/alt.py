"""The accessible name of a Heatmap (what a screen reader says for the chart), from the same description."""

from __future__ import annotations

from collections.abc import Callable

from charts.payload import Words
from lessons.heatmap import Heatmap

MAX_NAMES = 8


def alt_text(hm: Heatmap, words: Words, sentence: Callable[..., str]) -> str:
    """'<title>: <sentence>' where `sentence(n=, rows=, cols=, names=)` words the summary in the page's
    language (i18n/strings "display.alt.heatmap"): the number of panels, the first panel's size and up to
    eight panel titles (the same accessible name the plotly route gave a heatmap), then the colour range a weights
    chart shows (words["range"]), as the chart prints it."""
    titles = [t for t in (words.get("panels") or []) if t]
    names = ", ".join(titles[:MAX_NAMES]) + (" …" if len(titles) > MAX_NAMES else "")
    rows, cols = hm.panels[0].values.shape
    title = words.get("title") or ""
    lead = f"{title}: " if title else ""
    summary = lead + sentence(n=len(hm.panels), rows=rows, cols=cols, names=f" ({names})" if names else "")
    scale = words.get("range") or ""
    return f"{summary} {scale}" if scale else summary


__all__ = ["alt_text"]
