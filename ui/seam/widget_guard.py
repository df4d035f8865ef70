"""A number box that receives a value that is not a number resets instead of breaking the session.

Why: Streamlit 1.67's st.number_input turns the browser's value into an int with int(value) while it
looks for changed widgets, before any of the app's code runs. A crafted message with NaN, inf or a
string in the seed box raised there (ValueError / OverflowError / TypeError) on that rerun and every
later one: the session was broken for good. The browser's own box can never send such a value.

What it does: wraps NumberInputSerde.deserialize (private Streamlit API, once per process): a value
it cannot read gives the widget's default, as an out-of-range value already does, and is noted for
the session so app.py can say what it reset (`notice.number_reset`). Guarded like ui/batching.py: if
the class is missing, nothing is installed (tests/test_numeric_edges.py would notice the crash).
"""

from __future__ import annotations

import threading

_lock = threading.Lock()
_rejected: dict[str, list[str]] = {}  # session id -> values reset since app.py last asked


def _session_id() -> str | None:
    try:
        from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

        ctx = get_script_run_ctx(suppress_warning=True)
        return ctx.session_id if ctx is not None else None
    except Exception:  # noqa: BLE001
        return None


def install() -> bool:
    try:
        from streamlit.elements.widgets.number_input import NumberInputSerde
    except ImportError:
        return False
    if getattr(NumberInputSerde, "_al_guarded", False):
        return True
    original = NumberInputSerde.deserialize

    def deserialize(self, ui_value):
        try:
            return original(self, ui_value)
        except (TypeError, ValueError, OverflowError):
            sid = _session_id()
            if sid is not None:
                with _lock:
                    _rejected.setdefault(sid, []).append(str(ui_value)[:100])
            return original(self, None)  # the widget's default

    NumberInputSerde.deserialize = deserialize
    NumberInputSerde._al_guarded = True
    return True


def take_rejected() -> list[str]:
    """The values this session's number boxes could not read since the last call."""
    sid = _session_id()
    with _lock:
        return _rejected.pop(sid, []) if sid is not None else []
