"""Class mode's Streamlit glue: the sidebar's class section, the projector (pages/class.py), joining, following
the teacher and voting. Everything kept is in the class store (classroom/, a database), so a reload, a phone
that slept or a server restart comes back to the same class with its answers.

The link carries who you are: `class` (the code), `member` (a student's random id: a reload rejoins) or `teacher`
(the teacher key: only the teacher's own link has it). app.py calls four functions:
- apply_pending()  first in a run: enter the class the link names; apply the teacher's view a poll brought
- panel(url_path)  after st.navigation: the sidebar's class section, the poll, a student's question
- publish(url_path) at the end of a run: the teacher's view to the class; the class keys kept in the address bar

Following works through two functions only, read_view() and apply_view(): the page and its neutral values as a
flat dict of strings (the shared settings but the language, the page's own URL keys, the hand-drawn grid).
"""

from __future__ import annotations

import html
import io
import json
import time
from collections.abc import Callable
from urllib.parse import urlsplit

import segno
import streamlit as st
from sqlalchemy.exc import SQLAlchemyError
from streamlit.errors import StreamlitAPIException

import i18n
from charts.diagrams import class_bars_html
from classroom import ClassError, open_store
from classroom import questions as CQ
from classroom.beacon import Beacons, beacons_for
from classroom.beacon import content as beacon_content
from classroom.limits import CHOICES_MAX, CHOICES_MIN, NICKNAME_MAX
from lessons import quiz as Q
from lessons import url_keys as URL_KEYS
from lessons.export import GRID_PARAM
from ui import url_state
from ui.words import word

CLASS_KEY, MEMBER_KEY, TEACHER_KEY = URL_KEYS.CLASS
CLASS_PAGE = "class"
STATE = "_classmode"  # this session's class: code, teacher key or member id, following, what it has seen
PENDING = "_classmode_view"  # the teacher's view a poll brought, applied at the start of the next run
FOLLOWED = "_classmode_followed"  # the same, on the page the student is on: applied by the first fragment that runs
POLL_SECONDS = 1.0  # the teacher's poll (its counts), and every poll without a browser (AppTest)
FILE_SECONDS = 0.5  # a student's browser fetches the class's version file this often (free: nginx serves it)
FALLBACK_SECONDS = 10.0  # and checks with the server at least this often (the "still here" mark, a stale file)
# A follow's values undone within this time (by a request the browser sent before it had them) are applied again.
UNDONE_SECONDS = 2 * FALLBACK_SECONDS
UNDONE_TIMES = 3  # and at most this often (a value the page itself corrects is not fought for ever)
# A poll reads the class's status through the process's shared copy, at most this old: the polls of all the
# sessions of one process then cost one read every STATUS_MAX_AGE, not one per session each second.
STATUS_MAX_AGE = 0.25
# Each student keeps their own language and display options (a palette for colour blindness, a table view); the
# class keys are who one is, never sent to the class.
NOT_FOLLOWED = frozenset(("lang", *URL_KEYS.DISPLAY, *URL_KEYS.CLASS))


def page_file(url_path: str) -> str:
    return f"pages/{url_path or 'home'}.py"  # app.py's PAGES: the file name equals the url_path


def class_state() -> dict:
    return st.session_state.setdefault(STATE, {})


def _t(lang: str) -> Callable[..., str]:
    return lambda key, **kw: i18n.t(key, lang, **kw)


def _lang() -> str:
    lang = st.session_state.get("lang")
    return lang if lang in i18n.LANGS else i18n.DEFAULT_LANG


def _store():
    return open_store()


def _refusal(reason: str, given: object = "") -> tuple[str, dict]:
    return reason, {"given": i18n.plain(given), "n": NICKNAME_MAX}


def _say_refusal(refusal: tuple[str, dict] | None, lang: str) -> None:
    if refusal:
        reason, fmt = refusal
        st.warning(i18n.t(f"class.error.{reason}", lang, **fmt), icon=":material/block:")


def _acting() -> dict:
    """The session's class state as an action (a click, a new link) starts: the last action's refusal is dropped.
    A refusal is said at the top of every whole-page run until then, not once: a whole-page rerun (the teacher's
    next move, a new question) can stop the run that drew it, and a message of a stopped run is never sent."""
    s = class_state()
    s.pop("error", None)
    return s


def _call(fn, *args, given: object = ""):
    """(result, None) or (None, refusal): a ClassError's reason, or "database" when the store is unreachable."""
    try:
        return fn(*args), None
    except ClassError as e:
        return None, _refusal(e.reason, given)
    except SQLAlchemyError:
        return None, _refusal("database")


# ------------------------------------------------------------------ the view: read / apply (neutral values)


def read_view(url_path: str) -> dict[str, object]:
    """The current page and its state as the class should see them: ui/url_state.page_state (the one declarative
    page state: the shared settings, the page's own keys, the hand-drawn grid while in use) without what stays
    each student's own (NOT_FOLLOWED)."""
    state = url_state.page_state(url_path)
    return {"page": url_path, **{k: v for k, v in state.items() if k not in NOT_FOLLOWED}}


def _shown_view(url_path: str) -> dict[str, object]:
    """read_view as the store keeps a view (tuples are lists), to compare with the teacher's."""
    return json.loads(json.dumps(read_view(url_path)))


