"""Issue 24.3: a notice that quotes user text shows it as literal text.

Every URL key of every page (lessons/url_keys.py, the one table of them) gets markup payloads: an image from
another host, a "Sign in" link, a colour directive, KaTeX (a formula 97,000 px tall), raw HTML, a bidi
override (U+202E reversed a whole notice) and a NUL. Every quoted value in every notice must be i18n.plain's
output: a markdown code span (never parsed: no link, image, LaTeX, directive, HTML), no control or bidi
character, shortened; and no payload's markup may stand anywhere in a notice outside a code span.
tests/test_notices_browser.py renders such notices in Chromium and checks what a student actually sees.
"""

from __future__ import annotations

import re

import pytest
from conftest import run_app

import i18n
from i18n import literal, plain
from lessons import url_keys

PAYLOADS = [
    "![i](http://evil.example/x.png)",
    "[Sign in](http://evil.example/login)",
    ":red[RED] :rainbow-background[x]",
    "$\\rule{1px}{97000px}$",
    "\u202eEVIL\u2066x\u2069",
    "a\x00b\x1b[31mc",
    "**bold** <b>x</b> `code` # h",
    "<img src=http://evil.example/y.png>",
]
LITERAL = re.compile(r"(`+) (.+) \1")  # a code span, as plain() makes it
INVISIBLE = re.compile("[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]")
QUOTED = re.compile("“(.*?)”")


APP_TEXT = "\n".join(text for texts in i18n.STRINGS.values() for text in texts.values())  # “quotes” the app wrote


def notices(at) -> list[str]:
    return [n.value for kind in ("warning", "error", "info", "success") for n in getattr(at, kind)]


RAW = ("![", "](", ":red[", ":rainbow", "$\\rule", "<img", "<b>", "**bold", "`code", "\x00", "\x1b", "\u202e", "\u2066")


def check_quotes(at) -> list[str]:
    """Every quoted value of every notice, after checking that it is literal text (and that no notice
    holds a payload's markup unescaped anywhere, quoted or not)."""
    for body in notices(at):
        outside = LITERAL.sub("", body)
        assert not any(r in outside for r in RAW), f"markup in a notice: {body!r}"
    quoted = [q for body in notices(at) for q in QUOTED.findall(body) if q not in APP_TEXT]
    for q in quoted:
        assert LITERAL.fullmatch(q), f"markup in a notice: {q!r}"
        assert not INVISIBLE.search(q), f"a control or bidi character in a notice: {q!r}"
        assert len(LITERAL.fullmatch(q).group(2)) <= 40, q
    return quoted


def test_plain_is_literal_and_bounded():
    for p in PAYLOADS + ["x" * 10_000, "\u202e" * 5000 + "abc"]:
        q = plain(p)
        assert LITERAL.fullmatch(q) and not INVISIBLE.search(q), q
        assert len(literal(p)) <= 24
    assert literal("\u202eEVIL") == "EVIL" and literal("a\x00b") == "ab"
    assert plain("$x$") == "` $x$ `" and plain(":red[x]") == "` :red[x] `" and plain("a`b") == "`` a`b ``"
    assert plain("") == "" and plain("\u202e") == ""


@pytest.mark.app
@pytest.mark.parametrize("key", [k for k in url_keys.EVERY_PAGE if k != url_keys.GRID])
def test_every_shared_key_quotes_a_bad_value_literally(key):
    payload = PAYLOADS[url_keys.EVERY_PAGE.index(key) % len(PAYLOADS)]
    at = run_app(None, lang="en", **{key: payload}) if key != "lang" else run_app(None, lang=payload)
    assert not at.exception, at.exception
    check_quotes(at)
    assert any(plain(payload) in body for body in notices(at)), (key, notices(at))  # said, quoted literally


@pytest.mark.app
@pytest.mark.parametrize("url", list(url_keys.PAGE_KEYS), ids=lambda u: u or "home")
def test_every_key_of_every_page_with_markup_payloads(url):
    page = {"": None}.get(url, url)
    seen = 0
    for n, payload in enumerate(PAYLOADS):
        keys = url_keys.keys_of(url)
        query = {k: PAYLOADS[(i + n) % len(PAYLOADS)] for i, k in enumerate(keys) if k != "lang"}
        query["lang"] = "en"
        at = run_app(page, **query)
        assert not at.exception, (url, payload, at.exception)
        seen += len(check_quotes(at))
    assert seen >= 4, (url, seen)  # the shared settings and display options at least said what they corrected


@pytest.mark.app
def test_real_heads_link_line_shows_dollar_tokens_literally():
    at = run_app("real-model", lang="en", real_text="It costs $ 5 or $ 6.", real_tab="link")
    assert not at.exception, at.exception
    options = at.selectbox(key="real_from").options
    dollars = [i for i, label in enumerate(options) if label.endswith(": $")]
    assert len(dollars) == 2, options
    at.selectbox(key="real_from").set_value(dollars[0])
    at.selectbox(key="real_to").set_value(dollars[1])
    at.run()
    line = next(m.value for m in at.markdown if "Strongest heads for" in m.value)
    assert line == i18n.t("real.link.result", "en", q="` $ `", k="` $ `"), line  # two $ no longer make a formula


@pytest.mark.app
def test_corrections_are_in_the_main_area_once_not_in_the_sidebar():
    """A phone shows the sidebar collapsed: a link's corrections are said at the top of the main area."""
    from lessons.settings import head_choices

    at = run_app("walkthrough", d_model=64, num_heads=7, palette="neon", lang="en")
    assert not at.exception, at.exception
    heads = i18n.t(
        "notice.num_heads_divisor",
        "en",
        given=plain("7"),
        used=8,
        d_model=64,
        choices=", ".join(map(str, head_choices(64))),
    )
    palette = i18n.t("notice.corrected", "en", key="palette", given=plain("neon"), used="colorblind")
    main = [w.value for w in at.main.warning]
    assert heads in main and palette in main, main
    assert main.index(palette) < 2 and main.index(heads) < 2  # first on the page, above its own content
    assert not at.sidebar.warning and not at.sidebar.error
    at.sidebar.slider(key="seq_len").set_value(5).run()  # a step: the notices are not said again
    assert not at.exception
    assert heads not in [w.value for w in at.warning] and palette not in [w.value for w in at.warning]
