"""Issue 20: the labels a person reads are in the reader's language, the URL values stay language-neutral, and
formulas use one notation (LaTeX, Latin symbols, the code's names) in both languages.

Why ui/choice.py exists: Streamlit 1.67 binds the *displayed* text of a selection widget to the URL, so a
format_func would put the translated label into the link (test_streamlit_binds_the_shown_text pins that).
"""

from __future__ import annotations

import re

import pytest
from conftest import run_app

import i18n
from i18n.strings.common import STRINGS as COMMON
from i18n.strings.heads import STRINGS as HEADS
from i18n.strings.quiz import STRINGS as QUIZ
from i18n.strings.walkthrough import STRINGS as WALK
from i18n.strings.why_heads import STRINGS as WHY
from lessons import walkthrough as W

CJK = re.compile(r"[\u3400-\u9fff\uff00-\uffef]")


@pytest.mark.app
def test_streamlit_binds_the_shown_text_of_a_selection_widget():
    """The reason for ui/choice.py: with a format_func, a bound widget reads (and writes) the label in the URL."""
    from streamlit.testing.v1 import AppTest

    def app():
        import streamlit as st

        st.selectbox("mask", ["none", "causal"], key="m", bind="query-params", format_func=lambda o: o.upper())

    def opened(value):
        at = AppTest.from_function(app)
        at.query_params["m"] = value
        at.run()
        return at.selectbox(key="m").value

    assert opened("CAUSAL") == "causal"  # the label in the link selects the option
    assert opened("causal") == "none"  # the option's own value is ignored


def shown(at, key):
    """The shown (translated) widget of a labelled choice, wherever it is drawn."""
    for kind in ("selectbox", "button_group"):
        for w in getattr(at, kind):
            if w.key == key + "_shown":
                return w
    raise AssertionError(f"no shown widget for {key}")


def carrier_options(at, key):
    for kind in ("selectbox", "button_group"):
        for w in getattr(at, kind):
            if w.key == key:
                return list(w.options)
    raise AssertionError(key)


@pytest.mark.app
@pytest.mark.parametrize(
    "lang,labels",
    [
        ("zh", ["无掩码", "因果掩码（解码器）", "填充掩码", "自定义掩码"]),
        ("en", ["no mask", "causal (decoder)", "padding", "custom"]),
    ],
)
def test_sidebar_mask_menu_is_translated_and_the_url_stays_neutral(lang, labels):
    at = run_app(None, lang=lang, mask="causal")
    assert not at.exception
    menu = shown(at, "mask")
    assert list(menu.options) == labels and menu.value == labels[1]
    assert carrier_options(at, "mask") == ["none", "causal", "padding", "custom"]
    menu.set_value(labels[2]).run()
    assert not at.exception
    assert at.session_state["mask"] == "padding" and at.query_params["mask"] == "padding"
    about = i18n.t("mask.padding.about", lang)
    assert about in [c.value for c in at.sidebar.caption] and "padding：" not in about


@pytest.mark.app
@pytest.mark.parametrize(
    "lang,labels", [("zh", ["色盲友好", "高对比度"]), ("en", ["colour-blind safe", "high contrast"])]
)
def test_palette_is_translated_and_a_neutral_link_opens_it(lang, labels):
    at = run_app(None, lang=lang, palette="contrast")  # a teacher's link, neutral in either language
    assert not at.exception
    palette = shown(at, "palette")
    assert list(palette.options) == labels and palette.value == labels[1]
    assert carrier_options(at, "palette") == ["colorblind", "contrast"]
    fresh = run_app(None, lang=lang)
    assert shown(fresh, "palette").value == labels[0]
    shown(fresh, "palette").set_value(labels[1]).run()
    assert not fresh.exception and fresh.session_state["palette"] == "contrast"


