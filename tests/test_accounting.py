"""Shapes, parameters and multiply-adds: the "same cost whatever h" claim, made checkable."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from core import accounting
from core.attention import AttentionTrace, build_input, build_model
from core.validation import divisors

FAST = settings(max_examples=40, deadline=None, database=None)
MATMUL_STEPS = ("q", "k", "v", "scores", "head_outputs", "output")
GRID_STEPS = ("scaled_scores", "masked_scores", "weights")


pytestmark = pytest.mark.usefixtures("one_torch_thread")

sizes = st.fixed_dictionaries(
    {
        "B": st.integers(1, 4),
        "T_q": st.integers(1, 64),
        "T_k": st.integers(1, 64),
        "d_model": st.sampled_from([1, 6, 8, 12, 16, 64, 96, 512]),
    }
)


def test_shapes_cover_every_trace_field_in_order():
    shapes = accounting.tensor_shapes(2, 3, 5, 16, 4)
    assert tuple(shapes) == ("x",) + AttentionTrace.names()
    for shape in shapes.values():
        assert len(shape.axes) == len(shape.sizes)
    assert shapes["scores"].axes == ("B", "h", "T_q", "T_k")
    assert shapes["scores"].sizes == (2, 4, 3, 5)
    assert shapes["q_heads"].sizes == (2, 4, 3, 4)
    assert shapes["k_heads"].sizes == (2, 4, 5, 4)
    assert shapes["concat"].sizes == (2, 3, 16)


def test_shape_text_and_numel():
    shape = accounting.tensor_shapes(1, 8, 8, 64, 4)["q_heads"]
    assert shape.text() == "(B, h, T_q, d_k) = (1, 4, 8, 16)"
    assert shape.numel == 1 * 4 * 8 * 16


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("d_model", [8, 12, 64])
def test_params_match_the_real_module_for_every_h(d_model, bias):
    expected = 4 * (d_model * d_model + (d_model if bias else 0))
    for h in divisors(d_model):
        model = build_model(d_model, h, seed=0, bias=bias)
        assert sum(p.numel() for p in model.parameters()) == expected
        assert accounting.totals(2, 5, 5, d_model, h, bias=bias).params == expected


@FAST
@given(sz=sizes, bias=st.booleans(), masked=st.booleans())
def test_matrix_product_macs_identical_for_every_h(sz, bias, masked):
    per_h = {h: accounting.step_costs(**sz, h=h, bias=bias, masked=masked) for h in divisors(sz["d_model"])}
    reference = {c.step: c for c in per_h[1]}
    for costs in per_h.values():
        for c in costs:
            assert c.macs == reference[c.step].macs, c.step  # every step, not only the total
            assert c.params == reference[c.step].params, c.step
    totals = accounting.totals_over_heads(**sz, bias=bias, masked=masked)
    assert [t.h for t in totals] == divisors(sz["d_model"])
    assert len({t.macs for t in totals}) == 1
    assert len({t.params for t in totals}) == 1


@FAST
@given(sz=sizes)
def test_macs_are_the_textbook_formula(sz):
    B, T_q, T_k, d = sz["B"], sz["T_q"], sz["T_k"], sz["d_model"]
    expected = B * (2 * T_q + 2 * T_k) * d * d + 2 * B * T_q * T_k * d  # 4 projections + QK^T + weights V
    for h in divisors(d):
        assert accounting.totals(B, T_q, T_k, d, h).macs == expected


@FAST
@given(sz=sizes, masked=st.booleans())
def test_elementwise_work_and_weight_memory_grow_with_h(sz, masked):
    B, T_q, T_k, d = sz["B"], sz["T_q"], sz["T_k"], sz["d_model"]
    for h in divisors(d):
        t = accounting.totals(B, T_q, T_k, d, h, masked=masked)
        grid = B * h * T_q * T_k
        assert t.elementwise == grid * (3 if masked else 2)
        assert t.weights_bytes == grid * accounting.BYTES_PER_FLOAT32
        assert t.h == h and t.d_k == d // h


def test_step_costs_follow_the_trace_order():
    costs = accounting.step_costs(1, 4, 4, 8, 2)
    assert tuple(c.step for c in costs) == AttentionTrace.names()
    assert {c.step for c in costs if c.macs} == set(MATMUL_STEPS)
    assert {c.step for c in costs if c.elementwise} == set(GRID_STEPS)
    assert {c.step for c in costs if c.params} == {"q", "k", "v", "output"}


def test_unmasked_has_no_mask_work():
    masked = {c.step: c for c in accounting.step_costs(1, 4, 4, 8, 2, masked=True)}
    plain = {c.step: c for c in accounting.step_costs(1, 4, 4, 8, 2, masked=False)}
    assert plain["masked_scores"].elementwise == 0
    assert masked["masked_scores"].elementwise == 1 * 2 * 4 * 4


@pytest.mark.parametrize("B,T_q,T_k,d_model,h", [(1, 4, 4, 8, 2), (2, 3, 6, 12, 3), (1, 1, 1, 1, 1), (3, 5, 2, 16, 16)])
def test_shapes_are_the_real_trace_shapes(B, T_q, T_k, d_model, h):
    model = build_model(d_model, h, seed=1)
    q_in, kv = build_input(B, T_q, d_model, seed=1), build_input(B, T_k, d_model, seed=2)
    with torch.no_grad():
        _, trace = model.forward_with_trace(q_in, kv, kv)
    shapes = accounting.tensor_shapes(B, T_q, T_k, d_model, h)
    for name in AttentionTrace.names():
        assert tuple(getattr(trace, name).shape) == shapes[name].sizes, name
    assert (
        accounting.totals(B, T_q, T_k, d_model, h).weights_bytes == trace.weights.numel() * trace.weights.element_size()
    )


@pytest.mark.parametrize("fn", [accounting.tensor_shapes, accounting.step_costs, accounting.totals])
@pytest.mark.parametrize(
    "d_model,h,pattern",
    [(12, 5, r"divisible.*\[1, 2, 3, 4, 6, 12\]"), (0, 1, "d_model must be"), (8, 0, "num_heads must be")],
)
def test_invalid_dims_raise(fn, d_model, h, pattern):
    with pytest.raises(ValueError, match=pattern):
        fn(1, 4, 4, d_model, h)


def test_totals_over_heads_lists_every_divisor():
    assert [t.h for t in accounting.totals_over_heads(1, 4, 4, 12)] == [1, 2, 3, 4, 6, 12]
    assert [t.d_k for t in accounting.totals_over_heads(1, 4, 4, 12)] == [12, 6, 4, 3, 2, 1]
