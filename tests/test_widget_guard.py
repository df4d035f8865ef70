"""ui/seam/widget_guard.py: a widget value no browser could send keeps the widget's last good value, with a
notice, and the session goes on. Crafted at the protocol level: the next run's WidgetStates message, built from
the page's own widgets with one field replaced, as a hostile client would send it over the websocket.

Before: Streamlit decoded the value before any app code ran and raised (NaN for a slider, a list of floats for a
selectbox, a float for a select-slider) on that rerun and on every later one; an unknown option reached the page
(heads_page: ValueError invalid literal for int()).
"""

from __future__ import annotations

import math

import pytest
from conftest import run_app, run_async
from streamlit.proto.WidgetStates_pb2 import WidgetState, WidgetStates

import i18n
from i18n import plain
from lessons import url_keys as U

pytestmark = pytest.mark.usefixtures("one_torch_thread")

# (value field, value): wrong types, NaN, +-inf, huge numbers, wrong-length lists, unknown options, bad JSON.
KINDS = [
    ("double_value", math.nan),
    ("double_value", math.inf),
    ("double_value", -1e308),
    ("int_value", 2**62),
    ("string_value", "zz-unknown"),
    ("string_value", "x" * 20_000),
    ("double_array_value", [math.nan]),
    ("double_array_value", [1.5, 2.5, 3.5]),
    ("double_array_value", []),
    ("int_array_value", [10**6]),
    ("string_array_value", ["zz-unknown"]),
    ("string_array_value", ["a", "b", "c"]),
    ("bool_value", True),
    ("json_value", "{bad"),
    ("trigger_value", True),
]


def _set(state, field: str, value) -> None:
    state.ClearField("value") if state.WhichOneof("value") else None
    if field.endswith("array_value"):
        getattr(state, field).data.extend(value)
    else:
        setattr(state, field, value)


def crafted(at, values: dict[str, tuple[str, object]] | None = None, shift: int | None = None) -> WidgetStates:
    """The widget states the app's browser would send next, with some replaced: `values` by widget key
    (the id ends in "-<key>"), or every widget a kind of KINDS (rotated by `shift`)."""
    out = WidgetStates()
    out.CopyFrom(at._tree.get_widget_states())
    for i, state in enumerate(out.widgets):
        if shift is not None:
            _set(state, *KINDS[(i + shift) % len(KINDS)])
        for key, (field, value) in (values or {}).items():
            if state.id.endswith(f"-{key}"):
                _set(state, field, value)
    return out


def notices(at) -> list[str]:
    return [w.value for w in at.main.warning]


@pytest.mark.app
@pytest.mark.parametrize(
    "key,field,value",
    [
        ("seq_len", "double_array_value", [math.nan]),  # a slider
        ("seq_len", "double_array_value", [2.0, 3.0]),  # a wrong-length list
        ("d_model", "double_value", math.inf),  # a select-slider
        ("num_heads", "string_array_value", ["7"]),  # not one of its options
        ("mask", "double_array_value", [0.5, 1.5]),  # a selectbox (the URL carrier)
        ("mask", "string_value", "zz-unknown"),  # not one of its options (Streamlit would take it silently)
        ("palette", "double_value", math.nan),  # a button group
        ("seed", "double_value", math.nan),  # a number box
        ("seed", "string_value", "abc"),
    ],
)
def test_a_crafted_value_keeps_the_widgets_last_value_with_a_notice(key, field, value):
    at = run_app(None, lang="en", seq_len=5, d_model=128, num_heads=8, seed=7, mask="causal", palette="contrast")
    before = {k: at.session_state[k] for k in ("seq_len", "d_model", "num_heads", "seed", "mask", "palette")}
    at._run(crafted(at, {key: (field, value)}))
    assert not at.exception, [e.message for e in at.exception]
    assert {k: at.session_state[k] for k in before} == before
    assert any("cannot take" in n for n in notices(at)), notices(at)
    at.sidebar.slider(key="seq_len").set_value(6).run()  # the session goes on, the notice said once
    assert not at.exception and at.session_state["seq_len"] == 6
    assert not any("cannot take" in n for n in notices(at))


@pytest.mark.app
@pytest.mark.parametrize("url,params", [(None, {}), ("heads", {"heads_tab": "heads"}), ("masks", {})])
def test_the_values_a_browser_sends_back_pass_untouched(url, params):
    """Every drawn widget's own value (slider, select-slider, pills, selectbox, number box, toggles) sent back as
    the browser would: none is taken for crafted, and a changed valid value is taken."""
    at = run_app(url, lang="en", seq_len=5, **params)
    keys = ("seq_len", "d_model", "num_heads", "seed", "mask", "palette")
    before = {k: at.session_state[k] for k in keys}
    at._run(crafted(at))
    assert not at.exception and not any("cannot take" in n for n in notices(at)), notices(at)
    assert {k: at.session_state[k] for k in keys} == before
    at._run(crafted(at, {"seq_len": ("double_array_value", [6.0])}))
    assert at.session_state["seq_len"] == 6 and not any("cannot take" in n for n in notices(at))


