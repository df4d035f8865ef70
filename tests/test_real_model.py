"""Real heads: our encoder (core.pretrained, attention by core.attention) against transformers' BertModel.

transformers is a test-only dependency: the app never imports it. BertModel is loaded from the
very folder the app uses, with eager attention (the default sdpa returns no attention weights).
"""

from __future__ import annotations

import hashlib
import re
import shutil

import pytest
import torch
from chart_reader import BROWSER_CHART as CHART
from chart_reader import heatmaps as charts  # the page's heatmaps (ui.heatmaps: the chart route's payload)
from conftest import current_link, open_app, run_app, sections, wait_idle

import i18n
from charts import diagrams
from core import pretrained
from lessons import real_heads as R

TOL = 1e-5
SENTENCES = [
    "The animal didn't cross the street because it was too tired.",
    "Hello world.",
    "The keys to the old cabinet are on the kitchen table, said the man who had lost them twice.",
    "多头注意力 lets heads attend.",  # Chinese characters become [UNK]: still computed exactly
]


@pytest.fixture(scope="module")
def ours() -> pretrained.Pretrained:
    return pretrained.load()


@pytest.fixture(scope="module")
def bert(ours):
    from transformers import BertModel

    model = BertModel.from_pretrained(str(ours.folder), attn_implementation="eager")
    return model.eval()


def bert_run(bert, batch: pretrained.Batch, hook=None):
    attention_mask = (torch.arange(batch.ids.shape[1])[None, :] < batch.lengths[:, None]).long()  # (B, T)
    with torch.no_grad():
        return bert(
            input_ids=batch.ids, token_type_ids=batch.type_ids, attention_mask=attention_mask, output_attentions=True
        )


def compare(ours, bert, texts) -> dict[str, float]:
    """Largest |ours - BertModel| over every layer, head and real token of a batch of texts."""
    batch = ours.batch([ours.encode(t) for t in texts])
    mine = ours.run(batch)
    ref = bert_run(bert, batch)
    assert ref.attentions is not None and len(ref.attentions) == ours.cfg.num_layers
    worst = {"weights": 0.0, "hidden": 0.0, "embedding": 0.0}
    for b, n in enumerate(batch.lengths.tolist()):
        for layer in range(ours.cfg.num_layers):
            diff = (mine.weights[layer, b, :, :n, :n] - ref.attentions[layer][b, :, :n, :n]).abs().max()
            worst["weights"] = max(worst["weights"], float(diff))
        worst["hidden"] = max(
            worst["hidden"], float((mine.last_hidden[b, :n] - ref.last_hidden_state[b, :n]).abs().max())
        )
    keep = (torch.arange(batch.ids.shape[1])[None, :] < batch.lengths[:, None]).float()[..., None]
    ref_embedding = torch.nn.functional.normalize((ref.last_hidden_state * keep).sum(1) / keep.sum(1), dim=-1)
    worst["embedding"] = float((mine.sentence_embedding() - ref_embedding).abs().max())
    return worst


@pytest.mark.parametrize("text", SENTENCES)
def test_every_layer_and_head_matches_bert(ours, bert, text):
    worst = compare(ours, bert, [text])
    assert worst["weights"] < TOL, worst
    assert worst["hidden"] < TOL, worst
    assert worst["embedding"] < TOL, worst


def test_padded_batch_matches_bert_on_real_tokens(ours, bert):
    lengths = [len(ours.encode(t).ids) for t in SENTENCES]
    assert len(set(lengths)) > 1  # a real padding case: several lengths in one batch
    worst = compare(ours, bert, SENTENCES)
    assert worst["weights"] < TOL and worst["hidden"] < TOL and worst["embedding"] < TOL, worst


def test_padding_does_not_change_a_sentence(ours):
    """A short sentence alone and padded next to a long one: same weights on its real tokens."""
    short, long = SENTENCES[1], SENTENCES[2]
    alone = ours.run(ours.batch([ours.encode(short)]))
    padded = ours.run(ours.batch([ours.encode(short), ours.encode(long)]))
    n = int(alone.lengths[0])
    assert int(padded.lengths.max()) > n
    assert torch.allclose(alone.weights[:, 0], padded.weights[:, 0, :, :n, :n], atol=TOL)
    assert padded.weights[:, 0, :, :, n:].abs().max() == 0  # no query ever looks at [PAD]


