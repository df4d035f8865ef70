"""Run INSIDE a private network namespace (tests/test_offline_network_browser.py starts it with `unshare -n -m`):
a classroom network whose DNS resolver never answers.

It puts a silent "resolver" on the loopback address /etc/resolv.conf names (a UDP socket that reads
every query and answers none), starts the app the way scripts/start.sh starts it, and measures:

- `health_s`: seconds from start until /_stcore/health answers 200;
- `foreign`: for three websockets opened at once with an Origin that is not allowed, the HTTP status
  of the handshake (403 = refused) and the seconds it took;
- `steps_s`: while those three connect, another student's slider steps (Chromium), seconds each.

Prints one JSON line (`PROBE {...}`) and exits. Usage: python tests/offline_probe.py <resolver ip> [cmd...]
(the command defaults to `bash scripts/start.sh` with SETUP=0: nothing is installed in the namespace).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))


def silent_resolver(ip: str) -> socket.socket:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind((ip, 53))

    def swallow() -> None:
        while True:
            try:
                s.recvfrom(4096)  # read, never answer: the query times out in the client
            except OSError:
                return

    threading.Thread(target=swallow, daemon=True).start()
    return s


def foreign_ws(port: int, out: list, i: int) -> None:
    t0 = time.monotonic()
    req = (
        f"GET /_stcore/stream HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
        "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
        "Sec-WebSocket-Protocol: streamlit\r\nOrigin: http://evil.example:1234\r\n\r\n"
    ).encode()
    status = None
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=60) as c:
            c.sendall(req)
            line = c.recv(200).split(b"\r\n", 1)[0].decode("latin-1")
            status = int(line.split()[1]) if line.startswith("HTTP/") else line
    except OSError as e:
        status = repr(e)
    out[i] = {"status": status, "s": round(time.monotonic() - t0, 2)}


def main() -> None:
    resolver_ip = sys.argv[1]
    cmd = sys.argv[2:] or ["bash", "scripts/start.sh"]
    resolver = silent_resolver(resolver_ip)
    from servers import free_port

    port = free_port()
    env = dict(os.environ, PORT=str(port), SETUP="0")
    t0 = time.monotonic()
    proc = subprocess.Popen(
        cmd + ["--server.port", str(port)] if cmd[0] != "bash" else cmd,
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    result: dict = {}
    try:
        health = None
        while time.monotonic() - t0 < 90:
            if proc.poll() is not None:
                raise RuntimeError(f"server exited: {proc.stdout.read()[-2000:]}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=60) as r:
                    if r.status == 200:
                        health = time.monotonic() - t0
                        break
            except OSError:
                time.sleep(0.1)
        result["health_s"] = round(health, 2) if health is not None else None

        from conftest import CHROMIUM_ARGS, IDLE
        from playwright.sync_api import sync_playwright

        import i18n

        with sync_playwright() as p:
            b = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
            page = b.new_page(viewport={"width": 1400, "height": 1000}, locale="en-US")
            page.set_default_timeout(120_000)
            page.goto(f"http://127.0.0.1:{port}/?d_model=64&num_heads=4")
            page.wait_for_selector(IDLE)
            thumb = page.locator("[data-testid=stSidebar] [data-testid=stSlider]").nth(1).get_by_role("slider")
            cap = lambda h: i18n.t("settings.d_k", "en", d_model=64, h=h, d_k=64 // h)  # noqa: E731
            foreign: list = [None] * 3
            threads = [threading.Thread(target=foreign_ws, args=(port, foreign, i)) for i in range(3)]
            for th in threads:
                th.start()
            steps = []
            for key, h in (("ArrowRight", 8), ("ArrowLeft", 4), ("ArrowRight", 8)):
                s0 = time.monotonic()
                thumb.focus()
                page.keyboard.press(key)
                page.get_by_text(cap(h)).first.wait_for()
                page.wait_for_selector(IDLE)
                steps.append(round(time.monotonic() - s0, 2))
            for th in threads:
                th.join(90)
            result["foreign"] = foreign
            result["steps_s"] = steps
            b.close()
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
        resolver.close()
    print("PROBE " + json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
