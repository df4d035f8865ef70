"""Display options: palettes, numbers in cells, table view, readable fonts, chart download config
(core.figures + ui.display + ui.charts), and every page under AppTest with every option in both languages."""

from __future__ import annotations

import pytest
import torch
from chart_reader import charts
from chart_reader import heatmaps as chart_heatmaps
from chart_reader import heatmaps as route_heatmaps
from chart_reader import role as role_in
from chart_reader import stops as chart_stops
from conftest import run_app

import i18n
from core import figures
from core.accounting import totals_over_heads
from lessons import masks_lab as lab
from lessons import scenario
from lessons import walkthrough as W
from lessons.settings import Settings
from ui import display, heads_charts
from ui.charts import chart_config

pytestmark = pytest.mark.usefixtures("one_torch_thread")

LABELS = {k: k for k in ("token", "col", "query", "key", "head")}


def run_for(T=5, d_model=16, h=4, mask="causal"):
    return scenario.run(Settings(d_model, h, T, mask, 0, "en"))


def stops(colorscale) -> tuple:
    return figures._validated(colorscale)


def heatmaps(fig):
    return [t for t in fig.data if t.type == "heatmap"]


def all_figures(T=5, d_model=16, h=4):
    """One of every builder the pages draw heatmaps with."""
    run = run_for(T, d_model, h)
    toks = run.tokens
    weights = run.trace.weights[0]
    keep = torch.tril(torch.ones(T, T, dtype=torch.bool))
    return {
        "matrix": figures.matrix_figure(weights[0], toks, toks),
        "matrix_signed": figures.matrix_figure(run.trace.scores[0, 0], toks, toks, signed=True),
        "heads": figures.heads_figure(weights, range(h), toks, toks),
        # (the Heads page's W^Q blocks are drawn by the chart route now: lessons/heads.py, tests/test_heads.py)
    }


# ---------------------------------------------------------------- palettes
def test_default_palette_is_viridis_for_weights_and_a_colour_blind_safe_diverging_scale_for_signed():
    assert figures.DEFAULT_PALETTE == "colorblind"
    run = run_for()
    w = figures.matrix_figure(run.trace.weights[0, 0], run.tokens, run.tokens)
    s = figures.matrix_figure(run.trace.scores[0, 0], run.tokens, run.tokens, signed=True)
    assert stops(w.data[0].colorscale) == stops("Viridis")
    assert stops(s.data[0].colorscale) == stops("RdBu_r")


def luminance(color: str) -> float:
    from plotly.colors import hex_to_rgb, unlabel_rgb

    rgb = hex_to_rgb(color) if color.startswith("#") else unlabel_rgb(color)
    lin = [(c / 255) / 12.92 if c / 255 <= 0.04045 else ((c / 255 + 0.055) / 1.055) ** 2.4 for c in rgb]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


@pytest.mark.parametrize("palette", figures.PALETTES)
def test_weights_scales_order_values_by_lightness_alone(palette):
    """Readable without hue (colour-blind viewers, greyscale print): lightness is monotonic in the value."""
    from plotly.colors import sample_colorscale

    colors = sample_colorscale(
        [list(s) for s in stops(figures.scale("weights", palette))], [i / 20 for i in range(21)], colortype="rgb"
    )
    lum = [luminance(c) for c in colors]
    steps = [b - a for a, b in zip(lum, lum[1:])]
    assert all(d > 0 for d in steps) or all(d < 0 for d in steps), lum
    assert abs(lum[-1] - lum[0]) > 0.5  # a wide contrast range: both ends distinct on a projector


def test_contrast_palette_has_no_pale_end_for_signed_values_and_a_visible_keep_colour():
    """Both ends of the projector's diverging scale are dark; its keep grey is not the page's white."""
    signed = stops(figures.scale("signed", "contrast"))
    assert luminance(signed[0][1]) < 0.05 and luminance(signed[-1][1]) < 0.1
    assert luminance(figures.scale("mask", "contrast")[-1][1]) < 0.8