def apply_view(view: dict, current_page: str | None, only: frozenset[str] | None = None) -> None:
    """Make this session show `view` (first in a run, before any widget is drawn): its state through
    ui/url_state.request_page_state (checked as a link's values are, then settled by the page's one loop), and
    its page. A key of the page that the view lacks (the teacher's page at that key's default) is forgotten, so
    the follower's page falls back to the default too. `only`: the keys in which the view differs from this
    session's page state (a follow on the same page): the others already hold the view's values and are left alone,
    so a follow writes no value and no link parameter it does not change."""
    if not isinstance(view, dict):
        return
    page = view.get("page")
    if page not in URL_KEYS.PAGE_KEYS:
        return
    state = {k: v for k, v in view.items() if k != "page" and k not in NOT_FOLLOWED and (only is None or k in only)}
    gone = [k for k in URL_KEYS.PAGE_KEYS[page] if k not in state and (only is None or k in only)]
    if gone:
        _forget(gone)
    url_state.request_page_state(state)
    if page != current_page:
        # Applied at the top of the new page's run (apply_requested runs first in app.py).
        st.switch_page(page_file(page), query_params=_class_params())
    url_state.apply_requested()  # this run: app.py's own call has passed already


def _forget(keys: list[str]) -> None:
    """Page keys back to their defaults: their widget state, any page's kept copy (ui/url_state.kept) and the
    link. (One pass over session state for all of them: each pass presents every value the session holds.)"""
    stores = [
        value
        for name, value in st.session_state.to_dict().items()
        if str(name).endswith("_kept") and isinstance(value, dict)
    ]
    for key in keys:
        st.session_state.pop(key, None)
        for store in stores:
            store.pop(key, None)
        try:
            if key in st.query_params:
                del st.query_params[key]
        except StreamlitAPIException:
            pass


# ------------------------------------------------------------------ entering a class from the link


def _class_params() -> dict[str, str]:
    s = class_state()
    out = {}
    if s.get("code"):
        out[CLASS_KEY] = s["code"]
    if s.get("key"):
        out[TEACHER_KEY] = s["key"]
    if s.get("member"):
        out[MEMBER_KEY] = s["member"]
    return out


def _adopt_link() -> None:
    """The class the link names, once per distinct link: a teacher's key, a student's id (a reload rejoins), or
    just a code (the join form opens with it)."""
    s = class_state()
    link = tuple(st.query_params.get(k) for k in URL_KEYS.CLASS)
    raw_code, raw_member, raw_key = link
    if raw_code is None and link != s.get("link") and (raw_member is not None or raw_key is not None):
        s = _acting()
        s["link"] = link  # a student id or a teacher key without a class: said, and dropped from the link
        s["error"] = _refusal("no_class", raw_member if raw_member is not None else raw_key)
        for key in (MEMBER_KEY, TEACHER_KEY):
            if key in st.query_params:
                del st.query_params[key]
        return
    if raw_code is None or link == s.get("link") or raw_code == s.get("code") and (s.get("key") or s.get("member")):
        return
    s = _acting()
    s["link"] = link
    info, refusal = _call(_store().find, raw_code, given=raw_code)
    if refusal:
        s.clear()
        s["error"] = refusal
        s["link"] = link
        return
    code = info.code
    if raw_key is not None:
        if _store().is_teacher(code, raw_key):
            s.update(code=code, key=raw_key, member=None)
            return
        s["error"] = _refusal("not_teacher", raw_key)
    if raw_member is not None:
        member, refusal = _call(_store().member, code, raw_member, given=raw_member)  # rejoin only, never a new id
        if member is not None:
            _enter_as_student(code, member)
            return
        s["error"] = refusal  # an id this class does not know: the join form
    s.update(code=code, key=None, member=None)


def _enter_as_student(code: str, member) -> None:
    s = class_state()
    s.update(code=code, key=None, member=member.member_id, nickname=member.nickname, following=member.following)
    s["rerun_app"] = True
    s["seen"] = -1  # the first poll brings the teacher's view


def apply_pending() -> None:
    """First thing in app.py's run, before any settings widget."""
    try:
        _adopt_link()
    except SQLAlchemyError:
        class_state()["error"] = _refusal("database")
    view = st.session_state.pop(PENDING, None)
    s = class_state()
    if view is not None and s.get("member") and s.get("following"):
        same_page = isinstance(view, dict) and view.get("page") == s.get("page")
        apply_view(view, s.get("page"))
        if same_page:  # a page change is seen once its run is over: the next check finds nothing left to change
            _applied(view=view)


def _undone(s: dict) -> dict | None:
    """The teacher's view applied moments ago when a value it set has been undone since, else None. Why: the browser
    sends every widget's value with each request; one it sent before it had the follow's values (a poll tick, under
    load) came back as a change of those widgets to their old values, and Streamlit took them (the page then showed the
    old step again, the follow seen: 1 of 3 students, about 1 follow in 70 under load). A following student's own
    change of a followed value in that time is undone too: the student follows."""
    applied = s.get("applied")
    if not applied:
        return None
    version, view, at, again = applied
    if (
        version != s.get("seen")
        or time.monotonic() - at > UNDONE_SECONDS
        or view.get("page") != s.get("page")
        or again >= UNDONE_TIMES
    ):
        s.pop("applied", None)
        return None
    mine = _shown_view(s["page"])
    if all(mine.get(k) == v for k, v in view.items() if k != "page" and k not in NOT_FOLLOWED):
        return None
    s["applied"] = (version, view, at, again + 1)
    s["fetched"] = version  # applied again as a fetched view is
    return view


