"""A seed typed and a page link clicked at once, N times: how often the new page comes up blank or loses the value.

    PYTHONPATH=. .venv/bin/python benchmarks/typed_then_link.py [N] [--enter]

Each try opens Home with seed 7 in a new browser context, types 9 into the seed box without Enter and clicks the Heads
page link at once (with --enter: types 9 and Enter, then clicks: the value's rerun of fragments is on its way or
running when the click comes, and its callback asks for a rerun of fragments of Home inside the server); the try
is bad when the Heads page's sections, seed=9 in the link or 9 in the seed box are not there within 8 s (a screenshot
of it goes to /tmp/typed_bad_<i>.png). Run it beside two busy loops (`python3 -c "while True: pass"`) to see the race
a slow laptop sees. Figures: benchmarks/README.md, entry page_change.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

import conftest
from playwright.sync_api import expect, sync_playwright
from servers import CHROMIUM, CHROMIUM_ARGS, Server

import i18n


def main(n: int, enter: bool = False) -> int:
    server = Server()
    bad = 0
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=[*CHROMIUM_ARGS, "--disable-quic"])
            for i in range(n):
                context = browser.new_context(viewport={"width": 1400, "height": 1000}, locale="en-US")
                page = context.new_page()
                page.goto(server.url + "/?d_model=32&seq_len=5&mask=causal&seed=7")
                conftest.wait_idle(page)
                sidebar = page.locator("[data-testid=stSidebar]")
                expect(sidebar.get_by_role("spinbutton")).to_have_value("7")
                sidebar.get_by_role("spinbutton").fill("9")
                if enter:
                    sidebar.get_by_role("spinbutton").press("Enter")
                sidebar.get_by_role("link", name=i18n.t("page.heads", "en")).click()
                try:
                    expect(page).to_have_title(re.compile(i18n.t("page.heads", "en")), timeout=8000)  # the click
                    conftest.wait_idle(page)
                    expect(page.locator("[data-testid=stMain] .st-key-heads_tab_tabs")).to_be_visible(timeout=8000)
                    expect(page).to_have_url(re.compile(r"/heads\?.*seed=9"), timeout=8000)
                    expect(sidebar.get_by_role("spinbutton")).to_have_value("9", timeout=8000)
                except AssertionError as e:
                    bad += 1
                    page.screenshot(path=f"/tmp/typed_bad_{i}.png")
                    print(f"try {i}: {str(e).splitlines()[0]} ({page.url})", flush=True)
                context.close()
    finally:
        server.stop()
    print(f"bad {bad} of {n}")
    return bad


if __name__ == "__main__":
    numbers = [a for a in sys.argv[1:] if a.isdigit()]
    main(int(numbers[0]) if numbers else 20, enter="--enter" in sys.argv)
