"""How many elements and containers a view sends, pinned as an upper bound (nothing here is timed).

Every element and container (columns, expanders, row containers) a step re-sends costs the browser a render
(re-rendered, not mounted anew: benchmarks/README.md, 2026-12-05, "A step with nothing to compute"), so a
walkthrough step that said its sentences in many small elements, or laid them out in columns, cost several times a
merged one (benchmarks/README.md). Counted here on
the main area of one AppTest run per view at the defaults: what the page itself sends on a step (the browser's
count adds the sidebar's shared settings, which a step of d_model, h or the mask re-sends too; a step of seq_len or the
seed does not: app.py). A change that adds elements must
raise a pin on purpose, and be measured with benchmarks/bench_browser.py.

The walkthrough's title and choosers (ui/walk_nav.py) are a fragment of their own above the page's: its views are
pinned twice, the whole main area (a first visit, or a choice of view or step: the choosers' fragment, its container
included, and the page's) and the page's fragment alone, which is all a step of seq_len or the seed sends.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass

import pytest
from conftest import before_any_training, run_app

import i18n
from lessons import walkthrough as W

# (page, extra URL params) -> elements + containers at most, in the main area, at the defaults.
# The walkthrough's choosers: the title, intro, hints and the view selector's legend in one markdown element; the
# choices' URL carriers in one hidden container; prev / next in one row with no "step n of 10" between them (the
# chosen pill says it); the fragment's own container: 7 elements and 3 containers. A drawn step: heading, formula,
# where the code comes from and the code (a fenced block) in one markdown element, then its text, shapes, the shape
# pipeline and the live check against PyTorch in one more.
# The steps that tell a cell's story end with it below the page (ui/walk_drill.py), the others with a caption saying
# which steps do.
WALK_VIEWS = {(("walk_step", name),): 4 if name in W.DRILL_STEPS else 5 for name in W.STEP_NAMES}  # see STEP_SENT
WALK_VIEWS[(("walk_step", "concat"),)] = 6  # + its check
WALK_VIEWS[(("walk_step", "split"),)] = 9  # + the role choice, the heads' band and the check
WALK_VIEWS[(("walk_view", "present"), ("walk_step", "scores"))] = 12
# ten steps' formula, code, text, shape and button; the rule between two steps inside the next one's markdown
WALK_VIEWS[(("walk_view", "all"),)] = 33
WALK_VIEWS[(("walk_step", "softmax"), ("walk_drill", "true"))] = 4  # the cell's story open: below the page
# What a step of seq_len or the seed sends on each walkthrough view: the page's fragment alone (the choosers'
# fragment is not rerun).
STEP_SENT = {("walkthrough", extra): pin for extra, pin in WALK_VIEWS.items()}
# The choosers' fragment: 7 elements and 3 boxes (its own, the hidden carriers', the row); the presenter view has no
# title but "step n of 10" and the key listener, the all-steps view says what a click on a step does. Above both,
# app.py's two notice boxes (display options, class mode).
CHOOSERS = {"step": 10, "present": 11, "all": 11}
NOTICES = 2


def tail(extra: tuple) -> int:
    """Below the page, the fragment of the cell's story and the downloads section (app.py tail_part): its box and the
    closed downloads expander, and on the views that tell the story its expander; open, its cell's selectors, toggle,
    formulas, table and check (a step of seq_len or the seed sends them again only then)."""
    shown = dict(extra)
    if shown.get("walk_drill") == "true":
        return 15
    tells = shown.get("walk_view") == "all" or (
        shown.get("walk_view", "step") == "step" and shown.get("walk_step") in W.DRILL_STEPS
    )
    return 2 + tells


PINS = {
    **{
        key: pin + CHOOSERS[dict(key[1]).get("walk_view", "step")] + NOTICES + tail(key[1])
        for key, pin in STEP_SENT.items()
    },
    # positions: the title and intro one markdown element; below each section's controls its live part, one box
    # (ui/live_part.py), which is all a step of seq_len or the seed sends (tests/test_live_fragment.py)
    ("positions", (("pos_tab", "rope"),)): 35,
    # widgets in one row container; the table with its notes one element, the kinds' formulas one more (unchanged by a
    # step: not typeset again)
    ("positions", (("pos_tab", "add"),)): 18,
    ("positions", (("pos_tab", "shuffle"),)): 21,  # the notes and the permutation one element
    ("home", ()): 39,  # a card per page (three bordered columns measured slower: see the commit)
    # each section's heading, intro and formula one element; widgets side by side in one row container
    # softmax: the title and intro one markdown element; the tile's P above its rows' table (no columns); scale: each
    # table with the text before it and the captions after it one element
    # below each section's heading its live part, one box (ui/live_part.py)
    ("softmax", (("soft_tab", "tiles"),)): 22,  # each table with its title and notes one element; traffic: memory
    ("softmax", (("soft_tab", "max"),)): 23,
    ("softmax", (("soft_tab", "scale"),)): 21,
    # heads: the open section (and the sentence saying the settings above it) in the page's live part, one box
    ("heads", (("heads_tab", "cost"),)): 25,  # the title, the four numbers beside h = 1 and their notes one element
    ("heads", (("heads_tab", "heads"),)): 14,
    ("heads", (("heads_tab", "slice"),)): 26,
    ("heads", (("heads_tab", "timing"),)): 15,
    # masks: the title, intro and the two lines of code one markdown element; the open section and the downloads in
    # the page's live part, one box (ui/live_part.py), while no control follows T
    ("masks", (("masks_tab", "grid"),)): 32,  # the controls in one wrapping row container
    ("masks", (("masks_tab", "row"),)): 27,
    ("masks", (("masks_tab", "full"),)): 30,
    # its heading, sentences and both ways to write the fill one element (a step of T leaves it as it was: its code is
    # not highlighted again), the check and the bug's setup one more; the table titled, with the two sentences it sums
    # up
    ("masks", (("masks_tab", "polarity"),)): 26,
    # kv-cache: the title and intro one markdown element; below a section's controls its live part, one box
    # (ui/live_part.py)
    ("kv-cache", (("kv_tab", "sharing"),)): 22,  # heading + groups table one element, the shapes one, the checks a box
    ("kv-cache", (("kv_tab", "memory"),)): 24,  # heading, formula and its letters one element; choices in a row
    # step/next/head in one row container; the costs a table in the text around it; the charts one under the other
    ("kv-cache", (("kv_tab", "decode"),)): 33,
    ("real-model", ()): 26,
    # why-heads: title and intro, the task and its example, the closing heading and stability: each one element
    ("why-heads", ()): 18,
    ("quiz", ()): 18,
}


PIN_IDS = [f"{p}{''.join('-' + v for _, v in e)}" for p, e in PINS]


def counted(nodes) -> tuple[int, int]:
    """(elements, containers) under `nodes`: every leaf of the tree, every block."""
    from streamlit.testing.v1.element_tree import Block

    elements = containers = 0
    stack = list(nodes)
    while stack:
        node = stack.pop()
        if isinstance(node, Block):
            containers += 1
            stack += node.children.values()
        else:
            elements += 1
    return elements, containers


def sent(at) -> tuple[int, int]:
    """(elements, containers) under the main area of a run (children[1] is the sidebar)."""
    return counted(at._tree.children[0].children.values())


@pytest.mark.app
@pytest.mark.parametrize("page,extra", list(PINS), ids=PIN_IDS)
def test_a_view_sends_few_elements_and_containers(page, extra):
    if page == "why-heads":
        before_any_training()  # the pin is the page before any training
    at = run_app(page, **dict(extra))
    assert not at.exception
    elements, containers = sent(at)
    assert elements + containers <= PINS[(page, extra)], f"{page} {extra}: {elements} elements + {containers} boxes"


def page_block(at):
    """The page's fragment: the last block of the main area but the one below it (app.py draws the page, then the cell's
    story and the downloads section; the choosers' fragment, drawn after the page, takes a place kept above it)."""
    main = at._tree.children[0]
    return main.children[sorted(main.children)[-2]]


