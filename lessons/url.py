"""Every value that comes from a link or a widget, declared once: one `UrlKey` per key, one `parse` for any raw text.

The shared settings (lessons/settings.SETTING_URL_KEYS), the display options (ui/display.DISPLAY_URL_KEYS) and
each page's keys (its lesson's `URL_KEYS`) are declared the same way (name, kind, allowed values or range,
default), and nothing else parses them: `parse` turns raw values (a link's text, a widget's value, garbage) into
valid ones and says what it corrected; `ui.url_state.settle`, the one loop, reads the URL and the widgets, calls
it once a step, shows a notice for each correction a link caused and writes the corrected value back. Before
that, lessons/url_keys.plan_link bounds what a link may carry at all.

A bound or default may depend on the shared settings or on a key declared earlier (the step slider's length
depends on the block sizes): give it as a function of `env`, a mapping that holds the `settings` and every value
parsed so far. Keys are parsed in declaration order, so a key may depend only on keys above it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from lessons.limits import MAX_INT_CHARS

KINDS = ("int", "even_int", "float", "choice", "bool")
Env = Mapping[str, Any]
Bound = Any  # a number / option / tuple, or a function env -> that

TRUE = ("1", "true", "yes", "on")
FALSE = ("0", "false", "no", "off")


@dataclass(frozen=True)
class UrlKey:
    """One URL key of a page.

    kind "int" / "even_int" / "float": `lo`..`hi` inclusive (a choice of ints is a "choice" with int options);
    "choice": one of `choices` (text compared without case and spaces; int options also take a number, moved to
    the nearest option); "bool": 1/0, true/false, yes/no, on/off. `default`: used silently when the key is
    missing, and after an unreadable value (reported). `note`: a word on the range for readers of the table."""

    name: str
    kind: str
    default: Bound
    lo: Bound = None
    hi: Bound = None
    choices: Bound = ()
    note: str = ""
    # A key whose correction is part of the lesson (RoPE's odd d_k is refused *with a reason*) gives its own
    # rule: (raw, env) -> (value, Fix | None), called for present values instead of the kind's rule.
    rule: Callable[[object, Env], tuple[Any, Fix | None]] | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"{self.name}: kind must be one of {KINDS}, got {self.kind!r}")

    def resolved(self, env: Env) -> dict[str, Any]:
        """This key's concrete default, range and choices for `env`."""
        out = {f: _value(getattr(self, f), env) for f in ("default", "lo", "hi", "choices")}
        out["choices"] = tuple(out["choices"] or ())
        return out


@dataclass(frozen=True)
class Fix:
    """What parsing changed: the raw value (shortened), the value used instead, and why.

    reason: "unreadable" (not a number / not an option: the default is used), "out_of_range" (clamped or moved
    to the nearest option), "odd" (an even number is needed: the nearest even one), "spelling" (an option
    written with other case or spaces)."""

    key: str
    given: str
    used: str
    reason: str


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


def nearest(value: int, choices: Sequence[int]) -> int:
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
        used = nearest(used, choices)
    return used, str(raw).strip() == str(used)


def _value(bound: Bound, env: Env) -> Any:
    return bound(env) if callable(bound) else bound


def shown(raw: object) -> str:
    """A raw value as a notice may quote it: at most 24 characters."""
    text = str(raw)
    return text if len(text) <= 24 else text[:21] + "..."


def missing(raw: object) -> bool:
    return raw is None or (isinstance(raw, str) and raw.strip() == "")


def is_number(raw: object) -> bool:
    """Does raw text read as a finite-or-infinite number (not NaN, not a bool)? A run of more than MAX_INT_CHARS
    digits is a (huge) number without being parsed."""
    if isinstance(raw, bool):
        return False
    text = str(raw).strip()
    if len(text) > MAX_INT_CHARS:
        body = text[1:] if text[:1] in "+-" else text
        return body.isdigit()
    try:
        return not math.isnan(float(text))
    except ValueError:
        return False


