"""Shared fixtures: AppTest runs of the app, and a real Streamlit server driven by Chromium.

Browser tests never skip: a missing Chromium or Playwright is a failure (see .ci/run).
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
import servers
from servers import CHROMIUM, Server

ROOT = Path(__file__).resolve().parent.parent
APP = ROOT / "app.py"
# The tests' pages live seconds: V8's optimizing compilers (TurboFan, Maglev) spend the renderer's CPU on code that
# is gone before it pays back; without them a browser test file takes ~13 % less time and its renderer ~24 % less
# CPU (benchmarks/README.md). The benchmarks keep servers.CHROMIUM_ARGS, V8 as a student's browser runs it.
CHROMIUM_ARGS = [*servers.CHROMIUM_ARGS, "--disable-quic", "--js-flags=--no-opt --no-maglev"]
IDLE = "[data-testid=stApp][data-test-script-state=notRunning]"
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


# ---------------------------------------------------------------- class mode's store
@pytest.fixture(scope="session", autouse=True)
def _class_store_in_a_temp_folder(tmp_path_factory):
    """Class mode's SQLite store (classroom/store.py) in pytest's temp folder, not the repository's data/: the tests
    write nothing there, and parallel workers (pytest-xdist) never share a database. The servers the tests start
    inherit it."""
    import os

    if "ATTENTION_LAB_DATA_DIR" in os.environ:
        yield
        return
    os.environ["ATTENTION_LAB_DATA_DIR"] = str(tmp_path_factory.mktemp("classes"))
    yield
    os.environ.pop("ATTENTION_LAB_DATA_DIR", None)


# ---------------------------------------------------------------- test tiers (pytest.ini)
# Every test is in exactly one tier: `unit` (the default), `app` (AppTest), `browser` (Chromium; any test that
# uses a real server or the browser fixtures is one) or `slow`. `bash scripts/test.sh --fast` runs
# `-m "unit or smoke"`. A unit test that starts the app or a server fails and says which mark it needs, so the
# fast tier stays fast without anyone keeping a list.
TIERS = ("unit", "app", "browser", "slow")
_BROWSER_FIXTURES = {"page", "browser", "server", "fresh_server"}


@pytest.hookimpl(tryfirst=True)  # the tiers before `-m` deselects them
def pytest_collection_modifyitems(config, items):
    for item in items:
        tiers = {m.name for m in item.iter_markers() if m.name in TIERS}
        if not tiers:
            callspec = getattr(item, "callspec", None)  # a parametrized argument named `page` is no fixture
            fixtures = set(item.fixturenames) - set(callspec.params if callspec else ())
            tiers = {"browser" if _BROWSER_FIXTURES & fixtures else "unit"}
            item.add_marker(next(iter(tiers)))
        if len(tiers) > 1:
            raise pytest.UsageError(f"{item.nodeid}: in tiers {sorted(tiers)}; a test is in exactly one of {TIERS}")
    # The longest files first: xdist hands out whole files (`--dist loadfile`) in this order, so the suite's last
    # minute is short unit files on both workers, not one browser file on one worker while the other waits.
    heaviest = {}
    for item in items:
        rank = _RUN_FIRST[_tier(item)]
        heaviest[item.path] = min(rank, heaviest.get(item.path, rank))
    items.sort(key=lambda item: heaviest[item.path])  # stable: each file's own order is kept


_RUN_FIRST = {"browser": 0, "slow": 0, "app": 1, "unit": 2}


def _tier(item) -> str:
    return next(m.name for m in item.iter_markers() if m.name in TIERS)


@pytest.fixture(autouse=True)
def _unit_tests_stay_unit(request, monkeypatch):
    """A test in the unit tier may not run the app (AppTest) or start a server: it would slow the fast tier."""
    if _tier(request.node) != "unit":
        return

    def refuse(what: str, mark: str):
        def refused(*args, **kwargs):
            pytest.fail(f"{what} in a unit test: mark it `@pytest.mark.{mark}` (tiers: pytest.ini)", pytrace=False)

        return refused

    from streamlit.testing.v1 import AppTest

    monkeypatch.setattr(AppTest, "run", refuse("AppTest.run()", "app"))
    monkeypatch.setattr(Server, "__init__", refuse("a real server", "browser` or `@pytest.mark.slow"))


# ---------------------------------------------------------------- asyncio beside Playwright
def run_async(coro):
    """asyncio.run(coro) in a thread of its own: Playwright's sync API (the session's browser fixture) keeps an event
    loop running in this thread once a browser test has run, and asyncio.run refuses to start inside it."""
    import asyncio
    import concurrent.futures

    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


# ---------------------------------------------------------------- torch
@pytest.fixture(scope="module")
def one_torch_thread():
    """Tiny tensors: one thread is fastest, and avoids OpenMP spin-waits when the machine is busy.

    Use per module: `pytestmark = pytest.mark.usefixtures("one_torch_thread")`.
    """
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


# ---------------------------------------------------------------- AppTest
def _scan_installed_components_once() -> None:
    """Each new AppTest scans every installed distribution's metadata for component manifests (0.09 CPU-s, three
    quarters of a cached page's whole run, ~1,400 times a suite); what is installed does not change while the
    tests run, so the first scan's answer serves them all. Without the scanner where it is, the tests only run
    slower."""
    import functools

    try:
        from streamlit.components.v2 import manifest_scanner
    except ImportError:
        return
    scan = getattr(manifest_scanner, "scan_component_manifests", None)
    if scan is not None and not hasattr(scan, "cache_info"):
        manifest_scanner.scan_component_manifests = functools.cache(scan)


_scan_installed_components_once()


def run_app(page: str | None = None, timeout: float = 60, **params):
    """Run app.py headless with URL query params, on pages/<page>.py when given (home otherwise).

    Returns the AppTest after the run (check `.exception`).
    """
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(APP), default_timeout=timeout)
    at.query_params.update({k: str(v) for k, v in params.items()})
    if page is not None:  # like opening the deep link /<page>?... directly
        at.switch_page(f"pages/{page}.py")
    at.run()
    return at


def finish_queued_job(at, ticket_key: str, results_key: str, timeout: float = 120) -> None:
    """After a click that asked the server's heavy-work queue (ui/work_queue.py) for a job: wait until the job has
    finished, then rerun so the page draws it. A short job may finish before the click's own run reaches the page's
    `collect`, which then takes the result at once and gives the ticket back: no ticket is left to wait for (a CI
    failure on a busy machine), and the result is already under `results_key`."""
    if ticket_key in at.session_state:
        assert at.session_state[ticket_key].job.finished.wait(timeout)
    else:
        assert at.session_state[results_key], f"no ticket under {ticket_key!r} and no result under {results_key!r}"
    at.run(timeout=timeout)


def before_any_training() -> None:
    """The why-heads page as a new process shows it, before any training: its results are kept for the whole process,
    so a test file that trained earlier in the same worker would add the results' chart and tabs (seen in CI)."""
    from ui.cache import forget_process_wide

    forget_process_wide("why-heads.results")


