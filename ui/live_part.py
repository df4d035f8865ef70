"""The part of a page that a step of seq_len or the seed changes, in a fragment of its own that such a step reruns
alone: the page's controls above it (its section chooser, its sliders and boxes) are not sent to the browser again.

Why: the browser renders every element a run sends, changed or not, and a step of a shared setting used to rerun the
whole page fragment (app.py page_part), controls and all. On the RoPE section the controls are a third of what a step
sent; with them left out the step took 77 instead of 86 ms (benchmarks/README.md, "The live part").

How a page uses it: it draws its controls, then hands `live_part` a function that draws the rest from a PageContext.
The function runs inside the page's run (the page's own values), and again alone on a step of seq_len or the seed (or
on a change of a widget drawn inside it): then with the settings of that run, after app.py's `before` (the URL gate,
a class's follow, the settings settled and their corrections said) and before its `after` (the link, the class).

What the function must not do: read the page's module globals that follow the settings (the settings, their cache key,
the run: they are the last page run's, and the run is released when that run ends: ui/page_memory.py); it gets them
from the PageContext. A value read from the URL or a widget drawn above it is the page run's, which is what the page
shows: a change of such a widget reruns the whole page. A widget drawn inside it reruns it alone, so its value must
be read again there (`alone` says so). A value whose range follows seq_len (a step slider up to T) belongs inside.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import streamlit as st

from ui.shell import PageContext, current_settings, one_torch_thread

LIVE_PART = "live"  # the fragment's key (one per page run)
_DRAWN = "_live_part_drawn"  # session state: the page's last run drew a live part (app.py reruns it alone then)


@dataclass(frozen=True)
class Around:
    """What app.py does around a page, for a live part rerun alone: `before` (gate, follow, settle, corrections) and
    `after` (the link, the class)."""

    before: Callable[[], None]
    after: Callable[[], None]


_local = threading.local()  # per script thread: the page run going on (its Around), if any


@contextmanager
def page_drawing(around: Around | None) -> Iterator[None]:
    """app.py runs its page inside this: a live part drawn in it is a fragment app.py can rerun alone (with `around`);
    None: the page runs in a whole-app run that has no page fragment, and a live part is drawn inline."""
    st.session_state[_DRAWN] = False
    before = getattr(_local, "around", None)
    _local.around = around
    try:
        yield
    finally:
        _local.around = before


def drawn() -> bool:
    """Did the page's last run draw a live part (a step of seq_len or the seed reruns it alone)?"""
    return st.session_state.get(_DRAWN) is True


def live_part(draw: Callable[[PageContext, bool], None], ctx: PageContext) -> None:
    """Draw `draw(ctx, alone=False)` now, in a fragment a step of seq_len or the seed reruns alone, where it is called
    as `draw(PageContext(the settings then), alone=True)`. `ctx` is the page's own."""
    around = getattr(_local, "around", None)
    if around is None:  # no page fragment to stand in for: drawn inline
        draw(ctx, False)
        return
    st.session_state[_DRAWN] = True

    @st.fragment(key=LIVE_PART)
    def part() -> None:
        if getattr(_local, "around", None) is around:  # drawn by the page's run (a rerun alone has a thread of its own)
            draw(ctx, False)
            return
        one_torch_thread()  # a new script thread, as a page's run is (ui/shell.page_context)
        around.before()
        draw(PageContext(current_settings()), True)
        around.after()

    part()
