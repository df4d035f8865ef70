"""Issue 29.6: Chinese that reads as Chinese. Every page and every section tab, opened in Chinese (AppTest), shows no
English word, URL value or slug and no long number without separators, except what the allow-lists below name with
their reason: symbols, the code's names, the names of models, libraries and formats, units, and the English the real
model reads. Formulas use the seed's Chinese names (头_i、注意力、拼接、多头), not head / Attention / Concat.

What is read (tests/zh_text.py `visible`): text elements, widget labels, help texts and options, tabs, expanders,
tables, HTML diagrams, the heatmaps' worded header (titles, axis titles, panel titles, states, marks, accessible
name) and the line charts' titles and series; not code, and not the hidden carriers of translated choices.
"""

from __future__ import annotations

import re

import pytest
from conftest import run_app
from zh_text import latin, visible

import i18n
from core import pretrained
from lessons import heads, kv_cache, positions, real_heads, scenario, softmax, walkthrough
from lessons import quiz as Q
from lessons.masks_lab.choices import SECTIONS as MASK_TABS
from lessons.settings import Settings
from lessons.why_heads.view import VIEWS as WHY_TABS
from ui.words import in_language

pytestmark = pytest.mark.usefixtures("one_torch_thread")

LARGEST = {"d_model": 512, "num_heads": 16, "seq_len": 32, "mask": "causal"}
# Every page and every section of it (the URL key of its tabs, and their ids).
VIEWS: list[tuple[str | None, dict]] = [
    (None, {}),
    *[("walkthrough", {"walk_view": v}) for v in walkthrough.VIEWS],
    *[("walkthrough", {"walk_step": n}) for n in walkthrough.STEP_NAMES],
    *[("heads", {"heads_tab": t}) for t in heads.SECTIONS],
    *[("heads", {"heads_tab": t, "mask": m}) for t in ("shapes", "cost") for m in ("causal", "padding")],
    *[("masks", {"masks_tab": t}) for t in MASK_TABS],
    *[("masks", {"masks_tab": t, "mask": "causal", "masks_polarity": "block"}) for t in MASK_TABS],
    *[("real-model", {"real_tab": t}) for t in real_heads.VIEWS],
    *[("why-heads", {"why_tab": t}) for t in WHY_TABS],
    *[("softmax", {"soft_tab": t}) for t in softmax.SECTIONS],
    *[("positions", {"pos_tab": t}) for t in positions.TABS],
    ("positions", {"pos_tab": "add", "pos_model": "real"}),
    *[("kv-cache", {"kv_tab": t}) for t in kv_cache.SECTIONS],
    ("kv-cache", {"kv_tab": "memory", "kv_context": 131072, "kv_model": "gpt2-small"}),
    ("kv-cache", {"kv_tab": "memory", "kv_model": "ours"}),
    ("quiz", {}),
    # the largest settings: the biggest numbers every page prints
    *[
        (page, {tab: sid, **LARGEST})
        for page, tab, sid in (
            ("heads", "heads_tab", "cost"),
            ("softmax", "soft_tab", "tiles"),
            ("kv-cache", "kv_tab", "sharing"),
            ("positions", "pos_tab", "shuffle"),
        )
    ],
    (None, LARGEST),
]

# ---------------------------------------------------------------- the allow-lists, each with its reason
# Symbols of the formulas and the code, written the same in every language (X, Q, K, V, h, T, d_k, W_q, ...): any
# single letter, any name with "_" or "." (d_model, q_heads, nn.Linear, F.scaled_dot_product_attention), and these.
SYMBOLS = {
    "nan",  # a float that overflowed, printed as the number it is (the max section's naive column)
    "inf",
    "PE",
    "QK",
    "L2",
    "T-1",
    "Var",
    "ln",
    "exp",
    "max",
    "min",
    "diag",
    "sin",
    "cos",
    "NaN",
    "True",
    "False",
}
# The code's names a page explains in its sentences (forward's arguments, the tensors it prints, its functions).
CODE = {
    "query",
    "key",
    "value",
    "forward",
    "view",
    "transpose",
    "contiguous",
    "mask",
    "concat",
    "output",
    "perm",
    "acc",
    "base",
    "dtype",
    "torch",
    "softmax",
    "Softmax",
    "MultiHeadAttention",
}
# Names: models, libraries, tools, formats, people; the acronyms Chinese technical writing keeps.
NAMES = {
    "Vaswani",  # the paper's first author, cited by name
    "GPT-2",
    "Llama",
    "Llama-2-7B",
    "Llama-3-8B",
    "Llama-3",
    "Mistral-7B",
    "Falcon-7B",
    "BERT",
    "MiniLM",
    "all-MiniLM-L6-v2",
    "WordPiece",
    "PyTorch",
    "transformers",
    "sentence-transformers",
    "BertModel",
    "PyPI",
    "FlashAttention",
    "NumPy",
    "Adam",
    "Viridis",
    "RdBu",
    "Frobenius",
    "Clark",
    "RoPE",
    "KV",
    "MHA",
    "GQA",
    "MQA",
    "SDPA",
    "CLS",
    "SEP",
    "PAD",
    "UNK",
    "CPU",
    "GPU",
    "PNG",
    "SVG",
    "CSV",
    "JSON",
    "png",
    "svg",
    "fp16",
    "float16",
    "float32",
    "float64",
    "sha256",
}
# Names of more than one word; and the seed's own gloss of a term ("每个标记 (token)", as 《多头注意力机制》 writes it).
PHRASES = ("GPT-2 small", "Hugging Face", "(token)")
# Units.
UNITS = {"B", "KiB", "MiB", "GiB", "TiB", "ms", "µs", "ns", "nats"}
# The language switch names both languages in both (a reader who cannot read the other must find it).
SWITCH = {"Language", "zh", "en"}
# The English the real model reads (its vocabulary is English; its example sentences, their tokens).
EXAMPLES = tuple(text for text, *_ in pretrained.EXAMPLES)
MODEL_WORDS = {w for text in EXAMPLES for w in re.findall(r"[A-Za-z]+", text)}
ALLOWED = SYMBOLS | CODE | NAMES | UNITS | SWITCH | MODEL_WORDS
# Inside formulas, \text{...} may hold only the code's names (the seed's own names are Chinese there).
FORMULA_NAMES = {
    "query",
    "key",
    "value",
    "mask",
    "concat",
    "output",
    "new",
    "old",
    "acc",
    "Var",
    "rowmax",
    "rowsum",
    "softmax",
    "base",
    "MHA",
}


