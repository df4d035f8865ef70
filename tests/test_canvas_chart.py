"""core.canvas_chart: every heatmap figure the pages draw becomes a scene that says the same as the plotly
figure (values, positions, ranges, colours, hover, click targets); anything else stays plotly."""

from __future__ import annotations

import json
import math
import struct

import numpy as np
import plotly.graph_objects as go
import pytest
import torch
from plotly.subplots import make_subplots

from core import canvas_chart as cc
from core import figures, scenario
from core import scene_wire as wire
from core.settings import Settings



@pytest.fixture(scope="module")
def run():
    return scenario.run(Settings(64, 4, 6, "causal", 0, "en"))


def builders(run):
    """One figure of every kind a page shows as a heatmap (name -> figure)."""
    w = run.trace.weights[0]
    return {
        "matrix": figures.matrix_figure(w[0], run.tokens, run.tokens, x_title="key", y_title="query"),
        "matrix clickable": figures.matrix_figure(w[0], run.tokens, run.tokens, clickable=True),
        "heads grid": figures.heads_figure(w, [0, 1, 2, 3], run.tokens, run.tokens, x_title="key", y_title="query"),
        # (the Heads page's W^Q blocks moved to the chart route: lessons/heads.weight_blocks_heatmap, tests/test_heads.py)
    }


def test_every_heatmap_figure_of_the_pages_becomes_a_scene(run):
    """(Every one the heads, masks, real-model and why-heads pages draw: none stays plotly. The walkthrough's
    heatmaps are the chart route's now: lessons/walkthrough.py, tests/test_walkthrough.py.)"""
    for name, fig in builders(run).items():
        scene = cc.to_scene(fig)
        assert scene is not None, name
        assert json.loads(json.dumps(scene)) == scene, name  # plain JSON: what the component receives
        assert scene["height"] == fig.layout.height, name


def test_figures_it_does_not_draw_stay_plotly(run):
    bars = go.Figure(go.Bar(x=[1, 2], y=[3, 4]))
    subplots = make_subplots(rows=1, cols=2)
    subplots.add_trace(go.Heatmap(z=[[1, 2]]), row=1, col=1)
    subplots.add_trace(go.Heatmap(z=[[1, 2]]), row=1, col=2)
    shapes = go.Figure(go.Heatmap(z=[[1, 2]]))
    shapes.add_shape(type="circle", x0=0, x1=1, y0=0, y1=1)  # lines and outlines are drawn, not these
    lines = go.Figure([go.Heatmap(z=[[1, 2]]), go.Scatter(x=[0, 1], y=[0, 1], mode="lines")])
    arrow = go.Figure(go.Heatmap(z=[[1, 2]]))
    arrow.add_annotation(x=0, y=0, text="here")  # plotly draws an arrow by default
    uneven = go.Figure(go.Heatmap(z=[[1, 2, 3]], x=[0, 1, 5]))
    for fig in (bars, subplots, shapes, lines, arrow, uneven, go.Figure()):
        assert cc.to_scene(fig) is None


def heat(scene, i=0):
    return [layer for layer in scene["layers"] if layer["type"] == "heat"][i]


def test_values_shape_and_nan_survive_exactly(run):
    fig = figures.heads_figure(run.trace.weights[0], [0, 1, 2], run.tokens, run.tokens)
    layer = heat(cc.to_scene(fig))
    z = cc.layer_values(layer)
    want = np.asarray(fig.data[0].z, dtype="float32")
    assert z.shape == want.shape
    assert np.array_equal(np.isnan(z), np.isnan(want))  # the gaps between panels stay empty
    # the hover prints %{z:.4f}: every cell prints the same digits as the figure's own value
    assert [f"{v:.4f}" for v in z[~np.isnan(z)]] == [f"{v:.4f}" for v in want[~np.isnan(want)]]


def test_positions_and_ranges_are_plotlys(run):
    """heads_figure: category axes (one per tiled column/row), a reversed y range above the first row."""
    fig = figures.heads_figure(run.trace.weights[0], [0, 1, 2, 3], run.tokens, run.tokens)
    scene = cc.to_scene(fig)
    layer = heat(scene)
    assert (layer["x0"], layer["dx"], layer["y0"], layer["dy"]) == (0.0, 1.0, 0.0, 1.0)
    assert scene["x"]["range"] == list(fig.layout.xaxis.range) and scene["y"]["range"] == list(fig.layout.yaxis.range)
    assert scene["x"]["type"] == scene["y"]["type"] == "category"
    assert scene["x"]["categories"] == [cc._clean(c) for c in fig.data[0].x]  # what the hover prints for %{x}
    # each head's title sits over its panel's middle column, as plotly places the annotation
    tiles = fig.layout.meta["tiles"]
    assert [n["x"] for n in scene["notes"]] == [t["col"] + (6 - 1) / 2 for t in tiles]
    assert [n["text"] for n in scene["notes"]] == [f"head {h}" for h in range(4)]


