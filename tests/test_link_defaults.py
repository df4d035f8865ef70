"""Every widget bound to the link starts at its key's declared default.

Streamlit's browser client leaves a bound widget's value out of the link when it equals the widget's own default,
and a link without the key opens at the key's declared default (lessons/*: URL_KEYS, ui/url_state.settle). Where the
two differed, a choice vanished from the link a teacher shares: softmax row 0 reopened at the last row, MQA (one K/V
head) at h = 2 reopened as MHA, shuffle 0 as shuffle 1, the RoPE angle at position 0 as position 3 (found by opening
the written link after random steps, 2026-12-05). So on a fresh session, with no link, each bound widget's own
default must be the value the page settled.
"""

from __future__ import annotations

import re

import pytest
from conftest import current_link, open_app, run_app, sidebar_slider, wait_idle
from playwright.sync_api import expect

import i18n
from lessons import heads, kv_cache, positions, real_heads, softmax, walkthrough
from lessons.masks_lab import choices as masks
from lessons.why_heads import view as why_heads

# Every section of every page (the sidebar's settings and display options are drawn on each), and the two views whose
# controls only a choice shows: the walkthrough's cell story, the masks lab's padding.
SECTIONS = {
    "heads": ("heads_tab", heads.SECTIONS),
    "softmax": ("soft_tab", softmax.SECTIONS),
    "kv-cache": ("kv_tab", kv_cache.SECTIONS),
    "masks": ("masks_tab", masks.SECTIONS),
    "positions": ("pos_tab", positions.TABS),
    "real-model": ("real_tab", real_heads.VIEWS),
    "why-heads": ("why_tab", why_heads.VIEWS),
    "walkthrough": ("walk_view", walkthrough.VIEWS),
}
VIEWS = [(page, {key: sid}) for page, (key, ids) in SECTIONS.items() for sid in ids] + [
    ("walkthrough", {"walk_drill": "true", "walk_step": "scores"}),
    ("masks", {"masks_tab": "grid", "masks_extra": "padding"}),
    ("masks", {"masks_tab": "row", "masks_extra": "padding", "masks_batch": "2"}),
]


def _nodes(node):
    yield node
    children = getattr(node, "children", None)
    if isinstance(children, dict):
        for child in children.values():
            yield from _nodes(child)


def _fields(proto) -> set[str]:
    return {f.name for f in proto.DESCRIPTOR.fields}


def _own_default(node):
    """The widget's own default as the value it returns, or None when it has no comparable one."""
    proto = node.proto
    fields = _fields(proto)
    if "default" not in fields:
        return None
    default = proto.default
    options = [getattr(o, "content", o) for o in proto.options] if "options" in fields else []
    kind = type(node).__name__
    if kind == "Slider":
        return [float(x) for x in default] if len(default) > 1 else float(default[0])
    if kind == "SelectSlider":
        return options[int(default[0])]
    if kind == "Selectbox":
        return options[int(default)] if proto.HasField("default") else None
    if kind in ("ButtonGroup", "Multiselect"):
        return sorted(options[int(i)] for i in default)
    return default  # NumberInput, Toggle, Checkbox, TextArea: the value itself


def _as_compared(value, like):
    if isinstance(like, float):
        return float(value)
    if isinstance(like, list):
        return sorted(str(v) for v in (value if isinstance(value, (list, tuple)) else [value]))
    if isinstance(like, str):
        return str(value)
    return value


@pytest.mark.app
@pytest.mark.parametrize("page,params", VIEWS, ids=[f"{p}-{'-'.join(q.values()) or 'default'}" for p, q in VIEWS])
def test_every_bound_widget_starts_at_its_keys_declared_default(page, params):
    at = run_app(page, lang="en", **params)
    assert not at.exception
    checked, differ = [], []
    for node in _nodes(at._tree):
        proto = getattr(node, "proto", None)
        if proto is None or "query_param_key" not in _fields(proto) or not proto.query_param_key:
            continue
        if proto.query_param_key in params:  # the view's own link value (its section), not a default
            continue
        own = _own_default(node)
        if own is None:
            continue
        value = _as_compared(node.value, own)
        checked.append(proto.query_param_key)
        if value != own:
            differ.append((proto.query_param_key, own, value))
    assert checked, "no bound widget found"
    assert not differ, f"widget default vs the page's settled value: {differ}"


