"""app.py's two fragments: a step of the shared settings reruns the settings and the page (seq_len and the seed:
the page alone), not the sidebar's language, display options and navigation (a language or display change still
reruns all)."""

from __future__ import annotations

import re
import types

import pytest
from conftest import current_link, open_app, run_app, run_async, sidebar_slider, wait_idle
from playwright.sync_api import expect
from waits import wait_quiet
from wire import SIDEBAR, delta_paths

import i18n


def test_run_page_allows_the_same_page_object_to_run_on_every_fragment_rerun(monkeypatch):
    from ui import seam

    runs = []

    class Page:
        _can_be_called = True

        def run(self):
            if not self._can_be_called:
                raise RuntimeError("This page cannot be called directly")  # Streamlit's own rule
            self._can_be_called = False
            runs.append(seam.shell_guard())

    page = Page()
    for _ in range(3):
        seam.run_page(page)
    assert runs == [False] * 3  # ran 3 times, each inside app.py's page run (no deep-link re-run)
    plain = types.SimpleNamespace(run=lambda: runs.append(2))  # a Streamlit without the flag: just run
    seam.run_page(plain)
    assert runs[-1] == 2
    monkeypatch.setenv(seam.SWITCH_ENV, "off")  # the seam off: the flag is left alone (app.py then runs
    with pytest.raises(RuntimeError):  # every page as a whole-app run, never twice a run)
        seam.run_page(page)


def test_streamlits_page_runs_once_a_run_and_the_seam_runs_it_again():
    """Behaviour canary (seam entry `fragment_page`), on Streamlit's own Page: it refuses a second run()
    in one script run, and seam.run_page runs the same page object again (each live-fragment rerun)."""
    import streamlit as st
    from streamlit.errors import StreamlitAPIException

    from ui import seam

    page = st.Page(lambda: None, title="p", url_path="p")
    page._can_be_called = True  # what st.navigation does for the page it returns
    page.run()
    with pytest.raises(StreamlitAPIException):
        page.run()  # Streamlit's once-a-run rule: without the seam, the live fragment could not rerun it
    seam.run_page(page)
    seam.run_page(page)
    assert page._can_be_called is False  # Streamlit's own flag, cleared by its own run() each time


def test_a_fragment_rerun_never_preempts_a_running_script():
    """Behaviour canary (seam entry `fragment_queue`), on Streamlit's own request queue: a widget's rerun of the
    live fragment waits for the run in progress (app.py's whole-app run finishes drawing the sidebar and the page),
    while a whole-app rerun interrupts it as usual."""
    from streamlit.runtime.scriptrunner_utils.script_requests import RerunData, ScriptRequests, ScriptRequestType

    requests = ScriptRequests()
    assert requests.request_rerun(RerunData(fragment_id="live"))
    assert requests.on_scriptrunner_yield() is None  # the running script goes on
    assert requests.request_rerun(RerunData())  # a whole-app rerun (a language change) ...
    request = requests.on_scriptrunner_yield()
    assert request is not None and request.type == ScriptRequestType.RERUN  # ... stops it at once


def test_a_page_change_is_not_folded_into_a_rerun_of_fragments_sent_after_it():
    """Behaviour canary (seam entry `page_change`). Streamlit folds a waiting page link click and a later rerun of
    fragments into one whole-app run with the page and link of the newer request, the page being left; so the seam's
    middleware hands Streamlit such a rerun as a whole-app request of the page asked for, with the value it carries.
    A setting's callback's rerun of fragments never crosses the wire, and needs nothing: the click's request stops the
    runner it is asked of (runner.fastReruns), which then takes no request.
    (tests/test_browser_app.py::test_a_seed_typed_and_not_yet_sent_goes_with_a_page_link_clicked_at_once is the
    browser's side.)"""
    from streamlit import config
    from streamlit.proto.BackMsg_pb2 import BackMsg
    from streamlit.runtime.scriptrunner_utils.script_requests import RerunData, ScriptRequests

    from ui.seam.page_change import RerunOnThePageAsked

    heads = RerunData(page_script_hash="heads", query_string="seed=9")  # the click, its runner not started yet
    keyed = RerunData(page_script_hash="home", fragment_id_queue=["settings"])  # the typed value, sent after it
    requests = ScriptRequests()
    assert requests.request_rerun(heads) and requests.request_rerun(keyed)
    run = requests.on_scriptrunner_yield().rerun_data
    assert (run.page_script_hash, run.fragment_id_queue) == ("home", []), "Streamlit keeps the click now: drop the rule"

    assert config.get_option("runner.fastReruns")  # a whole-app request from the browser gets a runner of its own
    requests = ScriptRequests()  # the runner a callback runs in, once the click has stopped it
    requests.request_stop()
    assert not requests.request_rerun(RerunData(page_script_hash="home", fragment_id_queue=["page"]))

    def rerun(page: str, fragment: str = "") -> dict:
        msg = BackMsg()
        msg.rerun_script.page_script_hash = page
        msg.rerun_script.query_string = f"to={page}"
        msg.rerun_script.fragment_id = fragment
        if fragment:
            msg.rerun_script.widget_states.widgets.add(id="$$ID-1-seed", int_value=9)
        return {"type": "websocket.receive", "bytes": msg.SerializeToString()}

    browser = [rerun("home"), rerun("heads"), rerun("home", fragment="settings"), rerun("heads", fragment="page")]
    handed = []

    async def streamlit(scope, receive, send):
        for _ in range(4):
            handed.append(BackMsg.FromString((await receive())["bytes"]).rerun_script)

    async def browser_receive():
        return browser.pop(0)

    async def browser_send(message):
        pass

    run_async(
        RerunOnThePageAsked(streamlit)({"type": "websocket", "path": "/_stcore/stream"}, browser_receive, browser_send)
    )
    assert [(h.page_script_hash, h.fragment_id, h.query_string) for h in handed] == [
        ("home", "", "to=home"),
        ("heads", "", "to=heads"),
        ("heads", "", "to=heads"),  # the value typed on Home goes to a whole-app run of Heads ...
        ("heads", "page", "to=heads"),  # ... and a step on Heads is left as sent
    ]
    assert handed[2].widget_states.widgets[0].int_value == 9