def test_colour_scale_is_the_traces_in_hex(run):
    fig = figures.matrix_figure(run.trace.weights[0, 0], run.tokens, run.tokens)
    figures.restyle(fig, palette="contrast")
    stops = heat(cc.to_scene(fig))["scale"]
    assert stops == [[0.0, "#e6e6e6"], [1.0, "#000000"]]  # the contrast palette's weights scale
    viridis = heat(cc.to_scene(figures.matrix_figure(run.trace.weights[0, 0], run.tokens, run.tokens)))["scale"]
    assert viridis[0] == [0.0, "#440154"] and viridis[-1] == [1.0, "#fde725"]


def test_hover_templates_and_exact_values_for_clipped_cells(run):
    """Masked scores: blocked cells are clipped for colour; their hover text (customdata) says -1e+09."""
    m = run.trace.masked_scores[0]  # (h, T, T), causal: -1e9 above the diagonal
    fig = figures.heads_figure(m, [0, 1], run.tokens, run.tokens, signed=True, x_title="key", y_title="query")
    layer = heat(cc.to_scene(fig))
    assert layer["hover"] == "query %{y}<br>key %{x}<br>%{customdata}"  # plotly's <extra> box dropped
    custom = layer["custom"]
    nums = cc.decode_f32(custom["num"]).reshape(layer["rows"], layer["cols"])
    texts = {int(k): v for k, v in custom["text"].items()}
    k = 0 * layer["cols"] + 1  # row 0, key 1: blocked by the causal mask
    assert texts[k] == "-1e+09"
    kept = nums[1, 0]  # row 1, key 0: kept, its exact score as the hover prints it (4 decimals)
    assert kept == pytest.approx(round(float(m[0, 1, 0]), 4), abs=1e-7)
    assert len(texts) <= layer["rows"] * layer["cols"] - layer["rows"]  # numbers go as floats, not as text


def test_cell_numbers_and_click_targets(run):
    fig = figures.matrix_figure(run.trace.weights[0, 0], run.tokens, run.tokens, clickable=True)
    figures.restyle(fig, cell_text=True)
    scene = cc.to_scene(fig)
    layer = heat(scene)
    assert layer["text"][0][0] == figures.short_number(float(run.trace.weights[0, 0, 0, 0]))
    assert scene["clickable"]
    targets = next(layer for layer in scene["layers"] if layer["type"] == "marks")
    assert targets["opacity"] == 0 and targets["custom"][7] == [1, 1]  # T = 6: row 1, column 1
    assert targets["hover"].endswith("%{text}") and len(targets["text"]) == 36


def test_nice_ticks():
    assert cc.nice_ticks(-0.5, 63.5) == [0, 10, 20, 30, 40, 50, 60]
    assert cc.nice_ticks(-0.5, 511.5) == [0, 100, 200, 300, 400, 500]
    assert cc.nice_ticks(0, 1, 5) == [0, 0.2, 0.4, 0.6, 0.8, 1.0]
    assert cc.nice_ticks(-0.5, 31.5, 4) == [0, 10, 20, 30]
    assert cc.nice_ticks(3, 3) == [3]
    assert all(math.isfinite(v) for v in cc.nice_ticks(-1e-9, 1e-9))


def test_values_beyond_int16_and_rounding_ties_print_as_python_prints_them():
    z = np.arange(64, dtype="float64").reshape(8, 8) * 0.0137 - 0.4
    z[0, :4] = [3.5, -7.123456, 0.03125, -0.03125]  # beyond int16, and two exact ties (312.5 ten-thousandths)
    z[1, 1] = np.nan
    layer = heat(cc.to_scene(go.Figure(go.Heatmap(z=z, hovertemplate="%{z:.4f}"))))
    assert "z4" in layer and set(layer["z4x"]) == {"0", "1", "2", "3"}
    got = cc.layer_values(layer)
    assert [f"{v:.4f}" for v in got.reshape(-1)] == [f"{v:.4f}" for v in z.reshape(-1)]
    many = np.full((4, 4), 5.25)  # all beyond int16: float32 is smaller than a sparse list
    assert "z" in heat(cc.to_scene(go.Figure(go.Heatmap(z=many, hovertemplate="%{z:.4f}"))))


