"""The "Why many heads" page under AppTest: it never trains by itself, the Train button trains
h = 1, 2, 4 and reports what it measured, results are shared between sessions, a stopped run is
reported, and bad URL values are corrected."""

from __future__ import annotations

import time

import pytest
from chart_reader import charts, heatmaps
from conftest import run_app, sections

pytestmark = pytest.mark.app


def texts(elements) -> list[str]:
    return [e.value for e in elements]


def paragraphs(at) -> list[str]:
    """Every paragraph of the main area's markdown elements (an element may say a heading and several)."""
    return [p for m in texts(at.main.markdown) for p in m.split("\n\n")]


def headings(at) -> list[str]:
    """The page's section headings in page order: the first line of each markdown element that says a heading
    and its paragraphs in one."""
    return [m.split("\n", 1)[0].removeprefix("### ") for m in texts(at.main.markdown) if m.startswith("### ")]


def test_page_opens_in_chinese_without_training():
    start = time.perf_counter()
    at = run_app("why-heads", lang="zh", why_seed=90_001)
    assert not at.exception
    assert time.perf_counter() - start < 30
    assert texts(at.markdown)[0].startswith("# 为什么要多头\n\n")  # the page's title, then its intro
    assert "why_run" not in at.session_state  # nothing was trained
    assert any("还没有训练过" in s for s in texts(at.info))
    assert at.button(key="why_train").label == "训练 h = 1、2、4"
    # nothing trained: no "what you just saw" (issue 20), what to look for instead
    assert not any("**多种表示。**" in m for m in texts(at.markdown))
    assert headings(at)[-1] == "训练时看什么" and "刚才看到的是什么" not in headings(at)
    # the example, one row a position, closing the element of the heading and the text that explain it
    example = next(m[m.index("\n| 位置 |") + 1 :] for m in texts(at.markdown) if "\n| 位置 |" in m)
    assert "| 5 | 9\\* | (5, 9) |" in example and "| 1 | 1 | (3, 9) |" in example
    assert "| **7** | **6** | **(2, 9)** |" in example  # the position the text explains, in bold
    assert max(len(line.split("|")) - 2 for line in example.splitlines()) == 3  # three columns: fits 390 px
    stability = next(p for p in paragraphs(at) if p.startswith("**稳定性。**"))
    assert "没有测量" not in stability and "39" in stability


def test_train_button_trains_reports_and_shares_the_results():
    at = run_app("why-heads", lang="en", why_seed=90_002, why_steps=100)
    assert not at.exception
    at.button(key="why_train").click().run()
    assert not at.exception
    verdicts = texts(at.success)
    assert any(v.startswith("h = 2:") and "The effect shows" in v for v in verdicts), verdicts
    assert any(v.startswith("h = 4:") and "The effect shows" in v for v in verdicts), verdicts
    assert any(p.startswith("One head (d_k = 32)") for p in paragraphs(at))
    assert "What you just saw" in headings(at)  # now that something was trained
    said = next(m for m in texts(at.markdown) if m.startswith("### What you just saw\n\n"))
    assert said.split("\n\n")[1].startswith("**Several representations.**")  # right under its heading
    stability = next(p for p in paragraphs(at) if p.startswith("**Stability.**"))
    assert "not measured on this page" not in stability and "39 of 40" in stability
    drawn = charts(at)
    assert len(drawn) == 1  # the loss curves; the head grids are one tab away
    assert all(f'"h = {h}"' in drawn[0].text for h in (1, 2, 4))
    assert at.session_state["why_run"]["status"] == "done"
    assert "why_tab" not in at.query_params and len(sections(at)) == 2  # no value: the first tab, results
    at.query_params["why_tab"] = "heads"  # what a click on the tab writes (AppTest cannot click a tab)
    at.run()
    assert not at.exception
    assert len(charts(at)) == 1  # the loss curves ...
    grids = heatmaps(at)  # ... and one head grid per model through the chart route (ui/heatmaps.py)
    assert [len(g.arrays) for g in grids] == [1, 2, 4]
    assert grids[2].header["file"] == "attention-lab-trained-weights-h4"  # the download file name, as before
    for g in grids:  # softmax rows of the example sequence
        for panel in range(len(g.arrays)):
            assert abs(float(g.values(panel).sum()) - 10.0) < 1e-3
    assert any(m.startswith("**h = 4 (d_k = 8)**") for m in texts(at.markdown))

    # A second student (a new session) with the same settings gets the results without training.
    other = run_app("why-heads", lang="en", why_seed=90_002, why_steps=100)
    assert not other.exception
    assert any("already in the server's cache" in s for s in texts(other.success))
    assert "why_run" not in other.session_state
    assert len(charts(other)) == 1 and not heatmaps(other)
    linked = run_app("why-heads", lang="zh", why_seed=90_002, why_steps=100, why_tab="heads")  # a teacher's link
    assert not linked.exception
    assert len(charts(linked)) == 1 and len(heatmaps(linked)) == 3
    bad = run_app("why-heads", lang="en", why_seed=90_002, why_steps=100, why_tab="nope")
    assert not bad.exception and bad.query_params["why_tab"] == "results"
    assert any("why_tab" in w for w in texts(bad.warning))


def test_a_stopped_run_is_reported_with_its_partial_curve():
    at = run_app("why-heads", lang="en", why_seed=90_003, why_steps=100)  # its keys belong to its own page
    # What an interrupted training leaves behind (the Stop button reruns the script mid-loop).
    at.session_state["why_run"] = {"seed": 90_003, "steps": 100, "h": 1, "losses": [2.3, 2.1, 1.9], "status": "running"}
    at.run()
    assert not at.exception
    assert any("Training was stopped at step 3 of 100 for h = 1" in w for w in texts(at.warning))
    assert "h = 1 (stopped)" in charts(at)[0].text
    assert at.session_state["why_run"]["status"] == "stopped"


def test_bad_url_values_are_corrected():
    at = run_app("why-heads", lang="en", why_seed="-5", why_steps="abc")
    assert not at.exception
    assert at.number_input(key="why_seed").value == 0
    assert at.select_slider(key="why_steps").value == 400
    notes = texts(at.warning)
    assert any("why_seed" in n for n in notes) and any("why_steps" in n for n in notes), notes


def test_unreadable_run_state_is_ignored():
    at = run_app(None, lang="en")
    for junk in ("junk", {"h": [1], "losses": 5, "status": "running"}, {"h": 3, "losses": [], "status": "x"}):
        at.session_state["why_run"] = junk
        at.switch_page("pages/why-heads.py")
        at.run()
        assert not at.exception
        assert not at.warning
