"""A real Streamlit server on a free loopback port, shared by the browser tests (conftest.py) and
the browser benchmarks (benchmarks/bench_browser.py, bench_sessions.py), so both start the app the
same way: from the repository root (with its .streamlit/config.toml), headless, no usage statistics.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
APP = ROOT / "app.py"
SERVE = (
    ROOT / "serve.py"
)  # app.py as the browser gets it (with ui/seam/client_batching.js), as scripts/start.sh runs it


# The browser the tests and benchmarks drive (Debian's chromium), headless and quiet: no GPU, none of its own
# network traffic, no first-run work, so what it does is the page's.
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_healthy(url: str, proc: subprocess.Popen, *, timeout: float, what: str, poll: float = 0.3) -> None:
    """Wait until `url`/_stcore/health answers 200; RuntimeError if `proc` exits or time runs out."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(poll)
    raise RuntimeError(f"{what} did not become healthy within {timeout:.0f} s")


class Server:
    """`streamlit run script` on a free loopback port; its output goes to `log_dir`/streamlit-<port>.log
    when that folder exists (CI keeps test-results/), else nowhere."""

    def __init__(self, script: Path = SERVE, *, log_dir: Path | None = None, timeout: float = 90):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = (
            open(log_dir / f"streamlit-{self.port}.log", "w") if log_dir and log_dir.is_dir() else subprocess.DEVNULL
        )
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "streamlit",
                "run",
                str(script),
                "--server.port",
                str(self.port),
                "--server.address",
                "127.0.0.1",
                "--server.headless",
                "true",
                "--browser.gatherUsageStats",
                "false",
            ],
            cwd=ROOT,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        try:
            wait_healthy(self.url, self.proc, timeout=timeout, what=script.name)
        except RuntimeError:
            self.stop()
            raise

    def rss_kb(self) -> int:
        """Resident memory of the server process (VmRSS from /proc), in KiB."""
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        raise RuntimeError("no VmRSS")

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
