"""Issue 29, item 2: no sentence contradicts a number on its screen. Every sentence that states a relation about the
numbers shown (an ordering, "falls", "dominates", "saves memory traffic", "equal", "beyond", "brightest" ...) is
chosen by those numbers or states its condition. (The Softmax scale tab is pinned by its own tests.)

Two layers: the lesson functions over a big grid of settings (d_model 8..512, every h, T 2..32, both masks, several
seeds; fast, no Streamlit), the sentence chosen checked against the numbers it sits beside, in both languages; then
a few AppTest runs per page tying what the page shows to the lesson's result.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from chart_reader import charts
from conftest import run_app, tables

import i18n
from charts import lines
from core.accounting import PRESETS, totals
from core.masks import mask_from_text
from core.pretrained import EXAMPLES
from core.validation import divisors
from lessons import heads as H
from lessons import kv_cache as K
from lessons import positions as PL
from lessons import scenario
from lessons import softmax as SM
from lessons.heatmap import Text
from lessons.masks_lab import run as lab
from lessons.settings import Settings
from lessons.walkthrough import numbers as walk_numbers
from ui.words import in_language

LANGS = ("zh", "en")
D_MODELS = (8, 16, 32, 64, 128, 256, 512)  # lessons.settings.D_MODEL_CHOICES
SEQ_LENS = (2, 3, 5, 8, 13, 16, 31, 32)
MASKS = ("none", "causal")
SEEDS = (0, 1, 7)


def every_h(d_model: int) -> list[int]:
    return [h for h in divisors(d_model) if h <= 64]


def words(x: Text) -> dict[str, str]:
    """A lesson's sentence worded in both languages (each must word without a missing value)."""
    out = {lang: in_language(x, lang).replace("\u2011", "-") for lang in LANGS}
    assert all("{" not in v and "Text(" not in v for v in out.values()), out
    return out


def page_text(at) -> str:
    """Everything a page wrote (markdown, captions, notes, table cells), as one text."""
    parts = [
        str(e.value)
        for e in (*at.markdown, *at.caption, *at.subheader, *at.title, *at.info, *at.success, *at.warning, *at.error)
    ]
    for tbl in tables(at):
        frame = tbl.value
        parts += [str(c) for c in frame.columns] + [str(v) for c in frame.columns for v in frame[c].tolist()]
    return "\n".join(parts).replace("\u2011", "-").replace("\u00a0", " ")


def ok(at) -> None:
    assert not at.exception, at.exception[0].message if at.exception else ""


# ================================================================ Softmax, tiles: "saves memory traffic"
@pytest.mark.parametrize("d_model", D_MODELS)
def test_the_traffic_sentences_agree_with_the_traffic_table(d_model):
    """Issue 29: with 4 x 4 blocks the tiled path moved 2x (d_k 16) and 4x (d_k 32) the plain path's numbers while
    nothing said so. Now one sentence per block size, chosen by the table's own traffic columns, and the rule it
    states (tiling pays once block_q > d_k / 2) holds for every block size that divides the long contexts."""
    for h in every_h(d_model):
        for T in (2, 8, 32):  # only the first row depends on T; blocks 1 x 1 cost most: once per d_model
            s = Settings(d_model, h, T, "none", 0, "en")
            # blocks that do not divide the long contexts (3 x 7) and 1 x 1 cost most: once per d_model
            blocks = ((4, 4), (8, 2), (16, 16), (32, 32)) + (((1, 1), (3, 7)) if h == 1 and T == 8 else ())
            for bq, bk in blocks:
                rows = SM.memory_table(s, bq, bk)
                assert any(r.is_kernel and 64 <= r.block_q <= 128 for r in rows)  # a realistic tile is priced
                notes = SM.traffic_notes(rows, s.d_k)
                longest = [r for r in rows if r.T == max(x.T for x in rows)]
                assert len(notes) == len(longest) + 1
                for r, note in zip(longest, notes):
                    pays = r.tiled_traffic < r.plain_traffic
                    assert note.key == ("softmax.mem.pays" if pays else "softmax.mem.costs")
                    ratio = float(note.kw()["ratio"])
                    assert (ratio < 1) == pays and (note.kw()["bq"], note.kw()["bk"]) == (r.block_q, r.block_k)
                    if r.T % r.block_q == 0:  # the rule, exactly
                        assert pays == (r.block_q >= s.d_k / 2), (r.block_q, s.d_k)
                rule = notes[-1]
                assert rule.key == "softmax.mem.rule" and float(rule.kw()["half"]) == s.d_k / 2
    for x in notes:
        w = words(x)
        if x.key != "softmax.mem.rule":
            assert all(x.kw()["ratio"] in v for v in w.values())


