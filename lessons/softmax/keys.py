"""The Softmax page's URL keys, declared once (lessons/url.py parses them; ui/url_state.py reads and writes them
back), the values they parse to (`PageValues`, `parse_url`) and what their bounds depend on (`env_of`; the step
slider's length `step_count` comes from the mask and the block sizes alone)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from core.limits import TILE_BLOCK_MAX, TILE_BLOCK_MIN
from core.masks import FILL_SEED, full_grid
from core.softmax_numerics import DTYPES, naive_failure
from core.tiled_attention import tile_bounds
from lessons import scenario as scenario_mod
from lessons import url
from lessons.settings import Settings
from lessons.url import Fix, UrlKey, setting

PAGE = "softmax"  # url_path
SECTIONS = ("scale", "max", "tiles")  # soft_tab values, in the order of the lesson
GAINS = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000)  # soft_gain: the row times this; large enough to overflow
DEFAULT_BLOCK = 4  # soft_bq, soft_bk: at the default T = 8, 2 x 2 tiles, one skipped under the causal mask


def default_gain(
    settings: Settings,
    head: int,
    row: int,
    run: scenario_mod.Scenario | None = None,
    custom_text: str | None = None,
) -> int:
    """The gain the "max" section opens at: the smallest of GAINS where the naive softmax of this row breaks in
    float32 (the dtype the page shows first; float16, which breaks sooner, is then broken too), else in float16,
    so the overflow the section is about is on screen (at gain 1 nothing overflows). Chosen from the
    row's own scores, whatever the model's init; a row no gain breaks (all its kept scores at most 0, or a
    blocked row) opens at the largest gain, where the page says that the naive one never breaks."""
    run = run if run is not None else scenario_mod.run(settings, custom_text=custom_text)
    T = settings.seq_len
    keep = full_grid(run.mask, 1, T, T)[0][row]  # (T,)
    base = run.trace.scaled_scores[0, head, row]  # (T,)
    for name in ("float32", "float16"):
        for g in GAINS:
            if not naive_failure((base * g).masked_fill(~keep, FILL_SEED), DTYPES[name]).ok:
                return g
    return GAINS[-1]


# The gain each (settings, grid, head, row) opens at, kept: a page's settle asks for it twice (the key's default, then
# the value checked against it), and every step of the page once more, ~1 ms each at 512/16/32. The settings and the
# hand-drawn grid decide the run's numbers, so they decide the gain. Integers only; at most _GAINS_KEPT, then emptied.
_GAINS: dict[tuple[Settings, str | None, int, int], int] = {}
_GAINS_KEPT = 512


def _default_gain(env: url.Env) -> int:
    settings = env["settings"]
    head = env.get("soft_head", 0)
    row = env.get("soft_row", settings.seq_len - 1)
    custom_text = env.get("custom_text")
    key = (settings, custom_text, int(head), int(row))
    gain = _GAINS.get(key)
    if gain is None:
        gain = default_gain(settings, head, row, env.get("run"), custom_text)
        if len(_GAINS) >= _GAINS_KEPT:
            _GAINS.clear()
        _GAINS[key] = gain
    return gain


def _n_steps(env: url.Env) -> int:
    return max(1, step_count(env["settings"], env["soft_bq"], env["soft_bk"], env.get("custom_text")))


# The page's URL keys, declared once (lessons/url.py parses them; ui/url_state.py reads and writes them back).
# Parsed in this order: soft_step's range depends on the block sizes and the mask.
URL_KEYS: tuple[UrlKey, ...] = (
    UrlKey("soft_tab", "choice", SECTIONS[0], choices=SECTIONS),
    UrlKey("soft_head", "int", 0, lo=0, hi=setting("num_heads", -1)),  # 0-based, like masks_head
    # the last row by default: it sees every key under causal
    UrlKey("soft_row", "int", setting("seq_len", -1), lo=0, hi=setting("seq_len", -1)),
    UrlKey("soft_gain", "choice", _default_gain, choices=GAINS),  # opens where the naive softmax overflows
    UrlKey("soft_all_keys", "bool", False),  # section "max": every key of a long row, not the ones that tell its story
    UrlKey("soft_bq", "int", DEFAULT_BLOCK, lo=TILE_BLOCK_MIN, hi=TILE_BLOCK_MAX),
    UrlKey("soft_bk", "int", DEFAULT_BLOCK, lo=TILE_BLOCK_MIN, hi=TILE_BLOCK_MAX),
    UrlKey("soft_step", "int", 1, lo=1, hi=_n_steps),  # 1-based: "step s of n"
)
URL_KEY_NAMES = url.names(URL_KEYS)
WIDGET_KEYS = tuple(k for k in URL_KEYS if k.name != "soft_tab")  # the page settles these; the tab id is lazy_tabs'

FIELDS = {
    "soft_tab": "tab",
    "soft_head": "head",
    "soft_row": "row",
    "soft_gain": "gain",
    "soft_all_keys": "all_keys",
    "soft_bq": "block_q",
    "soft_bk": "block_k",
    "soft_step": "step",
}  # URL key -> PageValues field


@dataclass(frozen=True)
class PageValues:
    """The page's own URL values, valid for the settings they were parsed with."""

    tab: str
    head: int
    row: int
    gain: int
    all_keys: bool
    block_q: int
    block_k: int
    step: int  # 1-based

    @classmethod
    def of(cls, values: Mapping[str, Any]) -> PageValues:
        return cls(**{field: values[key] for key, field in FIELDS.items()})


