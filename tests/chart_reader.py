"""The charts an AppTest run drew: `charts(at)` the line and bar charts (ui/linecharts.py: the component
attention_lab.plots, drawn by static/plots.js), `heatmaps(at)` the heatmaps (ui/heatmaps.py, the component
attention_lab.heatmaps, drawn by static/heatmaps.js).

(Named chart_reader, not charts: `charts` is the top-level rendering package, and tests/ is on sys.path.)"""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np

# A drawn chart in the browser (Playwright's CSS reaches into the component's shadow root).
BROWSER_CHART = ".al-plot, .al-chart"
HEATMAPS = "attention_lab.heatmaps"  # ui/heatmaps.py's component (static/heatmaps.js draws `.al-chart`)
PLOTS = "attention_lab.plots"  # ui/linecharts.py's component (static/plots.js draws `.al-plot`)


@dataclass
class Chart:
    """A line or bar chart as the browser gets it: charts.lines.spec's JSON."""

    kind: str  # "plots"
    spec: dict
    text: str  # the element's JSON: for "does it show X" checks
    key: str = ""

    @property
    def alt(self) -> str:
        return self.spec["alt"]

    @property
    def image_format(self) -> str:
        return self.spec["format"]

    @property
    def file(self) -> str:
        return self.spec["file"]

    @property
    def series(self) -> list[dict]:
        return self.spec["series"]

    @property
    def traces(self) -> int:
        return len(self.spec["series"])

    @property
    def subplots(self) -> int:
        return 1  # one chart a component

    @property
    def heatmaps(self) -> list[dict]:
        """Heatmaps drawn as a line or bar chart (there must be none: tests assert it)."""
        return [d for d in self.spec["series"] if d.get("kind") not in ("line", "bar")]


def charts(at) -> list[Chart]:
    out = []
    for c in at.get("bidi_component"):
        if c.proto.component_name != PLOTS:
            continue
        out.append(Chart("plots", json.loads(c.proto.json), c.proto.json, getattr(c.proto, "id", "")))
    return out


@dataclass
class Drawn:
    """A heatmap of the chart route as the browser gets it: the payload's header (charts/payload.py) and
    per panel its arrays ({"values": float32 (rows, cols), "blocked": bool when sent})."""

    header: dict
    arrays: list[dict]
    key: str

    @property
    def alt(self) -> str:
        return self.header["alt"]

    def values(self, panel: int = 0) -> np.ndarray:
        return self.arrays[panel]["values"]


def heatmaps(at) -> list[Drawn]:
    """The chart route's heatmaps an AppTest run drew, in page order."""
    from charts.payload import unpack as unpack_heatmap

    out = []
    for c in at.get("bidi_component"):
        if c.proto.component_name != HEATMAPS:
            continue
        header, arrays = unpack_heatmap(c.proto.bytes)
        out.append(Drawn(header, arrays, getattr(c.proto, "id", "")))
    return out