def reopen(page) -> None:
    """Open the link the app wrote, as a student given it would."""
    page.goto(current_link(page))
    wait_idle(page)


def main_slider(page, label_key: str):
    """The thumb of the main area's slider labelled by `label_key` (English)."""
    box = page.locator("[data-testid=stMain] [data-testid=stSlider]").filter(has_text=i18n.t(label_key, "en"))
    return box.get_by_role("slider")


@pytest.mark.browser
def test_a_choice_equal_to_the_widgets_old_default_stays_in_the_link(server, page):
    """The symptoms: row 0 on softmax's max section, and MQA kept through steps of h (4 -> 2 -> 1 -> 2), each
    reopened from the link the app wrote as the page showed it."""
    open_app(page, server, "softmax", lang="en", soft_tab="max")
    row = main_slider(page, "softmax.ctl.row")
    row.focus()
    page.keyboard.press("Home")
    expect(page.get_by_text(re.compile(r"^Row 0 is the query"))).to_be_visible()
    expect(page).to_have_url(re.compile(r"[?&]soft_row=0(&|$)"))
    reopen(page)
    expect(page.get_by_text(re.compile(r"^Row 0 is the query"))).to_be_visible()
    # The gain's default follows the row (where the naive softmax overflows: 100 at rows 0-2, 1000 at row 3 of this
    # run): a gain kept through a new row stays in the link as the page shows it.
    gain = main_slider(page, "softmax.ctl.gain")
    expect(gain).to_have_attribute("aria-valuetext", "100")
    for n in (1, 2, 3):
        row.focus()
        page.keyboard.press("ArrowRight")
        expect(page.get_by_text(re.compile(rf"^Row {n} is the query"))).to_be_visible()
    expect(page).to_have_url(re.compile(r"[?&]soft_gain=100(&|$)"))
    reopen(page)
    expect(page.get_by_text(re.compile(r"^Row 3 is the query"))).to_be_visible()
    expect(gain).to_have_attribute("aria-valuetext", "100")

    open_app(page, server, "kv-cache", lang="en", kv_tab="memory")
    for key, h in (("ArrowLeft", 2), ("ArrowLeft", 1), ("ArrowRight", 2)):  # h_kv 2 -> 2 -> 1 -> 1
        sidebar_slider(page, 1).focus()
        page.keyboard.press(key)
        expect(page).to_have_url(re.compile(rf"[?&]num_heads={h}(&|$)"))
        expect(page.get_by_text(re.compile(rf"Now: .* {h} query head"))).to_be_visible()
    mqa = page.get_by_text(re.compile(r"Now: MQA, all 2 query heads share one K/V head"))
    expect(mqa).to_be_visible()
    reopen(page)
    expect(mqa).to_be_visible()


@pytest.mark.browser
def test_a_kept_value_that_a_new_range_made_non_default_is_written_into_the_link(server, page):
    """Padding 2 is the default at T = 11 and no longer at T = 12 (3): a step of T keeps the 2 and makes the slider a
    new widget, which Streamlit's client does not write into the link; ui.url_state.settle does (it reopened at 3)."""
    open_app(page, server, "masks", lang="en", masks_tab="grid", masks_extra="padding", seq_len=11)
    pad = page.locator(".st-key-masks_pad").get_by_role("slider")
    expect(pad).to_have_attribute("aria-valuetext", "2")
    sidebar_slider(page, 2).focus()
    page.keyboard.press("ArrowRight")
    expect(page).to_have_url(re.compile(r"[?&]masks_pad=2(&|$)"))
    expect(pad).to_have_attribute("aria-valuetext", "2")
    reopen(page)
    expect(pad).to_have_attribute("aria-valuetext", "2")
