"""ui/seam/client_batching.js in Chromium: its rules on a stand-in socket, and the real server's pages using it."""

from __future__ import annotations

import pytest
from conftest import open_app, sidebar_slider, wait_idle
from playwright.sync_api import expect

import i18n
from ui.seam.client_batching import SCRIPT_FILE

pytestmark = pytest.mark.browser

# A WebSocket stand-in: an EventTarget the test dispatches events on (the script patches the prototype).
FAKE = """
window.WebSocket = class WebSocket extends EventTarget {};
window.msg = i => new MessageEvent('message', {data: i});
window.sleep = ms => new Promise(r => setTimeout(r, ms));
// ForwardMsgs on the wire, reduced to the one top-level field the script reads (protobuf: tag, then a varint or
// an empty message): a new run, a delta, the link, a run's end (its status), the session's status.
const fm = bytes => new MessageEvent('message', {data: new Uint8Array(bytes).buffer});
window.run = () => fm([0x22, 0]);  // new_session (field 4)
window.delta = () => fm([0x2a, 0]);  // delta (field 5)
window.link = () => fm([0x62, 0]);  // page_info_changed (field 12)
window.finished = status => fm([0x30, status]);  // script_finished (field 6): 2 early for a rerun, 3 a fragment's
window.statusChanged = () => fm([0x4a, 0]);  // session_status_changed (field 9)
window.navigation = () => fm([0xba, 0x01, 0]);  // navigation (field 23: a whole-app run chose its page)
"""


@pytest.fixture
def blank(page):
    page.set_content("<html><head></head><body></body></html>")
    page.add_script_tag(content=FAKE)
    page.add_script_tag(content=SCRIPT_FILE.read_text())
    return page


def test_a_burst_is_delivered_in_order_in_one_task(blank):
    got = blank.evaluate("""async () => {
        const ws = new WebSocket(), seen = [];
        ws.addEventListener('message', e => seen.push(e.data));
        for (let i = 0; i < 40; i++) ws.dispatchEvent(msg(i));
        const before = seen.length;
        await sleep(30);
        return {before, seen, stats: window.__alBatching};
    }""")
    assert got["before"] == 0  # held for the quiet period...
    assert got["seen"] == list(range(40))  # ...then all of them, in order
    assert got["stats"]["flushes"] == 1 and got["stats"]["largest"] == 40


def test_a_long_stream_still_arrives_while_it_lasts(blank):
    got = blank.evaluate("""async () => {
        const ws = new WebSocket(), at = [];
        ws.addEventListener('message', e => at.push([e.data, performance.now()]));
        const t0 = performance.now();
        for (let i = 0; i < 40; i++) { ws.dispatchEvent(msg(i)); await sleep(2); }  // never quiet for 3 ms
        const during = at.length;
        await sleep(30);
        return {during, n: at.length, order: at.map(a => a[0]), flushes: window.__alBatching.flushes};
    }""")
    assert got["order"] == list(range(40))
    assert got["during"] > 0 and got["flushes"] >= 2  # at most MAX_HOLD_MS (20 ms) behind, not after the stream


def test_a_script_run_is_one_delivery_even_with_a_gap_inside_it(blank):
    """The run's end came a few ms after its last delta: delivered apart, the page rendered twice a step."""
    got = blank.evaluate("""async () => {
        const ws = new WebSocket(), seen = [];
        ws.addEventListener('message', e => seen.push(new Uint8Array(e.data)[0]));
        const t0 = performance.now();
        ws.dispatchEvent(run()); ws.dispatchEvent(statusChanged()); ws.dispatchEvent(delta());
        await sleep(12);  // quiet for longer than QUIET_MS: the run is still open
        const inGap = seen.length, gap = performance.now() - t0;
        ws.dispatchEvent(delta()); ws.dispatchEvent(link()); ws.dispatchEvent(finished(3));
        const beforeEnd = seen.length;
        ws.dispatchEvent(statusChanged());  // the run's last message: delivered at once
        const atEnd = seen.slice();
        // until the held link is handed over (the renderer idle), at most 1 s: a loaded machine (the CI's browser
        // tier, 2 workers) was not idle within a fixed 60 ms
        for (let i = 0; i < 100 && window.__alLinkPending; i++) await sleep(10);
        return {inGap, gap, beforeEnd, atEnd, seen, flushes: window.__alBatching.flushes};
    }""")
    if got["gap"] < 40:  # RUN_HOLD_MS: a machine that stalled longer than it delivers what it holds (as it should)
        assert got["inGap"] == 0 and got["flushes"] == 1
    assert got["beforeEnd"] == got["inGap"]  # nothing delivered between the gap and the run's end
    assert got["atEnd"] == [0x22, 0x4A, 0x2A, 0x2A, 0x30, 0x4A]  # all of it, in order, but the link...
    assert got["seen"] == got["atEnd"] + [0x62]  # ...which comes after the paint