def test_a_rerun_of_fragments_sent_from_the_page_left_runs_on_the_page_shown():
    """Seam entry `page_change`, its wire rule: a request of fragments naming another page than the one asked for (or
    the one a later run is on) takes that page, and the link and context of the request that asked for it; any other
    is left as sent.
    (tests/test_browser_app.py::test_a_typed_value_that_reaches_the_server_after_a_page_change_is_applied_on_the_new_page
    is the browser's side: the new page's main area was blank.)"""
    from streamlit.proto.ClientState_pb2 import ClientState

    from ui.seam.page_change import on_page_shown

    click = ClientState(page_script_hash="heads", query_string="d_model=32")
    click.context_info.url = "http://x/heads?d_model=32"
    late = ClientState(page_script_hash="home", page_name="", fragment_id="settings", query_string="seed=7")
    late.context_info.url = "http://x/?seed=7"
    late.widget_states.widgets.add(id="$$ID-1-seed", int_value=9)

    run = on_page_shown(late, "heads", click)
    assert (run.page_script_hash, run.query_string, run.context_info.url) == (
        "heads",
        "d_model=32",
        click.context_info.url,
    )
    assert (run.fragment_id, run.widget_states.widgets[0].int_value) == ("", 9)  # a whole-app run; the value goes on
    assert late.page_script_hash == "home"  # a copy: the message itself is not changed

    # The page shown came from the server (a follow's st.switch_page): the page, not a link of another page.
    assert on_page_shown(late, "walk", click).query_string == "seed=7"
    same = ClientState(page_script_hash="heads", fragment_id="page", query_string="seed=8")
    assert on_page_shown(same, "heads", click) is same  # a step on the page shown
    whole = ClientState(page_script_hash="home")
    assert on_page_shown(whole, "heads", click) is whole  # a whole-app request is Streamlit's (a page change)
    assert on_page_shown(late, "", None) is late  # no run yet


def test_a_websockets_pages_in_the_order_the_browser_and_the_server_move():
    """The wire part of entry `page_change` (ui/seam/page_change.RerunOnThePageAsked): the browser's whole-app request
    names the page to come; a whole-app run names the page it is on (its st.navigation message, read from Streamlit's
    wire format: a delta is not parsed, a message that is no ForwardMsg is left alone)."""
    from streamlit.proto.ClientState_pb2 import ClientState
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    from ui.seam.page_change import Pages, run_event

    start = ForwardMsg(hash="h")
    start.metadata.delta_path.extend([0])
    start.navigation.page_script_hash = "heads"
    assert run_event(start.SerializeToString()) == ("page", "heads")
    session = ForwardMsg(hash="s")
    session.new_session.page_script_hash = "app"  # a run's start names the entrypoint before st.navigation chose
    assert run_event(session.SerializeToString()) == ("begun", "")  # not a page yet
    delta = ForwardMsg(hash="d")
    delta.delta.new_element.markdown.body = "x" * 10_000
    assert run_event(delta.SerializeToString()) is None
    assert run_event(b"\xff\xff\xff") is None

    pages = Pages()
    first = ClientState(page_name="")  # a first visit: its page is known once its run starts
    assert pages.request(first) is first
    pages.run_started("home")
    step = ClientState(page_script_hash="home", fragment_id="page")
    assert pages.request(step) is step
    click = ClientState(page_script_hash="heads", query_string="d_model=32")
    assert pages.request(click) is click
    late = ClientState(page_script_hash="home", fragment_id="settings")
    assert pages.request(late).page_script_hash == "heads"  # before the click's run started ...
    pages.run_started("heads")
    assert pages.request(late).query_string == "d_model=32"  # ... and after
    pages.run_started("home")  # the server moved the page itself (a follow's st.switch_page)
    assert pages.request(late) is late


