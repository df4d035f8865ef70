"""The string table: every text the app shows, in Chinese and English.

Chinese wording follows the seed text (多头注意力, 注意力头, 查询/键/值, 拼接, 掩码 ...).
"""

from __future__ import annotations

import importlib
import pkgutil
import re

import core.strings

LANGS = ("zh", "en")
DEFAULT_LANG = "en"


def _load() -> dict[str, dict[str, str]]:
    table: dict[str, dict[str, str]] = {}
    for info in sorted(pkgutil.iter_modules(core.strings.__path__), key=lambda i: i.name):
        module = importlib.import_module(f"core.strings.{info.name}")
        for key, texts in module.STRINGS.items():
            if key in table:
                raise ValueError(f"string key {key!r} is defined twice (core/strings/{info.name}.py)")
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
    return _SCI.sub(rf"\1{NB_HYPHEN}\2", text.format(**fmt)) if fmt else text


# Markdown (and Streamlit's own :color[...] / $latex$ syntax) that a quoted value could trigger.
_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()<>#+\-.!|~$:&\"'=])")


def plain(value, limit: int = 24) -> str:
    """User text quoted inside a markdown message: shortened to `limit` characters and every markdown/HTML
    character backslash-escaped, so `<script>`, `**x**` or `:red[x]` show literally, never as markup."""
    text = " ".join(str(value).split())  # no line breaks: they would start new markdown blocks
    text = text if len(text) <= limit else text[: limit - 3] + "..."
    return _MD_SPECIAL.sub(r"\\\1", text)


def lang_from_locale(locale: str | None) -> str:
    """'zh-CN', 'zh_TW', 'zh' -> 'zh'; anything else (or nothing) -> 'en'."""
    return "zh" if locale and str(locale).lower().startswith("zh") else "en"
