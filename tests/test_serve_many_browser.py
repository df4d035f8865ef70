"""scripts/serve_many.sh on loopback: two app processes behind nginx, sticky sessions, real browsers.

Every browser context is a new student (its own cookie jar). They must be spread over both
processes, every request of one student (its websocket included) must reach the same process,
and each student's slider must keep working through the proxy.
"""

from __future__ import annotations

import os
import re
import subprocess
import time
from collections import defaultdict

import pytest
from conftest import ROOT, sidebar_slider, wait_idle
from playwright.sync_api import expect
from servers import free_port, wait_healthy

import i18n

pytestmark = pytest.mark.slow  # a browser test, and a long one: the full suite only

LINE = re.compile(r'"(?P<method>\S+) (?P<path>\S+) [^"]*" (?P<status>\d+) upstream=(?P<up>\S+) route=(?P<route>\S+)')


@pytest.fixture
def two_processes(tmp_path):
    yield from serve_many(tmp_path, 2)


@pytest.fixture
def three_processes(tmp_path):
    yield from serve_many(tmp_path, 3)


def serve_many(tmp_path, n: int):
    port = free_port()
    env = dict(os.environ, PORT=str(port), ADDRESS="127.0.0.1", RUN_DIR=str(tmp_path))
    log = open(tmp_path / "serve_many.out", "w")
    proc = subprocess.Popen(
        ["bash", str(ROOT / "scripts" / "serve_many.sh"), str(n)],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:  # may include apt-get install nginx on a bare machine
        wait_healthy(url, proc, timeout=300, what=f"serve_many.sh (nginx + {n} app processes)", poll=0.5)
    except RuntimeError as e:
        proc.terminate()
        pytest.fail(f"{e}: {(tmp_path / 'serve_many.out').read_text()}")
    yield url, tmp_path
    proc.terminate()  # the script's trap stops nginx and both app processes
    try:
        proc.wait(30)
    except subprocess.TimeoutExpired:
        proc.kill()
    log.close()


def routes(run_dir, path: str = "") -> dict[str, set[str]]:
    """route key -> the app processes that served it (from nginx's access log), for paths starting with `path`."""
    served = defaultdict(set)
    for line in (run_dir / "nginx-access.log").read_text().splitlines():
        m = LINE.search(line)
        if m and m["up"] != "-" and m["path"].startswith(path):
            served[m["route"]].add(m["up"])
    return served


def test_sessions_spread_over_both_processes_and_stay_put(browser, two_processes):
    url, run_dir = two_processes
    contexts, pages, cookies = [], [], []
    try:
        # New students until both processes have some (each lands on a random one: at most 14 tries,
        # so a false failure has odds 2**-13). Only the students' own routes count: a request a browser
        # makes without cookies (the web manifest is fetched so) gets a route of its own.
        def student_processes() -> set[str]:
            served = routes(run_dir)
            keys = [next((c["value"] for c in ctx.cookies() if c["name"] == "al_route"), None) for ctx in contexts]
            return {u for key in keys if key for u in served.get(key, ())}

        while len(pages) < 4 or (len(student_processes()) < 2 and len(pages) < 14):
            context = browser.new_context(viewport={"width": 1200, "height": 900}, locale="en-US")
            page = context.new_page()
            page.set_default_timeout(60_000)
            page.goto(f"{url}/heads?d_model=64&num_heads=4&seq_len=8")
            wait_idle(page)
            expect(page.get_by_text(i18n.t("settings.d_k", "en", d_model=64, h=4, d_k=16))).to_be_visible()
            contexts.append(context)
            pages.append(page)

        # Every student's slider works through the proxy, and each student sees its own change only.
        for k, page in enumerate(pages):
            thumb = sidebar_slider(page, 1)  # num_heads: 4 -> 8 for even students, 4 -> 2 for odd ones
            thumb.focus()
            thumb.press("ArrowRight" if k % 2 == 0 else "ArrowLeft")
        for k, page in enumerate(pages):
            h = 8 if k % 2 == 0 else 2
            expect(page.get_by_text(i18n.t("settings.d_k", "en", d_model=64, h=h, d_k=64 // h))).to_be_visible()
            wait_idle(page)
            expect(page.get_by_text(i18n.t("heads.now", "en", d_model=64, h=h, d_k=64 // h, T=8))).to_be_visible()

        served = routes(run_dir)
        cookies = [next(c["value"] for c in ctx.cookies() if c["name"] == "al_route") for ctx in contexts]
        assert len(set(cookies)) == len(contexts), "every student gets their own route key"
        for key in cookies:
            assert len(served[key]) == 1, f"route {key} was served by {served[key]}: sessions must stick"
        assert len({next(iter(served[key])) for key in cookies}) == 2, "students are spread over both processes"
    finally:
        for context in contexts:
            context.close()
    # nginx logs a websocket when it closes: each student's went through its own sticky route too.
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        served = routes(run_dir, path="/_stcore/stream")
        if all(key in served for key in cookies):
            break
        time.sleep(0.5)
    for key in cookies:
        assert key in served, f"no websocket logged for route {key}"
        assert served[key] == routes(run_dir)[key], "the websocket went to the same process as the page"


def test_a_teachers_link_gets_a_process_that_no_student_shares(three_processes):
    """With 3 processes or more, the teacher's link (teacher=...) goes to the first process and every student's to
    the others: the teacher's runs, which publish each move to the class, never wait behind the students'."""
    import urllib.request

    url, run_dir = three_processes

    def get(path: str, cookie: str | None = None) -> str:
        request = urllib.request.Request(url + path, headers={"Cookie": f"al_route={cookie}"} if cookie else {})
        with urllib.request.urlopen(request, timeout=60) as response:
            return re.search(r"al_route=([^;]+)", response.headers["Set-Cookie"])[1]

    teachers = [get("/heads?class=ABCDE&teacher=k" + str(k)) for k in range(4)]
    students = [get("/heads?class=ABCDE&member=m" + str(k)) for k in range(12)]
    assert all(key.startswith("teacher-") for key in teachers) and not any(k.startswith("teacher-") for k in students)
    assert get("/class", teachers[0]) == teachers[0], "the teacher's browser keeps its key on its other pages"
    assert get("/class?teacher=k", students[0]).startswith("teacher-"), "a student's browser opening a teacher link"
    served = routes(run_dir)
    teacher_process = {u for key in teachers for u in served[key]}
    student_processes = {u for key in students for u in served[key]}
    assert len(teacher_process) == 1, teacher_process
    assert student_processes and not student_processes & teacher_process, (student_processes, teacher_process)
