"""What keeps the app fast, pinned (nothing here is timed: speed itself lives in benchmarks/).

Every element a step re-sends costs the browser a render, and some far more than others (a 32 x 9 st.table ~95 ms,
a plotly bar chart 46, st.tabs 15, one HTML table 15, a segmented control 1-2: benchmarks/README.md, issue 31). So
no view sends the expensive kinds (st.table, st.tabs, plotly, Vega), and the number of line and bar charts and
series each page emits at the largest settings is pinned as an upper bound. A change that adds charts must raise a
pin here on purpose (and be measured with benchmarks/bench_browser.py).
"""

from __future__ import annotations

import tomllib

import pytest
from chart_reader import charts, heatmaps
from conftest import ROOT, before_any_training, run_app

from lessons import url_keys as U
from lessons import walkthrough as W
from ui import navigation

SETTINGS = dict(d_model=64, num_heads=16, seq_len=8)

# (page, extra URL params) -> (charts, traces, subplots) at most, at d_model 512, T 32 and h = 1 or 64 (LARGEST).
PINS = {
    ("home", ()): (0, 0, 0),
    # Walkthrough: its heatmaps go through the chart route (ui/heatmaps.py, not counted here; one component a
    # heatmap: WALK_HEATMAPS below); pinned for the bytes
    ("walkthrough", ()): (0, 0, 0),
    ("walkthrough", (("walk_step", "softmax"),)): (0, 0, 0),  # the cell's story: text and a table
    ("walkthrough", (("walk_step", "softmax"), ("walk_cellcharts", "true"))): (0, 0, 0),  # its charts, asked for
    ("walkthrough", (("walk_view", "all"),)): (0, 0, 0),  # ten steps' text; one step's tensors
    ("walkthrough", (("walk_view", "all"), ("walk_step", "softmax"))): (0, 0, 0),
    ("walkthrough", (("walk_view", "present"), ("walk_step", "softmax"))): (0, 0, 0),
    ("walkthrough", (("walk_step", "mask"), ("mask", "causal"))): (0, 0, 0),  # mask grid; the heads' scores
    ("walkthrough", (("walk_step", "split"),)): (0, 0, 0),  # Q with its heads' columns marked; Q's heads
    ("walkthrough", (("walk_step", "mix"),)): (0, 0, 0),  # every head's output
    ("walkthrough", (("walk_step", "concat"),)): (0, 0, 0),
    ("heads", ()): (0, 0, 0),  # the shapes section: the flow diagram is HTML
    # Heads: its heatmaps go through the chart route (ui/heatmaps.py, not counted here); cost: two bar charts
    ("heads", (("heads_tab", "heads"),)): (0, 0, 0),  # the grid (one heatmap); the focus overview is HTML
    ("heads", (("heads_tab", "cost"),)): (3, 4, 3),  # parameters, operations (2 stacked series), memory
    ("heads", (("heads_tab", "timing"),)): (0, 0, 0),  # nothing measured yet
    ("heads", (("heads_tab", "slice"),)): (0, 0, 0),  # W^Q and W_i^Q: 2 heatmaps
    ("heads", (("heads_tab", "single"),)): (0, 0, 0),  # one heatmap: the one head, then the h heads
    # Masks lab: its heatmaps go through the chart route (ui/heatmaps.py; counted in the test below)
    ("masks", ()): (0, 0, 0),  # mask | masked scores | weights: three heatmaps
    ("masks", (("mask", "custom"),)): (0, 0, 0),  # the mask clickable (the hand-drawn grid)
    ("masks", (("masks_tab", "row"),)): (0, 0, 0),
    ("masks", (("masks_tab", "full"),)): (0, 0, 0),
    ("masks", (("masks_tab", "polarity"),)): (0, 0, 0),  # the polarity bug: two heatmaps of two panels (phones)
    # Real heads: the chart route too (not counted here); the ablation's bar chart is Streamlit's own
    ("real-model", ()): (0, 0, 0),  # the open tab: all 12 heads of a layer, one heatmap of 12 panels
    ("real-model", (("real_tab", "head"),)): (0, 0, 0),
    ("real-model", (("real_tab", "patterns"),)): (0, 0, 0),
    ("real-model", (("real_tab", "link"),)): (0, 0, 0),
    ("real-model", (("real_tab", "ablate"),)): (1, 2, 1),  # the change per token: two bar series (when asked)
    ("real-model", (("real_tab", "core"),)): (0, 0, 0),
    ("why-heads", ()): (0, 0, 0),  # nothing trained yet: the loss chart appears with results
    ("quiz", ()): (0, 0, 0),
    ("class", ()): (0, 0, 0),  # class mode: no chart (its distribution is HTML bars)
    # KV cache: its heatmaps go through the chart route (ui/heatmaps.py, not counted here); memory: one line chart
    ("kv-cache", ()): (0, 0, 0),
    ("kv-cache", (("kv_tab", "decode"),)): (0, 0, 0),
    ("kv-cache", (("kv_tab", "memory"),)): (1, 4, 1),
    ("kv-cache", (("kv_tab", "timing"),)): (0, 0, 0),  # nothing measured yet
    # Positions: heatmaps go through ui.heatmaps (not counted here: no plotly, no old canvas); pinned for the bytes
    ("positions", ()): (0, 0, 0),  # X, weights, output before/after: 3 heatmaps of 2 panels
    ("positions", (("pos_tab", "shuffle"), ("pos_causal", "true"))): (0, 0, 0),
    ("positions", (("pos_tab", "add"),)): (0, 0, 0),
    ("positions", (("pos_tab", "add"), ("pos_model", "real"))): (0, 0, 0),
    ("positions", (("pos_tab", "rope"),)): (2, 5, 2),  # 2 heatmaps, 2 line charts (2 + 3 series), one SVG
    ("positions", (("pos_tab", "rope"), ("pos_grid", "64"))): (2, 5, 2),  # the largest grid: ~62 KB
    ("positions", (("pos_tab", "learned"), ("pos_span", "512"))): (0, 0, 0),
    ("softmax", ()): (1, 3, 1),  # the variance line chart (the same for every h, T, d_model); the weights
    # heatmap goes by ui/heatmaps.py
    ("softmax", (("soft_tab", "max"),)): (0, 0, 0),  # two tables
    ("softmax", (("soft_tab", "tiles"),)): (0, 0, 0),  # heatmaps only (ui/heatmaps.py)
    ("softmax", (("soft_tab", "tiles"), ("soft_step", "1000"))): (0, 0, 0),  # the last step: + tiled | plain
}


