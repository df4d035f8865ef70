"""A selection widget that shows translated labels while the URL keeps a language-neutral value.

Why: Streamlit 1.67 binds the *displayed* option text of a selection widget to the URL (its wire value is
the formatted option: `format_func` changes the URL too, checked in `button_group.py`'s serde and
`session_state._seed_widget_from_url`). A Chinese label would put Chinese into the teacher's link, and the
same link would mean different things in either language.

So each choice is two public widgets with the same options in the same order:
- the *carrier*, `key`, bound to the URL (`bind="query-params"`), whose options are the neutral values
  (`mask=causal`, `walk_step=softmax`). It is drawn inside a container that CSS hides (`HIDDEN_CSS`,
  put once into the page by app.py), so it takes no space and no Tab stop. Its session-state value is the
  one the rest of the app reads, and links, prev/next buttons and tests set, exactly as before.
- the *shown* widget, `<key>_shown`, unbound, whose options are the labels in the reader's language. Its
  value follows the carrier on every run; a click on it sets the carrier (in the callback, before the
  script runs), and Streamlit writes the carrier's neutral value into the URL.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import streamlit as st

from ui import seam

SHOWN = "_shown"
HIDDEN_SUFFIX = "_al_hidden"  # a container whose key ends so is hidden (HIDDEN_CSS)
# One rule for every carrier: st.container(key=...) gives its block the class st-key-<key>. Streamlit wraps
# the block in a wrapper of its own, which keeps a flex gap even when empty: the rule hides that parent too,
# found by our class alone (only when the carrier is its one child, so no block with other content is hidden).
HIDDEN_CSS = f"[class*='{HIDDEN_SUFFIX}'],:has(> [class*='{HIDDEN_SUFFIX}']:only-child){{display:none !important}}"


def labelled(
    widget: str,
    key: str,
    options: Sequence[str],
    label_of: Callable[[str], str],
    label: str,
    *,
    default=None,
    multi: bool = False,
    host=None,
    carrier_host=None,
    on_change: Callable[[], None] | None = None,
    carrier_kw: dict | None = None,
    recreated: bool = False,
    **shown_kw,
):
    """Draw `st.<widget>` (selectbox, segmented_control or pills) with translated labels; return the value(s).

    `options` are the neutral values (the URL's); `label_of(value)` is what a reader sees; `default` the
    neutral default (a list for `multi` pills). `host` is where to draw (st, st.sidebar, a column);
    `carrier_host` a hidden container (its key ending HIDDEN_SUFFIX) that holds this carrier with others: without
    it the carrier gets a hidden container of its own, one more container for the browser to mount on every run;
    `carrier_kw` extra arguments only for the bound carrier (e.g. persist_state), `shown_kw` for the shown one
    (help, required, wrap, width, label_visibility, ...). `recreated`: the widgets are new ones this run
    (app.py: a whole-app run): the shown one is given its value even when the session holds it already.
    """
    host = host or st
    options = list(options)
    labels = [label_of(o) for o in options]
    if len(set(labels)) != len(labels):
        raise ValueError(f"{key}: two options share a label: {labels}")
    carrier_kw = dict(carrier_kw or {})
    if widget == "selectbox":
        carrier_kw.setdefault("index", options.index(default) if default in options else 0)
    elif multi:
        carrier_kw.update(selection_mode="multi", default=list(default or []))
    else:
        carrier_kw.setdefault("default", default)
        if "required" in shown_kw:
            carrier_kw.setdefault("required", shown_kw["required"])
    with carrier_host if carrier_host is not None else host.container(key=f"{key}{HIDDEN_SUFFIX}"):
        getattr(st, widget)(label, options, key=key, bind="query-params", label_visibility="collapsed", **carrier_kw)
    value = st.session_state.get(key)
    shown_key = key + SHOWN
    # The shown widget follows the carrier; written only when it differs, since a write sends the value to the
    # browser and would undo a choice the browser made while this run was going (ui/url_state.settle).
    shown_value = (
        [labels[options.index(v)] for v in (value or []) if v in options]
        if multi
        else labels[options.index(value)]
        if value in options
        else None
    )
    if (multi or value in options) and (
        recreated
        or shown_key not in st.session_state
        or st.session_state[shown_key] != shown_value
        or (not seam.browser_holds(shown_key) and value != default)  # not mounted yet: it would start at the default
    ):
        st.session_state[shown_key] = shown_value

    def picked() -> None:  # runs before the script: the carrier takes the neutral value, and the URL with it
        shown = st.session_state.get(shown_key)
        if multi:
            st.session_state[key] = [options[labels.index(s)] for s in (shown or []) if s in labels]
        elif shown in labels:
            st.session_state[key] = options[labels.index(shown)]
        elif shown is None and widget != "selectbox" and not shown_kw.get("required"):
            st.session_state[key] = None
        if on_change is not None:
            on_change()

    if multi:
        shown_kw["selection_mode"] = "multi"
    getattr(host, widget)(label, labels, key=shown_key, on_change=picked, **shown_kw)
    return value