def step_count(settings: Settings, block_q: int, block_k: int, custom_text: str | None = None) -> int:
    """How many (query tile, key tile) steps the walk processes, from the mask alone (no attention run):
    the step slider's length. A tile is skipped when it keeps no cell, unless one of its rows is blocked
    entirely (core/tiled_attention.py keeps such tiles: that row needs its -1e9 cells)."""
    T = settings.seq_len
    grid = full_grid(scenario_mod.settings_mask(settings.mask, T, T, custom_text), 1, T, T)[0]  # (T, T)
    keep = grid.numpy()  # (T, T)
    blocked_row = (~grid.any(dim=-1)).numpy()  # (T,)
    n = 0
    for q0, q1 in tile_bounds(T, block_q):  # numpy, not torch: up to 1024 tiny tiles, torch's per-call cost
        row_blocked = bool(blocked_row[q0:q1].any())
        for k0, k1 in tile_bounds(T, block_k):
            n += row_blocked or bool(keep[q0:q1, k0:k1].any())
    return n


def env_of(settings: Settings, custom_text: str | None = None, run: scenario_mod.Scenario | None = None) -> dict:
    """What the keys' bounds depend on: the shared settings and the custom mask's text (and the page's run of them,
    for soft_gain's default; computed when not given)."""
    return {"settings": settings, "custom_text": custom_text, "run": run}


def url_bounds(
    settings: Settings, block_q: int = DEFAULT_BLOCK, block_k: int = DEFAULT_BLOCK, custom_text: str | None = None
) -> dict[str, tuple]:
    """Every key's concrete allowed values for these settings: (lo, hi, default) or (choices, default)."""
    env = {**env_of(settings, custom_text), "soft_bq": block_q, "soft_bk": block_k}
    out: dict[str, tuple] = {}
    for key in URL_KEYS:
        r = key.resolved(env)
        out[key.name] = (r["choices"], r["default"]) if key.kind == "choice" else (r["lo"], r["hi"], r["default"])
    return out


def parse_url(settings: Settings, raw: Mapping, custom_text: str | None = None) -> tuple[PageValues, list[Fix]]:
    """All of the page's URL values from raw text (any garbage), in dependency order. Never raises; returns
    what was corrected."""
    values, fixes = url.parse(URL_KEYS, raw, env_of(settings, custom_text))
    return PageValues.of(values), fixes


def key_range(name: str, settings: Settings) -> tuple[int, int]:
    """A widget's lo..hi: its URL key's own range for these settings (the widget and the link agree). Not for
    soft_step, whose range depends on the block sizes."""
    return url.key_range(URL_KEYS, name, env_of(settings))


def head_options(settings: Settings) -> list[int]:
    """The head selector's choices: 0 .. h-1 (soft_head's range)."""
    lo, hi = key_range("soft_head", settings)
    return list(range(lo, hi + 1))


def moved_step(step: int | None, delta: int, n_steps: int) -> int:
    """The step after the Previous / Next button: step + delta, kept within 1 .. n_steps (no step yet: 1)."""
    return min(max(int(step or 1) + delta, 1), n_steps)
