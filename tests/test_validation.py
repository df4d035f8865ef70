"""core.validation (ValueError with helpful messages) and lessons.settings.sanitize (never refuses)."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from core.masks import MASK_KINDS
from core.validation import MAX_D_MODEL, check_mask, check_model_dims, divisors
from i18n import LANGS
from lessons import settings as app_settings
from lessons.settings import DEFAULTS, Correction, Settings, head_choices, sanitize

FAST = settings(max_examples=50, deadline=None, database=None)


# --------------------------------------------------------------------------------------------
# core.validation
# --------------------------------------------------------------------------------------------


def test_divisors():
    assert divisors(1) == [1]
    assert divisors(12) == [1, 2, 3, 4, 6, 12]
    assert divisors(7) == [1, 7]
    assert divisors(512) == [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]


@pytest.mark.parametrize("d_model,h", [(1, 1), (8, 8), (12, 3), (512, 8), (MAX_D_MODEL, 1)])
def test_valid_dims_pass(d_model, h):
    check_model_dims(d_model, h)


def test_indivisible_message_says_what_would_be_valid():
    with pytest.raises(ValueError) as info:
        check_model_dims(512, 7)
    message = str(info.value)
    assert "d_model (512) must be divisible by num_heads (7)" in message
    assert "valid num_heads for d_model=512: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]" in message


@pytest.mark.parametrize("d_model", [0, -1, MAX_D_MODEL + 1, 1e3, 64.0, "64", None, False, [64]])
def test_bad_d_model_message(d_model):
    with pytest.raises(ValueError, match=f"d_model must be an integer from 1 to {MAX_D_MODEL}, got"):
        check_model_dims(d_model, 1)


@pytest.mark.parametrize("h", [0, -8, 1.0, "8", None, True])
def test_bad_num_heads_message(h):
    with pytest.raises(ValueError, match="num_heads must be a positive integer, got"):
        check_model_dims(8, h)


@pytest.mark.parametrize(
    "shape,out",
    [((3, 5), (1, 1, 3, 5)), ((2, 4, 3, 5), (2, 4, 3, 5)), ((1, 1, 1, 5), (1, 1, 1, 5)), ((2, 1, 3, 1), (2, 1, 3, 1))],
)
def test_check_mask_accepts_broadcastable(shape, out):
    assert check_mask(torch.ones(shape, dtype=torch.bool), 2, 4, 3, 5).shape == out


@pytest.mark.parametrize(
    "shape,pattern",
    [
        ((2, 3, 5), r"got 3-D shape \(2, 3, 5\)"),
        ((5,), "got 1-D"),
        ((3, 4), "axis T_k is 4, must be 1 or 5"),
        ((4, 5), "axis T_q is 4, must be 1 or 3"),
        ((3, 1, 3, 5), "axis B is 3, must be 1 or 2"),
        ((1, 2, 3, 5), "axis h is 2, must be 1 or 4"),
        ((1, 1, 1, 1, 5), "got 5-D"),
    ],
)
def test_check_mask_refuses_with_the_reason(shape, pattern):
    with pytest.raises(ValueError, match=pattern) as info:
        check_mask(torch.ones(shape), 2, 4, 3, 5)
    assert "(B, h, T_q, T_k) = (2, 4, 3, 5)" in str(info.value)


def test_check_mask_refuses_non_tensors():
    with pytest.raises(ValueError, match="mask must be a torch.Tensor, got list"):
        check_mask([[1]], 1, 1, 1, 1)


# --------------------------------------------------------------------------------------------
# lessons.settings.sanitize
# --------------------------------------------------------------------------------------------


def fixed(raw, **kw):
    s, corrections = sanitize(raw, **kw)
    return s, {c.key: c for c in corrections}


def test_defaults_silently():
    s, corrections = sanitize({})
    assert s == Settings(64, 4, 8, "none", 0, "en")
    assert corrections == []
    assert sanitize({}, default_lang="zh")[0].lang == "zh"


def test_valid_values_pass_without_corrections():
    raw = {"d_model": "128", "num_heads": "16", "seq_len": "32", "mask": "causal", "seed": "99999", "lang": "zh"}
    s, corrections = sanitize(raw)
    assert s == Settings(128, 16, 32, "causal", 99999, "zh")
    assert corrections == []
    assert sanitize({"d_model": 8, "num_heads": 8, "seq_len": 2, "seed": 0})[1] == []
    assert sanitize({"seq_len": " 8 "})[1] == []  # surrounding spaces are not a correction


def test_indivisible_heads_go_to_the_nearest_divisor():
    s, c = fixed({"d_model": "512", "num_heads": "7"})
    assert (s.d_model, s.num_heads, s.d_k) == (512, 8, 64)
    assert c["num_heads"] == Correction("num_heads", "7", "8", "out_of_range")
    s, c = fixed({"d_model": "12", "num_heads": "5"})  # 12 is not offered: 8 and 16 tie, the smaller wins
    assert (s.d_model, s.num_heads) == (8, 4) and set(c) == {"d_model", "num_heads"}
    assert fixed({"d_model": "16", "num_heads": "3"})[0].num_heads == 2  # tie 2 / 4: the smaller
    assert fixed({"d_model": "8", "num_heads": "64"})[0].num_heads == 8


def test_heads_default_follows_d_model():
    assert sanitize({"d_model": "8"})[0].num_heads == 4
    for d_model in app_settings.D_MODEL_CHOICES:
        s, corrections = sanitize({"d_model": str(d_model)})
        assert s.num_heads in head_choices(d_model) and corrections == []


@pytest.mark.parametrize(
    "raw,key,used",
    [
        ({"d_model": "-1"}, "d_model", 8),
        ({"d_model": -1}, "d_model", 8),
        ({"d_model": "100"}, "d_model", 128),
        ({"d_model": "1" * 40}, "d_model", 512),
        ({"d_model": "-" + "9" * 40}, "d_model", 8),
        ({"d_model": "abc"}, "d_model", 64),
        ({"num_heads": "0"}, "num_heads", 1),
        ({"num_heads": "-3"}, "num_heads", 1),
        ({"num_heads": "1000"}, "num_heads", 64),
        ({"seq_len": "abc"}, "seq_len", 8),
        ({"seq_len": "1"}, "seq_len", 2),
        ({"seq_len": "33"}, "seq_len", 32),
        ({"seq_len": "9" * 400}, "seq_len", 32),
        ({"seq_len": 10**100}, "seq_len", 32),
        ({"seq_len": "3.7"}, "seq_len", 4),
        ({"seq_len": 3.7}, "seq_len", 4),
        ({"seq_len": "5.0"}, "seq_len", 5),
        ({"seq_len": "1e30"}, "seq_len", 32),  # huge, written as a float: the largest valid value
        ({"seq_len": "-1e30"}, "seq_len", 2),
        ({"seq_len": "inf"}, "seq_len", 32),
        ({"seq_len": "nan"}, "seq_len", 8),
        ({"seq_len": True}, "seq_len", 8),
        ({"seq_len": [3]}, "seq_len", 8),
        ({"seq_len": "0x10"}, "seq_len", 8),
        ({"seed": "-5"}, "seed", 0),
        ({"seed": "123456789"}, "seed", 99999),
        ({"seed": "4.5e3"}, "seed", 4500),
        ({"mask": "bogus"}, "mask", "none"),
        ({"mask": "CAUSAL"}, "mask", "causal"),  # the one parser forgives case, and says so
        ({"lang": "xx"}, "lang", "en"),
        ({"lang": "ZH"}, "lang", "zh"),
    ],
)
def test_bad_values_are_corrected_and_reported(raw, key, used):
    s, c = fixed(raw)
    assert getattr(s, key) == used
    assert list(c) == [key]  # only the bad key is reported
    assert c[key].used == str(used)
    assert c[key].given == str(raw[key]) or c[key].given.endswith("...")


def test_bad_lang_falls_back_to_the_given_default():
    s, c = fixed({"lang": "xx"}, default_lang="zh")
    assert s.lang == "zh" and c["lang"] == Correction("lang", "xx", "zh", "unreadable")


def test_float_that_is_a_valid_int_is_still_reported():
    s, c = fixed({"num_heads": "4.0"})
    assert s.num_heads == 4
    assert c["num_heads"] == Correction("num_heads", "4.0", "4", "out_of_range")


@pytest.mark.parametrize("empty", ["", None])
def test_empty_values_take_defaults_silently(empty):
    s, corrections = sanitize({k: empty for k in app_settings.SETTING_KEYS})
    assert s == Settings(64, 4, 8, "none", 0, "en")
    assert corrections == []


def test_long_garbage_is_shortened_in_the_report():
    s, c = fixed({"seq_len": "x" * 10_000})
    assert s.seq_len == DEFAULTS["seq_len"]
    assert c["seq_len"].given == "x" * 21 + "..."


def test_many_corrections_at_once():
    raw = {"d_model": "-1", "num_heads": "7", "seq_len": "abc", "mask": "?", "seed": "-2", "lang": "xx"}
    s, corrections = sanitize(raw)
    assert s == Settings(8, 8, 8, "none", 0, "en")
    assert [c.key for c in corrections] == ["d_model", "num_heads", "seq_len", "mask", "seed", "lang"]


text = st.one_of(
    st.text(max_size=40),
    st.integers(-(10**30), 10**30).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(str),
    st.integers(-(10**30), 10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    st.none(),
    st.booleans(),
)


@FAST
@given(raw=st.fixed_dictionaries({}, optional={k: text for k in app_settings.SETTING_KEYS}))
def test_anything_becomes_valid_settings(raw):
    s, corrections = sanitize(raw)
    assert s.d_model in app_settings.D_MODEL_CHOICES
    assert s.num_heads in head_choices(s.d_model) and s.d_model % s.num_heads == 0
    assert app_settings.SEQ_LEN_MIN <= s.seq_len <= app_settings.SEQ_LEN_MAX
    assert app_settings.SEED_MIN <= s.seed <= app_settings.SEED_MAX
    assert s.mask in MASK_KINDS and s.lang in LANGS
    for key in ("d_model", "num_heads", "seq_len", "seed"):
        assert type(getattr(s, key)) is int
    check_model_dims(s.d_model, s.num_heads)  # what sanitize returns, the model accepts
    for c in corrections:
        assert c.key in raw and len(c.given) <= 24
    # Sanitising the result changes nothing and reports nothing.
    again, more = sanitize({k: str(getattr(s, k)) for k in app_settings.SETTING_KEYS})
    assert again == s and more == []


def test_the_settings_are_declared_like_every_page_key_and_parsed_by_the_same_parser():
    """Issue 32 item 5: one declaration type (lessons.url.UrlKey), one parser (lessons.url.parse)."""
    from lessons.url import UrlKey, parse

    assert all(isinstance(k, UrlKey) for k in app_settings.SETTING_URL_KEYS)
    assert app_settings.SETTING_KEYS == tuple(k.name for k in app_settings.SETTING_URL_KEYS)
    raw = {"d_model": "512", "num_heads": "7", "seq_len": "99", "mask": "x", "seed": "1e9", "lang": "ZH"}
    values, fixes = parse(app_settings.SETTING_URL_KEYS, raw, {"default_lang": "en"})
    s, corrections = sanitize(raw)
    assert [getattr(s, k) for k in app_settings.SETTING_KEYS] == list(values.values()) and corrections == fixes