@pytest.mark.app
def test_an_unknown_heads_page_reaches_no_page_code():
    at = run_app("heads", lang="en", d_model=512, num_heads=64, heads_tab="heads")
    page = at.session_state["heads_page"]
    at._run(crafted(at, {"heads_page": ("string_array_value", ["not-a-page"])}))
    assert not at.exception, [e.message for e in at.exception]
    assert at.session_state["heads_page"] == page


@pytest.mark.app
def test_the_notice_is_bounded_and_plain():
    at = run_app(None, lang="zh")
    at._run(crafted(at, {"seed": ("string_value", "<b>x</b>" * 5000)}))
    assert not at.exception
    shown = [n for n in notices(at) if "<b>" in n or "&lt;" in n or "x" in n]
    assert shown and all(len(n) < 200 for n in shown)
    assert i18n.t("notice.widget_reset", "zh", given=plain("<b>x</b><b>x</b><b>x</b><b>x</b><b>...")) in shown


def _views() -> list[tuple[str, dict]]:
    """Every page and every section of it: its widgets are drawn only while their tab is open."""
    from lessons.masks_lab.choices import SECTIONS as MASK_SECTIONS

    views: list[tuple[str, dict]] = [("", {}), ("quiz", {})]
    views += [("masks", {"masks_tab": s}) for s in MASK_SECTIONS]
    for page, keys in U.DECLARED.items():
        tabs = [k for k in keys if k.name.endswith("_tab") or k.name == "walk_view"]
        views += [(page, {k.name: c}) for k in tabs for c in k.resolved({})["choices"]]
        views += [] if tabs or page == "masks" else [(page, {})]
    return views


@pytest.mark.app
@pytest.mark.parametrize("url,params", _views(), ids=[f"{u or 'home'}-{p}" for u, p in _views()])
def test_every_widget_of_every_view_survives_every_kind_of_crafted_value(url, params):
    """Each run sends a crafted value to *every* widget of the view at once, rotating the kinds so each widget
    meets several; after each, the next normal step runs without an error."""
    at = run_app(url or None, lang="en", **params)
    assert not at.exception
    offset = sum(map(ord, url + str(params)))  # each view rotates from elsewhere: the sidebar meets every kind
    for n in range(6):
        at._run(crafted(at, shift=offset + n))
        assert not at.exception, (n, [e.message[:300] for e in at.exception])
        at.run()
        assert not at.exception, (n, [e.message[:300] for e in at.exception])
    assert at.session_state["seq_len"] == 8 and at.session_state["d_model"] == 64  # the last good values


def test_over_a_real_websocket_every_sidebar_widget_sent_nan_keeps_the_session_working(server):
    """The same message a hostile client sends: NaN (and then a list of floats) to every widget of the home page,
    through Streamlit's protocol against a real server; the session's next ordinary step still works."""

    from wire import Tab

    async def go():
        async with Tab(server.url) as tab:
            first = await tab.rerun("", "lang=en")
            assert not first.exceptions and len(first.widgets) >= 8
            for field, value in (("double_value", math.nan), ("double_array_value", [1.5, 2.5, 3.5])):
                states = WidgetStates()
                for wid in first.widgets:
                    w = states.widgets.add()
                    w.id = wid
                    _set(w, field, value)
                crafted_reply = await tab.rerun("", "lang=en", states)
                assert not crafted_reply.exceptions, crafted_reply.exceptions
                assert any("cannot take" in a for a in crafted_reply.alerts)
                after = await tab.rerun("", "lang=en")  # the next ordinary step
                assert not after.exceptions, after.exceptions

    run_async(go())


def test_a_whole_number_from_an_int_number_box_is_a_valid_value():
    """Streamlit's number box declares double_value, and the browser sends an int box's value as int_value (seen:
    every seed, head and batch box was refused as crafted): both are numbers, and the value passes."""
    from types import SimpleNamespace

    from ui.seam import widget_guard

    box = SimpleNamespace(value_type="double_value", serializer=lambda v: v, formatted_options=None)
    sent = WidgetState(id="seed", int_value=12)
    assert widget_guard.problem(sent, box, lambda: 12) is None
    assert widget_guard.problem(WidgetState(id="seed", string_value="12"), box, lambda: "12") is not None


HELD_SCRIPT = """
import streamlit as st
from ui.seam import widget_guard
widget_guard.install()
st.number_input("n", key="seed")
st.slider("s", key="s")
st.json(sorted(st.session_state.get(widget_guard.HELD, ())))
"""


@pytest.mark.app
def test_the_keys_of_the_values_a_browser_sent_are_noted_and_a_made_up_id_is_not():
    """Entry `held_values`: the keys whose widget value a message carried are noted for the session (a first run
    carries none); an id the session never drew, however many a message names, is not."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_string(HELD_SCRIPT).run()
    assert at.json[0].value == "[]"
    at.slider[0].set_value(5).run()
    assert at.json[0].value == '["s", "seed"]'
    forged = WidgetStates()
    forged.CopyFrom(at._tree.get_widget_states())
    for i in range(1000):
        forged.widgets.add(id=f"$$ID-0-made_up_{i}", int_value=1)
    at._run(forged)
    assert not at.exception and at.json[0].value == '["s", "seed"]'
