"""The lessons moved out of core/ for issue 19 (Why many heads, the quiz) are plain data: they import only core,
lessons, numpy/torch and the standard library (no Streamlit, plotly, figures or strings), and the quiz hands out
keys and values that the page words (ui/words.py), never one language's text."""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest

from i18n import plain
from lessons import heads as HEADS
from lessons import quiz as Q
from lessons import real_heads as REAL
from lessons import scenario
from lessons import why_heads as W
from lessons.heatmap import Text, text
from lessons.settings import Settings
from ui.words import in_language, word

BANNED = ("streamlit", "plotly", "i18n", "i18n.strings", "core.figures", "ui", "charts", "pandas")
CJK = re.compile(r"[\u3400-\u9fff\uff00-\uffef]")


def imports_of(module) -> set[str]:
    """Every import of the module's file, or of every file of a package (lessons/quiz/ is one)."""
    path = Path(module.__file__)
    files = sorted(path.parent.glob("*.py")) if path.name == "__init__.py" else [path]
    names = set()
    for node in (n for f in files for n in ast.walk(ast.parse(f.read_text(encoding="utf-8")))):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            names.add(node.module or "")
    return names


@pytest.mark.parametrize("module", [W, Q, HEADS, REAL], ids=["why_heads", "quiz", "heads", "real_heads"])
def test_imports_only_core_lessons_torch_and_the_standard_library(module):
    names = imports_of(module)
    assert not {n for n in names if any(n == b or n.startswith(b + ".") for b in BANNED)}, names
    roots = {n.split(".")[0] for n in names}
    assert roots - {"core", "lessons", "torch", "numpy"} <= set(sys.stdlib_module_names) | {"__future__"}, roots


def test_core_keeps_no_copy_of_the_moved_modules():
    root = Path(__file__).resolve().parent.parent
    assert not (root / "core" / "why_heads.py").exists() and not (root / "core" / "quiz.py").exists()
    assert not (root / "core" / "live_curve.py").exists() and (root / "charts" / "live_curve.py").exists()
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


def test_no_lesson_writes_markup():
    """Lessons return plain data; HTML and SVG diagrams are rendering and live in charts/ (charts/diagrams.py)."""
    root = Path(__file__).resolve().parent.parent
    markup = re.compile(r"<(div|span|svg|table|style|b|br)[\s>/]")
    found = [
        f"{path.relative_to(root)}:{i}"
        for path in sorted((root / "lessons").rglob("*.py"))
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if markup.search(line)
    ]
    assert not found, found
