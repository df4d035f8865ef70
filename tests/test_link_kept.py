"""A run that starts from a link lacking one of the page's chosen values ends with it in the link again.

A widget bound to the link writes its value there only when the user moves it; a run that starts from a link that
lost the value (a class's follow that took the page from the teacher while a poll tick raced it: CI's
test_a_whole_class once left a student at /walkthrough?...&seq_len=6 with the teacher's step on screen but not in
the link) left the link without it, and a reload or a shared link then showed another view. Every value a page
settles is written back at the end of its run (ui/url_state.relink_settled); a value at its default stays out."""

from __future__ import annotations

import pytest
from conftest import run_app

# (page, the link, the key dropped from it): a value of each page that its widgets hold, not its default.
CASES = [
    ("walkthrough", dict(walk_view="step", walk_step="scores", walk_head="2"), "walk_head"),
    (
        "walkthrough",
        dict(walk_view="step", walk_step="split", walk_hpage="2", num_heads="16", d_model="64"),
        "walk_hpage",
    ),
    ("heads", dict(heads_tab="slice", heads_slice_head="2"), "heads_slice_head"),
    ("softmax", dict(soft_tab="scale", soft_head="2"), "soft_head"),
    ("softmax", dict(soft_tab="tiles", soft_bq="2"), "soft_bq"),
    ("softmax", dict(soft_tab="max", soft_all_keys="true", seq_len="16"), "soft_all_keys"),
    ("masks", dict(masks_head="2"), "masks_head"),
    ("masks", dict(masks_polarity="block"), "masks_polarity"),
    ("positions", dict(pos_tab="shuffle", pos_shuffle="3"), "pos_shuffle"),
    ("positions", dict(pos_tab="rope", pos_base="100.0"), "pos_base"),
    ("positions", dict(pos_tab="shuffle", pos_example="2"), "pos_example"),  # written by its callback, not bound
    ("kv-cache", dict(kv_tab="sharing", kv_head="2"), "kv_head"),
    ("kv-cache", dict(kv_tab="memory", kv_gen="256"), "kv_gen"),
    ("why-heads", dict(why_tab="results", why_seed="3"), "why_seed"),
    ("real-model", dict(real_tab="grid", real_layer="5"), "real_layer"),
]


def _link_value(at, key):
    value = at.query_params.get(key)
    return value[-1] if isinstance(value, list) and value else value


@pytest.mark.app
@pytest.mark.parametrize(("page", "link", "key"), CASES, ids=[f"{p}-{k}" for p, _, k in CASES])
def test_a_value_lost_from_the_link_is_written_back(page, link, key):
    at = run_app(page, lang="en", **link)
    assert not at.exception
    assert _link_value(at, key) == link[key]  # the page took it (not corrected away)
    at.query_params.pop(key, None)
    at.run()
    assert not at.exception
    assert _link_value(at, key) == link[key]


@pytest.mark.app
def test_a_value_at_its_default_stays_out_of_the_link():
    """What Streamlit leaves out of a link (a default) is not put back either."""
    at = run_app("softmax", lang="en", soft_tab="scale", soft_head="2")
    at.query_params.pop("soft_head", None)
    at.session_state["soft_head"] = 0  # the student moved it back to the first head
    at.run()
    assert not at.exception
    assert "soft_head" not in at.query_params