def allowed(word: str) -> bool:
    return len(word) == 1 or "_" in word or "." in word or word in ALLOWED


def findings(texts: list[tuple[str, str]]) -> list[tuple[str, str, str]]:
    """(where, what, the text) for each English word, Latin formula name or long bare number of `texts`."""
    out = []
    for where, text in texts:
        words, names, numbers = latin(text, latex=where == "latex", phrases=PHRASES + EXAMPLES)
        out += [(where, w, text[:120]) for w in words if not allowed(w)]
        out += [(where, "\\text{" + w + "}", text[:120]) for w in names if w not in FORMULA_NAMES]
        out += [(where, n, text[:120]) for n in numbers]
    return out


def view_id(view: tuple[str | None, dict]) -> str:
    page, params = view
    return (page or "home") + "".join(f"-{k}={v}" for k, v in params.items())


@pytest.mark.app
@pytest.mark.parametrize("view", VIEWS, ids=view_id)
def test_a_chinese_page_shows_no_english_label_or_url_value(view):
    page, params = view
    at = run_app(page, lang="zh", **params)
    assert not at.exception
    texts = visible(at)
    assert any(re.search(r"[\u4e00-\u9fff]", s) for _, s in texts)  # the walk found the page's words
    assert findings(texts) == []


def test_the_quiz_questions_answers_and_explanations_read_as_chinese():
    """The quiz page shows one question at a time; every question's prompt, options, hint, answer and why, worded in
    Chinese as the page words them."""
    s = Settings(64, 4, 8, "none", 0, "zh")
    run = scenario.run(s)
    questions = Q.quiz_set(run)
    assert len(questions) >= 28
    texts = []
    for q in questions:
        for words in (Q.prompt_text(q), Q.hint_text(q), Q.answer_text(q), Q.why_text(q)):
            texts.append((q.kind, in_language(words, "zh")))
        if q.answer_type in ("choice", "cells"):  # the page's radio and pills (others are typed in)
            for option in q.options or ():
                texts.append((q.kind + ".option", in_language(Q.option_text(q, option, run.tokens), "zh")))
    assert findings(texts) == []


def test_the_checker_finds_what_the_issue_found():
    """The words issue 29.6 quoted are found (the check is not vacuous), and the allowed ones pass."""
    bad = [
        ("markdown", "掩码（none）"),
        ("heatmap.panel", "掩码（keep）"),
        ("selectbox.option", "llama-3-8b"),
        ("selectbox.option", "131072"),
        ("latex", r"\text{bytes} = 2 \times L \times \text{bytes per value}"),
        ("markdown", "RoPE 能用在 d_k = 17 的头上吗？（yes / no）"),
        ("markdown", r"$QK^\top$、softmax 和 $\text{weights}\,V$ 只看"),
        ("markdown", r"$$\text{head}_i = \text{Attention}(q_i, k_i, v_i)$$"),
    ]
    found = [f[1] for f in findings(bad)]
    assert found == [
        "none",
        "keep",
        "llama-3-8b",
        "131072",
        "\\text{bytes}",
        "\\text{bytes}",
        "\\text{per}",  # ("value" alone is forward's argument: allowed)
        "yes",
        "no",
        "\\text{weights}",
        "\\text{head}",
        "\\text{Attention}",
    ]
    good = [
        ("markdown", r"$$\text{头}_i = \text{注意力}(q_i, k_i, v_i)$$ 每个头 d_k = 16，`F.softmax(x)`，131,072 个词元"),
        ("table.cell", "GPT-2 small"),
        ("caption", "sha256 53aa51172d14…d9db 与官方权重一致，《What Does BERT Look At?》"),
        ("selectbox.option", "Llama-3-8B"),
    ]
    assert findings(good) == []


@pytest.mark.app
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_kv_model_box_shows_model_names_and_the_context_with_separators(lang):
    at = run_app("kv-cache", lang=lang, kv_tab="memory")
    assert not at.exception
    shown = {w.key: w for w in at.selectbox}
    assert list(shown["kv_model_shown"].options) == [
        *(p.name for p in kv_cache.PRESET_SLUGS.values()),
        i18n.t("kv.mem.ours_label", lang),
    ]
    assert shown["kv_model_shown"].value == "Llama-3-8B"
    assert "131,072" in shown["kv_context_shown"].options and "131072" not in shown["kv_context_shown"].options
    assert shown["kv_model"].value == "llama-3-8b"  # the link keeps the slug (the hidden carrier)
