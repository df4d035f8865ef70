"""ui.heatmaps.show_heatmap in an AppTest run of tests/heatmap_app.py: one component per heatmap whose payload
holds the page's arrays exactly and the worded strings; the table view instead shows HTML tables printed
with the Heatmap's decimals; a click's state becomes a Selection."""

from __future__ import annotations

import numpy as np
import pytest
from chart_reader import heatmaps
from conftest import ROOT, heatmap_tables
from streamlit.testing.v1 import AppTest
from test_heatmaps_browser import TOKENS, arrays

APP = str(ROOT / "tests" / "heatmap_app.py")


def run(**params) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    for k, v in params.items():
        at.query_params[k] = v
    return at.run()


@pytest.mark.app
def test_payloads_carry_the_arrays_and_words():
    w, wide = arrays(3)
    at = run(seed="3")
    assert not at.exception
    drawn = heatmaps(at)
    assert len(drawn) == 2
    for h in range(4):  # compact: int16 codes of the printed numbers
        assert [[f"{c / 1e4:.4f}" for c in row] for row in drawn[0].arrays[h]["codes"].tolist()] == [
            [f"{float(v):.4f}" for v in row] for row in w[h].tolist()
        ]
    assert np.array_equal(drawn[1].values(0), wide)
    head = drawn[0].header
    assert head["row_axis"] == "query" and head["col_axis"] == "key" and head["decimals"] == 4
    assert head["labels"][0] == list(TOKENS) and head["clickable"] is True
    blocked = drawn[0].arrays[1]["blocked"]
    lo = min(float(w[h][~blocked].min() if h == 1 else w[h].min()) for h in range(4))  # visible cells only
    hi = max(float(w[h][~blocked].max() if h == 1 else w[h].max()) for h in range(4))
    assert (head["vmin"], head["vmax"], head["scale"]) == (pytest.approx(lo), pytest.approx(hi), "data")
    assert head["alt"] == (
        "head: heatmap, 4 panel(s) of 6×6 (head, head, head, head). Switch on “Tables instead "
        f"of heatmaps” in the sidebar to read the numbers. Colour range: {lo:.4f} – {hi:.4f} (the weights' own "
        "smallest to largest, not 0 – 1)"
    )
    assert head["range"] == head["alt"].split("numbers. ")[1]
    assert drawn[0].arrays[1]["blocked"][0, 3] and not drawn[0].arrays[1]["blocked"][3, 0]
    assert drawn[1].header["decimals"] == 3 and drawn[1].header["labels"] == []
    zh = heatmaps(run(lang="zh"))[0].header
    assert zh["row_axis"] == "查询" and zh["download"] == "下载这张图（PNG）" and zh["blocked_word"] == "被遮挡"


@pytest.mark.app
def test_table_view_prints_with_the_decimals():
    w, wide = arrays()
    at = run(table_view="true")
    assert not at.exception and not heatmaps(at)
    frames = heatmap_tables(at)
    assert len(frames) == 5
    assert frames[0].iloc[2, 5] == f"{float(w[0, 2, 5]):.4f}"
    assert list(frames[0].columns) == ["0:the", "1:cat", "2:sat", "3:on", "4:the", "5:mat"]
    assert frames[4].shape == (32, 512) and frames[4].iloc[17, 300] == f"{float(wide[17, 300]):.3f}"


@pytest.mark.app
def test_palette_and_cell_numbers_reach_the_payload():
    head = heatmaps(run(palette="contrast", cell_numbers="true", image_format="svg"))[0].header
    assert head["palette"] == "contrast" and head["cell_numbers"] is True and head["format"] == "svg"
    assert head["colours"]["scale"] == [[0.0, "#e6e6e6"], [1.0, "#000000"]]


def test_a_click_becomes_a_checked_selection():
    from test_charts import _heatmap

    from lessons.heatmap import Selection
    from ui.heatmaps import _selection

    hm = _heatmap()  # clickable, 2 panels of 5 x 7
    assert _selection(hm, {"panel": 1, "row": 4, "col": 6, "n": 3}) == Selection(1, 4, 6)
    for bad in (
        {"panel": 2, "row": 0, "col": 0},
        {"panel": 0, "row": 5, "col": 0},
        {"panel": 0, "row": 0, "col": -1},
        {"panel": "x", "row": 0, "col": 0},
        {"row": 0},
        None,
        [0, 0, 0],
    ):
        assert _selection(hm, bad) is None
    assert _selection(_heatmap(clickable=False), {"panel": 0, "row": 0, "col": 0}) is None
