"""lessons/url.py: one declaration type and one parser for every page's URL keys."""

from __future__ import annotations

import pytest

from lessons.settings import Settings
from lessons.url import Fix, UrlKey, as_url, parse, parse_value, setting

S = Settings(64, 4, 8, "none", 0, "en")
HEAD = UrlKey("x_head", "int", 0, lo=0, hi=setting("num_heads", -1))
ROW = UrlKey("x_row", "int", setting("seq_len", -1), lo=0, hi=setting("seq_len", -1))
TAB = UrlKey("x_tab", "choice", "a", choices=("a", "bb"))
SPAN = UrlKey("x_span", "choice", 64, choices=(16, 64, 256))
FLAG = UrlKey("x_flag", "bool", False)
BASE = UrlKey("x_base", "float", 10000.0, lo=1.0001, hi=1e6)
EVEN = UrlKey("x_even", "even_int", 8, lo=2, hi=64)
ENV = {"settings": S}


@pytest.mark.parametrize(
    "key,raw,value,reason",
    [
        (HEAD, None, 0, None),
        (HEAD, "", 0, None),
        (HEAD, "3", 3, None),
        (HEAD, "7", 3, "out_of_range"),
        (HEAD, "-1", 0, "out_of_range"),
        (HEAD, "abc", 0, "unreadable"),
        (HEAD, "1e400", 3, "out_of_range"),
        (HEAD, "9" * 200, 3, "out_of_range"),
        (HEAD, "nan", 0, "unreadable"),
        (HEAD, "2.0", 2, "out_of_range"),
        (ROW, None, 7, None),
        (ROW, "x", 7, "unreadable"),
        (ROW, "99", 7, "out_of_range"),
        (TAB, "bb", "bb", None),
        (TAB, " BB ", "bb", "spelling"),
        (TAB, "zz", "a", "unreadable"),
        (TAB, "<script>", "a", "unreadable"),
        (SPAN, "256", 256, None),
        (SPAN, "100", 64, "out_of_range"),
        (SPAN, "1e9", 256, "out_of_range"),
        (SPAN, "big", 64, "unreadable"),
        (FLAG, "true", True, None),
        (FLAG, "false", False, None),
        (FLAG, True, True, None),
        (FLAG, "1", True, "spelling"),
        (FLAG, "maybe", False, "unreadable"),
        (BASE, "500", 500.0, None),
        (BASE, "1", 1.0001, "out_of_range"),
        (BASE, "inf", 1e6, "out_of_range"),
        (BASE, "nan", 10000.0, "unreadable"),
        (EVEN, "8", 8, None),
        (EVEN, "7", 8, "odd"),
        (EVEN, "65", 64, "out_of_range"),
        (EVEN, "3", 4, "odd"),
    ],
)
def test_every_kind_takes_any_raw_value_and_says_what_it_changed(key, raw, value, reason):
    used, fix = parse_value(key, raw, ENV)
    assert used == value and type(used) is type(value)
    if reason is None:
        assert fix is None
    else:
        assert isinstance(fix, Fix) and fix.key == key.name and fix.reason == reason and fix.used == as_url(value)
        assert len(fix.given) <= 24  # a notice quotes at most 24 characters of what came in