def _applied(version: int | None = None, view: dict | None = None) -> None:
    """The teacher's view `version` (by default the one the poll fetched last) is applied, or found already shown:
    seen. Not when it is fetched: a follow lost on its way (a run stopped, sent to another page, or failing) is
    fetched and applied again at the next check (at most FALLBACK_SECONDS later) instead of never."""
    s = class_state()
    fetched = s.pop("fetched", None)
    if version is None:
        version = fetched
    if version is not None:
        s["seen"] = version
        if isinstance(view, dict):
            # When first applied: a follow applied again (the values undone) does not lengthen the watch.
            before = s.get("applied")
            at, again = before[2:] if before and before[0] == version else (time.monotonic(), 0)
            s["applied"] = (version, view, at, again)


# ------------------------------------------------------------------ actions (widget callbacks)


def _start() -> None:
    s = _acting()
    made, refusal = _call(_store().create_class)
    if refusal:
        s["error"] = refusal
        return
    code, key = made
    s.clear()
    s.update(code=code, key=key, member=None, published=None, rerun_app=True)


def _join(code_key: str, nick_key: str) -> None:
    s = _acting()
    raw_code, nickname = st.session_state.get(code_key), st.session_state.get(nick_key) or None
    member, refusal = _call(_store().join, raw_code, s.get("member"), nickname, given=raw_code)
    if refusal:
        s["error"] = refusal
        return
    _enter_as_student(_store().find(raw_code).code, member)


def _leave() -> None:
    class_state().clear()
    for key in URL_KEYS.CLASS:
        if key in st.query_params:
            del st.query_params[key]
    class_state().update(link=(None, None, None), rerun_app=True)


def _end() -> None:
    s = _acting()
    code = s.get("code")
    _, refusal = _call(_store().end_class, code, s.get("key"))
    s["error"] = refusal
    if refusal is None:
        beacons = _beacons() if code and st.context.url else None
        if beacons is not None:
            beacons.gone(code)  # the members' next fetch is refused: their check says the class ended
        _leave()


def _set_following(following: bool) -> None:
    s = _acting()
    _, refusal = _call(_store().set_following, s.get("code"), s.get("member"), following)
    if refusal:
        s["error"] = refusal
        return
    s["following"] = following
    s["rerun_app"] = True
    if following:
        s["seen"] = -1  # back to the teacher's view at once
        s.pop("fetched", None)


def _ask(kind: str, build: Callable[[], tuple[dict, dict]]) -> None:
    """Put a question to the class: `build()` makes its spec and answer key from the teacher's controls (a value
    it cannot use is said, never asked)."""
    s = _acting()
    try:
        spec, answer_key = build()
    except (TypeError, ValueError):
        s["error"] = _refusal("bad_question")
        return
    _, s["error"] = _call(_store().ask, s.get("code"), s.get("key"), kind, spec, answer_key)
    _signal(s.get("code"))


def _ask_quiz(index_key: str) -> None:
    def build():
        from ui.shell import current_settings  # the settings as app.py settled them in this run

        settings = current_settings()
        grid = st.query_params.get(GRID_PARAM) if settings.mask == "custom" else None
        return CQ.quiz_spec(settings, grid, int(st.session_state.get(index_key)) - 1)

    _ask("quiz", build)


def _ask_choice(count_key: str, right_key: str) -> None:
    right = st.session_state.get(right_key)
    _ask("choice", lambda: CQ.choice_spec(int(st.session_state.get(count_key)), right if right != "-" else None))


def _teacher_act(action: str, question_id: int) -> None:
    s = _acting()
    s["rerun_app"] = True  # the whole page again: the export's record and the controls follow the action
    store = _store()
    if action == "second":
        _, s["error"] = _call(store.second_round, s.get("code"), s.get("key"), question_id)
    else:
        _, s["error"] = _call(store.set_state, s.get("code"), s.get("key"), question_id, action)
    _signal(s.get("code"))


def _vote(question, input_key: str) -> None:
    s = _acting()
    graded = CQ.grade(question.kind, question.spec, question.answer_key, st.session_state.get(input_key))
    if not graded.ok:
        s["vote_error"] = (question.id, graded.error)
        return
    s.pop("vote_error", None)
    counted, refusal = _call(
        _store().vote,
        s.get("code"),
        s.get("member"),
        question.id,
        question.round,
        graded.answer,
        graded.correct,
        graded.mistake,
    )
    # Said by the question panel on every redraw until the next vote, not once at the top: the teacher's next
    # question reruns the whole page at once, and a message drawn only in the run that the rerun stopped is never
    # sent (seen with 120 students: votes refused "closed" without a word on the student's screen).
    s["vote_refused"] = None if refusal is None else (question.number, refusal)
    if refusal is None and not counted:
        s["vote_note"] = (question.id, question.round)


# ------------------------------------------------------------------ drawing


