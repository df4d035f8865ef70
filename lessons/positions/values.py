"""The Positions page's URL keys, declared once (`URL_KEYS`, lessons/url.py's `UrlKey`), the rules of the keys
whose correction the page explains itself (an odd RoPE d_k, a base at most 1, a toggle written another way), and
`parse_url`, which turns a raw mapping into `PageValues`."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from core import positions as P
from core.limits import (
    ROPE_BASE_MAX,
    ROPE_D_K_MAX,
    ROPE_D_K_MIN,
    ROPE_DISTANCE_MAX,
    ROPE_GRID_MAX,
    SHUFFLE_SEED_MAX,
    SHUFFLE_SEED_MIN,
)
from core.pretrained import EXAMPLES
from lessons import url
from lessons.limits import MAX_INT_CHARS
from lessons.positions.common import GRID_DEFAULT, MODELS, REAL_HEADS, SPANS, TABS
from lessons.settings import Settings, clamp_int
from lessons.url import Fix, UrlKey, shown


# ================================================================ the page's own URL keys
def _fix(key: str, raw: object, used: object, reason: str) -> Fix:
    return Fix(key, shown(raw), str(used), reason)


def _choice(key: str, raw: object, options: tuple[Any, ...], default: Any) -> tuple[Any, Fix | None]:
    """A choice from raw text: the option whose text it is, else the default (reason unreadable)."""
    if url.missing(raw):
        return default, None
    text = str(raw).strip()
    for option in options:
        if text == str(option):
            return option, None
    if isinstance(options[0], int) and not isinstance(raw, bool) and url.is_number(raw):
        used, _ = clamp_int(raw, options[0], options[-1], default, options)  # the nearest: "100" -> 128, "1e9" -> 512
        return used, _fix(key, raw, used, "out_of_range")
    return default, _fix(key, raw, default, "unreadable")


def parse_pos_tab(raw: object) -> tuple[str, Fix | None]:
    """The open section; anything else opens the first one."""
    return _choice("pos_tab", raw, TABS, URL_KEY["pos_tab"].default)


def parse_pos_model(raw: object) -> tuple[str, Fix | None]:
    """Which model the "Add positions" section runs: the shared random one or the real one."""
    return _choice("pos_model", raw, MODELS, URL_KEY["pos_model"].default)


def parse_pos_span(raw: object) -> tuple[int, Fix | None]:
    """One of SPANS; a number in between goes to the nearest (ties to the smaller)."""
    return _choice("pos_span", raw, SPANS, URL_KEY["pos_span"].default)


def parse_pos_causal(raw: object) -> tuple[bool, Fix | None]:
    """A toggle as Streamlit writes it ('true' / 'false'; 1/0, yes/no, on/off accepted too); else off."""
    if url.missing(raw):
        return False, None
    if isinstance(raw, bool):
        return raw, None
    text = str(raw).strip().lower()
    if text in url.TRUE:
        return True, None if text == "true" else _fix("pos_causal", raw, "true", "unreadable")
    if text in url.FALSE:
        return False, None if text == "false" else _fix("pos_causal", raw, "false", "unreadable")
    return False, _fix("pos_causal", raw, "false", "unreadable")


def heads_of(settings: Settings, model: str) -> int:
    """Heads of the section's model: the shared num_heads, or the real model's 12 (REAL_HEADS)."""
    return REAL_HEADS if model == "real" else settings.num_heads


def head_within(raw: object, n_heads: int) -> int:
    """The head a section shows when pos_head holds `raw`: the section's model may have fewer heads than the one
    the value was chosen on (the real model has 12), so it is clamped into 0..n_heads-1; no number -> head 0."""
    return min(max(raw, 0), n_heads - 1) if isinstance(raw, int) else 0


def next_shuffle(raw: object, current: int) -> int:
    """The seed "Shuffle again" moves to: one past the shown seed (`raw`, else the page's `current`), after the
    largest back to 1."""
    return (raw if isinstance(raw, int) else current) % SHUFFLE_SEED_MAX + 1


def default_dk(settings: Settings) -> int:
    """The RoPE section starts at the shared d_k, so its q and k are the scenario's; an odd shared d_k (only
    d_k = 1, e.g. d_model 8 with 8 heads) cannot be turned, so it starts at the nearest even one."""
    return nearest_even(settings.d_k)


def nearest_even(value: int) -> int:
    """The even d_k nearest to value within ROPE_D_K_MIN..ROPE_D_K_MAX; an odd value between two goes down."""
    value = min(max(value, ROPE_D_K_MIN), ROPE_D_K_MAX)
    return value if value % 2 == 0 else (value - 1 if value - 1 >= ROPE_D_K_MIN else value + 1)


def parse_pos_dk(raw: object, settings: Settings) -> tuple[int, Fix | None]:
    """An even d_k. Odd ones become the nearest even one with reason `odd_d_k` (RoPE turns pairs of numbers,
    an odd d_k leaves one without a partner); out of range clamps; garbage gives the default."""
    default = default_dk(settings)
    if url.missing(raw):
        return default, None
    if not url.is_number(raw) or isinstance(raw, bool):
        return default, _fix("pos_dk", raw, default, "unreadable")
    value, ok = clamp_int(raw, ROPE_D_K_MIN, ROPE_D_K_MAX, default)
    whole, _ = clamp_int(raw, -(10**18), 10**18, default)  # the number asked for, before clamping ("1" is odd too)
    if whole % 2:
        used = nearest_even(whole)
        return used, _fix("pos_dk", raw, used, "odd_d_k")
    return value, None if ok else _fix("pos_dk", raw, value, "out_of_range")


def parse_pos_base(raw: object) -> tuple[float, Fix | None]:
    """A RoPE base above 1, at most ROPE_BASE_MAX. At most 1 (or 0, negative) -> the default 10 000 with
    reason `base_at_most_1` (the page says why: with base 1 every pair turns alike; core raises for it);
    above the limit clamps; unreadable, NaN or infinite text -> the default."""
    default = _float_default("pos_base")
    if url.missing(raw):
        return default, None
    if isinstance(raw, bool):
        return default, _fix("pos_base", raw, default, "unreadable")
    text = str(raw).strip()
    if len(text) > MAX_INT_CHARS:
        body = text[1:] if text[:1] in "+-" else text
        if not body.isdigit():
            return default, _fix("pos_base", raw, _num(default), "unreadable")
        value = -math.inf if text.startswith("-") else math.inf
    else:
        try:
            value = float(text)
        except ValueError:
            return default, _fix("pos_base", raw, _num(default), "unreadable")
    if math.isnan(value):
        return default, _fix("pos_base", raw, _num(default), "unreadable")
    if value <= 1:
        return default, _fix("pos_base", raw, _num(default), "base_at_most_1")
    if value > ROPE_BASE_MAX:
        return ROPE_BASE_MAX, _fix("pos_base", raw, _num(ROPE_BASE_MAX), "out_of_range")
    return value, None


def _num(value: float) -> str:
    return f"{value:g}"


@dataclass(frozen=True)
class PageValues:
    """Every URL value of the page, corrected, and what was corrected (in URL_KEYS order)."""

    tab: str
    shuffle: int
    causal: bool
    model: str
    head: int  # of the add section's model (`model`); the shuffle section uses head_random
    head_random: int
    example: int
    d_k: int
    base: float
    grid: int
    pair: int
    at: int
    span: int
    fixes: tuple[Fix, ...] = field(default=())


def _heads_hi(env: url.Env) -> int:
    return heads_of(env["settings"], env["pos_model"]) - 1


# The page's URL keys, declared once (lessons/url.py parses them in this order: pos_head's range depends on
# pos_model, pos_pair's on pos_dk). Keys whose correction the page explains with its own reason (RoPE's odd
# d_k, a base at most 1, a toggle written another way) name their rule.
URL_KEYS: tuple[UrlKey, ...] = (
    UrlKey("pos_tab", "choice", "shuffle", choices=TABS, rule=lambda raw, env: parse_pos_tab(raw)),
    UrlKey("pos_shuffle", "int", 1, lo=SHUFFLE_SEED_MIN, hi=SHUFFLE_SEED_MAX),
    UrlKey("pos_causal", "bool", False, rule=lambda raw, env: parse_pos_causal(raw)),
    UrlKey("pos_model", "choice", "random", choices=MODELS, rule=lambda raw, env: parse_pos_model(raw)),
    UrlKey("pos_head", "int", 0, lo=0, hi=_heads_hi, note="0..h-1 of the section's model (12 on the real one)"),
    UrlKey("pos_example", "int", 0, lo=0, hi=len(EXAMPLES) - 1),
    UrlKey(
        "pos_dk",
        "even_int",
        lambda env: default_dk(env["settings"]),
        lo=ROPE_D_K_MIN,
        hi=ROPE_D_K_MAX,
        rule=lambda raw, env: parse_pos_dk(raw, env["settings"]),
        note="the shared d_k when it is even, else the nearest even d_k (d_k 1 -> 2)",
    ),
    UrlKey(
        "pos_base",
        "float",
        P.ROPE_BASE,
        lo=1.0,
        hi=ROPE_BASE_MAX,
        rule=lambda raw, env: parse_pos_base(raw),
        note="above 1 (1 itself is refused)",
    ),
    UrlKey("pos_grid", "int", GRID_DEFAULT, lo=2, hi=ROPE_GRID_MAX),
    UrlKey("pos_pair", "int", 0, lo=0, hi=lambda env: env["pos_dk"] // 2 - 1, note="0..d_k/2-1"),
    UrlKey("pos_at", "int", 3, lo=0, hi=ROPE_DISTANCE_MAX),
    UrlKey("pos_span", "choice", 64, choices=SPANS, rule=lambda raw, env: parse_pos_span(raw)),
)
URL_KEY = {k.name: k for k in URL_KEYS}


def _float_default(name: str) -> float:
    value = URL_KEY[name].default
    assert isinstance(value, (int, float)), name
    return float(value)


FIELD = {
    "pos_tab": "tab",
    "pos_shuffle": "shuffle",
    "pos_causal": "causal",
    "pos_model": "model",
    "pos_head": "head",
    "pos_example": "example",
    "pos_dk": "d_k",
    "pos_base": "base",
    "pos_grid": "grid",
    "pos_pair": "pair",
    "pos_at": "at",
    "pos_span": "span",
}  # URL key -> PageValues field


def parse_url(raw: Mapping[str, object], settings: Settings) -> PageValues:
    """All of the page's URL values from a raw mapping (missing keys: defaults, silently)."""
    values, fixes = url.parse(URL_KEYS, raw, {"settings": settings})
    got = {FIELD[k]: v for k, v in values.items()}
    got["head_random"] = min(got["head"], settings.num_heads - 1)
    return PageValues(**got, fixes=tuple(fixes))