def app_pages() -> list[str]:
    return [url or "home" for _, url, _ in navigation.PAGES]


def chart_counts(at) -> tuple[int, int, int]:
    drawn = charts(at)
    return len(drawn), sum(c.traces for c in drawn), sum(c.subplots for c in drawn)


def test_every_page_is_pinned():
    pinned = {page for page, _ in PINS}
    missing = [p for p in app_pages() if p not in pinned]
    assert not missing, f"pin the charts of {missing} in tests/test_speed_guards.py (and benchmark them)"


MAX_STEP_BYTES = 64 * 1024  # the target for one slider step at the largest settings
LARGEST = dict(d_model=512, seq_len=32)
# Every pinned view, and each step of the walkthrough (each draws other tensors).
BYTE_VIEWS = list(PINS) + [
    view for view in (("walkthrough", (("walk_step", n),)) for n in W.STEP_NAMES) if view not in PINS
]


# Drawn outside app.py's two fragments: a slider step never sends them again (the language, the display options).
NOT_ON_A_STEP = {"lang", *U.DISPLAY}


def page_bytes(at) -> tuple[int, list[tuple[str, int]]]:
    """What the page's elements weigh as Streamlit sends them (serialised protos, plus ~128 bytes of
    envelope each), and the biggest ones: an upper bound on any one step's bytes, which sends at most
    every element of app.py's fragments once (unchanged large ones go as a hash)."""
    total, big = 0, []

    def walk(node):
        nonlocal total
        children = getattr(node, "children", None)
        if children:
            for child in children.values():
                walk(child)
        elif (getattr(node, "key", None) or "").removesuffix("_shown") in NOT_ON_A_STEP:
            return
        elif getattr(node, "proto", None) is not None:
            size = node.proto.ByteSize()
            total += size + 128
            big.append((type(node).__name__, size))

    walk(at._tree)
    return total, sorted(big, key=lambda item: -item[1])[:3]


@pytest.mark.app
# A view's bytes are sums of per-head (h·T²) and per-d_k terms, so they are largest at h = 1 or h = 64; its charts
# and traces are most numerous at h = 64. One run of each view at each end checks all three things.
@pytest.mark.parametrize("h", [1, 64])
@pytest.mark.parametrize("page,extra", BYTE_VIEWS, ids=[f"{p}{''.join('-' + v for _, v in e)}" for p, e in BYTE_VIEWS])
def test_each_view_draws_few_charts_of_cheap_kinds_and_stays_under_the_step_byte_target(page, extra, h):
    """No slider step (num_heads, seq_len, d_model, the seed) can send more than the view holds: the
    whole view at d_model 512, T 32 must fit the 64 KB a step may cost (a classroom shares one Wi-Fi).

    A plotly heatmap costs the browser a newly mounted chart per step (3-6 frames); the chart route's canvas
    (ui/heatmaps.py, static/heatmaps.js) repaints in place. And each plotly chart, trace or subplot costs every
    redraw: their numbers are pinned."""
    if page == "why-heads":
        before_any_training()  # the pin is the page before any training
    at = run_app(page, **LARGEST, num_heads=h, **dict(extra))
    assert not at.exception
    total, big = page_bytes(at)
    assert total <= MAX_STEP_BYTES, f"{page} {extra} h={h}: {total / 1024:.1f} KB, biggest {big}"
    assert_cheap_kinds(at, page, extra)


