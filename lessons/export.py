"""Downloads of one attention run: every tensor as a NumPy .npz, a 2-D slice as CSV, and a JSON
recipe of the settings that reproduces them.

The names are the ones on screen and in the seed's formulas: the 13 fields of AttentionTrace
(q, k, v, q_heads, ..., weights, head_outputs, concat, output), the input `x`, the `mask` as it was
passed to the layer, and the weights under their PyTorch state_dict names (`W_q.weight`, `W_q.bias`,
...), exactly as `self.W_q = nn.Linear(d_model, d_model)` in the seed stores them: q = x @ W_q.weight.T + W_q.bias.
Pure: no Streamlit here (ui/downloads.py draws the buttons).
"""

from __future__ import annotations

import io
import json
import platform
from dataclasses import dataclass, field
from functools import lru_cache
from importlib.metadata import PackageNotFoundError, version
from urllib.parse import urlencode

import numpy as np
import torch

from core.attention import AttentionTrace
from core.masks import mask_from_text, mask_to_text
from lessons import masks_lab, scenario
from lessons.heatmap import axis_labels
from lessons.settings import SETTING_KEYS, Settings, sanitize

FORMAT = "attention-lab/tensors"
FORMAT_VERSION = 1
GRID_PARAM = "masks_grid"  # the Masks lab's URL parameter for the hand-drawn grid (ui.shell reads it too)
LIBRARIES = ("torch", "numpy", "streamlit", "plotly")

# The axes of every exported tensor, by name: what a CSV slice's rows and columns are.
# "batch" and "head" are picked by the user; "query"/"key" are token positions; "dim" is a feature column.
_WEIGHT_AXES = {
    f"W_{r}.{p}": (("out", "in") if p == "weight" else ("out",)) for r in "qkvo" for p in ("weight", "bias")
}
AXES: dict[str, tuple[str, ...]] = {
    "x": ("batch", "query", "dim"),
    "kv": ("batch", "key", "dim"),
    "mask": ("batch", "head", "query", "key"),  # broadcastable: size-1 axes stand for all
    "q": ("batch", "query", "dim"),
    "k": ("batch", "key", "dim"),
    "v": ("batch", "key", "dim"),
    "q_heads": ("batch", "head", "query", "dim"),
    "k_heads": ("batch", "head", "key", "dim"),
    "v_heads": ("batch", "head", "key", "dim"),
    "scores": ("batch", "head", "query", "key"),
    "scaled_scores": ("batch", "head", "query", "key"),
    "masked_scores": ("batch", "head", "query", "key"),
    "weights": ("batch", "head", "query", "key"),
    "head_outputs": ("batch", "head", "query", "dim"),
    "concat": ("batch", "query", "dim"),
    "output": ("batch", "query", "dim"),
    **_WEIGHT_AXES,
}
assert set(AttentionTrace.names()) <= set(AXES), "every traced tensor needs its axes"


@dataclass(frozen=True)
class TensorSet:
    """Everything one download offers: the tensors by name, the token labels, and the recipe."""

    tensors: dict[str, torch.Tensor]  # name -> tensor, in the order they are computed
    q_tokens: list[list[str]]  # per sequence of the batch
    k_tokens: list[list[str]]
    recipe: dict = field(default_factory=dict)  # JSON-able: settings (+ lab setup) that reproduce the tensors

    @property
    def batch(self) -> int:
        return len(self.q_tokens)

    @property
    def num_heads(self) -> int:
        return int(self.tensors["q_heads"].shape[1])

    def names(self) -> tuple[str, ...]:
        return tuple(self.tensors)


def collect(
    x: torch.Tensor,
    trace: AttentionTrace,
    model: torch.nn.Module,
    mask: torch.Tensor | None,
    kv: torch.Tensor | None = None,
) -> dict[str, torch.Tensor]:
    """The tensors of one call by name: inputs, mask, the 13 traced tensors, then the layer's weights."""
    out = {"x": x}
    if kv is not None and kv is not x:
        out["kv"] = kv  # cross-attention: the keys'/values' sequence
    if mask is not None:
        out["mask"] = mask
    out.update({name: getattr(trace, name) for name in AttentionTrace.names()})
    out.update(model.state_dict())  # W_q.weight (d_model_out, d_model_in), W_q.bias, ... as nn.Linear keeps them
    return {name: t.detach() for name, t in out.items()}


@lru_cache(maxsize=1)
def _versions() -> tuple:
    found = [("python", platform.python_version())]
    for lib in LIBRARIES:
        try:
            found.append((lib, version(lib)))
        except PackageNotFoundError:
            found.append((lib, "not installed"))
    return tuple(found)


