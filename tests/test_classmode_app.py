"""Class mode in the app (AppTest, no browser): hostile links get a clear message and change nothing; a teacher's
link is a teacher's only with the right key; a student's link rejoins; a follower takes the teacher's view."""

from __future__ import annotations

import time

import pytest
from conftest import run_app

from classroom import open_store

pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.fixture
def store(tmp_path, monkeypatch):
    monkeypatch.setenv("ATTENTION_LAB_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("ATTENTION_LAB_DATABASE_URL", raising=False)
    return open_store()


def texts(at) -> str:
    parts = [
        e.value for kind in ("warning", "markdown", "caption", "text", "success", "info") for e in getattr(at, kind)
    ]
    return "\n".join(str(p) for p in parts)


@pytest.mark.app
def test_a_wrong_code_and_markup_get_a_clear_message(store):
    for given, words in (("AAAAA", "no class with the code"), ("<b>x</b>", "is not a class code")):
        at = run_app("class", lang="en", **{"class": given})
        assert not at.exception
        assert any(words in w.value for w in at.warning), [w.value for w in at.warning]
        assert "<b>" not in texts(at).replace("` <b>x</b> `", "")


@pytest.mark.app
def test_an_expired_class(store):
    code, key = store.create_class()
    store.end_class(code, key)
    at = run_app("class", lang="en", **{"class": code})
    assert any("has ended" in w.value for w in at.warning)


@pytest.mark.app
def test_a_forged_teacher_key_never_opens_the_projector(store):
    code, key = store.create_class()
    forged = key[:-1] + ("x" if key[-1] != "x" else "y")
    at = run_app("class", lang="en", **{"class": code, "teacher": forged})
    assert not at.exception
    assert any("is not this class's teacher key" in w.value for w in at.warning)
    assert not [b for b in at.button if b.label.startswith("Reveal") or b.label.startswith("Ask")]
    assert key not in texts(at)
    teacher = run_app("class", lang="en", **{"class": code, "teacher": key})
    assert any(b.label == "Ask A–D" for b in teacher.button)


@pytest.mark.app
def test_a_students_link_rejoins_and_an_unknown_id_does_not_become_a_student(store):
    code, _ = store.create_class()
    m = store.join(code, None, "Ann")
    at = run_app("class", lang="en", **{"class": code, "member": m.member_id})
    assert "In class " + code in texts(at)
    stranger = run_app("class", lang="en", **{"class": code, "member": "A" * 16})
    assert any("student id" in w.value for w in stranger.warning)
    assert store.counts(code).members == 1


@pytest.mark.app
def test_a_key_without_a_class_is_said_and_ignored(store):
    at = run_app(None, lang="en", member="<script>x</script>")
    assert any("but no class code" in w.value for w in at.warning)


@pytest.mark.app
def test_a_follower_takes_the_teachers_page_values_but_not_the_language(store):
    code, key = store.create_class()
    m = store.join(code)
    store.set_view(
        code, key, {"page": "heads", "d_model": "128", "num_heads": "8", "seq_len": "6", "heads_tab": "cost"}
    )
    at = run_app("class", lang="zh", **{"class": code, "member": m.member_id})
    assert not at.exception
    from ui import classmode

    view = store.view(code)[1]
    at.session_state[classmode.PENDING] = view
    at.run()
    assert not at.exception
    assert (
        at.session_state["d_model"] == 128 and at.session_state["num_heads"] == 8 and at.session_state["lang"] == "zh"
    )


@pytest.mark.app
def test_a_follow_that_fails_on_its_way_is_applied_at_the_next_check(store, monkeypatch):
    """A teacher's view is seen once applied, not once fetched: a follow whose application failed (here apply_view
    raising once; in a browser, a run stopped or sent back to the page left) is fetched and applied again at the
    next check, instead of leaving the student off the teacher's view until the teacher moves again."""
    from ui import classmode

    code, key = store.create_class()
    m = store.join(code)
    at = run_app("heads", lang="en", **{"class": code, "member": m.member_id})
    assert not at.exception and at.session_state["d_model"] == 64
    store.set_view(code, key, {"page": "heads", "d_model": 128, "num_heads": 8})
    time.sleep(classmode.STATUS_MAX_AGE + 0.05)  # the process's shared class status is read again
    real, calls = classmode.apply_view, []

    def fails_once(*args, **kwargs):
        calls.append(args)
        if len(calls) == 1:
            raise RuntimeError("lost on its way")
        return real(*args, **kwargs)

    monkeypatch.setattr(classmode, "apply_view", fails_once)
    at.run()
    assert at.session_state["d_model"] == 64 and len(calls) == 1  # the follow failed
    at.run()  # the next check (a browser's: the poll's tick, at most FALLBACK_SECONDS later)
    assert not at.exception
    assert (at.session_state["d_model"], at.session_state["num_heads"], len(calls)) == (128, 8, 2)
    at.run()
    assert len(calls) == 2  # seen now: not applied again


@pytest.mark.app
def test_a_followed_value_undone_by_a_stale_request_is_applied_again(store, monkeypatch):
    """The browser sends every widget's value with each request; one sent before it had a follow's values brought
    the old values back as changes, and Streamlit took them (the student's page showed the old step, the follow seen).
    Within UNDONE_SECONDS of a follow, a followed value changed back is applied again; later, a student's change
    stays (until the teacher moves)."""
    from ui import classmode

    code, key = store.create_class()
    m = store.join(code)
    at = run_app("heads", lang="en", **{"class": code, "member": m.member_id})
    store.set_view(code, key, {"page": "heads", "d_model": 128, "num_heads": 8})
    time.sleep(classmode.STATUS_MAX_AGE + 0.05)
    at.run()
    assert (at.session_state["d_model"], at.session_state["num_heads"]) == (128, 8)
    at.sidebar.select_slider(key="d_model").set_value(64).run()  # the stale request: the value before the follow
    assert not at.exception
    assert (at.session_state["d_model"], at.session_state["num_heads"]) == (128, 8)
    monkeypatch.setattr(classmode, "UNDONE_SECONDS", 0.0)  # the watch is over
    at.sidebar.select_slider(key="d_model").set_value(32).run()
    assert not at.exception and at.session_state["d_model"] == 32


@pytest.mark.app
def test_the_teachers_page_state_reaches_a_follower_without_the_key_language_or_display(store):
    code, key = store.create_class()
    m = store.join(code)
    teacher = run_app(
        "heads", lang="zh", d_model=128, num_heads=8, seq_len=6, palette="contrast", **{"class": code, "teacher": key}
    )
    assert not teacher.exception
    view = store.view(code)[1]
    assert view["page"] == "heads" and (view["d_model"], view["num_heads"], view["seq_len"]) == (128, 8, 6)
    assert not {"teacher", "class", "member", "lang", "palette"} & set(view), view  # each one's own, or secret
    from ui import classmode

    student = run_app("class", lang="en", **{"class": code, "member": m.member_id})
    student.session_state[classmode.PENDING] = view
    student.run()
    assert not student.exception
    state = student.session_state
    assert (state["d_model"], state["num_heads"], state["seq_len"], state["lang"]) == (128, 8, 6, "en")


@pytest.mark.app
def test_a_vote_refused_as_closed_is_said_on_every_redraw_until_the_next_vote(store):
    from classroom import questions as CQ

    code, key = store.create_class()
    m = store.join(code)
    spec, answer_key = CQ.choice_spec(4, "B")
    q = store.ask(code, key, "choice", spec, answer_key)
    at = run_app("heads", lang="en", **{"class": code, "member": m.member_id})
    assert not at.exception
    at.radio(key=f"cm_in_{q.id}_1").set_value("A")
    store.set_state(code, key, q.id, "closed")  # the teacher closes the vote while the student chooses
    at.button[[b.label for b in at.button].index("Send my answer")].click().run()
    said = f"Question {q.number}: The vote on this question is closed"
    assert any(w.value.startswith(said) for w in at.warning), [w.value for w in at.warning]
    at.run()  # a rerun (the teacher's next move) does not lose it
    assert any(w.value.startswith(said) for w in at.warning)
    assert store.vote_count(code, q.id, 1) == 0


@pytest.mark.app
def test_a_refused_action_is_said_on_every_redraw_until_the_next_action(store, monkeypatch):
    from classroom.limits import RateLimiter

    code, _ = store.create_class()
    m = store.join(code)
    at = run_app("heads", lang="en", **{"class": code, "member": m.member_id})
    assert not at.exception
    monkeypatch.setattr(store, "limiter", RateLimiter(burst=0, rate=0.0))  # every action of a student refused
    at.button(key="cm_explore_side").click().run()
    said = "Too fast: please wait"
    assert any(said in w.value for w in at.warning), [w.value for w in at.warning]
    # A whole-page rerun (the teacher's next move) can stop the run that drew it: the next run says it again.
    at.run()
    assert any(said in w.value for w in at.warning), [w.value for w in at.warning]
    monkeypatch.setattr(store, "limiter", RateLimiter())
    at.button(key="cm_explore_side").click().run()  # the next action: the old refusal is gone
    assert not any(said in w.value for w in at.warning), [w.value for w in at.warning]
    assert not store.member(code, m.member_id).following
