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

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import streamlit as st
from streamlit.errors import StreamlitAPIException

import i18n
from i18n import plain
from lessons import url_keys
from lessons.url import Env, Fix, UrlKey, as_url, parse, shown
from ui import free_text, seam
from ui.shell import CUSTOM_MASK_KEY, drop_url_value, url_values

GATE_NOTICES = "_url_gate_notices"  # what gate() dropped, until show_gate_notices says it
GATED = "_url_gated"  # this session's first run has written the address bar
SPANS = "_spans"  # after a store's name: the range each of its keys had when last settled (a new one: a new widget)


def gate(url_path: str | None) -> None:
    """Apply lessons.url_keys' one rule for link values (plan_link) to this run's URL, before anything reads it:
    app.py calls it first with `url_path=None` (the page is not chosen yet), then with the page's url_path, and
    at the start of each live-fragment rerun (every rerun brings the browser's query string again)."""
    query = {key: st.query_params.get_all(key) for key in st.query_params}
    mask = st.session_state["mask"] if "mask" in st.session_state else (query.get("mask") or [None])[-1]
    plan = url_keys.plan_link(query, url_path, mask)
    first = GATED not in st.session_state
    st.session_state[GATED] = True
    if not plan:
        # Streamlit ignores a whole link of more than 512 Ki characters or 1000 fields (st.query_params is then
        # empty) and leaves it in the address bar, to be sent again on every step: a session's first run
        # writes the address bar once, so it holds what the page reads.
        if first:
            seam.rewrite_url((), ())
        return
    if not seam.rewrite_url(plan.drop, plan.cut):  # public calls: one message per key
        for key in plan.drop:
            try:
                del st.query_params[key]
            except (KeyError, StreamlitAPIException):
                pass
            seam.forget_initial_url_value(key)
        for key, values in plan.cut:
            try:
                st.query_params[key] = list(values)
            except StreamlitAPIException:
                pass
    notices = st.session_state.setdefault(GATE_NOTICES, [])
    notices.extend(("notice.url_too_long", {"key": key, "limit": limit}) for key, limit in plan.too_long)
    if plan.unknown:
        names = ", ".join(plain(shown(k)) for k in plan.unknown[:3]) + (", ..." if len(plan.unknown) > 3 else "")
        notices.append(("notice.url_unknown", {"keys": names, "n": len(plan.unknown)}))


def show_gate_notices(lang: str, url_path: str | None = None) -> None:
    """What gate() dropped, said once at the top of the main area. A text too long for the box of the page open
    (`url_path`) is said by that box instead, in its own words (ui/free_text.show_refusal)."""
    said = set()
    for key, fmt in st.session_state.pop(GATE_NOTICES, []):
        if key == "notice.url_too_long" and url_keys.TEXT_HOMES.get(fmt["key"], "") == url_path:
            st.session_state[free_text.REFUSED] = (fmt["key"], fmt["limit"])
            continue
        text = i18n.t(key, lang, **fmt)
        if text not in said:
            said.add(text)
            st.warning(text, icon=":material/build:")


def kept(store: str) -> dict:
    """The page's values while the widgets showing them are in a closed tab."""
    return st.session_state.setdefault(store, {})


def keep_value(store: str, key: str) -> None:
    """on_change of a widget in a tab that may close: remember its value."""
    kept(store)[key] = st.session_state.get(key)


def default_notice(t: Callable[..., str]) -> Callable[[Fix, bool], str | None]:
    """The common notice: only corrections a link caused are shown ("<key>=<given> is not valid: <used>")."""

    def notice(fix: Fix, from_link: bool) -> str | None:
        return t("notice.page_param", param=fix.key, given=plain(fix.given), used=fix.used) if from_link else None

    return notice