def test_a_page_a_run_moved_to_keeps_the_link_the_server_wrote():
    """Seam entry `page_change`: a class's follow moves a student from the class page to the teacher's step
    (st.switch_page, then a run that writes walk_step=split and the rest into the link). A poll tick the browser sent
    before it had that run carries the class page's link; put on the walkthrough as a whole-app run with that link, the
    run started from a link without the step and nothing wrote it again: the student showed the step, the link never
    said it (a CI failure under load, `test_classmode_browser.py::test_a_whole_class`). The tick now runs with the link
    the server wrote last."""
    from streamlit.proto.ClientState_pb2 import ClientState
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    from ui.seam.page_change import Pages, run_event

    written = ForwardMsg(hash="q")
    written.page_info_changed.query_string = "class=K&member=m&walk_step=split&seq_len=6"
    assert run_event(written.SerializeToString()) == ("link", "class=K&member=m&walk_step=split&seq_len=6")

    pages = Pages()
    joined = ClientState(page_script_hash="class", query_string="class=K&member=m&lang=en")
    assert pages.request(joined) is joined
    pages.noted(("page", "class"))
    pages.noted(("link", "class=K&member=m&lang=en"))
    pages.noted(("begun", ""))  # the follow: the poll's run switches page, the next run writes the teacher's view
    pages.noted(("link", "class=K&member=m&walk_step=split&seq_len=6&lang=en"))
    pages.noted(("page", "walk"))
    tick = ClientState(page_script_hash="class", fragment_id="poll", query_string="class=K&member=m&lang=en")
    moved = pages.request(tick)
    assert (moved.page_script_hash, moved.fragment_id) == ("walk", "")
    assert moved.query_string == "class=K&member=m&walk_step=split&seq_len=6&lang=en"
    # The browser's own whole-app request names its link again: a tick then runs with the link it asked with.
    asked = ClientState(page_script_hash="heads", query_string="d_model=32")
    assert pages.request(asked) is asked
    late = ClientState(page_script_hash="walk", fragment_id="poll", query_string="walk_step=split")
    assert pages.request(late).query_string == "d_model=32"
    pages.noted(("page", "class"))  # a run moved to a page the browser did not ask for, writing no link since
    assert pages.request(late).query_string == "walk_step=split"  # the tick's own, as before