def test_a_run_stopped_for_a_rerun_is_delivered_with_the_rerun(blank):
    """A step's callback reruns the page's fragment: the first run ends early for that rerun, which follows."""
    got = blank.evaluate("""async () => {
        const ws = new WebSocket(), seen = [];
        ws.addEventListener('message', e => seen.push(new Uint8Array(e.data)[0]));
        const t0 = performance.now();
        ws.dispatchEvent(run()); ws.dispatchEvent(statusChanged());
        ws.dispatchEvent(finished(2)); ws.dispatchEvent(statusChanged());
        await sleep(8);
        const afterFirst = seen.length, gap = performance.now() - t0;
        ws.dispatchEvent(run()); ws.dispatchEvent(statusChanged()); ws.dispatchEvent(delta());
        ws.dispatchEvent(finished(3)); ws.dispatchEvent(statusChanged());
        return {afterFirst, gap, n: seen.length, flushes: window.__alBatching.flushes};
    }""")
    if got["gap"] < 40:
        assert got["afterFirst"] == 0 and got["flushes"] == 1
    assert got["n"] == 9


def test_the_link_is_handed_over_after_the_paint_and_before_anything_that_reads_it(blank):
    """page_info_changed (Streamlit's client writes it into the address bar at once) waits for the paint: handled
    in the middle of a step's delivery, it cost the step 8-13 ms. It is handed over before the
    socket's next delivery, on a key or pointer press (before the press's own handlers), and a Back or Forward
    (popstate) drops it."""
    got = blank.evaluate("""async () => {
        const ws = new WebSocket(), seen = [];
        ws.addEventListener('message', e => seen.push(new Uint8Array(e.data)[0]));
        const frame = async () => {  // until the held link is handed over (the renderer idle), at most 1 s
            for (let i = 0; i < 100 && window.__alLinkPending; i++) await sleep(10);
        };
        const step = () => { ws.dispatchEvent(run()); ws.dispatchEvent(delta()); ws.dispatchEvent(link());
                             ws.dispatchEvent(finished(0)); ws.dispatchEvent(statusChanged()); };
        const out = {};
        step();
        out.held = [seen.slice(), window.__alLinkPending];
        let painted = false;
        requestAnimationFrame(() => { painted = seen.length; });  // what had been delivered when the frame began
        await frame(); await frame();
        out.painted = painted; out.after = [seen.slice(), window.__alLinkPending];
        seen.length = 0;
        step();
        let inKey = null;
        window.addEventListener('keydown', () => { inKey = seen.slice(); });
        window.dispatchEvent(new KeyboardEvent('keydown', {key: 'ArrowRight'}));
        out.onKey = [inKey, window.__alLinkPending];
        seen.length = 0;
        step(); step();  // the next delivery hands the older link over first
        out.next = [seen.slice(), window.__alLinkPending];
        await frame(); await frame();
        seen.length = 0;
        step();
        window.dispatchEvent(new PopStateEvent('popstate'));
        await frame(); await frame();
        out.dropped = [seen.slice(), window.__alLinkPending];
        return out;
    }""")
    run = [0x22, 0x2A, 0x30, 0x4A]
    assert got["held"] == [run, True]
    assert got["painted"] == 4  # the frame was drawn before the link came
    assert got["after"] == [run + [0x62], False]
    assert got["onKey"] == [run + [0x62], False]  # the key's own handlers read the new link
    assert got["next"] == [run + [0x62] + run, True]
    assert got["dropped"] == [run, False]


