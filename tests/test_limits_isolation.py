"""Limits enforced in core (not only by the widgets), read-only shared objects, and the HTML builders escaping
user text (scripts/check_source.py lets raw HTML come only from them)."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from core import frozen, limits
from core.masks import mask_from_text
from lessons import limits as lesson_limits
from lessons import masks_lab as lab
from lessons import scenario
from lessons import why_heads as W
from lessons.settings import Settings, sanitize

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.usefixtures("one_torch_thread")


# ---------------------------------------------------------------- limits, enforced in core
@pytest.mark.parametrize(
    "kwargs",
    [
        dict(d_model=1024),
        dict(d_model=48),
        dict(num_heads=3),
        dict(num_heads=128),
        dict(seq_len=33),
        dict(seq_len=1),
        dict(seq_len=10**9),
        dict(seed=-1),
        dict(seed=10**6),
        dict(mask="diagonal"),
        dict(lang="fr"),
        dict(seq_len="8"),
    ],
)
def test_settings_outside_the_limits_cannot_exist(kwargs):
    base = dict(d_model=64, num_heads=4, seq_len=8, mask="none", seed=0, lang="en")
    with pytest.raises(ValueError):
        Settings(**{**base, **kwargs})


def test_sanitize_clamps_anything_into_the_limits():
    s, fixes = sanitize({"d_model": "9" * 5000, "num_heads": "-1e30", "seq_len": "1e400", "seed": "-5"})
    assert (s.d_model, s.seq_len, s.seed) == (limits.D_MODEL_CHOICES[-1], limits.SEQ_LEN_MAX, limits.SEED_MIN)
    assert s.num_heads == 1 and {f.key for f in fixes} == {"d_model", "num_heads", "seq_len", "seed"}


def test_masks_lab_refuses_sizes_beyond_the_limits():
    with pytest.raises(ValueError, match="T_k"):
        lab.LabSetup(("causal",), 8, limits.T_K_MAX + 1, cross=True)
    with pytest.raises(ValueError, match="T_q"):
        lab.LabSetup(("causal",), 10_000, 10_000)
    with pytest.raises(ValueError):
        lab.LabSetup(("padding",), 8, 8, lengths=(1, 2, 3))
    # A grid text longer than any grid is refused before it is split; the lab falls back to the default.
    huge = "1" * (limits.MAX_GRID_CHARS + 1)
    with pytest.raises(ValueError, match="longer"):
        mask_from_text(huge, 4, 4)
    grid, fitted = lab.parse_grid(huge, 4, 4)
    assert not fitted and grid.shape == (4, 4)
    largest = ".".join(["1" * limits.T_K_MAX] * limits.SEQ_LEN_MAX)
    assert len(largest) == limits.MAX_GRID_CHARS and lab.parse_grid(largest, 32, 32)[1]


def test_why_heads_training_is_bounded():
    with pytest.raises(ValueError, match="steps"):
        W.Trainer(1, 0, limits.WHY_STEP_CHOICES[-1] + 1)
    with pytest.raises(ValueError, match="seed"):
        W.Trainer(1, limits.WHY_SEED_MAX + 1, 10)
    assert W.Trainer(1, 0, 3200, max_steps=3200).steps == 3200  # the benchmark's own, explicit limit


def test_real_model_text_limits_come_from_limits():
    from core import pretrained

    assert (pretrained.MAX_CHARS, pretrained.MAX_TOKENS) == (limits.MAX_TEXT_CHARS, limits.MAX_TEXT_TOKENS)


def test_the_limits_are_documented():
    for doc in ("README.md", "docs/DEVELOPING.md"):
        text = (ROOT / doc).read_text()
        assert "core/limits.py" in text, doc
        for value in (
            limits.D_MODEL_CHOICES[-1],
            limits.SEQ_LEN_MAX,
            limits.MAX_HEADS,
            limits.MAX_TEXT_TOKENS,
            limits.MAX_TEXT_CHARS,
            lesson_limits.QUIZ_ANSWER_CHARS,
        ):
            assert str(value) in text, (doc, value)


# ---------------------------------------------------------------- nothing mutable shared between sessions
def test_frozen_scenario_refuses_in_place_writes_and_computes_the_same():
    s = Settings(64, 4, 8, "causal", 3, "en")
    run = scenario.run(s)
    shared = frozen.freeze(run)
    assert frozen.is_frozen(shared)
    for name in ("weights", "scores", "output"):
        t = getattr(shared.trace, name)
        assert torch.equal(t, getattr(run.trace, name))
        with pytest.raises(RuntimeError):
            t.add_(1)
        with pytest.raises(RuntimeError):
            t[0, ..., 0] = 0
    with pytest.raises(RuntimeError):
        shared.x.zero_()
    with pytest.raises(RuntimeError):
        shared.model.W_q.weight.copy_(torch.zeros_like(shared.model.W_q.weight))
    with pytest.raises(RuntimeError):
        shared.model.W_o.bias.mul_(2)
    assert list(shared.model.parameters()) == []  # nothing an optimizer could train
    with pytest.raises(AttributeError):
        shared.tokens.append("x")  # lists become tuples
    # Reading and running still work, with the same numbers.
    with torch.no_grad():
        out = shared.model(shared.x, shared.x, shared.x, shared.mask)
    assert torch.allclose(out, run.trace.output)
    assert torch.equal(shared.model.head_projection("q", 1)[0], run.model.head_projection("q", 1)[0])
    # The original (a session's own run) is untouched and still writable.
    run.trace.weights.add_(0)


def test_freeze_keeps_what_holds_no_tensor_and_rebuilds_what_does():
    """The cache freezes every value it keeps: a dataclass or tuple with nothing writable inside is kept as the same
    object (rebuilt, a dataclass would run its checks again), one with a tensor, list or dict anywhere inside is a
    new one with that part read-only, and freezing a frozen value again changes nothing."""
    from collections import namedtuple
    from dataclasses import dataclass

    @dataclass(frozen=True)
    class Box:
        name: str
        labels: tuple
        inner: object = None

    plain = Box("a", ("x", "y", 1, 2.5, None), Box("b", ()))
    assert frozen.freeze(plain) is plain and frozen.freeze(plain.labels) is plain.labels
    pair = namedtuple("pair", "a b")(1, "z")
    assert frozen.freeze(pair) is pair  # its type kept too
    t = torch.ones(2)
    deep = Box("c", ("x", ((t,),)), Box("d", (), {"k": [1]}))
    got = frozen.freeze(deep)
    assert got is not deep and frozen.is_frozen(got) and not frozen.is_frozen(deep)
    assert got.labels[0] == "x" and torch.equal(got.labels[1][0][0], t)
    with pytest.raises(RuntimeError):
        got.labels[1][0][0].add_(1)
    assert got.inner.inner["k"] == (1,)
    with pytest.raises(TypeError):
        got.inner.inner["k"] = 2
    assert frozen.freeze(got) is got  # a second freeze (a cached function's value, frozen again by the cache)
    t.add_(1)  # the original stays the builder's own
    assert float(got.labels[1][0][0][0]) == 1.0


def test_reading_a_frozen_run_gives_the_same_numbers_and_leaves_it_read_only():
    """frozen.reading(): the heads page's slice checks read the shared run without the per-op checks; the same
    numbers as on the run before freezing, and the checks are back once the block ends."""
    from lessons import heads as H

    run = scenario.run(Settings(64, 4, 8, "none", 3, "en"))
    shared = frozen.freeze(run)
    assert H.block_slices(shared.model, shared.x, shared.trace.q_heads) == H.block_slices(
        run.model, run.x, run.trace.q_heads
    )
    assert H.slice_numbers(shared.model, 1) == H.slice_numbers(run.model, 1)
    with frozen.reading():
        assert type(shared.x * 2) is torch.Tensor  # no check ran: a plain result
    assert isinstance(shared.x * 2, torch.Tensor) and frozen.is_frozen(shared)
    with pytest.raises(RuntimeError):
        shared.x.add_(1)
    with pytest.raises(RuntimeError):
        shared.x[0, 0, 0] = 1.0


def _writable_aliases(value, shared_ptrs: set[int]) -> list[str]:
    """Where `value` holds a writable array or tensor on the memory of one of `shared_ptrs` (storage data pointers)."""
    import dataclasses

    import numpy as np

    found, stack, seen = [], [(value, "view")], set()
    while stack:
        obj, where = stack.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        if isinstance(obj, torch.Tensor):
            if obj.untyped_storage().data_ptr() in shared_ptrs and not frozen.is_frozen(obj):
                found.append(where)
        elif isinstance(obj, np.ndarray):
            base = obj
            while isinstance(base.base, np.ndarray):
                base = base.base
            start = base.__array_interface__["data"][0]
            if obj.flags.writeable and any(start <= p < start + max(base.nbytes, 1) for p in shared_ptrs):
                found.append(where)
        elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
            stack += [(getattr(obj, f.name), f"{where}.{f.name}") for f in dataclasses.fields(obj)]
        elif isinstance(obj, (tuple, list)):
            stack += [(x, f"{where}[{i}]") for i, x in enumerate(obj)]
        elif isinstance(obj, dict) or hasattr(obj, "items") and not isinstance(obj, str):
            stack += [(v, f"{where}[{k!r}]") for k, v in obj.items()]
    return found


@pytest.mark.parametrize("mask", ["none", "causal"])
def test_what_reads_the_shared_run_unchecked_hands_out_no_writable_part_of_it(mask):
    """The lessons that read the shared run inside frozen.reading() (no per-op checks there): what they return holds
    no writable tensor or array on the run's memory, and the run is unchanged and still read-only."""
    from lessons import heads as H

    s = Settings(64, 4, 8, mask, 3, "en")
    shared = frozen.freeze(scenario.run(s))
    before = {n: getattr(shared.trace, n).clone() for n in ("weights", "output", "q_heads")}
    tensors = [shared.x, *(getattr(shared.trace, n) for n in ("weights", "output", "q_heads", "k_heads"))]
    tensors += [b for b in shared.model.buffers()]
    ptrs = {t.untyped_storage().data_ptr() for t in tensors}
    for view in (
        H.block_slices(shared.model, shared.x, shared.trace.q_heads),
        H.slice_numbers(shared.model, 1),
    ):
        assert _writable_aliases(view, ptrs) == []
    with frozen.reading():  # what the check is for: a view made inside is writable
        leaks = (shared.x[0, :2].numpy(), shared.trace.weights[0, 1].detach())
    assert _writable_aliases(leaks, ptrs) == ["view[1]", "view[0]"]
    assert frozen.is_frozen(shared)
    for n, t in before.items():
        assert torch.equal(getattr(shared.trace, n), t), n


