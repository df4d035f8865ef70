"""The app's shared settings and how any raw value (URL text, widget value) becomes a valid one.

Bad input is corrected to the nearest valid setting, never refused: every correction is
returned as a `Correction` so the page can say what it changed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from core.limits import (
    D_MODEL_CHOICES,
    MAX_HEADS,
    MAX_INT_CHARS,
    SEED_MAX,
    SEED_MIN,
    SEQ_LEN_MAX,
    SEQ_LEN_MIN,
    check_range,
)
from core.masks import MASK_KINDS
from core.validation import divisors

LANGS = ("zh", "en")  # the languages the app speaks: i18n words them (tests/test_app.py checks the two agree)
T = TypeVar("T")

DEFAULTS: dict[str, int | str] = {"d_model": 64, "num_heads": 4, "seq_len": 8, "mask": "none", "seed": 0}
SETTING_KEYS = ("d_model", "num_heads", "seq_len", "mask", "seed", "lang")


def head_choices(d_model: int) -> list[int]:
    """The num_heads values offered for d_model: its divisors, up to MAX_HEADS."""
    return [h for h in divisors(d_model) if h <= MAX_HEADS]


@dataclass(frozen=True)
class Settings:
    d_model: int
    num_heads: int
    seq_len: int
    mask: str
    seed: int
    lang: str

    def __post_init__(self) -> None:
        """Settings outside the limits (core/limits.py) cannot exist: sanitize() corrects raw input,
        and code that builds Settings itself gets a clear ValueError instead of a huge run."""
        if self.d_model not in D_MODEL_CHOICES:
            raise ValueError(f"d_model must be one of {D_MODEL_CHOICES}, got {self.d_model!r}")
        if self.num_heads not in head_choices(self.d_model):
            raise ValueError(
                f"num_heads must be one of {head_choices(self.d_model)} for d_model={self.d_model}, "
                f"got {self.num_heads!r}"
            )
        check_range("seq_len", self.seq_len, SEQ_LEN_MIN, SEQ_LEN_MAX)
        check_range("seed", self.seed, SEED_MIN, SEED_MAX)
        if self.mask not in MASK_KINDS:
            raise ValueError(f"mask must be one of {MASK_KINDS}, got {self.mask!r}")
        if self.lang not in LANGS:
            raise ValueError(f"lang must be one of {LANGS}, got {self.lang!r}")

    @property
    def d_k(self) -> int:
        return self.d_model // self.num_heads


@dataclass(frozen=True)
class Correction:
    key: str
    given: str  # what came in, as text (shortened)
    used: str  # what is used instead


def _as_int(raw: object) -> int | None:
    if isinstance(raw, bool):
        return None
    if isinstance(raw, int):
        return raw
    text = str(raw).strip()
    if len(text) > MAX_INT_CHARS:  # never parse an unbounded string: a long run of digits is just "huge"
        body = text[1:] if text[:1] in "+-" else text
        return (-1 if text.startswith("-") else 1) * 10**18 if body.isdigit() else None
    try:
        return int(text)
    except ValueError:
        try:
            value = float(text)
        except ValueError:
            return None
        if value != value:  # NaN
            return None
        # Like a long run of digits, a huge float ("1e30", "inf") is just "huge": it clamps, not resets.
        return int(round(value)) if abs(value) < 1e15 else (-1 if value < 0 else 1) * 10**18


def _nearest(value: int, choices: Sequence[int]) -> int:
    """The closest choice; ties go to the smaller one."""
    return min(choices, key=lambda c: (abs(c - value), c))


def clamp_int(raw: object, lo: int, hi: int, default: int, choices: Sequence[int] | None = None) -> tuple[int, bool]:
    """Any raw value (URL text, widget value, garbage) as an int in lo..hi, or the nearest of `choices`.

    Returns (value, ok): ok is False when the raw value had to be corrected. Unreadable values
    (None, text, NaN) give `default`; huge ones ("1e30", a long run of digits) clamp.
    """
    value = _as_int(raw)
    if value is None:
        return default, False
    used = min(max(value, lo), hi)
    if choices is not None:
        used = _nearest(used, choices)
    return used, str(raw).strip() == str(used)


def _shown(raw: object) -> str:
    text = str(raw)
    return text if len(text) <= 24 else text[:21] + "..."


def sanitize(raw: Mapping[str, object], default_lang: str = "en") -> tuple[Settings, list[Correction]]:
    """Turn raw values (any type, any garbage, missing keys) into valid Settings.

    Missing keys take their default silently; present but invalid ones are corrected to
    the nearest valid value and reported.
    """
    fixes: list[Correction] = []

    def fix(key: str, given: object, used: T) -> T:
        fixes.append(Correction(key, _shown(given), str(used)))
        return used

    def number(key: str, lo: int, hi: int, choices: Sequence[int] | None = None) -> int:
        base = DEFAULTS[key]
        assert isinstance(base, int), key
        default = base if choices is None else _nearest(base, choices)
        given = raw.get(key)
        if given is None or given == "":
            return default
        used, ok = clamp_int(given, lo, hi, default, choices)
        return used if ok else fix(key, given, used)

    d_model = number("d_model", D_MODEL_CHOICES[0], D_MODEL_CHOICES[-1], D_MODEL_CHOICES)
    heads = head_choices(d_model)
    num_heads = number("num_heads", 1, MAX_HEADS, heads)
    seq_len = number("seq_len", SEQ_LEN_MIN, SEQ_LEN_MAX)
    seed = number("seed", SEED_MIN, SEED_MAX)

    default_mask = str(DEFAULTS["mask"])
    given_mask = raw.get("mask", default_mask)
    mask = default_mask
    if given_mask is None or given_mask == "":
        pass
    elif isinstance(given_mask, str) and given_mask in MASK_KINDS:
        mask = given_mask
    else:
        fix("mask", given_mask, default_mask)

    given_lang = raw.get("lang", default_lang)
    lang = default_lang
    if given_lang is None or given_lang == "":
        pass
    elif isinstance(given_lang, str) and given_lang in LANGS:
        lang = given_lang
    else:
        fix("lang", given_lang, default_lang)

    return Settings(d_model, num_heads, seq_len, mask, seed, lang), fixes