def assert_cheap_kinds(at, page, extra) -> None:
    """The view's charts are within its pins, and of the cheap kinds only."""
    plotly_heatmaps = [c.file for c in charts(at) if c.heatmaps]
    assert not plotly_heatmaps, f"{page}: drawn as a line chart: {plotly_heatmaps} (use ui.heatmaps.show_heatmap)"
    if (page, extra) in PINS:
        n_charts, traces, subplots = chart_counts(at)
        max_charts, max_traces, max_subplots = PINS[(page, extra)]
        assert n_charts <= max_charts, f"{page}: {n_charts} charts (pinned {max_charts})"
        assert traces <= max_traces, f"{page}: {traces} traces (pinned {max_traces})"
        assert subplots <= max_subplots, f"{page}: {subplots} subplots (pinned {max_subplots})"
    # Issue 31: no st.table (one HTML table: ui/tables.py), no st.tabs (one segmented control: ui/sections.py), no
    # data grid, and every line or bar chart on the one route (static/plots.js): no plotly, no Vega.
    kinds = {name: len(at.get(name)) for name in ("table", "plotly_chart", "vega_lite_chart", "dataframe")}
    assert not any(kinds.values()), f"{page} {extra}: {kinds}"
    assert not at.tabs, f"{page} {extra}: st.tabs"


@pytest.mark.app
def test_heads_grid_on_the_heads_page_is_one_component_for_sixteen_heads():
    at = run_app("heads", **SETTINGS, heads_tab="heads")
    at.multiselect(key="heads_pick").set_value(list(range(16))).run()
    assert not at.exception
    (grid,) = heatmaps(at)  # one component, one panel per head
    assert [p["title"] for p in grid.header["panels"]] == [f"head {i}" for i in range(16)]


# (page, tab URL param, its views with heatmaps) of the pages moved to the chart route, and the heatmaps each draws
ROUTE_VIEWS = (
    ("heads", "heads_tab", "heads", 1),
    ("heads", "heads_tab", "slice", 2),
    ("heads", "heads_tab", "single", 1),
    ("real-model", "real_tab", "grid", 1),
    ("real-model", "real_tab", "head", 1),
)


@pytest.mark.app
@pytest.mark.parametrize("page,param,view,n", ROUTE_VIEWS, ids=[f"{p}-{v}" for p, _, v, _ in ROUTE_VIEWS])
def test_route_pages_build_no_plotly_figure_for_a_heatmap(monkeypatch, page, param, view, n):
    """Heads and Real heads describe their heatmaps as plain data (lessons.heatmap.Heatmap): at a new setting
    no plotly object is built for them (a figure is hundreds of validated objects), and each heatmap is
    one component (ui.heatmaps)."""
    import plotly.graph_objects as go

    from ui.cache import CACHE

    def refuse(*a, **k):
        raise AssertionError("a plotly object was built for a heatmap")

    for name in ("Figure", "Heatmap"):
        monkeypatch.setattr(go, name, refuse)
    CACHE.clear()  # a new setting: nothing cached (the server-wide cache lives in this process)
    seed = 4321
    text = "" if page == "heads" else f"Word {seed} and its heads."  # Real heads: a new sentence
    extra = {"real_text": text} if text else {}
    at = run_app(page, **SETTINGS, seed=seed, **{param: view}, **extra)
    assert not at.exception, at.exception
    assert len(heatmaps(at)) == n and not charts(at)


@pytest.mark.app
def test_a_rerun_that_changes_nothing_builds_no_heatmap_on_the_route_pages(monkeypatch):
    """Heads and Real heads build a heatmap's description once per inputs for the whole server (ui.cache.shared):
    another session on the same link builds none."""
    from lessons import heads as H
    from lessons import real_heads as R

    calls = []
    for module, name in ((H, "heads_heatmap"), (R, "grid_heatmap")):
        original = getattr(module, name)
        monkeypatch.setattr(module, name, lambda *a, _o=original, **k: calls.append(1) or _o(*a, **k))
    for page, extra in (
        ("heads", dict(heads_tab="heads", seed=4343)),
        ("real-model", dict(real_text="Cold heads 4343.")),
    ):
        first = run_app(page, **SETTINGS, **extra)
        assert not first.exception and heatmaps(first), page
        built = len(calls)
        assert built >= 1, page
        again = run_app(page, **SETTINGS, **extra)
        assert not again.exception
        assert [d.header for d in heatmaps(again)] == [d.header for d in heatmaps(first)]
        assert len(calls) == built, f"{page}: the second session built its heatmap again"