def in_both_languages(*dimensions) -> list[tuple]:
    """Every combination of `dimensions`, each in one language, alternating ("zh", "en") like a chequerboard: each
    value of each dimension still meets both languages (given two values or more of another dimension), and every
    pair of values meets, in half the runs of crossing them with the language too. The text in a language comes
    from the same code at any size or section (i18n/ checks every string has both), so the full cross repeated it.
    """
    import itertools

    out = []
    for combo in itertools.product(*(list(enumerate(d)) for d in dimensions)):
        lang = ("zh", "en")[sum(i for i, _ in combo) % 2]
        out.append((*(v for _, v in combo), lang))
    return out


class ShownTable:
    """One table a page showed (ui/tables.py: HTML in a markdown element), read like AppTest's table: `.value` is
    a DataFrame of the printed cells."""

    def __init__(self, columns: dict[str, list[str]]):
        import pandas as pd

        self.value = pd.DataFrame(columns)


def tables(at) -> list[ShownTable]:
    """Every table of the run, in page order (no st.table is left on a page: tests/test_speed_guards.py)."""
    from charts.table import BOX_CLASS, read_html

    return [
        ShownTable(columns)
        for m in at.markdown
        if f'class="{BOX_CLASS}"' in str(m.value)
        for columns in read_html(str(m.value))
    ]


def heatmap_tables(at) -> list:
    """The heatmaps' table view (ui/heatmaps.show_tables), one DataFrame per panel in page order: the printed
    values, indexed by the row labels, the column labels as columns."""
    from charts.table import read_html

    frames = []
    for m in at.markdown:
        if 'data-kind="heatmap"' in str(m.value):
            for columns in read_html(str(m.value)):
                frame = ShownTable(columns).value
                frames.append(frame.set_index(frame.columns[0]))
    return frames


def sections(at) -> list[str]:
    """The labels of the page's section switch (ui/sections.lazy_tabs: one segmented control keyed `<key>_tabs`)."""
    return [label for g in at.button_group if str(g.key or "").endswith("_tabs") for label in g.options]


# ---------------------------------------------------------------- a real server (tests/servers.py)
@pytest.fixture(scope="session")
def server():
    """One server for the whole session (warm: pages may already have been visited)."""
    (ROOT / "test-results").mkdir(exist_ok=True)
    s = Server(log_dir=ROOT / "test-results")
    yield s
    s.stop()