def test_layer_weights_live_in_core_multihead_attention(ours):
    from safetensors.torch import load_file

    from core.attention import MultiHeadAttention

    state = load_file(ours.folder / "model.safetensors")
    for i, layer in enumerate(ours.encoder.layers):
        assert type(layer.attention) is MultiHeadAttention
        assert (layer.attention.num_heads, layer.attention.d_k) == (12, 32)
        for ours_name, bert_name in (
            ("W_q", "self.query"),
            ("W_k", "self.key"),
            ("W_v", "self.value"),
            ("W_o", "output.dense"),
        ):
            linear = getattr(layer.attention, ours_name)
            assert torch.equal(linear.weight, state[f"encoder.layer.{i}.attention.{bert_name}.weight"])
            assert torch.equal(linear.bias, state[f"encoder.layer.{i}.attention.{bert_name}.bias"])


def test_page_reference_check_is_small(ours):
    _, run = ours.run_text(SENTENCES[0])
    check = pretrained.reference_check(ours, run)
    assert check["weights"] < TOL and check["outputs"] < TOL


# ---------------------------------------------------------------- the files
def test_installed_weights_are_the_official_ones(ours):
    data = (ours.folder / "model.safetensors").read_bytes()
    assert hashlib.sha256(data).hexdigest() == pretrained.OFFICIAL_SHA256["model.safetensors"]


def copy_model(ours, tmp_path):
    folder = tmp_path / "model"
    folder.mkdir()
    for name in ("model.safetensors", "tokenizer.json", "config.json"):
        shutil.copy(ours.folder / name, folder / name)
    return folder


def test_tampered_weights_are_refused(ours, tmp_path):
    folder = copy_model(ours, tmp_path)
    path = folder / "model.safetensors"
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01  # one bit inside some weight
    path.write_bytes(bytes(data))
    with pytest.raises(pretrained.ModelIntegrityError, match=r"refusing to load .*model\.safetensors.*sha256"):
        pretrained.load(folder)


def test_tampered_weights_never_reach_the_parser(ours, tmp_path, monkeypatch):
    """The bytes are checked before safetensors parses them (a crafted file never meets the parser)."""
    import safetensors.torch

    folder = copy_model(ours, tmp_path)
    path = folder / "model.safetensors"
    path.write_bytes(path.read_bytes()[:-1] + b"\x00")

    def parse(data):
        raise AssertionError("safetensors parsed bytes that were not verified")

    monkeypatch.setattr(safetensors.torch, "load", parse)
    with pytest.raises(pretrained.ModelIntegrityError):
        pretrained.load(folder)


def test_tampered_tokenizer_is_refused(ours, tmp_path):
    folder = copy_model(ours, tmp_path)
    path = folder / "tokenizer.json"
    path.write_text(path.read_text().replace('"[UNK]"', '"[UNKNOWN]"', 1))
    with pytest.raises(pretrained.ModelIntegrityError, match="tokenizer.json"):
        pretrained.load(folder)


def test_missing_weights_are_refused(ours, tmp_path):
    folder = copy_model(ours, tmp_path)
    (folder / "model.safetensors").unlink()
    with pytest.raises(pretrained.ModelIntegrityError, match="missing"):
        pretrained.load(folder)


def test_untouched_copy_loads(ours, tmp_path):
    copy = pretrained.load(copy_model(ours, tmp_path))
    assert torch.equal(copy.encoder.layers[3].attention.W_q.weight, ours.encoder.layers[3].attention.W_q.weight)


# ---------------------------------------------------------------- tokens and limits
def test_tokenizer_does_not_pad_to_128(ours):
    assert ours.encode("hello").tokens == ["[CLS]", "hello", "[SEP]"]


def test_text_over_the_limit_is_refused_not_truncated(ours):
    fits = " ".join(["word"] * (pretrained.MAX_TOKENS - 2))
    assert len(ours.encode(fits).ids) == pretrained.MAX_TOKENS
    with pytest.raises(pretrained.TextTooLong, match=r"65 tokens .*limit 64.*not truncated") as info:
        ours.encode(fits + " word")
    assert info.value.n_tokens == pretrained.MAX_TOKENS + 1
    with pytest.raises(pretrained.TextTooLong, match="characters"):
        ours.encode("a" * (pretrained.MAX_CHARS + 1))


