"""One check for every free-text input (the Masks lab grid, the Real heads sentence, a quiz answer).

Text longer than its limit (core/limits.py TEXT_LIMITS) is refused before it is kept: the previous text
is put back, nothing goes into the URL or a cache, and the page shows `notice.text_too_long`.

How a text reaches the server, and where it is checked:
- typed into the box: the widget has `max_chars=limit + 1`, so Streamlit itself cuts whatever arrives
  (even a crafted websocket message of any size) to limit + 1 characters, and `check` (the box's on_change
  or a form's submit callback) refuses anything longer than the limit -- refused, never truncated;
- in a link: `url_text` refuses a too-long URL value before any widget or page code reads it, and
  removes it from the address bar.
"""

from __future__ import annotations

import streamlit as st

import i18n
from lessons.limits import TEXT_LIMITS, too_long
from ui.shell import drop_url_value

REFUSED = "free_text_refused"  # (key, limit) of the last refused text, until its notice is shown
ACCEPTED = "free_text_accepted"  # {key: the last accepted text}


def max_chars(kind: str) -> int:
    """The box's own bound: one more than the limit, so a longer paste is seen (and refused), not cut."""
    return TEXT_LIMITS[kind] + 1


def check(key: str, kind: str, previous: str = "", notify: bool = True) -> bool:
    """The text just entered into widget `key`: kept when within the limit, else refused (previous text back;
    `show_refusal` then says so, unless `notify` is False: a page with its own message)."""
    limit = TEXT_LIMITS[kind]
    accepted = st.session_state.setdefault(ACCEPTED, {})
    value = st.session_state.get(key)
    if too_long(value, limit):
        st.session_state[key] = accepted.get(key, previous)
        if notify:
            st.session_state[REFUSED] = (key, limit)
        return False
    accepted[key] = "" if value is None else str(value)
    return True


def url_text(key: str, kind: str) -> str | None:
    """The URL's value for `key`, or None when it has none or it is too long (then refused and dropped)."""
    raw = st.query_params.get(key)
    if too_long(raw, TEXT_LIMITS[kind]):
        drop_url_value(key)
        st.session_state[REFUSED] = (key, TEXT_LIMITS[kind])
        return None
    return raw


def show_refusal(key: str, lang: str, where=None) -> None:
    """The refusal notice for `key`, once (then forgotten)."""
    refused = st.session_state.get(REFUSED)
    if refused and refused[0] == key:
        del st.session_state[REFUSED]
        (where or st).error(
            i18n.t("notice.text_too_long", lang, n=refused[1] + 1, limit=refused[1]), icon=":material/block:"
        )
