"""A canvas scene (core/canvas_chart.to_scene) as the bytes the heatmap component gets, and back.

Why: a slider step at d_model 512, T 32 may cost at most 64 KB over the websocket (benchmarks/), and a
classroom shares one Wi-Fi. So a scene's arrays travel as raw bytes beside its JSON, not as base64 inside
it (a quarter fewer bytes); an array whose rows repeat (a head band, column numbers of tiled panels) sends
each distinct row once; click targets on every cell of a grid go as the grid, their 4-decimal hover texts
as int16; numbered categories ('0' .. '511') as a range.

The component gets: MAGIC, the header's length (uint32, little-endian), the header JSON ({"scene": ...,
and the chart's alt, file name ...}), padding to 4 bytes, then the blobs, each at an offset that is a
multiple of 4 (the browser views them as float32 / int16 in place). static/heatmap.js `unpack` reads it;
`unpack` here gives a scene exactly as to_scene made it (tests, and anyone reading a chart back).
"""

from __future__ import annotations

import base64
import json
import re
import struct

import numpy as np

MAGIC = b"ALB1"
_BLOBS = ("z", "z4", "zi", "levels")  # a heat layer's encoded values
_CUSTOM_BLOBS = ("num", "num16")  # its customdata's


def pack(scene: dict) -> tuple[bytes, bytes]:
    """The scene as (JSON with blob references, blobs): see `payload`. A reference is {"$b": [offset,
    length]} into the blobs, with "rows": [distinct row of each row] when rows repeat."""
    blobs = bytearray()

    def put(text: str, rows: int) -> dict:
        raw, ref = base64.b64decode(text), {}
        if rows > 1 and len(raw) % rows == 0:
            n = len(raw) // rows
            distinct: dict[bytes, int] = {}
            order = [distinct.setdefault(raw[i * n:(i + 1) * n], len(distinct)) for i in range(rows)]
            if len(distinct) < rows:
                raw, ref["rows"] = b"".join(distinct), order
        blobs.extend(b"\0" * (-len(blobs) % 4))
        ref["$b"] = [len(blobs), len(raw)]
        blobs.extend(raw)
        return ref

    layers = []
    for layer in scene.get("layers", ()):
        if layer.get("type") == "marks":
            layer = _grid(layer)
            if (q := _printed_tenthousandths(layer.get("text"))) is not None:
                layer = {k: v for k, v in layer.items() if k != "text"}
                layer["text4"] = put(base64.b64encode(q.tobytes()).decode(), 1)
        if layer.get("type") == "heat":
            layer = {k: put(v, layer["rows"]) if k in _BLOBS and isinstance(v, str) else v for k, v in layer.items()}
            if isinstance(layer.get("custom"), dict):
                layer["custom"] = {k: put(v, layer["rows"]) if k in _CUSTOM_BLOBS and isinstance(v, str) else v
                                   for k, v in layer["custom"].items()}
        layers.append(layer)
    axes = {k: _compact_axis(scene[k]) for k in ("x", "y") if isinstance(scene.get(k), dict)}
    text = json.dumps({**scene, **axes, "layers": layers}, separators=(",", ":"), allow_nan=False).encode()
    return text, bytes(blobs)


def _compact_axis(axis: dict) -> dict:
    """Numbered categories ('0' .. '511', a head's columns) as their first number and count, and a label on
    every category as "all" (~10 KB for 512 columns)."""
    cats = axis.get("categories") or []
    if len(cats) < 16 or not cats[0].lstrip("-").isdigit():
        return axis
    first = int(cats[0])
    if cats != [str(first + i) for i in range(len(cats))]:
        return axis
    out = dict(axis, categories={"from": first, "count": len(cats)})
    if axis.get("ticks") == [[float(i), c] for i, c in enumerate(cats)]:
        out["ticks"] = "all"
    return out


def _expand_axis(axis: dict) -> None:
    cats = axis.get("categories")
    if isinstance(cats, dict):
        axis["categories"] = [str(cats["from"] + i) for i in range(cats["count"])]
        if axis.get("ticks") == "all":
            axis["ticks"] = [[float(i), c] for i, c in enumerate(axis["categories"])]


_FOUR_DECIMALS = re.compile(r"-?\d+\.\d{4}")


