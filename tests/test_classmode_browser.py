"""Class mode end to end in Chromium: a teacher and three students in four browser contexts, in zh and en: start
a class, join by code, follow three walkthrough steps, one student explores and comes back, a vote, a reload
mid-vote, the reveal, a second vote, the export. The class store is the session's SQLite file in a temp folder
(conftest.py)."""

from __future__ import annotations

import collections
import csv
import io
import json
import re
import time
import urllib.request

import pytest
from conftest import LINK_WRITTEN, sidebar_slider
from playwright.sync_api import expect
from wire import SIDEBAR, delta_paths

from ui.classmode import FALLBACK_SECONDS

pytestmark = pytest.mark.browser

WORDS = {
    "en": dict(
        start="Start a class",
        code="Class code",
        nick="Nickname (optional)",
        join="Join",
        joined="In class",
        ask="Ask A–D",
        right="Right answer",
        send="Send my answer",
        reveal="Reveal",
        counted="Your answer is counted",
        second="Second vote after discussion",
        explore="Explore on my own",
        follow="Follow the teacher",
        export="Export the record (CSV)",
    ),
    "zh": dict(
        start="开始上课",
        code="课堂码",
        nick="昵称（可不填）",
        join="加入",
        joined="已加入课堂",
        ask="提问 A–D",
        right="正确答案",
        send="提交答案",
        reveal="揭晓",
        counted="你的答案已计入",
        second="讨论后再投一次",
        explore="自己探索",
        follow="跟随老师",
        export="导出记录（CSV）",
    ),
}
IDLE = "[data-testid=stApp][data-test-script-state=notRunning]"
STEPS = ("split", "scores", "softmax")


def idle(p) -> None:
    """The run is over and its link is in the address bar (client_batching.js hands it over after the paint; the
    tests read tp.url for the teacher's key)."""
    p.wait_for_selector(IDLE, timeout=60_000)
    p.wait_for_function(LINK_WRITTEN, timeout=60_000)


def start_class(ctx, base: str, lang: str):
    """The teacher's tab on the class page starts a class: (that tab, the class code on its projector)."""
    tp = ctx.new_page()
    tp.set_default_timeout(60_000)
    tp.goto(f"{base}/class?lang={lang}")
    idle(tp)
    tp.get_by_role("button", name=WORDS[lang]["start"]).first.click()
    tp.wait_for_selector(".cm-code")
    idle(tp)
    return tp, tp.locator(".cm-code").inner_text().strip()


def record_messages(p) -> None:
    """Keep the last messages between this page and the server, by kind (which page each run was on, which fragment
    a rerun asked for, each link the server wrote): a follow that fails in CI says what happened (at_step)."""
    from streamlit.proto.BackMsg_pb2 import BackMsg
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    log: collections.deque[str] = collections.deque(maxlen=60)
    p.al_messages = log
    deltas = [0]  # in a row, said as one line: a run's elements

    def said(payload, kind_of, sent: bool) -> None:
        try:
            kind = kind_of(payload)
        except Exception as e:  # noqa: BLE001 (a frame this reader does not know: said as such)
            kind = f"? {type(e).__name__}"
        if kind == "delta":
            deltas[0] += 1
            return
        if deltas[0]:
            log.append(f"{time.monotonic():.2f} < {deltas[0]} deltas")
            deltas[0] = 0
        log.append(f"{time.monotonic():.2f} {'>' if sent else '<'} {kind}")

    def forward(payload) -> str:
        msg = ForwardMsg.FromString(payload if isinstance(payload, bytes) else payload.encode())
        kind = msg.WhichOneof("type")
        if kind == "new_session":
            return f"new_session page={msg.new_session.page_script_hash[:8]}"
        if kind == "page_info_changed":
            return f"page_info ?{msg.page_info_changed.query_string}"
        if kind == "navigation":
            return f"navigation page={msg.navigation.page_script_hash[:8]}"
        if kind == "script_finished":
            return f"script_finished {msg.script_finished}"
        return str(kind)

    def back(payload) -> str:
        msg = BackMsg.FromString(payload if isinstance(payload, bytes) else payload.encode())
        kind = msg.WhichOneof("type")
        if kind == "rerun_script":
            r = msg.rerun_script
            return f"rerun page={r.page_script_hash[:8]} fragment={r.fragment_id[:8]} ?{r.query_string}"
        return str(kind)

    def hooked(ws) -> None:
        ws.on("framereceived", lambda payload: said(payload, forward, False))
        ws.on("framesent", lambda payload: said(payload, back, True))

    p.on("websocket", hooked)


