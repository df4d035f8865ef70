"""Vega-Lite line charts for st.vega_lite_chart: the Positions page's score against distance (RoPE's diagonals and
the fall-off with distance), as (columns, spec).

Why not st.line_chart: it sends the data long (a row per point, each with its series' translated name): the
fall-off's 3 x 513 points weighed 67 KB, over the 64 KB a view may send. Here the data go wide as float32 with
neutral column names (~8 KB), and the spec folds them and words them (`pos.series.<name>`, looked up in a small
table of labels). Like the rest of the charts package: numpy only, never streamlit, plotly, pages or ui.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np

POINTS_MAX = 130  # a line with more points than this is drawn without a dot per point


def distance_lines(
    x: Sequence[float] | np.ndarray, series: Mapping[str, Sequence[float] | np.ndarray], t: Callable[..., str]
) -> tuple[dict[str, np.ndarray], dict]:
    """Several series against the distance: the columns (x and one float32 column per series, named by its
    neutral name) and the Vega-Lite spec that folds them into one line each, worded with `t`."""
    data = {
        "x": np.asarray(x, dtype=np.float32),
        **{name: np.asarray(y, dtype=np.float32) for name, y in series.items()},
    }
    labels = [{"series": name, "label": t(f"pos.series.{name}")} for name in series]
    spec = {
        "transform": [
            {"fold": list(series), "as": ["series", "y"]},
            {"lookup": "series", "from": {"data": {"values": labels}, "key": "series", "fields": ["label"]}},
        ],
        "mark": {"type": "line", "point": len(data["x"]) <= POINTS_MAX, "tooltip": True},
        "encoding": {
            "x": {"field": "x", "type": "quantitative", "title": t("pos.axis.distance")},
            "y": {"field": "y", "type": "quantitative", "title": t("pos.axis.score")},
            "color": {
                "field": "label",
                "type": "nominal",
                "title": None,
                "sort": [d["label"] for d in labels],
                "legend": {"orient": "bottom", "direction": "vertical", "labelLimit": 400},
            },
        },
    }
    return data, spec
