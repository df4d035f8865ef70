"""A page's sections as lazy tabs: only the open tab's code runs, so only its charts are drawn.

Why: the browser pays one or two animation frames (17-33 ms) per plotly chart on every redraw,
and the server builds every figure it sends (benchmarks/bench_browser.py). A page that drew all
its sections at once answered a slider step in 10-13x the time of an empty Streamlit app; one
section at a time keeps a redraw to the few charts a student is looking at.

The open section is in the URL as a language-neutral id (`?heads_tab=cost`), so a teacher's link
opens the same section for every student, in either language. Streamlit would bind the tab's
*label* to the URL (which changes with the language), so the id is kept here instead: the URL
holds the id, the tabs widget `<key>_tabs` the label. The URL is written only when a tab is
clicked (or a bad value corrected): a write while the page is drawn after a page change would
send the address bar without the values of the widgets bound to it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import streamlit as st

import i18n
from ui.shell import url_values


def _label_to_id(label, ids: Sequence[str], label_of: Callable[[str, str], str]) -> str | None:
    """The section a tab label names, in any language (a label is a string the tabs widget returns)."""
    for lang in i18n.LANGS:
        for sid in ids:
            if label_of(sid, lang) == label:
                return sid
    return None


def lazy_tabs(
    key: str,
    ids: Sequence[str],
    label_of: Callable[[str, str], str],
    lang: str,
    on_bad_url: Callable[[str, str], None] | None = None,
) -> tuple[str, dict]:
    """Draw the tabs; return (open section id, {id: container}). Fill only the open one:

        open_id, tabs = lazy_tabs("heads_tab", SECTIONS, label, ctx.lang)
        with tabs[open_id]: ...

    `label_of(id, lang)` gives a tab's label. The URL decides on every run (no value = the first
    section), so what a student sees is always what the address bar would show the class; a click
    on a tab writes its id there. A value that is not an id (or a repeated key) falls back to the
    first section, shows a notice (`notice.page_param`, or `on_bad_url(given, used)` for a page
    that words its corrections its own way) and is corrected in the URL.
    """
    tabs_key = f"{key}_tabs"
    given = url_values(key)
    open_id = given[0] if len(given) == 1 and given[0] in ids else ids[0]
    if given and (len(given) > 1 or given[0] not in ids):
        if on_bad_url:
            on_bad_url(given[0], open_id)
        else:
            st.warning(
                i18n.t("notice.page_param", lang, param=key, given=i18n.plain(given[0]), used=open_id),
                icon=":material/build:",
            )
        st.query_params[key] = open_id  # once: the next run reads a valid value

    def changed() -> None:  # a click on a tab: its id into the URL (the label is language-dependent)
        sid = _label_to_id(st.session_state.get(tabs_key), ids, label_of)
        if sid is not None:
            st.query_params[key] = sid

    st.session_state[tabs_key] = label_of(open_id, lang)  # also after a language switch
    containers = st.tabs([label_of(sid, lang) for sid in ids], key=tabs_key, on_change=changed)
    return open_id, dict(zip(ids, containers))
