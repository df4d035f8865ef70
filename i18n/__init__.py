"""The string table: every text the app shows, in Chinese and English.

Chinese wording follows the seed text (多头注意力, 注意力头, 查询/键/值, 拼接, 掩码 ...).
"""

from __future__ import annotations

import importlib
import pkgutil
import re

import i18n.strings

LANGS = ("zh", "en")
DEFAULT_LANG = "en"


def _load() -> dict[str, dict[str, str]]:
    table: dict[str, dict[str, str]] = {}
    for info in sorted(pkgutil.iter_modules(i18n.strings.__path__), key=lambda i: i.name):
        module = importlib.import_module(f"i18n.strings.{info.name}")
        for key, texts in module.STRINGS.items():
            if key in table:
                raise ValueError(f"string key {key!r} is defined twice (i18n/strings/{info.name}.py)")
            table[key] = texts
    return table


STRINGS = _load()


# A number in scientific notation ("1.34e-07"): its minus becomes a non-breaking hyphen, so a narrow screen
# (a phone, 390 px) never breaks it into "1.34e-" and "07" (browsers break lines after a hyphen).
_SCI = re.compile(r"(\d[eE])-(\d)")
NB_HYPHEN = "\u2011"


def t(key: str, lang: str, /, **fmt) -> str:
    """The text for `key` in `lang`, formatted with `fmt`; a missing key raises KeyError."""
    text = STRINGS[key][lang if lang in LANGS else DEFAULT_LANG]
    return nobreak(text.format(**fmt)) if fmt else text


def nobreak(text: str) -> str:
    """`text` with the minus of every number in scientific notation as a non-breaking hyphen (as t() prints it)."""
    return _SCI.sub(rf"\1{NB_HYPHEN}\2", text)


# Bidi embeddings/overrides/isolates (U+202E reverses a whole notice), marks, zero-width characters and the
# BOM: removed, like every control character (NUL, ESC, DEL, C1), so a quoted value reads as it is typed.
_INVISIBLE = re.compile(
    "[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]"
)


def literal(value, limit: int = 24) -> str:
    """User text as a reader should see it: control and bidi characters removed, whitespace collapsed to
    single spaces, shortened to `limit` characters ('...' at the end when cut). Not yet escaped: see plain()."""
    text = _INVISIBLE.sub("", "" if value is None else str(value)[:100_000])
    text = " ".join(text.split())  # no line breaks: they would start new markdown blocks
    return text if len(text) <= limit else text[: limit - 3] + "..."


def plain(value, limit: int = 24) -> str:
    """THE way to quote user text (a URL value, a typed text, a token) inside a markdown message.

    literal() (no control or bidi characters, shortened), as a markdown code span: the one markdown
    construct whose content is never parsed, so `<script>`, `**x**`, `![x](http://...)`, a bare URL (GFM
    would link it even with every character backslash-escaped), `:red[x]` or `$x$` show as the characters
    typed (tests/test_notices_browser.py renders them in Chromium). Empty text gives ''."""
    text = literal(value, limit)
    if not text:
        return ""
    fence = "`" * (max((len(run) for run in re.findall("`+", text)), default=0) + 1)
    return f"{fence} {text} {fence}"  # the spaces are dropped by markdown; they let text start with a backtick


def lang_from_locale(locale: str | None) -> str:
    """'zh-CN', 'zh_TW', 'zh' -> 'zh'; anything else (or nothing) -> 'en'."""
    return "zh" if locale and str(locale).lower().startswith("zh") else "en"