@pytest.mark.parametrize("d_model, h", [(512, 16), (512, 64), (512, 1), (8, 8)])
def test_sizes_print_in_the_largest_unit_they_fill(d_model, h):
    """1 TiB, never 1024 GiB: every byte cell of the traffic table prints below 1024 of its unit."""
    rows = SM.memory_table(Settings(d_model, h, 32, "none", 0, "en"), 4, 4)
    for col in SM.memory_columns(rows, h):
        for cell in col.cells:
            m = re.fullmatch(r"([\d,.]+) (B|KiB|MiB|GiB|TiB|PiB)", str(cell))
            if m and m.group(2) != "B":
                assert float(m.group(1).replace(",", "")) < 1024, cell
    assert "1 TiB" in [
        c
        for col in SM.memory_columns(SM.memory_table(Settings(512, 16, 32, "none", 0, "en"), 4, 4), 16)
        for c in col.cells
    ]


# ================================================================ KV cache, memory: "beyond its context"
@pytest.mark.parametrize("model", K.MODEL_CHOICES)
@pytest.mark.parametrize("context", K.CONTEXT_CHOICES)
def test_no_cache_is_sized_past_a_models_context(model, context):
    """Issue 29: GPT-2 printed 4.50 GiB at 131,072 tokens, Mistral-7B 16 GiB where its 4,096-token window caps the
    rolling cache at 512 MiB. Every preset cell, every context: beyond the model's context it says so; within it
    the size is the formula's for the tokens the cache holds; the chart draws only contexts the model takes."""
    s = Settings(16, 4, 4, "none", 0, "en")
    view = K.memory_view(s, 2, model, context)
    shown = K.memory_shown(view)
    cols = {c.header.key if isinstance(c.header, Text) else c.header: c.cells for c in shown.table}
    for i, p in enumerate(PRESETS):
        for col, heads in (("kv.mem.col.bytes", p.kv_heads), ("kv.mem.col.mha", p.heads)):
            cell = cols[col][i]
            if p.max_context is not None and context > p.max_context:
                assert isinstance(cell, Text) and cell.key == "kv.mem.beyond"
                assert cols["kv.mem.col.max"][i] == f"{p.max_context:,}"  # the limit, in the row's own column
                words(cell)
                continue
            held = min(context, p.sliding_window or context)
            n = 2 * p.layers * heads * p.head_dim * held * 2
            size = K.bytes_text(n)
            if held < context:
                assert isinstance(cell, Text) and cell.key == "kv.mem.capped" and cell.kw()["b"] == size
            else:
                assert cell == size
    chart = lines.memory_chart(view, lambda key, **kw: i18n.t(key, "en", **kw))
    xs = [x for series in chart.series for x in series.x]
    limit = None if model == "ours" else K.PRESET_SLUGS[model].max_context
    assert xs and (limit is None or max(xs) <= limit)
    if limit is not None and limit < int(view.contexts[-1]):
        assert shown.limit is not None and shown.limit.key == "kv.mem.chart_stops"
    mistral = K.memory_view(s, 2, "mistral-7b", 131072)
    assert [ln.at_context for ln in mistral.lines if ln.actual] == [512 * 2**20]


# ================================================================ Heads, cost: "dominates"
@pytest.mark.parametrize("d_model", D_MODELS)
def test_the_cost_takeaway_agrees_with_the_counts(d_model):
    """Issue 29: "with thousands of tokens it dominates" held for the (B, h, T, T) memory, not for the operations
    (about 3hT² element-wise against 2T²·d_model multiply-adds). Each half of the takeaway is chosen by the counts:
    the T it names is the first where the element-wise work (memory) passes the multiply-adds (parameters)."""
    for h in every_h(d_model):
        for T in range(2, 33):
            for masked in (False, True):
                now = totals(1, T, T, d_model, h, masked=masked)
                why, ops, mem = H.cost_takeaway(T, d_model, h, masked=masked)
                assert why.key == "heads.cost.takeaway"
                if now.elementwise > now.macs:
                    assert ops.key == "heads.cost.ops_above"
                elif ops.key == "heads.cost.ops_never":
                    c = 3 if masked else 2
                    assert c * h <= 2 * d_model  # then it never passes, whatever T
                else:
                    assert ops.key == "heads.cost.ops_later"
                    n = int(ops.kw()["from_T"].replace(",", ""))
                    later, before = (totals(1, x, x, d_model, h, masked=masked) for x in (n, n - 1))
                    assert later.elementwise > later.macs and before.elementwise <= before.macs and n > T
                params = now.params * 4
                if now.weights_bytes > params:
                    assert mem.key == "heads.cost.mem_above"
                else:
                    assert mem.key == "heads.cost.mem_later"
                    n = int(mem.kw()["from_T"].replace(",", ""))
                    assert h * n * n * 4 > params >= h * (n - 1) ** 2 * 4 and n > T
    for x in (ops, mem):
        words(x)


