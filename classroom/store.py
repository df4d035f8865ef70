"""ClassStore: every read and write of class mode, on SQLite or PostgreSQL (SQLAlchemy Core).

Each method takes the class code and filters by that class, so nothing of one class is ever read through
another's code. Teacher actions take the teacher key and check it first; a student's actions take the student
id (kept in the student's link). A refusal raises ClassError(reason), `reason` being a short id the UI words
(class.error.<reason>): not_found, expired, bad_code, not_teacher, not_member, closed, rate_limited, ...

Votes: one per student, question and round, enforced by a unique constraint in the database; the first vote
counts and a later click in the same round (another tab, a double click, a replay) is answered "already
counted" and changes nothing. First wins, as on the Quiz page: the vote is a prediction made before the
reveal; the peer-instruction second round is where a student changes their mind. Every vote is committed
before the student is told it counted, so a server restart loses none.
"""

from __future__ import annotations

import csv
import io
import json
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, and_, create_engine, event, func, insert, select, update
from sqlalchemy.exc import IntegrityError

from classroom import codes, limits
from classroom.schema import classes, members, migrate, questions, votes

DATABASE_URL_ENV = "ATTENTION_LAB_DATABASE_URL"
DATA_DIR_ENV = "ATTENTION_LAB_DATA_DIR"
DEFAULT_DATA_DIR = Path(__file__).resolve().parent.parent / "data"
CLASS_HOURS = 12.0  # a class code works this long after it was made (a teaching day)
CONNECTED_SECONDS = 30.0  # a student seen within this many seconds counts as connected
STATES = ("open", "closed", "revealed")
SEEN_FLUSH_SECONDS = 5.0  # marked "still here" students are written this often (mark_seen)
SHARED_CLASSES = 1_000  # classes whose last status and view a process keeps for its polls