@pytest.mark.app
@pytest.mark.parametrize(
    "lang,views,steps",
    [
        ("zh", ["单步", "全部步骤", "演示模式"], ["1 · 输入", "5 · 缩放", "8 · 加权求和"]),
        ("en", ["One step", "All steps", "Presenter"], ["1 · input", "5 · scale", "8 · weighted sum"]),
    ],
)
def test_walkthrough_view_and_step_labels_are_translated_and_links_stay_neutral(lang, views, steps):
    at = run_app("walkthrough", lang=lang, walk_step="scale")
    assert not at.exception
    view, pills = shown(at, "walk_view"), shown(at, "walk_step")
    assert list(view.options) == views and view.value == views[0]
    assert [list(pills.options)[i] for i in (0, 4, 7)] == steps and pills.value == steps[1]
    legend = i18n.t("walk.view.legend", lang)  # just above the selector: the first text's last line, caption style
    assert at.markdown[0].value.endswith(f":small[:gray[{legend}]]"), at.markdown[0].value
    pills.set_value(steps[2]).run()
    assert at.query_params["walk_step"] == "mix" and at.session_state["walk_step"] == "mix"
    shown(at, "walk_view").set_value(views[2]).run()
    assert not at.exception and at.query_params["walk_view"] == "present"
    assert f"## 8. {i18n.t('walk.mix.title', lang)}\n\n$$" in "\n".join(m.value for m in at.markdown)
    # prev / next move the neutral step, and the pills follow in the reader's language
    at.button(key="walk_next").click().run()
    assert at.query_params["walk_step"] == "concat" and shown(at, "walk_step").value.startswith("9 · ")
    assert not CJK.search("".join(f"{k}={v}" for k, v in dict(at.query_params).items() if k != "lang"))


@pytest.mark.app
def test_the_walkthrough_title_comes_before_the_view_selector():
    """The title heads the page's one unchanging markdown element (with the intro and the selector's legend)."""
    at = run_app("walkthrough", lang="zh")
    heading = f"# {i18n.t('page.walkthrough', 'zh')}\n\n"
    assert [m.value for m in at.main.markdown if m.value.startswith(heading)], "no title"

    def in_order(node):
        children = getattr(node, "children", None)
        if children:
            for child in children.values():
                yield from in_order(child)
        else:
            yield node

    order = [(type(e).__name__, getattr(e, "key", None)) for e in in_order(at.main)]
    title = next(i for i, e in enumerate(in_order(at.main)) if str(getattr(e, "value", "")).startswith(heading))
    selector = next(i for i, (_, key) in enumerate(order) if key and key.startswith("walk_view"))
    assert title < selector, order[: selector + 1]


@pytest.mark.app
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_presenter_view_has_no_pointer_to_the_cell_story(lang):
    at = run_app("walkthrough", lang=lang, walk_view="present", walk_step="softmax")
    assert not at.exception
    text = "\n".join(m.value for m in at.markdown)
    assert i18n.t("walk.softmax.follow", lang) not in text
    assert i18n.t("walk.softmax.text", lang, dev=0.0)[:12] in text
    assert i18n.t("walk.drill.title", lang) not in [e.label for e in at.expander]
    step_view = run_app("walkthrough", lang=lang, walk_step="softmax")
    assert i18n.t("walk.softmax.follow", lang) in "\n".join(m.value for m in step_view.markdown)


@pytest.mark.app
@pytest.mark.parametrize(
    "lang,labels,in_use",
    [
        ("zh", ["1 = 保留", "1 = 屏蔽"], "正在使用的掩码：因果掩码（解码器） ∧ 填充掩码"),
        ("en", ["1 = keep", "1 = block"], "Mask in use: causal (decoder) ∧ padding"),
    ],
)
def test_masks_lab_polarity_and_combine_are_translated_and_the_url_stays_neutral(lang, labels, in_use):
    at = run_app("masks", lang=lang, mask="causal", seq_len=4)
    assert not at.exception
    polarity = shown(at, "masks_polarity")
    assert list(polarity.options) == labels and polarity.value == labels[0]
    polarity.set_value(labels[1]).run()
    assert at.query_params["masks_polarity"] == "block"
    shown(at, "masks_extra").set_value([i18n.t("mask.padding", lang)]).run()
    assert not at.exception and list(at.session_state["masks_extra"]) == ["padding"]
    assert at.query_params.get("masks_extra") in ("padding", ["padding"])
    # the mask in use is a paragraph of its own in the box's caption (after what the polarity means)
    assert in_use in [para for c in at.caption for para in c.value.split("\n\n")]


