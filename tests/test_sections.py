"""ui/sections.lazy_tabs: one segmented control (no st.tabs); only the open section runs; its id (not its label) is
in the URL."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

pytestmark = pytest.mark.app


def tabs_app():
    import streamlit as st

    from ui.sections import lazy_tabs

    labels = {"en": {"shapes": "Shapes", "cost": "Cost"}, "zh": {"shapes": "形状", "cost": "代价"}}
    lang = st.radio("lang", ["en", "zh"], key="lang")
    open_id, tabs = lazy_tabs(
        "demo_tab",
        ["shapes", "cost"],
        lambda sid, lg: labels[lg][sid],
        lang,
        on_bad_url=lambda given, used: st.warning(f"bad {given} -> {used}"),
    )
    ran = st.session_state.setdefault("ran", [])
    ran.append(open_id)
    with tabs[open_id]:
        st.write(f"content of {open_id}")


def start(**params) -> AppTest:
    at = AppTest.from_function(tabs_app, default_timeout=30)
    for k, v in params.items():
        at.query_params[k] = v
    return at.run()


def texts(at) -> list[str]:
    return [m.value for m in at.markdown]


def test_first_section_by_default_and_only_it_runs():
    at = start()
    assert not at.exception
    assert texts(at) == ["content of shapes"]
    assert "demo_tab" not in at.query_params  # no value = the first section; nothing written
    assert at.button_group[0].options == ["Shapes", "Cost"] and at.button_group[0].value == "shapes"
    assert not at.tabs  # a switch, not a container per section


def test_the_url_opens_a_section_in_either_language():
    at = start(demo_tab="cost")
    assert texts(at) == ["content of cost"]
    at.radio[0].set_value("zh").run()
    assert texts(at) == ["content of cost"]  # still the same section: the URL holds its id, not a label
    assert at.button_group[0].options == ["形状", "代价"] and at.button_group[0].value == "cost"
    assert at.query_params["demo_tab"] == "cost"


def test_a_bad_url_value_falls_back_to_the_first_section_with_a_notice():
    for bad in ("bogus", "<script>", ""):
        at = start(demo_tab=bad)
        assert not at.exception
        assert texts(at) == ["content of shapes"]
        assert [w.value for w in at.warning] == [f"bad {bad} -> shapes"]
        assert at.query_params["demo_tab"] == "shapes"


def test_the_chosen_section_is_kept_across_reruns():
    at = start(demo_tab="cost")
    at.run()
    at.run()
    assert texts(at) == ["content of cost"]
    assert at.session_state["ran"] == ["cost"] * 3


def test_choosing_a_section_writes_its_id_into_the_url():
    at = start()
    at.button_group[0].set_value("cost").run()  # a click: the widget's callback writes the id
    assert texts(at) == ["content of cost"]
    assert at.query_params["demo_tab"] == "cost"
    assert at.session_state["ran"] == ["shapes", "cost"]
