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
from core import heads as H
from core import scene_wire as wire
from core import walkthrough as W
from core.settings import Settings

LABELS = {"head": "head", "key": "key", "query": "query", "col": "column", "token": "token"}


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
        "walk input": W.matrix(run, "x", zrange=(-2, 2), labels=LABELS),
        "walk weights": W.per_head(run, "weights", [0, 1, 2, 3], zrange=(0, 1), labels=LABELS, signed=False),
        "walk masked scores": W.per_head(run, "masked_scores", [0, 1, 2, 3], zrange=(-2, 2), labels=LABELS, signed=True),
        "walk mask": W.mask_figure(run, LABELS),
        "walk drill": W.drill_figure(run, 1, 2, 1, LABELS),
        "walk split band": W.head_band_figure(run, "q", zrange=(-2, 2), labels=LABELS),
        "walk split heads": W.per_head(run, "q_heads", [0, 1, 2, 3], zrange=(-2, 2), labels=LABELS, signed=True,
                                       global_columns=True),
        "walk mix": W.per_head(run, "head_outputs", [0, 1], zrange=(-2, 2), labels=LABELS, signed=True),
        "weight blocks": H.weight_blocks_figure(H.full_weight(run.model, "q"), 16, 1, zrange=(-1, 1), rows_shown=16),
    }


def test_every_heatmap_figure_of_the_pages_becomes_a_scene(run):
    """(Every one the walkthrough, heads, masks, real-model and why-heads pages draw: none stays plotly.)"""
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


def test_autorange_reversed_puts_the_first_row_on_top(run):
    fig = W.matrix(run, "x", zrange=(-2, 2), labels=LABELS)  # y: autorange 'reversed'
    scene = cc.to_scene(fig)
    bottom, top = scene["y"]["range"]
    assert bottom > top  # plotly's [bottom, top]: the first token (position 0) at the top
    assert (bottom, top) == (5.5, -0.5)
    assert scene["x"]["type"] == "linear" and scene["x"]["range"] == [-0.5, 63.5]
    assert [p for p, _ in scene["x"]["ticks"]] == [0, 10, 20, 30, 40, 50, 60]


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
    # The walkthrough draws blocked cells empty with a dark layer on top that names the fill value: the
    # scores layer's own text for them can never show, so none is sent.
    walk = cc.to_scene(W.per_head(run, "masked_scores", [0, 1], zrange=(-2, 2), labels=LABELS, signed=True))
    scores, blocked = [layer for layer in walk["layers"] if layer["type"] == "heat"]
    assert scores["custom"] == {"z": True, "fmt": ".4f"} and "z4" in scores
    assert blocked["hover"].endswith("-1e+09") and "levels" in blocked


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


def sent(fig) -> int:
    """Bytes of a figure's scene as the component gets it (packed, before the chart's alt and name)."""
    return sum(len(part) for part in wire.pack(cc.to_scene(fig)))


def test_largest_settings_stay_within_the_byte_target():
    """d_model 512, T 32: what a changed chart sends must keep a slider step under 64 KB (benchmarks). A
    32 x 512 matrix is 16,384 int16 ten-thousandths (32 KB), the few values beyond 3.2767 sparse beside them."""
    big = scenario.run(Settings(512, 16, 32, "causal", 0, "en"))
    x = W.matrix(big, "x", zrange=(-3, 3), labels=LABELS)
    assert "z4" in heat(cc.to_scene(x)) and sent(x) < 36_000
    assert sent(W.head_band_figure(big, "concat", zrange=(-3, 3), labels=LABELS)) < 42_000  # concat: + its band
    grid = W.per_head(big, "masked_scores", list(range(8)), zrange=(-3, 3), labels=LABELS, signed=True)
    assert sent(grid) < 36_000  # 8 heads x 32 x 32 + the layer of blocked cells
    for h in (1, 4, 16, 64):  # the split step at d_model 512: the owners' band, and a page of head slices
        run_h = scenario.run(Settings(512, h, 32, "none", 0, "en"))
        strip = W.head_band_figure(run_h, "q", zrange=(-3, 3), labels=LABELS, values=False)
        panels = W.per_head(run_h, "q_heads", list(range(min(h, 4))), zrange=(-3, 3), labels=LABELS, signed=True,
                            global_columns=True)
        assert sent(strip) < 12_000 and sent(strip) + sent(panels) < 42_000, (h, sent(strip), sent(panels))


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