def test_a_rerun_of_fragments_waits_while_a_whole_app_run_has_not_chosen_its_page(monkeypatch):
    """Seam entry `page_change`: a class's follow changes page in two runs (the poll's whole-app run calls
    st.switch_page before st.navigation; the next run chooses the teacher's page). A poll tick sent from the page being
    left before the second run's st.navigation message went on as a fragment of the old page; Streamlit runs such a
    request after the running run, on the page it names (the canary below), and the student was back on the old page
    for good. The middleware now holds a request of fragments until the whole-app run has chosen its page, then puts it
    on that page; a fragment run, a run that ends, and PAGE_WAIT_S end the wait."""
    import asyncio

    from streamlit.proto.BackMsg_pb2 import BackMsg
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
    from streamlit.runtime.scriptrunner_utils.script_requests import RerunData, ScriptRequests

    from ui.seam import page_change
    from ui.seam.page_change import RerunOnThePageAsked, run_event

    # The canary: a request of fragments that comes while a whole-app run goes runs after it, on its own page.
    requests = ScriptRequests()  # a whole-app run going (CONTINUE)
    assert requests.request_rerun(RerunData(page_script_hash="class", fragment_id="poll"))
    assert requests.on_scriptrunner_yield() is None  # it does not stop the run ...
    after = requests.on_scriptrunner_ready().rerun_data  # ... and runs next, on the page it was sent from
    assert (after.page_script_hash, after.fragment_id_queue) == ("class", ["poll"]), "Streamlit changed: look again"

    def forward(kind: str, value: object = None) -> bytes:
        msg = ForwardMsg(hash="h")
        if kind == "begun":
            msg.new_session.page_script_hash = "app"  # the entrypoint's hash, before st.navigation chose
            msg.metadata.run.script_run_id = "r"
            msg.metadata.run.fragment_ids.extend(value or [])
        elif kind == "page":
            msg.metadata.delta_path.extend([0])
            msg.navigation.page_script_hash = value
        else:
            msg.script_finished = value
        return msg.SerializeToString()

    assert run_event(forward("begun")) == ("begun", "")
    assert run_event(forward("begun", ["poll"])) is None  # a fragment run changes no page
    assert run_event(forward("page", "walk")) == ("page", "walk")
    assert run_event(forward("ended", ForwardMsg.FINISHED_EARLY_FOR_RERUN)) is None  # st.switch_page: the next run
    assert run_event(forward("ended", ForwardMsg.FINISHED_SUCCESSFULLY)) == ("ended", "")
    assert run_event(b"\xff\xff") is None

    def tick(page: str) -> dict:
        msg = BackMsg()
        msg.rerun_script.page_script_hash = page
        msg.rerun_script.query_string = f"to={page}"
        msg.rerun_script.fragment_id = "poll"
        return {"type": "websocket.receive", "bytes": msg.SerializeToString()}

    async def follow(server_says: list[tuple[str, object]], then: list[tuple[str, object]]) -> tuple[list, list]:
        """The server sends `server_says`, the browser a poll tick from "class", the server `then` 50 ms later:
        (what Streamlit was handed, what had been sent when it was)."""
        sent, handed = [], []
        browser = [tick("class")]

        async def receive():
            return browser.pop(0) if browser else await asyncio.sleep(3600)

        async def send(message):
            sent.append(message["bytes"])

        async def streamlit(scope, receive, send):
            for kind, value in server_says:
                await send({"type": "websocket.send", "bytes": forward(kind, value)})

            async def later():
                await asyncio.sleep(0.05)
                for kind, value in then:
                    await send({"type": "websocket.send", "bytes": forward(kind, value)})

            task = asyncio.create_task(later())
            got = BackMsg.FromString((await receive())["bytes"]).rerun_script
            handed.append((got.page_script_hash, got.fragment_id, len(sent)))
            await task

        await RerunOnThePageAsked(streamlit)({"type": "websocket", "path": "/_stcore/stream"}, receive, send)
        return handed, sent

    def run(server_says, then):
        return run_async(follow(server_says, then))[0]

    # On "class": the poll's run stops for the page change (st.switch_page), the next run has begun, not chosen yet.
    on_class = [("page", "class"), ("begun", None), ("ended", ForwardMsg.FINISHED_EARLY_FOR_RERUN), ("begun", None)]
    # The tick waits for the teacher's page, and goes to a whole-app run of it (it was a fragment of "class").
    assert run(on_class, [("page", "walk")]) == [("walk", "", 5)]
    assert run([("page", "class")], [("page", "walk")]) == [("class", "poll", 1)]  # no run choosing: at once
    assert run([("page", "class"), ("begun", ["poll"])], []) == [("class", "poll", 2)]  # a fragment run: at once
    # A run that ends without choosing (an error before st.navigation): the page known so far, as sent.
    assert run(on_class, [("ended", ForwardMsg.FINISHED_SUCCESSFULLY)]) == [("class", "poll", 5)]
    monkeypatch.setattr(page_change, "PAGE_WAIT_S", 0.01)  # never more than PAGE_WAIT_S
    assert run(on_class, [("page", "walk")]) == [("class", "poll", 4)]


@pytest.mark.app
@pytest.mark.parametrize("page", ["heads", "why-heads"])
def test_every_setting_still_reaches_the_page(page):
    at = run_app(page, d_model=128, num_heads=8, seq_len=5, lang="en")
    assert not at.exception
    assert i18n.t("settings.d_k", "en", d_model=128, h=8, d_k=16) in [c.value for c in at.sidebar.caption]


def _deltas_of(page, paths: list, action) -> tuple[int, int]:
    """(deltas drawn in the sidebar, deltas in all) of the answer to `action`, once all of it is drawn."""
    paths.clear()
    before = page.evaluate("window.__alBatching.messages")
    action()
    page.wait_for_function("n => window.__alBatching.messages > n", arg=before)  # the answer has started
    wait_idle(page)
    wait_quiet(page)  # and all of it is drawn
    return sum(1 for p in paths if p and p[0] == SIDEBAR), len(paths)


def _key_on(page, thumb, key: str):
    return lambda: (thumb.focus(), page.keyboard.press(key))