@pytest.mark.parametrize("name", ["matrix", "matrix_signed", "heads"])
def test_restyle_gives_every_role_the_palettes_scale_and_leaves_other_heatmaps(name):
    fig = all_figures()[name]
    before = [(figures.role_of(t), stops(t.colorscale)) for t in heatmaps(fig)]
    assert any(role for role, _ in before), "every page heatmap has a role"
    figures.restyle(fig, palette="contrast")
    for (role, old), trace in zip(before, heatmaps(fig)):
        want = stops(figures.scale(role, "contrast")) if role else old
        assert stops(trace.colorscale) == want


def test_masks_lab_heatmaps_draw_with_the_palette():
    """The lab's heatmaps (lessons.masks_lab) carry a role; the payload gives the palette's colours of it."""
    from charts import palettes
    from charts.payload import payload, unpack

    run = run_for()
    keep = run.mask[0, 0].bool() if run.mask is not None else torch.ones(run.trace.weights.shape[-2:], dtype=torch.bool)
    toks = run.tokens
    w = lab.weights_heatmap([run.trace.weights[0, 0]], toks, toks, titles=[None], name="w")
    m = lab.mask_heatmap(keep, "keep", toks, toks, title=None, name="m")
    for palette in figures.PALETTES:
        header, _ = unpack(payload(w, palette=palette))
        assert [tuple(s) for s in header["colours"]["scale"]] == [tuple(s) for s in palettes.scale("weights", palette)]
        header, _ = unpack(payload(m, palette=palette))
        assert header["colours"]["states"] == list(palettes.STATE_COLORS[palette][:2])  # keep light, blocked dark
    # Viridis is dark at 0, the projector greys are dark at 1: the colours differ where they should
    assert figures.dark_cells(torch.tensor([[0.0, 1.0]]), 0, 1, "Viridis") == [[True, False]]
    assert figures.dark_cells(torch.tensor([[0.0, 1.0]]), 0, 1, figures.scale("weights", "contrast")) == [[False, True]]


# ---------------------------------------------------------------- numbers in cells
def test_cell_numbers_print_the_exact_values_of_small_panels():
    run = run_for(T=5)
    fig = figures.heads_figure(run.trace.weights[0], range(4), run.tokens, run.tokens)
    assert all(t.texttemplate is None for t in heatmaps(fig))
    figures.restyle(fig, cell_text=True)
    (trace,) = heatmaps(fig)  # the heads are tiled into one trace; the gaps between panels print nothing
    assert trace.texttemplate == "%{text}"
    tiling = fig.layout.meta
    assert [tile["title"] for tile in tiling["tiles"]] == [f"head {h}" for h in range(4)]
    for h, tile in enumerate(tiling["tiles"]):
        rows = trace.text[tile["row"] : tile["row"] + 5]
        shown = torch.tensor([[float(v) for v in row[tile["col"] : tile["col"] + 5]] for row in rows])
        assert torch.allclose(shown, run.trace.weights[0, h], atol=0.005)
    gaps = [v for row in trace.text for v in row if v == ""]
    assert len(gaps) == len(trace.z) * len(trace.z[0]) - 4 * 25


def test_cell_numbers_skip_blocked_scores_and_show_kept_ones_exactly():
    """A blocked score is a hatched cell (the walkthrough, lessons.walkthrough: its -1e9 in the hover and the
    table); a clipped one (plotly route) prints the fill."""
    run = run_for(T=5, mask="causal")
    hm = W.heads_heatmap(run, "masked_scores", range(2), zrange=(-1, 1))
    assert hm.panels[0].blocked[0, 4] and not hm.panels[0].blocked[4, 0]  # query 0 may not see key 4
    assert float(hm.panels[0].values[4, 0]) == pytest.approx(float(run.trace.masked_scores[0, 0, 4, 0]), abs=5e-5)
    clipped = figures.matrix_figure(run.trace.masked_scores[0, 0], run.tokens, run.tokens, signed=True, zrange=(-1, 1))
    figures.restyle(clipped, cell_text=True)  # clipped for colour, not empty: the fill is printed
    assert heatmaps(clipped)[0].text[0][4] == "-1e+09"


