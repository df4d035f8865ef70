"""A heatmap figure as a small, flat scene for the app's canvas renderer (static/heatmap.js).

Why: plotly draws a changed chart from scratch, and Streamlit mounts a new plotly chart whenever its
figure changes; a heatmap slider step cost the browser 3-6 animation frames (benchmarks/README.md).
The canvas renderer paints the same cells, labels, titles, hover text and click targets in about a
millisecond and updates the chart in place. The builders keep making plotly figures (core/figures.py
and friends: the table view, the accessible name and the tests read them); `to_scene` turns the
kinds of figure they make into the renderer's scene, and returns None for anything else (bars, lines,
subplots, shapes ...), which then stays a plotly chart.

What a scene supports, in plotly's own terms: one pair of axes (x, y), category or linear; heatmap
traces (z, x/y or x0/dx, zmin/zmax, colour scale, gaps, NaN = empty, hover template with %{x}, %{y},
%{z:.4f}, %{customdata}, %{text}, cell text, a colour bar); scatter traces of markers (click targets,
outlines, crosses) or of text; annotations in data or paper coordinates; the layout's height, title
and plot background. Positions are plotly's: a category's index on a category axis, the number on a
linear one; y ranges run [bottom, top] as plotly's do.
"""

from __future__ import annotations

import base64
import math
import re
from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.colors import convert_colors_to_same_type, unlabel_rgb

SUPPORTED_LAYOUT = {"xaxis", "yaxis", "height", "title", "annotations", "shapes", "plot_bgcolor", "margin", "meta",
                    "font", "showlegend", "clickmode", "hovermode", "dragmode", "template", "width", "paper_bgcolor"}
MAX_CELLS = 40_000  # a larger heatmap stays a plotly chart (none of the app's is: 32 x 512 = 16,384)
_TAGS = re.compile(r"<(?!br\s*/?>)[^>]+>")


def _f32(values: np.ndarray) -> str:
    return base64.b64encode(np.ascontiguousarray(values, dtype="<f4").tobytes()).decode()


def _hex(color) -> str | None:
    """A plotly colour ('#abc', 'rgb(1,2,3)', 'rgba(...)', a name) as '#rrggbb' or 'rgba(r,g,b,a)'."""
    if color is None:
        return None
    text = str(color).strip()
    if text.startswith("#") and len(text) in (4, 7):
        if len(text) == 4:
            text = "#" + "".join(ch * 2 for ch in text[1:])
        return text.lower()
    if text.startswith("rgba"):
        return text.replace(" ", "")
    try:
        r, g, b = (int(round(float(v))) for v in unlabel_rgb(convert_colors_to_same_type([text], "rgb")[0][0]))
    except Exception:  # a CSS name plotly does not convert: the browser will
        return text
    return f"#{r:02x}{g:02x}{b:02x}"


def _stops(trace: dict) -> list[list]:
    """The trace's colour scale as [[t, '#rrggbb'], ...] (plotly stores a named scale as its stops)."""
    scale = trace.get("colorscale")
    if scale is None:  # none set: plotly's default template's (the app's figures always set one)
        scale = "Plasma"
    if isinstance(scale, str):
        scale = go.Heatmap(colorscale=scale).colorscale  # a name: resolve it to its stops
    stops = [[float(t), _hex(c)] for t, c in scale]
    if trace.get("reversescale"):
        stops = [[1 - t, c] for t, c in reversed(stops)]
    return stops


def _matrix(values) -> np.ndarray:
    """z / customdata as a 2-D float array (None -> NaN)."""
    if isinstance(values, np.ndarray) and values.dtype != object:
        return values.astype("float64")
    return np.array([[np.nan if v is None else v for v in row] for row in values], dtype="float64")


class _Axis:
    """The positions plotly gives values on one axis: categories in order of first appearance."""

    def __init__(self, layout_axis: dict) -> None:
        self.layout = layout_axis
        self.type = layout_axis.get("type")  # None: inferred from the first values, as plotly does
        self.categories: list = []
        self.index: dict = {}

    def note(self, values: Sequence) -> None:
        if self.type is None and len(values):
            self.type = "category" if isinstance(values[0], str) else "linear"
        if self.type == "category":
            index, cats = self.index, self.categories
            for v in values:
                if v not in index:
                    index[v] = len(cats)
                    cats.append(v)

    def pos(self, v) -> float:
        if self.type == "category" and v in self.index:
            return float(self.index[v])
        return float(v)  # a number on a category axis is an index (plotly's rule)