def test_whole_numbers_with_an_exact_hover_go_as_int16():
    layer = heat(cc.to_scene(go.Figure(go.Heatmap(z=[[0, 1, 2], [3, 4, np.nan]], hovertemplate="head %{z}"))))
    assert "zi" in layer and np.array_equal(cc.layer_values(layer), [[0, 1, 2], [3, 4, np.nan]], equal_nan=True)
    half = heat(cc.to_scene(go.Figure(go.Heatmap(z=[[0.5, 1]], hovertemplate="%{z}"))))
    assert "z" in half  # not whole: exact float32


def test_a_packed_scene_reads_back_exactly():
    big = scenario.run(Settings(512, 16, 32, "none", 0, "en"))
    scene = cc.to_scene(figures.heads_figure(big.trace.scores[0], range(8), big.tokens, big.tokens, signed=True))
    text, blobs = wire.pack(scene)
    data = wire.payload(text, blobs, {"alt": "X", "file": "f"})
    (n,) = struct.unpack("<I", data[4:8])
    start = len(data) - len(blobs)  # the blobs come last, at a multiple of 4 right after the header
    assert data[:4] == wire.MAGIC and start % 4 == 0 and start - (8 + n) < 4 and data[start:] == blobs
    assert json.loads(wire.header_text(data))["alt"] == "X"
    back = wire.unpack(data)
    assert back["alt"] == "X" and back["scene"] == json.loads(json.dumps(scene))  # every array, every field
    assert len(data) < 0.8 * len(json.dumps(scene))  # raw bytes, not base64 text


def test_click_targets_on_every_cell_travel_as_their_grid():
    """A clickable weights chart at T = 32: 1,024 invisible markers, [row, col] each."""
    big = scenario.run(Settings(512, 16, 32, "causal", 0, "en"))
    fig = figures.matrix_figure(big.trace.weights[0, 0], big.tokens, big.tokens, clickable=True)
    scene = cc.to_scene(fig)
    marks = next(layer for layer in scene["layers"] if layer["type"] == "marks" and layer["opacity"] == 0)
    assert len(marks["custom"]) == 32 * 32
    text, blobs = wire.pack(scene)
    packed = next(layer for layer in json.loads(text)["layers"] if layer["type"] == "marks" and layer["opacity"] == 0)
    assert packed["grid"]["rc"] and "custom" not in packed and len(packed["grid"]["x"]) == 32
    assert wire.unpack(wire.payload(text, blobs, {}))["scene"] == json.loads(json.dumps(scene))
    assert len(text) + len(blobs) < 16_000, len(text) + len(blobs)  # the hover texts are most of it
    odd = dict(marks, custom=[[0, 0]] * len(marks["custom"]))  # other customdata: kept as it is
    assert wire._ungrid(wire._grid(odd)) == odd and "custom" in wire._grid(odd)


def test_an_unsupported_value_is_refused_not_guessed():
    too_big = go.Figure(go.Heatmap(z=torch.zeros(300, 300).numpy()))
    assert cc.to_scene(too_big) is None  # > MAX_CELLS: plotly
    assert cc.to_scene(go.Figure(go.Heatmap(z=[[1, 2]], x=["a", "b", "c"]))) is None  # labels do not fit z


def test_a_head_grid_at_t32_keeps_axis_titles_and_every_token_for_the_renderer_to_thin():
    """Issue 20: at seq_len 32 the panels lost query / key and their token labels (dropped above 16)."""
    from core.figures import heads_figure

    toks = [f"w{i}" for i in range(32)]
    fig = heads_figure(torch.rand(8, 32, 32), range(8), toks, toks, x_title="key", y_title="query")
    scene = cc.to_scene(fig)
    assert scene["x"]["title"] == "key" and scene["y"]["title"] == "query"
    assert len(scene["y"]["ticks"]) == 2 * 32 and len(scene["x"]["ticks"]) == 4 * 32  # 2 rows, 4 columns of panels
    assert [t for _, t in scene["x"]["ticks"][:3]] == ["0:w0", "1:w1", "2:w2"]