def test_cell_numbers_only_where_the_cells_are_wide_enough_and_not_over_a_figures_own_numbers():
    for T, expected in ((12, "%{text}"), (13, None)):  # one panel: up to 12 x 12
        run = run_for(T=T)
        fig = figures.matrix_figure(run.trace.weights[0, 0], run.tokens, run.tokens)
        figures.restyle(fig, cell_text=True)
        assert heatmaps(fig)[0].texttemplate == expected
    for T, expected in ((8, "%{text}"), (12, "%{text}"), (13, None)):  # judged per panel (issue 20: 4 heads of
        run = run_for(T=T)  # 8 printed nothing at the defaults)
        fig = figures.heads_figure(run.trace.weights[0], range(4), run.tokens, run.tokens)
        figures.restyle(fig, cell_text=True)
        assert all(t.texttemplate == expected for t in heatmaps(fig))
        assert figures.cell_numbers_skipped(fig) is (expected is None)


@pytest.mark.parametrize(
    "value,text",
    [
        (0.25, "0.25"),
        (-1.3749, "-1.37"),
        (12.34, "12.3"),
        (123.4, "123"),
        (-1e9, "-1e+09"),
        (float("nan"), "NaN"),
        (float("-inf"), "-inf"),
        ("-1e+09", "-1e+09"),
        ("NaN", "NaN"),
    ],
)
def test_short_number(value, text):
    assert figures.short_number(value) == text


# ---------------------------------------------------------------- fonts
def font_sizes(node, path=""):
    """Every explicit font size in a figure dict (cell text layers excluded: they fit their cells)."""
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "size" and "font" in path.rsplit(".", 1)[-1] and isinstance(v, (int, float)):
                yield path, v
            else:
                yield from font_sizes(v, f"{path}.{k}")
    elif isinstance(node, (list, tuple)):
        for item in node:
            if not (isinstance(item, dict) and item.get("mode") == "text"):
                yield from font_sizes(item, path)


@pytest.mark.parametrize("palette", figures.PALETTES)
def test_no_text_smaller_than_13px_after_restyle(palette):
    for name, fig in all_figures(T=8).items():
        figures.restyle(fig, palette=palette)
        sizes = list(font_sizes(fig.to_plotly_json()))
        assert fig.layout.font.size >= 14, name
        small = [(p, s) for p, s in sizes if s < figures.MIN_FONT]
        assert not small, (name, small)


# ---------------------------------------------------------------- table view
def test_table_view_gives_one_table_per_head_with_token_labels_and_exact_values():
    from charts.table import tables as route_tables
    from ui.heatmaps import words

    run = run_for(T=6)
    hm = W.heads_heatmap(run, "weights", [1, 3], zrange=(0, 1))
    tables = route_tables(hm, words(hm, lambda key, **kw: i18n.t(key, "en", **kw)))
    assert [t.title for t in tables] == ["head 1", "head 3"]
    for table, h in zip(tables, [1, 3]):
        assert table.row_labels == table.col_labels == figures.axis_labels(run.tokens)
        assert torch.allclose(
            torch.tensor([[float(v) for v in row] for row in table.rows]), run.trace.weights[0, h], atol=5e-5
        )


def test_table_view_of_masked_scores_shows_the_fill_and_skips_overlays():
    run = run_for(T=5)
    keep = run.mask[0, 0].bool() if run.mask is not None else torch.ones(5, 5, dtype=torch.bool)
    from charts import table
    from lessons.heatmap import text

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
    (tab,) = table.tables(hm, {"panels": ["s"]})  # the blocked cells print the fill, the kept their value
    assert tab.title == "s" and tab.rows[0][4] == "-1e9"
    assert tab.rows[0][0] == f"{float(run.trace.masked_scores[0, 0, 0, 0]):.4f}"
    band = W.matrix_heatmap(run, "q", zrange=(-1, 1), groups=True)  # the heads' colour strip is no table
    (band_table,) = table.tables(band)
    assert torch.allclose(torch.tensor([[float(v) for v in row] for row in band_table.rows]), run.trace.q[0], atol=5e-5)


