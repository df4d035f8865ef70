"""Display options on the one chart route: palettes per role, numbers in the cells, table view, the accessible
name, the download's format and file name (lessons.heatmap.Heatmap -> charts/payload.py's header for heatmaps,
ui/linecharts.py and ui/heads_charts.py's plotly config for line and bar charts), ui.display's sanitize, and
every page under AppTest with every option in both languages."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from chart_reader import charts, heatmaps
from conftest import heatmap_tables, in_both_languages, run_app, tables

import i18n
from charts import palettes
from charts import table as tables_of
from charts.payload import file_name, payload, unpack
from lessons import masks_lab as lab
from lessons import scenario
from lessons import walkthrough as W
from lessons.heatmap import axis_labels, head_grid, text
from lessons.settings import Settings
from ui import display
from ui.heatmaps import words as worded

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def run_for(T=5, d_model=16, h=4, mask="causal"):
    return scenario.run(Settings(d_model, h, T, mask, 0, "en"))


def en(key, **kw):
    return i18n.t(key, "en", **kw)


def header_of(hm, **options) -> dict:
    return unpack(payload(hm, **options))[0]


def luminance(color: str) -> float:
    """WCAG relative luminance of '#rrggbb' (as static/heatmaps.js's luminance)."""
    rgb = [int(color[i : i + 2], 16) for i in (1, 3, 5)]
    lin = [(c / 255) / 12.92 if c / 255 <= 0.04045 else ((c / 255 + 0.055) / 1.055) ** 2.4 for c in rgb]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def sample(stops, t: float) -> str:
    """The colour at t of a header's scale, linear in RGB between the stops (static/heatmaps.js's lut)."""
    for (t0, a), (t1, b) in zip(stops, stops[1:]):  # noqa: B007 (the pair it stops at is used below)
        if t <= t1:
            break
    f = min(1.0, max(0.0, (t - t0) / (t1 - t0))) if t1 > t0 else 0.0
    ca, cb = ([int(c[i : i + 2], 16) for i in (1, 3, 5)] for c in (a, b))
    return "#" + "".join(f"{round(x + (y - x) * f):02x}" for x, y in zip(ca, cb))


# ---------------------------------------------------------------- palettes
def test_default_palette_is_viridis_for_weights_and_a_colour_blind_safe_diverging_scale_for_signed():
    """The payload of the walkthrough's weights and masked scores carries plotly's Viridis and reversed RdBu:
    the same stops plotly names (its own lists, read here), so nothing changed for a colour-blind reader."""
    from plotly.colors import diverging, sequential

    run = run_for()
    w = header_of(W.heads_heatmap(run, "weights", range(4), zrange=(0, 1)))
    s = header_of(W.heads_heatmap(run, "masked_scores", range(4), zrange=(-1, 1)))
    assert w["palette"] == s["palette"] == palettes.DEFAULT_PALETTE == "colorblind"
    assert (w["role"], s["role"]) == ("weights", "signed")
    viridis = [c.lower() for c in sequential.Viridis]
    assert [c for _, c in w["colours"]["scale"]] == viridis
    assert [t for t, _ in w["colours"]["scale"]] == pytest.approx([i / 9 for i in range(10)], abs=1e-5)
    rdbu_r = [
        f"#{int(r):02x}{int(g):02x}{int(b):02x}"
        for r, g, b in (c[c.index("(") + 1 : -1].split(",") for c in diverging.RdBu[::-1])
    ]
    assert [c for _, c in s["colours"]["scale"]] == rdbu_r
    # diverging: both ends dark, the middle (0) the lightest colour
    lum = [luminance(c) for _, c in s["colours"]["scale"]]
    assert max(lum) == lum[5] > 0.9 and lum[0] < 0.05 and lum[-1] < 0.05


@pytest.mark.parametrize("palette", palettes.PALETTES)
def test_weights_scales_order_values_by_lightness_alone(palette):
    """Readable without hue (colour-blind viewers, greyscale print): lightness is monotonic in the value, over
    the colours the renderer interpolates from the payload's stops."""
    scale = header_of(W.heads_heatmap(run_for(), "weights", [0], zrange=(0, 1)), palette=palette)["colours"]["scale"]
    lum = [luminance(sample(scale, i / 20)) for i in range(21)]
    steps = [b - a for a, b in zip(lum, lum[1:])]
    assert all(d > 0 for d in steps) or all(d < 0 for d in steps), lum
    assert abs(lum[-1] - lum[0]) > 0.5  # a wide contrast range: both ends distinct on a projector


def test_contrast_palette_has_no_pale_end_for_signed_values_and_a_visible_keep_colour():
    """Both ends of the projector's diverging scale are dark; the walkthrough mask's keep colour is not the
    page's white."""
    run = run_for()
    signed = header_of(W.heads_heatmap(run, "masked_scores", [0], zrange=(-1, 1)), palette="contrast")
    ends = signed["colours"]["scale"]
    assert luminance(ends[0][1]) < 0.05 and luminance(ends[-1][1]) < 0.1
    mask = header_of(W.mask_heatmap(run), palette="contrast")
    assert mask["role"] == "mask" and mask["colours"]["scale"][-1][0] == 1  # value 1 = keep
    assert 0.3 < luminance(mask["colours"]["scale"][-1][1]) < 0.8
    assert luminance(mask["colours"]["scale"][0][1]) < 0.05  # blocked: black


def test_masks_lab_heatmaps_draw_with_the_palette():
    """The lab's heatmaps (lessons.masks_lab) carry a role; the payload gives the palette's colours of it."""
    run = run_for()
    keep = run.mask[0, 0].bool()
    toks = run.tokens
    w = lab.weights_heatmap([run.trace.weights[0, 0]], toks, toks, titles=[None], name="w")
    m = lab.mask_heatmap(keep, "keep", toks, toks, title=None, name="m")
    for palette in palettes.PALETTES:
        header = header_of(w, palette=palette)
        assert header["palette"] == palette
        assert [tuple(s) for s in header["colours"]["scale"]] == [tuple(s) for s in palettes.scale("weights", palette)]
        states = header_of(m, palette=palette)["colours"]["states"]
        assert states == list(palettes.STATE_COLORS[palette][:2])
        assert luminance(states[0]) > luminance(states[1]) + 0.5  # keep light, blocked dark

    # Viridis is dark at 0, the projector greys are dark at 1 (dark = the renderer prints white on it:
    # luminance < 0.18 in static/heatmaps.js): the colours differ where they should
    def dark(palette):
        scale = header_of(w, palette=palette)["colours"]["scale"]
        return [luminance(sample(scale, t)) < 0.18 for t in (0.0, 1.0)]

    assert dark("colorblind") == [True, False] and dark("contrast") == [False, True]


# ---------------------------------------------------------------- numbers in the cells
@pytest.mark.app
def test_cell_numbers_reach_the_heads_grid_with_each_heads_exact_values():
    """The heads page's grid with "numbers in the cells": one chart, a panel per head, the flag in its header
    and each head's weights in its panel (the renderer prints them from these values)."""
    at = run_app("heads", lang="en", heads_tab="heads", seq_len=5, cell_numbers="true")
    assert not at.exception
    (grid,) = [hm for hm in heatmaps(at) if hm.header["role"] == "weights" and len(hm.arrays) == 4]
    assert grid.header["cell_numbers"] is True
    assert [p["title"] for p in grid.header["panels"]] == [f"{en('common.head')} {h}" for h in range(4)]
    run = scenario.run(Settings(64, 4, 5, "none", 0, "en"))
    for h in range(4):
        assert grid.values(h).shape == (5, 5)
        assert np.allclose(grid.values(h), run.trace.weights[0, h].numpy(), atol=5e-5)
    assert all(heatmaps(at)) and all(hm.header["cell_numbers"] is True for hm in heatmaps(at))
    off = run_app("heads", lang="en", heads_tab="heads", seq_len=5)
    assert [hm.header["cell_numbers"] for hm in heatmaps(off)] == [False] * len(heatmaps(at))


def test_blocked_scores_print_nothing_in_the_walkthrough_and_the_fill_in_the_masks_lab():
    """A blocked score is a hatched cell. The walkthrough sends it blocked without a mark: the renderer's
    paintNumbers skips it (its -1e9 is in the hover and the table). The masks lab marks it with the fill, which
    the cell prints (paintMarks) whatever the option."""
    run = run_for(T=5, mask="causal")
    hm = W.heads_heatmap(run, "masked_scores", range(2), zrange=(-1, 1))
    header, arrays = unpack(payload(hm, cell_numbers=True))
    assert header["cell_numbers"] is True and header["marks"] == []
    blocked = arrays[0]["blocked"]
    assert blocked[0, 4] and not blocked[4, 0] and int(blocked.sum()) == 10  # query 0 may not see key 4
    assert "marks" not in arrays[0]
    assert float(arrays[0]["values"][0, 4]) == -1e9  # the fill itself travels (hover, table)
    assert float(arrays[0]["values"][4, 0]) == pytest.approx(float(run.trace.masked_scores[0, 0, 4, 0]), abs=5e-5)

    keep = run.mask[0, 0].bool()
    lab_hm = lab.scores_heatmap(
        run.trace.masked_scores[0, 0], keep, "-1e9", run.tokens, run.tokens, title=None, name="s", zrange=(-1.0, 1.0)
    )
    header, arrays = unpack(payload(lab_hm, cell_numbers=True))
    assert header["marks"] == [{"cell": "-1e9", "hover": "-1e9"}]
    assert arrays[0]["marks"][0, 4] == 1 and arrays[0]["marks"][4, 0] == 0
    assert np.array_equal(arrays[0]["marks"] == 1, arrays[0]["blocked"])


# ---------------------------------------------------------------- table view
def test_table_view_gives_one_table_per_head_with_token_labels_and_exact_values():
    run = run_for(T=6)
    hm = W.heads_heatmap(run, "weights", [1, 3], zrange=(0, 1))
    tables = tables_of.tables(hm, worded(hm, en))
    assert [t.title for t in tables] == ["head 1", "head 3"]
    for table, h in zip(tables, [1, 3]):
        assert table.row_labels == table.col_labels == list(axis_labels(run.tokens))
        assert all(len(v.split(".")[1]) == hm.decimals == 4 for row in table.rows for v in row)
        assert torch.allclose(
            torch.tensor([[float(v) for v in row] for row in table.rows]), run.trace.weights[0, h], atol=5e-5
        )


def test_table_view_of_masked_scores_shows_the_fill_and_skips_overlays():
    run = run_for(T=5)
    keep = run.mask[0, 0].bool()
    hm = lab.scores_heatmap(
        run.trace.masked_scores[0, 0],
        keep,
        "-1e9",
        run.tokens,
        run.tokens,
        title=text("masks.fig.scores", h=0),
        name="s",
        zrange=(-1.0, 1.0),
    )
    (tab,) = tables_of.tables(hm, {"panels": ["s"]})  # the blocked cells print the fill, the kept their value
    assert tab.title == "s" and tab.rows[0][4] == "-1e9"
    assert tab.rows[0][0] == f"{float(run.trace.masked_scores[0, 0, 0, 0]):.4f}"
    band = W.matrix_heatmap(run, "q", zrange=(-1, 1), groups=True)  # the heads' colour strip is no table
    (band_table,) = tables_of.tables(band)
    assert torch.allclose(torch.tensor([[float(v) for v in row] for row in band_table.rows]), run.trace.q[0], atol=5e-5)


def test_table_view_and_spoken_name_give_every_head_of_a_grid():
    """h heads in one chart: a student still gets one table per head, and a masked head's table holds the real
    fill (-1e9), not a clipped colour; the accessible name counts the panels and names them."""
    run = run_for(T=5, mask="causal")
    hm = W.heads_heatmap(run, "masked_scores", [0, 2, 3], zrange=(-1, 1))
    w = worded(hm, en)
    tables = tables_of.tables(hm, w)
    assert [t.title for t in tables] == ["head 0", "head 2", "head 3"]
    for table, h in zip(tables, [0, 2, 3]):
        assert table.row_labels == table.col_labels == list(axis_labels(run.tokens))
        assert table.rows[0][4] == "-1000000000.0000"
        exact = run.trace.masked_scores[0, h]
        assert torch.allclose(torch.tensor([[float(v) for v in row] for row in table.rows]), exact, atol=5e-5)
    assert w["alt"] == en("display.alt.heatmap", n=3, rows=5, cols=5, names=" (head 0, head 2, head 3)")
    assert header_of(hm, words=w)["alt"] == w["alt"]


# ---------------------------------------------------------------- options and config
def test_display_sanitize_keeps_good_values_and_corrects_bad_ones():
    good, fixes = display.sanitize(
        {"palette": "contrast", "cell_numbers": "true", "table_view": False, "image_format": "SVG"}
    )
    assert good == display.Display("contrast", True, False, "svg")
    assert [(f.key, f.reason) for f in fixes] == [("image_format", "spelling")]  # forgiven, and said
    bad, fixes = display.sanitize({"palette": "neon", "cell_numbers": "perhaps", "image_format": "gif"})
    assert bad == display.Display() and {f.key for f in fixes} == {"palette", "cell_numbers", "image_format"}
    assert display.sanitize({})[0] == display.Display()


def test_download_offers_the_chosen_format_and_a_file_name_per_chart():
    """Line and bar charts: the spec's format, file name and worded button label (static/plots.js's download).
    Heatmaps: the payload header's format, file name and worded button label (static/heatmaps.js's download)."""
    from charts import lines
    from charts.payload import file_name

    chart = lines.LineChart((lines.Series("s", (1, 2), (3, 4)),))
    for fmt, used in (("svg", "svg"), ("png", "png"), ("bmp", "png")):
        spec = lines.spec(chart, alt="a", file=file_name("weights head 0/../x"), image_format=fmt)
        assert (spec["format"], spec["file"]) == (used, "attention-lab-weights-head-0-..-x")
    assert file_name("") == "attention-lab-chart"
    hm = W.heads_heatmap(run_for(), "weights", range(4), zrange=(0, 1))
    for fmt, used in (("svg", "svg"), ("png", "png"), ("bmp", "png")):
        header = header_of(hm, image_format=fmt, words=worded(hm, en, fmt))
        assert (header["format"], header["file"]) == (used, "attention-lab-weights")
        assert header["download"] == f"Download this chart ({used.upper()})"


# ---------------------------------------------------------------- every page, every option, both languages
# Every page (heads and kv-cache twice: their heatmap tab and their plotly tab) -> (page, its URL extras)
VIEWS = {
    "home": (None, {}),
    "walkthrough": ("walkthrough", dict(walk_step="softmax")),
    "heads": ("heads", dict(heads_tab="heads")),
    "heads-cost": ("heads", dict(heads_tab="cost")),
    "masks": ("masks", {}),
    "real-model": ("real-model", {}),
    "why-heads": ("why-heads", {}),
    "quiz": ("quiz", {}),
    "positions": ("positions", {}),
    "softmax": ("softmax", {}),
    "kv-cache": ("kv-cache", {}),
    "kv-memory": ("kv-cache", dict(kv_tab="memory")),
}
HEATMAP_VIEWS = ("walkthrough", "heads", "masks", "real-model", "positions", "softmax", "kv-cache")
PLOTLY_VIEWS = ("heads-cost", "softmax", "kv-memory")  # line and bar charts (ui/linecharts)
OPTIONS = {
    "contrast+numbers+svg": dict(palette="contrast", cell_numbers="true", image_format="svg"),
    "tables": dict(table_view="true"),
}


@pytest.mark.app
@pytest.mark.parametrize(
    "view,option,lang",
    in_both_languages(VIEWS, OPTIONS),
    ids=[f"{o}-{lang}-{v}" for v, o, lang in in_both_languages(VIEWS, OPTIONS)],
)
def test_every_page_with_every_display_option(view, option, lang):
    params = OPTIONS[option]
    page, extra = VIEWS[view]
    at = run_app(page, lang=lang, seq_len=6, mask="custom", **params, **extra)
    assert not at.exception, at.exception
    for key, value in params.items():
        assert str(at.session_state[key]).lower() == value
    assert at.sidebar.header[-1].value == i18n.t("display.header", lang)
    palette = params.get("palette", palettes.DEFAULT_PALETTE)
    fmt = params.get("image_format", "png")
    routed = heatmaps(at)  # the chart route's heatmaps (charts/payload.py)
    for hm in routed:
        head = hm.header
        assert head["palette"] == palette and head["format"] == fmt
        assert head["cell_numbers"] is (params.get("cell_numbers") == "true")
        assert head["download"] == i18n.t("display.download", lang, fmt=fmt.upper())
        assert head["alt"] and head["file"] == file_name(head["name"])
        if head["role"] == "state":
            assert head["colours"]["states"][:2] == list(palettes.STATE_COLORS[palette][:2])
        else:
            assert head["colours"]["scale"] == [list(s) for s in palettes.scale(head["role"], palette)]
    drawn = charts(at)
    for chart in drawn:  # line and bar charts (static/plots.js draws every text at 13 px or more), never a heatmap
        assert chart.image_format == fmt and chart.spec["download"] == i18n.t("display.download", lang, fmt=fmt.upper())
        assert chart.file.startswith("attention-lab-")
        assert chart.heatmaps == [] and chart.traces >= 1 and chart.alt
    if option == "tables":
        assert not routed, "with the table view, no heatmap is drawn"
        if view in HEATMAP_VIEWS:
            frames = heatmap_tables(at) + [s.value for s in tables(at)]
            assert frames and sum(f.size for f in frames) >= 36  # the heatmaps' tables (6 x 6 and more)
        if view in PLOTLY_VIEWS:
            assert not drawn and tables(at)  # the line and bar charts' series as tables
    else:
        if view in HEATMAP_VIEWS:
            assert routed and all(hm.values(0).size for hm in routed)
        if view in PLOTLY_VIEWS:
            assert drawn


@pytest.mark.app
def test_every_chart_has_an_accessible_name_in_the_language():
    for lang in ("zh", "en"):
        at = run_app("walkthrough", lang=lang, walk_step="softmax", seq_len=5)
        alts = [c.alt for c in heatmaps(at)]
        assert alts and all(alts)
        head = i18n.t("common.head", lang)
        names = ", ".join(f"{head} {i}" for i in range(4))
        w = scenario.run(Settings(64, 4, 5, "none", 0, lang)).trace.weights[0]  # the four heads' weights
        (chart,) = heatmaps(at)
        lo, hi = chart.header["vmin"], chart.header["vmax"]  # the weights' own range (the lesson's: 0..largest)
        assert lo == 0.0 and hi == pytest.approx(float(w.max())) and chart.header["scale"] == "data"
        shown = i18n.t("display.range.data", lang, lo=f"{lo:.4f}", hi=f"{hi:.4f}")
        summary = i18n.t("display.alt.heatmap", lang, n=4, rows=5, cols=5, names=f" ({names})")
        assert f"{summary} {shown}" in alts  # the colour range the chart shows, said too


@pytest.mark.app
def test_a_chart_keeps_its_accessible_name_when_the_settings_change():
    """A changed alt remounts the chart in the browser: it must not carry the settings."""
    alts = [[c.alt for c in charts(run_app("heads", lang="en", num_heads=h, heads_tab="cost"))][:1] for h in (2, 4)]
    assert alts[0] == alts[1] == [f"{i18n.t('heads.cost.chart.params', 'en')}: {i18n.t('display.alt.chart', 'en')}"]


@pytest.mark.app
def test_display_options_survive_a_page_change_and_stay_in_the_url():
    at = run_app("walkthrough", palette="contrast", table_view="true")
    assert not heatmaps(at) and len(heatmap_tables(at)) >= 1
    at.query_params["heads_tab"] = "heads"  # a link to a section of /heads (the walkthrough drops what it does not own)
    at.switch_page("pages/heads.py").run()
    assert not at.exception
    assert at.session_state["palette"] == "contrast" and at.session_state["table_view"] is True
    assert at.query_params.get("palette") in ("contrast", ["contrast"])
    assert not heatmaps(at) and len(heatmap_tables(at)) >= 1  # the heads page honours the table view it inherited


@pytest.mark.app
def test_bad_display_values_in_the_url_are_corrected_with_a_notice():
    at = run_app("walkthrough", palette="neon", image_format="gif")
    assert not at.exception
    assert at.session_state["palette"] == palettes.DEFAULT_PALETTE and at.session_state["image_format"] == "png"
    notices = " ".join(w.value for w in at.main.warning)
    assert "neon" in notices and "gif" in notices
    drawn = heatmaps(at)
    assert drawn and all(hm.header["palette"] == "colorblind" and hm.header["format"] == "png" for hm in drawn)


@pytest.mark.app
def test_masks_lab_keyboard_toggle_changes_the_chosen_cell():
    at = run_app("masks", mask="custom", seq_len=4)
    at.selectbox(key="masks_cell_i").set_value(2)
    at.selectbox(key="masks_cell_j").set_value(3).run()
    before = at.text_input(key="masks_grid").value
    grid_before, _ = lab.parse_grid(before, 4, 4)
    at.button(key="masks_cell_toggle").click().run()
    assert not at.exception
    grid_after, _ = lab.parse_grid(at.text_input(key="masks_grid").value, 4, 4)
    changed = (grid_before != grid_after).nonzero().tolist()
    assert changed == [[2, 3]]


@pytest.mark.app
def test_the_table_view_prints_every_value_with_four_decimals():
    """Issue 20: the table view showed 0.491 beside 0.4044 (a float column drops trailing zeros) while the
    walkthrough's cell story said 0.1860; every value now has the 4 decimals of the hover and the story."""
    assert [tables_of.number(v, 4) for v in (0.491, 0.40444, 0.186, -1e9, 1, float("nan"), float("-inf"))] == [
        "0.4910",
        "0.4044",
        "0.1860",
        "-1000000000.0000",
        "1.0000",
        "",
        "-inf",
    ]
    at = run_app("walkthrough", lang="en", walk_step="softmax", table_view="true")
    assert not at.exception
    frames = heatmap_tables(at)
    assert frames
    cells = [str(v) for frame in frames for v in frame.to_numpy().ravel()]
    assert cells and all(len(c.split(".")[-1]) == 4 for c in cells if "." in c), cells[:20]
    assert sum("." in c for c in cells) >= 4 * 25 and not any(math.isnan(float(c)) for c in cells if "." in c)


def test_a_weights_chart_shows_its_own_range_or_0_to_1_and_says_which():
    """At T = 32 every weight is near 1/32: on 0..1 the rows look alike. The default colours span the weights'
    own smallest..largest (the lesson's own range where it gave one), "unit" gives 0..1; the header's range is the
    one drawn and the chart's range line says which. Other roles keep their range whatever the option."""
    run = scenario.run(Settings(512, 16, 32, "none", 0, "en"))
    blocked = np.zeros((32, 32), dtype=bool)
    blocked[:, 24:] = True  # as padding keys: hatched, their weights left out of the range
    hm = head_grid(
        "weights",
        run.trace.weights[0, :4],
        range(4),
        title=lambda i: text("walk.axis.head"),
        role="weights",
        vrange=(0.0, 1.0),
        row_axis=text("walk.axis.query"),
        col_axis=text("walk.axis.key"),
        blocked=blocked,
    )
    shown = np.stack([p.values[~blocked] for p in hm.panels])  # the visible cells only (blocked ones are hatched)
    lo, hi = float(shown.min()), float(shown.max())
    assert 0.0 <= lo < hi < 1.0
    for scale, want in (("data", (lo, hi)), ("unit", (0.0, 1.0))):
        w = worded(hm, en, "png", scale)
        header = header_of(hm, words=w, weight_scale=scale)
        assert (header["vmin"], header["vmax"]) == pytest.approx(want) and header["scale"] == scale
        said = en(f"display.range.{scale}", lo=f"{want[0]:.4f}", hi=f"{want[1]:.4f}")
        assert header["range"] == w["range"] == said and w["alt"].endswith(said)
    zh = worded(hm, lambda k, **kw: i18n.t(k, "zh", **kw), "png", "data")["range"]
    assert zh == i18n.t("display.range.data", "zh", lo=f"{lo:.4f}", hi=f"{hi:.4f}") and "颜色范围" in zh
    scores = W.heads_heatmap(run, "scores", [0, 1], zrange=(-3.0, 3.0))
    header = header_of(scores, words=worded(scores, en, "png", "data"), weight_scale="data")
    assert (header["vmin"], header["vmax"], header["scale"], header["range"]) == (-3.0, 3.0, "", "")
    assert display.sanitize({"weight_scale": "UNIT"})[0].weight_scale == "unit"
    assert [(f.key, f.given, f.used) for f in display.sanitize({"weight_scale": "zoom"})[1]] == [
        ("weight_scale", "zoom", "data")
    ]
    assert display.Display().weight_scale == "data"


def test_weights_that_fill_0_to_1_anyway_are_said_to_be_0_to_1():
    """Causal: row 0 sees one key, weight 1, and some cell is ~0: the data's own range is 0..1, and the chart
    says "0 - 1", not "(the weights' own ..., not 0 - 1)"."""
    run = scenario.run(Settings(64, 4, 8, "causal", 0, "en"))
    hm = head_grid(
        "weights",
        run.trace.weights[0],
        range(4),
        title=lambda i: text("walk.axis.head"),
        role="weights",
        vrange=(0.0, 1.0),
        row_axis=text("walk.axis.query"),
        col_axis=text("walk.axis.key"),
    )
    w = worded(hm, en, "png", "data")
    assert header_of(hm, words=w)["scale"] == "unit" and w["range"] == en("display.range.unit")
