"""A Heatmap (lessons/heatmap.py) as the bytes the heatmap component (static/heatmaps.js) draws.

Straight from the arrays: values go as raw little-endian float32 (NaN stays NaN), blocked cells as one byte
each, never through base64 or text. Layout of the payload:

    MAGIC (4 bytes) | header length n (uint32 LE) | header JSON (n bytes, UTF-8) | padding to 4 | blobs

Each blob starts at a multiple of 4 from the blobs' start, so the browser views it in place as a
Float32Array / Uint8Array. The header names each panel's blobs as [offset, length] pairs ("values",
"blocked"), and carries everything else as plain JSON: role, range, decimals, the worded strings (chart
title, axis titles, panel titles, state names, the download label, the accessible name), labels, groups,
rects, the palette's colours and the display options. Hover texts are not sent: the browser builds them
from the value, `decimals`, the labels and the worded axis titles. `unpack` reads a payload back
(tests, tools).
"""

from __future__ import annotations

import json
import math
import re
import struct
from collections.abc import Callable
from typing import TypedDict

import numpy as np

from charts import palettes
from lessons.heatmap import Heatmap

MAGIC = b"ALH1"
FILE_PREFIX = "attention-lab"
IMAGE_FORMATS = ("png", "svg")  # what a chart's download button saves (ui/display.py's option)
Say = Callable[..., str]  # a page's ctx.t: (key, **params) -> text in the page's language


class Words(TypedDict, total=False):
    """A Heatmap's Text keys worded in the page's language (ui/heatmaps.words makes it), plus the chart's
    fixed strings. Every field is plain text; missing ones are empty."""

    title: str
    row_axis: str
    col_axis: str
    panels: list[str]  # one per panel ("" = none)
    states: list[str]  # one per state code (role "state")
    blocked: str  # the hover's word for a cell a mask blocks
    thinned: str  # added to an axis title when its labels are thinned; "{k}" = every k-th labelled
    download: str  # the download button's label
    alt: str  # the accessible name (charts.alt.alt_text)
    marks: list[str]  # one per Heatmap mark: what its hover says
    range: str  # a weights chart: which colour range is shown ("colour scale 0 - 1" / the data's own), on the chart


WEIGHT_SCALES = ("data", "unit")  # a weights chart's colours: its own smallest..largest weight, or 0..1
DEFAULT_WEIGHT_SCALE = "data"  # at T = 32 most weights are near 1/32: on 0..1 every head is one dark block


def colour_range(hm: Heatmap, weight_scale: str = DEFAULT_WEIGHT_SCALE) -> tuple[float, float, str]:
    """(lo, hi, scale) the colours span. Only a weights chart has a choice (ui/display.py "weight_scale"):
    "unit" is 0..1; "data" is the lesson's own narrower range when it gave one (the heads page: over every head,
    drawn or not), else the smallest..largest weight over every panel's visible cells (a blocked cell's 0
    is hatched, not coloured), or 0..1 ("unit") when those are all equal or span 0..1 already (a causal row 0).
    Other roles: the Heatmap's own range, scale "". The colour bar and the chart's range line say which
    (ui/heatmaps.words)."""
    if hm.role != "weights":
        return _finite(hm.vmin, 0.0), _finite(hm.vmax, 1.0), ""
    if weight_scale != "data":
        return 0.0, 1.0, "unit"
    if (hm.vmin, hm.vmax) != (0.0, 1.0) and 0.0 <= hm.vmin < hm.vmax <= 1.0:
        return float(hm.vmin), float(hm.vmax), "data"  # the lesson's own data range (the heads page: every head's)
    seen = []
    for p in hm.panels:
        v = np.asarray(p.values, dtype=np.float64)
        ok = np.isfinite(v) if p.blocked is None else np.isfinite(v) & ~np.asarray(p.blocked, dtype=bool)
        if ok.any():
            seen.append((float(v[ok].min()), float(v[ok].max())))
    if not seen:
        return 0.0, 1.0, "unit"
    lo, hi = max(0.0, min(a for a, _ in seen)), min(1.0, max(b for _, b in seen))
    if hi - lo <= 1e-6 or hi - lo >= 1.0 - 1e-4:  # all equal, or the data fill 0..1 anyway (a causal row 0)
        return 0.0, 1.0, "unit"
    return lo, hi, "data"


def file_name(name: str) -> str:
    """The downloaded image's file name (without extension) for a chart called `name`."""
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-") or "chart"
    return f"{FILE_PREFIX}-{safe}"