def panel(url_path: str, lang: str) -> None:
    """The sidebar's class section, the poll, and (a student off the class page) the current question above the
    page. One call from app.py after st.navigation."""
    s = class_state()
    s["page"] = url_path
    s.pop("rerun_app", None)  # this is a whole-app run already
    t = _t(lang)
    main = st.container()  # above the page, in the main area: a phone shows the sidebar collapsed
    with main:
        _say_refusal(s.get("error"), lang)  # until the next action (_acting)
    with st.sidebar:
        st.subheader(t("class.sidebar.header"))
        if s.get("key"):
            st.caption(t("class.teacher", code=s["code"]))
            if url_path != CLASS_PAGE:
                st.page_link(page_file(CLASS_PAGE), label=t("class.projector"), icon=":material/co_present:")
            _poll(lang)
        elif s.get("member"):
            st.caption(t("class.joined", code=s["code"]))
            _follow_buttons(t, "side")
            _poll(lang)
        else:
            st.button(t("class.start"), on_click=_start, key="cm_start", help=t("class.start.help"))
            st.page_link(page_file(CLASS_PAGE), label=t("class.join"), icon=":material/group_add:")
    if s.get("member") and url_path != CLASS_PAGE:
        with main:
            _question_part(lang)


QUESTION_PART = "class_question"  # the student's question: a fragment, so a new question or a reveal reruns it alone


@st.fragment(key=QUESTION_PART)
def _question_part(lang: str) -> None:
    _student_question(lang)


def _follow_buttons(t, where: str) -> None:
    s = class_state()
    if s.get("following"):
        st.caption(t("class.following"))
        st.button(t("class.explore"), on_click=_set_following, args=(False,), key=f"cm_explore_{where}")
    else:
        st.caption(t("class.exploring"))
        st.button(t("class.follow"), on_click=_set_following, args=(True,), key=f"cm_follow_{where}", type="primary")


# The poll: a component with nothing to show whose script sets a trigger, so the check runs in its callback, where
# a keyed st.rerun may name what reruns (a fragment's body may not): a follow on the same page reruns the settings
# and page fragments only, not the whole app. A student's script fetches the class's version file
# (classroom/beacon.py) every FILE_SECONDS and sets the trigger only when its text changed, with the text: a check
# that would find nothing new costs the app nothing (nginx serves the file). It also sets it every FALLBACK_SECONDS
# whatever the file says: a file missing or stale, a fetch that fails, the "still here" mark. The teacher's sets it
# every POLL_SECONDS (its counts).
_POLL_JS = """
export default function (component) {
  const {parentElement, setTriggerValue, data} = component;
  const win = (parentElement.ownerDocument || document).defaultView || window;
  if (win.__alPoll) win.__alPoll();
  const d = data || {};
  const every = 1000 * (d.url ? d.every : d.seconds || 1);
  // The server answers a new text with new data (its `last`), which starts this function again: an instance still
  // running RETRY_MS after it sent one got no answer (a trigger lost while another run was going; the student then
  // followed only at the fallback tick, 8.5 s late, once in CI), so it sends the text again, at most RETRIES times.
  const RETRY_MS = 1500, RETRIES = 3;
  let n = 0, last = d.last, busy = false, ticked = Date.now(), stopped = false;
  let asked = 0, tries = 0;  // when the file's new text was last sent, how often: no answer yet (see below)
  const tick = (value) => { ticked = Date.now(); setTriggerValue("tick", value); };
  const timer = win.setInterval(async () => {
    if (!parentElement.isConnected) { stop(); return; }
    if (!d.url) { tick(++n); return; }
    if (Date.now() - ticked >= 1000 * d.seconds) tick(++n);
    if (busy) return;
    busy = true;
    try {
      const r = await win.fetch(d.url, {cache: "no-store", credentials: "same-origin"});
      const text = r.ok ? await r.text() : "status " + r.status;
      if (stopped) return;
      const changed = text !== last, again = tries && tries < RETRIES && Date.now() - asked >= RETRY_MS;
      if (changed) { last = text; tries = 0; }
      if (changed || again) { asked = Date.now(); tries += 1; tick(text); }
    } catch (e) {
      // the fallback tick covers it
    } finally {
      busy = false;
    }
  }, every);
  const stop = () => { stopped = true; win.clearInterval(timer); if (win.__alPoll === stop) win.__alPoll = null; };
  win.__alPoll = stop;
  return stop;
}
"""
POLL = st.components.v2.component("attention_lab.class_poll", js=_POLL_JS)
POLL_KEY = "cm_poll"
# A follow that changes one of these reruns the settings fragment too (its widgets must show the new value); a
# follow that changes only the page's own keys (a walkthrough step) reruns the page (and its navigation, when it
# shows one of them) alone.
_SIDEBAR_KEYS = frozenset((*URL_KEYS.SETTINGS, URL_KEYS.GRID))


def fragment_parts(
    parts: tuple[str, ...] | None,
    nav_keys: frozenset[str] = frozenset(),
    step_parts: dict[str, str] | None = None,
    tail: Callable[[frozenset[str]], tuple[str, ...]] | None = None,
) -> None:
    """app.py, each whole-app run: the keys of its settings fragment, then the page's (the page, and its navigation
    when it has one), when this page runs in them (None: a page that runs whole, or no fragments), for a same-page
    follow to rerun just those; `nav_keys`, the URL keys the navigation shows (it shows no shared setting);
    `step_parts`, the settings that have a fragment of their own inside the settings' (key -> the fragment's key,
    in the order they are drawn): a follow that changes only those reruns them instead of all the settings; `tail`,
    the fragments below the page that a follow reruns too, asked at the follow with the keys it changed (the downloads
    section while open, the walkthrough's cell's story while open or when the follow changed a key it shows)."""
    s = class_state()
    s["parts"], s["nav_keys"], s["step_parts"], s["tail"] = parts, nav_keys, dict(step_parts or {}), tail