def test_a_packed_scene_reads_back_exactly_and_sends_a_repeated_row_once(run):
    big = scenario.run(Settings(512, 16, 32, "none", 0, "en"))
    scene = cc.to_scene(W.head_band_figure(big, "q", zrange=(-3, 3), labels=LABELS))
    text, blobs = wire.pack(scene)
    band = json.loads(text)["layers"][0]  # the head band: a few identical rows of head numbers
    assert band["zi"]["rows"] == [0] * band["rows"] and band["zi"]["$b"][1] == 2 * 512
    data = wire.payload(text, blobs, {"alt": "X", "file": "f"})
    assert data[:4] == wire.MAGIC and json.loads(text)["layers"][1]["z4"]["$b"][0] % 4 == 0
    (n,) = struct.unpack("<I", data[4:8])
    start = len(data) - len(blobs)  # the blobs come last, at a multiple of 4 right after the header
    assert start % 4 == 0 and start - (8 + n) < 4 and data[start:] == blobs
    assert json.loads(wire.header_text(data))["alt"] == "X"
    back = wire.unpack(data)
    assert back["alt"] == "X" and back["scene"] == json.loads(json.dumps(scene))  # every array, every field
    assert len(data) < 0.8 * len(json.dumps(scene))  # raw bytes, not base64 text


def test_click_targets_on_every_cell_travel_as_their_grid():
    """The walkthrough's clickable weights at T = 32: 1,024 invisible markers, [row, col] each."""
    big = scenario.run(Settings(512, 16, 32, "causal", 0, "en"))
    fig = W.drill_figure(big, 0, 3, 2, LABELS)
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


def test_split_heads_name_their_columns_of_d_model(run):
    """The split step: head i's panel holds columns i*d_k .. of Q; hover and tick labels say which."""
    fig = W.per_head(run, "q_heads", [0, 1, 2, 3], zrange=(-2, 2), labels=LABELS, signed=True, global_columns=True)
    scene = cc.to_scene(fig)
    layer = heat(scene)
    assert layer["hover"] == "token %{y}<br>column %{customdata}<br>%{z:.4f}"
    import base64

    cols = np.frombuffer(base64.b64decode(layer["custom"]["num16"]), dtype="<i2").reshape(layer["rows"], layer["cols"])
    first = fig.layout.meta["tiles"][1]["col"]  # head 1's first column in the tiling
    assert cols[0, first] == 16 and layer["custom"]["fmt"] == "int"  # d_model 64 / h 4: head 1 starts at 16
    labels = dict((p, t) for p, t in scene["x"]["ticks"])
    assert labels[first] == "16"
    band = cc.to_scene(W.head_band_figure(run, "q", zrange=(-2, 2), labels=LABELS))
    assert len(band["shapes"]) == 3 and [n["text"] for n in band["notes"]] == ["0", "1", "2", "3"]


def test_a_head_grid_at_t32_keeps_axis_titles_and_every_token_for_the_renderer_to_thin():
    """Issue 20: at seq_len 32 the panels lost query / key and their token labels (dropped above 16)."""
    from core import walkthrough as W
    from core.figures import heads_figure

    toks = [f"w{i}" for i in range(32)]
    fig = heads_figure(torch.rand(8, 32, 32), range(8), toks, toks, x_title="key", y_title="query")
    scene = cc.to_scene(fig)
    assert scene["x"]["title"] == "key" and scene["y"]["title"] == "query"
    assert len(scene["y"]["ticks"]) == 2 * 32 and len(scene["x"]["ticks"]) == 4 * 32  # 2 rows, 4 columns of panels
    assert [t for _, t in scene["x"]["ticks"][:3]] == ["0:w0", "1:w1", "2:w2"]
    assert W.heads_per_page(32) == 8 == W.heads_per_page(8)  # 8 heads a page at any T (was 4 above T = 12)