def test_chinese_mostly_becomes_unk(ours):
    encoded = ours.encode("多头注意力机制")
    assert pretrained.has_cjk(encoded.text)
    assert encoded.unknown >= len(encoded.tokens) // 2


def test_empty_text_still_runs(ours):
    encoded, run = ours.run_text("")
    assert encoded.tokens == ["[CLS]", "[SEP]"]
    assert torch.isfinite(run.weights).all()
    assert R.default_link(encoded) == (0, 0)


def test_default_link_of_examples(ours):
    for text, q_word, k_word in pretrained.EXAMPLES:
        encoded = ours.encode(text)
        q, k = R.default_link(encoded)
        assert (encoded.tokens[q], encoded.tokens[k]) == (q_word, k_word)
        assert k < q


# ---------------------------------------------------------------- ablation and views
def test_no_heads_off_changes_nothing(ours):
    encoded, full = ours.run_text(SENTENCES[0])
    batch = ours.batch([encoded])
    result = R.ablate(ours, batch, full, 2, [])
    assert result.embedding_cosine == pytest.approx(1.0, abs=1e-6)
    assert result.layer_change == 0.0


def test_ablation_zeroes_the_heads_before_w_o(ours):
    encoded, full = ours.run_text(SENTENCES[0])
    batch = ours.batch([encoded])
    cut = ours.run(batch, {1: [0, 5]})
    trace = full.traces[1]
    head_outputs = trace.head_outputs.clone()
    head_outputs[:, [0, 5]] = 0
    B, h, T, d_k = head_outputs.shape
    expected = ours.encoder.layers[1].attention.W_o(head_outputs.transpose(1, 2).reshape(B, T, h * d_k))
    assert torch.allclose(cut.attended[1], expected, atol=1e-6)
    assert torch.equal(cut.hidden[1], full.hidden[1])  # layers before are untouched


def test_ablation_matches_bert_with_the_same_heads_zeroed(ours, bert):
    """Independent check: zero the same heads' columns at the input of BERT's attention.output.dense."""
    layer, heads = 3, [1, 7, 11]
    encoded, full = ours.run_text(SENTENCES[0])
    batch = ours.batch([encoded])
    result = R.ablate(ours, batch, full, layer, heads)
    cut = ours.run(batch, {layer: heads})

    def zero_heads(module, args):
        (x,) = args
        x = x.clone()
        for h in heads:
            x[..., h * 32 : (h + 1) * 32] = 0
        return (x,)

    handle = bert.encoder.layer[layer].attention.output.dense.register_forward_pre_hook(zero_heads)
    try:
        ref = bert_run(bert, batch)
    finally:
        handle.remove()
    assert (cut.last_hidden - ref.last_hidden_state).abs().max() < TOL
    assert result.embedding_cosine < 0.9999  # switching off three heads is visible
    assert len(result.token_cosine) == len(encoded.tokens)


def test_switching_off_every_head_leaves_only_the_bias(ours):
    encoded, _ = ours.run_text(SENTENCES[1])
    cut = ours.run(ours.batch([encoded]), {0: list(range(12))})
    bias = ours.encoder.layers[0].attention.W_o.bias
    assert torch.allclose(cut.attended[0], bias.expand_as(cut.attended[0]), atol=1e-6)


def test_hide_special_blanks_only_special_cells(ours):
    encoded, run = ours.run_text(SENTENCES[0])
    weights = run.weights[:, 0]  # (layers, h, T, T)
    shown = R.hide_special(weights, encoded.tokens)
    T = len(encoded.tokens)
    assert torch.isnan(shown[..., 0, :]).all() and torch.isnan(shown[..., :, T - 1]).all()
    words = slice(1, T - 1)
    assert torch.equal(shown[..., words, words], weights[..., words, words])  # real numbers, not renormalised


def test_patterns_find_a_previous_token_head(ours):
    encoded, run = ours.run_text(SENTENCES[0])
    scores = R.pattern_scores(run.weights[:, 0], encoded.tokens)
    assert set(scores) == set(R.PATTERNS)
    ((layer, head, score),) = R.best_heads(scores["previous"])
    assert score > 0.9  # real weights: one head of layer 1 looks (almost) only at the previous token
    assert layer == 0