def test_table_view_and_spoken_name_cut_a_tiled_grid_of_heads_back_into_its_heads():
    """heads_figure draws h heads as ONE trace (speed); a student still gets one table per head, and a
    masked head's table holds the real fill, not the clipped colour."""
    run = run_for(T=5, mask="causal")
    fig = figures.heads_figure(
        run.trace.masked_scores[0], [0, 2, 3], run.tokens, run.tokens, zrange=(-1, 1), signed=True
    )
    assert len(heatmaps(fig)) == 1
    tables = figures.figure_tables(fig)
    assert [t[0] for t in tables] == ["head 0", "head 2", "head 3"]
    for (_, rows, cols, values), h in zip(tables, [0, 2, 3]):
        assert rows == cols == figures.axis_labels(run.tokens)
        exact = run.trace.masked_scores[0, h]
        assert values[0][4] == "-1e+09"
        assert torch.allclose(torch.tensor([[float(v) for v in row] for row in values]), exact, atol=5e-5)
    summary = figures.chart_summary(fig)
    assert (summary["panels"], summary["rows"], summary["cols"]) == (3, 5, 5)
    assert summary["names"] == ["head 0", "head 2", "head 3"]


def test_a_chart_without_heatmaps_has_no_table():
    fig = heads_charts.cost_figures(
        totals_over_heads(1, 4, 4, 8, masked=False),
        2,
        params_title="p",
        ops_title="o",
        memory_title="m",
        macs_name="macs",
        elementwise_name="e",
        axis_title="h",
    )[1]
    assert figures.figure_tables(fig) == []
    assert figures.chart_summary(fig)["kind"] == "chart"


# ---------------------------------------------------------------- options and config
def test_display_sanitize_keeps_good_values_and_corrects_bad_ones():
    good, fixes = display.sanitize(
        {"palette": "contrast", "cell_numbers": "true", "table_view": False, "image_format": "SVG"}
    )
    assert good == display.Display("contrast", True, False, "svg") and not fixes
    bad, fixes = display.sanitize({"palette": "neon", "cell_numbers": "perhaps", "image_format": "gif"})
    assert bad == display.Display() and {k for k, *_ in fixes} == {"palette", "cell_numbers", "image_format"}
    assert display.sanitize({})[0] == display.Display()


def test_chart_config_offers_the_modebar_and_the_chosen_format_at_scale_2():
    cfg = chart_config("svg", "weights head 0/../x")
    assert cfg["displayModeBar"] is not False and cfg["displaylogo"] is False
    assert cfg["toImageButtonOptions"] == {"format": "svg", "filename": "attention-lab-weights-head-0-..-x", "scale": 2}
    assert chart_config("bmp", "")["toImageButtonOptions"]["format"] == "png"


# ---------------------------------------------------------------- every page, every option, both languages
PAGES = [None, "walkthrough", "heads", "masks", "real-model", "why-heads", "quiz"]
OPTIONS = {
    "contrast+numbers+svg": dict(palette="contrast", cell_numbers="true", image_format="svg"),
    "tables": dict(table_view="true"),
}


