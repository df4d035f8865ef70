"""The "Softmax up close" page (pages/softmax.py) under AppTest: every section in both languages at the smallest
and largest shared settings and under every mask; bad URL values for every page key are corrected with a notice
in the main area and never raise; the numbers printed on screen are the lesson's (lessons/softmax/)."""

from __future__ import annotations

import numpy as np
import pytest
from chart_reader import heatmaps
from conftest import in_both_languages, run_app, tables

from lessons import scenario
from lessons import softmax as L
from lessons.heatmap import text
from lessons.settings import Settings
from ui.words import in_language

pytestmark = pytest.mark.usefixtures("one_torch_thread")
SECTIONS = L.SECTIONS
SIZES = [(8, 1, 2), (8, 8, 2), (512, 64, 32), (512, 1, 32)]  # (d_model, num_heads, seq_len)
GRID = "10000000.11000000.11100000.00000000.11110000.11111000.11111100.11111110"  # row 3 fully blocked


def texts(elements) -> list[str]:
    # i18n.t prints the minus of "8.94e-08" as a non-breaking hyphen (a phone never breaks the number): read it back
    return [str(e.value).replace("\u2011", "-") for e in elements]


def table(at, i: int) -> dict[str, list]:
    frame = tables(at)[i].value
    return {str(c): [str(v) for v in frame[c].tolist()] for c in frame.columns}


def qp(at, key: str) -> list[str] | None:
    """The URL's values of `key` after the run (None: not in the URL)."""
    if key not in at.query_params:
        return None
    v = at.query_params[key]
    return [str(x) for x in v] if isinstance(v, list) else [str(v)]


def settings_of(at) -> Settings:
    return Settings(**{k: at.session_state[k] for k in ("d_model", "num_heads", "seq_len", "mask", "seed", "lang")})


@pytest.mark.app
@pytest.mark.parametrize(
    "tab,size,lang",
    in_both_languages(SECTIONS, SIZES),
    ids=[f"{t}-{'-'.join(map(str, s))}-{lang}" for t, s, lang in in_both_languages(SECTIONS, SIZES)],
)
def test_every_section_in_both_languages_at_the_extremes(tab, size, lang):
    d_model, h, T = size
    mask = "causal" if h > 1 else "padding"
    at = run_app(
        "softmax",
        lang=lang,
        d_model=d_model,
        num_heads=h,
        seq_len=T,
        mask=mask,
        soft_tab=tab,
        soft_bq=1 if T > 2 else 4,
        soft_bk=3,
    )
    assert not at.exception, at.exception[0].message
    title = "Softmax 细看" if lang == "zh" else "Softmax up close"
    assert at.markdown[0].value.startswith(f"# {title}\n\n")  # the page's title, then its intro
    assert not at.main.warning  # nothing to correct
    heading = {
        "scale": ("1. 为什么要除以 √d_k", "1. Why divide by √d_k"),
        "max": ("2. 为什么要先减去最大值", "2. Why subtract the max"),
        "tiles": ("3. 一块一块地算：FlashAttention 的前向", "3. Tile by tile: FlashAttention's forward pass"),
    }[tab]
    assert sum(m.startswith(f"### {heading[lang == 'en']}\n\n") for m in texts(at.main.markdown)) == 1
    if tab == "tiles":  # the last row of the memory table is 128k tokens
        mem = table(at, len(tables(at)) - 1)
        assert list(mem.values())[0][-1] == "131,072"


@pytest.mark.app
@pytest.mark.parametrize("mask", ["none", "causal", "padding", "custom"])
@pytest.mark.parametrize("tab", SECTIONS)
def test_every_section_under_every_mask(tab, mask):
    at = run_app("softmax", mask=mask, masks_grid=GRID, soft_tab=tab, soft_row=3, soft_step=2)
    assert not at.exception, at.exception[0].message
    assert not at.main.warning or mask == "custom" and tab != "tiles"  # row 3 fully blocked: said as a warning
    if mask == "custom" and tab in ("scale", "max"):
        assert any("blocks every key" in w for w in texts(at.main.warning))


