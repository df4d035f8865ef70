"""Line and bar charts through charts/lines.py + ui/linecharts.py (static/plots.js draws them): the numbers are the
lesson's, the display options apply (PNG/SVG download with a file name per chart, the table view with the series
as columns in one HTML table), and the accessible name says what the chart is."""

from __future__ import annotations

import numpy as np
import pytest
from chart_reader import charts
from conftest import run_app, tables

from charts import lines
from lessons import kv_cache as K
from lessons import softmax as L
from lessons.settings import Settings


@pytest.mark.app
def test_the_memory_chart_is_the_lessons_bytes_with_the_download_options():
    s = Settings(64, 8, 6, "none", 0, "en")
    at = run_app(
        "kv-cache",
        kv_tab="memory",
        lang="en",
        d_model=64,
        num_heads=8,
        seq_len=6,
        kv_heads=4,
        kv_model="mistral-7b",
        image_format="svg",
    )
    assert not at.exception
    (chart,) = charts(at)
    view = K.memory_view(s, 4, "mistral-7b", K.DEFAULT_CONTEXT)
    assert chart.kind == "plots" and chart.image_format == "svg"
    assert chart.file == "attention-lab-kv-cache-memory-mistral-7b"
    assert chart.spec["download"] == "Download this chart (SVG)"
    assert chart.alt == "3. KV-cache size against context length: chart."  # the chart's number, title, "chart."
    data = chart.series
    assert len(data) == len(view.lines)
    for trace, line in zip(data, view.lines):
        assert trace["x"] == view.contexts.tolist()
        assert np.allclose(trace["y"], line.bytes / 2**30, rtol=1e-4)  # sent at 5 significant digits
        assert trace["fmt"] == {"d": 3, "sep": True, "suffix": " GiB"}  # the hover: "32,768 → 1.000 GiB"
    assert chart.spec["x"]["type"] == "log" and chart.spec["y"]["type"] == "log"


@pytest.mark.app
def test_the_table_view_shows_the_series_instead_of_the_chart():
    s = Settings(64, 4, 8, "none", 0, "zh")
    at = run_app("softmax", lang="zh", table_view="true")
    assert not at.exception
    assert not charts(at)  # no chart: the table
    vc = L.variance_curve(s)
    import i18n

    frame = next(f.value for f in tables(at) if i18n.t("softmax.scale.chart.measured", "zh") in list(f.value.columns))
    assert [int(v) for v in frame.iloc[:, 0]] == vc.d_ks.tolist()
    assert list(frame.columns)[1:] == [i18n.t(f"softmax.scale.chart.{k}", "zh") for k in ("line", "measured", "scaled")]
    assert np.allclose(frame.iloc[:, 2].astype(float).to_numpy(), np.round(vc.variance, 4))
    assert np.allclose(frame.iloc[:, 3].astype(float).to_numpy(), np.round(vc.scaled_variance, 4))


@pytest.mark.app
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_variance_chart_is_worded_in_the_page_language(lang):
    at = run_app("softmax", lang=lang)
    assert not at.exception
    (chart,) = charts(at)
    import i18n

    assert [tr["name"] for tr in chart.series] == [
        i18n.t(f"softmax.scale.chart.{k}", lang) for k in ("line", "measured", "scaled")
    ]
    assert chart.spec["title"] == i18n.t("softmax.scale.chart.title", lang)
    assert chart.file == "attention-lab-qk-variance-seed0" and chart.image_format == "png"


def test_the_loss_chart_leaves_the_guessing_line_out_of_the_table():
    t = lambda key, **kw: key  # noqa: E731
    from lessons.why_heads import Curve

    chart = lines.loss_chart([Curve("h = 1", 1, [2.0, 1.0, 0.5])], steps=3, chance=2.3, t=t)
    assert lines.table(chart) == ("why.loss.x", [1, 2, 3], {"h = 1": [2.0, 1.0, 0.5]})
    spec = lines.spec(chart, alt="a", file="f")
    assert spec["series"][0]["hover"] is False and "hover" not in spec["series"][1]  # the guide line: no hover


def test_the_rope_distance_lines_are_told_apart_and_worded():
    """Issue 29 item 4: the lowest and highest of each diagonal coincide under RoPE; drawn in two colours and two
    strokes (a wide pale line under a dark dashed one) with the legend at the chart's top (static/plots.js)."""
    import i18n

    x = np.arange(-3, 4)
    chart = lines.distance_chart(x, {"lowest": x * 0.5, "highest": x * 0.5}, lambda k, **kw: i18n.t(k, "zh", **kw))
    low, high = chart.series
    assert (low.name, high.name) == (i18n.t("pos.series.lowest", "zh"), i18n.t("pos.series.highest", "zh"))
    assert low.color != high.color and (low.dash, high.dash) == ("", "dash") and low.width > high.width
    assert chart.x_title == i18n.t("pos.axis.distance", "zh") and low.markers  # 7 points: a dot each
    spec = lines.spec(chart, alt="a", file="f")
    assert spec["series"][0]["y"] == [float(v) for v in x * 0.5]
    many = lines.distance_chart(np.arange(513), {"matched": np.arange(513) / 7}, lambda k, **kw: k)
    assert not many.series[0].markers  # 513 points: a line without dots
    sent = lines.spec(many, alt="a", file="f")["series"][0]
    assert len(sent["x"]) <= lines.SPEC_POINTS + 1 and sent["x"][0] == 0 and sent["x"][-1] == 512  # ends kept
    assert sent["y"][1] == pytest.approx(sent["x"][1] / 7, rel=1e-4)  # 5 significant digits
    assert len(lines.table(many)[1]) == 513  # the table view keeps every point


@pytest.mark.app
def test_the_positions_page_draws_its_lines_on_the_one_route():
    at = run_app("positions", pos_tab="rope", lang="en")
    assert not at.exception and not at.get("vega_lite_chart")
    drawn = charts(at)
    assert [c.file for c in drawn] == ["attention-lab-rope-by-distance", "attention-lab-rope-falloff"]
    assert all(c.alt and c.spec["download"] for c in drawn)
    assert sum(len(json) for json in (c.text for c in drawn)) < 64_000  # a step's bytes