def test_the_shared_masks_lab_objects_are_read_only_and_work_the_same():
    """pages/masks.py shares its run, its polarity-bug demo and its heatmaps (lessons.masks_lab) per settings."""
    s = Settings(16, 4, 5, "custom", 3, "en")
    grid, _ = lab.parse_grid("10000.11000.01100.00110.00011", 5, 5)
    run = lab.run_lab(s, lab.LabSetup(("custom", "padding"), 5, 5, lengths=(4,), custom_grid=grid, fill="-inf"))
    shared = frozen.freeze(run)
    bug = frozen.freeze(lab.polarity_bug(s, "-inf"))
    assert frozen.is_frozen(shared) and frozen.is_frozen(bug)
    with pytest.raises(RuntimeError):
        shared.trace.weights[0, 0, 0, 0] = 0
    with pytest.raises(RuntimeError):
        shared.keep.logical_not_()
    with pytest.raises(RuntimeError):
        bug.bug.zero_()
    with pytest.raises(AttributeError):
        shared.q_labels[0].append("x")
    # What the page reads from the frozen objects is what the unfrozen ones give.
    assert lab.blocked_check(shared, 2) == lab.blocked_check(run, 2)
    assert lab.full_row_demo(shared, 1).actual == lab.full_row_demo(run, 1).actual
    assert str([dict(r) for r in bug.summary(1)]) == str(lab.polarity_bug(s, "-inf").summary(1))  # NaN too
    from charts.payload import payload

    view, own = frozen.freeze(lab.lab_view(shared, 0, 2, "keep")), lab.lab_view(run, 0, 2, "keep")
    for name in ("mask", "scores", "weights"):
        assert payload(getattr(view, name)) == payload(getattr(own, name))
    with pytest.raises(ValueError):
        view.scores.panels[0].values[0, 0] = 0  # the heatmaps' arrays are read-only too


