"""The "Why many heads" core: the task, the model, the training loop and the measurements.

The main claim is tested for real: over three seeds, trained multi-head models reach a clearly
lower loss than the single head and have a head for each of the two relations the task needs.
"""

from __future__ import annotations

import math
import re

import pytest
import torch

import i18n
from lessons import why_heads as W

SEEDS = (0, 1, 2)
TEST_STEPS = 100  # the smallest budget on the page; the effect is already complete there


@pytest.fixture(scope="module")
def runs() -> dict[tuple[int, int], W.RunResult]:
    """Every (seed, h) of SEEDS x HEAD_COUNTS, trained once for the whole module."""
    return {(seed, h): W.train(h, seed, TEST_STEPS) for seed in SEEDS for h in W.HEAD_COUNTS}


# ---------------------------------------------------------------- the claim, measured
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("h", [h for h in W.HEAD_COUNTS if h > 1])
def test_multi_head_loss_clearly_below_single_head(runs, seed, h):
    single, multi = runs[(seed, 1)], runs[(seed, h)]
    assert single.eval_loss - multi.eval_loss >= W.LOSS_MARGIN, (single.eval_loss, multi.eval_loss)
    assert multi.eval_loss < 0.05 and multi.accuracy > 0.99
    assert single.accuracy < W.SOLVED_ACCURACY  # the single head does not solve it


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("h", [h for h in W.HEAD_COUNTS if h > 1])
def test_each_relation_has_its_own_head(runs, seed, h):
    multi = runs[(seed, h)]
    prev_heads, mark_heads = multi.heads_for("previous"), multi.heads_for("marker")
    assert prev_heads and mark_heads, (multi.previous_mass, multi.marker_mass)
    assert not set(prev_heads) & set(mark_heads)
    assert max(multi.previous_mass) >= 0.9 and max(multi.marker_mass) >= 0.9
    cmp = W.compare(runs[(seed, 1)], multi)
    assert cmp.shows_effect and cmp.clearly_lower and cmp.both_relations and cmp.verdict == "effect"


@pytest.mark.parametrize("seed", SEEDS)
def test_single_head_cannot_do_both(runs, seed):
    single = runs[(seed, 1)]
    assert W.single_head_story(single) in ("previous", "marker", "split")
    # It never gets both digits right much more often than by luck with one of them.
    assert min(single.previous_accuracy, single.marker_accuracy) < 0.5


