"""Class mode's store (classroom/), on SQLite and on a real PostgreSQL server the tests start themselves
(tests/pg_server.py: a server that cannot start fails these tests, never skips them)."""

from __future__ import annotations

import threading

import pytest
from pg_server import postgres_server
from sqlalchemy import select, text, update

from classroom import codes, limits
from classroom import questions as CQ
from classroom.schema import LATEST, MIGRATIONS, classes, members, migrate, schema_version
from classroom.store import ClassError, ClassStore, database_url, make_engine
from lessons.settings import Settings


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(scope="module")
def pg_url():
    with postgres_server() as url:
        yield url


_pg_db = [0]


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request, tmp_path):
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'classes.sqlite3'}"
    base = request.getfixturevalue("pg_url")
    _pg_db[0] += 1
    name = f"t{_pg_db[0]}"  # a fresh database per test: nothing of one test is seen by another
    admin = make_engine(base)
    with admin.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        conn.execute(text(f"CREATE DATABASE {name}"))
    admin.dispose()
    return base.rsplit("/", 1)[0] + "/" + name


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def store(db_url, clock):
    s = ClassStore(make_engine(db_url), clock=clock)
    yield s
    s.engine.dispose()


def teacher_class(store):
    code, key = store.create_class()
    return code, key


def choice_question(store, code, key, right="B"):
    spec, answer_key = CQ.choice_spec(4, right)
    return store.ask(code, key, "choice", spec, answer_key)


def vote(store, code, member, q, raw, round_=1):
    g = CQ.grade(q.kind, q.spec, q.answer_key, raw)
    assert g.ok, g.error
    return store.vote(code, member.member_id, q.id, round_, g.answer, g.correct, g.mistake)


# ------------------------------------------------------------------ schema


def test_the_app_creates_and_migrates_its_schema(db_url):
    engine = make_engine(db_url)
    with engine.begin() as conn:  # a database left at version 1 by an older app
        schema_version.create(conn)
        conn.execute(schema_version.insert().values(id=1, version=1))
        MIGRATIONS[0](conn)
    assert migrate(engine) == LATEST == 2
    assert migrate(engine) == LATEST  # again: nothing to do, nothing fails
    with engine.begin() as conn:
        assert conn.execute(select(schema_version.c.version)).scalar_one() == LATEST
    engine.dispose()


def test_migrating_from_several_threads_at_once_runs_each_migration_once(db_url):
    engines = [make_engine(db_url) for _ in range(4)]
    errors: list[BaseException] = []

    def go(engine):
        try:
            migrate(engine)
        except BaseException as e:  # noqa: BLE001  (reported by the assert below)
            errors.append(e)

    threads = [threading.Thread(target=go, args=(e,)) for e in engines]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    with engines[0].begin() as conn:
        assert conn.execute(select(schema_version.c.version)).scalar_one() == LATEST
    for e in engines:
        e.dispose()


def test_database_url_setting():
    assert database_url({"ATTENTION_LAB_DATABASE_URL": "postgresql://u@h/db"}) == "postgresql+psycopg://u@h/db"
    assert database_url({"ATTENTION_LAB_DATABASE_URL": "postgres://u@h/db"}) == "postgresql+psycopg://u@h/db"


def test_database_url_default_is_a_sqlite_file_in_the_data_folder(tmp_path):
    url = database_url({"ATTENTION_LAB_DATA_DIR": str(tmp_path / "d")})
    assert url == f"sqlite:///{tmp_path / 'd' / 'classes.sqlite3'}" and (tmp_path / "d").is_dir()


# ------------------------------------------------------------------ codes and keys


def test_codes_are_short_and_read_aloud_without_look_alikes():
    for _ in range(200):
        code = codes.new_code()
        assert len(code) == 5 and not set(code) & set("0O1IL2Z5S8B6GUV")
    assert codes.normalize_code(" hx4-4j ") == "HX44J"
    for bad in (None, "", "ABC", "ABCDEFG", "HX44O", "<b>x</b>", "x" * 10**6, 12345, ["HX44J"]):
        assert codes.normalize_code(bad) is None