def settle(
    keys: Sequence[UrlKey],
    env: Env,
    *,
    t: Callable[..., str] | None = None,
    store: str,
    url_first: Sequence[str] = (),
    drawn: Sequence[str] = (),
    notice: Callable[[Fix, bool], str | None] | None = None,
    report: list[tuple[Fix, bool]] | None = None,
    recreated: bool = False,
    relink_later: bool = True,
) -> dict[str, Any]:
    """Every key's valid value (see the module's doc): the one loop that settles the shared settings (app.py),
    the display options (ui/display.py) and each page's keys.

    `url_first`: keys whose widget is not bound to the URL but writes it in its callback (a translated choice,
    ui/choice.py): the URL decides, a correction is written to the URL, and session state is left to the widget.
    `drawn`: keys whose widget this run has already drawn (their state can no longer be written).
    `notice(fix, from_link)`: the text of the notice a correction gets, or None for none (default: the common
    notice, for corrections a link caused); with `report`, nothing is shown and (fix, from_link) pairs are
    appended there instead. `recreated`: this run may draw these keys' widgets as new widgets (app.py: a whole-app run).
    `relink_later`: the run's end puts back in the link what it lost of these values (relink_settled); False for the
    settings and display options, which app.py relinks itself.

    A value is put in session state only when it differs from what the session holds, or when its widget is new:
    writing a widget's key makes Streamlit send that value to the browser, and a run that started before the
    user's last key press would send the older value back over the one the browser has just sent (the press was
    lost). A new widget has no value the browser sent, and without the write it would start at its default; nor has
    a widget whose code the browser was still loading when it was last sent (ui/seam entry `held_values`)."""
    first = set(url_first)
    store_values = kept(store)
    raw: dict[str, object] = {}
    from_url: set[str] = set()
    for key in keys:
        name = key.name
        if name in first and url_values(name):
            raw[name] = url_values(name)[-1]
            from_url.add(name)
        elif name not in first and name in st.session_state:
            raw[name] = st.session_state[name]
        elif name in store_values:
            raw[name] = store_values[name]
        elif url_values(name):
            raw[name] = url_values(name)[-1]
            from_url.add(name)
    values, fixes = parse(keys, raw, env)
    if report is not None:
        report.extend((fix, fix.key in from_url) for fix in fixes)
    else:
        notice = notice or default_notice(t or (lambda key, **kw: key))
        for fix in fixes:
            text = notice(fix, fix.key in from_url)
            if text:
                st.warning(text, icon=":material/build:")
    drops: list[str] = []
    sets: list[tuple[str, tuple[str, ...]]] = []  # the link keeps what the page shows (walk_step=7: step 7's name)
    relinks: list[tuple[str, str]] = []  # bound keys whose link a new range left stale
    spans = st.session_state.setdefault(f"{store}{SPANS}", {})  # each key's range as its widget was last drawn
    for key in keys:
        name, value = key.name, values[key.name]
        store_values[name] = value
        if name in first:
            if name in from_url and url_values(name) != [as_url(value)]:
                sets.append((name, (as_url(value),)))  # once: the next run reads a valid value
            continue
        if name in drawn:
            continue
        if name in from_url and url_values(name) != [as_url(value)]:
            # The bound widget takes the corrected value instead of parsing the bad one (a list: its widget
            # writes it, in its own form).
            if isinstance(value, (list, tuple)):
                drops.append(name)
            else:
                sets.append((name, (as_url(value),)))
        else:
            # A widget whose range changed (new T or h) is a new widget, and Streamlit would seed it from the link
            # the page was loaded with (ui/seam entry `url_values`): from here on the session's value decides.
            seam.forget_initial_url_value(name)
        current = st.session_state.get(name)
        span = _span(key, env, values)
        # A new range (a step slider up to a new T) makes its widget a new one, which would start at its default (a
        # step of seq_len up sent the decode step back to 1): it takes the settled value like any new widget.
        moved = spans.get(name, span) != span
        spans[name] = span
        if moved and name not in from_url and not isinstance(value, (list, tuple)):
            # ...and Streamlit puts a new widget's value in the link only when a user chooses it: a row the new range
            # moved kept its old value there (soft_row=5 at seq_len=5), and a kept value the new range made
            # non-default (its default follows the range) was missing. Written even when it is the default
            # (Streamlit would leave it out): no write can take a bound key out of the link.
            have = url_values(name)
            if have != [as_url(value)] and (have or value != _default(key, env, values)):
                relinks.append((name, as_url(value)))
        if (
            recreated
            or moved
            or current != value
            or type(current) is not type(value)
            or _unmounted_off_default(key, value, env, values)
        ):
            st.session_state[name] = value  # a re-created widget, or one the browser has not mounted, takes it
    if relinks and not seam.link_values(relinks):
        sets.extend((name, (text,)) for name, text in relinks)
    if drops or sets:
        _write_url(drops, sets)
    if relink_later:
        st.session_state.setdefault(SETTLED_RUN, {}).setdefault(store, {}).update(
            (key.name, _default(key, env, values)) for key in keys if not isinstance(values[key.name], (list, tuple))
        )
    return values


