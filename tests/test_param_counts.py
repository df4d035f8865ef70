"""Every parameter count the app prints, read through the same cached (frozen) path the page uses (issue 20).

A model shared by every session is frozen (core/frozen.py): its parameters become read-only buffers and
`parameters()` is empty, so a count written as `sum(p.numel() for p in model.parameters())` said 0. The
counts now come from the layer shapes (core.accounting.weight_count).
"""

from __future__ import annotations

import re

import pytest
from conftest import run_app

from core.accounting import totals, weight_count
from core.attention import build_model
from core.frozen import freeze
from lessons import quiz as Q
from lessons import scenario
from lessons import why_heads as W
from lessons.settings import Settings


def _text(at) -> str:
    return "\n".join(str(getattr(e, "value", "")) for e in (*at.markdown, *at.caption, *at.info, *at.success))


@pytest.mark.parametrize("d_model,h", [(8, 1), (64, 4), (512, 64)])
def test_weight_count_of_a_frozen_model_is_its_shapes(d_model, h):
    model = build_model(d_model, h, 0)
    by_hand = 4 * (d_model * d_model + d_model)
    assert weight_count(model) == sum(p.numel() for p in model.parameters()) == by_hand
    frozen = freeze(build_model(d_model, h, 0))
    assert list(frozen.parameters()) == []  # what made the heads page say 0
    assert weight_count(frozen) == by_hand == totals(1, 4, 4, d_model, h).params


def test_weight_count_of_the_why_heads_model_frozen_or_not():
    model = W.build_why_model(4, 0)
    # 13 digits + 8 positions embeddings, the mark vector, attention 4·(32·32+32), readout 32·26+26 (d_model 32)
    expected = sum(p.numel() for p in model.parameters())
    assert W.parameter_count(model) == expected == W.parameter_count(freeze(W.build_why_model(4, 0)))
    assert W.parameter_count(W.build_why_model(1, 0)) == expected  # same for every h


@pytest.mark.app
@pytest.mark.parametrize(
    "lang,expected",
    [
        ("en", "Parameters: 16,640 with h = 1, 16,640 with h = 4."),
        ("zh", "参数：h = 1 时 16,640，h = 4 时 16,640。"),
    ],
)
def test_heads_single_section_counts_parameters_of_the_cached_run(lang, expected):
    for _ in range(2):  # the second run reads the server-wide cache the first one filled (frozen)
        at = run_app("heads", lang=lang, d_model=64, num_heads=4, heads_tab="single")
        assert not at.exception
        assert expected in _text(at)
    assert " 0 with h" not in _text(at) and "时 0。" not in _text(at)


def test_quiz_parameter_answers_are_the_same_from_a_frozen_run():
    run = scenario.run(Settings(64, 4, 8, "none", 0, "en"))
    frozen_run = freeze(scenario.run(Settings(64, 4, 8, "none", 0, "en")))
    live = {q.uid: q.answer for q in Q.build_quiz(run) if q.kind in ("params", "heads_change")}
    cold = {q.uid: q.answer for q in Q.build_quiz(frozen_run) if q.kind in ("params", "heads_change")}
    assert live == cold and live
    assert weight_count(frozen_run.model) == 16640 and weight_count(frozen_run.model.W_q) == 4160


@pytest.mark.app
def test_why_heads_page_prints_the_parameter_count():
    at = run_app("why-heads", lang="en")
    assert not at.exception
    n = W.parameter_count(W.build_why_model(1, 0))
    assert n > 5000 and f"identical ({n} per model)" in _text(at)


@pytest.mark.app
def test_real_model_page_prints_the_parameter_count_of_the_frozen_model():
    at = run_app("real-model", lang="en", timeout=180)
    assert not at.exception
    # all-MiniLM-L6-v2's encoder, counted by hand from its config (d 384, 6 layers, FFN 1536, vocab 30522,
    # 512 positions, 2 token types): BertModel's 22,713,216 without its pooler (384·384 + 384)
    d, ff = 384, 1536
    embeddings = 30522 * d + 512 * d + 2 * d + 2 * d
    layer = 4 * (d * d + d) + 2 * (2 * d) + (d * ff + ff) + (ff * d + d)
    assert embeddings + 6 * layer == 22_713_216 - (d * d + d) == 22_565_376
    found = re.search(r"Model loaded: ([\d,]+) parameters", _text(at))
    assert found, _text(at)[:400]
    assert int(found.group(1).replace(",", "")) == 22_565_376