# ---------------------------------------------------------------- the page
@pytest.mark.app
def test_page_runs_in_chinese():
    at = run_app("real-model", lang="zh")
    assert not at.exception
    assert at.title[0].value == "真实模型的注意力头"
    assert any("[UNK]" in c.value and "英文" in c.value for c in at.caption)
    assert any("最大绝对误差" in s.value for s in at.success)
    assert len(charts(at)) == 1  # the open tab's heatmap only (all 12 heads of the layer)


@pytest.mark.app
def test_page_sections_are_lazy_tabs_opened_by_link():
    """One tab runs at a time; ?real_tab= opens a section for the whole class, in either language."""
    drawn = {}
    for view in ("grid", "head", "patterns", "link", "ablate", "core"):
        at = run_app("real-model", lang="en", real_tab=view)
        assert not at.exception, view
        assert sections(at) == [
            i18n.t(f"real.view.{v}", "en") for v in ("grid", "head", "patterns", "link", "ablate", "core")
        ]
        drawn[view] = len(charts(at))
        assert at.query_params["real_tab"] == view
    assert drawn == {"grid": 1, "head": 1, "patterns": 0, "link": 0, "ablate": 0, "core": 0}
    at = run_app("real-model", lang="en", real_tab="head")
    assert at.select_slider(key="real_head").value == 1  # the default head, enlarged
    assert "real_from" not in at.session_state and "real_off" not in at.session_state  # other tabs did not run


@pytest.mark.app
def test_page_hide_special_blanks_both_views():
    def blank_cells(at) -> int:
        import numpy as np

        return int(sum(np.isnan(p["values"]).sum() for p in charts(at)[0].arrays))  # over every head's panel

    T = 16  # the first example: [CLS] + 14 word pieces + [SEP]
    for view, heads in (("grid", 12), ("head", 1)):
        shown = run_app("real-model", lang="en", real_tab=view)
        hidden = run_app("real-model", lang="en", real_tab=view, real_hide="true")
        assert not shown.exception and not hidden.exception
        assert any(i18n.t("real.grid.blanked", "en") in c.value for c in hidden.caption)
        # [CLS]/[SEP]: 2 rows and 2 columns of every head drawn blank (T*T - (T-2)*(T-2) cells each)
        assert blank_cells(hidden) - blank_cells(shown) == heads * (T * T - (T - 2) ** 2), view


@pytest.mark.app
def test_page_bad_tab_in_link_falls_back_with_a_notice():
    at = run_app("real-model", lang="zh", real_tab="<b>x</b>")
    assert not at.exception
    assert at.query_params["real_tab"] == "grid"  # corrected in the URL
    assert any("real_tab" in w.value and "grid" in w.value for w in at.warning)
    assert len(charts(at)) == 1


@pytest.mark.app
def test_page_enlarged_head_is_the_chosen_one_after_another_tab():
    at = run_app("real-model", lang="en", real_tab="head")
    at.select_slider(key="real_head").set_value(7).run()
    assert not at.exception
    at.query_params["real_tab"] = "grid"  # what a click on the tab writes (AppTest cannot click a tab)
    at.run()
    assert not at.exception and len(charts(at)) == 1
    at.query_params["real_tab"] = "head"
    at.run()
    assert not at.exception
    assert at.select_slider(key="real_head").value == 7
    assert [p["title"] for p in charts(at)[0].header["panels"]] == ["Layer 3 · head 7"]


@pytest.mark.app
def test_sidebar_step_reuses_the_shared_reading_and_this_sessions_figure(monkeypatch):
    """A slider step in the sidebar changes nothing this page shows: no model run and no heatmap build."""
    import json

    at = run_app("real-model", lang="en")
    assert not at.exception
    before = json.dumps(charts(at)[0].header)
    calls = []
    monkeypatch.setattr(R, "read", lambda *a, **k: calls.append("read"))
    monkeypatch.setattr(R, "grid_heatmap", lambda *a, **k: calls.append("heatmap"))
    at.sidebar.select_slider(key="num_heads").set_value(8).run()
    assert not at.exception
    assert calls == []
    assert json.dumps(charts(at)[0].header) == before