def as_url(value: object) -> str:
    """A parsed value as the URL writes it (bools as true/false, like Streamlit's bound widgets)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def parse_value(key: UrlKey, raw: object, env: Env | None = None) -> tuple[Any, Fix | None]:
    """One key's value from any raw value: (value, None) when it was valid or missing, else (the value used,
    the Fix saying why). Never raises."""
    r = key.resolved(env or {})
    default = r["default"]
    if missing(raw):
        return default, None
    if key.rule is not None:
        return key.rule(raw, env or {})

    def fix(used: Any, reason: str) -> tuple[Any, Fix]:
        return used, Fix(key.name, shown(raw), as_url(used), reason)

    if key.kind == "bool":
        if isinstance(raw, bool):
            return raw, None
        text = str(raw).strip().lower()
        if text in TRUE or text in FALSE:
            return text in TRUE, None if str(raw) in ("true", "false") else fix(text in TRUE, "spelling")[1]
        return fix(default, "unreadable")
    if key.kind == "choice":
        options = r["choices"]
        text = str(raw)
        for option in options:
            if text == as_url(option):
                return option, None
        folded = text[:64].strip().lower()
        for option in options:
            if folded == as_url(option).lower():
                return fix(option, "spelling")
        if options and isinstance(options[0], int) and is_number(raw):
            used, _ = clamp_int(raw, min(options), max(options), default, options)
            return fix(used, "out_of_range")
        return fix(default, "unreadable")
    if not is_number(raw):
        return fix(default, "unreadable")
    lo, hi = r["lo"], r["hi"]
    if key.kind == "float":
        value = float(str(raw).strip()) if not isinstance(raw, (int, float)) else float(raw)
        used = min(max(value, lo), hi) if math.isfinite(value) else (hi if value > 0 else lo)
        if used == value:
            return value, None
        return fix(used, "out_of_range")
    used, ok = clamp_int(raw, lo, hi, default)
    if key.kind == "even_int" and used % 2:
        used = used + 1 if used + 1 <= hi else used - 1
        return fix(used, "odd")
    return (used, None) if ok else fix(used, "out_of_range")


def parse(
    keys: Sequence[UrlKey], raw: Mapping[str, object], env: Env | None = None
) -> tuple[dict[str, Any], list[Fix]]:
    """Every key's value from `raw` (missing keys take their defaults), in declaration order, each parsed value
    joining `env` for the keys below it. Returns (values by key name, the fixes made)."""
    scope: dict[str, Any] = dict(env or {})
    values: dict[str, Any] = {}
    fixes: list[Fix] = []
    for key in keys:
        value, f = parse_value(key, raw.get(key.name), scope)
        values[key.name] = scope[key.name] = value
        if f is not None:
            fixes.append(f)
    return values, fixes


def names(keys: Sequence[UrlKey]) -> tuple[str, ...]:
    return tuple(k.name for k in keys)


def key_range(keys: Sequence[UrlKey], name: str, env: Env) -> tuple[Any, Any]:
    """The lo..hi of the key `name` for `env`: what its widget offers, so the widget and the link agree."""
    resolved = next(k for k in keys if k.name == name).resolved(env)
    return resolved["lo"], resolved["hi"]


def key_default(keys: Sequence[UrlKey], name: str, env: Env) -> Any:
    """The default of the key `name` for `env`: what its bound widget starts at. Streamlit's client leaves a bound
    widget's value out of the link when it equals the widget's own default, and a link without the key opens at
    this default: the two must be one value, or a chosen row 0 reopens at the last row."""
    return _value(next(k for k in keys if k.name == name).default, env)


def setting(name: str, offset: int = 0) -> Callable[[Env], int]:
    """A bound that is a shared setting (plus `offset`): `hi=setting("num_heads", -1)` is the last head."""
    return lambda env: getattr(env["settings"], name) + offset


__all__ = [
    "KINDS",
    "Fix",
    "UrlKey",
    "as_url",
    "clamp_int",
    "is_number",
    "missing",
    "names",
    "nearest",
    "parse",
    "parse_value",
    "setting",
    "shown",
]
