"""The charts an AppTest run drew, whichever way ui/charts.py drew them: plotly charts, and the heatmaps
the app's canvas renderer draws from a scene (core/canvas_chart.py, the component attention_lab.heatmap);
and the heatmaps of the chart route (ui/heatmaps.py, the component attention_lab.heatmaps): `heatmaps(at)`.

(Named chart_reader, not charts: `charts` is the top-level rendering package, and tests/ is on sys.path.)"""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np

from core import figures
from core.canvas_chart import layer_values
from core.scene_wire import header_text, unpack

CANVAS = "attention_lab.heatmap"
# A drawn chart in the browser, of either kind (Playwright's CSS reaches into the canvas's shadow root).
BROWSER_CHART = "[data-testid=stPlotlyChart], .al-heatmap, .al-chart"
HEATMAPS = "attention_lab.heatmaps"  # ui/heatmaps.py's component (static/heatmaps.js draws `.al-chart`)


@dataclass
class Chart:
    kind: str  # "plotly" | "canvas"
    spec: dict  # the plotly figure, or the canvas scene
    alt: str
    image_format: str
    file: str
    text: str  # the element's JSON: for "does it show X" checks
    config: dict | None = None  # a plotly chart's config (its modebar)

    @property
    def heatmaps(self) -> list[dict]:
        """The heatmap traces (plotly) or heat layers (canvas)."""
        if self.kind == "plotly":
            return [t for t in self.spec.get("data", []) if t.get("type") == "heatmap"]
        return [layer for layer in self.spec["layers"] if layer["type"] == "heat"]

    @property
    def traces(self) -> int:
        return len(self.spec.get("data", [])) if self.kind == "plotly" else len(self.spec["layers"])

    @property
    def subplots(self) -> int:
        if self.kind == "canvas":
            return 1
        return max(1, sum(1 for k in self.spec.get("layout", {}) if k.startswith("xaxis")))

    def z(self, index: int = 0) -> np.ndarray:
        """A heatmap's colour values as a 2-D array (NaN for empty cells)."""
        h = self.heatmaps[index]
        if self.kind == "canvas":
            return layer_values(h)
        z = h["z"]
        if isinstance(z, dict):  # plotly's typed array
            import base64

            shape = tuple(int(s) for s in str(z.get("shape", "")).split(",") if s.strip())
            arr = np.frombuffer(base64.b64decode(z["bdata"]), dtype=z["dtype"]).astype("float64")
            return arr.reshape(shape) if shape else arr
        return np.array([[np.nan if v is None else v for v in row] for row in z], dtype="float64")

    def cell_text(self, index: int) -> list[list[str]] | None:
        """The numbers printed in a heatmap's cells (None: none printed)."""
        h = self.heatmaps[index]
        if self.kind == "canvas":
            return h["text"]
        return h.get("text") if h.get("texttemplate") else None

    def stops(self, index: int) -> tuple:
        """A heatmap's colour scale as ((t, '#rrggbb'), ...), the same for both kinds of chart."""
        h = self.heatmaps[index]
        if self.kind == "canvas":
            return tuple((round(t, 6), c) for t, c in h["scale"])
        return stops(h.get("colorscale"))

    @property
    def meta(self) -> dict:
        return self.spec.get("layout", {}).get("meta") or {} if self.kind == "plotly" else {}

    @property
    def titles(self) -> list[str]:
        """The panel titles (plotly annotations, canvas notes)."""
        if self.kind == "canvas":
            return [n["text"] for n in self.spec["notes"]]
        return [a.get("text", "") for a in self.spec.get("layout", {}).get("annotations", [])]


def stops(colorscale) -> tuple:
    from core.canvas_chart import _hex

    scale = figures.go.Heatmap(colorscale=colorscale).colorscale
    return tuple((round(float(t), 6), _hex(c)) for t, c in scale)


def role(chart: Chart, index: int) -> str | None:
    """'weights' / 'signed' / 'mask' for a heatmap drawn with a palette's scale (either palette), else None."""
    by_stops = {stops(figures.scale(r, p)): r for p in figures.PALETTES for r in ("weights", "signed", "mask")}
    return by_stops.get(chart.stops(index))


def charts(at) -> list[Chart]:
    out = []
    for c in at.get("plotly_chart"):
        config = json.loads(c.proto.config)
        out.append(Chart("plotly", json.loads(c.proto.spec), c.proto.alt,
                         config["toImageButtonOptions"]["format"], config["toImageButtonOptions"]["filename"],
                         c.proto.spec, config))
    for c in at.get("bidi_component"):
        if c.proto.component_name != CANVAS:
            continue
        raw = c.proto.bytes or c.proto.json.encode()  # ui/charts.py sends a packed scene (core.scene_wire.payload)
        data = unpack(raw)
        out.append(Chart("canvas", data["scene"], data["alt"], data["format"], data["file"], header_text(raw)))
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