@pytest.mark.app
def test_page_refuses_long_text_with_a_message():
    at = run_app("real-model", lang="en")
    at.text_area(key="real_text").input(" ".join(["word"] * 80)).run()
    assert not at.exception
    assert any("too long: 82 tokens" in e.value for e in at.error)
    assert len(charts(at)) == 0


@pytest.mark.app
def test_page_explains_unk_for_chinese_text():
    at = run_app("real-model", lang="zh", real_text="多头注意力机制")
    assert not at.exception
    assert any("[UNK]" in w.value for w in at.warning)


@pytest.mark.app
def test_page_ablation_shows_cosine():
    at = run_app("real-model", lang="en", real_tab="ablate")
    at.button_group(key="real_off").set_value([0, 3]).run()
    assert not at.exception
    assert any("cosine" in m.label for m in at.metric)


@pytest.mark.app
def test_page_example_and_show_buttons():
    at = run_app("real-model", lang="en")
    text, q_word, k_word = pretrained.EXAMPLES[2]
    at.button_group(key="real_example").set_value(text).run()
    assert not at.exception
    assert at.text_area(key="real_text").value == text
    at.query_params["real_tab"] = "link"  # the link tab starts from the example's own pair
    at.run()
    assert (at.selectbox(key="real_from").value, at.selectbox(key="real_to").value) == (7, 2)  # "are" -> "keys"
    at.query_params["real_tab"] = "patterns"
    at.run()
    at.button(key="real_show_previous").click().run()
    assert not at.exception
    assert at.query_params["real_tab"] == "head"  # "show" opens the enlarged head
    assert at.button_group(key="real_layer").value == 0  # layers count from 0, like heads
    assert at.select_slider(key="real_head").value == 2
    assert len(charts(at)) == 1


# ---------------------------------------------------------------- issue 20: numbering, patterns, ablation context
def test_only_heads_above_the_threshold_count_as_patterns(ours):
    encoded = ours.encode(pretrained.EXAMPLES[0][0])
    reading = R.read(ours, encoded)
    scores = R.pattern_scores(reading.weights, encoded.tokens)
    found, missing = R.patterns_found(reading.best)
    assert R.PATTERN_MIN == 0.5
    assert found == ["previous", "next", "cls"] and missing == ["self", "sep"]
    for name in found:
        assert float(scores[name].max()) >= 0.5
    for name in missing:  # e.g. "attends to itself": 0.15 at best, not offered as a learned pattern
        assert float(scores[name].max()) < 0.5
    assert abs(reading.best["self"][2] - 0.146) < 1e-3


def test_an_ablation_is_compared_with_every_single_head_of_its_layer(ours):
    encoded = ours.encode(pretrained.EXAMPLES[0][0])
    reading = R.read(ours, encoded)
    base = R.ablation_baseline(ours, reading.batch, reading.run, 3, 1)
    assert base.draws == tuple((h,) for h in range(12))
    for h in (0, 1, 11):  # each draw is the real ablation of that one head
        one = R.ablate(ours, reading.batch, reading.run, 3, [h])
        assert base.layer_change[h] == one.layer_change and base.embedding_cosine[h] == one.embedding_cosine
    head1 = R.ablate(ours, reading.batch, reading.run, 3, [1]).layer_change
    assert base.smaller_than(head1) == sum(c < head1 for c in base.layer_change)
    assert abs(base.mean_change - sum(base.layer_change) / 12) < 1e-12
    many = R.ablation_baseline(ours, reading.batch, reading.run, 3, 3)
    assert len(many.draws) == R.RANDOM_DRAWS and all(len(set(d)) == 3 for d in many.draws)
    assert many == R.ablation_baseline(ours, reading.batch, reading.run, 3, 3)  # a fixed seed
    assert R.ablation_baseline(ours, reading.batch, reading.run, 3, 12) is None  # no other choice


@pytest.mark.app
def test_page_numbers_layers_from_0_and_says_so():
    at = run_app("real-model", lang="en")
    assert not at.exception
    assert at.button_group(key="real_layer").value == 3
    assert at.button_group(key="real_layer").options[0] == "0"
    assert any(c.value == i18n.t("real.numbering", "en") for c in at.caption)
    assert at.expander[0].label == i18n.t("real.provenance", "en")
    assert any("sha256" in c.value for c in at.expander[0].caption)
    at = run_app("real-model", lang="en", real_tab="patterns")
    texts = [m.value for m in at.markdown]
    assert any(v.startswith("looks at the previous token — layer 0 · head 2: 1.00") for v in texts)
    assert not any(v.startswith("looks at itself") for v in texts)
    assert any("looks at itself (0.15)" in c.value for c in at.caption)