def test_the_shared_run_result_of_why_heads_is_read_only():
    store = W.ResultStore()
    r = W.train(2, 0, 3)
    kept = store.put(W.cache_key(2, 0, 3), r)
    assert frozen.is_frozen(kept) and store.get(W.cache_key(2, 0, 3)) is kept
    with pytest.raises(RuntimeError):
        kept.example_weights[0, 0, 0] = 1.0


def test_frozen_real_model_gives_the_same_numbers_and_refuses_writes():
    from core import pretrained
    from lessons import real_heads as R

    model = pretrained.load()
    text = "The animal didn't cross the street because it was tired."
    _, before = model.run_text(text)
    n_params = R.param_count(model)
    shared = frozen.freeze(model)
    assert frozen.is_frozen(shared.encoder) and R.param_count(shared) == n_params
    _, after = shared.run_text(text)
    assert torch.equal(before.weights, after.weights)
    with pytest.raises(RuntimeError):
        shared.encoder.layers[0].attention.W_q.weight.zero_()
    with pytest.raises(RuntimeError):
        shared.encoder.embeddings.word.weight[0] = 0


def test_a_table_escapes_every_header_and_cell():
    """charts.table.html: a student's own words (a token, a custom sentence) in a header or a cell come out as text."""
    from charts import table

    evil = "<script>window.__xss=1</script>"
    out = table.html({evil: [evil, "\"'><img src=x onerror=1>"]}, label=evil, index=[evil, 1])
    assert "<script" not in out and "<img" not in out
    assert table.read_html(out) == [{"": [evil, "1"], evil: [evil, "\"'><img src=x onerror=1>"]}]


