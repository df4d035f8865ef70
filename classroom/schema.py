"""The tables of class mode and the ordered migrations that create and change them.

The app migrates its own database at start (migrate(engine)): a table `schema_version` holds the number of the
last migration applied, and each migration in MIGRATIONS runs once, in order, inside one transaction with that
number's update. Several app processes starting at once take a lock first (PostgreSQL: an advisory lock; SQLite:
BEGIN IMMEDIATE), so exactly one of them runs a migration and the others find it done. A new migration is
appended to MIGRATIONS, never edited in place once released.

Times are seconds since the epoch (float): one representation on both databases, compared with the server clock.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import (
    Boolean,
    Column,
    Connection,
    Engine,
    Float,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    insert,
    select,
    text,
    update,
)

metadata = MetaData()

schema_version = Table(
    "schema_version",
    metadata,
    Column("id", Integer, primary_key=True),  # always 1: one row
    Column("version", Integer, nullable=False),
)

classes = Table(
    "classes",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("code", String(8), nullable=False, unique=True),
    Column("teacher_key_hash", String(64), nullable=False),
    Column("created_at", Float, nullable=False),
    Column("expires_at", Float, nullable=False),
    Column("view", Text, nullable=False, default="{}"),  # the teacher's current view, JSON of neutral values
    Column("view_version", Integer, nullable=False, default=0),
)

members = Table(
    "members",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("class_id", Integer, ForeignKey("classes.id", ondelete="CASCADE"), nullable=False),
    Column("member_id", String(16), nullable=False),  # random, in the student's link: a reload rejoins
    Column("nickname", String(24), nullable=True),  # optional, bounded, shown as inert text
    Column("following", Boolean, nullable=False, default=True),
    Column("joined_at", Float, nullable=False),
    Column("last_seen", Float, nullable=False),
    UniqueConstraint("class_id", "member_id", name="uq_member"),
)

questions = Table(
    "questions",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("class_id", Integer, ForeignKey("classes.id", ondelete="CASCADE"), nullable=False),
    Column("number", Integer, nullable=False),  # 1, 2, ... within the class
    Column("kind", String(8), nullable=False),  # quiz | choice
    Column("spec", Text, nullable=False),  # JSON: quiz -> settings + index; choice -> options + right one
    Column("answer_key", Text, nullable=False),  # JSON: the right answer (canonical text) and the known mistakes
    Column("round", Integer, nullable=False, default=1),  # 1, or 2 after a peer-instruction second vote
    Column("state", String(10), nullable=False, default="open"),  # open | closed | revealed
    Column("created_at", Float, nullable=False),
    UniqueConstraint("class_id", "number", name="uq_question_number"),
)

votes = Table(
    "votes",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("question_id", Integer, ForeignKey("questions.id", ondelete="CASCADE"), nullable=False),
    Column("round", Integer, nullable=False),
    Column("member", Integer, ForeignKey("members.id", ondelete="CASCADE"), nullable=False),
    Column("answer", String(120), nullable=False),  # canonical text of the parsed answer
    Column("correct", Boolean, nullable=False),
    Column("mistake", String(40), nullable=True),  # a named known mistake (quiz.mistake.<id>), if any
    Column("at", Float, nullable=False),
    # One vote per student per round, enforced by the database itself (first wins: store.vote).
    UniqueConstraint("question_id", "round", "member", name="uq_vote"),
)


def _v1_tables(conn: Connection) -> None:
    for table in (classes, members, questions, votes):
        table.create(conn, checkfirst=True)


def _v2_indexes(conn: Connection) -> None:
    # The projector's counts (members seen lately, per class) and tallies (votes per question and round) run
    # every second: without these, both scan whole tables.
    # Plain DDL, not sqlalchemy.Index objects: those attach themselves to the tables, and v1's create() would then
    # make them too.
    conn.execute(text("CREATE INDEX IF NOT EXISTS ix_members_seen ON members (class_id, last_seen)"))
    conn.execute(text("CREATE INDEX IF NOT EXISTS ix_votes_round ON votes (question_id, round)"))


MIGRATIONS: tuple[Callable[[Connection], None], ...] = (_v1_tables, _v2_indexes)
LATEST = len(MIGRATIONS)


def current_version(conn: Connection) -> int:
    schema_version.create(conn, checkfirst=True)
    row = conn.execute(select(schema_version.c.version).where(schema_version.c.id == 1)).first()
    return 0 if row is None else int(row[0])


def migrate(engine: Engine) -> int:
    """Apply every migration not applied yet; returns the version reached. Safe from several processes."""
    with engine.connect() as conn:
        if engine.dialect.name == "postgresql":
            with conn.begin():
                conn.execute(text("SELECT pg_advisory_xact_lock(734001)"))  # released at commit
                return _apply(conn)
        conn = conn.execution_options(immediate=True)  # SQLite: BEGIN IMMEDIATE (store.sqlite_engine)
        with conn.begin():
            return _apply(conn)


def _apply(conn: Connection) -> int:
    version = current_version(conn)
    if version > LATEST:
        raise RuntimeError(f"the class database is at schema version {version}, newer than this app ({LATEST})")
    if conn.execute(select(schema_version.c.id)).first() is None:
        conn.execute(insert(schema_version).values(id=1, version=0))
    for number in range(version + 1, LATEST + 1):
        MIGRATIONS[number - 1](conn)
        conn.execute(update(schema_version).where(schema_version.c.id == 1).values(version=number))
    return LATEST