class ClassError(Exception):
    """A refused action; `reason` is the id the UI words (i18n class.error.<reason>)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class ClassInfo:
    id: int
    code: str
    created_at: float
    expires_at: float
    view_version: int


@dataclass(frozen=True)
class Member:
    pk: int
    member_id: str
    nickname: str | None
    following: bool


@dataclass(frozen=True)
class QuestionRow:
    id: int
    number: int
    kind: str
    spec: dict[str, Any]
    answer_key: dict[str, Any]
    round: int
    state: str


@dataclass(frozen=True)
class Status:
    """What a polling page compares each second: any change means something to redraw."""

    view_version: int
    question: int | None
    round: int
    state: str


@dataclass(frozen=True)
class Counts:
    members: int
    connected: int
    following: int
    exploring: int


@dataclass(frozen=True)
class Bar:
    answer: str
    correct: bool
    mistake: str | None
    count: int


def database_url(env: Mapping[str, str] = os.environ) -> str:
    """ATTENTION_LAB_DATABASE_URL (PostgreSQL for several processes), else a SQLite file in the data folder."""
    url = env.get(DATABASE_URL_ENV, "").strip()
    if url:
        for prefix in ("postgresql://", "postgres://"):
            if url.startswith(prefix):
                return "postgresql+psycopg://" + url[len(prefix) :]  # psycopg 3, not the old psycopg2 default
        return url
    folder = Path(env.get(DATA_DIR_ENV) or DEFAULT_DATA_DIR)
    folder.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{folder / 'classes.sqlite3'}"


def make_engine(url: str) -> Engine:
    if url.startswith("sqlite"):
        return sqlite_engine(url)
    return create_engine(url, pool_size=5, max_overflow=10, pool_pre_ping=True, pool_recycle=1800)


def sqlite_engine(url: str) -> Engine:
    """SQLite with WAL (readers never wait for the writer), a 30 s busy wait, durable commits (synchronous=FULL:
    a vote acknowledged is on disk), foreign keys on; writes take the lock at BEGIN (BEGIN IMMEDIATE), so two
    writers queue instead of failing half-way with "database is locked"."""
    engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30})

    @event.listens_for(engine, "connect")
    def _connect(dbapi_conn, _record) -> None:
        dbapi_conn.isolation_level = None  # SQLAlchemy's "begin" event below emits BEGIN itself
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA busy_timeout=30000")
        _use_wal(cur)
        for pragma in ("synchronous=FULL", "foreign_keys=ON"):
            cur.execute(f"PRAGMA {pragma}")
        cur.close()

    @event.listens_for(engine, "begin")
    def _begin(conn: Connection) -> None:
        conn.exec_driver_sql("BEGIN IMMEDIATE" if conn.get_execution_options().get("immediate") else "BEGIN")

    return engine


def _use_wal(cur, wait: float = 30.0) -> None:
    """Switch the file to WAL, waiting for other connections. Switching needs an exclusive lock and SQLite does not
    call its busy handler for it when another connection is opening the same new file at that moment ("database is
    locked" at once: seen 7 times in 200 trials of four engines migrating a new file together), so wait here."""
    deadline = time.monotonic() + wait
    pause = 0.005
    while True:
        try:
            mode = cur.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            if str(mode).lower() in ("wal", "memory"):  # an in-memory database has no WAL and needs none
                return
        except sqlite3.OperationalError as e:
            if "locked" not in str(e) and "busy" not in str(e):
                raise
        if time.monotonic() > deadline:
            raise sqlite3.OperationalError(f"could not switch the class database to WAL within {wait:.0f} s")
        time.sleep(pause)
        pause = min(pause * 2, 0.2)


def _insert(engine: Engine, table):
    """INSERT ... ON CONFLICT DO NOTHING for this database."""
    if engine.dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as pg_insert

        return pg_insert(table)
    from sqlalchemy.dialects.sqlite import insert as sqlite_insert

    return sqlite_insert(table)


class ClassStore:
    def __init__(
        self,
        engine: Engine,
        *,
        clock: Callable[[], float] = time.time,
        class_hours: float = CLASS_HOURS,
        limiter: limits.RateLimiter | None = None,
    ) -> None:
        self.engine = engine
        self.clock = clock
        self.class_seconds = class_hours * 3600
        self.limiter = limiter or limits.RateLimiter()
        # Shared by the sessions of this process: the last status, view and question read per class, the students
        # marked seen and not written yet (status(max_age=...), view(version=...), current_question(status=...),
        # mark_seen).
        self._shared_lock = threading.Lock()
        self._statuses: dict[str, tuple[float, Status]] = {}
        self._views: dict[str, tuple[int, dict[str, object]]] = {}
        self._questions: dict[str, QuestionRow] = {}
        self._seen: dict[str, set[str]] = {}
        self._seen_flushed = time.monotonic()
        migrate(engine)

    # ------------------------------------------------------------------ transactions
    def _read(self):
        return self.engine.begin()

    def _write(self):
        conn = self.engine.connect()
        if self.engine.dialect.name == "sqlite":
            conn = conn.execution_options(immediate=True)
        return _Tx(conn)

    # ------------------------------------------------------------------ classes
    def create_class(self) -> tuple[str, str]:
        """A new class: (code, teacher key). The key is shown once, in the teacher's link; only its hash is kept."""
        key = codes.new_teacher_key()
        now = self.clock()
        for _ in range(20):  # a code already taken (any class, even expired) is drawn again
            code = codes.new_code()
            try:
                with self._write() as conn:
                    conn.execute(
                        insert(classes).values(
                            code=code,
                            teacher_key_hash=codes.key_hash(key),
                            created_at=now,
                            expires_at=now + self.class_seconds,
                            view="{}",
                            view_version=0,
                        )
                    )
                return code, key
            except IntegrityError:
                continue
        raise ClassError("no_code")

    def _class(self, conn: Connection, raw_code: object) -> tuple[ClassInfo, str]:
        code = codes.normalize_code(raw_code)
        if code is None:
            raise ClassError("bad_code")
        row = (
            conn.execute(
                select(
                    classes.c.id,
                    classes.c.code,
                    classes.c.teacher_key_hash,
                    classes.c.created_at,
                    classes.c.expires_at,
                    classes.c.view_version,
                ).where(classes.c.code == code)
            )
            .mappings()
            .first()
        )
        if row is None:
            raise ClassError("not_found")
        if row["expires_at"] <= self.clock():
            raise ClassError("expired")
        info = ClassInfo(row["id"], row["code"], row["created_at"], row["expires_at"], row["view_version"])
        return info, row["teacher_key_hash"]

    def find(self, raw_code: object) -> ClassInfo:
        with self._read() as conn:
            return self._class(conn, raw_code)[0]

    def is_teacher(self, raw_code: object, key: object) -> bool:
        try:
            with self._read() as conn:
                _, stored = self._class(conn, raw_code)
        except ClassError:
            return False
        return codes.key_matches(key, stored)

    def _teacher(self, conn: Connection, raw_code: object, key: object) -> ClassInfo:
        info, stored = self._class(conn, raw_code)
        if not codes.key_matches(key, stored):
            raise ClassError("not_teacher")
        return info

    def end_class(self, raw_code: object, key: object) -> None:
        with self._write() as conn:
            info = self._teacher(conn, raw_code, key)
            conn.execute(update(classes).where(classes.c.id == info.id).values(expires_at=self.clock()))

    # ------------------------------------------------------------------ the teacher's view
    def set_view(self, raw_code: object, key: object, view: Mapping[str, object]) -> int:
        """Publish the teacher's view (neutral values: text, numbers, bools, lists of them); returns its version,
        raised only when it changed."""
        if not all(isinstance(k, str) and limits.neutral_value(v) for k, v in view.items()):
            raise ClassError("view_too_large")
        text = json.dumps(dict(view), sort_keys=True, ensure_ascii=False)
        if len(text) > limits.VIEW_MAX_CHARS:
            raise ClassError("view_too_large")
        with self._write() as conn:
            info = self._teacher(conn, raw_code, key)
            current = conn.execute(select(classes.c.view).where(classes.c.id == info.id)).scalar_one()
            if current == text:
                return info.view_version
            conn.execute(
                update(classes)
                .where(classes.c.id == info.id)
                .values(view=text, view_version=classes.c.view_version + 1)
            )
            return info.view_version + 1

    def view(self, raw_code: object, version: int | None = None) -> tuple[int, dict[str, object]]:
        """(version, the teacher's view). With `version` (the one a status read saw), a view of that version this
        process has read already is returned unread: one read per change serves every follower of the process."""
        code = codes.normalize_code(raw_code)
        with self._shared_lock:
            kept = self._views.get(code) if code else None
        if kept is not None and version is not None and kept[0] == version:
            return kept[0], dict(kept[1])
        with self._read() as conn:
            info, _ = self._class(conn, raw_code)
            text = conn.execute(select(classes.c.view).where(classes.c.id == info.id)).scalar_one()
        view = json.loads(text)
        with self._shared_lock:
            self._views[info.code] = (info.view_version, view)
        return info.view_version, dict(view)

    def status(self, raw_code: object, max_age: float = 0.0) -> Status:
        """What a polling page compares. With `max_age` (seconds), a status this process read that recently is
        returned unread: the once-a-second polls of every session in the process then share one read (a change
        is seen at most `max_age` later). A refusal (no such class, ended) is never kept."""
        code = codes.normalize_code(raw_code)
        if max_age > 0 and code:
            with self._shared_lock:
                kept = self._statuses.get(code)
            if kept is not None and time.monotonic() - kept[0] < max_age:
                return kept[1]
        status = self._read_status(raw_code)
        if code:
            with self._shared_lock:
                self._statuses[code] = (time.monotonic(), status)
                if len(self._statuses) > SHARED_CLASSES:
                    self._statuses.pop(next(iter(self._statuses)))
                    self._views.pop(next(iter(self._views)), None)
        return status

    def _read_status(self, raw_code: object) -> Status:
        with self._read() as conn:
            info, _ = self._class(conn, raw_code)
            q = conn.execute(
                select(questions.c.id, questions.c.round, questions.c.state)
                .where(questions.c.class_id == info.id)
                .order_by(questions.c.number.desc())
                .limit(1)
            ).first()
        if q is None:
            return Status(info.view_version, None, 0, "")
        return Status(info.view_version, q[0], q[1], q[2])

    # ------------------------------------------------------------------ students
    def join(self, raw_code: object, member_id: object = None, nickname: object = None) -> Member:
        """Join, or rejoin with the id a student's link kept (same answers, same score). A nickname given
        replaces the one kept; None keeps it."""
        name, error = limits.clean_nickname(nickname)
        if error:
            raise ClassError(error)
        if codes.valid_member_id(member_id):
            self._limit(raw_code, member_id)
        with self._write() as conn:
            info, _ = self._class(conn, raw_code)
            if codes.valid_member_id(member_id):
                row = self._member_row(conn, info.id, str(member_id))
                if row is not None:
                    values: dict[str, Any] = {"last_seen": self.clock()}
                    if name is not None:
                        values["nickname"] = name
                    conn.execute(update(members).where(members.c.id == row.pk).values(**values))
                    return Member(row.pk, row.member_id, name if name is not None else row.nickname, row.following)
            count = conn.execute(select(func.count()).where(members.c.class_id == info.id)).scalar_one()
            if count >= limits.MAX_MEMBERS:
                raise ClassError("class_full")
            new_id = codes.new_member_id()
            now = self.clock()
            pk = conn.execute(
                insert(members)
                .values(
                    class_id=info.id,
                    member_id=new_id,
                    nickname=name,
                    following=True,
                    joined_at=now,
                    last_seen=now,
                )
                .returning(members.c.id)
            ).scalar_one()
            return Member(pk, new_id, name, True)

    @staticmethod
    def _member_row(conn: Connection, class_id: int, member_id: str) -> Member | None:
        row = conn.execute(
            select(members.c.id, members.c.member_id, members.c.nickname, members.c.following).where(
                and_(members.c.class_id == class_id, members.c.member_id == member_id)
            )
        ).first()
        return None if row is None else Member(row[0], row[1], row[2], bool(row[3]))

    def _member(self, conn: Connection, info: ClassInfo, member_id: object) -> Member:
        row = self._member_row(conn, info.id, str(member_id)) if codes.valid_member_id(member_id) else None
        if row is None:
            raise ClassError("not_member")
        return row

    def _limit(self, raw_code: object, member_id: object) -> None:
        """One student's actions pass a token bucket (limits.RateLimiter), keyed by what the client sent."""
        code = codes.normalize_code(raw_code)
        if code is None:
            raise ClassError("bad_code")
        if not codes.valid_member_id(member_id):
            raise ClassError("not_member")
        if not self.limiter.allow((code, str(member_id))):
            raise ClassError("rate_limited")

    def member(self, raw_code: object, member_id: object) -> Member:
        with self._read() as conn:
            info, _ = self._class(conn, raw_code)
            return self._member(conn, info, member_id)

    def set_following(self, raw_code: object, member_id: object, following: bool) -> None:
        self._limit(raw_code, member_id)
        with self._write() as conn:
            info, _ = self._class(conn, raw_code)
            row = self._member(conn, info, member_id)
            conn.execute(
                update(members).where(members.c.id == row.pk).values(following=bool(following), last_seen=self.clock())
            )

    def touch(self, raw_code: object, member_id: object) -> None:
        """The student is still here, written at once (a poll uses mark_seen, which writes for many at a time)."""
        with self._write() as conn:
            info, _ = self._class(conn, raw_code)
            row = self._member(conn, info, member_id)
            conn.execute(update(members).where(members.c.id == row.pk).values(last_seen=self.clock()))

    def mark_seen(self, raw_code: object, member_id: object, every: float = SEEN_FLUSH_SECONDS) -> None:
        """The student is still here, written later: a poll calls this each second, and every `every` seconds one
        UPDATE writes the moment for every student this process has marked (200 students in 4 processes: under
        one write a second, instead of one per student every few seconds, each a commit)."""
        code = codes.normalize_code(raw_code)
        if code is None or not codes.valid_member_id(member_id):
            return
        now = time.monotonic()
        with self._shared_lock:
            self._seen.setdefault(code, set()).add(str(member_id))
            if now - self._seen_flushed < every:
                return
            self._seen_flushed = now
            seen, self._seen = self._seen, {}
        self.flush_seen(seen)

    def flush_seen(self, seen: Mapping[str, set[str]] | None = None) -> None:
        """Write the marked students' last_seen now (each filtered by its class: an id of another class is not
        touched)."""
        if seen is None:
            with self._shared_lock:
                seen, self._seen = self._seen, {}
        if not seen:
            return
        now = self.clock()
        with self._write() as conn:
            for code, ids in seen.items():
                class_id = select(classes.c.id).where(classes.c.code == code).scalar_subquery()
                conn.execute(
                    update(members)
                    .where(and_(members.c.class_id == class_id, members.c.member_id.in_(sorted(ids))))
                    .values(last_seen=now)
                )

    def counts(self, raw_code: object, connected_within: float = CONNECTED_SECONDS) -> Counts:
        """Students in the class; connected (seen lately); of those, following and exploring."""
        since = self.clock() - connected_within
        with self._read() as conn:
            info, _ = self._class(conn, raw_code)
            total = conn.execute(select(func.count()).where(members.c.class_id == info.id)).scalar_one()
            rows = conn.execute(
                select(members.c.following, func.count())
                .where(and_(members.c.class_id == info.id, members.c.last_seen >= since))
                .group_by(members.c.following)
            ).all()
        by = {bool(f): n for f, n in rows}
        return Counts(total, sum(by.values()), by.get(True, 0), by.get(False, 0))

    # ------------------------------------------------------------------ questions
    def ask(self, raw_code: object, key: object, kind: str, spec: Mapping, answer_key: Mapping) -> QuestionRow:
        """Put a new question to the class (round 1, open); any question still open is closed."""
        if kind not in ("quiz", "choice"):
            raise ClassError("bad_question")
        spec_text, key_text = json.dumps(dict(spec), sort_keys=True), json.dumps(dict(answer_key), sort_keys=True)
        if len(spec_text) + len(key_text) > 4 * limits.VIEW_MAX_CHARS:
            raise ClassError("bad_question")
        with self._write() as conn:
            info = self._teacher(conn, raw_code, key)
            conn.execute(
                update(questions)
                .where(and_(questions.c.class_id == info.id, questions.c.state == "open"))
                .values(state="closed")
            )
            last = conn.execute(select(func.max(questions.c.number)).where(questions.c.class_id == info.id))
            number = (last.scalar_one() or 0) + 1
            qid = conn.execute(
                insert(questions)
                .values(
                    class_id=info.id,
                    number=number,
                    kind=kind,
                    spec=spec_text,
                    answer_key=key_text,
                    round=1,
                    state="open",
                    created_at=self.clock(),
                )
                .returning(questions.c.id)
            ).scalar_one()
        return QuestionRow(qid, number, kind, json.loads(spec_text), json.loads(key_text), 1, "open")

    @staticmethod
    def _question_row(row) -> QuestionRow:
        return QuestionRow(
            row["id"],
            row["number"],
            row["kind"],
            json.loads(row["spec"]),
            json.loads(row["answer_key"]),
            row["round"],
            row["state"],
        )

    def _question(self, conn: Connection, info: ClassInfo, question_id: object) -> QuestionRow:
        if not isinstance(question_id, int) or isinstance(question_id, bool):
            raise ClassError("no_question")
        row = (
            conn.execute(select(questions).where(and_(questions.c.id == question_id, questions.c.class_id == info.id)))
            .mappings()
            .first()
        )
        if row is None:
            raise ClassError("no_question")  # also a question of another class: never read through this code
        return self._question_row(row)

    def current_question(self, raw_code: object, status: Status | None = None) -> QuestionRow | None:
        """The class's latest question. With `status` (a poll's), none is read when the status says there is none,
        and the one this process read last is returned unread while it is the question, round and state the
        status names: every student of the process redrawing after a poll shares one read."""
        code = codes.normalize_code(raw_code)
        if status is not None and code:
            if status.question is None:
                return None
            with self._shared_lock:
                kept = self._questions.get(code)
            if kept is not None and (kept.id, kept.round, kept.state) == (status.question, status.round, status.state):
                return kept
        question = self._read_question(raw_code)
        if question is not None and code:
            with self._shared_lock:
                self._questions[code] = question
                if len(self._questions) > SHARED_CLASSES:
                    self._questions.pop(next(iter(self._questions)))
        return question

    def _read_question(self, raw_code: object) -> QuestionRow | None:
        with self._read() as conn:
            info, _ = self._class(conn, raw_code)
            row = (
                conn.execute(
                    select(questions)
                    .where(questions.c.class_id == info.id)
                    .order_by(questions.c.number.desc())
                    .limit(1)
                )
                .mappings()
                .first()
            )
        return None if row is None else self._question_row(row)

    def set_state(self, raw_code: object, key: object, question_id: object, state: str) -> None:
        """close (no more votes) or reveal (the distribution and the right answer shown; voting ends too)."""
        if state not in ("closed", "revealed"):
            raise ClassError("bad_state")
        with self._write() as conn:
            info = self._teacher(conn, raw_code, key)
            q = self._question(conn, info, question_id)
            conn.execute(update(questions).where(questions.c.id == q.id).values(state=state))

    def second_round(self, raw_code: object, key: object, question_id: object) -> None:
        """Peer instruction: after discussion the same question is voted on again (round 2, once)."""
        with self._write() as conn:
            info = self._teacher(conn, raw_code, key)
            q = self._question(conn, info, question_id)
            if q.round >= 2:
                raise ClassError("no_third_round")
            conn.execute(update(questions).where(questions.c.id == q.id).values(round=2, state="open"))

    # ------------------------------------------------------------------ votes
    def vote(
        self,
        raw_code: object,
        member_id: object,
        question_id: object,
        round_: object,
        answer: str,
        correct: bool,
        mistake: str | None = None,
    ) -> bool:
        """Count one vote; True if counted now, False if this student's vote in this round was already counted.

        `answer` is the canonical text of the parsed answer (classroom.questions.grade made it, with `correct`
        and `mistake`): a student's raw input never reaches the database."""
        if not isinstance(answer, str) or not answer or len(answer) > limits.ANSWER_MAX:
            raise ClassError("bad_answer")
        self._limit(raw_code, member_id)  # before any database work: a flood costs the database nothing
        with self._write() as conn:
            info, _ = self._class(conn, raw_code)
            who = self._member(conn, info, member_id)
            q = self._question(conn, info, question_id)
            if q.state != "open" or q.round != round_:
                raise ClassError("closed")
            now = self.clock()
            result = conn.execute(
                _insert(self.engine, votes)
                .values(
                    question_id=q.id,
                    round=q.round,
                    member=who.pk,
                    answer=answer,
                    correct=bool(correct),
                    mistake=(mistake or None) and str(mistake)[:40],
                    at=now,
                )
                .on_conflict_do_nothing(index_elements=["question_id", "round", "member"])
                .returning(votes.c.id)
            ).first()
            conn.execute(update(members).where(members.c.id == who.pk).values(last_seen=now))
            return result is not None  # no row back: the conflict, this round's vote was already counted

    def my_votes(self, raw_code: object, member_id: object, question_id: object) -> dict[int, Bar]:
        """This student's counted vote in each round of a question ({round: Bar with count 1}).

        Every redraw of every student's question panel asks this: one query finds the class (by code, not ended),
        the student in it, the question in it and the student's votes on it; only when it finds no class, student
        or question do the checks below run, to say which (a refusal)."""
        code = codes.normalize_code(raw_code)
        if code is not None and codes.valid_member_id(member_id) and type(question_id) is int:
            found = select(members.c.id).join(classes, classes.c.id == members.c.class_id)
            found = found.join(questions, questions.c.class_id == classes.c.id)
            found = found.outerjoin(
                votes, and_(votes.c.member == members.c.id, votes.c.question_id == questions.c.id)
            ).where(
                and_(
                    classes.c.code == code,
                    classes.c.expires_at > self.clock(),
                    members.c.member_id == str(member_id),
                    questions.c.id == question_id,
                )
            )
            with self._read() as conn:
                rows = conn.execute(
                    found.with_only_columns(
                        members.c.id, votes.c.round, votes.c.answer, votes.c.correct, votes.c.mistake
                    )
                ).all()
            if rows:
                return {r: Bar(a, bool(c), m, 1) for _, r, a, c, m in rows if r is not None}
        with self._read() as conn:
            info, _ = self._class(conn, raw_code)
            who = self._member(conn, info, member_id)
            q = self._question(conn, info, question_id)
            rows = conn.execute(
                select(votes.c.round, votes.c.answer, votes.c.correct, votes.c.mistake).where(
                    and_(votes.c.question_id == q.id, votes.c.member == who.pk)
                )
            ).all()
        return {r: Bar(a, bool(c), m, 1) for r, a, c, m in rows}

    def tally(self, raw_code: object, question_id: object, round_: int) -> list[Bar]:
        """The distribution of one round: each answer given, how many gave it, right or a named mistake;
        most frequent first."""
        with self._read() as conn:
            info, _ = self._class(conn, raw_code)
            q = self._question(conn, info, question_id)
            rows = conn.execute(
                select(votes.c.answer, votes.c.correct, votes.c.mistake, func.count())
                .where(and_(votes.c.question_id == q.id, votes.c.round == round_))
                .group_by(votes.c.answer, votes.c.correct, votes.c.mistake)
            ).all()
        bars = [Bar(a, bool(c), m, n) for a, c, m, n in rows]
        return sorted(bars, key=lambda b: (-b.count, b.answer))

    def vote_count(self, raw_code: object, question_id: object, round_: int) -> int:
        with self._read() as conn:
            info, _ = self._class(conn, raw_code)
            q = self._question(conn, info, question_id)
            return conn.execute(
                select(func.count()).where(and_(votes.c.question_id == q.id, votes.c.round == round_))
            ).scalar_one()

    def score(self, raw_code: object, member_id: object) -> tuple[int, int]:
        """(right, answered) over the revealed questions, each by the student's last round's vote."""
        with self._read() as conn:
            info, _ = self._class(conn, raw_code)
            who = self._member(conn, info, member_id)
            rows = conn.execute(
                select(votes.c.question_id, votes.c.round, votes.c.correct)
                .join(questions, questions.c.id == votes.c.question_id)
                .where(and_(votes.c.member == who.pk, questions.c.state == "revealed"))
            ).all()
        last: dict[int, tuple[int, bool]] = {}
        for qid, r, correct in rows:
            if qid not in last or r > last[qid][0]:
                last[qid] = (r, bool(correct))
        return sum(c for _, c in last.values()), len(last)

    # ------------------------------------------------------------------ history
    def history(self, raw_code: object, key: object) -> list[dict[str, Any]]:
        """One row per vote of every question of the class, oldest first (teacher only). No personal data
        beyond the optional nickname: no id, address or browser."""
        with self._read() as conn:
            info = self._teacher(conn, raw_code, key)
            rows = (
                conn.execute(
                    select(
                        questions.c.number,
                        questions.c.kind,
                        questions.c.spec,
                        votes.c.round,
                        members.c.nickname,
                        votes.c.answer,
                        votes.c.correct,
                        votes.c.mistake,
                        votes.c.at,
                    )
                    .join(votes, votes.c.question_id == questions.c.id)
                    .join(members, members.c.id == votes.c.member)
                    .where(questions.c.class_id == info.id)
                    .order_by(questions.c.number, votes.c.round, votes.c.at, votes.c.id)
                )
                .mappings()
                .all()
            )
        out = []
        for r in rows:
            spec = json.loads(r["spec"])
            out.append(
                {
                    "question": r["number"],
                    "kind": r["kind"],
                    "quiz_uid": spec.get("uid", ""),
                    "round": r["round"],
                    "nickname": r["nickname"] or "",
                    "answer": r["answer"],
                    "correct": bool(r["correct"]),
                    "mistake": r["mistake"] or "",
                    "seconds": round(r["at"] - info.created_at, 1),
                }
            )
        return out

    def export_csv(self, raw_code: object, key: object) -> str:
        rows = self.history(raw_code, key)
        buf = io.StringIO()
        fields = ["question", "kind", "quiz_uid", "round", "nickname", "answer", "correct", "mistake", "seconds"]
        writer = csv.DictWriter(buf, fieldnames=fields)
        writer.writeheader()
        for row in rows:
            # A spreadsheet runs a cell that starts with = + - @ as a formula: a nickname cannot be one.
            row = {k: ("'" + v if isinstance(v, str) and v and v[0] in "=+-@\t\r" else v) for k, v in row.items()}
            writer.writerow(row)
        return buf.getvalue()


class _Tx:
    """`with store._write() as conn:` one transaction (BEGIN IMMEDIATE on SQLite), committed at the end."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn

    def __enter__(self) -> Connection:
        self._tx = self.conn.begin()
        return self.conn

    def __exit__(self, exc_type, exc, tb) -> None:
        try:
            if exc_type is None:
                self._tx.commit()
            else:
                self._tx.rollback()
        finally:
            self.conn.close()


_STORES: dict[str, ClassStore] = {}
_LOCK = threading.Lock()


_BY_ENV: dict[tuple[str, str], str] = {}


def open_store(url: str | None = None) -> ClassStore:
    """The process's store for `url` (default: database_url()), made and migrated once. Called on every poll:
    the default URL is worked out (a folder made) once per value of the two environment variables."""
    if url is None:
        env = (os.environ.get(DATABASE_URL_ENV, ""), os.environ.get(DATA_DIR_ENV, ""))
        url = _BY_ENV.get(env)
        if url is None:
            url = _BY_ENV[env] = database_url()
    with _LOCK:
        if url not in _STORES:
            _STORES[url] = ClassStore(make_engine(url))
        return _STORES[url]