@st.fragment
def _poll(lang: str) -> None:
    """The poll's component (its callback, _polled, is the check) and, for the teacher, the class's counts: the
    component's trigger reruns this fragment (the teacher's once a second; a student's when the class's version file
    changed, or at the slow fallback), drawing nothing new unless the counts changed."""
    s = class_state()
    if s.get("key"):
        counts = _call(_store().counts, s.get("code"))[0]
        if counts is not None:
            st.caption(i18n.t("class.counts", lang, **counts.__dict__))
    if not st.context.url:  # no browser (streamlit.testing's AppTest): nothing sends the trigger; check each run
        _polled()
    data: dict[str, object] = {"seconds": POLL_SECONDS}
    if s.get("member") and st.context.url:
        beacons = _beacons()
        if beacons is not None:
            beacons.watch(s["code"])
            data = {"seconds": FALLBACK_SECONDS, "every": FILE_SECONDS, "url": beacons.url_of(s["code"])}
            data["last"] = s.get("beacon")
    POLL(key=POLL_KEY, data=data, on_tick_change=_polled)


def _beacons() -> Beacons | None:
    """The process's class version files (classroom/beacon.py); None when they cannot be written (a read-only
    checkout): the browser then falls back to the slow poll, and a missing file is refetched each time."""
    try:
        return beacons_for(_store())
    except OSError:
        return None


def _signal(code: str | None) -> None:
    """The teacher moved: the class's version file says so now, from this process (the other processes' threads
    write the same within WATCH_EVERY). Browser sessions only: AppTest's students check each run."""
    beacons = _beacons() if code and st.context.url else None
    if beacons is not None:
        try:
            beacons.seen(code, _store().status(code))
        except (ClassError, SQLAlchemyError):
            pass


def _tick() -> object:
    """The value the poll's script sent: the version file's text when it changed (a str), else a count."""
    value = st.session_state.get(POLL_KEY)
    try:
        return value["tick"] if value is not None else None
    except (KeyError, TypeError):
        return getattr(value, "tick", None)


def _polled() -> None:
    """Has the teacher moved, or the question changed? A follow on the page the student is on reruns only the settings
    and page fragments (the page alone when no shared setting changed), which take the teacher's values before their
    widgets are drawn (apply_followed); a new question, round or reveal reruns the question's fragment (with them).
    A new page, a refusal, a page that runs whole: the whole app runs again. Nothing new: only the poll fragment
    reruns."""
    s = class_state()
    code = s.get("code")
    if not code:
        return
    store = _store()
    status, refusal = _call(store.status, code, STATUS_MAX_AGE, given=code)
    if refusal:
        _leave()
        s["error"] = refusal
        st.rerun()
    if not s.get("member"):
        return  # the teacher: the fragment's body draws the counts
    if st.context.url:
        tick = _tick()
        if isinstance(tick, str) and tick != beacon_content(status):
            # The file says more than this process's shared status (read up to STATUS_MAX_AGE ago): read it now.
            status, refusal = _call(store.status, code, given=code)
            if refusal:
                _leave()
                s["error"] = refusal
                st.rerun()
        s["beacon"] = beacon_content(status)
        beacons = _beacons()
        if beacons is not None:
            beacons.watch(code, status)
    _call(store.mark_seen, code, s["member"])
    whole = False
    sig = (status.question, status.round, status.state)
    if sig != s.get("sig"):
        whole = s.get("sig") is not None
        s["sig"] = sig
    view = None
    if s.get("following") and status.view_version != s.get("seen"):
        got = _call(store.view, code, status.view_version)[0]
        if got is not None:
            s["fetched"] = got[0]
            view = got[1] or None
            if view is None:
                _applied()  # nothing to show
    elif s.get("following"):
        view = _undone(s)
    if view is None and not whole:
        return
    parts = s.get("parts")
    # A new question, round or state changes only the question's fragment (above the page, off the class page).
    question = [QUESTION_PART] if whole and s.get("page") != CLASS_PAGE else None
    if (whole and not question) or not parts or not st.context.url:
        if view is not None:
            st.session_state[PENDING] = view
        st.rerun()
    if view is not None and (not isinstance(view, dict) or view.get("page") != s.get("page")):
        st.session_state[PENDING] = view
        st.rerun()
    if view is None:
        st.rerun(question)
    mine = _shown_view(s["page"])
    changed = {k for k in set(view) | set(mine) if k != "page" and k not in NOT_FOLLOWED and view.get(k) != mine.get(k)}
    if not changed:
        _applied()
        if question:
            st.rerun(question)
        return
    # Applied by the first fragment that runs (apply_followed), not here: a widget value set in a callback does not
    # reach a bound widget's URL parameter, and the follower's link must say the teacher's step (a reload keeps it).
    st.session_state[FOLLOWED] = (view, frozenset(changed), s.get("fetched"))
    # What a student's own change of the same keys would rerun: the settings only for a shared setting, the page's
    # navigation (drawn after the page) only for a key it shows.
    settings, page, *after = parts
    sidebar, steps = changed & _SIDEBAR_KEYS, s.get("step_parts") or {}
    first = [part for key, part in steps.items() if key in sidebar] if sidebar <= steps.keys() else [settings]
    below = list(s["tail"](frozenset(changed))) if s.get("tail") else []
    st.rerun((question or []) + first + [page] + after * bool(changed & s.get("nav_keys", frozenset())) + below)