def test_only_the_teacher_key_hash_is_stored_and_a_forged_key_is_refused(store):
    code, key = teacher_class(store)
    with store.engine.begin() as conn:
        stored = conn.execute(select(classes.c.teacher_key_hash)).scalar_one()
    assert key not in stored and stored == codes.key_hash(key)
    forged = [None, "", key[:-1] + ("A" if key[-1] != "A" else "B"), key + "x", stored, "x" * 10**6, 42]
    for bad in forged:
        assert not store.is_teacher(code, bad)
        with pytest.raises(ClassError, match="not_teacher"):
            store.set_view(code, bad, {"page": "heads"})
        with pytest.raises(ClassError, match="not_teacher"):
            choice_question(store, code, bad)
        with pytest.raises(ClassError, match="not_teacher"):
            store.export_csv(code, bad)
        with pytest.raises(ClassError, match="not_teacher"):
            store.end_class(code, bad)
    assert store.is_teacher(code, key)


def test_a_students_id_cannot_steer_reveal_or_close(store):
    code, key = teacher_class(store)
    m = store.join(code)
    q = choice_question(store, code, key)
    for action in (
        lambda k: store.set_state(code, k, q.id, "revealed"),
        lambda k: store.set_state(code, k, q.id, "closed"),
        lambda k: store.second_round(code, k, q.id),
        lambda k: store.set_view(code, k, {"page": "masks"}),
    ):
        with pytest.raises(ClassError, match="not_teacher"):
            action(m.member_id)
    assert store.current_question(code).state == "open"


def test_wrong_and_expired_codes(store, clock):
    code, key = teacher_class(store)
    for bad, reason in (
        ("ZZ", "bad_code"),
        ("<script>", "bad_code"),
        ("x" * 10**6, "bad_code"),
        ("AAAAA", "not_found"),
    ):
        if bad == "AAAAA" and bad == code:
            continue
        with pytest.raises(ClassError, match=reason):
            store.join(bad)
    clock.now += 12 * 3600 + 1
    with pytest.raises(ClassError, match="expired"):
        store.join(code)
    with pytest.raises(ClassError, match="expired"):
        store.status(code)


def test_the_teacher_ends_a_class(store):
    code, key = teacher_class(store)
    store.end_class(code, key)
    with pytest.raises(ClassError, match="expired"):
        store.join(code)


# ------------------------------------------------------------------ members


def test_a_reload_rejoins_with_the_same_id_answers_and_score(store):
    code, key = teacher_class(store)
    m = store.join(code, None, "Ann")
    q = choice_question(store, code, key)
    assert vote(store, code, m, q, "B")
    store.set_state(code, key, q.id, "revealed")
    again = store.join(code, m.member_id)  # the id the student's link kept
    assert again.member_id == m.member_id and again.nickname == "Ann"
    assert store.score(code, again.member_id) == (1, 1)
    assert store.my_votes(code, again.member_id, q.id)[1].answer == '"B"'
    assert store.counts(code).members == 1


def test_nicknames_are_bounded_and_kept_as_plain_text(store):
    code, _ = teacher_class(store)
    with pytest.raises(ClassError, match="nickname_too_long"):
        store.join(code, None, "x" * 1_000_000)
    with pytest.raises(ClassError, match="nickname_too_long"):
        store.join(code, None, "y" * (limits.NICKNAME_MAX + 1))
    markup = "<img src=x onerror=alert(1)>"[: limits.NICKNAME_MAX]
    assert store.join(code, None, markup).nickname == markup  # stored as the characters typed; the UI shows text
    assert store.join(code, None, "A\u202eB\x00C\n  D").nickname == "ABC D"
    assert store.join(code, None, "   ").nickname is None


def test_following_exploring_and_connected_counts(store, clock):
    code, _ = teacher_class(store)
    a, b, c = (store.join(code) for _ in range(3))
    store.set_following(code, b.member_id, False)
    assert store.counts(code) == store.counts(code).__class__(3, 3, 2, 1)
    clock.now += 60
    store.touch(code, a.member_id)
    counts = store.counts(code)
    assert (counts.members, counts.connected, counts.following, counts.exploring) == (3, 1, 1, 0)
    with pytest.raises(ClassError, match="not_member"):
        store.touch(code, "not-a-member-id!")


def test_marked_students_are_written_together_and_only_in_their_class(store, clock):
    code, _ = teacher_class(store)
    other, _ = teacher_class(store)
    a, b = store.join(code), store.join(code)
    stranger = store.join(other)
    clock.now += 60
    store.mark_seen(code, a.member_id, every=3600)  # marked, not written yet
    store.mark_seen(code, stranger.member_id, every=3600)  # another class's id under this code: never touched
    store.mark_seen(code, "not-a-member-id!", every=3600)
    assert store.counts(code).connected == 0
    store.mark_seen(code, b.member_id, every=0)  # due: one UPDATE writes every marked student
    assert store.counts(code).connected == 2
    assert store.counts(other).connected == 0