def test_same_parameters_and_initial_weights_for_every_h():
    models = {h: W.build_why_model(h, seed=5) for h in W.HEAD_COUNTS}
    counts = {h: W.parameter_count(m) for h, m in models.items()}
    assert len(set(counts.values())) == 1
    states = [m.state_dict() for m in models.values()]
    for name in states[0]:
        for other in states[1:]:
            assert torch.equal(states[0][name], other[name]), name
    assert [m.attention.d_k for m in models.values()] == [W.D_MODEL // h for h in W.HEAD_COUNTS]


# ---------------------------------------------------------------- determinism
def test_training_is_deterministic_for_a_fixed_seed():
    a, b = W.train(2, 7, 60), W.train(2, 7, 60)
    assert a.losses == b.losses  # bit-identical floats
    assert torch.equal(a.example_weights, b.example_weights)
    assert (a.eval_loss, a.previous_mass, a.marker_mass) == (b.eval_loss, b.previous_mass, b.marker_mass)
    assert W.train(2, 8, 60).losses != a.losses


def test_training_in_chunks_equals_one_go():
    """The page trains in chunks between chart updates: that must not change a single number."""
    one = W.Trainer(4, 3, 50)
    one.advance(50)
    chunked = W.Trainer(4, 3, 50)
    for n in (7, 13, 1, 100):
        chunked.advance(n)
    assert chunked.done and chunked.step == 50
    assert one.losses == chunked.losses
    assert one.result().eval_loss == chunked.result().eval_loss


def test_global_rng_is_not_used():
    torch.manual_seed(1)
    a = W.train(1, 4, 20).losses
    torch.manual_seed(2)
    torch.rand(100)
    assert W.train(1, 4, 20).losses == a


def test_thread_count_is_restored():
    before = torch.get_num_threads()
    W.train(1, 0, 5)
    assert torch.get_num_threads() == before
    torch.set_num_threads(1)  # whatever the caller chose is what it gets back
    try:
        W.train(1, 0, 5)
        assert torch.get_num_threads() == 1
    finally:
        torch.set_num_threads(before)


# ---------------------------------------------------------------- the task and the measurement
def test_targets_are_previous_and_marked_digit():
    ex = W.example_batch()
    tokens, m = list(W.EXAMPLE_TOKENS), W.EXAMPLE_MARKER
    expected = [(tokens[i - 1], tokens[m]) for i in range(1, W.SEQ_LEN)]
    assert [tuple(x) for x in ex.targets[0].tolist()] == expected
    batch = W.make_batch(64, torch.Generator().manual_seed(0))
    assert batch.tokens.shape == (64, W.SEQ_LEN) and batch.targets.shape == (64, W.SEQ_LEN - 1, 2)
    for b in range(64):
        assert batch.targets[b, :, 0].tolist() == batch.tokens[b, :-1].tolist()
        assert set(batch.targets[b, :, 1].tolist()) == {int(batch.tokens[b, batch.marker[b]])}


def test_pattern_masses_on_hand_made_weights():
    B, T = 3, 6
    marker = torch.tensor([0, 3, 5])
    w = torch.zeros(B, 3, T, T)
    for i in range(T):
        w[:, 0, i, max(i - 1, 0)] = 1.0  # head 0: previous token
        w[torch.arange(B), 1, i, marker] = 1.0  # head 1: the marked token
        w[:, 2, i, :] = 1.0 / T  # head 2: uniform
    prev, mark = W.pattern_masses(w, marker)
    assert prev[0] == pytest.approx(1.0) and mark[1] == pytest.approx(1.0)
    assert mark[0] == pytest.approx(0.0) and prev[1] == pytest.approx(0.0)  # rows where they coincide are left out
    assert prev[2] == pytest.approx(1 / T) and mark[2] == pytest.approx(1 / T)
    assert W.head_roles(prev, mark) == ["previous", "marker", None]


def test_single_head_story_and_verdict_follow_the_numbers():
    base = dict(
        seed=0,
        steps=1,
        losses=(1.0,),
        example_weights=torch.zeros(1, W.SEQ_LEN, W.SEQ_LEN),
        parameters=1,
        seconds=0.0,
        eval_loss=1.1,
    )
    single = W.RunResult(
        num_heads=1,
        accuracy=0.2,
        previous_accuracy=0.2,
        marker_accuracy=1.0,
        previous_mass=(0.0,),
        marker_mass=(1.0,),
        **base,
    )
    assert W.single_head_story(single) == "marker"
    split = W.RunResult(
        num_heads=1,
        accuracy=0.3,
        previous_accuracy=0.4,
        marker_accuracy=0.9,
        previous_mass=(0.4,),
        marker_mass=(0.45,),
        **base,
    )
    assert W.single_head_story(split) == "split"
    solved = W.RunResult(
        num_heads=1,
        accuracy=0.93,
        previous_accuracy=0.98,
        marker_accuracy=0.95,
        previous_mass=(0.48,),
        marker_mass=(0.43,),
        **base,
    )
    assert W.single_head_story(solved) == "solved"
    # A multi-head run with both relations but hardly better than the single head: no effect, said so.
    base2 = dict(base, eval_loss=1.0)
    weak = W.RunResult(
        num_heads=2,
        accuracy=0.3,
        previous_accuracy=1,
        marker_accuracy=1,
        previous_mass=(0.9, 0.0),
        marker_mass=(0.0, 0.9),
        **base2,
    )
    cmp = W.compare(single, weak)
    assert cmp.both_relations and not cmp.clearly_lower and not cmp.shows_effect and cmp.verdict == "no_effect"
    # Seed 7 at 400 steps really does this: heads lean to one relation each, loss clearly lower, but only 67% right.
    halfway = W.RunResult(
        num_heads=2,
        accuracy=0.67,
        previous_accuracy=0.67,
        marker_accuracy=1,
        previous_mass=(0.31, 0.66),
        marker_mass=(0.68, 0.33),
        **dict(base, eval_loss=0.35),
    )
    assert W.compare(single, halfway).verdict == "partial"
    one_relation = W.RunResult(
        num_heads=2,
        accuracy=1,
        previous_accuracy=1,
        marker_accuracy=1,
        previous_mass=(0.3, 0.2),
        marker_mass=(0.6, 0.7),
        **dict(base, eval_loss=0.0),
    )
    cmp = W.compare(single, one_relation)
    assert cmp.clearly_lower and not cmp.previous_heads and not cmp.shows_effect


# ---------------------------------------------------------------- page plumbing in core
def test_result_store_keeps_finished_runs_only_and_forgets_the_oldest():
    store = W.ResultStore(capacity=2)
    stopped = W.Trainer(1, 0, 10)
    stopped.advance(3)
    with pytest.raises(ValueError):
        store.put(W.cache_key(1, 0, 10), stopped.result())  # 3 of 10 steps: a partial run is never cached
    r = W.train(1, 0, 3)
    kept = [store.put(W.cache_key(1, seed, 3), r) for seed in range(3)]
    assert len(store) == 2 and store.get(W.cache_key(1, 0, 3)) is None and store.get(W.cache_key(1, 2, 3)) is kept[2]
    # What every session reads is a read-only copy: writing into it raises, the trainer's own run is untouched.
    assert kept[2].losses == r.losses and torch.equal(kept[2].example_weights, r.example_weights)
    with pytest.raises(RuntimeError):
        kept[2].example_weights.zero_()


def _parsed(name: str, raw) -> tuple[object, bool]:
    """A URL value through the page's table (lessons.why_heads.URL_KEYS): (value, corrected?)."""
    from lessons import url

    value, fix = url.parse_value(next(k for k in W.URL_KEYS if k.name == name), raw)
    return value, fix is not None


# (None: the key is missing from the link: its default, silently, as lessons/url.py treats every missing key)
@pytest.mark.parametrize(
    "raw, expected",
    [
        (5, (5, False)),
        ("17", (17, False)),
        (-3, (0, True)),
        (10**9, (W.SEED_MAX, True)),
        ("abc", (0, True)),
        (None, (0, False)),
    ],
)
def test_clamp_seed(raw, expected):
    assert _parsed("why_seed", raw) == expected


@pytest.mark.parametrize(
    "raw, expected",
    [
        (400, (400, False)),
        ("100", (100, False)),
        (500, (400, True)),
        (10**6, (W.STEP_CHOICES[-1], True)),
        ("x", (W.DEFAULT_STEPS, True)),
    ],
)
def test_clamp_steps(raw, expected):
    assert _parsed("why_steps", raw) == expected


def test_loss_chart_and_thinning():
    from charts import lines

    xs, ys = lines.thin(list(range(1000)), max_points=100)
    assert len(xs) <= 101 and xs[0] == 1 and xs[-1] == 1000 and ys[-1] == 999
    words = {"why.loss.chance": "chance"}
    t = lambda key, **kw: words.get(key, key)  # noqa: E731
    chart = lines.loss_chart(
        [W.Curve("h = 1", 1, [2.0, 1.5]), W.Curve("h = 2", 2, [2.0, 0.1], dashed=True)],
        steps=400,
        chance=W.chance_loss(),
        t=t,
    )
    spec = lines.spec(chart, alt="a", file="f")
    assert [tr["name"] for tr in spec["series"]] == ["chance", "h = 1", "h = 2"]
    assert (
        spec["series"][0]["y"][0] == pytest.approx(math.log(W.VOCAB), rel=1e-4) and spec["series"][2]["dash"] == "dash"
    )
    assert spec["y"]["range"] == [0, pytest.approx(math.log(W.VOCAB) * 1.15)]
    assert spec["x"]["range"] == [0, 401]
    assert lines.spec(lines.loss_chart([], steps=100, chance=W.chance_loss(), t=t), alt="", file="")["series"]
    x_title, xs, columns = lines.table(chart)  # the table view: the runs, not the guessing line
    assert xs == [1, 2] and columns == {"h = 1": [2.0, 1.5], "h = 2": [2.0, 0.1]}


def test_heads_heatmap_is_the_example_weights_as_data():
    """The heads tab's chart: one panel per head of the example's attention weights, labels with the marked digit."""
    import numpy as np

    result = W.train(2, seed=3, steps=5)
    hm = W.heads_heatmap(result)
    assert hm.role == "weights" and (hm.vmin, hm.vmax) == (0.0, 1.0) and len(hm.panels) == 2
    for i, panel in enumerate(hm.panels):
        assert np.array_equal(panel.values, result.example_weights[i].numpy())
        assert panel.title.key == "why.panel.head" and panel.title.kw() == {"i": i}
        assert panel.row_labels == panel.col_labels == ("3", "1", "4", "1", "5", "9*", "2", "6", "5", "3")
        assert np.allclose(panel.values.sum(axis=1), 1.0, atol=1e-5)  # softmax rows
    assert (hm.row_axis.key, hm.col_axis.key) == ("common.query", "common.key")
    assert W.example_rows()[0] == (0, "3", None) and W.example_rows()[7] == (7, "6", (2, 9))


def test_strings_have_both_languages_and_matching_placeholders():
    keys = [k for k in i18n.STRINGS if k.startswith("why.")]
    assert len(keys) > 40
    for key in keys:
        texts = i18n.STRINGS[key]
        assert set(texts) == {"zh", "en"} and all(texts.values()), key
        fields = [set(re.findall(r"{(\w+)", texts[lang])) for lang in ("zh", "en")]
        assert fields[0] == fields[1], key
    # The explanation speaks the seed's language.
    zh = "".join(i18n.STRINGS[k]["zh"] for k in keys)
    for term in ("表示子空间", "提升模型容量", "多种表示", "稳定性", "拼接"):
        assert term in zh, term


def test_url_keys_are_declared_once_and_bad_values_are_corrected():
    """lessons.why_heads.URL_KEYS (lessons/url.py) is the page's one table: the names lessons/url_keys.py lists for
    the page, and every bad value moved onto a valid one with a Fix the page shows."""
    from lessons import url
    from lessons.url_keys import PAGE_KEYS

    assert W.URL_KEY_NAMES == PAGE_KEYS["why-heads"]
    values, fixes = url.parse(W.URL_KEYS, {"why_seed": "-5", "why_steps": "500", "why_tab": "nope"}, {})
    assert values == {"why_tab": "results", "why_seed": 0, "why_steps": 400}
    assert {(f.key, f.reason) for f in fixes} == {
        ("why_seed", "out_of_range"),
        ("why_steps", "out_of_range"),
        ("why_tab", "unreadable"),
    }
    values, fixes = url.parse(W.URL_KEYS, {"why_seed": "1e400", "why_steps": "abc"}, {})
    assert values["why_seed"] == W.SEED_MAX and values["why_steps"] == W.DEFAULT_STEPS and len(fixes) == 2
    assert url.parse(W.URL_KEYS, {"why_seed": "7", "why_steps": "1600", "why_tab": "heads"}, {}) == (
        {"why_tab": "heads", "why_seed": 7, "why_steps": 1600},
        [],
    )


# ---------------------------------------------------------------- what the page shows, as data
def _result(h: int, eval_loss: float, accuracy: float, previous_mass, marker_mass, **kw) -> W.RunResult:
    return W.RunResult(
        num_heads=h,
        seed=0,
        steps=2,
        losses=(2.0, 1.0),
        eval_loss=eval_loss,
        accuracy=accuracy,
        previous_accuracy=kw.get("previous_accuracy", accuracy),
        marker_accuracy=kw.get("marker_accuracy", accuracy),
        previous_mass=tuple(previous_mass),
        marker_mass=tuple(marker_mass),
        example_weights=torch.zeros(h, W.SEQ_LEN, W.SEQ_LEN),
        parameters=1234,
        seconds=1.25,
    )


def test_results_and_heads_tables_hold_one_formatted_value_per_run_and_head():
    single = _result(1, 1.1, 0.2, (0.0,), (1.0,), previous_accuracy=0.25, marker_accuracy=0.875)
    multi = _result(2, 0.1234, 0.987, (0.91, 0.0), (0.02, 0.93))
    table = W.results_table({1: single, 2: multi})
    assert list(table) == list(W.RESULT_COLUMNS)
    assert table == {
        "h": [1, 2],
        "d_k": [32, 16],
        "params": [1234, 1234],
        "loss": ["1.100", "0.123"],
        "acc": ["20%", "99%"],
        "acc_prev": ["25%", "99%"],
        "acc_mark": ["88%", "99%"],
        "seconds": ["1.2", "1.2"],
    }
    heads = W.heads_table(multi)
    assert list(heads) == list(W.HEAD_COLUMNS)
    assert heads == {"head": [0, 1], "relation": ["previous", "marker"], "mass_prev": ["0.91", "0.00"],
                     "mass_mark": ["0.02", "0.93"]}  # fmt: skip
    assert W.heads_table(_result(1, 1.0, 0.3, (0.4,), (0.45,)))["relation"] == [None]
    assert W.head_widths() == (32, 16, 8)


def test_verdicts_name_the_heads_and_say_why_there_is_no_effect():
    single = _result(1, 1.1, 0.2, (0.0,), (1.0,))
    effect = _result(2, 0.1, 0.99, (0.9, 0.0), (0.0, 0.8))
    weak = _result(4, 1.0, 0.3, (0.2, 0.1, 0.3, 0.0), (0.9, 0.0, 0.0, 0.1))  # no previous head, loss 0.1 lower only
    story, facts = W.single_head_facts(single)
    assert story == "marker" and facts["d_k"] == 32 and facts["mm"] == 1.0 and facts["acc"] == 0.2
    v2, v4 = W.verdicts({1: single, 2: effect, 4: weak})
    assert (v2.num_heads, v2.verdict, v2.reasons) == (2, "effect", ())
    assert (v2.facts["pis"], v2.facts["pms"], v2.facts["mis"], v2.facts["mms"]) == (
        ("0",),
        ("0.90",),
        ("1",),
        ("0.80",),
    )
    assert (v4.num_heads, v4.verdict) == (4, "no_effect")
    assert [r for r, _ in v4.reasons] == ["no_previous", "loss"]
    assert v4.reasons[0][1] == {"thr": W.MATCH_THRESHOLD, "best": 0.3}
    assert v4.reasons[1][1]["margin"] == W.LOSS_MARGIN
    assert W.verdicts({2: effect}) == []  # no single head to compare with


def test_an_interrupted_run_is_read_from_the_session_and_marked_stopped():
    none = {h: None for h in W.HEAD_COUNTS}
    for junk in (None, "x", {"h": 3, "losses": [], "status": "running"}, {"h": 1, "losses": (), "status": "done"}):
        assert W.interrupted_run(junk, 0, 100, none) == (None, None)
    run = {"seed": 5, "steps": 100, "h": 2, "losses": [2.0, 1.9], "status": "running"}
    assert W.interrupted_run(run, 5, 100, none) == (run, run) and run["status"] == "stopped"
    assert W.interrupted_run(run, 6, 100, none) == (run, None)  # another seed: not this run's curve
    done = {**none, 2: _result(2, 0.1, 0.99, (0.9, 0.0), (0.0, 0.8))}
    assert W.interrupted_run(run, 5, 100, done) == (run, None)  # finished meanwhile (another session)
    assert W.cache_status(none) == ("none", (), (1, 2, 4))
    assert W.cache_status(done) == ("some", (2,), (1, 4))
    assert W.cache_status({h: done[2] for h in W.HEAD_COUNTS}) == ("all", (1, 2, 4), ())
    curves = W.loss_curves(done, stopped=run)
    assert [(c.label, c.num_heads, list(c.losses), c.dashed) for c in curves] == [
        ("h = 2", 2, [2.0, 1.0], False),
        ("h = 2", 2, [2.0, 1.9], True),
    ]


def test_the_example_cells_and_the_measured_accuracies():
    cells = W.example_cells()
    assert cells[0] == ("0", "3", "–") and cells[7] == ("7", "6", "(2, 9)") and cells[5][1] == "9*"
    assert W.full_values_accuracy() == {400: ("93%", "19%", "87%"), 1600: ("98%", "19%", "94%")}