def _printed_tenthousandths(texts) -> np.ndarray | None:
    """Hover texts that are all numbers printed with 4 decimals (a clickable grid's weights) as int16
    ten-thousandths, when printing those back gives the very same texts; else None."""
    if not isinstance(texts, list) or len(texts) < 16 or not all(
            isinstance(t, str) and _FOUR_DECIMALS.fullmatch(t) for t in texts):
        return None
    q = [int(t.replace(".", "")) for t in texts]
    if max(map(abs, q)) >= 32768 or any(f"{v / 1e4:.4f}" != t for v, t in zip(q, texts)):
        return None
    return np.array(q, dtype="<i2")


def _grid(layer: dict) -> dict:
    """Markers on every cell of a grid, row by row (figures.click_targets: customdata [row, col]) as the
    grid's distinct positions and labels: 1,024 click targets are ~1 KB instead of ~38 KB of lists."""
    xs, ys = layer.get("x") or [], layer.get("y") or []
    ux = list(dict.fromkeys(xs))
    nx = len(ux)
    if nx < 2 or len(xs) % nx or len(xs) < 8:
        return layer
    uy = ys[::nx]
    n = len(xs)
    if any(xs[k] != ux[k % nx] or ys[k] != uy[k // nx] for k in range(n)):
        return layer
    cx, cy = layer["cx"][:nx], layer["cy"][::nx]
    if any(layer["cx"][k] != cx[k % nx] or layer["cy"][k] != cy[k // nx] for k in range(n)):
        return layer
    grid = {"x": ux, "y": uy, "cx": cx, "cy": cy}
    out = {k: v for k, v in layer.items() if k not in ("x", "y", "cx", "cy")}
    custom = layer.get("custom")
    if custom is not None and all(custom[k] == [k // nx, k % nx] for k in range(n)):
        grid["rc"] = True  # customdata is [row, col]
        out.pop("custom")
    out["grid"] = grid
    return out


def _ungrid(layer: dict) -> dict:
    grid = layer.pop("grid", None)
    if grid is None:
        return layer
    nx, n = len(grid["x"]), len(grid["x"]) * len(grid["y"])
    layer["x"] = [grid["x"][k % nx] for k in range(n)]
    layer["y"] = [grid["y"][k // nx] for k in range(n)]
    layer["cx"] = [grid["cx"][k % nx] for k in range(n)]
    layer["cy"] = [grid["cy"][k // nx] for k in range(n)]
    if grid.get("rc"):
        layer["custom"] = [[k // nx, k % nx] for k in range(n)]
    return layer


def payload(scene_json: bytes, blobs: bytes, extra: dict) -> bytes:
    """What the component gets for a packed scene and the chart's own fields (alt, file, format, labels)."""
    header = b'{"scene":' + scene_json + (b"," + json.dumps(extra).encode()[1:] if extra else b"}")
    return MAGIC + struct.pack("<I", len(header)) + header + b" " * (-(8 + len(header)) % 4) + blobs


def unpack(data: bytes) -> dict:
    """The inverse of payload: the header with the scene's arrays back as base64 text (tests, readers)."""
    if data[:4] != MAGIC:
        return json.loads(data)
    (n,) = struct.unpack("<I", data[4:8])
    header = json.loads(data[8:8 + n])
    start = 8 + n + (-(8 + n) % 4)

    def get(ref):
        if not (isinstance(ref, dict) and "$b" in ref):
            return ref
        offset, length = ref["$b"]
        raw = data[start + offset:start + offset + length]
        if "rows" in ref:
            size = length // (max(ref["rows"]) + 1)
            raw = b"".join(raw[i * size:(i + 1) * size] for i in ref["rows"])
        return base64.b64encode(raw).decode()

    for k in ("x", "y"):
        if isinstance(header["scene"].get(k), dict):
            _expand_axis(header["scene"][k])
    for layer in header["scene"].get("layers", ()):
        _ungrid(layer)
        if "text4" in layer:
            q = np.frombuffer(base64.b64decode(get(layer.pop("text4"))), dtype="<i2")
            layer["text"] = [f"{v / 1e4:.4f}" for v in q.tolist()]
        for k in _BLOBS:
            if k in layer:
                layer[k] = get(layer[k])
        if isinstance(layer.get("custom"), dict):
            for k in _CUSTOM_BLOBS:
                if k in layer["custom"]:
                    layer["custom"][k] = get(layer["custom"][k])
    return header


def header_text(data: bytes) -> str:
    """The header JSON of a payload as text (what a chart says, without its arrays)."""
    if data[:4] != MAGIC:
        return data.decode()
    (n,) = struct.unpack("<I", data[4:8])
    return data[8:8 + n].decode()