def apply_followed() -> None:
    """app.py, first in its settings and page fragments: the teacher's view the poll's callback found on this page."""
    followed = st.session_state.pop(FOLLOWED, None)
    s = class_state()
    if followed is not None and s.get("member") and s.get("following"):
        view, changed, version = followed
        if view.get("page") != s.get("page"):
            return  # found for a page since left (a newer view changed page): the next check fetches the newest
        apply_view(view, s.get("page"), only=changed)
        _applied(version, view)


def publish(url_path: str) -> None:
    """End of a run: keep the class keys in the address bar (a reload rejoins); a teacher's view goes to the
    class when it changed."""
    s = class_state()
    if not s.get("code"):
        return
    for key, value in _class_params().items():
        if st.query_params.get(key) != value:
            st.query_params[key] = value
    if s.get("key") and url_path != CLASS_PAGE:
        view = read_view(url_path)
        if view != s.get("published"):
            _, refusal = _call(_store().set_view, s["code"], s["key"], view)
            if refusal is None:
                s["published"] = view
                _signal(s["code"])


# ------------------------------------------------------------------ questions and results


def _question_words(question, lang: str):
    """(prompt markdown, label of an answer's canonical text, mistake text of one) in `lang`."""
    t = _t(lang)
    if question.kind == "choice":
        return t("class.ask.choice.prompt"), (lambda answer: str(CQ.decode(answer))), (lambda answer: None)
    q, _ = CQ.quiz_question(question.spec, lang)

    def label(answer: str) -> str:
        try:
            return word(Q.format_value(q, CQ.decode(answer)), t)
        except (TypeError, ValueError, KeyError, IndexError):
            return answer

    def mistake(answer: str):
        words = Q.mistake_text(q, CQ.decode(answer))
        return None if words is None else word(words, t)

    return word(Q.prompt_text(q), t), label, mistake


def _right_text(question, label) -> str | None:
    right = question.answer_key.get("right")
    return None if right is None else label(right)


def _bars(bars, label, right_label: str | None, lang: str) -> None:
    """One round's distribution, big enough to read from the back of a room; the right answer marked."""
    total = sum(b.count for b in bars)
    if not total:
        st.caption(i18n.t("class.no_votes", lang))
        return
    marked = right_label is not None
    st.html(
        BAR_CSS
        + class_bars_html(
            [
                (
                    i18n.literal(label(b.answer).replace("`", ""), 40),
                    b.correct and marked,
                    100 * b.count / total,
                    b.count,
                )
                for b in bars
            ]
        )
    )


def _mistakes(bars, mistake, lang: str) -> None:
    counted: dict[str, int] = {}
    for b in bars:
        if not b.correct and b.mistake:
            text = mistake(b.answer)
            if text:
                counted[text] = counted.get(text, 0) + b.count
    for text, n in sorted(counted.items(), key=lambda kv: -kv[1]):
        st.markdown(f"**{i18n.t('class.mistake.count', lang, n=n)}** {text}")


def _results(question, lang: str) -> None:
    """The reveal: each round's distribution (side by side after a second vote), the right answer, the named
    known mistakes with how many made each."""
    t = _t(lang)
    store, code = _store(), class_state().get("code")
    _, label, mistake = _question_words(question, lang)
    right = _right_text(question, label)
    st.markdown(f"**{t('class.right', answer=right)}**" if right else t("class.right.none"))
    rounds = list(range(1, question.round + 1))
    cols = st.columns(len(rounds))
    for col, r in zip(cols, rounds):
        bars = _call(store.tally, code, question.id, r)[0] or []
        with col:
            if len(rounds) > 1:
                st.markdown(f"#### {t('class.round1' if r == 1 else 'class.round2')}")
            _bars(bars, label, right, lang)
            _mistakes(bars, mistake, lang)


def _answer_input(question, lang: str, key: str) -> None:
    t = _t(lang)
    if question.kind == "choice":
        st.radio(t("quiz.your_answer"), question.spec["options"], index=None, key=key, horizontal=True)
        return
    q, tokens = CQ.quiz_question(question.spec, lang)
    if q.answer_type == "choice":
        st.radio(
            t("quiz.your_answer"), q.options, index=None, key=key, format_func=lambda o: word(Q.option_text(q, o), t)
        )
    elif q.answer_type == "cells":
        st.pills(
            t("quiz.your_answer"),
            q.options,
            selection_mode="multi",
            key=key,
            format_func=lambda j: word(Q.option_text(q, j, tokens), t),
        )
    else:
        hint = word(Q.hint_text(q), t)
        st.text_input(t("quiz.your_answer"), key=key, placeholder=hint, max_chars=120)
        st.caption(hint)