def test_without_requestidlecallback_the_link_follows_the_next_frame(page):
    """Safari has no requestIdleCallback: the link waits for the next frame instead (or LINK_WAIT_MS)."""
    page.set_content("<html><head></head><body></body></html>")
    page.add_script_tag(content=FAKE + "window.requestIdleCallback = undefined;")
    page.add_script_tag(content=SCRIPT_FILE.read_text())
    got = page.evaluate("""async () => {
        const ws = new WebSocket(), seen = [];
        ws.addEventListener('message', e => seen.push(new Uint8Array(e.data)[0]));
        ws.dispatchEvent(run()); ws.dispatchEvent(link()); ws.dispatchEvent(finished(0));
        ws.dispatchEvent(statusChanged());
        const held = seen.slice();
        await sleep(150);
        return {held, seen, pending: window.__alLinkPending};
    }""")
    assert got == {"held": [0x22, 0x30, 0x4A], "seen": [0x22, 0x30, 0x4A, 0x62], "pending": False}


def test_a_long_run_still_shows_its_deltas_while_it_lasts(blank):
    got = blank.evaluate("""async () => {
        const ws = new WebSocket(), at = [];
        ws.addEventListener('message', e => at.push(performance.now()));
        ws.dispatchEvent(run());
        const t0 = performance.now();
        while (performance.now() - t0 < 250) { ws.dispatchEvent(delta()); await sleep(5); }
        const during = at.length;
        ws.dispatchEvent(finished(0)); ws.dispatchEvent(statusChanged());
        return {during, n: at.length, flushes: window.__alBatching.flushes};
    }""")
    assert got["during"] > 0 and got["flushes"] >= 2  # at most RUN_HOLD_MS (40 ms) behind, not after the run


def test_a_whole_app_runs_link_comes_in_its_runs_delivery_and_a_fragments_waits_for_the_paint(blank):
    """A whole-app run (its navigation message follows its new_session) may change the page: Streamlit's client
    writes the new path in a callback of that run's React commit, with the query its state holds then. A link handed
    over after the delivery but before the commit (a busy machine, the idle wait timed out) went to the page being
    left, and the new page's address lost the link's values (test_grid_link_browser, the slow machine). In the run's
    own delivery, its state update joins the same commit. A fragment's run changes no page: its link waits."""
    got = blank.evaluate("""async () => {
        const ws = new WebSocket(), seen = [];
        ws.addEventListener('message', e => seen.push(new Uint8Array(e.data)[0]));
        const ends = () => { ws.dispatchEvent(finished(0)); ws.dispatchEvent(statusChanged()); };
        const out = {};
        // Streamlit's own link (the query it was opened with) comes before the navigation message
        ws.dispatchEvent(run()); ws.dispatchEvent(link()); ws.dispatchEvent(navigation()); ws.dispatchEvent(delta());
        ws.dispatchEvent(link()); ends();
        out.whole = [seen.splice(0), window.__alLinkPending];
        ws.dispatchEvent(run()); ws.dispatchEvent(delta()); ws.dispatchEvent(link()); ends();
        out.fragment = [seen.splice(0), window.__alLinkPending];
        for (let i = 0; i < 100 && window.__alLinkPending; i++) await sleep(10);
        out.fragmentLater = seen.splice(0);
        // a long whole-app run: delivered in two parts (RUN_HOLD_MS), its link in the second, still not held
        ws.dispatchEvent(run()); ws.dispatchEvent(navigation());
        await sleep(250);
        out.firstPart = seen.splice(0);
        ws.dispatchEvent(delta()); ws.dispatchEvent(link()); ends();
        out.secondPart = [seen.splice(0), window.__alLinkPending];
        return out;
    }""")
    # every link in order (the newer last: it is the one the address bar keeps), none held
    assert got["whole"] == [[0x22, 0x62, 0xBA, 0x2A, 0x62, 0x30, 0x4A], False]
    assert got["fragment"] == [[0x22, 0x2A, 0x30, 0x4A], True]
    assert got["fragmentLater"] == [0x62]
    assert got["firstPart"] == [0x22, 0xBA]
    assert got["secondPart"] == [[0x2A, 0x62, 0x30, 0x4A], False]