# ---------------------------------------------------------------- the end of a run: the link carries what was settled
# A widget bound to the link writes its value there only when the user moves it, so a run that starts from a link
# without a value the session holds (a class's follow whose page change raced a poll tick; a link edited by hand)
# would end with the link still without it: a reload, or the link shared, shows another view. The same when a value
# is kept while what its default follows moves (the softmax gain's default follows the head and the row: gain 100
# kept through a new row, whose default it became no longer, reopened as 1000). So every value a page
# settled is put back at the end of its run (app.py's _link_and_publish), whatever started the run. The defaults
# are noted at settle time (their env can be a page's whole run, not to be kept).
SETTLED_RUN = "_url_settled_run"  # this run's settles: store -> {key: its default}


def start_run() -> None:
    """app.py, at the start of every run that can end with relink_settled: forget an earlier run's settles (a run
    stopped early never reached its end)."""
    st.session_state.pop(SETTLED_RUN, None)


def relink_settled() -> None:
    """The end of a run: every value settled in it (settle, `relink_later`) that the link lost, put back in the link
    (keys a page relinks itself are left to its relink)."""
    for store, defaults in (st.session_state.pop(SETTLED_RUN, None) or {}).items():
        _put_back(store, defaults)


def _put_back(store: str, defaults: Mapping[str, Any]) -> None:
    """Each value of `store` named in `defaults` (key -> its default) that the link lost, put back in the link in one
    message: never a default (Streamlit leaves those out), never a list (its widget writes it itself)."""
    values = kept(store)
    lost = [
        (name, as_url(value))
        for name, default in defaults.items()
        if name in values
        and not isinstance(value := values[name], (list, tuple))
        and value != default
        and not url_values(name)
    ]
    if lost and not seam.link_values(lost):
        _write_url([], [(name, (text,)) for name, text in lost])


def _span(key: UrlKey, env: Env, values: Mapping[str, Any]) -> tuple:
    """`key`'s range and choices with the settled `values` (a range may follow the settings or another value)."""
    r = key.resolved({**env, **values})
    return (r["lo"], r["hi"], r["choices"])


def _unmounted_off_default(key: UrlKey, value, env: Env, values: Mapping[str, Any]) -> bool:
    """Has the browser never sent this widget's value (its code may still be loading), while the value is not the
    widget's default, which it would mount at? Only then is a write needed: a write also resets what a user is
    typing into the widget, so none is made where the widget would show the right value anyway."""
    return not seam.browser_holds(key.name) and value != _default(key, env, values)


def _default(key: UrlKey, env: Env, values: Mapping[str, Any]) -> Any:
    """`key`'s default with the settled `values` (a default may be a function of the other values)."""
    return key.resolved({**env, **values})["default"]


def relink(keys: Sequence[UrlKey], store: str, env: Env, exact: Sequence[str] = ()) -> None:
    """The end of a run: put back in the link every value of `keys` (settled into `store`) that it lost. A page
    change starts from the page's bare address; the value stays in its widget, and the link must carry it too
    (never a default: Streamlit leaves those out). The link only: no widget is sent a value.

    `exact`: keys no widget writes into the link (not bound to it): the link is made to carry exactly their
    current value, and to leave them out at their default (_keep_exact). relink_settled leaves every key of `keys`
    to this call: the exact ones are not its to write, the others are put back here already."""
    noted = st.session_state.get(SETTLED_RUN, {}).get(store)
    for key in keys if noted else ():
        noted.pop(key.name, None)
    values = kept(store)
    _put_back(
        store, {key.name: _default(key, env, values) for key in keys if key.name in values and key.name not in exact}
    )
    wanted = {
        key.name: None if values[key.name] == _default(key, env, values) else _link_text(values[key.name])
        for key in keys
        if key.name in exact and key.name in values
    }
    if wanted:
        _keep_exact(wanted)


def _link_text(value) -> str:
    """A value as one link value: a list as its items with commas (heads_pick=0,1,5), as the keys' parsers read it."""
    return ",".join(map(as_url, value)) if isinstance(value, (list, tuple)) else as_url(value)


WRITTEN = "_url_written"  # relink's `exact` keys: what this session's last message to the browser put in its link