@pytest.mark.app
def test_page_puts_an_ablation_in_context(ours):
    at = run_app("real-model", lang="en", real_tab="ablate")
    at.button_group(key="real_off").set_value([1]).run()
    assert not at.exception
    reading = R.read(ours, ours.encode(pretrained.EXAMPLES[0][0]))
    base = R.ablation_baseline(ours, reading.batch, reading.run, 3, 1)
    mine = R.ablate(ours, reading.batch, reading.run, 3, [1]).layer_change
    text = at.info[-1].value
    assert text.startswith("Is that a big change? Switching off each of the 12 heads of layer 3")
    assert (
        f"{base.mean_change:.1%}" in text
        and f"Your head's {mine:.1%} is more than {base.smaller_than(mine)} of" in text
    )


@pytest.mark.browser
def test_browser_real_heads(server, page):
    from playwright.sync_api import expect

    open_app(page, server, "real-model")
    expect(page.get_by_role("heading", name="Real heads")).to_be_visible()
    expect(page.get_by_text("Checked live for this sentence")).to_be_visible()
    expect(page.locator(CHART)).to_have_count(1)
    page.get_by_role("radio", name="One head, enlarged").click()
    wait_idle(page)
    expect(page).to_have_url(re.compile(r"real_tab=head"))
    expect(page.locator(CHART)).to_have_count(1)
    expect(page.get_by_text("Head to enlarge")).to_be_visible()
    box = page.get_by_role("textbox", name="English sentence")
    box.fill("Mary gave John the book because she liked him.")
    box.press("Control+Enter")
    wait_idle(page)
    expect(page.get_by_text("mary", exact=True).first).to_be_visible()
    box.fill(" ".join(["word"] * 70))
    box.press("Control+Enter")
    wait_idle(page)
    expect(page.get_by_text("The text is too long: 72 tokens")).to_be_visible()


@pytest.mark.browser
def test_the_word_to_word_tokens_are_in_the_link_and_it_opens_them(server, page):
    """The query and key tokens of "Word to word" were kept in the session only (their boxes show "3: animal", so
    neither is bound to the link): the page now writes the two token numbers, and the link opens the same pair."""
    from playwright.sync_api import expect

    open_app(page, server, "real-model", lang="en", real_tab="link")
    said = page.get_by_text(re.compile(r"^Strongest heads for "))
    expect(said).to_contain_text("“it” → “animal”")  # the sentence's own pair (10: it, 2: animal)
    box = page.locator(".st-key-real_from").get_by_role("combobox")
    box.click()
    page.keyboard.type("8: str")  # the box filters its options as one types
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"[?&]real_from=8(&|$)"))
    expect(said).to_contain_text("“street” → “animal”")
    page.goto(current_link(page))
    wait_idle(page)
    expect(said).to_contain_text("“street” → “animal”")
    expect(box).to_have_value("8: street")


@pytest.mark.app
def test_the_page_url_keys_are_declared_once_in_the_lesson():
    """lessons.real_heads.URL_KEYS (lessons/url.UrlKey): the page's options and defaults, and a bad link value
    corrected to a valid one."""
    from lessons.url import UrlKey, parse

    assert all(isinstance(k, UrlKey) for k in R.URL_KEYS)
    assert set(R.URL_KEY_NAMES) == {
        "real_tab",
        "real_layer",
        "real_head",
        "real_hide",
        "real_from",
        "real_to",
        "real_text",
        "real_off",
    }
    assert R.url_key("real_layer").choices == tuple(range(6)) and R.url_key("real_head").choices == tuple(range(12))
    values, fixes = parse(R.URL_KEYS, {"real_layer": "9", "real_head": "x", "real_tab": "HEAD"}, {})
    assert values == {
        "real_tab": "head",
        "real_layer": 5,
        "real_head": R.DEFAULT_HEAD,
        "real_hide": False,
        "real_from": 0,
        "real_to": 0,
    }
    assert {f.key: f.reason for f in fixes} == {
        "real_tab": "spelling",
        "real_layer": "out_of_range",
        "real_head": "unreadable",
    }
    at = run_app("real-model", lang="en", real_layer="x7")
    assert not at.exception and at.button_group(key="real_layer").value == R.DEFAULT_LAYER