def at_step(p, step: str) -> None:
    try:
        p.wait_for_function(f"new URLSearchParams(location.search).get('walk_step') === '{step}'", timeout=30_000)
    except Exception as e:  # say where the student is instead (CI's log is all there is)
        shown = p.evaluate("() => [location.pathname + location.search, document.querySelector('h1')?.innerText]")
        said = "\n".join(list(getattr(p, "al_messages", ()))[-40:])
        raise AssertionError(f"a student is not at the teacher's step {step!r} after 30 s: {shown}\n{said}") from e


def test_a_whole_class(browser, server):
    """One class in both languages: a Chinese teacher (the English one starts the classes of the tests below) and
    students in English, Chinese and English, each seeing their own language's words."""
    T = WORDS["zh"]
    langs = ("en", "zh", "en")
    base = server.url
    teacher_ctx = browser.new_context(viewport={"width": 1440, "height": 900}, accept_downloads=True)
    tp, code = start_class(teacher_ctx, base, "zh")
    teacher_url = tp.url
    assert re.fullmatch(r"[A-Z0-9]{5}", code) and "teacher=" in teacher_url

    students, contexts = [], [teacher_ctx]
    for i, width in enumerate((390, 1200, 1200)):
        S = WORDS[langs[i]]
        ctx = browser.new_context(viewport={"width": width, "height": 844})
        contexts.append(ctx)
        sp = ctx.new_page()
        sp.set_default_timeout(60_000)
        record_messages(sp)
        sp.goto(f"{base}/class?lang={langs[i]}")
        idle(sp)
        sp.get_by_role("textbox", name=S["code"]).fill(code.lower() if i == 0 else code)
        sp.get_by_role("textbox", name=S["nick"]).fill(["<b>Li</b>", "", "Ann"][i])
        sp.get_by_role("button", name=S["join"], exact=True).click()
        sp.wait_for_selector(f"text={S['joined']}")
        sp.wait_for_function("location.search.includes('member=')")  # a reload rejoins as this student
        assert "teacher=" not in sp.url
        students.append(sp)
    assert students[0].locator("b", has_text="Li").count() == 0  # the nickname is text, never markup

    # Follow the teacher through three walkthrough steps (and a setting).
    for step in STEPS:
        tp.goto(teacher_url.replace("/class?", "/walkthrough?") + f"&walk_step={step}&seq_len=6")
        idle(tp)
        for sp in students:
            at_step(sp, step)
    assert all("seq_len=6" in sp.url for sp in students)

    # One student explores: the teacher's move leaves them; "Follow the teacher" brings them back.
    explorer, S = students[1], WORDS[langs[1]]
    explorer.get_by_role("button", name=S["explore"]).click()
    explorer.get_by_role("button", name=S["follow"]).wait_for()
    tp.goto(teacher_url.replace("/class?", "/walkthrough?") + "&walk_step=mix")
    idle(tp)
    at_step(students[2], "mix")
    assert "walk_step=softmax" in explorer.url
    explorer.get_by_role("button", name=S["follow"]).click()
    at_step(explorer, "mix")

    # A quick question, right answer B.
    tp.goto(teacher_url)
    idle(tp)
    tp.locator(".st-key-cm_choice_right").get_by_text("B", exact=True).click()
    expect(tp.locator(".st-key-cm_choice_right").get_by_role("radio", name="B")).to_be_checked()
    idle(tp)
    tp.get_by_role("button", name=T["ask"]).click()
    for sp, lang in zip(students, langs):
        sp.get_by_role("button", name=WORDS[lang]["send"]).wait_for()
    students[2].reload()  # a reload mid-vote: back in the class, the question still there
    idle(students[2])
    students[2].get_by_role("button", name=WORDS[langs[2]]["send"]).wait_for()
    for sp, lang, answer in zip(students, langs, "BAB"):
        sp.get_by_test_id("stRadioGroup").get_by_text(answer, exact=True).click()
        sp.get_by_role("button", name=WORDS[lang]["send"]).click()
        sp.get_by_text(WORDS[lang]["counted"]).wait_for()
    students[0].reload()  # after voting: the vote is still counted
    students[0].get_by_text(WORDS[langs[0]]["counted"]).wait_for()
    tp.get_by_text(re.compile("3 answers received|已收到 3 个答案")).wait_for()
    tp.get_by_role("button", name=T["reveal"]).click()
    tp.wait_for_selector(".cm-bars")
    for sp in students:
        sp.wait_for_selector(".cm-bars")
    assert tp.locator(".cm-right").count() == 1

    # The second vote, both distributions side by side.
    tp.get_by_role("button", name=T["second"]).click()
    for sp, lang in zip(students, langs):
        sp.get_by_role("button", name=WORDS[lang]["send"]).wait_for()
    for sp, lang in zip(students, langs):
        sp.get_by_test_id("stRadioGroup").get_by_text("B", exact=True).click()
        sp.get_by_role("button", name=WORDS[lang]["send"]).click()
        sp.get_by_text(WORDS[lang]["counted"]).wait_for()
    tp.get_by_text(re.compile("3 answers received|已收到 3 个答案")).wait_for()
    tp.get_by_role("button", name=T["reveal"]).click()
    tp.wait_for_function("document.querySelectorAll('.cm-bars').length === 2")
    # The bars are drawn before the end of the reveal's run, which then draws the export button again with the new
    # record: a click before that run ends fetches the old file, which the run's end removes (Chromium: "canceled").
    idle(tp)

    # The export: one line per vote, nicknames as given, no student id.
    with tp.expect_download() as download:
        tp.get_by_role("button", name=T["export"]).click()
    text = open(download.value.path(), encoding="utf-8-sig").read()
    rows = list(csv.DictReader(io.StringIO(text)))
    assert len(rows) == 6 and {r["round"] for r in rows} == {"1", "2"}
    assert sum(r["correct"] == "True" for r in rows if r["round"] == "1") == 2
    assert "<b>Li</b>" in {r["nickname"] for r in rows}
    assert not any(m in text for m in re.findall(r"member=([\w-]+)", " ".join(sp.url for sp in students)))
    for ctx in contexts:
        ctx.close()