def test_a_finished_run_with_no_status_after_it_and_unreadable_bytes_fall_back_to_the_quiet_rule(blank):
    got = blank.evaluate("""async () => {
        const ws = new WebSocket(), seen = [];
        ws.addEventListener('message', e => seen.push(1));
        ws.dispatchEvent(run()); ws.dispatchEvent(delta()); ws.dispatchEvent(finished(3));
        await sleep(15);  // ended: no hold for the run any more
        const ended = seen.length;
        ws.dispatchEvent(new MessageEvent('message', {data: new Uint8Array([0x2f, 1, 2]).buffer}));  // wire type 7
        await sleep(15);
        return {ended, n: seen.length};
    }""")
    assert got == {"ended": 3, "n": 4}


def test_close_and_error_listeners_run_after_the_messages_before_them(blank):
    got = blank.evaluate("""async () => {
        const ws = new WebSocket(), log = [];
        ws.addEventListener('message', e => log.push('m' + e.data));
        ws.addEventListener('close', () => log.push('close'));
        ws.addEventListener('error', () => log.push('error'));
        ws.dispatchEvent(msg(1)); ws.dispatchEvent(msg(2)); ws.dispatchEvent(new Event('error'));
        ws.dispatchEvent(msg(3)); ws.dispatchEvent(new Event('close'));
        await sleep(30);
        return log;
    }""")
    assert got == ["m1", "m2", "error", "m3", "close"]


def test_remove_duplicate_other_events_and_hidden_tab(blank):
    got = blank.evaluate("""async () => {
        const ws = new WebSocket(), a = [], b = [], opened = [];
        const fa = e => a.push(e.data), fb = e => b.push(e.data);
        ws.addEventListener('message', fa); ws.addEventListener('message', fa);  // twice: once
        ws.addEventListener('message', fb);
        ws.addEventListener('open', () => opened.push(performance.now()));
        ws.dispatchEvent(msg(1)); ws.removeEventListener('message', fb);  // what came before is still delivered
        ws.dispatchEvent(msg(2)); ws.dispatchEvent(new Event('open'));
        const openedAtOnce = opened.length;
        await sleep(30);
        Object.defineProperty(document, 'hidden', {value: true, configurable: true});
        ws.dispatchEvent(msg(3));
        const hiddenAtOnce = a.slice();
        return {a, b, openedAtOnce, hiddenAtOnce};
    }""")
    assert got["a"] == [1, 2, 3] and got["b"] == [1]
    assert got["openedAtOnce"] == 1  # only "message" is held
    assert got["hiddenAtOnce"] == [1, 2, 3]  # a hidden tab's timers are throttled: no holding there


def test_the_app_loads_with_it_and_a_slider_step_is_one_delivery(page, server):
    cap = lambda h: i18n.t("settings.d_k", "en", d_model=64, h=h, d_k=64 // h)  # noqa: E731
    open_app(page, server, "heads")
    expect(page.get_by_text(cap(4))).to_be_visible()
    assert page.evaluate("Object.keys(window.__alBatching)") == ["flushes", "messages", "largest"]
    for key, h in (("ArrowRight", 8), ("ArrowLeft", 4)):
        before = page.evaluate("({...window.__alBatching})")
        thumb = sidebar_slider(page, 1)
        thumb.focus()
        page.keyboard.press(key)  # one press moves it (tests/test_settling_browser.py: none is lost while settling)
        expect(page.get_by_text(cap(h))).to_be_visible()
        wait_idle(page)
        page.wait_for_function("n => window.__alBatching.messages - n >= 20", arg=before["messages"])
        after = page.evaluate("({...window.__alBatching})")
        messages, flushes = after["messages"] - before["messages"], after["flushes"] - before["flushes"]
        assert messages >= 20  # the rerun's messages all went through it...
        # ...in a few deliveries (one per burst the server's flushes make), not one per message
        assert flushes * 2 <= messages, (messages, flushes)