def test_the_link_pair_is_a_token_of_this_sentence():
    """lessons.real_heads.LINK_KEYS: the link tab's pair, in 0..T-1 of the sentence read, defaulting to its own pair."""
    from lessons import url_keys
    from lessons.url import parse

    assert url_keys.DECLARED["real-model"] is R.URL_KEYS and R.LINK_KEYS == R.URL_KEYS[4:]
    assert set(url_keys.PAGE_KEYS["real-model"]) == set(R.URL_KEY_NAMES)
    env = {"n_tokens": 16, "link": (11, 2)}
    assert parse(R.LINK_KEYS, {}, env) == ({"real_from": 11, "real_to": 2}, [])
    values, fixes = parse(R.LINK_KEYS, {"real_from": "40", "real_to": "x"}, env)
    assert values == {"real_from": 15, "real_to": 2} and [f.reason for f in fixes] == ["out_of_range", "unreadable"]


@pytest.mark.app
def test_the_page_settles_its_keys_from_a_link():
    at = run_app("real-model", lang="en", real_layer="9", real_tab="grid")
    assert not at.exception and at.button_group(key="real_layer").value == 5  # the last layer, said in the main area
    assert any("real_layer" in w.value and "5" in w.value for w in at.main.warning)
    assert at.query_params.get("real_layer") in (None, "5")  # the bad value left the URL
    at = run_app("real-model", lang="en", real_tab="link", real_from="3", real_to="99")
    assert not at.exception
    assert (at.selectbox(key="real_from").value, at.selectbox(key="real_to").value) == (3, 15)  # T = 16
    assert any("real_to" in w.value and "15" in w.value for w in at.main.warning)
    assert not any("real_from" in w.value for w in at.main.warning)
    at.text_area(key="real_text").set_value("Hello world.").run()  # a new sentence: its own pair, quietly
    assert not at.exception and not at.main.warning
    assert (at.selectbox(key="real_from").value, at.selectbox(key="real_to").value) == (3, 1)  # "." -> "hello"
    at.selectbox(key="real_from").set_value(2).run()
    at.query_params["real_tab"] = "grid"  # the pick is kept while its tab is closed ...
    at.run()
    at.query_params["real_tab"] = "link"
    at.run()
    assert at.selectbox(key="real_from").value == 2
    at.query_params["real_tab"] = "grid"  # ... and a sentence changed in another tab brings its own pair
    at.run()
    at.text_area(key="real_text").set_value(pretrained.EXAMPLES[0][0]).run()
    at.query_params["real_tab"] = "link"
    at.run()
    assert not at.exception and (at.selectbox(key="real_from").value, at.selectbox(key="real_to").value) == (10, 2)


def test_the_page_small_views_are_plain_data():
    html = diagrams.token_chips_html(["[CLS]", "<b>", "[UNK]", "[SEP]"])
    assert "&lt;b&gt;" in html and "<b>" not in html  # a token is text, never markup
    assert html.count("color:#1f77b4") == 2 and html.count("color:#d62728") == 1 and html.count('title="') == 4
    assert R.token_labels(["[CLS]", "it"]) == ["0:[CLS]", "1:it"] and R.token_labels(["a"], ": ") == ["0: a"]
    assert R.has_words(["[CLS]", "a", "[SEP]"]) and not R.has_words(["[CLS]", "[SEP]"])
    assert R.heads_off([7, 1, 7]) == (1, 7)
    rows = R.mapping_rows()
    assert len(rows) == len(pretrained.BERT_TO_OURS) and all(b.endswith(".weight/.bias") for b, _ in rows)
    base = R.Baseline(1, ((0,), (1,), (2,)), (0.1, 0.2, 0.4), (0.9, 0.8, 1.0))
    ctx = base.context(0.3)
    assert (ctx["k"], ctx["n"], ctx["lo"], ctx["hi"], ctx["less"]) == (1, 3, 0.1, 0.4, 2)
    assert ctx["mean"] == pytest.approx(0.7 / 3) and ctx["cos"] == pytest.approx(0.9) and ctx["change"] == 0.3