BAD = {
    "soft_tab": ("nope", "scale"),
    "soft_head": ("99", "3"),
    "soft_row": ("-5", "0"),
    "soft_gain": ("7", "5"),
    "soft_bq": ("0", "1"),
    "soft_bk": ("abc", "4"),
    "soft_step": ("1e400", "4"),
}  # 1e400 is huge: the last step (T 8, 4 x 4)


@pytest.mark.app
@pytest.mark.parametrize("key", list(BAD))
def test_a_bad_value_of_every_page_key_is_corrected_with_a_notice(key):
    given, used = BAD[key]
    tab = {"soft_gain": "max", "soft_bq": "tiles", "soft_bk": "tiles", "soft_step": "tiles"}.get(key, "scale")
    params = {"soft_tab": tab, key: given}
    at = run_app("softmax", d_model=64, num_heads=4, seq_len=8, **params)
    assert not at.exception, at.exception[0].message
    notes = texts(at.main.warning)
    assert any(key in n and used in n for n in notes), notes
    if key == "soft_tab":
        assert qp(at, "soft_tab") == ["scale"]
    else:
        assert str(at.session_state[key]) == used
        assert qp(at, key) in (None, [used])  # the bad value left the link


@pytest.mark.app
def test_garbage_everywhere_at_once_never_raises():
    at = run_app(
        "softmax",
        soft_tab="tiles",
        soft_head="-1e30",
        soft_row="注意力",
        soft_gain="<b>",
        soft_bq="1e400",
        soft_bk="",
        soft_step="nan",
        seq_len=32,
        d_model=512,
        num_heads=64,
    )
    assert not at.exception
    assert at.session_state["soft_bq"] == L.TILE_BLOCK_MAX and at.session_state["soft_bk"] == L.DEFAULT_BLOCK
    assert at.session_state["soft_step"] == 1 and at.session_state["soft_head"] == 0


@pytest.mark.app
def test_the_scale_sections_numbers_are_the_lessons():
    at = run_app("softmax", d_model=64, num_heads=4, seq_len=8, mask="causal", seed=7, soft_head=2, soft_row=5)
    assert not at.exception
    s = settings_of(at)
    run = scenario.run(s)
    rv = L.run_variance(s, run)
    variances = table(at, 0)  # this run's variances first: X, q, k, then q·k under each divisor
    assert list(variances.values())[1] == [f"{v:.4g}" for v in (rv.x, rv.q, rv.k, *rv.scores)]
    r = L.scale_row(s, 2, 5, run)
    shown = table(at, 1)
    cols = list(shown)
    assert shown[cols[0]] == list(L.SCALE_LABELS)
    assert shown[cols[2]] == [f"{v.entropy:.4f}" for v in r.variants]  # entropy
    assert shown[cols[3]] == [f"{v.max_weight:.4f}" for v in r.variants]  # largest weight
    assert shown[cols[4]] == [f"{v.gradient:.4f}" for v in r.variants]  # gradient size
    assert any(f"{r.model_diff:.2e}" in x for x in texts(at.success))
    vc = L.variance_curve(s)
    now = in_language(L.variance_now(vc), "en").replace("\u2011", "-")  # said under the chart, in caption style
    assert f"{float(vc.variance[vc.current_index]):.2f}" in now and any(now in m for m in texts(at.markdown))
    drawn = heatmaps(at)  # the weights under the three divisors, as the browser gets them
    assert len(drawn) == 1 and drawn[0].header["name"] == "scale_row"
    assert np.array_equal(drawn[0].values(0), np.stack([v.weights for v in r.variants]).astype(np.float32))
    e = [f"{v.entropy:.3f}" for v in r.variants]
    assert any(all(x in i for x in e) for i in texts(at.info))  # the entropy order with the row's numbers
    hint = L.big_hint(s) if L.wants_hint(s, r) else None
    shown_text = "\n".join(texts(at.caption) + texts(at.info) + texts(at.warning) + texts(at.success))
    for note in (L.variance_note(rv, vc.draws), *L.scale_notes(r, hint)):  # every note, worded as the lesson says
        assert in_language(note, "en").replace("\u2011", "-") in shown_text, note.key


