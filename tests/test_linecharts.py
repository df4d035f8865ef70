"""Line charts through charts/lines.py + ui/linecharts.py (KV cache memory, Softmax's variance): the numbers are
the lesson's, the display options apply (PNG/SVG download with a file name per chart, the table view with the
series as columns), and the accessible name says what the chart is."""

from __future__ import annotations

import numpy as np
import pytest
from chart_reader import charts
from conftest import run_app

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
    assert chart.kind == "plotly" and chart.image_format == "svg"
    assert (
        chart.file == "attention-lab-kv-cache-memory-mistral-7b" and chart.config["toImageButtonOptions"]["scale"] == 2
    )
    assert chart.alt == "3. KV-cache size against context length: chart."  # as ui.charts worded it
    data = chart.spec["data"]
    assert len(data) == len(view.lines)
    for trace, line in zip(data, view.lines):
        assert trace["x"] == view.contexts.tolist()
        assert np.allclose(trace["y"], line.bytes / 2**30)
    assert chart.spec["layout"]["xaxis"]["type"] == "log" and chart.spec["layout"]["yaxis"]["type"] == "log"


@pytest.mark.app
def test_the_table_view_shows_the_series_instead_of_the_chart():
    s = Settings(64, 4, 8, "none", 0, "zh")
    at = run_app("softmax", lang="zh", table_view="true")
    assert not at.exception
    assert not at.get("plotly_chart")  # no chart: the table
    vc = L.variance_curve(s)
    frame = at.dataframe[0].value
    assert list(frame.index) == vc.d_ks.tolist()
    import i18n

    assert list(frame.columns) == [i18n.t(f"softmax.scale.chart.{k}", "zh") for k in ("line", "measured", "scaled")]
    assert np.allclose(frame.iloc[:, 1].to_numpy(), np.round(vc.variance, 4))
    assert np.allclose(frame.iloc[:, 2].to_numpy(), np.round(vc.scaled_variance, 4))


@pytest.mark.app
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_variance_chart_is_worded_in_the_page_language(lang):
    at = run_app("softmax", lang=lang)
    assert not at.exception
    (chart,) = charts(at)
    import i18n

    assert [tr["name"] for tr in chart.spec["data"]] == [
        i18n.t(f"softmax.scale.chart.{k}", lang) for k in ("line", "measured", "scaled")
    ]
    assert chart.spec["layout"]["title"]["text"] == i18n.t("softmax.scale.chart.title", lang)
    assert chart.file == "attention-lab-qk-variance-seed0" and chart.image_format == "png"


def test_the_loss_chart_leaves_the_guessing_line_out_of_the_table():
    t = lambda key, **kw: key  # noqa: E731
    from lessons.why_heads import Curve

    chart = lines.loss_chart([Curve("h = 1", 1, [2.0, 1.0, 0.5])], steps=3, chance=2.3, t=t)
    assert lines.table(chart) == ("why.loss.x", [1, 2, 3], {"h = 1": [2.0, 1.0, 0.5]})
    assert lines.figure(chart)["data"][0]["hoverinfo"] == "skip"
