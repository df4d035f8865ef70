"""Mask builders (seed convention: True = keep), their text form, and their failure modes."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from core import masks

FAST = settings(max_examples=40, deadline=None, database=None)


pytestmark = pytest.mark.usefixtures("one_torch_thread")


def test_causal_mask_is_lower_triangle():
    m = masks.causal_mask(4)
    assert m.shape == (1, 1, 4, 4) and m.dtype == torch.bool
    assert m[0, 0].tolist() == [
        [True, False, False, False],
        [True, True, False, False],
        [True, True, True, False],
        [True, True, True, True],
    ]


def test_causal_mask_rectangular_is_top_left_aligned():
    assert masks.causal_mask(2, 4)[0, 0].tolist() == [[True, False, False, False], [True, True, False, False]]
    assert masks.causal_mask(3, 1)[0, 0].tolist() == [[True], [True], [True]]


def test_padding_from_lengths():
    m = masks.padding_mask_from_lengths([3, 0, 5], 5)
    assert m.shape == (3, 1, 1, 5) and m.dtype == torch.bool
    assert m[:, 0, 0].tolist() == [[True, True, True, False, False], [False] * 5, [True] * 5]
    assert masks.padding_mask_from_lengths(torch.tensor(2), 3)[:, 0, 0].tolist() == [[True, True, False]]


@pytest.mark.parametrize("lengths", [[-1], [6], [2, 7], [0, -3]])
def test_padding_lengths_out_of_range(lengths):
    with pytest.raises(ValueError, match=r"lengths must be in 0\.\.5"):
        masks.padding_mask_from_lengths(lengths, 5)


def test_padding_from_flags():
    m = masks.padding_mask_from_flags([[False, True, False], [True, True, False]])
    assert m.shape == (2, 1, 1, 3)
    assert m[:, 0, 0].tolist() == [[True, False, True], [False, False, True]]
    assert masks.padding_mask_from_flags([False, False, True]).shape == (1, 1, 1, 3)


@pytest.mark.parametrize("flags", [torch.zeros(2, 2, 3, dtype=torch.bool), torch.tensor(True)])
def test_padding_flags_wrong_shape(flags):
    with pytest.raises(ValueError, match=r"pad flags must be \(T_k,\) or \(B, T_k\)"):
        masks.padding_mask_from_flags(flags)


@FAST
@given(lengths=st.lists(st.integers(0, 6), min_size=1, max_size=3))
def test_lengths_and_flags_agree(lengths):
    flags = [[t >= n for t in range(6)] for n in lengths]  # True = padding
    assert torch.equal(masks.padding_mask_from_lengths(lengths, 6), masks.padding_mask_from_flags(flags))


def test_custom_mask():
    m = masks.custom_mask([[1, 0], [0, 1], [1, 1]])
    assert m.shape == (1, 1, 3, 2) and m.dtype == torch.bool
    assert m[0, 0].tolist() == [[True, False], [False, True], [True, True]]
    with pytest.raises(ValueError, match="2-D"):
        masks.custom_mask([1, 0, 1])
    with pytest.raises(ValueError, match="2-D"):
        masks.custom_mask(torch.ones(1, 2, 2))


def test_combine_is_logical_and():
    causal = masks.causal_mask(3)
    padding = masks.padding_mask_from_lengths([3, 1], 3)
    both = masks.combine(causal, None, padding)
    assert both.shape == (2, 1, 3, 3)
    assert both[1, 0].tolist() == [[True, False, False]] * 3
    assert torch.equal(both[0, 0], causal[0, 0])
    assert masks.combine() is None and masks.combine(None, None) is None
    assert torch.equal(masks.combine(torch.tensor([[1, 0]])), torch.tensor([[True, False]]))


def test_flip_polarity_round_trip():
    m = masks.causal_mask(3)
    assert torch.equal(masks.flip_polarity(m), ~m)
    assert torch.equal(masks.flip_polarity(masks.flip_polarity(m)), m)
    assert torch.equal(masks.flip_polarity(torch.tensor([1, 0])), torch.tensor([False, True]))


def test_full_grid_and_fully_blocked_rows():
    assert masks.full_grid(None, 2, 3, 4).shape == (2, 3, 4)
    assert masks.full_grid(None, 2, 3, 4).all()
    assert not masks.fully_blocked_rows(None, 2, 3, 4).any()
    padding = masks.padding_mask_from_lengths([2, 0], 4)
    assert masks.full_grid(padding, 2, 3, 4)[0].tolist() == [[True, True, False, False]] * 3
    assert masks.fully_blocked_rows(padding, 2, 3, 4).tolist() == [[False] * 3, [True] * 3]
    grid = torch.tensor([[0, 0], [1, 0]])  # a 2-D (T_q, T_k) grid works too
    assert masks.fully_blocked_rows(grid, 1, 2, 2).tolist() == [[True, False]]
    assert masks.fully_blocked_rows(masks.causal_mask(3), 2, 3, 3).tolist() == [[False] * 3] * 2


@FAST
@given(rows=st.integers(1, 6), cols=st.integers(1, 6), data=st.data())
def test_mask_text_round_trip(rows, cols, data):
    cells = data.draw(st.lists(st.lists(st.booleans(), min_size=cols, max_size=cols), min_size=rows, max_size=rows))
    grid = torch.tensor(cells, dtype=torch.bool)
    text = masks.mask_to_text(grid)
    assert set(text) <= set("01.")
    assert torch.equal(masks.mask_from_text(text, rows, cols), grid)


def test_mask_text_example():
    assert masks.mask_to_text([[1, 0], [1, 1]]) == "10.11"
    assert masks.mask_from_text("10.11", 2, 2).tolist() == [[True, False], [True, True]]


@pytest.mark.parametrize(
    "text,T_q,T_k,pattern",
    [
        ("", 2, 2, "must be 2 rows of 2 characters"),
        (None, 2, 2, "must be 2 rows of 2 characters"),
        ("10", 2, 2, "must be 2 rows of 2 characters"),  # too few rows
        ("10.11.01", 2, 2, "must be 2 rows of 2 characters"),  # too many rows
        ("10.1", 2, 2, "must be 2 rows of 2 characters"),  # a short row
        ("100.11", 2, 2, "must be 2 rows of 2 characters"),  # a long row
        ("10.11.", 2, 2, "must be 2 rows of 2 characters"),  # trailing separator
        ("1x.11", 2, 2, "only contain 0, 1 and '.'"),
        ("12.11", 2, 2, "only contain 0, 1 and '.'"),
        ("1 .11", 2, 2, "only contain 0, 1 and '.'"),
        ("10,11", 1, 5, "only contain 0, 1 and '.'"),
        ("１0.11", 2, 2, "only contain 0, 1 and '.'"),  # a full-width digit
    ],
)
def test_mask_text_parse_errors(text, T_q, T_k, pattern):
    with pytest.raises(ValueError, match=pattern):
        masks.mask_from_text(text, T_q, T_k)


def test_fill_values():
    assert masks.FILL_SEED == -1e9
    assert masks.FILL_NEG_INF == float("-inf")
    assert masks.FILL_VALUES == {"-1e9": -1e9, "-inf": float("-inf")}
    assert masks.MASK_KINDS == ("none", "causal", "padding", "custom")