def page_part_sent(at) -> tuple[int, int]:
    """(elements, containers) of the page's fragment: what a step of seq_len or the seed sends (the sections below it,
    closed, are not sent again)."""
    return counted([page_block(at)])


@pytest.mark.app
@pytest.mark.parametrize(
    "page,extra", list(STEP_SENT), ids=[f"{p}{''.join('-' + v for _, v in e)}" for p, e in STEP_SENT]
)
def test_a_walkthrough_step_of_seq_len_sends_the_page_and_none_of_its_choosers(page, extra):
    at = run_app(page, **dict(extra))
    assert not at.exception
    elements, containers = page_part_sent(at)
    assert elements + containers <= STEP_SENT[(page, extra)], f"{extra}: {elements} elements + {containers} boxes"
    chooser_keys = {"walk_view", "walk_view_shown", "walk_step", "walk_step_shown", "walk_prev", "walk_next"}
    assert chooser_keys <= {str(w.key) for w in (*at.button_group, *at.button)}  # drawn, and
    in_page = set()
    stack = [page_block(at)]
    while stack:
        node = stack.pop()
        in_page.add(str(getattr(node, "key", None)))
        stack += getattr(node, "children", {}).values()
    assert not chooser_keys & in_page  # the choosers are drawn, above the page, in a fragment of their own


@pytest.mark.app
def test_the_count_sees_a_merged_element_and_a_column():
    """The counter itself: the walkthrough's step says its heading and formula in one markdown element, and the
    count would grow by one container per column if the step went back to columns."""
    at = run_app("walkthrough", walk_step="scores")
    elements, containers = sent(at)
    assert elements >= len(at.markdown) + len(at.code) + len(at.button) and containers >= len(at.expander) > 0
    assert sum(m.value.startswith("### 4. ") and "$$" in m.value for m in at.markdown) == 1
    assert not at.columns


