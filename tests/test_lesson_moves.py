"""The lessons moved out of core/ for issue 19 (Why many heads, the quiz) are plain data: they import only core,
lessons, numpy/torch and the standard library (no Streamlit, plotly, figures or strings), and the quiz hands out
keys and values that the page words (ui/words.py), never one language's text."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from i18n import plain
from lessons import quiz as Q
from lessons import scenario
from lessons.heatmap import Text, text
from lessons.settings import Settings
from ui.words import in_language, word

CJK = re.compile(r"[\u3400-\u9fff\uff00-\uffef]")


def test_core_keeps_no_copy_of_the_moved_modules():
    root = Path(__file__).resolve().parent.parent
    assert not (root / "core" / "why_heads.py").exists() and not (root / "core" / "quiz.py").exists()
    assert not (root / "core" / "live_curve.py").exists() and not (root / "charts" / "live_curve.py").exists()
    assert not (root / "core" / "heads.py").exists()  # lessons/heads/; core/pretrained.py keeps loading only
    assert not any(hasattr(__import__("core.pretrained").pretrained, f) for f in ("read", "ablate", "pattern_scores"))


@pytest.mark.parametrize(
    "settings", [Settings(64, 4, 8, "none", 0, "zh"), Settings(8, 1, 2, "causal", 3, "zh")], ids=["default", "smallest"]
)
def test_every_quiz_text_is_keys_and_values_worded_by_the_page(settings):
    """Built with lang=zh, no text the lesson returns holds Chinese (nor English words of its own): the words come
    from the keys, in whichever language the page asks for."""
    run = scenario.run(settings)
    questions = Q.quiz_set(run)
    assert len(questions) == 28

    def walk(w):
        if isinstance(w, Text):
            assert isinstance(w.key, str) and "." in w.key
            for _, v in w.params:
                if isinstance(v, (Text, Q.Join, Q.Quoted)):
                    walk(v)
        elif isinstance(w, Q.Join):
            for p in w.parts:
                walk(p)
        elif isinstance(w, str):
            assert not re.search(r"[A-Za-z]{4,}", w.replace("MiB", "")) or "·" in w or "=" in w, w
        return w

    for q in questions:
        for w in (Q.prompt_text(q), Q.why_text(q), Q.answer_text(q), Q.hint_text(q), Q.see_it_link(q, settings).label):
            walk(w)
            en, zh = in_language(w, "en"), in_language(w, "zh")
            assert en and zh
            if isinstance(w, Text):
                assert en != zh or not CJK.search(zh)  # a key: each language its own text
        for w in (Q.prompt_text(q), Q.hint_text(q)):
            assert not CJK.search(in_language(w, "en")) or "token" in q.facts, in_language(w, "en")


def test_word_resolves_nested_keys_joins_and_quoted_user_text():
    said = []

    def t(key, **kw):
        said.append((key, kw))
        return {"quiz.head": "head {j}", "mask.causal": "causal"}.get(key, key).format(**kw)

    nested = text("quiz.x", mask_name=text("mask.causal"), n=3)
    assert word(nested, t) == "quiz.x" and said[-1] == ("quiz.x", {"mask_name": "causal", "n": 3})
    assert word(Q.Join((text("quiz.head", j=0), text("quiz.head", j=3))), t) == "head 0, head 3"
    assert word(Q.Quoted("a*b", 40), t) == plain("a*b", 40) and "`" in plain("a*b", 40)  # a code span
    assert word("(1, 4, 8, 8)", t) == "(1, 4, 8, 8)"


def test_every_lesson_package_is_checked_for_cycles_inside():
    """A lesson split into a package (lessons/<x>/) is listed in import-linter's no-cycles contract, so its
    modules cannot import each other in a circle (scripts/check.sh runs lint-imports)."""
    import tomllib

    root = Path(__file__).resolve().parent.parent
    contracts = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    ancestors = next(c for c in contracts if c["id"] == "no-cycles")["ancestors"]
    packages = {f"lessons.{p.name}" for p in (root / "lessons").iterdir() if (p / "__init__.py").exists()}
    assert packages, "no lesson package found"
    assert packages <= set(ancestors), sorted(packages - set(ancestors))