@pytest.mark.parametrize("page", PAGES)
@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("option", list(OPTIONS))
def test_every_page_with_every_display_option(page, lang, option):
    params = OPTIONS[option]
    extra = {"walkthrough": dict(walk_step="softmax"), "heads": dict(heads_tab="heads")}.get(page, {})
    at = run_app(page, lang=lang, seq_len=6, mask="custom", **params, **extra)
    assert not at.exception, at.exception
    for key, value in params.items():
        assert str(at.session_state[key]).lower() == value
    assert at.sidebar.header[-1].value == i18n.t("display.header", lang)
    drawn = charts(at)
    routed = route_heatmaps(at)  # the chart route's heatmaps (walkthrough, heads, real heads)
    for chart in routed:
        assert chart.header["palette"] == "contrast" and chart.header["cell_numbers"] is True
        assert chart.header["format"] == "svg"
    for chart in drawn:
        if chart.kind == "plotly":
            assert chart.config["displayModeBar"] is not False
        assert chart.image_format == params.get("image_format", "png")
        for i in range(len(chart.heatmaps)):
            kind = role_in(chart, i)
            if option == "tables":
                assert kind is None, "with the table view, no heatmap is drawn"
            elif kind:
                assert chart.stops(i) == chart_stops(figures.scale(kind, "contrast"))
    if option == "tables" and page in ("walkthrough", "heads", "masks", "real-model"):
        assert len(at.dataframe) >= 2  # the heatmaps' tables
    routed = chart_heatmaps(at)  # the chart route's heatmaps (charts/payload.py)
    for hm in routed:
        assert hm.header["format"] == params.get("image_format", "png")
        assert hm.header["palette"] == params.get("palette", "colorblind")
        assert hm.header["cell_numbers"] is (params.get("cell_numbers") == "true")
    if option == "tables":
        assert not routed, "with the table view, no heatmap is drawn"
    if page in ("walkthrough", "heads", "masks", "real-model"):
        assert drawn or routed or option == "tables"
    if option == "tables":
        assert not routed, "with the table view, no heatmap is drawn"


def test_every_chart_has_an_accessible_name_in_the_language():
    for lang in ("zh", "en"):
        at = run_app("walkthrough", lang=lang, walk_step="softmax", seq_len=5)
        alts = [c.alt for c in route_heatmaps(at)]
        assert alts and all(alts)
        head = i18n.t("common.head", lang)
        names = ", ".join(f"{head} {i}" for i in range(4))
        assert i18n.t("display.alt.heatmap", lang, n=4, rows=5, cols=5, names=f" ({names})") in alts


def test_a_chart_keeps_its_accessible_name_when_the_settings_change():
    """A changed alt remounts the chart in the browser: it must not carry the settings."""
    alts = [[c.alt for c in charts(run_app("heads", lang="en", num_heads=h, heads_tab="cost"))][:1] for h in (2, 4)]
    assert alts[0] == alts[1] == [f"{i18n.t('heads.cost.title', 'en')}: {i18n.t('display.alt.chart', 'en')}"]


def test_display_options_survive_a_page_change_and_stay_in_the_url():
    at = run_app("walkthrough", palette="contrast", table_view="true")
    at.switch_page("pages/heads.py").run()
    assert not at.exception
    assert at.session_state["palette"] == "contrast" and at.session_state["table_view"] is True
    assert at.query_params.get("palette") in ("contrast", ["contrast"])


def test_bad_display_values_in_the_url_are_corrected_with_a_notice():
    at = run_app("walkthrough", palette="neon", image_format="gif")
    assert not at.exception
    assert at.session_state["palette"] == figures.DEFAULT_PALETTE and at.session_state["image_format"] == "png"
    notices = " ".join(w.value for w in at.main.warning)
    assert "neon" in notices and "gif" in notices


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


def test_the_table_view_prints_every_value_with_four_decimals():
    """Issue 20: the table view showed 0.491 beside 0.4044 (a float column drops trailing zeros) while the
    walkthrough's cell story said 0.1860; every value now has the 4 decimals of the hover and the story."""
    assert [figures.table_number(v) for v in (0.491, 0.40444, 0.186, -1e9, 1, float("nan"), float("-inf"))] == [
        "0.4910",
        "0.4044",
        "0.1860",
        "-1e+09",
        "1",
        "NaN",
        "-inf",
    ]
    at = run_app("walkthrough", lang="en", walk_step="softmax", table_view="true")
    assert not at.exception
    frames = [d.value for d in at.dataframe]
    assert frames
    cells = [str(v) for frame in frames for v in frame.to_numpy().ravel()]
    assert cells and all(len(c.split(".")[-1]) == 4 for c in cells if "." in c), cells[:20]