def _student_question(lang: str) -> None:
    """The current question on a student's screen: answer it, see it counted, and after the reveal the class's
    answers. Its input keeps what was typed across reruns (a keyed widget)."""
    s = class_state()
    t = _t(lang)
    store, code, member = _store(), s.get("code"), s.get("member")
    status, refusal = _call(store.status, code, STATUS_MAX_AGE)
    question, refusal = (None, refusal) if refusal else _call(store.current_question, code, status)
    if refusal:
        _say_refusal(refusal, lang)
        return
    # What this screen shows: the poll's check (a callback, a second or so later) reruns the page when it changes.
    s["sig"] = (status.question, status.round, status.state)
    refused = s.get("vote_refused")
    if refused:
        number, (reason, fmt) = refused
        st.warning(f"{t('class.question', n=number)}: {t('class.error.' + reason, **fmt)}", icon=":material/block:")
    if question is None:
        return
    with st.container(border=True, key="cm_question"):
        head = "class.question.round2" if question.round == 2 else "class.question"
        st.markdown(f"### {t(head, n=question.number)}")
        prompt, label, _ = _question_words(question, lang)
        st.markdown(prompt)
        mine = _call(store.my_votes, code, member, question.id)[0] or {}
        vote = mine.get(question.round)
        if question.state == "open" and vote is None:
            key = f"cm_in_{question.id}_{question.round}"
            with st.form(f"cm_form_{question.id}_{question.round}", border=False):
                _answer_input(question, lang, key)
                st.form_submit_button(
                    t("class.vote.submit"), type="primary", on_click=_vote, args=(question, key), icon=":material/send:"
                )
            error = s.get("vote_error")
            if error and error[0] == question.id:
                why = error[1]
                st.warning(
                    t(f"class.error.{why}")
                    if isinstance(why, str)
                    else t("quiz.not_counted") + word(Q.error_text(why), t),
                    icon=":material/edit_note:",
                )
        elif vote is not None:
            note = s.get("vote_note") == (question.id, question.round)
            given = i18n.plain(label(vote.answer), 40)
            st.success(
                t("class.vote.already" if note else "class.vote.counted", given=given), icon=":material/how_to_vote:"
            )
            if question.state == "open":
                st.caption(t("class.vote.wait"))
        else:
            st.info(t("class.vote.closed"), icon=":material/lock:")
        if question.state == "revealed":
            last = mine.get(question.round) or mine.get(1)
            if last is not None and question.answer_key.get("right") is not None:
                st.markdown(t("class.vote.you_right") if last.correct else t("class.vote.you_wrong"))
            _results(question, lang)


# ------------------------------------------------------------------ the class page (pages/class.py)

BAR_CSS = (
    "<style>.cm-bars{font-family:sans-serif;margin:.3rem 0}.cm-row{display:flex;align-items:center;gap:.6rem;"
    "margin:.35rem 0}.cm-lab{flex:0 0 34%;font-size:clamp(16px,2.2vw,34px);font-weight:600;overflow-wrap:anywhere}"
    ".cm-track{flex:1;background:#eee;height:clamp(22px,3vw,48px);border-radius:4px}.cm-bar{height:100%;"
    "background:#7a7a7a;border-radius:4px}.cm-right{background:#1b7f3b}.cm-n{flex:0 0 3.5em;text-align:right;"
    "font-size:clamp(18px,2.4vw,38px);font-weight:700}</style>"
)
BIG_CSS = (
    "<style>.cm-code{font:700 clamp(64px,11vw,200px)/1 monospace;letter-spacing:.12em;color:#111}"
    ".cm-url{font:600 clamp(16px,2vw,32px) monospace;overflow-wrap:anywhere;color:#111}"
    ".cm-count{font:700 clamp(22px,3vw,48px) sans-serif;color:#111}.cm-qr svg{width:100%;height:auto;"
    "max-width:420px;background:#fff}.cm-join{font:600 clamp(16px,1.8vw,30px) sans-serif;color:#333}"
    # The question, the right answer and the named mistakes on the projector: read from the back of the room.
    ".st-key-cm_live p{font-size:clamp(18px,1.9vw,34px);line-height:1.35}"
    "</style>"
)


def _base_url() -> str:
    parts = urlsplit(st.context.url or "")
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme and parts.netloc else ""


def class_page(ctx) -> None:
    s = class_state()
    if s.pop("rerun_app", False):
        # A class was entered or left from a button of this page, which runs inside app.py's page fragment: the
        # sidebar's class section and its poll are outside it, so the whole app runs once more.
        st.rerun(scope="app")
    t = ctx.t
    st.title(t("page.class"))
    if s.get("key"):
        _projector(ctx)
    elif s.get("member"):
        st.markdown(f"### {t('class.joined', code=s['code'])}")
        if s.get("nickname"):
            st.text(t("class.joined.as") + " " + s["nickname"])  # inert text: never markdown or HTML
        _follow_buttons(t, "page")
        right, answered = _call(_store().score, s["code"], s["member"])[0] or (0, 0)
        st.metric(t("class.score"), t("class.score.value", right=right, answered=answered))
        _student_question(ctx.lang)
        st.button(t("class.leave"), on_click=_leave, key="cm_leave")
    else:
        with st.form("cm_join"):
            st.markdown(f"### {t('class.join')}")
            if s.get("code"):
                st.session_state.setdefault("cm_code", s["code"])
            st.text_input(t("class.join.code"), key="cm_code", max_chars=12, help=t("class.join.code.help"))
            st.text_input(
                t("class.join.nickname"),
                key="cm_nick",
                max_chars=NICKNAME_MAX,
                help=t("class.join.nickname.help", n=NICKNAME_MAX),
            )
            st.form_submit_button(t("class.join.button"), type="primary", on_click=_join, args=("cm_code", "cm_nick"))
        st.divider()
        st.button(t("class.start"), on_click=_start, key="cm_start_page", help=t("class.start.help"))