@pytest.mark.app
def test_at_d_k_512_the_unscaled_row_is_one_hot_and_the_page_says_so():
    at = run_app("softmax", d_model=512, num_heads=1, seq_len=16, soft_row=15, lang="zh")
    assert not at.exception
    s = settings_of(at)
    r = L.scale_row(s, 0, 15, scenario.run(s))
    assert r.variants[0].max_weight > 0.99 and r.variants[1].max_weight < 0.5  # saturated next to healthy
    assert table(at, 1)[list(table(at, 1))[3]][0] == f"{r.variants[0].max_weight:.4f}"
    saturated = in_language(L.scale_notes(r)[1], "zh")
    assert L.scale_notes(r)[1].key == "softmax.scale.saturated" and saturated in texts(at.info)
    assert not any("÷1 的最大权重只有" in c for c in texts(at.caption))  # no hint: nothing more to suggest


@pytest.mark.app
def test_the_max_sections_numbers_are_the_lessons_and_the_overflow_is_shown():
    at = run_app(
        "softmax",
        d_model=64,
        num_heads=4,
        seq_len=8,
        mask="none",
        seed=3,
        soft_tab="max",
        soft_head=1,
        soft_row=6,
        soft_gain=1000,
    )
    assert not at.exception
    s = settings_of(at)
    m = L.max_row(s, 1, 6, 1000, scenario.run(s))
    for i, dt in enumerate(m.dtypes):
        shown = table(at, i)
        cols = list(shown)
        assert shown["s"] == [f"{float(v):.6g}" for v in dt.scores]
        assert shown["exp(s)"] == [f"{float(v):.6g}" for v in dt.exp]
        assert shown[cols[3]] == [f"{float(v):.6g}" for v in dt.naive]  # naive: nan where it overflowed
        assert shown[cols[4]] == [f"{float(v):.6g}" for v in dt.safe]
        assert shown[cols[5]] == [f"{float(v):.6g}" for v in dt.online]
    assert not m.dtypes[0].naive_ok and not m.dtypes[1].naive_ok  # gain 1000 overflows both
    assert "inf" in table(at, 0)["exp(s)"] and "nan" in table(at, 0)[list(table(at, 0))[3]]
    errors = texts(at.error)
    assert len(errors) == 2 and errors[0].startswith(
        f"float32: exp(s) overflows to inf at {int(m.dtypes[0].exp_overflows.sum())} keys"
    )
    assert any(f"{m.dtypes[0].safe_diff:.2e}" in x for x in texts(at.success))


@pytest.mark.app
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_long_rows_tables_show_the_keys_that_tell_its_story_and_every_key_on_request(lang):
    """At T = 32 each dtype's table shows the lesson's telling keys, the hidden ones as gap lines, under a caption
    that says which; the "Every key" toggle (soft_all_keys, kept in the link) shows all 32. At T = 8 there is no
    toggle: the row is whole."""
    at = run_app("softmax", lang=lang, d_model=512, num_heads=16, seq_len=32, mask="causal", soft_tab="max")
    assert not at.exception
    s = settings_of(at)
    head, row, gain = (at.session_state[k] for k in ("soft_head", "soft_row", "soft_gain"))
    m = L.max_row(s, head, row, gain, scenario.run(s))
    assert at.toggle(key="soft_all_keys").label == {"en": "Every key", "zh": "每个键"}[lang]
    boxes = [str(x.value) for x in at.markdown if "<table>" in str(x.value)]
    for i, dt in enumerate(m.dtypes):
        shown = L.telling_keys(m, dt)
        assert not shown.whole
        keys = table(at, i)[list(table(at, i))[0]]
        assert keys == [in_language(c, lang) for c in L.dtype_table(m, dt, shown)[0].cells]
        assert len([k for k in keys if not k.startswith(L.GAP)]) == len(shown.keys) < 32
        caption = in_language(L.shown_text(shown), lang)
        assert boxes[i].startswith(f":small[:gray[{caption}]]")
    at.toggle(key="soft_all_keys").set_value(True).run()
    assert not at.exception and qp(at, "soft_all_keys") == ["true"]
    for i, dt in enumerate(m.dtypes):
        assert table(at, i)["s"] == [f"{float(v):.6g}" for v in dt.scores]  # all 32, no gap line
    assert not any(str(x.value).startswith(":small") for x in at.markdown if "<table>" in str(x.value))
    short = run_app("softmax", lang=lang, d_model=64, num_heads=4, seq_len=8, soft_tab="max", soft_all_keys="false")
    assert not short.exception and "soft_all_keys" not in [w.key for w in short.toggle]