def test_keys_are_parsed_in_order_and_a_later_bound_may_depend_on_an_earlier_value():
    block = UrlKey("x_block", "int", 4, lo=1, hi=32)
    step = UrlKey("x_step", "int", 1, lo=1, hi=lambda env: 32 // env["x_block"])
    values, fixes = parse([block, step], {"x_block": "8", "x_step": "9"}, ENV)
    assert values == {"x_block": 8, "x_step": 4}
    assert [(f.key, f.used) for f in fixes] == [("x_step", "4")]
    values, fixes = parse([block, step], {}, ENV)
    assert values == {"x_block": 4, "x_step": 1} and fixes == []


def test_an_unknown_kind_is_refused_where_it_is_declared():
    with pytest.raises(ValueError):
        UrlKey("x", "list", ())


def test_the_pages_that_declare_their_keys_use_this_type():
    from lessons import softmax

    assert all(isinstance(k, UrlKey) for k in softmax.URL_KEYS)
    assert softmax.URL_KEY_NAMES == tuple(k.name for k in softmax.URL_KEYS)


def test_key_range_is_the_keys_own_range_for_the_settings():
    """What a page's widget offers comes from its URL key (lessons.url.key_range): fixed bounds and bounds that
    follow the shared settings."""
    from core.limits import ROPE_GRID_MAX, SHUFFLE_SEED_MAX, SHUFFLE_SEED_MIN
    from lessons import positions as P
    from lessons.settings import Settings
    from lessons.url import key_range

    env = {"settings": Settings(64, 8, 8, "none", 0, "en")}
    assert key_range(P.URL_KEYS, "pos_grid", env) == (2, ROPE_GRID_MAX)
    assert key_range(P.URL_KEYS, "pos_shuffle", env) == (SHUFFLE_SEED_MIN, SHUFFLE_SEED_MAX)
    assert key_range(P.URL_KEYS, "pos_head", {**env, "pos_model": "random"}) == (0, 7)  # depends on the model


# ---------------------------------------------------------------- one declarative page state (issue 32 item 5)
def test_settings_display_options_and_page_keys_are_declared_the_same_way():
    from lessons import url_keys
    from lessons.settings import SETTING_KEYS, SETTING_URL_KEYS
    from ui.display import DISPLAY_URL_KEYS, KEYS

    for keys in (SETTING_URL_KEYS, DISPLAY_URL_KEYS, *url_keys.DECLARED.values()):
        assert all(isinstance(k, UrlKey) for k in keys)
    assert tuple(k.name for k in SETTING_URL_KEYS) == SETTING_KEYS == url_keys.SETTINGS
    assert tuple(k.name for k in DISPLAY_URL_KEYS) == KEYS == url_keys.DISPLAY


@pytest.fixture
def parse_calls(monkeypatch):
    """Every key lessons.url.parse_value parses, by name (the one parser every value goes through)."""
    import lessons.url

    calls: list[str] = []
    original = lessons.url.parse_value

    def spy(key, raw, env=None):
        calls.append(key.name)
        return original(key, raw, env)

    monkeypatch.setattr(lessons.url, "parse_value", spy)
    return calls


@pytest.mark.app
@pytest.mark.parametrize("page", [None, "heads", "walkthrough", "masks"])
def test_each_value_is_parsed_once_on_a_step(page, parse_calls):
    from conftest import run_app

    at = run_app(page, lang="en", d_model=128, num_heads=8)
    parse_calls.clear()
    at.sidebar.slider(key="seq_len").set_value(5).run()
    assert not at.exception
    for name in ("d_model", "num_heads", "seq_len", "mask", "seed", "lang", "palette", "cell_numbers"):
        assert parse_calls.count(name) == 1, (name, parse_calls.count(name))


@pytest.mark.app
def test_a_page_state_goes_from_one_session_to_another_as_neutral_values():
    """The API class mode uses: page_state() of the teacher's session, request_page_state() in a student's."""
    import json

    from conftest import run_app

    from ui import url_state

    teacher = run_app("heads", lang="en", d_model=128, num_heads=8, seq_len=6, heads_tab="cost", palette="contrast")
    state = url_state.page_state("heads", teacher.session_state, teacher.query_params)
    assert json.loads(json.dumps(state)) == state  # neutral values only
    assert state["lang"] == "en" and state["d_model"] == 128 and state["heads_tab"] == "cost"
    student = run_app("heads", lang="zh")
    student.session_state[url_state.REQUEST] = state
    student.run()
    assert not student.exception
    assert url_state.page_state("heads", student.session_state, student.query_params) == state
    assert [t.value for t in student.title] == [t.value for t in teacher.title]


@pytest.mark.app
@pytest.mark.parametrize(
    "bad",
    [
        {"num_heads": 7, "d_model": 512},  # not a divisor: the settle loop moves it, as for a link
        {"seq_len": float("nan"), "seed": 10**40, "mask": ["causal"] * 50},
        {"palette": {"x": 1}, "heads_tab": "x" * 100_000, "zz": 1, 7: 7},
        {"d_model": True, "lang": None, "heads_page": -5},
    ],
)
def test_a_hostile_page_state_is_bounded_and_validated(bad):
    from conftest import run_app

    from lessons.settings import Settings
    from ui import url_state

    at = run_app("heads", lang="en")
    at.session_state[url_state.REQUEST] = bad
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    Settings(**{k: at.session_state[k] for k in ("d_model", "num_heads", "seq_len", "mask", "seed", "lang")})
    at.sidebar.slider(key="seq_len").set_value(5).run()  # the session goes on
    assert not at.exception and at.session_state["seq_len"] == 5