def _projector(ctx) -> None:
    s = class_state()
    t, lang, code = ctx.t, ctx.lang, s["code"]
    join_url = f"{_base_url()}/{CLASS_PAGE}?{CLASS_KEY}={code}"
    st.html(BIG_CSS)
    left, right = st.columns([3, 2], vertical_alignment="center")
    with left:
        st.html(f"<div class='cm-join'>{html.escape(t('class.big.join'))}</div>")
        st.html(f"<div class='cm-code' aria-label='{html.escape(code)}'>{html.escape(code)}</div>")
        st.html(f"<div class='cm-url'>{html.escape(join_url)}</div>")
        _live_counts(lang)
    with right:
        # A PNG drawn here by segno (st.html drops inline SVG): black on white, 2 modules of quiet zone.
        png = io.BytesIO()
        segno.make(join_url, error="m").save(png, kind="png", scale=12, border=2, dark="#000", light="#fff")
        st.image(png.getvalue(), caption=t("class.qr.alt"), width=420)
    with st.expander(t("class.teacher.link")):
        st.code(f"{_base_url()}/{CLASS_PAGE}?{CLASS_KEY}={code}&{TEACHER_KEY}={s['key']}", language=None)
    _live_question(lang)
    st.subheader(t("class.ask.header"))
    quiz_col, choice_col = st.columns(2)
    with quiz_col:
        from ui.shell import current_settings

        settings = current_settings()
        grid = st.query_params.get(GRID_PARAM) if settings.mask == "custom" else None
        questions, _ = CQ.quiz_set(*CQ._args(CQ.settings_dict(settings), lang, grid))
        st.number_input(t("class.ask.quiz"), 1, len(questions), 1, key="cm_quiz_number")
        number = st.session_state.get("cm_quiz_number") or 1
        st.caption(word(Q.prompt_text(questions[min(max(int(number), 1), len(questions)) - 1]), t))
        st.button(t("class.ask.quiz.button"), on_click=_ask_quiz, args=("cm_quiz_number",), key="cm_ask_quiz")
    with choice_col:
        st.number_input(t("class.ask.choice.options"), CHOICES_MIN, CHOICES_MAX, 4, key="cm_choice_n")
        n = st.session_state.get("cm_choice_n") or 4
        letters = ["-", *CQ.LETTERS[: int(n)]]
        # Radios, not select boxes: one click, and no open list for the projector's once-a-second redraws to close.
        st.radio(
            t("class.ask.choice.right"),
            letters,
            key="cm_choice_right",
            horizontal=True,
            format_func=lambda x: t("class.ask.choice.none") if x == "-" else x,
        )
        st.button(
            t("class.ask.choice.button", last=CQ.LETTERS[int(n) - 1]),
            on_click=_ask_choice,
            args=("cm_choice_n", "cm_choice_right"),
            key="cm_ask_choice",
        )
    st.divider()
    # Built in this run, as bytes: a file made when clicked (a callable) was dropped by the once-a-second fragment
    # runs before the browser fetched it (Chromium: "download canceled"). Every teacher action (ask, close,
    # reveal, second vote) runs the whole page again, so the record is the one as of the last action.
    csv_bytes = (_call(_store().export_csv, code, s["key"])[0] or "").encode("utf-8-sig")  # BOM: UTF-8 in a spreadsheet
    st.download_button(
        t("class.export"),
        csv_bytes,
        file_name=f"class-{code}.csv",
        mime="text/csv",
        help=t("class.export.help"),
        key="cm_export",
        on_click="ignore",  # no rerun: a rerun re-registers the file and the browser's download is cancelled
        icon=":material/download:",
    )
    st.button(t("class.end"), on_click=_end, key="cm_end", help=t("class.end.help"))


@st.fragment(run_every=POLL_SECONDS)
def _live_counts(lang: str) -> None:
    counts = _call(_store().counts, class_state().get("code"))[0]
    if counts is not None:
        st.html(f"<div class='cm-count'>{html.escape(i18n.t('class.counts', lang, **counts.__dict__))}</div>")


@st.fragment(run_every=POLL_SECONDS)
def _live_question(lang: str) -> None:
    """The current question on the projector: its live count while open, the teacher's buttons, the results."""
    s = class_state()
    if s.pop("rerun_app", False):  # a teacher's button of this fragment was clicked
        st.rerun(scope="app")
    t = _t(lang)
    store, code = _store(), s.get("code")
    question = _call(store.current_question, code)[0]
    if question is None:
        return
    with st.container(border=True, key="cm_live"):
        head = "class.question.round2" if question.round == 2 else "class.question"
        st.markdown(f"## {t(head, n=question.number)} · {t('class.state.' + question.state)}")
        prompt, _, _ = _question_words(question, lang)
        st.markdown(prompt)
        n = _call(store.vote_count, code, question.id, question.round)[0] or 0
        counts = _call(store.counts, code)[0]
        connected = counts.connected if counts else 0
        st.html(f"<div class='cm-count'>{html.escape(t('class.answers.of', n=n, connected=connected))}</div>")
        b1, b2, b3 = st.columns(3)
        b1.button(
            t("class.close"),
            on_click=_teacher_act,
            args=("closed", question.id),
            disabled=question.state != "open",
            key="cm_close",
        )
        b2.button(
            t("class.reveal"),
            on_click=_teacher_act,
            args=("revealed", question.id),
            disabled=question.state == "revealed",
            key="cm_reveal",
            type="primary",
        )
        b3.button(
            t("class.second"),
            on_click=_teacher_act,
            args=("second", question.id),
            disabled=question.round >= 2 or question.state == "open",
            key="cm_second",
        )
        if question.state == "revealed":
            _results(question, lang)