def wait_for(condition, p, timeout: float = 30) -> None:
    """Until `condition()` holds, letting Playwright deliver the page's events meanwhile."""
    end = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < end, "timed out"
        p.wait_for_timeout(100)


def test_a_follow_on_the_same_page_resends_no_sidebar_element(browser, server):
    """The poll's check runs in its component's callback: a teacher's step on the page the student is on reruns the
    student's page fragment only (no sidebar element is re-sent but the poll's own), and the student shows the
    teacher's step; a followed setting reruns the sidebar too, and it shows the teacher's value (seq_len or the seed:
    that widget alone; d_model: all the settings), but not the walkthrough's choosers, which show no setting. A new
    question, and the student's vote, re-send the question alone."""
    base = server.url
    T = WORDS["en"]
    teacher_ctx = browser.new_context(viewport={"width": 1440, "height": 900})
    student_ctx = browser.new_context(viewport={"width": 1200, "height": 844})
    try:
        tp, code = start_class(teacher_ctx, base, "en")
        projector = tp.url
        walk = tp.url.replace("/class?", "/walkthrough?")
        sp = student_ctx.new_page()
        sp.set_default_timeout(60_000)
        record_messages(sp)
        paths = delta_paths(sp)

        def in_sidebar() -> list[tuple[int, ...]]:
            return [p for p in paths if p and p[0] == SIDEBAR]

        def not_polls() -> set[tuple[int, ...]]:
            """The sidebar paths re-sent that are not the poll fragment's: its box, or anything inside it (its
            component is re-sent at the next fallback tick after a follow, with the version it saw last)."""
            return {p for p in in_sidebar() if not any(p[: len(q)] == q for q in polls_own)}

        def main_blocks() -> set[int]:  # the main area's top-level blocks that were re-sent (fragments, containers)
            return {p[1] for p in paths if len(p) > 1 and p[0] != SIDEBAR}

        sp.goto(f"{base}/class?lang=en")
        idle(sp)
        sp.get_by_role("textbox", name=T["code"]).fill(code)
        sp.get_by_role("button", name=T["join"], exact=True).click()
        sp.wait_for_function("location.search.includes('member=')")
        tp.goto(walk + "&walk_step=split&seq_len=6")
        idle(tp)
        at_step(sp, "split")  # a new page: the whole app, as before
        idle(sp)
        # The polls alone, the class quiet: what the poll fragment re-sends in the sidebar at its slow fallback.
        paths.clear()
        wait_for(lambda: len(in_sidebar()) >= 1, sp, timeout=3 * FALLBACK_SECONDS)
        polls_own = set(in_sidebar())
        assert all(len(q) >= 2 for q in polls_own), polls_own  # a box inside the sidebar, not the sidebar
        paths.clear()
        tp.goto(walk + "&walk_step=scores&seq_len=6")
        idle(tp)
        at_step(sp, "scores")
        expect(sp.get_by_text("Scores qᵢkᵢᵀ").first).to_be_visible()  # the teacher's step, drawn
        assert len(paths) > len(in_sidebar())  # the page's deltas came
        assert not not_polls(), sorted(not_polls())
        step_blocks = main_blocks()
        # the page, its choosers (the chosen step's pill) and the fragment below it: scores tells the cell's story,
        # split did not (ui/walk_drill.py)
        assert len(step_blocks) == 3, step_blocks
        # A followed seq_len: its slider is re-sent (in a fragment of its own), no other setting; the sidebar shows
        # the teacher's value. The choosers show nothing a setting changes: not re-sent, as on a student's own step.
        paths.clear()
        tp.goto(walk + "&walk_step=scores&seq_len=7")
        idle(tp)
        sp.wait_for_function("new URLSearchParams(location.search).get('seq_len') === '7'", timeout=30_000)
        expect(sidebar_slider(sp, 2)).to_have_value("7")
        resent = not_polls()
        assert 0 < len(resent) <= 2, sorted(resent)  # the slider and its fragment's box
        assert len(main_blocks()) == 1 and main_blocks() < step_blocks, (main_blocks(), step_blocks)  # the page's
        at_step(sp, "scores")
        expect(sp.get_by_role("button", name="Next")).to_be_visible()  # the choosers stay drawn
        # A followed seed: its box alone, likewise.
        paths.clear()
        tp.goto(walk + "&walk_step=scores&seq_len=7&seed=5")
        idle(tp)
        sp.wait_for_function("new URLSearchParams(location.search).get('seed') === '5'", timeout=30_000)
        seed_box = sp.locator("[data-testid=stSidebar] [data-testid=stNumberInput] input")
        expect(seed_box).to_have_value("5")
        resent = not_polls()
        assert 0 < len(resent) <= 2, sorted(resent)
        # The downloads section below the page, opened by the student: a followed step redraws it with the new run
        # (closed, as above, it is not re-sent).
        section = sp.get_by_text("Download the tensors", exact=True)
        section.scroll_into_view_if_needed()
        section.click()
        expect(sp.get_by_text(re.compile(r"has shape \(1, \d+, 7, 7\)")).first).to_be_visible()
        idle(sp)
        paths.clear()
        tp.goto(walk + "&walk_step=scores&seq_len=8&seed=5")
        idle(tp)
        expect(sp.get_by_text(re.compile(r"has shape \(1, \d+, 8, 8\)")).first).to_be_visible()
        assert len(main_blocks()) == 2, main_blocks()  # the page, and the section below it
        # A followed d_model: every setting is re-sent (the heads offered, d_k), the others keep the teacher's values.
        paths.clear()
        tp.goto(walk + "&walk_step=scores&seq_len=7&seed=5&d_model=128")
        idle(tp)
        sp.wait_for_function("new URLSearchParams(location.search).get('d_model') === '128'", timeout=30_000)
        idle(sp)
        assert len(not_polls()) > 4
        expect(sidebar_slider(sp, 2)).to_have_value("7")
        expect(seed_box).to_have_value("5")
        expect(sp.locator("[data-testid=stSidebar] [data-testid=stSlider]")).to_have_count(3)
        expect(seed_box).to_have_count(1)
        # The teacher opens the cell's story at a cell: the student's opens there too (it is below the page, in a
        # fragment that a follow reruns when it opens it, ui/walk_drill.py).
        idle(sp)
        tp.goto(walk + "&walk_step=scores&seq_len=7&seed=5&d_model=128&walk_drill=true&walk_i=2")
        idle(tp)
        sp.wait_for_function("new URLSearchParams(location.search).get('walk_drill') === 'true'", timeout=30_000)
        row = sp.get_by_role("combobox", name=re.compile("Query position a"))
        expect(row).to_be_visible()
        expect(sp.get_by_text("Follow one cell", exact=True)).to_be_visible()
        sp.wait_for_function("new URLSearchParams(location.search).get('walk_i') === '2'", timeout=30_000)
        expect(row).to_have_value("2")
        # A question asked from the projector: the student's question above the page is re-sent, nothing else (no
        # setting, not the page); the vote likewise.
        idle(sp)
        paths.clear()
        tp.goto(projector)
        idle(tp)
        tp.get_by_role("button", name=T["ask"]).click()
        sp.get_by_role("button", name=T["send"]).wait_for()
        idle(sp)
        assert not not_polls(), sorted(not_polls())
        question_blocks = main_blocks()
        assert len(question_blocks) == 1 and question_blocks.isdisjoint(step_blocks), (question_blocks, step_blocks)
        at_step(sp, "scores")  # the page stays drawn
        paths.clear()
        sp.get_by_test_id("stRadioGroup").get_by_text("B", exact=True).click()
        sp.get_by_role("button", name=T["send"]).click()
        sp.get_by_text(T["counted"]).wait_for()
        idle(sp)
        assert not not_polls() and main_blocks() == question_blocks, (in_sidebar(), main_blocks())
    finally:
        student_ctx.close()
        teacher_ctx.close()