def versions() -> dict[str, str]:
    """The versions that computed the numbers (read once: metadata look-ups scan site-packages)."""
    return dict(_versions())


def settings_query(settings: Settings, custom_text: str | None = None, extra: dict | None = None) -> str:
    """The URL query string of the shared settings (plus the Masks lab's grid for a custom mask, and `extra`)."""
    params = {key: getattr(settings, key) for key in SETTING_KEYS}
    if settings.mask == "custom" and custom_text:
        params[GRID_PARAM] = custom_text
    params.update(extra or {})
    return urlencode(params)


def _recipe(
    settings: Settings,
    custom_text: str | None,
    tensors: dict,
    page: str,
    app_url: str | None,
    extra_query: dict | None = None,
) -> dict:
    query = settings_query(settings, custom_text, extra_query)
    base = (app_url or "").split("?", 1)[0].rstrip("/")
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "page": page,
        "settings": {key: getattr(settings, key) for key in SETTING_KEYS},
        "custom_mask": custom_text if settings.mask == "custom" else None,
        "query": query,
        "url": f"{base}?{query}" if base else None,
        "versions": versions(),
        "shapes": {name: str(tuple(t.shape)) for name, t in tensors.items()},
        "weights_layout": "nn.Linear: W_q.weight is (out, in) and q = x @ W_q.weight.T + W_q.bias",
    }


def from_scenario(
    run: scenario.Scenario, custom_text: str | None = None, *, page: str = "walkthrough", app_url: str | None = None
) -> TensorSet:
    """A lessons.scenario.run(...) result (the walkthrough's and the heads page's example)."""
    tensors = collect(run.x, run.trace, run.model, run.mask)
    custom = custom_text if run.settings.mask == "custom" else None
    return TensorSet(
        tensors, [list(run.tokens)], [list(run.tokens)], _recipe(run.settings, custom, tensors, page, app_url)
    )


def from_lab(
    run: masks_lab.LabRun,
    settings: Settings,
    custom_text: str | None = None,
    *,
    app_url: str | None = None,
    extra_query: dict[str, str] | None = None,
) -> TensorSet:
    """A lessons.masks_lab.run_lab(...) result: the lab's own choices (extra masks, batch, T_k, fill) go in the
    recipe."""
    setup = run.setup
    tensors = collect(run.x, run.trace, run.model, run.mask, kv=run.kv if setup.cross else None)
    lab = {
        "parts": list(setup.parts),
        "T_q": setup.T_q,
        "T_k": setup.T_k,
        "cross": setup.cross,
        "lengths": list(setup.lengths) if setup.lengths is not None else None,
        "custom_grid": mask_to_text(setup.custom_grid) if setup.custom_grid is not None else None,
        "fill": setup.fill,
    }
    recipe = _recipe(
        settings, custom_text if settings.mask == "custom" else None, tensors, "masks", app_url, extra_query
    )
    recipe["masks_lab"] = lab
    return TensorSet(tensors, [list(q) for q in run.q_labels], [list(k) for k in run.k_labels], recipe)


# ---------------------------------------------------------------- the files
def npz_bytes(ts: TensorSet) -> bytes:
    """All tensors in one .npz (np.load(..., allow_pickle=False) reads it), plus the token labels."""
    arrays = {name: t.numpy() for name, t in ts.tensors.items()}
    arrays["tokens"] = np.array(ts.q_tokens, dtype=str)  # (B, T_q): a unicode array, no pickle needed
    if ts.k_tokens != ts.q_tokens:
        arrays["key_tokens"] = np.array(ts.k_tokens, dtype=str)  # (B, T_k)
    buf = io.BytesIO()
    np.savez(buf, allow_pickle=False, **arrays)  # uncompressed: random floats barely compress, and saving is faster
    return buf.getvalue()


def json_text(ts: TensorSet) -> str:
    return json.dumps(ts.recipe, ensure_ascii=False, indent=2)


def has_axis(name: str, axis: str) -> bool:
    return axis in AXES[name]


@dataclass(frozen=True)
class Slice:
    name: str
    index: tuple[int, ...]  # the batch/head indices taken, in axis order
    matrix: torch.Tensor  # 2-D (rows, cols)
    rows: list[str]
    cols: list[str]
    row_axis: str
    col_axis: str

    @property
    def label(self) -> str:
        """How the slice reads in Python: weights[0, 2]."""
        return self.name + (f"[{', '.join(map(str, self.index))}]" if self.index else "")