def test_polls_share_one_status_read_and_one_view_read_per_change(store):
    code, key = teacher_class(store)
    store.set_view(code, key, {"page": "heads"})
    reads = []
    real = store._read_status
    store._read_status = lambda raw: reads.append(raw) or real(raw)
    first = store.status(code, max_age=60)
    assert [store.status(code, max_age=60) for _ in range(5)] == [first] * 5 and len(reads) == 1
    store.set_view(code, key, {"page": "masks"})
    assert store.status(code, max_age=60).view_version == 1  # a shared copy is at most max_age old
    assert store.status(code).view_version == 2 and len(reads) == 2  # max_age 0: always read
    assert store.view(code, 2) == (2, {"page": "masks"})
    store.engine.dispose()
    with store.engine.connect() as conn:  # the copy serves the same version without reading the row again
        conn.execute(update(classes).values(view='{"page": "changed behind"}'))
        conn.commit()
    assert store.view(code, 2) == (2, {"page": "masks"})
    assert store.view(code) == (2, {"page": "changed behind"})  # no version given: read


def test_the_question_a_status_names_is_read_once_per_process(store):
    code, key = teacher_class(store)
    assert store.current_question(code, store.status(code)) is None
    q = choice_question(store, code, key)
    reads = []
    real = store._read_question
    store._read_question = lambda raw: reads.append(raw) or real(raw)
    status = store.status(code)
    assert [store.current_question(code, status).id for _ in range(4)] == [q.id] * 4 and len(reads) == 1
    store.set_state(code, key, q.id, "revealed")
    assert store.current_question(code, store.status(code)).state == "revealed" and len(reads) == 2


def test_my_votes_in_one_query_and_its_refusals(store):
    code, key = teacher_class(store)
    other, other_key = teacher_class(store)
    a, b = store.join(code), store.join(code)
    q = choice_question(store, code, key)
    q_other = choice_question(store, other, other_key)
    vote(store, code, a, q, "B")
    assert store.my_votes(code, a.member_id, q.id) == {1: store.tally(code, q.id, 1)[0]}
    assert store.my_votes(code, b.member_id, q.id) == {}  # in the class, not voted yet
    with pytest.raises(ClassError, match="no_question"):
        store.my_votes(code, a.member_id, q_other.id)  # another class's question
    with pytest.raises(ClassError, match="not_member"):
        store.my_votes(other, a.member_id, q_other.id)  # a student of another class
    store.end_class(code, key)
    with pytest.raises(ClassError, match="expired"):
        store.my_votes(code, a.member_id, q.id)


def test_a_class_is_full_at_its_limit(store, monkeypatch):
    monkeypatch.setattr(limits, "MAX_MEMBERS", 3)
    code, _ = teacher_class(store)
    for _ in range(3):
        store.join(code)
    with pytest.raises(ClassError, match="class_full"):
        store.join(code)


# ------------------------------------------------------------------ votes


def test_each_students_vote_counts_once_per_round_first_wins(store):
    code, key = teacher_class(store)
    m = store.join(code)
    q = choice_question(store, code, key)
    assert vote(store, code, m, q, "C") is True
    assert vote(store, code, m, q, "B") is False  # another click, another tab: already counted
    assert [(b.answer, b.count) for b in store.tally(code, q.id, 1)] == [('"C"', 1)]


