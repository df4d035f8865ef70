"""The one helper that reads a page's URL keys, corrects them with a notice and writes them back.

A page declares its keys once, in its lesson (`URL_KEYS`, lessons/url.py's `UrlKey`), and calls
`settle(L.URL_KEYS, env, t=ctx.t, store="<page>_kept")` before drawing any widget bound to them. Each key's
raw value comes from its widget (this session), else from the value kept while its tab was closed (a widget
that is not drawn loses its state), else from the link. `lessons.url.parse` makes every value valid for the
current settings. A correction the *link* caused is shown as a notice in the main area and the bad value is
dropped from the URL (the bound widget then takes the corrected value); a widget value that new settings put
out of range (a row past a shorter T) is moved silently. Every value is put in session state, so a re-created
widget starts from it, and kept for when its tab closes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import streamlit as st

from core.i18n import plain
from lessons.url import Env, UrlKey, as_url, parse
from ui import seam
from ui.shell import drop_url_value, url_values


def kept(store: str) -> dict:
    """The page's values while the widgets showing them are in a closed tab."""
    return st.session_state.setdefault(store, {})


def keep_value(store: str, key: str) -> None:
    """on_change of a widget in a tab that may close: remember its value."""
    kept(store)[key] = st.session_state.get(key)


def settle(keys: Sequence[UrlKey], env: Env, *, t: Callable[..., str], store: str,
           widgets: Sequence[str] | None = None) -> dict[str, Any]:
    """Every key's valid value (see the module's doc). `widgets`: the keys that are bound widgets and get their
    value through session state (default: all of `keys`); the others (e.g. a tab id that ui.sections owns) are
    only parsed and cleaned in the URL."""
    bound = set(k.name for k in keys) if widgets is None else set(widgets)
    store_values = kept(store)
    raw: dict[str, object] = {}
    from_url: set[str] = set()
    for key in keys:
        name = key.name
        if name in bound and name in st.session_state:
            raw[name] = st.session_state[name]
        elif name in store_values:
            raw[name] = store_values[name]
        elif url_values(name):
            raw[name] = url_values(name)[-1]
            from_url.add(name)
    values, fixes = parse(keys, raw, env)
    for fix in fixes:
        if fix.key in from_url:
            st.warning(t("notice.page_param", param=fix.key, given=plain(fix.given), used=fix.used),
                       icon=":material/build:")
    for key in keys:
        name, value = key.name, values[key.name]
        if name in from_url and url_values(name) != [as_url(value)]:
            drop_url_value(name)
        else:
            # A widget whose range changed (new T or h) is a new widget, and Streamlit would seed it from the link
            # the page was loaded with (ui/seam entry 4): from here on the session's value decides.
            seam.forget_initial_url_value(name)
        if name in bound:
            st.session_state[name] = value  # every run: a re-created widget takes it instead of its default
            store_values[name] = value
    return values


__all__ = ["keep_value", "kept", "settle"]