def _keep_exact(wanted: Mapping[str, str | None]) -> None:
    """Make the browser's link carry `wanted` (key -> text, None: not in the link), in one message when it can.

    st.query_params holds the query string the browser sent with this run's request, and that can be older
    than the link: runs overlap, and a run the server finished after the request left has written a newer
    value since (6 -> 7 -> 8 -> 7 fast: the last run's request still says 7, while the link says 8). So a key is
    written when that query string differs from the wanted value, or when the last value this session sent
    the browser does. Each message carries the whole query string, so after one the link is what
    st.query_params holds."""
    written = st.session_state.setdefault(WRITTEN, {})
    stale = [
        name
        for name, text in wanted.items()
        if url_values(name) != ([] if text is None else [text]) or written.get(name, text) != text
    ]
    if not stale:
        return
    sets = {name: text for name, text in wanted.items() if text is not None and url_values(name) != [text]}
    sent = False
    for name in wanted:
        if wanted[name] is None and name in st.query_params:
            del st.query_params[name]  # one message each (rare: a step back to the default)
            sent = True
    if sets or not sent:
        st.query_params.update(sets)  # one message, the whole query string (also when only the browser's is stale)
    written.update(wanted)


def _write_url(drops: list[str], sets: list[tuple[str, tuple[str, ...]]]) -> None:
    """Every correction of one settle in one message to the browser (each public write sends the whole query
    string again: 23 corrected keys made the reply grow with their number)."""
    if seam.rewrite_url(drops, sets):
        return
    for name in drops:
        drop_url_value(name)
    for name, values in sets:
        drop_url_value(name)
        try:
            st.query_params[name] = values[-1]
        except StreamlitAPIException:  # already bound (drawn before): Streamlit writes the widget's value
            pass


# ---------------------------------------------------------------- the page state as one dict (class mode)
REQUEST = "_page_state_request"  # a page state to apply at the top of the next run (request_page_state)


def page_state(url_path: str, session=None, query=None) -> dict[str, Any]:
    """The current page state as a dict of neutral values (text, numbers, bools, lists of them): the shared
    settings, the display options and page `url_path`'s own keys, as this session holds them (session state,
    else the link). JSON-able: what class mode sends the class. (`session`, `query`: st.session_state and
    st.query_params unless given.)"""
    session = st.session_state if session is None else session
    query = st.query_params if query is None else query

    def link(key: str) -> list[str]:
        values = query.get_all(key) if hasattr(query, "get_all") else query.get(key, [])
        return [values] if isinstance(values, str) else list(values)

    mask = session["mask"] if "mask" in session else (link("mask") or [None])[-1]
    out: dict[str, Any] = {}
    for key in url_keys.keys_of(url_path):
        if not url_keys.owned(key, url_path, mask):
            continue
        if key == url_keys.GRID:
            value = session[CUSTOM_MASK_KEY] if CUSTOM_MASK_KEY in session else (link(key) or [None])[-1]
        elif key in session:
            value = session[key]
        else:
            values = link(key)
            value = (values if len(values) > 1 else values[-1]) if values else None
        if value is None:
            continue
        out[key] = list(value) if isinstance(value, (list, tuple)) else value
    return url_keys.clean_state(out, url_path, mask)[0]


def request_page_state(values: Mapping[str, object]) -> None:
    """Apply `values` (a page state, e.g. the teacher's page_state) at the top of this session's next run, before
    any widget is drawn (call st.rerun() to make that now). Only what lessons.url_keys.clean_state keeps is
    applied; the run's one settle loop then validates each value, as it does a link's."""
    st.session_state[REQUEST] = dict(values)


def apply_requested() -> list[str]:
    """app.py, first thing in a run: apply a requested page state (request_page_state). Each kept value goes into
    session state (where settle reads first) and into the link (where tabs and translated choices read first;
    a key bound to a widget refuses that, and its session value serves). Returns the keys ignored."""
    values = st.session_state.pop(REQUEST, None)
    if not isinstance(values, Mapping):
        return []
    kept_values, ignored = url_keys.clean_state(values, None, st.session_state.get("mask"))
    for key, value in kept_values.items():
        st.session_state[CUSTOM_MASK_KEY if key == url_keys.GRID else key] = value
        try:
            st.query_params[key] = [as_url(v) for v in value] if isinstance(value, list) else as_url(value)
        except StreamlitAPIException:
            pass
    return ignored


def forget(store: str, names: Sequence[str]) -> None:
    """Start the keys `names` again from their defaults at the next settle: their widget state, their kept value
    and their URL value go (a change of the model makes a choice of its heads mean other heads)."""
    for name in names:
        st.session_state.pop(name, None)
        kept(store).pop(name, None)
        drop_url_value(name)


__all__ = [
    "apply_requested",
    "default_notice",
    "forget",
    "gate",
    "keep_value",
    "kept",
    "page_state",
    "relink_settled",
    "request_page_state",
    "settle",
    "show_gate_notices",
    "start_run",
]
