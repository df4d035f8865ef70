"""The charts an AppTest run drew: `charts(at)` the plotly line and bar charts (ui/linecharts.py,
ui/heads_charts.py), `heatmaps(at)` the heatmaps of the one chart route (ui/heatmaps.py, the component
attention_lab.heatmaps, drawn by static/heatmaps.js).

(Named chart_reader, not charts: `charts` is the top-level rendering package, and tests/ is on sys.path.)"""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np

# A drawn chart in the browser (Playwright's CSS reaches into the component's shadow root).
BROWSER_CHART = "[data-testid=stPlotlyChart], .al-chart"
HEATMAPS = "attention_lab.heatmaps"  # ui/heatmaps.py's component (static/heatmaps.js draws `.al-chart`)


@dataclass
class Chart:
    """A plotly chart (a line or bar chart: no heatmap goes through plotly)."""

    kind: str  # "plotly"
    spec: dict  # the plotly figure
    alt: str
    image_format: str
    file: str
    text: str  # the element's JSON: for "does it show X" checks
    config: dict | None = None  # its config (its modebar)

    @property
    def heatmaps(self) -> list[dict]:
        """Plotly heatmap traces (there must be none: tests assert it)."""
        return [t for t in self.spec.get("data", []) if t.get("type") == "heatmap"]

    @property
    def traces(self) -> int:
        return len(self.spec.get("data", []))

    @property
    def subplots(self) -> int:
        return max(1, sum(1 for k in self.spec.get("layout", {}) if k.startswith("xaxis")))

    @property
    def meta(self) -> dict:
        return self.spec.get("layout", {}).get("meta") or {}


def charts(at) -> list[Chart]:
    out = []
    for c in at.get("plotly_chart"):
        config = json.loads(c.proto.config)
        out.append(
            Chart(
                "plotly",
                json.loads(c.proto.spec),
                c.proto.alt,
                config["toImageButtonOptions"]["format"],
                config["toImageButtonOptions"]["filename"],
                c.proto.spec,
                config,
            )
        )
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