@pytest.mark.app
def test_the_tiles_section_steps_and_its_numbers_are_the_lessons():
    at = run_app(
        "softmax",
        d_model=64,
        num_heads=4,
        seq_len=7,
        mask="causal",
        seed=5,
        soft_tab="tiles",
        soft_head=3,
        soft_bq=2,
        soft_bk=3,
        soft_step=3,
    )
    assert not at.exception
    s = settings_of(at)
    run = scenario.run(s)
    walk = L.tile_walk(s, 3, 2, 3, run)
    v = L.tile_step(walk, 3)
    q0, q1, k0, k1 = v.cells
    now = next(m for m in texts(at.markdown) if m.startswith("Step **"))
    assert now.startswith(
        f"Step **3 of {walk.n_steps}**: query tile {v.tile[0]} (rows {q0}–{q1 - 1}) × key tile "
        f"{v.tile[1]} (keys {k0}–{k1 - 1}). {walk.n_tiles} tiles in all, {len(walk.skipped)} skipped"
    )
    rows = table(at, 0)
    cols = list(rows)
    assert rows[cols[1]] == [f"{float(x):.6g}" for x in v.current.m_old]
    assert rows[cols[2]] == [f"{float(x):.6g}" for x in v.current.m_new]
    assert rows[cols[4]] == [f"{float(x):.6g}" for x in v.current.l]
    drawn = {h.header["name"]: h for h in heatmaps(at)}
    assert set(drawn) == {"scores", "tile_p", "output_so_far"}  # the result waits for the last step
    assert np.array_equal(drawn["tile_p"].values(0), v.current.p.astype(np.float32))
    cur = drawn["scores"].header["rects"][-1]
    assert (cur["style"], cur["r0"], cur["r1"], cur["c0"], cur["c1"]) == ("current", q0, q1, k0, k1)
    assert sum(r["style"] == "skipped" for r in drawn["scores"].header["rects"]) == len({i for i, _ in walk.skipped})
    # a widget step: the Next button, then the slider to the last step, where the result is compared
    at.button(key="soft_next").click().run()
    assert not at.exception and at.session_state["soft_step"] == 4
    assert any(m.startswith(f"Step **4 of {walk.n_steps}**") for m in texts(at.markdown))
    at.slider(key="soft_step").set_value(walk.n_steps).run()
    assert not at.exception
    res = L.tile_result(s, 3, 2, 3, run)
    ok = next(x for x in texts(at.success) if x.startswith("The tiled result equals"))
    both = next(h for h in heatmaps(at) if h.header["name"] == "tiled_vs_plain")
    assert np.abs(both.values(0) - both.values(1)).max() <= L.RESULT_TOLERANCE  # tiled | plain, drawn side by side
    assert f"this head max |difference| {res.head_diff:.2e}" in ok and f"{res.sdpa_diff:.2e}" in ok
    assert f"{res.steps} tiles processed, {res.skipped} skipped" in ok
    # a new block size restarts the walk at step 1
    at.slider(key="soft_bq").set_value(4).run()
    assert not at.exception and at.session_state["soft_step"] == 1
    mem = table(at, len(tables(at)) - 1)
    first = L.memory_table(s, 4, 3)[0]
    assert list(mem.values())[0][0] == "7 (now)" and list(mem.values())[6][0] == f"{first.plain_traffic:,}"