@pytest.fixture
def fresh_server():
    """A server that has just started and has served nothing yet (for deep-link tests)."""
    (ROOT / "test-results").mkdir(exist_ok=True)
    s = Server(log_dir=ROOT / "test-results")
    yield s
    s.stop()


# ---------------------------------------------------------------- the browser
try:
    from playwright.sync_api import expect as _expect

    # Playwright's `expect` waits 5 s by default; on a shared 2-core CI machine a rerun with charts can take
    # longer. Waiting longer never makes a passing test fail; it only stops slow moments from failing one.
    _expect.set_options(timeout=30_000)
except ImportError:  # the browser fixture reports it (a failure, not a skip)
    pass


@pytest.fixture(scope="session")
def browser():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as e:  # a failure, not a skip: CI must notice
        pytest.fail(f"playwright is not installed ({e}); run scripts/test.sh")
    executable = CHROMIUM if Path(CHROMIUM).exists() else shutil.which("chromium")
    with sync_playwright() as p:
        try:
            # Debian's Chromium where present; otherwise Playwright's own (e.g. on macOS).
            b = (
                p.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
                if executable
                else p.chromium.launch(args=CHROMIUM_ARGS)
            )
        except Exception as e:  # noqa: BLE001 (any launch failure: the suite must fail, not skip)
            pytest.fail(f"cannot start Chromium ({e}); install Debian's chromium (scripts/setup.sh --test)")
        yield b
        b.close()


@pytest.fixture(scope="session")
def _pages_context(browser):
    """The context of the `page` fixture's pages, one per test process: its HTTP cache, and the compiled scripts V8
    keeps beside it, are shared, so a test's first load does not fetch and compile Streamlit's scripts again (0.4-0.6
    s a load, benchmarks/README.md). A test that needs a browser of its own (another student, a copied link opened
    elsewhere, a blocked network) makes its own context."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, locale="en-US")
    yield context
    context.close()


@pytest.fixture
def page(_pages_context):
    pg = _pages_context.new_page()
    pg.set_default_timeout(60_000)
    yield pg
    # What a page leaves for the next test's: Streamlit's frontend keeps the sidebar's state in localStorage.
    if not pg.is_closed() and pg.url.startswith("http"):
        pg.evaluate("() => { localStorage.clear(); sessionStorage.clear(); }")
    pg.close()
    _pages_context.clear_cookies()


LINK_WRITTEN = "() => !window.__alLinkPending"  # ui/seam/client_batching.js delivers the server's link after the paint


def wait_idle(page) -> None:
    """Wait until Streamlit has finished the current run and the link it wrote is in the address bar (then
    `expect` the new content)."""
    page.wait_for_selector(IDLE, timeout=60_000)
    page.wait_for_function(LINK_WRITTEN, timeout=60_000)


def current_link(page) -> str:
    """The address bar, once the link the server last wrote is in it (ui/seam/client_batching.js hands it to
    Streamlit's client after the step has been painted)."""
    page.wait_for_function(LINK_WRITTEN, timeout=60_000)
    return page.url


def open_app(page, server, path: str = "", **params) -> None:
    from urllib.parse import urlencode

    query = ("?" + urlencode(params)) if params else ""
    page.goto(f"{server.url}/{path}{query}")
    wait_idle(page)


def pick_option(page, key: str, option: str) -> None:
    """Open the select box with this widget key and click `option` in its list. Once, without retrying: a list
    that closes under the click is a fault of the app to find, not one for the test to press through."""
    wait_idle(page)
    page.locator(f".st-key-{key}").get_by_role("combobox").click()
    page.get_by_role("option", name=option, exact=True).click()


def sidebar_slider(page, index: int):
    """The draggable thumb of the index-th slider in the sidebar (0 d_model, 1 num_heads, 2 seq_len)."""
    return page.locator("[data-testid=stSidebar] [data-testid=stSlider]").nth(index).get_by_role("slider")


def click_mask_cell(page, row: int, col: int, seq: int = 0) -> None:
    """Click cell (row, col) of the Masks lab's hand-drawn mask: its own chart, the first of the sequence's three.

    The chart (a canvas: static/heatmaps.js) says where the centre of cell (row, col) is on the page.
    """
    chart = page.locator(f".st-key-masks_click_{seq} .al-chart").first
    chart.scroll_into_view_if_needed()
    page.wait_for_function("el => el.__alChart && el.__alChart.g", arg=chart.element_handle())
    x, y = chart.evaluate("(box, cell) => box.__alChart.cellPoint(0, cell[0], cell[1])", [row, col])
    page.mouse.move(x, y)
    page.mouse.click(x, y)