def _cells_axis(axis: _Axis, values, start, step, n: int) -> tuple[float, float] | None:
    """(first position, step) of a heatmap's n columns (or rows); None if they are not evenly spaced."""
    if values is None:
        return float(start if start is not None else 0), float(step if step is not None else 1)
    values = list(values)
    if len(values) != n:
        return None
    axis.note(values)
    pos = np.array([axis.pos(v) for v in values])
    if n == 1:
        return float(pos[0]), 1.0
    d = np.diff(pos)
    if d[0] == 0 or np.abs(d - d[0]).max() > 1e-9:
        return None
    return float(pos[0]), float(d[0])


def _custom(custom, z: np.ndarray, hovered: np.ndarray) -> dict | None:
    """customdata of a heatmap, compactly, for the cells a hover can show (`hovered`): None when there is none;
    {"z": True, "fmt": ".4f"} when it is z itself printed with 4 decimals (a clipped figure's kept cells);
    else numbers as float32 with how they print ('int' or '.4f'), and the cells whose text is not that
    printing (e.g. '-1e+09') as a sparse {flat index: text}."""
    if custom is None:
        return None
    arr = np.asarray(custom)
    if arr.shape != z.shape:
        return None
    if arr.dtype.kind in "iub":
        ints = np.where(hovered, arr, 0).reshape(-1)
        if ints.size and np.abs(ints).max() < 32767:  # key or column numbers: two bytes each
            return {"num16": base64.b64encode(ints.astype("<i2").tobytes()).decode(), "fmt": "int", "text": {}}
        return {"num": _f32(ints.astype("float64")), "fmt": "int", "text": {}}
    if arr.dtype.kind == "f":
        return {"num": _f32(np.where(hovered, arr, np.nan).reshape(-1)), "fmt": ".4f", "text": {}}
    flat, shown = arr.reshape(-1).astype(str), hovered.reshape(-1)
    nums = np.full(flat.shape, np.nan)
    text: dict[str, str] = {}
    for i in np.flatnonzero(shown).tolist():
        s = flat[i]
        try:
            x = float(s)
        except ValueError:
            text[str(i)] = s
            continue
        if f"{x:.4f}" == s:
            nums[i] = x
        else:
            text[str(i)] = s
    zf = z.reshape(-1)
    if not text and np.array_equal(np.round(zf[shown], 4), nums[shown]):
        return {"z": True, "fmt": ".4f"}
    return {"num": _f32(nums), "fmt": ".4f", "text": text}


def _tenthousandths(z: np.ndarray) -> tuple[str, dict[str, int]] | None:
    """z as int16 ten-thousandths (-32768 = empty), exactly what a 4-decimal hover prints: half the bytes
    of float32. A value that does not fit (|z| >= 3.2767) or sits near a rounding tie (where int and
    float printing could differ) goes in a sparse {flat index: ten-thousandths as Python prints them};
    None when more than one cell in 16 would (then float32 is smaller)."""
    finite = ~np.isnan(z)
    with np.errstate(invalid="ignore"):
        scaled = np.where(finite, z, 0.0) * 1e4
        odd = finite & ((np.abs(scaled) >= 32767) | (np.abs(np.abs(scaled - np.trunc(scaled)) - 0.5) < 1e-6))
    if odd.sum() > z.size // 16:
        return None
    q = np.full(z.shape, -32768, dtype="<i2")
    fits = finite & ~odd
    q[fits] = np.round(scaled[fits]).astype("<i2")
    q[odd] = 0
    flat = z.reshape(-1)
    extra = {str(i): int(f"{float(flat[i]):.4f}".replace(".", "")) for i in np.flatnonzero(odd.reshape(-1)).tolist()}
    return base64.b64encode(q.tobytes()).decode(), extra


