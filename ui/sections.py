"""A page's sections as one segmented control: only the open section's code runs, so only its charts are drawn.

Why a segmented control and not st.tabs: a step re-sends the open section's elements either way, but the tabs
are a container per section that the browser builds anew on every run, where the control is one widget that is
reused (about ten times cheaper: benchmarks/README.md, "What changed"). Its buttons take keyboard focus and open
with Enter or Space.

The open section is in the URL as a language-neutral id (`?heads_tab=cost`), so a teacher's link opens the same
section for every student, in either language; the control shows the label and holds the id (format_func). The
URL is written only when a section is chosen (or a bad value corrected): a write while the page is drawn after a
page change would send the address bar without the values of the widgets bound to it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import streamlit as st

import i18n
from ui.shell import url_values


def lazy_tabs(
    key: str,
    ids: Sequence[str],
    label_of: Callable[[str, str], str],
    lang: str,
    on_bad_url: Callable[[str, str], None] | None = None,
) -> tuple[str, dict]:
    """Draw the section switch; return (open section id, {open id: its container}). Fill only the open one:

        open_id, tabs = lazy_tabs("heads_tab", SECTIONS, label, ctx.lang)
        with tabs[open_id]: ...

    `label_of(id, lang)` gives a section's label. The URL decides on every run (no value = the first
    section), so what a student sees is always what the address bar would show the class; choosing a
    section writes its id there. A value that is not an id (or a repeated key) falls back to the
    first section, shows a notice (`notice.page_param`, or `on_bad_url(given, used)` for a page
    that words its corrections its own way) and is corrected in the URL.
    """
    widget_key = f"{key}_tabs"
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

    def changed() -> None:  # a section chosen: its id into the URL
        sid = st.session_state.get(widget_key)
        if sid in ids:
            st.query_params[key] = sid

    st.session_state[widget_key] = open_id  # the URL decides, also after a language switch
    st.segmented_control(
        i18n.t("sections.label", lang),
        list(ids),
        format_func=lambda sid: label_of(sid, lang),
        key=widget_key,
        on_change=changed,
        required=True,
        label_visibility="collapsed",
    )
    return open_id, {open_id: st.container()}
