"""A throwaway PostgreSQL server for the class-mode tests: Debian's postgresql (scripts/setup.sh --test installs
it), a data folder under a temp dir, a free loopback port, trust auth. PostgreSQL refuses to run as root, so as
root it runs as `nobody` (the folder is handed to that user). A server that cannot start raises: the tests that
need it fail, they never skip.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from contextlib import contextmanager
from pathlib import Path


def pg_bin() -> Path:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    if initdb:
        return Path(initdb).parent
    raise RuntimeError("PostgreSQL is not installed: run `bash scripts/setup.sh --test` (apt-get install postgresql)")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def postgres_server():
    """Yields a SQLAlchemy URL of a fresh PostgreSQL server; stops it and removes its files afterwards."""
    bindir = pg_bin()
    root = Path(tempfile.mkdtemp(prefix="al-pg-"))
    data, sock = root / "data", root / "sock"
    sock.mkdir()
    as_user: list[str] = []
    if os.geteuid() == 0:
        shutil.chown(root, "nobody")
        shutil.chown(sock, "nobody")
        os.chmod(root, 0o700)
        as_user = ["runuser", "-u", "nobody", "--"]
    port = free_port()

    def run(*args: str, timeout: float = 120) -> None:
        done = subprocess.run([*as_user, *args], capture_output=True, text=True, timeout=timeout, cwd=root)
        if done.returncode != 0:
            raise RuntimeError(f"{args[0]} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")

    try:
        run(str(bindir / "initdb"), "-D", str(data), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync")
        opts = f"-p {port} -k {sock} -c listen_addresses=127.0.0.1 -c fsync=on -c max_connections=200"
        run(str(bindir / "pg_ctl"), "-D", str(data), "-o", opts, "-l", str(root / "log"), "-w", "-t", "60", "start")
        try:
            yield f"postgresql+psycopg://postgres@127.0.0.1:{port}/postgres"
        finally:
            subprocess.run(
                [*as_user, str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"],
                capture_output=True,
                timeout=60,
            )
    finally:
        shutil.rmtree(root, ignore_errors=True)