def test_token_chips_escape_any_token():
    """The one HTML built from user-derived text (the real model's tokens, charts/diagrams.token_chips_html): a
    token full of markup comes out as text."""
    from charts import diagrams

    out = diagrams.token_chips_html(["<script>window.__xss=1</script>", "\"'><img src=x onerror=1>"])
    assert "<script" not in out and "<img" not in out and "&lt;script&gt;" in out


def test_the_heads_diagrams_escape_their_labels():
    from charts import diagrams
    from lessons import heads as H

    bad = "<script>window.__xss=1</script>\"'><img src=x onerror=1>"
    boxes = H.shape_flow(64, 8, 8, prev_h=4)
    html = diagrams.shape_flow_html(
        boxes,
        {b.name: bad for b in boxes},
        legend_depends=bad,
        legend_same=bad,
        legend_changed=bad,
        was=bad + "{sizes}",
        numbers=bad + "{n}",
        h=8,
    )
    bars = diagrams.focus_html(torch.tensor([0.5, 0.25]), [0], uniform=0.25, axis_title=bad, head_label=bad)
    for out in (html, bars):
        assert "<script" not in out and "<img" not in out and "onerror=1>" not in out


def test_class_bars_escape_every_label():
    """Class mode's answer bars: a quick question's or a nickname-bearing label full of markup comes out as text."""
    from charts.diagrams import class_bars_html

    out = class_bars_html(
        [("<script>window.__xss=1</script>", True, 50.0, 3), ("\"'><img src=x onerror=1>", False, 50, 3)]
    )
    assert "<script" not in out and "<img" not in out and "cm-right" in out