def test_no_full_garbage_collection_after_every_run():
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["runner"]["postScriptGC"] is False  # ~110 ms per rerun once torch is imported


# The walkthrough's views -> the heatmaps (chart-route components) each draws at SETTINGS: one per heatmap.
WALK_HEATMAPS = {
    (): ["x"],
    (("walk_step", "project"),): ["qkv"],  # q, k, v: one chart of three panels
    (("walk_step", "split"),): ["q", "q_heads"],  # Q with its heads' columns marked; a panel a head
    (("walk_step", "mask"), ("mask", "causal")): ["mask-causal", "masked_scores"],
    (("walk_step", "softmax"), ("walk_cellcharts", "true")): ["weights", "weights-head0", "qk", "mix"],
    (("walk_view", "all"), ("walk_step", "mix")): ["head_outputs"],
    (("walk_view", "present"), ("walk_step", "concat")): ["concat"],
}


@pytest.mark.app
@pytest.mark.parametrize(
    "extra", list(WALK_HEATMAPS), ids=["-".join(v for _, v in e) or "input" for e in WALK_HEATMAPS]
)
def test_the_walkthrough_builds_no_plotly_figure_and_draws_one_component_per_heatmap(monkeypatch, extra):
    """Issue 18: at a setting nobody opened (a new seed), the walkthrough builds no plotly figure for a heatmap
    (go.Figure and go.Heatmap raise) and sends each heatmap as one chart-route component."""
    import plotly.graph_objects as go

    def refuse(*args, **kwargs):
        raise AssertionError("the walkthrough built a plotly object")

    monkeypatch.setattr(go, "Figure", refuse)
    monkeypatch.setattr(go, "Heatmap", refuse)
    seed = 31000 + list(WALK_HEATMAPS).index(extra)  # seeds no other test uses: nothing cached
    at = run_app("walkthrough", **SETTINGS, seed=seed, **dict(extra))
    assert not at.exception, at.exception
    assert [d.header["name"] for d in heatmaps(at)] == WALK_HEATMAPS[extra]
    assert not charts(at)  # no plotly chart


@pytest.mark.app
def test_why_heads_draws_its_head_grids_as_data_one_component_each(monkeypatch):
    """Why many heads' trained-weights grids go by the chart route (lessons.why_heads.heads_heatmap ->
    ui.heatmaps.show_heatmap): no plotly heatmap is built for them, one component per model (h = 1, 2, 4), and
    the loss chart is the one line chart (ui.linecharts)."""
    import plotly.graph_objects as go
    from chart_reader import heatmaps

    def refuse(*args, **kwargs):
        raise AssertionError("a plotly heatmap was built")

    at = run_app("why-heads", lang="en", why_seed=90_077, why_steps=100)
    at.button(key="why_train").click().run()
    assert not at.exception
    monkeypatch.setattr(go, "Heatmap", refuse)
    at.query_params["why_tab"] = "heads"
    at.run()
    assert not at.exception
    grids = heatmaps(at)
    assert [len(g.arrays) for g in grids] == [1, 2, 4]
    assert [c.kind for c in charts(at)] == ["plots"] and not charts(at)[0].heatmaps  # the loss curves


@pytest.mark.app
@pytest.mark.parametrize(
    "extra,n_heatmaps",
    [
        (dict(), 3),
        (dict(mask="custom"), 3),
        (dict(mask="causal", masks_extra="padding", masks_batch="2"), 6),
        (dict(masks_tab="polarity"), 2),
        (dict(masks_tab="row"), 0),
    ],
)
def test_the_masks_lab_builds_no_plotly_figure_and_draws_one_component_per_heatmap(monkeypatch, extra, n_heatmaps):
    """Issue 18: the lab's heatmaps are data (lessons/masks_lab/), one ui.heatmaps component each; building a
    plotly figure at a new setting (a seed no other test uses) fails the run."""
    import plotly.graph_objects as go
    from chart_reader import heatmaps

    def refuse(*args, **kwargs):
        raise AssertionError("the masks lab built a plotly figure")

    for name in ("Figure", "Heatmap", "Scatter"):
        monkeypatch.setattr(go, name, refuse)
    at = run_app("masks", **SETTINGS, seed=7331 + n_heatmaps, **extra)
    assert not at.exception, at.exception
    assert not charts(at)  # no plotly chart
    drawn = heatmaps(at)
    assert len(drawn) == n_heatmaps
    assert len({d.header["name"] for d in drawn}) == n_heatmaps  # one component per heatmap
