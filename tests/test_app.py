"""The app shell under AppTest: every page, both languages, extreme and bad settings."""

import pytest
from conftest import run_app

import i18n
from lessons.settings import D_MODEL_CHOICES, SEQ_LEN_MAX, SEQ_LEN_MIN, head_choices
from ui import navigation

PAGES = [url or None for _, url, _ in navigation.PAGES]  # None: home, opened as the app is

SMALLEST = dict(d_model=D_MODEL_CHOICES[0], num_heads=1, seq_len=SEQ_LEN_MIN)
LARGEST = dict(d_model=D_MODEL_CHOICES[-1], num_heads=head_choices(D_MODEL_CHOICES[-1])[-1], seq_len=SEQ_LEN_MAX)

BAD_URLS = [
    dict(d_model=512, num_heads=7),
    dict(d_model=-1),
    dict(seq_len="abc"),
    dict(lang="xx"),
    dict(d_model="9" * 400, num_heads="9" * 400, seq_len=10**12, seed=-5),
    dict(mask="everything", seed="1.5e3"),
    dict(num_heads="", d_model="nan", seq_len="inf"),
]


def sidebar_values(at):
    return {
        w.key: w.value
        for w in [*at.sidebar.select_slider, *at.sidebar.slider, *at.sidebar.selectbox, *at.sidebar.number_input]
        if w.key
    }


@pytest.mark.app
@pytest.mark.parametrize("page", PAGES)
@pytest.mark.parametrize("lang", [pytest.param("zh", marks=pytest.mark.smoke), "en"])  # smoke: the fast tier's
def test_every_page_runs_with_default_settings(page, lang):
    at = run_app(page, lang=lang)
    assert not at.exception, at.exception
    assert at.session_state["lang"] == lang
    # The expensive element kinds stay off every page at its defaults too (test_speed_guards checks each view at
    # the largest settings): no st.table, st.tabs, data grid, plotly or Vega chart.
    kinds = {name: len(at.get(name)) for name in ("table", "plotly_chart", "vega_lite_chart", "dataframe")}
    assert not any(kinds.values()) and not at.tabs, kinds


@pytest.mark.app
@pytest.mark.parametrize("page", PAGES)
@pytest.mark.parametrize("settings", [SMALLEST, LARGEST], ids=["smallest", "largest"])
def test_every_page_runs_at_the_extremes(page, settings):
    at = run_app(page, lang="en", **settings)
    assert not at.exception, at.exception
    assert sidebar_values(at)["num_heads"] == settings["num_heads"]


@pytest.mark.app
@pytest.mark.parametrize("page", PAGES)
@pytest.mark.parametrize("mask", ["causal", "padding", "custom"])
def test_every_page_runs_with_every_mask(page, mask):
    at = run_app(page, mask=mask, seq_len=5)
    assert not at.exception, at.exception


@pytest.mark.app
@pytest.mark.parametrize("params", BAD_URLS, ids=lambda p: "&".join(f"{k}={str(v)[:8]}" for k, v in p.items()))
@pytest.mark.parametrize("page", [None, "walkthrough"])
def test_bad_url_values_are_corrected_with_a_notice(page, params):
    at = run_app(page, **params)
    assert not at.exception, at.exception
    values = sidebar_values(at)
    assert values["d_model"] in D_MODEL_CHOICES
    assert values["num_heads"] in head_choices(values["d_model"])
    assert SEQ_LEN_MIN <= values["seq_len"] <= SEQ_LEN_MAX
    assert at.session_state["lang"] in i18n.LANGS
    notices = " ".join(w.value for w in at.main.warning)
    assert notices, "a corrected URL must say what it changed"


@pytest.mark.app
def test_num_heads_not_dividing_d_model_uses_the_nearest_divisor():
    at = run_app(d_model=512, num_heads=7)
    assert sidebar_values(at)["num_heads"] == 8
    assert "7" in at.main.warning[0].value and "8" in at.main.warning[0].value


@pytest.mark.app
def test_only_divisors_of_d_model_are_offered():
    at = run_app(d_model=32)
    options = at.sidebar.select_slider(key="num_heads").options
    assert [int(o) for o in options] == [1, 2, 4, 8, 16, 32]


@pytest.mark.app
def test_changing_d_model_moves_num_heads_onto_a_divisor():
    at = run_app(d_model=64, num_heads=64)
    at.sidebar.select_slider(key="d_model").set_value(8).run()
    assert not at.exception
    assert at.session_state["num_heads"] == 8
    assert any("64" in w.value for w in at.main.warning)


@pytest.mark.app
def test_language_switch_changes_the_text():
    at = run_app(lang="en")
    assert at.title[0].value == "Attention Lab"
    at.sidebar.segmented_control(key="lang").set_value("zh").run()
    assert not at.exception
    assert at.title[0].value == i18n.t("app.title", "zh")
    assert at.sidebar.header[0].value == i18n.t("settings.header", "zh")


@pytest.mark.app
def test_home_proves_equality_with_torch_live():
    at = run_app(d_model=64, num_heads=8, mask="causal")
    text = " ".join(s.value for s in at.success)
    number = text.rsplit(" ", 1)[-1].rstrip(".")
    assert "-" not in number  # its minus is a non-breaking hyphen: a phone never breaks "8.94e-08" (issue 20)
    diff = float(number.replace("\u2011", "-"))
    assert diff < 1e-5


@pytest.mark.app
def test_home_check_is_computed_once_per_setting_and_shapes_are_listed(monkeypatch):
    import core.reference
    from core.accounting import tensor_shapes

    calls = []
    real = core.reference.torch_reference
    monkeypatch.setattr(core.reference, "torch_reference", lambda *a, **k: calls.append(1) or real(*a, **k))
    at = run_app(d_model=32, num_heads=2, seq_len=5, seed=4321, lang="en")  # a setting no other test uses
    assert not at.exception and len(calls) == 1
    at.sidebar.segmented_control(key="lang").set_value("zh").run()  # the numbers do not depend on the language
    assert not at.exception and len(calls) == 1
    at.sidebar.select_slider(key="num_heads").set_value(4).run()  # a new setting: checked again
    assert not at.exception and len(calls) == 2
    table = at.expander[0].markdown[0].value
    for name, shape in tensor_shapes(1, 5, 5, 32, 4).items():
        assert f"| `{name}` | {shape.text()} |" in table


def test_every_string_has_both_languages():
    for key, texts in i18n.STRINGS.items():
        assert set(texts) == set(i18n.LANGS), key
        assert all(isinstance(v, str) and v.strip() for v in texts.values()), key


def test_locale_picks_the_default_language():
    assert i18n.lang_from_locale("zh-CN") == "zh"
    assert i18n.lang_from_locale("zh_TW") == "zh"
    assert i18n.lang_from_locale("en-US") == "en"
    assert i18n.lang_from_locale(None) == "en"
    assert i18n.lang_from_locale("fr") == "en"


def test_the_settings_and_the_string_table_speak_the_same_languages():
    import i18n
    from lessons import settings

    assert settings.LANGS == i18n.LANGS