def test_a_quiet_class_sends_no_poll_and_a_move_arrives_through_the_version_file(browser, server):
    """A student's poll script fetches the class's version file and reruns nothing while it is unchanged: the page
    sends the server no message at all while the class is quiet. The teacher's move changes the file (whose name
    is not the code's), and the student shows the teacher's step within 2 s of the teacher's run."""
    base = server.url
    T = WORDS["en"]
    teacher_ctx = browser.new_context(viewport={"width": 1440, "height": 900})
    student_ctx = browser.new_context(viewport={"width": 1200, "height": 844})
    try:
        tp, code = start_class(teacher_ctx, base, "en")
        walk = tp.url.replace("/class?", "/walkthrough?")
        sp = student_ctx.new_page()
        sp.set_default_timeout(60_000)
        record_messages(sp)
        sent: list[float] = []  # the student's messages to the server (a poll's rerun is one)
        fetched: list[str] = []  # the version files the student's page fetched
        sp.on("websocket", lambda ws: ws.on("framesent", lambda _payload: sent.append(time.monotonic())))
        sp.on("request", lambda r: fetched.append(r.url) if "/app/static/class/" in r.url else None)
        sp.goto(f"{base}/class?lang=en")
        idle(sp)
        sp.get_by_role("textbox", name=T["code"]).fill(code)
        sp.get_by_role("button", name=T["join"], exact=True).click()
        sp.wait_for_function("location.search.includes('member=')")
        tp.goto(walk + "&walk_step=split&seq_len=6")
        idle(tp)
        at_step(sp, "split")
        idle(sp)
        settled = len(fetched)
        wait_for(lambda: len(fetched) >= settled + 2, sp)  # the page's own fetches have begun: its first run is over
        # Quiet: the file is fetched twice a second, the server hears nothing (the old poll sent a rerun a second).
        sent.clear()
        n0 = len(fetched)
        sp.wait_for_timeout(4000)
        assert len(fetched) - n0 >= 5, fetched[n0:]
        assert len(sent) <= 1, len(sent)  # at most the slow fallback's one
        url = fetched[-1]
        assert code.lower() not in url.lower()
        with urllib.request.urlopen(url, timeout=10) as r:
            before = r.read().decode()
        # The teacher moves: the file changes, and the student follows within 2 s of the teacher's run.
        tp.goto(walk + "&walk_step=scores&seq_len=6")
        idle(tp)
        moved = time.monotonic()
        at_step(sp, "scores")
        lag = time.monotonic() - moved
        with urllib.request.urlopen(url, timeout=10) as r:
            after = r.read().decode()
        assert after != before and json.loads(after)[0] > json.loads(before)[0]
        assert lag < 2.0, lag
        expect(sp.get_by_text("Scores qᵢkᵢᵀ").first).to_be_visible()
    finally:
        student_ctx.close()
        teacher_ctx.close()