@pytest.mark.browser
def test_a_settings_step_resends_only_the_live_part(server, page):
    open_app(page, server, "heads")
    cap = lambda h: i18n.t("settings.d_k", "en", d_model=64, h=h, d_k=64 // h)  # noqa: E731

    def messages(action) -> int:
        before = page.evaluate("window.__alBatching.messages")
        action()
        page.wait_for_function("n => window.__alBatching.messages > n", arg=before)  # the answer has started
        wait_idle(page)
        wait_quiet(page)  # and all of it is drawn
        return page.evaluate("window.__alBatching.messages") - before

    def step():
        thumb = sidebar_slider(page, 1)
        thumb.focus()
        page.keyboard.press("ArrowRight")
        expect(page.get_by_text(cap(8))).to_be_visible()

    def toggle():  # a display option: outside the fragment, so the whole app reruns
        page.get_by_text("Numbers in the cells").click()

    live, whole = messages(step), messages(toggle)
    # The language control, the display options (heading, 4 widgets), the page config, the style and the
    # navigation are not sent again on a settings step.
    assert live + 6 <= whole, (live, whole)
    expect(page.get_by_text(cap(8))).to_be_visible()
    assert page.locator("[data-testid=stSidebar] [data-testid=stSlider]").count() >= 3


@pytest.mark.browser
def test_a_page_widget_step_resends_no_shared_setting(server, page):
    """A widget on the page reruns only the page's fragment (app.py page_part): no element of the sidebar (the
    shared settings) is sent again; a settings step, the control, does send them."""
    paths = delta_paths(page)
    open_app(page, server, "positions", lang="en", pos_tab="rope", pos_pair=0)

    pair = page.locator("[data-testid=stMain] [data-testid=stSlider]").first.get_by_role("slider")
    in_sidebar, sent = _deltas_of(page, paths, _key_on(page, pair, "ArrowRight"))
    assert sent > 0 and in_sidebar == 0, (in_sidebar, sent)
    in_sidebar, sent = _deltas_of(page, paths, _key_on(page, sidebar_slider(page, 1), "ArrowRight"))
    assert in_sidebar > 0, (in_sidebar, sent)


@pytest.mark.browser
def test_a_seq_len_or_seed_step_resends_the_page_and_no_sidebar_element(server, page):
    """seq_len and the seed change nothing the sidebar shows: their step reruns only the page fragment (app.py
    _rerun_page). The sidebar keeps every setting and its values; the page shows the new value; d_model, which
    changes the heads offered and d_k, still re-sends the sidebar."""
    paths = delta_paths(page)
    open_app(page, server, "walkthrough", lang="en", seq_len=5)

    in_sidebar, sent = _deltas_of(page, paths, _key_on(page, sidebar_slider(page, 2), "ArrowRight"))  # seq_len 5 -> 6
    assert sent > 0 and in_sidebar == 0, (in_sidebar, sent)
    expect(sidebar_slider(page, 2)).to_have_value("6")
    expect(page.get_by_text("(1, 6, 64)").first).to_be_visible()  # the page's shapes follow the new length
    seed = page.locator("[data-testid=stSidebar] [data-testid=stNumberInput] input")
    in_sidebar, sent = _deltas_of(page, paths, lambda: (seed.fill("7"), seed.press("Enter")))
    assert sent > 0 and in_sidebar == 0, (in_sidebar, sent)
    assert "seed=7" in page.url and "seq_len=6" in page.url
    d_k = i18n.t("settings.d_k", "en", d_model=128, h=4, d_k=32)
    in_sidebar, sent = _deltas_of(
        page, paths, _key_on(page, sidebar_slider(page, 0), "ArrowRight")
    )  # d_model 64 -> 128: d_k changes
    assert in_sidebar > 0, (in_sidebar, sent)
    expect(page.locator("[data-testid=stSidebar]").get_by_text(d_k)).to_be_visible()
    expect(page.locator("[data-testid=stSidebar] [data-testid=stSlider]")).to_have_count(3)


@pytest.mark.browser
def test_a_seq_len_or_seed_step_resends_none_of_the_walkthroughs_choosers(server, page):
    """The walkthrough's title, view and step choosers and prev / next (ui/walk_nav.py) are a fragment of their own
    above the page (app.py nav_part): a step of seq_len or the seed reruns the page alone and sends none of them
    again, while a choice among them reruns the page below too (and the cell's story under it). They keep working after
    such a step."""
    paths = delta_paths(page)
    open_app(page, server, "walkthrough", lang="en", seq_len=5, walk_step="input")

    def main_blocks(action) -> set[int]:
        """The main area's top-level blocks the answer to `action` drew into."""
        in_sidebar, sent = _deltas_of(page, paths, action)
        assert sent > 0 and in_sidebar == 0, (in_sidebar, sent)
        return {p[1] for p in paths if len(p) > 1 and p[0] == 0}

    nav = page.locator(".st-key-walk_nav_row")
    # the choosers, the page, and the fragment below it (a step shows or hides the cell's story: ui/walk_drill.py)
    chose = main_blocks(lambda: nav.get_by_role("button", name="Next").click())
    expect(page).to_have_url(re.compile(r"walk_step=project"))
    assert len(chose) == 3, chose
    nav_block, page_block, below = sorted(chose)  # the choosers are drawn above the page, the story below it
    seed = page.locator("[data-testid=stSidebar] [data-testid=stNumberInput] input")
    for action in (
        _key_on(page, sidebar_slider(page, 2), "ArrowRight"),  # seq_len 5 -> 6
        lambda: (seed.fill("7"), seed.press("Enter")),
    ):
        assert main_blocks(action) == {page_block}
    assert "seed=7" in page.url and "seq_len=6" in page.url and "walk_step=project" in page.url
    expect(page.get_by_text("(1, 6, 64)").first).to_be_visible()  # the page follows the new length
    # The choosers still choose, and their choice still redraws the page below them.
    assert main_blocks(lambda: nav.get_by_role("button", name="Next").click()) == {nav_block, page_block, below}
    expect(page).to_have_url(re.compile(r"walk_step=split"))
    expect(page.get_by_text(i18n.t("walk.split.title", "en")).first).to_be_visible()
    pill = page.locator(".st-key-walk_step_shown").get_by_text(re.compile(r"^4 · "))
    assert main_blocks(lambda: pill.click()) == {nav_block, page_block, below}
    expect(page).to_have_url(re.compile(r"walk_step=scores"))
    expect(page.get_by_text(i18n.t("walk.scores.title", "en")).first).to_be_visible()


@pytest.mark.browser
def test_on_a_page_that_reads_no_setting_a_settings_step_sends_no_page_element(server, page):
    """Why many heads trains its own model and reads none of the shared settings (ui/navigation.SETTINGS_FREE_PAGES),
    and it runs as the whole app (its Stop must interrupt a training). A step of a setting there reruns the settings'
    fragment alone: nothing in the main area is sent again, the sidebar and the link follow the step, and the
    page's own widgets still rerun the whole app with the link intact."""
    paths = delta_paths(page)
    open_app(page, server, "why-heads", lang="en", seq_len=5)
    expect(page.get_by_text(i18n.t("why.seed", "en")).first).to_be_visible()
    seed = page.locator("[data-testid=stSidebar] [data-testid=stNumberInput] input")
    d_k = i18n.t("settings.d_k", "en", d_model=128, h=4, d_k=32)
    for action in (
        _key_on(page, sidebar_slider(page, 2), "ArrowRight"),  # seq_len 5 -> 6
        lambda: (seed.fill("7"), seed.press("Enter")),
        _key_on(page, sidebar_slider(page, 0), "ArrowRight"),  # d_model 64 -> 128: d_k changes
    ):
        in_sidebar, sent = _deltas_of(page, paths, action)
        assert sent > 0 and in_sidebar == sent, (in_sidebar, sent)
    expect(sidebar_slider(page, 2)).to_have_value("6")
    expect(page.locator("[data-testid=stSidebar]").get_by_text(d_k)).to_be_visible()
    link = current_link(page)
    assert "seq_len=6" in link and "seed=7" in link and "d_model=128" in link, link
    # The page's own widget: a whole-app run, which keeps every setting in the link.
    steps = page.locator("[data-testid=stMain] [data-testid=stNumberInput] input").first
    in_sidebar, sent = _deltas_of(page, paths, lambda: (steps.fill("3"), steps.press("Enter")))
    assert sent > in_sidebar > 0, (in_sidebar, sent)
    link = current_link(page)
    assert "why_seed=3" in link and "seq_len=6" in link and "seed=7" in link and "d_model=128" in link, link
    expect(sidebar_slider(page, 2)).to_have_value("6")


@pytest.mark.browser
def test_a_seq_len_or_seed_step_reruns_the_sections_live_part_alone(server, page):
    """Below a section's controls, the part a step of seq_len or the seed changes is a fragment of its own
    (ui/live_part.py), rerun alone on such a step: none of the controls above it is sent again, and what it draws is
    the new settings' (a heatmap cell's value read by hovering, the sentence naming the tokens). A widget inside it
    reruns it alone too and is read there; a widget above it reruns the whole page. The link keeps every value."""
    from core.positions import ROPE_BASE
    from lessons import positions as L
    from lessons.settings import Settings

    paths = delta_paths(page)
    open_app(page, server, "positions", lang="en", pos_tab="rope", seq_len=5, pos_pair=1)
    chart = page.locator(".al-chart").first  # the RoPE grid

    def shows(seq_len: int, seed: int, pair: int, grid: int) -> None:
        s = Settings(d_model=64, num_heads=4, seq_len=seq_len, mask="none", seed=seed, lang="en")
        v = L.rope_view(s, s.d_k, ROPE_BASE, 0, grid, pair, 3)
        said = i18n.t("pos.rope.source.scenario", "en", q=v.q_token, k=v.k_token, h=v.head, dk=v.d_k)
        expect(page.get_by_text(said)).to_be_visible()
        chart.scroll_into_view_if_needed()
        x, y = chart.evaluate("el => el.__alChart.cellPoint(0, 2, 1)")
        page.mouse.move(x, y)
        expect(chart.locator(".al-tip")).to_contain_text(f"{float(v.grid.panels[0].values[2, 1]):.4f}")
        dims = i18n.t("pos.pair.numbers", "en", **L.rope_numbers(v)["pair"]).split(" (")[0]
        expect(page.get_by_text(dims, exact=False).first).to_be_visible()

    main_slider = page.locator("[data-testid=stMain] [data-testid=stSlider]")
    grid = main_slider.first.get_by_role("slider")
    in_sidebar, whole = _deltas_of(page, paths, _key_on(page, grid, "ArrowRight"))  # above: the page's fragment
    assert in_sidebar == 0 and whole > 0, (in_sidebar, whole)
    shows(5, 0, 1, 17)
    in_sidebar, live = _deltas_of(page, paths, _key_on(page, sidebar_slider(page, 2), "ArrowRight"))  # seq_len 5 -> 6
    # not sent again: the section's heading, the section chooser, the row of d_k, base and grid, and the head's slider
    assert in_sidebar == 0 and 0 < live <= whole - 6, (in_sidebar, live, whole)
    shows(6, 0, 1, 17)
    seed = page.locator("[data-testid=stSidebar] [data-testid=stNumberInput] input")
    in_sidebar, live = _deltas_of(page, paths, lambda: (seed.fill("7"), seed.press("Enter")))
    assert in_sidebar == 0 and 0 < live <= whole - 6, (in_sidebar, live, whole)
    shows(6, 7, 1, 17)
    pair = main_slider.filter(has_text=i18n.t("pos.pair", "en")).get_by_role("slider")  # inside the live part
    in_sidebar, sent = _deltas_of(page, paths, _key_on(page, pair, "ArrowRight"))
    assert in_sidebar == 0 and 0 < sent <= whole - 6, (in_sidebar, sent, whole)
    shows(6, 7, 2, 17)
    link = current_link(page)
    for kept in ("seq_len=6", "seed=7", "pos_tab=rope", "pos_pair=2", "pos_grid=17"):
        assert kept in link, (kept, link)
    page.reload()  # the link draws the same
    shows(6, 7, 2, 17)


@pytest.mark.browser
def test_a_seq_len_step_down_settles_the_live_parts_row_and_tile_step_again(server, page):
    """Softmax's live part holds the controls whose range follows T (the row, the tile step): a step of seq_len reruns
    it alone, and there a row past the new T is moved back (the slider and the sentence say the new row); the tile
    walk's step slider offers the new walk's steps."""
    paths = delta_paths(page)
    open_app(page, server, "softmax", lang="en", soft_tab="max", seq_len=6, soft_row=5)
    row = page.locator("[data-testid=stMain] [data-testid=stSlider]").filter(has_text=i18n.t("softmax.ctl.row", "en"))
    expect(row.get_by_role("slider")).to_have_value("5")
    in_sidebar, sent = _deltas_of(page, paths, _key_on(page, sidebar_slider(page, 2), "ArrowLeft"))  # seq_len 6 -> 5
    assert in_sidebar == 0 and sent > 0, (in_sidebar, sent)
    expect(row.get_by_role("slider")).to_have_value("4")
    expect(row.get_by_role("slider")).to_have_attribute("max", "4")
    expect(page.get_by_text(re.compile(r"^Row 4 is the query"))).to_be_visible()
    assert "seq_len=5" in current_link(page)
    # The link says what the page shows: row 4 is T=5's last row, the key's default, so the link leaves it out (it
    # kept soft_row=5, and opening it showed a correction notice).
    expect(page).not_to_have_url(re.compile(r"soft_row="))
    page.reload()
    expect(row.get_by_role("slider")).to_have_value("4")
    wait_idle(page)
    expect(page.get_by_text("soft_row=")).to_have_count(0)  # no "soft_row=5 is not valid" notice

    open_app(page, server, "softmax", lang="en", soft_tab="tiles", seq_len=8, soft_bq=4, soft_bk=4)
    step = page.locator("[data-testid=stMain] [data-testid=stSlider]").filter(has_text=i18n.t("softmax.ctl.step", "en"))
    expect(step.get_by_role("slider")).to_have_attribute("max", "4")  # 2 x 2 tiles
    _deltas_of(page, paths, _key_on(page, sidebar_slider(page, 2), "ArrowRight"))  # seq_len 8 -> 9: 3 x 3 tiles
    expect(step.get_by_role("slider")).to_have_attribute("max", "9")


@pytest.mark.browser
def test_kv_decodes_next_token_after_steps_of_seq_len_stops_at_the_new_length(server, page):
    """The decode section's live part: its "next token" button, drawn in the live part, goes up to the new T after a
    step of seq_len up (its callback gets T from the run that drew it, not from the page's last run), and a step of
    seq_len down moves a decode step past the new T back."""
    paths = delta_paths(page)
    open_app(page, server, "kv-cache", lang="en", kv_tab="decode", seq_len=5, kv_step=5)
    sliders = page.locator("[data-testid=stMain] [data-testid=stSlider]")
    step = sliders.filter(has_text=re.compile(r"^Decode step t")).get_by_role("slider")
    nxt = page.get_by_role("button", name=i18n.t("kv.dec.next", "en"))
    expect(step).to_have_value("5")
    expect(nxt).to_be_disabled()  # the last token
    in_sidebar, sent = _deltas_of(page, paths, _key_on(page, sidebar_slider(page, 2), "ArrowRight"))  # seq_len 5 -> 6
    assert in_sidebar == 0 and sent > 0, (in_sidebar, sent)
    expect(step).to_have_attribute("max", "6")
    expect(nxt).to_be_enabled()
    nxt.click()
    expect(step).to_have_value("6")
    expect(nxt).to_be_disabled()
    _deltas_of(page, paths, _key_on(page, sidebar_slider(page, 2), "ArrowLeft"))  # seq_len 6 -> 5
    expect(step).to_have_attribute("max", "5")
    expect(step).to_have_value("5")
    expect(nxt).to_be_disabled()
    expect(page).to_have_url(re.compile(r"kv_step=5(&|$)"))  # the link says the step the page shows, not 6


@pytest.mark.browser
def test_a_seq_len_step_on_the_heads_page_redraws_its_live_part_and_tracks_the_last_h(server, page):
    """Heads and shapes: the open section, with the sentence saying the settings above it, is the page's live part. A
    step of seq_len sends neither the title, the intro nor the section chooser again, and the sentence says the new
    T; the shapes section's "h changed from ... to ..." is tracked in the live part too, so a step of T (a new
    shape) ends it."""
    paths = delta_paths(page)
    open_app(page, server, "heads", lang="en", heads_tab="shapes", seq_len=5)
    now = lambda h, T: i18n.t("heads.now", "en", d_model=64, h=h, d_k=64 // h, T=T)  # noqa: E731
    expect(page.get_by_text(now(4, 5))).to_be_visible()
    in_sidebar, sent = _deltas_of(page, paths, _key_on(page, sidebar_slider(page, 1), "ArrowRight"))  # h 4 -> 8
    whole = sent - in_sidebar  # the page's fragment, all of it (and the settings in the sidebar)
    expect(page.get_by_text(now(8, 5))).to_be_visible()
    expect(page.get_by_text(i18n.t("heads.flow.changed", "en", prev=4, h=8))).to_be_visible()
    in_sidebar, live = _deltas_of(page, paths, _key_on(page, sidebar_slider(page, 2), "ArrowRight"))  # seq_len 5 -> 6
    assert in_sidebar == 0 and 0 < live <= whole - 3, (in_sidebar, live, whole)
    expect(page.get_by_text(now(8, 6))).to_be_visible()
    expect(page.get_by_text(i18n.t("heads.flow.try", "en"))).to_be_visible()  # T changed: no "h changed" any more
    assert "seq_len=6" in current_link(page)


@pytest.mark.browser
def test_the_masks_labs_section_is_live_until_a_control_follows_t(server, page):
    """Masks lab: with no control whose range follows T, the open section is the page's live part and a step of seq_len
    sends none of the controls again (the shapes sentence says the new T); with padding chosen (its slider goes up to
    T) the step reruns the page, controls and all, and the padding slider offers the new T."""
    paths = delta_paths(page)
    open_app(page, server, "masks", lang="en", masks_tab="polarity", seq_len=5)
    setup = lambda T: f"(self-attention, T = {T})"  # noqa: E731  (masks.bug.setup)
    expect(page.get_by_text(setup(5), exact=False)).to_be_visible()
    in_sidebar, live = _deltas_of(page, paths, _key_on(page, sidebar_slider(page, 2), "ArrowRight"))  # seq_len 5 -> 6
    assert in_sidebar == 0 and live > 0, (in_sidebar, live)
    expect(page.get_by_text(setup(6), exact=False)).to_be_visible()

    open_app(page, server, "masks", lang="en", masks_tab="polarity", seq_len=5, masks_extra="padding")
    pad = page.locator("[data-testid=stMain] [data-testid=stSlider]").filter(has_text=i18n.t("masks.pad", "en"))
    expect(pad.get_by_role("slider")).to_have_attribute("max", "5")
    in_sidebar, whole = _deltas_of(page, paths, _key_on(page, sidebar_slider(page, 2), "ArrowRight"))  # seq_len 5 -> 6
    assert in_sidebar == 0 and whole >= live + 5, (in_sidebar, live, whole)  # the controls' box came too
    expect(pad.get_by_role("slider")).to_have_attribute("max", "6")
    expect(page.get_by_text(setup(6), exact=False)).to_be_visible()
