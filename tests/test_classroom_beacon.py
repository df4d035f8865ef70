"""classroom/beacon.py: the class's version file (the name a secret's HMAC of the code, counters only, written
atomically, kept in sync from the database by any process, removed when the class ends)."""

from __future__ import annotations

import json
import os
import stat

import pytest

from classroom import beacon as B
from classroom.store import ClassStore, make_engine


@pytest.fixture
def stores(tmp_path):
    """Two processes' stores on one database (each its own shared status)."""
    (tmp_path / "db").mkdir()
    url = f"sqlite:///{tmp_path / 'db' / 'classes.sqlite3'}"
    return ClassStore(make_engine(url)), ClassStore(make_engine(url))


def test_the_name_says_nothing_of_the_code_and_needs_the_secret(tmp_path, stores):
    store, _ = stores
    code, _ = store.create_class()
    a = B.Beacons(store, tmp_path / "a", secret=b"1" * 32)
    b = B.Beacons(store, tmp_path / "b", secret=b"2" * 32)
    name = a.name_of(code)
    assert code.lower() not in name.lower() and code.upper() not in name
    assert name != b.name_of(code)  # another secret, another name: the code alone does not give it
    assert len(name) == 32 + len(".json") and int(name[:32], 16) >= 0
    assert a.url_of(code) == "app/static/class/" + name


def test_the_secret_is_made_once_and_kept_private(tmp_path):
    first = B.load_secret(tmp_path)
    assert B.load_secret(tmp_path) == first and len(first) == 32
    assert stat.S_IMODE((tmp_path / B.SECRET_FILE).stat().st_mode) == 0o600
    assert [p.name for p in tmp_path.iterdir()] == [B.SECRET_FILE]  # no temporary file left


def test_the_file_follows_the_database_from_any_process(tmp_path, stores):
    teacher_store, student_store = stores
    code, key = teacher_store.create_class()
    # This process serves a member of the class: its poll saw the status once; its thread's rounds do the rest.
    beacons = B.Beacons(student_store, tmp_path / "class", secret=b"s" * 32, thread=False)
    beacons.watch(code, student_store.status(code))
    path = tmp_path / "class" / beacons.name_of(code)
    before = path.read_text()
    assert json.loads(before) == [0, None, 0, ""]  # counters only
    # The teacher moves, through another process's store: this process's round sees it in the database.
    teacher_store.set_view(code, key, {"page": "heads", "seq_len": "7"})
    beacons.sync(max_age=0)
    moved = path.read_text()
    assert moved != before and json.loads(moved)[0] == 1
    assert "heads" not in moved and "seq_len" not in moved  # nothing of the view itself
    teacher_store.ask(code, key, "choice", {"options": ["A", "B"]}, {"right": "A"})
    beacons.sync(max_age=0)
    assert json.loads(path.read_text())[2:] == [1, "open"]
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]  # no temporary file left
    # The class ends: the file is removed (the browser's refused fetch runs the check that says so).
    teacher_store.end_class(code, key)
    beacons.sync(max_age=0)
    assert not path.exists()


def test_a_write_is_atomic(tmp_path, stores, monkeypatch):
    """The file is the old content or the new, never part of one: written beside it and moved into place."""
    store, _ = stores
    code, key = store.create_class()
    beacons = B.Beacons(store, tmp_path, secret=b"s" * 32, thread=False)
    beacons.watch(code, store.status(code))
    path = tmp_path / beacons.name_of(code)
    old = path.read_text()
    moves = []

    def replace(src, dst):
        moves.append((os.fspath(src), os.fspath(dst)))
        assert path.read_text() == old  # the new content is complete in the temporary file before the move
        raise OSError("disk full")

    monkeypatch.setattr(B.os, "replace", replace)
    store.set_view(code, key, {"page": "heads"})
    beacons.sync(max_age=0)
    assert moves and moves[0][1] == str(path) and path.read_text() == old
    monkeypatch.undo()
    beacons.sync(max_age=0)  # the failed write is tried again at the next round
    assert json.loads(path.read_text())[0] == 1


def test_a_class_nobody_polls_is_let_go(tmp_path, stores, monkeypatch):
    store, _ = stores
    code, _ = store.create_class()
    beacons = B.Beacons(store, tmp_path, secret=b"s" * 32, thread=False)
    beacons.watch(code, store.status(code))
    monkeypatch.setattr(B, "FORGET_AFTER", -1.0)
    beacons.sync(max_age=0)
    assert code not in beacons._watched