def _integers(z: np.ndarray) -> str | None:
    """z as int16 (-32768 = empty) when every value is a small whole number (head numbers, flags)."""
    finite = ~np.isnan(z)
    values = z[finite]
    if values.size and (np.abs(values).max() >= 32767 or (values != np.round(values)).any()):
        return None
    q = np.full(z.shape, -32768, dtype="<i2")
    q[finite] = values.astype("<i2")
    return base64.b64encode(q.tobytes()).decode()


def _levels(z: np.ndarray, zmin: float, zmax: float) -> str:
    """z as one byte per cell (255 = empty): all the colour needs, when the hover never prints z."""
    span = (zmax - zmin) or 1.0
    q = np.clip(np.round((z - zmin) / span * 254), 0, 254)
    q = np.where(np.isnan(z), 255, q).astype("uint8")
    return base64.b64encode(q.tobytes()).decode()


def _hover(trace: dict) -> str | None:
    """The trace's hover template, or None when it shows no hover."""
    info = trace.get("hoverinfo")
    if info in ("skip", "none"):
        return None
    template = trace.get("hovertemplate")
    if template is None:
        return None if info not in (None, "all") else "%{y}, %{x}: %{z}"
    return re.sub(r"<extra>.*?</extra>", "", str(template))


def _strings(matrix) -> list[list[str]]:
    return [["" if v is None else str(v) for v in row] for row in matrix]


def _heat(trace: dict, xa: _Axis, ya: _Axis) -> dict | None:
    z = _matrix(trace["z"]) if trace.get("z") is not None else None
    if z is None or z.ndim != 2 or z.size == 0 or z.size > MAX_CELLS:
        return None
    R, C = z.shape
    xs = _cells_axis(xa, trace.get("x"), trace.get("x0"), trace.get("dx"), C)
    ys = _cells_axis(ya, trace.get("y"), trace.get("y0"), trace.get("dy"), R)
    if xs is None or ys is None:
        return None
    zmin, zmax = trace.get("zmin"), trace.get("zmax")
    if zmin is None or zmax is None:
        finite = z[np.isfinite(z)]
        zmin = float(finite.min()) if zmin is None and finite.size else (0.0 if zmin is None else zmin)
        zmax = float(finite.max()) if zmax is None and finite.size else (1.0 if zmax is None else zmax)
    raw_text = trace.get("text")
    printed = raw_text is not None and bool(trace.get("texttemplate"))
    hover = _hover(trace)
    hoverongaps = trace.get("hoverongaps") is not False
    hovered = np.ones(z.shape, bool) if hoverongaps else ~np.isnan(z)  # an empty cell without hover: never shown
    if hover is None:
        hovered[:] = False
    custom = _custom(trace.get("customdata"), z, hovered)
    four = hover is not None and ("%{z:.4f}" in hover or (custom or {}).get("z")) and "%{z}" not in hover
    exact = hover is not None and "%{z" in hover
    if four and (q := _tenthousandths(z)) is not None:
        values = {"z4": q[0], "z4x": q[1]}  # what the hover prints, to the last digit
    elif exact and (ints := _integers(z)) is not None:
        values = {"zi": ints}
    elif exact or four:
        values = {"z": _f32(z)}
    else:
        values = {"levels": _levels(z, float(zmin), float(zmax))}  # colour only
    return {
        "type": "heat", "rows": R, "cols": C, "x0": xs[0], "dx": xs[1], "y0": ys[0], "dy": ys[1],
        **values, "zmin": float(zmin), "zmax": float(zmax), "scale": _stops(trace),
        "gap": [float(trace.get("xgap") or 0), float(trace.get("ygap") or 0)],
        "hover": hover, "hoverongaps": hoverongaps,
        "custom": custom,
        "text": _strings(raw_text) if printed else None,  # the numbers printed in the cells
        "hover_text": _strings(raw_text) if raw_text is not None and not printed else None,  # %{text} in the hover only
        "colorbar": trace.get("showscale") is not False,
    }


def _listed(values, n: int) -> list:
    if isinstance(values, (list, tuple, np.ndarray)):
        return list(values)
    return [values] * n