def _finite(x: float, default: float) -> float:
    return float(x) if math.isfinite(x) else default


NAN16 = -32768  # a compact panel's code for "no value"


def printed_codes(values: np.ndarray, decimals: int) -> np.ndarray | None:
    """`values` as int16 codes of the numbers the chart prints (value * 10**decimals, rounded exactly as
    f"{v:.{decimals}f}" rounds; NaN = NAN16), or None when a panel cannot travel so: decimals > 4, an
    infinity, a code past int16, or a negative value printed as "-0.00" (a code has no sign of zero)."""
    if not 0 <= decimals <= 4:
        return None
    v = np.asarray(values, dtype=np.float64)
    if np.isinf(v).any():
        return None
    finite = ~np.isnan(v)
    scaled = np.where(finite, v, 0.0) * 10.0**decimals
    if np.abs(scaled).max(initial=0.0) > 32767.4:
        return None
    q = np.rint(scaled)
    near_tie = finite & (np.abs(np.abs(scaled - np.trunc(scaled)) - 0.5) < 1e-3)
    for idx in zip(*np.nonzero(near_tie)):  # a few cells: round them as Python prints them
        q[idx] = int(f"{float(v[idx]):.{decimals}f}".replace(".", ""))
    if (finite & (v < 0) & (q == 0)).any():
        return None
    out = q.astype(np.int16)
    out[~finite] = NAN16
    return out


