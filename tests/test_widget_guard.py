"""Issue 24 (also): a crafted NaN, inf or text value in the seed box resets with a notice; the session goes on.

Before: Streamlit's number_input raised (int(nan), int(inf)) while looking for changed widgets, before
any app code ran, on that rerun and on every later one.
"""

from __future__ import annotations

import math

import pytest
from conftest import run_app

import i18n
from i18n import plain


@pytest.mark.app
@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_a_non_number_in_the_seed_box_resets_it_with_a_notice(bad):
    at = run_app(None, lang="en", seed=7)
    at.sidebar.number_input(key="seed").set_value(bad).run()
    assert not at.exception, [e.message for e in at.exception]
    assert at.session_state["seed"] == 0
    notice = i18n.t("notice.number_reset", "en", given=plain(str(bad)))
    assert notice in [w.value for w in at.main.warning]
    at.sidebar.slider(key="seq_len").set_value(5).run()  # the session goes on
    assert not at.exception and at.session_state["seq_len"] == 5
    assert notice not in [w.value for w in at.main.warning]  # said once


def test_text_sent_to_a_number_box_gives_its_default():
    from streamlit.elements.widgets.number_input import NumberInputSerde
    from streamlit.proto.NumberInput_pb2 import NumberInput as NumberInputProto

    from ui.seam import widget_guard

    assert widget_guard.install()
    serde = NumberInputSerde(0, NumberInputProto.INT, 0, 99_999)
    assert serde.deserialize("abc") == 0 and serde.deserialize(float("nan")) == 0 and serde.deserialize(42) == 42