def _points(trace: dict, xa: _Axis, ya: _Axis) -> dict | None:
    mode = trace.get("mode") or "markers"
    if mode not in ("markers", "text") or trace.get("x") is None or trace.get("y") is None:
        return None
    xs, ys = list(trace["x"]), list(trace["y"])
    xa.note(xs)
    ya.note(ys)
    layer: dict = {"type": "marks" if mode == "markers" else "labels",
                   "x": [xa.pos(v) for v in xs], "y": [ya.pos(v) for v in ys],
                   "hover": _hover(trace), "custom": None, "cx": [str(v) for v in xs], "cy": [str(v) for v in ys]}
    custom = trace.get("customdata")
    if custom is not None:
        layer["custom"] = [list(v) if isinstance(v, (list, tuple, np.ndarray)) else v for v in custom]
    if trace.get("text") is not None:
        layer["text"] = [str(v) for v in _listed(trace["text"], len(xs))]
    if mode == "markers":
        m = trace.get("marker") or {}
        line = m.get("line") or {}
        layer.update(symbol=str(m.get("symbol") or "circle"),
                     size=float(m["size"]) if isinstance(m.get("size"), (int, float)) else 6.0,
                     color=_hex(m["color"]) if isinstance(m.get("color"), str) else None,
                     opacity=float(m["opacity"]) if isinstance(m.get("opacity"), (int, float)) else 1.0,
                     line=float(line.get("width") or 0),
                     line_color=_hex(line["color"]) if isinstance(line.get("color"), str) else None)
    else:
        font = trace.get("textfont") or {}
        layer.update(size=float(font.get("size") or 12),
                     colors=[_hex(c) or "#1b1f24" for c in _listed(font.get("color"), len(xs))])
    return layer


def _ticks(axis: _Axis, lo: float, hi: float) -> list[list]:
    """[[position, text], ...] the axis labels (none when hidden; the renderer thins overlapping ones)."""
    la = axis.layout
    if la.get("showticklabels") is False:
        return []
    if la.get("tickmode") == "array" or la.get("tickvals") is not None:
        vals = list(la.get("tickvals") or [])
        texts = list(la["ticktext"]) if la.get("ticktext") is not None else [str(v) for v in vals]
        return [[axis.pos(v), _clean(t)] for v, t in zip(vals, texts)]
    if axis.type == "category":
        return [[float(i), _clean(c)] for i, c in enumerate(axis.categories) if lo - 0.5 <= i <= hi + 0.5 and _clean(c)]
    return [[v, _number(v)] for v in nice_ticks(lo, hi, la.get("nticks") or 8)]


def _clean(text) -> str:
    """An axis label as shown: plotly's invisible padding (zero-width and thin spaces) removed."""
    return str(text).replace("\u200b", "").replace("\u2009", "").strip()


def _number(v: float) -> str:
    return str(int(round(v))) if abs(v - round(v)) < 1e-9 else f"{v:g}"


def nice_ticks(lo: float, hi: float, n: int = 8) -> list[float]:
    """About n round tick positions inside [lo, hi] (1, 2, 5 x 10^k steps, like plotly's)."""
    lo, hi = min(lo, hi), max(lo, hi)
    span = hi - lo
    if span <= 0 or not math.isfinite(span):
        return [lo]
    raw = span / max(1, n)
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 5, 10) if m * mag >= raw)
    first = math.ceil(lo / step) * step
    return [round(first + i * step, 10) for i in range(int((hi - first) / step + 1e-9) + 1)]


def _extent(layers: list[dict], axis: str) -> tuple[float, float] | None:
    """The data extent of the layers along 'x' or 'y' (heatmap cells by their edges)."""
    lo, hi = math.inf, -math.inf
    for layer in layers:
        if layer["type"] == "heat":
            first, d, n = (layer["x0"], layer["dx"], layer["cols"]) if axis == "x" else (layer["y0"], layer["dy"], layer["rows"])
            a, b = first - d / 2, first + d * (n - 0.5)
            lo, hi = min(lo, a, b), max(hi, a, b)
        elif layer[axis]:
            lo, hi = min(lo, min(layer[axis]) - 0.5), max(hi, max(layer[axis]) + 0.5)
    return (lo, hi) if lo < hi else None


def _range(la: dict, extent) -> list[float] | None:
    """The axis range as plotly would draw it: [left, right] for x, [bottom, top] for y (so a y axis
    runs bottom-up, the first category at the bottom, unless autorange is 'reversed')."""
    if la.get("range") is not None and la.get("autorange") in (None, False):
        return [float(la["range"][0]), float(la["range"][1])]
    if extent is None:
        return None
    lo, hi = extent
    return [hi, lo] if la.get("autorange") == "reversed" else [lo, hi]


