"""A widget value a browser could never send is replaced by the widget's last good value (entry `widget_guard`).

Why: Streamlit decodes a widget's value while it looks for changed widgets, before any of the app's code runs,
and trusts the message: NaN for a slider, a list of floats for a selectbox or an unknown option raised there,
or reached the page as a value of the wrong type, on that rerun and every later one (the session was broken
until a reload).

How: wraps SessionState.set_widgets_from_proto (private, once per process). Before a message's widget states
are stored, each one of a widget this session has drawn is decoded with its own metadata and checked: the value
field must be the widget's own, every number finite, decoding and re-encoding must not raise, and a choice must
be one of the widget's options. A value that fails is left out of the message, as if the browser had not sent
it: the widget keeps its value of the last run (its default if it had none). The value is kept in the session's
own state under REJECTED, so app.py can say so once. Values of widgets not drawn yet are left to Streamlit.
"""

from __future__ import annotations

import json
import math

REJECTED = "_widget_guard_rejected"  # session-state key: the values replaced since app.py last asked
HELD = "_widget_guard_held"  # session-state key: the user keys of the widgets whose value the browser has sent
SHOWN_VALUES = 5  # a notice names a few, never thousands
# Decoding these consumes what they carry (uploaded files): left to Streamlit, never decoded twice.
_NOT_DECODED_EARLY = ("file_uploader_state_value", "chat_input_value")
# Plain values the widget re-encodes exactly (JSON and file states may be re-encoded with other spelling).
# (Not text: a text box cuts a longer text to its max_chars itself, and ui/free_text.py refuses that with its own
# message; a selectbox's unknown text is caught by its options.)
_ROUND_TRIP = (
    "double_value",
    "int_value",
    "bool_value",
    "double_array_value",
    "int_array_value",
    "string_array_value",
)
SHOWN_CHARS = 40  # of a rejected value, in the notice


def _finite(value: object) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, (list, tuple)):
        return all(_finite(v) for v in value)
    return True


def _shown(state) -> str:
    """The crafted value as a notice may quote it (bounded)."""
    field = state.WhichOneof("value")
    raw = getattr(state, field) if field else None
    raw = list(raw.data) if hasattr(raw, "data") else raw
    text = str(raw)
    return text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 3] + "..."


def problem(state, metadata, decode) -> str | None:
    """Why a widget state (WidgetState proto) cannot be the widget's value, or None when it can.
    `decode()` gives the decoded value (Streamlit's own decoding, which may raise)."""
    field = state.WhichOneof("value")
    if field is None:
        return None  # cleared: the widget's default, Streamlit's own rule
    numbers = {"int_value", "double_value"}  # a number box says double_value; an int one's browser sends int_value
    if metadata.value_type and field != metadata.value_type and not {field, metadata.value_type} <= numbers:
        return f"{field} sent to a {metadata.value_type} widget"
    raw = getattr(state, field)
    raw = list(raw.data) if hasattr(raw, "data") else raw
    if not _finite(raw):
        return "not a finite number"
    try:
        value = decode()
        if not _finite(value):
            return "not a finite number"
        encoded = metadata.serializer(value)
    except Exception as e:  # noqa: BLE001 - any failure of Streamlit's decoding is the crafted value's
        return f"{type(e).__name__}"
    # A value the browser sends is one the widget itself would send back; a decoder that quietly swapped in its
    # default (a slider's wrong-length list, a number out of range) would lose the last good value instead.
    if field in _ROUND_TRIP and value is not None:
        again = list(encoded) if isinstance(encoded, (list, tuple)) else encoded
        if again != raw:
            return "not a value the widget sends"
    if metadata.formatted_options is not None and value is not None:
        items = encoded if isinstance(encoded, (list, tuple)) else [encoded]
        if any(item is not None and item not in metadata.formatted_options for item in items):
            return "not one of the options"
    return None


def _unpack(state) -> object:
    """What a widget's deserializer receives for a WidgetState: the set value field, the data of an array (or of
    a string trigger), JSON text parsed (the WidgetState wire format, as Streamlit reads it)."""
    field = state.WhichOneof("value")
    raw = getattr(state, field)
    if field.endswith("_array_value") or field == "string_trigger_value":
        return raw.data
    return json.loads(raw) if field == "json_value" else raw


def screened(metadata_of, widget_states):
    """`widget_states` without the values their widgets cannot take, and those values as shown. `metadata_of(id)`
    gives a drawn widget's metadata (None: not drawn yet, left to Streamlit)."""
    rejected = []  # positions in widget_states.widgets
    for i, state in enumerate(widget_states.widgets):
        metadata = metadata_of(state.id)
        if metadata is None or state.WhichOneof("value") in _NOT_DECODED_EARLY:
            continue

        def decode(state=state, metadata=metadata):
            return metadata.deserializer(_unpack(state))

        if problem(state, metadata, decode) is not None:
            rejected.append(i)
    if not rejected:
        return widget_states, []
    kept = type(widget_states)()
    kept.widgets.extend(state for i, state in enumerate(widget_states.widgets) if i not in rejected)
    return kept, [_shown(widget_states.widgets[i]) for i in rejected]


def install() -> bool:
    try:
        from streamlit.runtime.state.session_state import SessionState
    except ImportError:
        return False
    if getattr(SessionState, "_al_guarded", False):
        return True
    original = SessionState.set_widgets_from_proto

    def set_widgets_from_proto(self, widget_states):
        # A value left out is one the browser never sent: the widget keeps its value of the last run (Streamlit
        # moved it there just before), or its default when it had none.
        kept, rejected = screened(self.get_widget_metadata, widget_states)
        original(self, kept)
        _note_held(self, kept)  # entry `held_values`
        if rejected:  # kept in this session's own state (the same mapping as st.session_state)
            held = list(self[REJECTED]) if REJECTED in self else []
            self[REJECTED] = (held + rejected)[:SHOWN_VALUES]

    SessionState.set_widgets_from_proto = set_widgets_from_proto
    SessionState._al_guarded = True
    return True


ID_PREFIX = "$$ID-"  # a keyed widget's id is "$$ID-<hash>-<user key>" (Streamlit 1.67; canary in tests/test_seam.py)


def user_key(widget_id: str) -> str | None:
    """The user key in a widget's id, or None for a widget without one."""
    if not widget_id.startswith(ID_PREFIX):
        return None
    parts = widget_id.split("-", 2)
    return parts[2] if len(parts) == 3 and parts[2] != "None" else None


def _note_held(state, widget_states) -> None:
    """Remember the keys of the widgets the browser holds a value of (entry `held_values`): it sends every value it
    holds with each message, so a widget whose component has not mounted yet (its code still loading) is missing."""
    # Only widgets this session has drawn: a forged message naming made-up ids cannot make the set grow.
    keys = {user_key(w.id) for w in widget_states.widgets if state.get_widget_metadata(w.id) is not None} - {None}
    held = state[HELD] if HELD in state else frozenset()
    if not keys <= held:
        state[HELD] = frozenset(held | keys)


def browser_holds(key: str) -> bool:
    """True when the browser has sent a value of `key`'s widget in this session."""
    import streamlit as st

    return key in st.session_state.get(HELD, ())


def take_rejected() -> list[str]:
    """The values this session's widgets could not take since the last call (at most a few)."""
    import streamlit as st

    return list(st.session_state.pop(REJECTED, []))