def test_a_students_poll_sends_a_new_version_again_until_the_server_answers_it(page):
    """The poll's script (ui/classmode.py _POLL_JS) on a stand-in: the version file's new text is sent as the
    trigger; the server's answer is new data (its `last`), which starts the script again. Without an answer (a
    trigger lost while another run was going) the text is sent again every 1.5 s, at most 3 times in all; an
    answered text is not sent again, and a quiet file sends nothing."""
    from ui.classmode import _POLL_JS

    page.set_content("<html><body><div id=host></div></body></html>")
    got = page.evaluate(
        """async js => {
        const url = URL.createObjectURL(new Blob([js], {type: "text/javascript"}));
        const start = (await import(url)).default;
        const sleep = ms => new Promise(r => setTimeout(r, ms));
        let text = "v2";
        window.fetch = async () => ({ok: true, text: async () => text});
        const sent = [];
        const host = document.getElementById("host");
        const run = last => start({parentElement: host, setTriggerValue: (k, v) => sent.push(v),
                                   data: {url: "/file", every: 0.05, seconds: 1000, last}});
        run("v1");  // the file changed and nobody answers
        await sleep(5200);
        const unanswered = sent.splice(0);
        run("v2");  // the server answered: its data says v2
        await sleep(2000);
        const answered = sent.splice(0);
        text = "v3";  // the teacher moves again, and this time the answer comes at once
        await sleep(300);
        run("v3");
        await sleep(2000);
        const once = sent.splice(0);
        if (window.__alPoll) window.__alPoll();
        return {unanswered, answered, once};
    }""",
        _POLL_JS,
    )
    assert got == {"unanswered": ["v2", "v2", "v2"], "answered": [], "once": ["v3"]}