def test_the_takeaway_no_longer_says_the_operations_dominate():
    """The sentence of issue 29, at the settings it was found at: the operations never pass the multiply-adds."""
    _, ops, mem = H.cost_takeaway(32, 512, 16, masked=True)
    assert ops.key == "heads.cost.ops_never" and mem.key == "heads.cost.mem_later" and mem.kw()["from_T"] == "257"
    assert "dominates" not in i18n.t("heads.cost.takeaway", "en")


@pytest.mark.parametrize("d_model", D_MODELS)
def test_the_timing_note_says_how_much_the_predicted_operations_move(d_model):
    """ "The predicted operation count hardly moves" was said at d_model 8, T 32 too, where it grows 1.5x over h."""
    for T in range(2, 33):
        ops = [r.macs + r.elementwise for r in (totals(1, T, T, d_model, h, masked=False) for h in divisors(d_model))]
        note = H.timing_noise(T, d_model)
        if max(ops) / min(ops) < 1.1:
            assert note.key == "heads.time.noise" and float(note.kw()["pct"].rstrip("%")) <= 10
        else:
            assert note.key == "heads.time.noise_grows" and note.kw()["x"] == f"{max(ops) / min(ops):.1f}"
            assert ops.index(max(ops)) == len(ops) - 1 and note.kw()["h"] == divisors(d_model)[-1]
        words(note)
    if d_model == 8:
        assert H.timing_noise(32, 8).key == "heads.time.noise_grows"


# ================================================================ Positions
@pytest.fixture(scope="module")
def real():
    from core.pretrained import load

    return load()