@pytest.mark.app
def test_a_link_reproduces_the_view_in_chinese():
    at = run_app("softmax", lang="zh", soft_tab="tiles", soft_bq=4, soft_bk=4, soft_step=2, mask="causal")
    assert not at.exception
    assert any(m.startswith("第 **2 / 3** 步") for m in texts(at.markdown))  # T 8, 4 x 4: one of four skipped
    assert qp(at, "soft_step") == ["2"] and qp(at, "soft_tab") == ["tiles"]


@pytest.mark.app
@pytest.mark.parametrize("step", ["5", "1000"])  # a middle step, and the last (with the tiled | plain chart)
def test_the_heaviest_tile_view_stays_under_the_step_byte_target(step):
    """Blocks 1 x 1 under the causal mask at d_model 512, h 1, T 32: 528 steps, 496 skipped tiles (outlined as 31
    runs), 32 x 64 outputs. The whole view must fit the 64 KB a step may cost (tests/test_speed_guards.py)."""
    from test_speed_guards import MAX_STEP_BYTES, page_bytes

    at = run_app(
        "softmax",
        d_model=512,
        num_heads=1,
        seq_len=32,
        mask="causal",
        soft_tab="tiles",
        soft_bq=1,
        soft_bk=1,
        soft_step=step,
    )
    assert not at.exception
    total, big = page_bytes(at)
    assert total <= MAX_STEP_BYTES, f"{total / 1024:.1f} KB, biggest {big}"


def test_what_the_page_shares_between_sessions_is_read_only():
    """The page keeps the lesson's results in ui.cache.shared (frozen by core.frozen): no session can write into
    what every other session reads."""
    from core.frozen import freeze

    s = Settings(64, 4, 8, "causal", 0, "en")
    run = freeze(scenario.run(s))
    walk = freeze(L.tile_walk(s, 1, 3, 2, run))
    sr = freeze(L.scale_row(s, 1, 7, run))
    res = freeze(L.tile_result(s, 1, 3, 2, run))
    for a in (
        walk.steps[0].acc,
        walk.scores,
        sr.heatmap.panels[0].values,
        res.side_by_side.panels[1].values,
        L.tile_step(walk, 2).scores.panels[0].values,
    ):
        with pytest.raises(ValueError):
            a[0, 0] = 1.0
    with pytest.raises(TypeError):
        walk.steps[0].traffic["read_q"] = 0
    assert L.tile_step(walk, walk.n_steps).is_last and res.equal


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("sizes", [(8, 8, 2, "none"), (64, 4, 8, "causal"), (512, 1, 32, "padding")])
def test_every_quiz_question_of_the_lesson_has_its_words(lang, sizes):
    """What lessons/quiz needs to word the lesson's questions: a prompt and a why for every kind, formatted with
    the question's own numbers, the answer in the why."""
    import i18n

    s = Settings(*sizes, seed=11, lang=lang)
    for q in L.quiz_questions(s):
        kw = dict(q.params, **(q.facts or {}), answer=q.answer)
        if q.kind == "entropy_order":
            kw.update(zip(("e1", "e2", "e3"), q.facts["entropies"]))
        if q.kind == "dot_variance":
            kw["expr"] = "q·k / √d_k" if q.params["scaled"] else "q·k"
        prompt = i18n.t(f"softmax.quiz.{q.kind}.prompt", lang, **kw)
        why = in_language(text(f"softmax.quiz.{q.kind}.why", **kw), lang)  # run_note is a text of its own
        assert "{" not in prompt + why and prompt != why
        if q.answer_type in ("int", "bytes"):
            assert f"{q.answer:,}" in why or str(q.answer) in why
        assert L.check_answer(q, q.accepted[0]).correct  # the canonical answer form is accepted
