"""Wording a lesson's Words (lessons.quiz: a strings key with values, a Join, a Quoted user text, or a
language-neutral str) in the page's language: `word(words, ctx.t)`. Values that are Words themselves are worded
first (e.g. a mask's name inside a prompt)."""

from __future__ import annotations

from charts.payload import Say
from i18n import plain
from lessons.heatmap import Text
from lessons.quiz import Join, Quoted


def word(words, t: Say) -> str:
    if isinstance(words, Text):
        return t(words.key, **{k: word(v, t) if isinstance(v, (Text, Join, Quoted)) else v for k, v in words.params})
    if isinstance(words, Join):
        return words.sep.join(word(p, t) for p in words.parts)
    if isinstance(words, Quoted):
        return plain(words.value, words.limit)
    return str(words)


__all__ = ["in_language", "word"]


def in_language(words, lang: str) -> str:
    """word() with i18n's text of `lang` (for code without a page context: tests, tools)."""
    import i18n

    return word(words, lambda key, **kw: i18n.t(key, lang, **kw))