def _title(obj: dict) -> str:
    title = obj.get("title")
    text = title.get("text") if isinstance(title, dict) else title
    return _TAGS.sub("", str(text)) if text else ""


def _annotation(a: dict, xa: _Axis, ya: _Axis) -> dict | None:
    if a.get("showarrow", True) is not False:  # plotly draws an arrow unless told not to
        return None
    xref, yref = a.get("xref") or "x", a.get("yref") or "y"
    if xref not in ("x", "paper") or yref not in ("y", "paper"):
        return None
    font = a.get("font") or {}
    return {"dx": float(a.get("xshift") or 0), "dy": float(a.get("yshift") or 0),
            "x": xa.pos(a.get("x", 0)) if xref == "x" else float(a.get("x", 0.5)),
            "y": ya.pos(a.get("y", 0)) if yref == "y" else float(a.get("y", 0.5)),
            "xref": xref, "yref": yref, "text": _TAGS.sub("", str(a.get("text") or "")),
            "xanchor": a.get("xanchor") or "center", "yanchor": a.get("yanchor") or "middle",
            "size": float(font.get("size") or 13), "color": _hex(font["color"]) if font.get("color") else None}


def _shape(sh: dict, xa: _Axis, ya: _Axis) -> dict | None:
    """A line or an outlined rectangle in data coordinates (block boundaries, a head's block)."""
    kind = sh.get("type") or "rect"
    if kind not in ("line", "rect") or (sh.get("xref") or "x") != "x" or (sh.get("yref") or "y") != "y":
        return None
    if sh.get("fillcolor") not in (None, "rgba(0,0,0,0)", "transparent"):
        return None
    line = sh.get("line") or {}
    return {"kind": kind, "x0": xa.pos(sh.get("x0", 0)), "x1": xa.pos(sh.get("x1", 0)),
            "y0": ya.pos(sh.get("y0", 0)), "y1": ya.pos(sh.get("y1", 0)),
            "color": _hex(line.get("color")) or "#444444", "width": float(line.get("width", 2))}


def _figure_dicts(fig: go.Figure) -> tuple[list[dict], dict]:
    """The figure's traces and layout as the plain dicts plotly keeps (reading plotly's property objects
    one by one costs ~1 ms an annotation); a figure without them goes through to_plotly_json."""
    data, layout = getattr(fig, "_data", None), getattr(fig, "_layout", None)
    if isinstance(data, list) and isinstance(layout, dict):
        return data, layout
    spec = fig.to_plotly_json()
    return spec.get("data", []), spec.get("layout", {})


def _every(items, convert) -> list | None:
    """convert() of each item, or None as soon as one cannot be drawn (the figure then stays plotly)."""
    out = []
    for item in items or ():
        done = convert(item)
        if done is None:
            return None
        out.append(done)
    return out


