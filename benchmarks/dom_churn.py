"""DOM nodes one slider step adds and removes in the main area, per view: does a step mount anything anew?

    .venv/bin/python benchmarks/dom_churn.py "/masks?masks_tab=grid&lang=en" "/positions?pos_tab=rope"

For each URL: a new seed typed (not counted), then seq_len one notch with the keyboard (as bench_browser.py steps),
4 times; a MutationObserver on the main area counts the element nodes each step adds and removes (with their
descendants) and names the kind of element added (its data-testid, and the first one inside it). A container or
element that the browser mounted anew shows as its whole subtree removed and added; one that was re-rendered in place
shows as nothing, or as only the text that changed. Findings: benchmarks/README.md, 2026-12-05, "A step with nothing
to compute".
"""

from __future__ import annotations

import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "benchmarks"))
from bench_browser import SEED_INPUT, SIDEBAR_SLIDER
from playwright.sync_api import sync_playwright
from servers import CHROMIUM, CHROMIUM_ARGS, SERVE, Server

# One observer for the page's life; the counters are reset before each step.
PROBE = """
(() => {
  window.__churn = {added: 0, removed: 0, kinds: {}};
  const size = n => 1 + n.querySelectorAll('*').length;
  new MutationObserver(records => {
    const c = window.__churn;
    for (const r of records) {
      for (const n of r.addedNodes) {
        if (n.nodeType !== 1) continue;
        c.added += size(n);
        const inner = n.querySelector('[data-testid]');
        const kind = ((n.closest('[data-testid]') || n).getAttribute('data-testid') || n.tagName)
          + (inner ? '>' + inner.getAttribute('data-testid') : '');
        c.kinds[kind] = (c.kinds[kind] || 0) + size(n);
      }
      for (const n of r.removedNodes) if (n.nodeType === 1) c.removed += size(n);
    }
  }).observe(document.querySelector('[data-testid=stMain]'), {subtree: true, childList: true});
})();
"""
RESET = "window.__churn = {added: 0, removed: 0, kinds: {}}"
SEQ_LEN = 2  # the sidebar's sliders: d_model, num_heads, seq_len


def idle(page) -> None:
    page.wait_for_selector("[data-testid=stApp][data-test-script-state=notRunning]")
    time.sleep(0.8)  # the page's last paint and any late message


def churn(page, steps: int = 4) -> list[dict]:
    page.evaluate(PROBE)
    out = []
    for i in range(steps):
        seed = page.locator(SEED_INPUT).first
        seed.fill(str(7000 + i))
        seed.press("Enter")
        idle(page)
        page.evaluate(RESET)
        thumb = page.locator(SIDEBAR_SLIDER).nth(SEQ_LEN).get_by_role("slider")
        thumb.focus()
        time.sleep(0.3)
        thumb.press("ArrowLeft" if i % 2 == 0 else "ArrowRight")
        idle(page)
        out.append(page.evaluate("window.__churn"))
    return out


def main(urls: list[str]) -> int:
    app = Server(SERVE, timeout=120)
    try:
        with sync_playwright() as p:
            executable = CHROMIUM if Path(CHROMIUM).exists() else shutil.which("chromium")
            browser = p.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
            for url in urls:
                page = browser.new_page(viewport={"width": 1400, "height": 1000})
                page.goto(app.url + url)
                idle(page)
                steps = churn(page)
                nodes = page.evaluate("document.querySelector('[data-testid=stMain]').querySelectorAll('*').length")
                counts = ", ".join(f"+{s['added']} -{s['removed']}" for s in steps)
                kinds = sorted({k for s in steps for k in s["kinds"]})
                print(f"{url}: {nodes} nodes in the main area; a step added / removed: {counts}; added: {kinds or '-'}")
                page.close()
            browser.close()
    finally:
        app.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or ["/masks?masks_tab=grid&lang=en"]))