def payload(
    hm: Heatmap,
    *,
    palette: str = palettes.DEFAULT_PALETTE,
    cell_numbers: bool = False,
    image_format: str = "png",
    words: Words | None = None,
    compact: bool = False,
    font_scale: float = 1.0,
    fit_height: int = 0,
    weight_scale: str = DEFAULT_WEIGHT_SCALE,
) -> bytes:
    """The component's bytes for `hm` drawn with these display options and worded strings.

    `compact`: each panel whose values all print as int16 codes at `hm.decimals` (`printed_codes`: weights at
    4 decimals do) travels as those codes, half the bytes; the browser shows exactly the printed numbers
    (hover, cells), colours from the rounded values. Other panels stay float32. For a view near the 64 KB a
    step may cost; off by default: float32 is the values themselves.

    For a projector (the walkthrough's presenter view): `font_scale` multiplies every text of the chart (tick
    labels, axis and panel titles, cell numbers, the colour bar's numbers); `fit_height` > 0 makes the chart
    as tall as the window leaves below its top, at least that many px (the cells' height follows).

    `weight_scale` (a weights chart only, colour_range): "data" colours its smallest..largest weight, "unit" 0..1;
    the header's vmin/vmax are the range drawn, "scale" says which, "range" is the worded line the chart prints."""
    words = words or {}
    blobs = bytearray()

    def put(raw: bytes) -> list[int]:
        blobs.extend(b"\0" * (-len(blobs) % 4))
        ref = [len(blobs), len(raw)]
        blobs.extend(raw)
        return ref

    labels: list[list[str]] = []  # distinct label lists, referenced by index (panels usually share them)

    def label_ref(values: tuple[str, ...]) -> int | None:
        if not values:
            return None
        as_list = [str(v) for v in values]
        for i, known in enumerate(labels):
            if known == as_list:
                return i
        labels.append(as_list)
        return len(labels) - 1

    panel_words = list(words.get("panels") or [])
    panels = []
    for i, p in enumerate(hm.panels):
        values = np.ascontiguousarray(p.values, dtype="<f4")
        rows, cols = values.shape
        # (not with cell numbers on: a cell prints fewer decimals, and rounding a rounded code twice can differ)
        codes = printed_codes(values, hm.decimals) if compact and not cell_numbers else None
        entry: dict = {
            "rows": int(rows),
            "cols": int(cols),
            "values": put(values.tobytes() if codes is None else codes.astype("<i2").tobytes()),
            "title": panel_words[i] if i < len(panel_words) else "",
            "row_labels": label_ref(p.row_labels),
            "col_labels": label_ref(p.col_labels),
        }
        if codes is not None:
            entry["codes"] = True  # "values" holds int16 codes: value = code / 10**decimals
        if p.blocked is not None:
            blocked = np.ascontiguousarray(np.asarray(p.blocked, dtype=bool), dtype=np.uint8)
            if blocked.shape != (rows, cols):
                raise ValueError(f"panel {i}: blocked {blocked.shape} != values {(rows, cols)}")
            if blocked.any():
                entry["blocked"] = put(blocked.tobytes())
        if p.marks is not None and np.any(p.marks):
            marks = np.ascontiguousarray(np.asarray(p.marks), dtype=np.uint8)
            if marks.shape != (rows, cols):
                raise ValueError(f"panel {i}: marks {marks.shape} != values {(rows, cols)}")
            entry["marks"] = put(marks.tobytes())
        if p.row_groups:
            entry["row_groups"] = [int(g) for g in p.row_groups]
        if p.col_groups:
            entry["col_groups"] = [int(g) for g in p.col_groups]
        panels.append(entry)

    fmt = image_format if image_format in IMAGE_FORMATS else "png"
    hovers = list(words.get("marks") or [])
    lo, hi, scale = colour_range(hm, weight_scale)
    header = {
        "v": 1,
        "name": hm.name,
        "role": hm.role,
        "vmin": lo,
        "vmax": hi,
        "scale": scale,
        "range": words.get("range", "") if scale else "",
        "decimals": int(hm.decimals),
        "clickable": bool(hm.clickable),
        "panel_columns": int(hm.panel_columns),
        "every_row": bool(hm.every_row),
        "cell_numbers": bool(cell_numbers),
        "font_scale": _finite(float(font_scale), 1.0) if font_scale > 0 else 1.0,
        "fit_height": max(0, int(fit_height)),
        "palette": palettes.palette_name(palette),
        "colours": palettes.colours(hm.role, palette, len(hm.states)),
        "format": fmt,
        "file": file_name(hm.name),
        "title": words.get("title", ""),
        "row_axis": words.get("row_axis", ""),
        "col_axis": words.get("col_axis", ""),
        "states": list(words.get("states") or hm.states),
        "blocked_word": words.get("blocked", ""),
        "thinned": words.get("thinned", ""),
        "download": words.get("download", ""),
        "alt": words.get("alt", ""),
        "labels": labels,
        "panels": panels,
        "marks": [
            {"cell": m.cell, "hover": hovers[k] if k < len(hovers) and hovers[k] else m.cell}
            for k, m in enumerate(hm.marks)
        ],
        "rects": [
            {"panel": r.panel, "r0": r.r0, "r1": r.r1, "c0": r.c0, "c1": r.c1, "style": r.style} for r in hm.rects
        ],
    }
    text = json.dumps(header, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode()
    pad = b"\0" * (-(8 + len(text)) % 4)
    return MAGIC + struct.pack("<I", len(text)) + text + pad + bytes(blobs)


def unpack(data: bytes) -> tuple[dict, list[dict[str, np.ndarray]]]:
    """A payload read back: (header, per panel {"values": float32 (rows, cols), "blocked": bool (rows, cols)
    when sent, "marks": uint8 (rows, cols) when sent, and for a compact panel "codes": its int16 codes}). The
    arrays are copies."""
    if data[:4] != MAGIC:
        raise ValueError("not a heatmap payload")
    (n,) = struct.unpack_from("<I", data, 4)
    header = json.loads(data[8 : 8 + n].decode())
    start = 8 + n + (-(8 + n) % 4)
    arrays = []
    for p in header["panels"]:
        shape = (p["rows"], p["cols"])
        off, length = p["values"]
        if p.get("codes"):
            codes = np.frombuffer(data, dtype="<i2", count=length // 2, offset=start + off).reshape(shape).copy()
            values = np.where(codes == NAN16, np.nan, codes / 10.0 ** header["decimals"]).astype(np.float32)
            out = {"values": values, "codes": codes}
        else:
            out = {
                "values": np.frombuffer(data, dtype="<f4", count=length // 4, offset=start + off).reshape(shape).copy()
            }
        if "blocked" in p:
            off, length = p["blocked"]
            out["blocked"] = np.frombuffer(data, dtype=np.uint8, count=length, offset=start + off).reshape(shape) != 0
        if "marks" in p:
            off, length = p["marks"]
            out["marks"] = np.frombuffer(data, dtype=np.uint8, count=length, offset=start + off).reshape(shape).copy()
        arrays.append(out)
    return header, arrays


__all__ = [
    "DEFAULT_WEIGHT_SCALE",
    "FILE_PREFIX",
    "IMAGE_FORMATS",
    "MAGIC",
    "NAN16",
    "Say",
    "WEIGHT_SCALES",
    "Words",
    "colour_range",
    "file_name",
    "payload",
    "printed_codes",
    "unpack",
]