# A code block, an HTML table or a formula the browser must draw again when the element holding it changes: a block
# costs a highlight (~3 ms), a table a layout (up to ~15 ms), a formula a typeset (~3.6 ms; issue 31's table).
HEAVY = re.compile(r"```.*?```|<table.*?</table>|\$\$.+?\$\$|\$[^$\n]+\$", re.S)
# Views whose changed text keeps such a part on purpose, with why.
HEAVY_KEPT = {
    # the turning pair's paragraph: its formulas carry the pair's own numbers (θ_i, the position m) inside the sentence
    # whose angle and lengths the run changes; split, the sentence would read in two elements
    ("positions", (("pos_tab", "rope"),)),
}


@dataclass(frozen=True)
class Shown:
    texts: tuple[str, ...]  # the main area's markdown, then its captions
    charts: tuple[str, ...]  # each line or bar chart's JSON, as the browser gets it


@functools.cache
def shown_at(page: str, extra: tuple, key: str, value: int) -> Shown:
    """The view at one value of a setting (lang en): run once per test session worker (--dist loadfile keeps this
    file on one) for both tests below, which read the same T 8 and 9."""
    from chart_reader import charts

    if page == "why-heads":
        before_any_training()
    at = run_app(page, lang="en", **{key: value}, **dict(extra))
    assert not at.exception
    texts = [m.value for m in at.main.markdown] + [c.value for c in at.main.caption]
    return Shown(tuple(texts), tuple(c.text for c in charts(at)))


@pytest.mark.app
@pytest.mark.parametrize("page,extra", list(PINS), ids=PIN_IDS)
def test_a_step_of_t_re_sends_no_code_table_or_formula_it_left_unchanged(page, extra):
    """A step of T changes some markdown elements; none of them may hold a code block, an HTML table or a formula
    that the step left as it was: that part goes in an element of its own, which the step leaves unchanged and the
    browser does not draw again (benchmarks/README.md, 2026-12-05: the walkthrough's fixed paragraphs, the positions
    kinds, the masks polarity's code, the kv-cache groups)."""
    texts = [shown_at(page, extra, "seq_len", T).texts for T in (8, 9)]
    assert len(texts[0]) == len(texts[1])
    kept = []
    for before, after in zip(*texts):
        if before != after:
            kept += [part[:60] for part in HEAVY.findall(before) if part in HEAVY.findall(after)]
    if (page, extra) in HEAVY_KEPT:
        assert kept, "nothing kept any more: take the view out of HEAVY_KEPT"
    else:
        assert not kept, f"{page} {extra}: a step of T re-sends {kept}"


@pytest.mark.app
@pytest.mark.parametrize("page,extra", list(PINS), ids=PIN_IDS)
def test_a_step_sends_a_chart_anew_only_when_its_data_changed(page, extra):
    """A chart whose data a step of T or of the seed leaves as it was is sent unchanged (the browser then does not
    draw it again): no chart goes out anew because of its file name alone (heads cost's parameters chart did)."""
    for key, values in (("seq_len", (8, 9)), ("seed", (1, 2))):
        before, after = (shown_at(page, extra, key, v).charts for v in values)
        assert len(before) == len(after)
        for b, a in zip(before, after):
            if b != a:
                b_spec, a_spec = json.loads(b), json.loads(a)
                file = b_spec.pop("file", None)
                a_spec.pop("file", None)
                assert b_spec != a_spec, f"{page} {extra}: a step of {key} re-sends {file} for its new name alone"


@pytest.mark.app
@pytest.mark.parametrize("extra", [e for e in WALK_VIEWS if dict(e).get("walk_view") != "present"], ids=str)
def test_the_cells_story_is_below_the_page_on_the_views_that_tell_it(extra):
    """The cell's story is in the fragment below the page (a step of a setting does not send it again while it is
    closed), above the downloads section, on exactly the views that tell it: the all-steps view and steps 4-8."""
    at = run_app("walkthrough", **dict(extra))
    assert not at.exception
    main = at._tree.children[0]
    below = main.children[sorted(main.children)[-1]]
    stack, keys = [page_block(at)], set()
    while stack:
        node = stack.pop()
        keys.add(str(getattr(node, "key", None)))
        stack += getattr(node, "children", {}).values()
    labels = [e.label for e in at.expander]
    story = i18n.t("walk.drill.title", "en")
    assert not {"walk_head", "walk_i", "walk_j", "walk_cellcharts"} & keys  # none of its widgets in the page
    tells = tail(extra) > 2
    assert (story in labels) == tells
    below_labels = [str(getattr(node, "label", "")) for node in below.children.values()]
    if tells:
        assert below_labels[0] == story and below_labels[-1] == i18n.t("export.title", "en")
