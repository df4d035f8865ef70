"""The one message a protocol-level client sends: Streamlit's BackMsg rerun_script, as the browser builds it.

bench_sessions.py (and bench_memory.py through it) and bench_class.py each decide what their widget values mean
(a slider, a radio's index, a button's click); this builds the message from the WidgetState field each one chose.
"""

from __future__ import annotations

from collections.abc import Iterable


def rerun_script(
    page: str,
    query_string: str,
    widgets: Iterable[tuple[str, str, object]] = (),
    *,
    fragment_id: str = "",
    page_hash: str = "",
    auto_rerun: bool = True,
    url: str = "",
) -> bytes:
    """The serialized BackMsg that reruns `page` (one fragment of it when `fragment_id`, as a fragment's run_every
    does; `auto_rerun=False` for a fragment run that a widget in it asks for: then `page_hash` names the page's
    script). `url`: the page's address, as a browser states it (st.context.url). `widgets`: (widget id, WidgetState
    field, value), e.g. (id, "double_array_value", 8) for a slider; an *_array_value field gets the value as its
    one item."""
    from streamlit.proto.BackMsg_pb2 import BackMsg

    msg = BackMsg()
    state = msg.rerun_script
    state.query_string = query_string
    state.page_name = page
    if url:
        state.context_info.url = url
    if fragment_id:
        state.fragment_id = fragment_id
        state.is_auto_rerun = auto_rerun
        state.page_script_hash = page_hash
    for widget_id, kind, value in widgets:
        w = state.widget_states.widgets.add()
        w.id = widget_id
        if kind.endswith("_array_value"):
            getattr(w, kind).data.append(value)
        else:
            setattr(w, kind, value)
    return msg.SerializeToString()
