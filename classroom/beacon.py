"""The class's version file: a few bytes a student's browser fetches every half second, so that a poll which finds
nothing new costs the app no Python at all (ui/classmode.py: the poll component reruns only when the file changed).

A file per class, in static/class/ (served by Streamlit at /app/static/class/, and by nginx straight from the folder
in scripts/serve_many.sh). Its name is an HMAC of the class code under a secret kept in the data folder, so the name
says nothing about the code and a code cannot be turned into a name without the secret; members get the name from
the server. Its content is counters only (the view's version, the current question, its round and state): nothing
of a student's and nothing of the teacher's view.

Several processes (and machines) share one database, and a teacher's move is written to it by one of them only, so
every process keeps the files of the classes whose members it serves in sync with the database itself: one daemon
thread per process reads each such class's status every WATCH_EVERY seconds (through the store's shared status, so
the polls of its sessions and the thread make one read between them) and rewrites the file when it changed. Two
processes that write the same file write the same bytes (both read the database), each atomically (a temporary file
and os.replace), so a fetch never sees half a file; a process that read just before another's newer write may put
the older content back for one round, which costs a browser one needless check, never a missed change (the check
reads the status afresh when the file said more than the process knew). A class that ended or expired: its file is
removed, and the browser's fetch, refused, runs the check that says so.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import threading
import time
from pathlib import Path

from classroom.store import DATA_DIR_ENV, DEFAULT_DATA_DIR, ClassError, ClassStore, Status

ROOT = Path(__file__).resolve().parent.parent
BEACON_DIR = ROOT / "static" / "class"  # static/ is served at /app/static/ (enableStaticServing)
URL_PREFIX = "app/static/class/"
SECRET_FILE = "beacon.secret"
WATCH_EVERY = 0.25  # seconds between the thread's rounds (the store's shared status is at most this old)
FORGET_AFTER = 60.0  # a class no session of this process has polled for this long is no longer kept in sync


def content(status: Status) -> str:
    """What the file says: counters only. The same status always gives the same text (the browser compares texts)."""
    return json.dumps([status.view_version, status.question, status.round, status.state], separators=(",", ":"))


def load_secret(folder: Path) -> bytes:
    """The data folder's secret (made once, by whichever process comes first: written whole, then linked into place,
    so no process reads half of it)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / SECRET_FILE
    try:
        return bytes.fromhex(path.read_text().strip())
    except (FileNotFoundError, ValueError):
        pass
    tmp = folder / f".{SECRET_FILE}.{os.getpid()}.{secrets.token_hex(4)}"
    tmp.write_text(secrets.token_hex(32))
    tmp.chmod(0o600)
    try:
        os.link(tmp, path)  # fails if another process made it first: theirs is kept
    except FileExistsError:
        pass
    finally:
        tmp.unlink(missing_ok=True)
    return bytes.fromhex(path.read_text().strip())


class Beacons:
    """This process's version files: name_of(code), seen(code, status) from any poll, and the thread that keeps the
    watched classes in sync (started by the first watch)."""

    def __init__(
        self, store: ClassStore, folder: Path = BEACON_DIR, secret: bytes | None = None, thread: bool = True
    ) -> None:
        self.store = store
        self.thread = thread  # False: rounds only when sync() is called (the tests)
        self.folder = folder
        self.secret = (
            secret if secret is not None else load_secret(Path(os.environ.get(DATA_DIR_ENV) or DEFAULT_DATA_DIR))
        )
        self.folder.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._watched: dict[str, float] = {}  # code -> when a session of this process last polled it
        self._written: dict[str, str] = {}  # code -> the content this process last wrote
        self._thread: threading.Thread | None = None

    def name_of(self, code: str) -> str:
        return hmac.new(self.secret, code.encode(), hashlib.sha256).hexdigest()[:32] + ".json"

    def url_of(self, code: str) -> str:
        return URL_PREFIX + self.name_of(code)

    def watch(self, code: str, status: Status | None = None) -> None:
        """A session of this process is in this class: keep its file in sync for FORGET_AFTER seconds (`status`,
        the one its poll read: the file's first content, so it is there before the browser's first fetch). Later
        writes are the thread's only: a poll's status may be older than the one the thread wrote."""
        with self._lock:
            self._watched[code] = time.monotonic()
            first = code not in self._written
            if self._thread is None and self.thread:
                self._thread = threading.Thread(target=self._run, name="class-beacons", daemon=True)
                self._thread.start()
        if first and status is not None:
            self.seen(code, status)

    def seen(self, code: str, status: Status) -> None:
        """A status read for this class: the file says it (written only when it differs from this process's last
        write; under the lock, so the file is always the last content this process decided on)."""
        text = content(status)
        with self._lock:
            if self._written.get(code) != text:
                self._written[code] = text
                self._write(code, text)

    def _write(self, code: str, text: str) -> None:
        path = self.folder / self.name_of(code)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}")
        try:
            tmp.write_text(text)
            os.replace(tmp, path)  # atomic: a fetch reads the old file or the new one, never half
        except OSError:
            self.folder.mkdir(parents=True, exist_ok=True)  # removed under us (a clean checkout): the next round
            self._written.pop(code, None)

    def gone(self, code: str) -> None:
        (self.folder / self.name_of(code)).unlink(missing_ok=True)
        with self._lock:
            self._written.pop(code, None)
            self._watched.pop(code, None)

    def sync(self, max_age: float = WATCH_EVERY) -> None:
        """One round: each watched class's status (shared, at most max_age old) into its file; forgotten classes
        dropped."""
        now = time.monotonic()
        with self._lock:
            for code in [c for c, at in self._watched.items() if now - at > FORGET_AFTER]:
                del self._watched[code]
                self._written.pop(code, None)
            codes = list(self._watched)
        for code in codes:
            try:
                self.seen(code, self.store.status(code, max_age))
            except ClassError:
                self.gone(code)
            except Exception:  # noqa: BLE001 - the database away for a moment: the next round tries again
                pass

    def _run(self) -> None:
        while True:
            time.sleep(WATCH_EVERY)
            self.sync()


_BEACONS: dict[int, Beacons] = {}
_LOCK = threading.Lock()


def beacons_for(store: ClassStore) -> Beacons:
    """The process's Beacons for this store (one thread per store)."""
    with _LOCK:
        if id(store) not in _BEACONS:
            _BEACONS[id(store)] = Beacons(store)
        return _BEACONS[id(store)]
