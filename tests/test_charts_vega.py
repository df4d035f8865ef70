"""charts/vega.py: the Positions page's lines against the distance, sent wide as float32 and worded in the spec."""

from __future__ import annotations

import numpy as np
import pandas as pd

from charts.vega import distance_lines
from i18n import t as tr


def test_distance_lines_send_float32_columns_and_word_the_series():
    x = np.arange(-3, 4)
    data, spec = distance_lines(x, {"lowest": x * 0.5, "highest": x * 0.25}, lambda key, **kw: tr(key, "zh", **kw))
    assert list(data) == ["x", "lowest", "highest"]
    assert all(col.dtype == np.float32 for col in data.values())
    np.testing.assert_array_equal(data["highest"], np.float32(x * 0.25))
    assert spec["transform"][0] == {"fold": ["lowest", "highest"], "as": ["series", "y"]}
    labels = spec["transform"][1]["from"]["data"]["values"]
    assert labels == [
        {"series": "lowest", "label": tr("pos.series.lowest", "zh")},
        {"series": "highest", "label": tr("pos.series.highest", "zh")},
    ]
    assert spec["encoding"]["color"]["sort"] == [tr("pos.series.lowest", "zh"), tr("pos.series.highest", "zh")]
    assert spec["encoding"]["x"]["title"] == tr("pos.axis.distance", "zh")
    assert spec["mark"]["point"] is True  # 7 points: a dot each


def test_the_fall_off_stays_small():
    """513 distances x 3 series: no dot per point, and the data a few KB (st.line_chart's long form was 67 KB)."""
    x = np.arange(513)
    data, spec = distance_lines(x, {"matched": x * 0.1, "expected": x * 0.2, "unrelated": x * 0.3}, lambda k, **kw: k)
    assert spec["mark"]["point"] is False
    assert pd.DataFrame(data).memory_usage(index=False).sum() == 4 * 513 * 4