def test_votes_from_many_tabs_at_once_count_once(store):
    code, key = teacher_class(store)
    students = [store.join(code) for _ in range(5)]
    q = choice_question(store, code, key)
    store.limiter = limits.RateLimiter(burst=1000, rate=1000)
    results: list[bool] = []
    lock = threading.Lock()

    def tab(m, raw):
        ok = vote(store, code, m, q, raw)
        with lock:
            results.append(ok)

    threads = [threading.Thread(target=tab, args=(m, "ABCD"[i % 4])) for m in students for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results.count(True) == 5 and len(results) == 30
    assert store.vote_count(code, q.id, 1) == 5


def test_a_vote_for_a_closed_or_revealed_question_or_an_old_round_is_refused(store):
    code, key = teacher_class(store)
    a, b = store.join(code), store.join(code)
    q = choice_question(store, code, key)
    store.set_state(code, key, q.id, "closed")
    with pytest.raises(ClassError, match="closed"):
        vote(store, code, a, q, "A")
    store.set_state(code, key, q.id, "revealed")
    with pytest.raises(ClassError, match="closed"):
        vote(store, code, a, q, "A")
    store.second_round(code, key, q.id)
    with pytest.raises(ClassError, match="closed"):
        vote(store, code, a, q, "A", round_=1)  # a page still showing round 1
    assert vote(store, code, a, q, "B", round_=2)
    with pytest.raises(ClassError, match="no_third_round"):
        store.second_round(code, key, q.id)
    q2 = choice_question(store, code, key)  # a new question closes the open one
    with pytest.raises(ClassError, match="closed"):
        vote(store, code, b, q, "B", round_=2)
    assert store.current_question(code).id == q2.id


def test_second_vote_keeps_both_distributions(store):
    code, key = teacher_class(store)
    ms = [store.join(code) for _ in range(4)]
    q = choice_question(store, code, key, right="B")
    for m, raw in zip(ms, "AABC"):
        vote(store, code, m, q, raw)
    store.set_state(code, key, q.id, "revealed")
    store.second_round(code, key, q.id)
    for m, raw in zip(ms, "BBBC"):
        vote(store, code, m, q, raw, round_=2)
    assert [(b.answer, b.count, b.correct) for b in store.tally(code, q.id, 1)] == [
        ('"A"', 2, False),
        ('"B"', 1, True),
        ('"C"', 1, False),
    ]
    assert [(b.answer, b.count) for b in store.tally(code, q.id, 2)] == [('"B"', 3), ('"C"', 1)]
    store.set_state(code, key, q.id, "revealed")
    assert store.score(code, ms[0].member_id) == (1, 1)  # the last round's vote counts for the score


def test_ten_thousand_votes_from_one_student_are_rate_limited_and_count_once(store):
    code, key = teacher_class(store)
    m, other = store.join(code), store.join(code)
    q = choice_question(store, code, key)
    counted = refused = 0
    for i in range(10_000):
        try:
            counted += store.vote(code, m.member_id, q.id, 1, '"' + "ABCD"[i % 4] + '"', False)
        except ClassError as e:
            assert e.reason == "rate_limited"
            refused += 1
    assert counted == 1 and refused >= 9_000
    assert vote(store, code, other, q, "A")  # another student is not held back by that one
    assert store.vote_count(code, q.id, 1) == 2


def test_a_flood_through_four_processes_counts_once_and_reaches_the_database_at_most_four_buckets(db_url, clock):
    frozen = [0.0]  # the buckets' clock stands still: no token comes back during the flood
    stores = [
        ClassStore(make_engine(db_url), clock=clock, limiter=limits.RateLimiter(clock=lambda: frozen[0]))
        for _ in range(4)
    ]  # four app processes, each with its own buckets, one database
    code, key = stores[0].create_class()
    m = stores[0].join(code)
    q = choice_question(stores[0], code, key)
    counted = admitted = 0
    for i in range(2_000):  # round-robin over the processes: the worst a client forging route cookies can do
        try:
            counted += stores[i % 4].vote(code, m.member_id, q.id, 1, '"' + "ABCD"[i % 4] + '"', False)
            admitted += 1
        except ClassError as e:
            assert e.reason == "rate_limited"
    assert counted == 1 and stores[3].vote_count(code, q.id, 1) == 1
    assert admitted == 4 * limits.BURST  # each process's burst, then nothing
    for s in stores:
        s.engine.dispose()


def test_an_answer_is_bounded_and_markup_is_only_text(store):
    code, key = teacher_class(store)
    m = store.join(code)
    q = choice_question(store, code, key)
    for bad in ("", "x" * (limits.ANSWER_MAX + 1), None):
        with pytest.raises(ClassError, match="bad_answer"):
            store.vote(code, m.member_id, q.id, 1, bad, False)
    assert not CQ.grade("choice", q.spec, q.answer_key, "<script>alert(1)</script>").ok
    assert not CQ.grade("choice", q.spec, q.answer_key, "E").ok  # not an option of a 4-option question
    assert CQ.grade("choice", q.spec, q.answer_key, "x" * 10**6).error == "answer_too_long"


def test_nothing_of_one_class_is_visible_in_another(store):
    code_a, key_a = teacher_class(store)
    code_b, key_b = teacher_class(store)
    ma = store.join(code_a, None, "Ann")
    qa = choice_question(store, code_a, key_a)
    vote(store, code_a, ma, qa, "B")
    store.set_view(code_a, key_a, {"page": "masks"})
    with pytest.raises(ClassError, match="no_question"):
        store.tally(code_b, qa.id, 1)
    with pytest.raises(ClassError, match="no_question"):
        store.set_state(code_b, key_b, qa.id, "revealed")
    with pytest.raises(ClassError, match="not_teacher"):
        store.export_csv(code_b, key_a)  # class A's key does not open class B
    with pytest.raises(ClassError, match="not_member"):
        store.vote(code_b, ma.member_id, qa.id, 1, '"B"', True)
    rejoined = store.join(code_b, ma.member_id)  # A's id in B's link: a new student of B, nothing of A
    assert rejoined.member_id != ma.member_id and rejoined.nickname is None
    assert store.current_question(code_b) is None and store.view(code_b) == (0, {})
    assert "Ann" not in store.export_csv(code_b, key_b)
    assert store.counts(code_b).members == 1


def test_a_server_restart_mid_vote_loses_no_vote(db_url, clock):
    first = ClassStore(make_engine(db_url), clock=clock)
    code, key = first.create_class()
    ms = [first.join(code) for _ in range(6)]
    q = choice_question(first, code, key)
    for m in ms[:3]:
        vote(first, code, m, q, "A")
    first.engine.dispose()  # the process goes away; a new one opens the same database
    second = ClassStore(make_engine(db_url), clock=clock)
    for m in ms[3:]:
        vote(second, code, m, q, "B")
    assert vote(second, code, ms[0], q, "C") is False  # still counted from before the restart
    assert [(b.answer, b.count) for b in second.tally(code, q.id, 1)] == [('"A"', 3), ('"B"', 3)]
    second.engine.dispose()


def test_the_teachers_view_has_a_version_that_moves_only_on_change(store):
    code, key = teacher_class(store)
    assert store.view(code) == (0, {})
    assert store.set_view(code, key, {"page": "walkthrough", "walk_step": "scores"}) == 1
    assert store.set_view(code, key, {"walk_step": "scores", "page": "walkthrough"}) == 1
    assert store.set_view(code, key, {"page": "walkthrough", "walk_step": "softmax"}) == 2
    assert store.status(code).view_version == 2
    assert store.set_view(code, key, {"page": "masks", "seq_len": 6, "masks_extra": ["causal"], "x": True}) == 3
    assert store.view(code) == (3, {"page": "masks", "seq_len": 6, "masks_extra": ["causal"], "x": True})
    for bad in ({"masks_grid": "1" * 20_000}, {"seq_len": {"nested": 1}}, {"seq_len": None}):
        with pytest.raises(ClassError, match="view_too_large"):
            store.set_view(code, key, bad)


def test_history_csv_has_no_personal_data_beyond_the_nickname(store):
    code, key = teacher_class(store)
    m = store.join(code, None, "=HYPERLINK(1)")
    plain = store.join(code)
    q = choice_question(store, code, key)
    vote(store, code, m, q, "B")
    vote(store, code, plain, q, "A")
    csv_text = store.export_csv(code, key)
    lines = csv_text.strip().splitlines()
    assert lines[0] == "question,kind,quiz_uid,round,nickname,answer,correct,mistake,seconds"
    assert len(lines) == 3
    assert m.member_id not in csv_text and plain.member_id not in csv_text
    assert "'=HYPERLINK(1)" in csv_text  # never a formula in a spreadsheet


# ------------------------------------------------------------------ quiz questions (no database)


def test_a_quiz_question_is_graded_as_the_quiz_page_grades_it_with_its_known_mistake():
    settings = Settings(64, 4, 8, "none", 0, "en")
    questions, _ = CQ.quiz_set(64, 4, 8, "none", 0, "en", None)
    index = next(i for i, q in enumerate(questions) if q.kind == "shape" and q.mistakes)
    q = questions[index]
    spec, answer_key = CQ.quiz_spec(settings, None, index)
    right = CQ.grade("quiz", spec, answer_key, ", ".join(map(str, q.answer)))
    assert right.ok and right.correct and right.answer == answer_key["right"]
    wrong_value, mistake = q.mistakes[0]
    wrong = CQ.grade("quiz", spec, answer_key, " ".join(map(str, wrong_value)))
    assert wrong.ok and not wrong.correct and wrong.mistake == mistake
    assert CQ.decode(wrong.answer) == wrong_value
    zh_q, _ = CQ.quiz_question(spec, "zh")
    assert zh_q.answer == q.answer and zh_q.uid == q.uid
    bad = CQ.grade("quiz", spec, answer_key, "<b>oops</b>")
    assert not bad.ok


def test_member_rows_never_hold_more_than_the_bounded_nickname(store):
    code, _ = teacher_class(store)
    store.join(code, None, "Bo")
    with store.engine.begin() as conn:
        cols = set(conn.execute(select(members)).mappings().first().keys())
    assert cols == {"id", "class_id", "member_id", "nickname", "following", "joined_at", "last_seen"}