def test_the_learned_tables_sentences_say_what_the_heatmap_shows(real):
    """Issue 29: "brightest near the diagonal" where high similarity is the darkest colour; "every 1-th shown" and
    「每隔 1 个取一个」 at stride 1. Now the reading names the +1 end of the (diverging) colour bar and is chosen by
    the near/far means printed beside it; stride 1 says every position is shown."""
    for span in PL.SPANS:
        v = PL.learned_view(real, span)
        shape, read = words(PL.learned_shape(v)), words(PL.learned_read(v))
        if v.stride == 1:
            assert "1-th" not in shape["en"] and "每隔 1" not in shape["zh"] and "every one shown" in shape["en"]
        else:
            assert f"one in every {v.stride}" in shape["en"]
        near, far = v.learned_neighbour, v.learned_far
        key = PL.learned_read(v).key
        assert key == (
            "pos.learned.read" if near > far and v.sinusoidal_neighbour > v.sinusoidal_far else "pos.learned.read_flat"
        )
        assert f"{near:.3f}" in read["en"] and f"{far:.3f}" in read["zh"]
        assert "bright" not in read["en"].lower() and "最亮" not in read["zh"]
        sim = v.similarity.panels[0].values
        off = np.abs(np.subtract.outer(np.arange(len(sim)), np.arange(len(sim))))
        if key == "pos.learned.read":  # the heatmap itself: cells next to the diagonal above the far ones
            assert sim[off == 1].mean() > sim[off >= len(sim) // 2].mean()


def test_the_real_models_layer_is_numbered_as_on_real_heads():
    """Issue 29: /positions said "layer 1" for what /real-model calls layer 0. One numbering, from 0."""
    for lang in LANGS:
        label, caption = i18n.t("pos.model.real", lang), i18n.t("pos.add.model.real", lang, h=12, d=384, dk=32, T=9)
        assert ("layer 0" in label or "第 0 层" in label) and ("layer 1" not in label and "第 1 层" not in label)
        assert "0" in caption and "第 1 层" not in caption and "layer 1" not in caption


@pytest.mark.parametrize("d_k", (2, 4, 6, 8, 16, 64, 256))
@pytest.mark.parametrize("base", (1.5, 10.0, 10000.0, 500000.0))
def test_the_rope_falloff_sentence_follows_its_curve(d_k, base):
    """ "falls, wiggling, with distance" was said at d_k = 2 too, where the k = q curve is a pure cosine that comes
    back to its start. Now chosen by the curve; the by-distance caption says the lines coincide only if they do."""
    s = Settings(64, 4, 8, "none", 0, "en")
    v = PL.rope_view(s, d_k, base, 0, 8, 0, 3)
    m = np.asarray(v.falloff_matched.y, dtype=np.float64)
    far = np.abs(m[len(m) // 2 :]).max() / m[0]
    key = PL.falloff_text(v).key
    assert key == ("pos.falloff.about" if far < 0.9 else "pos.falloff.swings")
    assert abs(m[0] / math.sqrt(d_k) - 1) < 0.15  # "starts near √d_k"
    u = np.asarray(v.falloff_unrelated.y, dtype=np.float64)  # "the mean |score| stays flat": no trend
    assert abs(u[: len(u) // 2].mean() - u[len(u) // 2 :].mean()) < 0.15 * u.mean()
    if d_k == 2:
        assert key == "pos.falloff.swings"
    words(PL.falloff_text(v))
    lows, highs = v.by_distance_low, v.by_distance_high
    coincide = bool(np.abs(highs - lows).max() <= 1e-4)
    assert PL.by_distance_text(v).key == ("pos.rope.by_distance" if coincide else "pos.rope.by_distance_apart")


def test_the_add_sections_real_model_sentences_hold_for_every_example(real):
    """pos.add.table: the shuffle gap "is 0 only without positions"; pos.add.trained: a repeated word's two rows
    are identical without positions and differ with every kind; the sinusoid rows are "much longer" than the
    token vectors."""
    s = Settings(64, 4, 8, "none", 0, "en")
    for example in range(len(EXAMPLES)):
        v = PL.add_view(s, "real", 0, 10000.0, 3, real=real, example=example)
        by = {k.kind: k for k in v.kinds}
        assert by["none"].shuffle_gap < 1e-5 and all(k.shuffle_gap > 1e-3 for k in v.kinds if k.kind != "none")
        if v.twin is not None:
            assert by["none"].twin_gap < 1e-6 and all(k.twin_gap > 1e-3 for k in v.kinds if k.kind != "none")
        assert by["sinusoidal"].added_norm > 5 * v.token_norm


@pytest.mark.parametrize("d_model", (8, 64, 512))
def test_the_shuffle_gap_is_zero_only_without_positions_on_the_random_model(d_model):
    for h in (1, 8):
        for T in (2, 8, 32):
            for seed in SEEDS:
                s = Settings(d_model, h, T, "none", seed, "en")
                v = PL.add_view(s, "random", 0, 10000.0, seed, run=scenario.run(s))
                for k in v.kinds:
                    if not k.available:
                        continue
                    if k.kind == "none":
                        assert k.shuffle_gap < 1e-5
                    elif T > 2 or k.shuffle_gap > 0:  # T 2 may shuffle to the same order
                        assert k.shuffle_gap > 1e-6 or v.perm.tolist() == sorted(v.perm.tolist())


# ================================================================ Softmax quiz: the entropy order's reveal
@pytest.mark.parametrize("d_model", (8, 16, 64, 512))
def test_the_entropy_reveal_agrees_with_the_printed_entropies(d_model):
    """ "÷1 < ÷√d_k < ÷d_k ... the entropies are e1, e2, e3" stood beside three equal numbers at d_k = 1."""
    for h in (1, 2, 8):
        if d_model % h:
            continue
        for T in (2, 8, 32):
            for mask in MASKS:
                for seed in SEEDS:
                    s = Settings(d_model, h, T, mask, seed, "en")
                    q = next(q for q in SM.quiz_questions(s) if q.kind == "entropy_order")
                    note = q.facts["run_note"]
                    e = [f"{x:.3f}" for x in q.facts["entropies"]]
                    assert [float(x) for x in e] == sorted(float(x) for x in e)  # never the wrong way round
                    if float(e[0]) < float(e[1]) < float(e[2]):
                        assert note.key == "softmax.quiz.entropy_order.run_agrees"
                    else:
                        assert note.key != "softmax.quiz.entropy_order.run_agrees"
                        assert (note.key == "softmax.quiz.entropy_order.run_d_k_1") == (s.d_k == 1)
                    assert [note.kw()[k] for k in ("e1", "e2", "e3")] == e
    words(note)


# ================================================================ Softmax, max: opens where the overflow is
@pytest.mark.parametrize("d_model", (8, 64, 512))
def test_the_max_section_opens_where_the_naive_softmax_breaks(d_model):
    for h in (h for h in (1, 4, 16) if h in every_h(d_model)):
        for T in (2, 8, 32):
            for mask in MASKS:
                for seed in SEEDS:
                    s = Settings(d_model, h, T, mask, seed, "en")
                    run = scenario.run(s)  # the page's run; parse_url (test_lesson_softmax) computes the same
                    gain = SM.default_gain(s, 0, T - 1, run)  # the opened row: the last, head 0
                    mr = SM.max_row(s, 0, T - 1, gain, run)
                    if any(g is not None for g in mr.first_failing_gain):
                        assert not all(dt.naive_ok for dt in mr.dtypes), (d_model, h, T, mask, seed)
                        assert gain == next(g for g in mr.first_failing_gain if g is not None)  # float32 first
                        assert not mr.dtypes[0].naive_ok or mr.first_failing_gain[0] is None  # on top of the page
                    else:
                        assert gain == SM.GAINS[-1]


def test_the_decode_view_opens_past_its_first_step():
    for T in range(2, 33):
        s = Settings(8, 2, T, "causal", 0, "en")
        assert K.parse_url({}, s)[0].step >= 2


# ================================================================ Walkthrough, masks lab: "weight ≈ 0"
@pytest.mark.parametrize("T", (2, 4, 8))
def test_the_mask_steps_weight_zero_sentence_names_fully_blocked_rows(T):
    """ "so their weight becomes ≈ 0" does not hold for a row the mask blocks entirely (weights 1/T): said."""
    rows = ["1" * T] * T
    rows[T // 2] = "0" * T
    custom = ".".join(rows)
    for text_, full in ((custom, 1), (None, 0)):
        s = Settings(16, 2, T, "custom" if text_ else "causal", 0, "en")
        run = scenario.run(s, custom_text=text_)
        said = walk_numbers.step_text(run, "mask")
        assert said[0].key == "walk.mask.text"
        if full:
            assert said[1].key == "walk.mask.full_rows" and said[1].kw()["n"] == 1
            w = run.trace.weights[0, :, T // 2].numpy()
            assert np.allclose(w, 1 / T) and said[1].kw()["u"] == f"{1 / T:.4g}"
            words(said[1])
        else:
            assert len(said) == 1
            w = run.trace.weights[0].numpy()
            blocked = ~mask_from_text(".".join("1" * (i + 1) + "0" * (T - i - 1) for i in range(T)), T, T).numpy()
            assert (w[:, blocked] == 0).all()


@pytest.mark.parametrize("fill", lab.FILLS if hasattr(lab, "FILLS") else ("-1e9", "-inf"))
@pytest.mark.parametrize("parts", [("causal",), ("custom",)])
def test_blocked_cells_have_weight_exactly_zero(fill, parts):
    """masks.check.zero says "all have weight exactly 0 (largest: ...)": the largest it prints is 0 everywhere."""
    for T in (2, 5, 8):
        for d_model, h in ((8, 1), (64, 4), (512, 64)):
            grid = mask_from_text(".".join("1" * (i % T + 1) + "0" * (T - i % T - 1) for i in range(T)), T, T)
            setup = lab.LabSetup(parts, T, T, custom_grid=grid if parts == ("custom",) else None, fill=fill)
            run = lab.run_lab(Settings(d_model, h, T, "none", 0, "en"), setup)
            check = lab.blocked_check(run, 0)
            assert check["largest"] in (None, 0.0)


# ================================================================ the pages show the lesson's sentence
@pytest.mark.app
@pytest.mark.parametrize("lang", LANGS)
def test_softmax_tiles_page_shows_the_traffic_sentences(lang):
    at = run_app("softmax", lang=lang, d_model=512, num_heads=16, seq_len=32, soft_tab="tiles", soft_bq=4, soft_bk=4)
    ok(at)
    s = Settings(512, 16, 32, "none", 0, lang)
    shown = page_text(at)
    for note in SM.traffic_notes(SM.memory_table(s, 4, 4), s.d_k):
        assert in_language(note, lang).replace("\u2011", "-") in shown
    assert "1 TiB" in shown and "1024 GiB" not in shown and "1,024 GiB" not in shown
    assert ("4.00" in shown) and ("0.13" in shown)  # 4 x 4: 4x more; the kernel's 128 x 64: 0.13x


@pytest.mark.app
@pytest.mark.parametrize("lang", LANGS)
def test_kv_memory_page_marks_caches_past_the_context(lang):
    at = run_app(
        "kv-cache",
        lang=lang,
        d_model=16,
        num_heads=4,
        seq_len=4,
        kv_tab="memory",
        kv_model="gpt2-small",
        kv_context=131072,
    )
    ok(at)
    shown = page_text(at)
    assert i18n.t("kv.mem.beyond", lang, max="1,024") in shown and "4.50 GiB" not in shown
    assert i18n.t("kv.mem.capped", lang, b="512 MiB", w="4,096") in shown  # Mistral-7B's rolling cache
    assert i18n.t("kv.mem.chart_stops", lang, max="1,024") in shown
    fig = charts(at)[0].text.replace(" ", "")  # the one chart route (static/plots.js): its JSON
    assert '"x":[256,512,1024]' in fig or "1024]" in fig


@pytest.mark.app
@pytest.mark.parametrize("lang", LANGS)
def test_heads_cost_page_shows_the_chosen_takeaway(lang):
    at = run_app("heads", lang=lang, d_model=512, num_heads=16, seq_len=32, mask="causal", heads_tab="cost")
    ok(at)
    shown = page_text(at)
    for x in H.cost_takeaway(32, 512, 16, masked=True):
        assert in_language(x, lang) in shown


@pytest.mark.app
@pytest.mark.parametrize("lang", LANGS)
def test_positions_pages_show_layer_0_and_the_learned_reading(lang, real):
    at = run_app("positions", lang=lang, pos_tab="add", pos_model="real")
    ok(at)
    shown = page_text(at)
    assert ("layer 0" in shown or "第 0 层" in shown) and "layer 1" not in shown and "第 1 层" not in shown
    at = run_app("positions", lang=lang, pos_tab="learned", pos_span=16)
    ok(at)
    shown = page_text(at)
    v = PL.learned_view(real, 16)
    assert in_language(PL.learned_shape(v), lang) in shown and in_language(PL.learned_read(v), lang) in shown
    assert "1-th" not in shown and "每隔 1" not in shown and "Brightest" not in shown and "最亮" not in shown


@pytest.mark.app
@pytest.mark.parametrize("lang", LANGS)
def test_softmax_max_and_kv_decode_open_where_their_point_is(lang):
    at = run_app("softmax", lang=lang, d_model=512, num_heads=16, seq_len=32, soft_tab="max")
    ok(at)
    assert at.session_state["soft_gain"] > 1 and at.error  # an overflow, said as an error note
    at = run_app("kv-cache", lang=lang, d_model=16, num_heads=4, seq_len=8, kv_tab="decode")
    ok(at)
    assert at.session_state["kv_step"] == 4


@pytest.mark.app
@pytest.mark.parametrize("lang", LANGS)
def test_walkthrough_mask_step_names_a_fully_blocked_row(lang):
    at = run_app(
        "walkthrough",
        lang=lang,
        d_model=16,
        num_heads=2,
        seq_len=4,
        mask="custom",
        walk_step=6,
        masks_grid="1000.0000.1110.1111",
    )
    ok(at)
    shown = page_text(at)
    assert i18n.t("walk.mask.full_rows", lang, n=1, T=4, u="0.25") in shown
    # the check line said "equals" beside a NaN difference (PyTorch gives the blocked row NaN): now apart
    run = scenario.run(Settings(16, 2, 4, "custom", 0, lang), custom_text="1000.0000.1110.1111")
    check = walk_numbers.reference_check(run)
    assert check.blocked_rows == 1 and check.equal and not math.isnan(check.output_diff + check.weights_diff)
    said = walk_numbers.reference_text(check)
    assert said.key == "walk.reference_blocked" and in_language(said, lang).replace("\u2011", "-") in shown


@pytest.mark.app
@pytest.mark.parametrize("lang", LANGS)
def test_home_check_counts_fully_blocked_rows_apart(lang):
    """The home page said "differs by at most nan" for a hand-drawn mask with an all-0 row."""
    at = run_app(lang=lang, d_model=16, num_heads=2, seq_len=4, mask="custom", masks_grid="1000.0000.1110.1111")
    ok(at)
    shown = page_text(at)
    said = " ".join(str(e.value) for e in at.success)
    assert "at most nan" not in said and "误差为 nan" not in said
    assert i18n.t("home.check_blocked", lang, n=1) in shown