def to_scene(fig: go.Figure) -> dict | None:
    """The renderer's scene for a heatmap figure on one pair of axes, else None (stays plotly)."""
    data, layout = _figure_dicts(fig)
    if set(layout) - SUPPORTED_LAYOUT or layout.get("images") or not any(t.get("type") == "heatmap" for t in data):
        return None
    xa, ya = _Axis(layout.get("xaxis") or {}), _Axis(layout.get("yaxis") or {})
    layers = []
    for trace in data:
        if (trace.get("xaxis") or "x") != "x" or (trace.get("yaxis") or "y") != "y" or trace.get("visible") is False:
            return None
        kind = trace.get("type") or "scatter"
        layer = _heat(trace, xa, ya) if kind == "heatmap" else _points(trace, xa, ya) if kind == "scatter" else None
        if layer is None:
            return None
        layers.append(layer)
    xr, yr = _range(xa.layout, _extent(layers, "x")), _range(ya.layout, _extent(layers, "y"))
    if xr is None or yr is None:
        return None
    notes = _every(layout.get("annotations"), lambda a: _annotation(a, xa, ya))
    shapes = _every(layout.get("shapes"), lambda sh: _shape(sh, xa, ya))
    if notes is None or shapes is None:
        return None
    font_size = float((layout.get("font") or {}).get("size") or 14)

    def axis(a: _Axis, rng) -> dict:
        la = a.layout
        angle = la.get("tickangle") if isinstance(la.get("tickangle"), (int, float)) else None
        size = float((la.get("tickfont") or {}).get("size") or font_size - 1)
        return {"range": rng, "ticks": _ticks(a, min(rng), max(rng)), "title": _title(la), "angle": angle,
                "size": size, "type": a.type or "linear", "categories": [_clean(c) for c in a.categories]}

    title = layout.get("title")
    title_font = ((title.get("font") or {}).get("size") if isinstance(title, dict) else None) or 16
    panels = _panels(layout.get("meta"), xr, yr, len(layers))
    return {
        "version": 1,
        **({"panels": panels} if panels else {}),
        "height": int(layout.get("height") or 450),
        "title": _title(layout), "title_size": float(title_font), "font_size": font_size,
        "background": _hex(layout["plot_bgcolor"]) if layout.get("plot_bgcolor") else None,
        "x": axis(xa, xr), "y": axis(ya, yr),
        "layers": layers, "notes": notes, "shapes": shapes,
        "clickable": any(layer["type"] == "marks" and layer["custom"] is not None and layer["opacity"] == 0
                         for layer in layers),
    }


def _panels(meta, xr: list[float], yr: list[float], n_layers: int) -> list[dict] | None:
    """Side-by-side panels that may be stacked on a narrow screen (a figure whose layout meta has "stack": a
    row of tiles, e.g. the Masks lab's mask | scores | weights): per panel its x range [left, right], the y
    range of the whole row, its cells (rows, cols) and the heat layer whose colour bar it shows (or None).
    The renderer draws each panel's bar under it and, where the cells would be too narrow side by side,
    draws the panels one under another, each the full width."""
    if not isinstance(meta, dict) or not meta.get("stack") or not meta.get("tiles"):
        return None
    R, C = int(meta["rows"]), int(meta["cols"])
    out = []
    for tile in meta["tiles"]:
        bar = tile.get("bar")
        out.append({"x": [float(tile["col"]) - 0.5, float(tile["col"]) + C - 0.5], "y": list(yr), "rows": R,
                    "cols": C, "bar": int(bar) if isinstance(bar, int) and 0 <= bar < n_layers else None})
    return out


def scene_summary(scene: dict) -> dict:
    """What a test or the speed guard counts: heatmap layers, all layers, cells."""
    heats = [layer for layer in scene["layers"] if layer["type"] == "heat"]
    return {"heatmaps": len(heats), "layers": len(scene["layers"]), "cells": sum(h["rows"] * h["cols"] for h in heats)}


def decode_f32(text: str) -> np.ndarray:
    """The inverse of the scene's float32 encoding (tests, and anyone reading a scene back)."""
    return np.frombuffer(base64.b64decode(text), dtype="<f4")


def layer_values(layer: dict) -> np.ndarray:
    """A heat layer's values, (rows, cols), NaN = empty: float32 ('z'), ten-thousandths ('z4', what a 4-decimal
    hover prints, with the cells that do not fit in 'z4x'), whole numbers ('zi') or, where only the colour
    is needed, one of 255 levels ('levels')."""
    if "z" in layer:
        flat = decode_f32(layer["z"]).astype("float64")
    elif "z4" in layer:
        q = np.frombuffer(base64.b64decode(layer["z4"]), dtype="<i2").astype("float64")
        flat = np.where(q == -32768, np.nan, q / 1e4)
        for k, v in (layer.get("z4x") or {}).items():
            flat[int(k)] = v / 1e4
    elif "zi" in layer:
        q = np.frombuffer(base64.b64decode(layer["zi"]), dtype="<i2").astype("float64")
        flat = np.where(q == -32768, np.nan, q)
    else:
        q = np.frombuffer(base64.b64decode(layer["levels"]), dtype="uint8").astype("float64")
        flat = np.where(q == 255, np.nan, layer["zmin"] + q / 254 * (layer["zmax"] - layer["zmin"]))
    return flat.reshape(layer["rows"], layer["cols"])
