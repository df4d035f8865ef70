"""The walkthrough's navigation: its title, the view chooser, the step chooser with previous / next, and (in the
presenter view) the ← → keys. None of it depends on the shared settings.

Why apart from the page: app.py draws it in a fragment of its own (NAV_PART), above the page's fragment, so a step of
seq_len or the seed, which reruns the page alone, sends none of these elements again (each one re-sent costs the
browser a render). A choice made here changes the page below it: every callback reruns the page, then this part
(`rerun`), in the order app.py draws them (the page settles the URL's values before this part shows them).
pages/walkthrough.py reads the view and the step from session state (`view`, `step`).
"""

from __future__ import annotations

import streamlit as st

import i18n
from lessons import walkthrough as W
from ui.choice import HIDDEN_SUFFIX, labelled
from ui.keys import step_keys
from ui.shell import rerun_parts

_PARTS = "_al_walk_nav_parts"  # session state: the fragments a choice reruns (app.py, each whole-app run)
_CHOSEN = "_al_walk_nav_chosen"  # session state: a choice made in a callback, for the page to apply (apply_chosen)
# The URL keys its choosers show (with the language): a class's follow that changes neither does not rerun this part.
SHOWN_KEYS = frozenset(("walk_view", "walk_step"))
ROW_KEY = "walk_nav_row"  # prev / next (and "step n of 10"): the presenter view's CSS enlarges them


def set_parts(parts: tuple[str, ...] | None) -> None:
    """app.py, each whole-app run: the keys of the page's fragment and this part's, in the order they run (None:
    the page runs whole, and any widget reruns the whole app anyway)."""
    st.session_state[_PARTS] = parts


def rerun() -> None:
    """From a callback that changed the view or the step: the page, then the navigation (ui.shell.rerun_parts)."""
    parts = st.session_state.get(_PARTS)
    if parts:
        rerun_parts(parts)


def choose(key: str, value: str) -> None:
    """A callback's choice of view or step, then the rerun. Kept for the page to apply when it runs (apply_chosen),
    not written here: a value written in a callback that reruns named fragments does not reach the bound widget's
    URL parameter (the link would keep the old step), one written during the run does."""
    st.session_state.setdefault(_CHOSEN, {})[key] = value
    rerun()


def apply_chosen() -> None:
    """The page, first thing: the choice a callback kept becomes the view or step, before any widget shows it."""
    for key, value in st.session_state.pop(_CHOSEN, {}).items():
        st.session_state[key] = value


def view() -> str:
    """The chosen view (valid once the page has settled its URL keys)."""
    value = st.session_state.get("walk_view")
    return value if value in W.VIEWS else "step"


def step() -> W.Step:
    name = st.session_state.get("walk_step")
    return W.STEP_BY_NAME.get(name) or W.STEPS[0]


def go(delta: int) -> None:
    """Previous / next, and the keys: from the step chosen last (a choice not applied yet included)."""
    current = st.session_state.get(_CHOSEN, {}).get("walk_step", st.session_state.get("walk_step"))
    choose("walk_step", W.step_after(current, delta))


def select_step(name: str) -> None:
    """A step's own button (the all-steps view): it becomes the chosen step."""
    choose("walk_step", name)


def _picked(key: str):
    """A chooser's own click (ui/choice.py has set its carrier `key`): the same value, through choose()."""
    return lambda: choose(key, st.session_state[key])


def step_label(name: str, lang: str) -> str:
    return f"{W.step_index(name) + 1} · {i18n.t(f'walk.{name}.short', lang)}"


def draw(lang: str) -> None:
    """The page's title and its choosers, for the view and step in session state."""
    t = lambda key, **kw: i18n.t(key, lang, **kw)  # noqa: E731
    present = view() == "present"
    if not present:
        # The title, the intro, the hover hint, what the address bar links to and the legend of the view selector
        # just below: one element that no step changes (the hints in caption style).
        hints = ("" if lang == "zh" else " ").join((t("walk.hover"), t("walk.link")))
        st.markdown(
            f"# {t('page.walkthrough')}\n\n{t('walk.intro')}\n\n:small[:gray[{hints}]]\n\n"
            f":small[:gray[{t('walk.view.legend')}]]"
        )
    # The choices' URL carriers (ui/choice.py), and the presenter's key listener, in ONE hidden container: every
    # element and container a step re-sends costs the browser a render.
    hidden = st.container(key="walk" + HIDDEN_SUFFIX)
    chosen = labelled(
        "segmented_control",
        "walk_view",
        W.VIEWS,
        lambda v: t(f"walk.view.{v}"),
        t("walk.view"),
        default="step",
        required=True,
        label_visibility="collapsed",
        carrier_host=hidden,
        on_change=_picked("walk_view"),
    )
    present = chosen == "present"
    if present:
        with hidden:  # no space
            step_keys("walk_keys", go)  # ← → (and a clicker's Page Up / Page Down) step, like the buttons
    _step_nav(t, lang, hidden, all_steps=chosen == "all", step_of=present)


def _step_nav(t, lang: str, hidden, all_steps: bool, step_of: bool) -> None:
    """The step chooser (bound to the URL as walk_step, the step's neutral name; the pills show the step in the
    reader's language: ui/choice.py) with previous / next under it. In the all-steps view it picks the step whose
    tensors are drawn. `step_of`: "Step n of 10" between the buttons (the presenter view, whose room has no pills
    in sight from the back; elsewhere the chosen pill, numbered, says it without one more element)."""
    if all_steps:
        st.caption(t("walk.all.open"))
    name = (
        labelled(
            "pills",
            "walk_step",
            W.STEP_NAMES,
            lambda n: step_label(n, lang),
            t("walk.step"),
            default=W.STEP_NAMES[0],
            carrier_kw=dict(persist_state="page"),
            carrier_host=hidden,
            on_change=_picked("walk_step"),
            required=True,
            label_visibility="collapsed",
            wrap=True,
        )
        or W.STEP_NAMES[0]
    )
    index = W.step_index(name)
    # One row container, not three columns: one container to mount instead of four.
    row = st.container(key=ROW_KEY, horizontal=True, horizontal_alignment="distribute", vertical_alignment="center")
    row.button(
        t("walk.prev"),
        icon=":material/arrow_back:",
        on_click=go,
        args=(-1,),
        disabled=index == 0,
        key="walk_prev",
    )
    if step_of:
        where = t("walk.step_of", n=index + 1, total=len(W.STEPS))
        row.markdown(
            f"<div class='walk-step-of' style='text-align:center'>{where}</div>",
            unsafe_allow_html=True,
            width="content",
        )
    row.button(
        t("walk.next"),
        icon=":material/arrow_forward:",
        icon_position="right",
        on_click=go,
        args=(1,),
        disabled=index == len(W.STEPS) - 1,
        key="walk_next",
    )