def _labels(axis: str, n: int, tokens: list[str]) -> list[str]:
    if axis in ("query", "key"):
        return list(axis_labels(tokens))  # "3:cat"
    return [str(i) for i in range(n)]


def slice_2d(ts: TensorSet, name: str, batch: int = 0, head: int = 0) -> Slice:
    """The 2-D matrix of `name` for one sequence of the batch and one head (both clamped into range)."""
    t = ts.tensors[name]
    axes = AXES[name]
    index = []
    if name == "mask":  # broadcastable (B|1, 1, T_q|1, T_k): expand to the grid it acts as
        T_q, T_k = ts.tensors["scores"].shape[-2:]
        t = t.expand(t.shape[0], t.shape[1], T_q, T_k)  # (B|1, 1, T_q, T_k)
    if "batch" in axes:
        b = min(max(int(batch), 0), t.shape[0] - 1)
        t = t[b]
        index.append(b)
    else:
        b = 0
    if "head" in axes:
        hh = min(max(int(head), 0), t.shape[0] - 1)
        t = t[hh]
        index.append(hh)
    rest = [a for a in axes if a not in ("batch", "head")]
    if t.dim() == 1:  # a bias: one column
        t = t[:, None]  # (d_model, 1)
        rest = rest + [name]
    row_axis, col_axis = rest
    q_tok = ts.q_tokens[min(b, ts.batch - 1)]
    k_tok = ts.k_tokens[min(b, ts.batch - 1)]
    rows = _labels(row_axis, t.shape[0], k_tok if row_axis == "key" else q_tok)
    cols = [name] if col_axis == name else _labels(col_axis, t.shape[1], k_tok if col_axis == "key" else q_tok)
    return Slice(name, tuple(index), t, rows, cols, row_axis, col_axis)


def _field(text: str) -> str:
    """One CSV field, quoted when it must be (RFC 4180)."""
    return '"' + text.replace('"', '""') + '"' if any(c in text for c in ',"\r\n') else text


def csv_text(sl: Slice) -> str:
    """The slice as CSV: the first column names the rows (token labels or indices), the header the columns.

    Values are written with 9 significant digits, enough for every float32 to read back exactly.
    """
    m = sl.matrix.to(torch.int8) if sl.matrix.dtype == torch.bool else sl.matrix  # a mask as 1 / 0
    row_format = ",".join(["%d" if m.dtype == torch.int8 else "%.9g"] * m.shape[1])  # formats a row in C
    lines = [",".join(_field(c) for c in [f"{sl.row_axis}\\{sl.col_axis}", *sl.cols])]
    lines += [_field(label) + "," + row_format % tuple(values) for label, values in zip(sl.rows, m.tolist())]
    return "\n".join(lines) + "\n"


def csv_bytes(sl: Slice) -> bytes:
    # A byte-order mark so that spreadsheet programs read the Chinese token labels as UTF-8.
    return csv_text(sl).encode("utf-8-sig")


def file_stem(settings: Settings) -> str:
    s = settings
    return f"attention_d{s.d_model}_h{s.num_heads}_T{s.seq_len}_{s.mask}_seed{s.seed}"


# ---------------------------------------------------------------- back from a recipe
def read_recipe(recipe: dict | str) -> tuple[Settings, str | None, list]:
    """Settings and custom mask text from a downloaded JSON (sanitised like any URL: never raises on bad values)."""
    data = json.loads(recipe) if isinstance(recipe, str) else recipe
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"not an Attention Lab settings file (expected format {FORMAT!r})")
    raw = data.get("settings") or {}
    settings, fixes = sanitize(raw if isinstance(raw, dict) else {})
    custom = data.get("custom_mask")
    return settings, (custom if isinstance(custom, str) and custom else None), fixes


def rerun(recipe: dict | str) -> TensorSet:
    """Run the core again from a downloaded JSON: the same tensors, bit for bit."""
    data = json.loads(recipe) if isinstance(recipe, str) else recipe
    settings, custom, _ = read_recipe(data)
    lab = data.get("masks_lab")
    if lab:
        grid = lab.get("custom_grid")
        setup = masks_lab.LabSetup(
            tuple(lab["parts"]),
            int(lab["T_q"]),
            int(lab["T_k"]),
            bool(lab["cross"]),
            tuple(lab["lengths"]) if lab.get("lengths") is not None else None,
            mask_from_text(grid, int(lab["T_q"]), int(lab["T_k"])) if grid else None,
            lab["fill"],
        )
        return from_lab(masks_lab.run_lab(settings, setup), settings, custom)
    return from_scenario(scenario.run(settings, custom_text=custom), custom, page=data.get("page", "walkthrough"))
