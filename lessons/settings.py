"""The app's shared settings, declared like every other value a link or a widget gives (lessons/url.py's
`UrlKey`), and parsed by the same parser: any raw value (URL text, widget value) becomes a valid one.

Bad input is corrected to the nearest valid setting, never refused: every correction is returned as a
`lessons.url.Fix` so the page can say what it changed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from core.limits import (
    D_MODEL_CHOICES,
    MAX_HEADS,
    SEED_MAX,
    SEED_MIN,
    SEQ_LEN_MAX,
    SEQ_LEN_MIN,
    check_range,
)
from core.masks import MASK_KINDS
from core.validation import divisors
from lessons.url import Env, Fix, UrlKey, nearest, parse
from lessons.url import clamp_int as clamp_int  # re-exported: lessons/positions reads it from here

LANGS = ("zh", "en")  # the languages the app speaks: i18n words them (tests/test_app.py checks the two agree)
DEFAULTS: dict[str, int | str] = {"d_model": 64, "num_heads": 4, "seq_len": 8, "mask": "none", "seed": 0}
Correction = Fix  # what sanitize reports (the name the settings file import and older tests use)


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


def _heads_default(env: Env) -> int:
    return nearest(int(DEFAULTS["num_heads"]), head_choices(env["d_model"]))


# The shared settings (app.py's sidebar), in the order they depend on each other: num_heads' choices are the
# divisors of the d_model above it; lang's default is the reader's browser language (env "default_lang").
SETTING_URL_KEYS: tuple[UrlKey, ...] = (
    UrlKey("d_model", "choice", DEFAULTS["d_model"], choices=D_MODEL_CHOICES),
    UrlKey("num_heads", "choice", _heads_default, choices=lambda env: tuple(head_choices(env["d_model"]))),
    UrlKey("seq_len", "int", DEFAULTS["seq_len"], lo=SEQ_LEN_MIN, hi=SEQ_LEN_MAX),
    UrlKey("mask", "choice", DEFAULTS["mask"], choices=MASK_KINDS),
    UrlKey("seed", "int", DEFAULTS["seed"], lo=SEED_MIN, hi=SEED_MAX),
    UrlKey("lang", "choice", lambda env: env.get("default_lang", "en"), choices=LANGS),
)
SETTING_KEYS = tuple(k.name for k in SETTING_URL_KEYS)


def settings_of(values: Mapping[str, Any]) -> Settings:
    """Settings from values `parse(SETTING_URL_KEYS, ...)` made valid: built without checking them again."""
    settings = object.__new__(Settings)
    for key in SETTING_KEYS:
        object.__setattr__(settings, key, values[key])
    return settings


def sanitize(raw: Mapping[str, object], default_lang: str = "en") -> tuple[Settings, list[Fix]]:
    """Turn raw values (any type, any garbage, missing keys) into valid Settings.

    Missing keys take their default silently; present but invalid ones are corrected to
    the nearest valid value and reported.
    """
    values, fixes = parse(SETTING_URL_KEYS, raw, {"default_lang": default_lang})
    return settings_of(values), fixes