# ------------------------------------------------------------------ one notation
# The seed's Chinese formulas name the functions in Chinese (头_i、注意力、拼接、多头: 《多头注意力机制》); the symbols
# (q_i, W^Q, d_k, ...) and the code's tensor names (concat, output) are the same in both languages (issue 29.6).
SEED_NAMES = {
    r"\text{head}": r"\text{头}",
    r"\text{Attention}": r"\text{注意力}",
    r"\text{Concat}": r"\text{拼接}",
    r"\text{MultiHead}": r"\text{多头}",
}


def seed_names(formula: str) -> str:
    for en, zh in SEED_NAMES.items():
        formula = formula.replace(en, zh)
    return formula


def test_walkthrough_formulas_are_one_notation_with_the_seeds_names_in_chinese():
    for name in W.STEP_NAMES:
        entry = WALK[f"walk.{name}.latex"]
        assert entry["zh"] == seed_names(entry["en"]), name
        assert not CJK.search(entry["en"]), name
        assert not CJK.search(re.sub(r"\\text\{(头|注意力|拼接|多头)\}", "", entry["zh"])), name
    split = WALK["walk.split.latex"]["en"]
    assert r"q_i = (XW^Q + b^Q)[:,\; i d_k : (i+1) d_k] \\ = XW^Q_i + b^Q_i" in split
    assert "QW^Q_i" not in split  # the old formula used Q for the input and the projection at once
    assert r"\text{query} = \text{key} = \text{value} = X" in WALK["walk.input.latex"]["en"]
    assert r"q = XW^Q + b^Q" in WALK["walk.project.latex"]["en"]
    assert r"\text{Attention}(q_i, k_i, v_i)" in WALK["walk.mix.latex"]["en"]
    assert r"\text{头}_i = \text{注意力}(q_i, k_i, v_i)" in WALK["walk.mix.latex"]["zh"]
    assert r"\text{多头}(X, X, X) = \text{拼接}(\text{头}_0" in WALK["walk.output.latex"]["zh"]


@pytest.mark.app
def test_home_formulas_use_the_same_notation_with_the_seeds_names_in_chinese():
    formulas = {k: COMMON[k] for k in ("home.split.latex", "home.head.latex", "home.multihead.latex")}
    assert len(formulas) == 3
    for key, entry in formulas.items():
        assert not CJK.search(entry["en"]) and entry["zh"] == seed_names(entry["en"]), key
    # words stay outside the formulas (only the names of functions are in \text{...})
    words = {w for f in formulas.values() for w in re.findall(r"\\text\{([^}]*)\}", f["en"])}
    assert words <= {"head", "Attention", "MultiHead", "Concat"}, words
    assert r"(XW^Q + b^Q)[:,\; i d_k : (i+1) d_k]" in formulas["home.split.latex"]["en"]
    assert r"\text{head}_i = \text{Attention}(q_i, k_i, v_i)" in formulas["home.head.latex"]["en"]
    for lang, shown in (
        ("zh", r"\text{头}_i = \text{注意力}(q_i, k_i, v_i)"),
        ("en", r"\text{head}_i = \text{Attention}"),
    ):
        text = "\n".join(m.value for m in run_app(None, lang=lang).markdown)
        assert shown in text and "i = 0 … h − 1" in text  # the indexing note stays


CARET = re.compile(r"W\^|W_i\^|W_\{i\}\^")


@pytest.mark.parametrize(
    "strings,prefixes",
    [(WALK, ("walk.",)), (COMMON, ("home.", "page.")), (HEADS, ("heads.",)), (QUIZ, ("quiz.",)), (WHY, ("why.",))],
)
def test_no_caret_notation_in_prose(strings, prefixes):
    """W^Q_i and W^O in running text are inline LaTeX ($W^Q_i$); labels that cannot render LaTeX (tables, the shape
    boxes) use the code's names (W_q) or Unicode (Wᴼ)."""
    for key, entry in strings.items():
        if not key.startswith(prefixes) or key.endswith(".latex"):
            continue
        for lang in ("zh", "en"):
            prose = re.sub(r"\$[^$]*\$", "", entry[lang])  # what is left outside inline formulas
            assert not CARET.search(prose), (key, lang, entry[lang])
