"""Issue 18 item 2: the renderer A/B. Candidate (a) plotly.js (Plotly.react in the components.v2 component,
static/heatmaps_plotly.js) against candidate (b) the canvas renderer (static/heatmaps.js), both fed the same
payload (charts/payload.py) by ui.heatmaps.show_heatmap, on the heaviest heatmap view
(benchmarks/renderer_app.py: 16 heads of 32 x 32 weights + one 32 x 512 signed matrix), with the floor app
(benchmarks/floor_app.py) measured alongside in the same run, samples interleaved floor / canvas / plotly.

- step: a slider key press to a NEW seed (new data every sample: no cache, nothing drawn before) until the
  page stops changing: from the websocket send of the rerun request to the last DOM mutation, read once
  the page has been still for 300 ms (a renderer that paints a canvas marks its redraw with one attribute,
  so both candidates end on a DOM change);
- cold: a fresh browser context (empty cache) opens the page: navigation start to the last DOM mutation;
- first-visit bytes: everything a cold load transfers (HTML, scripts, fonts: resource timing's transferSize,
  compressed as sent) plus the websocket's frames.

    .venv/bin/python benchmarks/bench_renderer.py [--samples 15] [--cold 4]

Rule (issue 18): keep (a) unless it costs more than 16 ms more per step than (b), or pushes the cold load
past 2x the floor's. (b) won (benchmarks/README.md, "Renderer A/B"); (a)'s code was deleted: to measure it
again, `git checkout 9caa129` (static/heatmaps_plotly.js, `?renderer=plotly`). At this commit the script
measures the floor and the canvas renderer.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from servers import CHROMIUM, CHROMIUM_ARGS, Server

APP = ROOT / "benchmarks" / "renderer_app.py"
FLOOR = ROOT / "benchmarks" / "floor_app.py"
VIEWPORT = {"width": 1400, "height": 1000}

PROBE = """
(() => {
  const al = window.__al = {sends: [], last: 0, ws: 0};
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (data) { al.sends.push(performance.now()); return send.call(this, data); };
  // Components draw inside shadow roots: each is watched from the moment it is attached.
  al.roots = [];
  const watch = root => new MutationObserver(() => { al.last = performance.now(); })
    .observe(root, {subtree: true, childList: true, attributes: true, characterData: true});
  watch(document);
  const attach = Element.prototype.attachShadow;
  Element.prototype.attachShadow = function (init) {
    const root = attach.call(this, init); al.roots.push(root); watch(root); return root;
  };
  // Resolves when `text` is on the page, `drawn` charts have drawn, the script is idle, and nothing in the
  // DOM has changed for `still` ms: the page has stopped changing; gives the last change's time.
  al.stopped = (sent0, text, drawn, still = 300, timeout = 60000) => new Promise((resolve, reject) => {
    const start = performance.now();
    const check = () => {
      const app = document.querySelector('[data-testid=stApp]'), now = performance.now();
      const charts = al.roots.flatMap(r => [...r.querySelectorAll('[data-drawn]')])
        .concat([...document.querySelectorAll('[data-drawn]')]);
      const ready = al.sends.length > sent0 && app && app.getAttribute('data-test-script-state') === 'notRunning'
        && app.textContent.includes(text) && charts.length >= drawn;
      if (ready && now - al.last >= still) resolve({last: al.last, send: al.sends[sent0] || 0});
      else if (now - start > timeout) reject(new Error('page did not stop changing: ' + text));
      else setTimeout(check, 20);
    };
    check();
  });
})();
"""


def transfer_bytes(page) -> int:
    return int(
        page.evaluate("""() => performance.getEntriesByType('navigation').concat(
        performance.getEntriesByType('resource')).reduce((s, e) => s + (e.transferSize || 0), 0)""")
    )


class Tab:
    def __init__(self, browser, url: str, text, drawn: int, slider: str):
        self.context = browser.new_context(viewport=VIEWPORT, locale="en-US")
        self.context.add_init_script(PROBE)
        self.page = self.context.new_page()
        self.page.set_default_timeout(90_000)
        self.text, self.drawn, self.slider, self.value = text, drawn, slider, 0
        self.page.goto(url, wait_until="commit")
        self.page.evaluate("([t, d]) => window.__al.stopped(0, t, d)", [text(0), drawn])

    def step(self) -> float:
        self.value += 1
        sent0 = self.page.evaluate("window.__al.sends.length")
        thumb = self.page.get_by_role("slider").first
        thumb.focus()
        self.page.keyboard.press("ArrowRight")
        r = self.page.evaluate(
            "([s, t, d]) => window.__al.stopped(s, t, d)", [sent0, self.text(self.value), self.drawn]
        )
        return r["last"] - r["send"]


def cold(browser, url: str, text: str, drawn: int) -> tuple[float, int]:
    context = browser.new_context(viewport=VIEWPORT, locale="en-US")
    try:
        context.add_init_script(PROBE)
        page = context.new_page()
        page.set_default_timeout(90_000)
        ws = [0]
        page.on("websocket", lambda w: w.on("framereceived", lambda p: ws.__setitem__(0, ws[0] + len(p))))
        page.goto(url, wait_until="commit")
        r = page.evaluate("([t, d]) => window.__al.stopped(-1, t, d)", [text, drawn])
        page.wait_for_timeout(50)
        return r["last"], transfer_bytes(page) + ws[0]
    finally:
        context.close()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--samples", type=int, default=15)
    ap.add_argument("--cold", type=int, default=4)
    args = ap.parse_args(argv)
    from playwright.sync_api import sync_playwright

    app, floor = Server(APP), Server(FLOOR)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            tabs = {
                "floor": Tab(browser, floor.url, lambda v: f"floor value = {50 + v}", 0, ""),
                "canvas (b)": Tab(browser, app.url + "/?renderer=canvas", lambda v: f"seed = {v}", 2, ""),
            }
            steps = {k: [] for k in tabs}
            for _ in range(args.samples):
                for name, tab in tabs.items():
                    steps[name].append(tab.step())
            for tab in tabs.values():
                tab.context.close()
            colds = {k: [] for k in tabs}
            nbytes = {}
            targets = {
                "floor": (floor.url, "floor value = 50", 0),
                "canvas (b)": (app.url + "/?renderer=canvas", "seed = 0", 2),
            }
            for _ in range(args.cold):
                for name, (url, text, drawn) in targets.items():
                    ms, b = cold(browser, url, text, drawn)
                    colds[name].append(ms)
                    nbytes[name] = b
            browser.close()
    finally:
        app.stop()
        floor.stop()
    med = {k: statistics.median(v) for k, v in steps.items()}
    cmed = {k: statistics.median(v) for k, v in colds.items()}
    print(
        f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}; {args.samples} steps, {args.cold} cold loads each"  # noqa: E501
    )
    print(f"{'':12} {'step ms':>8} {'x floor':>8} {'cold ms':>8} {'x floor':>8} {'first visit KB':>15}")
    for k in tabs:
        print(
            f"{k:12} {med[k]:8.0f} {med[k] / med['floor']:8.2f} {cmed[k]:8.0f} {cmed[k] / cmed['floor']:8.2f} "
            f"{nbytes[k] / 1024:15.0f}"
        )
    if "plotly (a)" in med:
        extra = med["plotly (a)"] - med["canvas (b)"]
        keep_a = extra <= 16 and cmed["plotly (a)"] <= 2 * cmed["floor"]
        print(
            f"(a) - (b) per step: {extra:+.0f} ms; (a) cold / floor cold: {cmed['plotly (a)'] / cmed['floor']:.2f}"
            f" -> keep {'(a) plotly.js' if keep_a else '(b) canvas'}"
        )
    print("steps (ms):", {k: [round(x) for x in v] for k, v in steps.items()})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
