"""Attention Lab in a real browser, side by side with the floor app (benchmarks/floor_app.py).

Starts both with the same .streamlit/config.toml on free loopback ports, drives them with
Playwright + Chromium, and prints medians and the ratio to the floor measured in the same run
(samples interleave app / floor, so a busy moment on the machine slows both alike):

- step: a sidebar slider step -> settled redraw, timed in the page from the moment the browser
  sends the rerun request over the websocket (the slider's own client-side debounce is the same
  for every app and is left out) until the script state is notRunning, the new content is on the
  page, and two animation frames have passed (plotly draws inside the React commit before them);
- cold: a fresh browser context (empty cache) opens a page; time from navigation start to settled;
- quiet: from the same send until the browser's main thread is idle for 40 ms after settling: it also
  counts what a chart library does after the page looks drawn (plotly finishes asynchronously);
  printed beside each step, not judged against a target;
- KB/step: bytes the browser receives over the websocket per slider step (Playwright framereceived);
- sessions: 40 concurrent protocol-level sessions (benchmarks/bench_sessions.py).

    .venv/bin/python benchmarks/bench_browser.py            # about 5 minutes on 2 cores
    .venv/bin/python benchmarks/bench_browser.py --quick    # about 2 minutes: fewer samples
"""

from __future__ import annotations

import argparse
import ast
import os
import platform
import shutil
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from core import i18n  # noqa: E402
from core.walkthrough import STEP_NAMES as WALK_STEPS  # noqa: E402

sys.path.insert(0, str(ROOT / "tests"))
from servers import Server  # noqa: E402  (the same start-up as the browser tests)

APP = ROOT / "app.py"  # its PAGES list
SERVE = ROOT / "serve.py"  # how the app is served (scripts/start.sh): app.py with ui/seam/client_batching.js
FLOOR = ROOT / "benchmarks" / "floor_app.py"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
VIEWPORT = {"width": 1400, "height": 1000}
LARGE = {"d_model": 512, "num_heads": 16, "seq_len": 32}
TARGETS = {"default": 1.4, "large": 1.6, "all-steps": 3.0, "cold": 2.0}
MAX_KB_PER_STEP = 64

# Runs in every page before its own scripts. It records when the page sends over the websocket and
# offers settled(): a promise that resolves two animation frames after the app is idle (script state
# notRunning) with the new `text` on the page.
PROBE = """
(() => {
  const al = window.__al = {sends: [], idle: 0};
  const send = WebSocket.prototype.send;
  al.sizes = [];
  WebSocket.prototype.send = function (data) {
    al.sends.push(performance.now()); al.sizes.push(data.byteLength || data.length || 0); return send.call(this, data);
  };
  new MutationObserver(ms => {
    for (const m of ms) {
      if (m.target.getAttribute('data-test-script-state') === 'notRunning' && m.oldValue !== 'notRunning') al.idle++;
    }
  }).observe(document, {subtree: true, attributes: true, attributeOldValue: true,
                        attributeFilter: ['data-test-script-state']});
  al.mark = () => [al.sends.length, al.idle];
  // Resolves when the main thread has an idle period of over 40 ms: work a chart library does after
  // the page looks settled (plotly finishes asynchronously) is then over too.
  al.quiet = () => new Promise(resolve => {
    const wait = () => requestIdleCallback(d => d.timeRemaining() > 40 ? resolve(performance.now()) : wait());
    wait();
  });
  al.settled = (sent0, idle0, text, timeout = 90000) => new Promise((resolve, reject) => {
    const start = performance.now();
    const check = () => {
      const app = document.querySelector('[data-testid=stApp]');
      // Not 'a change to running and back': a fast run flips the state within one React commit, so
      // the DOM never shows it. The new text arrives inside the run (after the client marked it
      // running), so new text + notRunning means the run is over and drawn.
      if (al.sends.length > sent0 && app && app.getAttribute('data-test-script-state') === 'notRunning' &&
          app.textContent.includes(text)) {
        requestAnimationFrame(() => requestAnimationFrame(() => {
          al.lastQuiet = al.quiet();  // started at once: the idle period must not pass unseen
          resolve({end: performance.now(), send: al.sends[sent0]});
        }));
      } else if (performance.now() - start > timeout) {
        reject(new Error('not settled within ' + timeout / 1000 + ' s, waiting for: ' + text));
      } else {
        requestAnimationFrame(check);
      }
    };
    check();
  });
})();
"""


# ---------------------------------------------------------------- servers: tests/servers.py (the tests start the app the same way)


def app_pages() -> list[str]:
    """The url paths of app.py's PAGES list ('' is home), read without running the app."""
    tree = ast.parse(APP.read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "PAGES" for t in node.targets):
            return [entry[1] for entry in ast.literal_eval(node.value)]
    raise RuntimeError("app.py has no PAGES list")


# ---------------------------------------------------------------- what is measured
def dk_caption(d_model: int, h: int) -> str:
    return i18n.t("settings.d_k", "en", d_model=d_model, h=h, d_k=d_model // h)


@dataclass
class Scenario:
    """One page kept open, stepped back and forth with one slider; `texts[k]` must appear after step k % 2."""
    name: str
    group: str  # which target applies: default | large | all-steps | floor
    url: str
    slider: str  # CSS of the slider's container
    index: int  # which of those sliders
    keys: tuple[str, str]  # pressed alternately
    texts: tuple[str, str]  # the new content to expect after each of them
    times: list[float] = field(default_factory=list)
    floor_times: list[float] = field(default_factory=list)  # the floor's samples taken between these
    quiet: list[float] = field(default_factory=list)  # send -> main thread idle (after settled)
    floor_quiet: list[float] = field(default_factory=list)
    retries: int = 0
    kbytes: list[float] = field(default_factory=list)


SIDEBAR_SLIDER = "[data-testid=stSidebar] [data-testid=stSlider]"


def scenarios(app: Server, floor: Server, pages: list[str]) -> list[Scenario]:
    def url(path: str, **params) -> str:
        return f"{app.url}/{path}" + ("?" + urlencode(params) if params else "")

    out = [Scenario("floor", "floor", floor.url, "[data-testid=stSlider]", 0, ("ArrowRight", "ArrowLeft"),
                    ("floor value = 51", "floor value = 50"))]
    for path in pages:  # defaults (d_model 64): num_heads 4 -> 8 -> 4
        out.append(Scenario(f"/{path} default", "default", url(path), SIDEBAR_SLIDER, 1, ("ArrowRight", "ArrowLeft"),
                            (dk_caption(64, 8), dk_caption(64, 4))))
    # d_model 512, h 16: seq_len 32 -> 31 -> 32 (h stays 16 for every sample)
    d = LARGE["d_model"]
    if "heads" in pages:
        now = tuple(i18n.t("heads.now", "en", d_model=d, h=16, d_k=d // 16, T=T) for T in (31, 32))
        out.append(Scenario("/heads 512/16/32", "large", url("heads", **LARGE), SIDEBAR_SLIDER, 2,
                            ("ArrowLeft", "ArrowRight"), now))
        # The page opens on its shapes section; the head grid (8 of 16 heads, 32 x 32 each) is a tab away.
        out.append(Scenario("/heads heads_tab=heads 512/16/32", "large", url("heads", **LARGE, heads_tab="heads"),
                            SIDEBAR_SLIDER, 2, ("ArrowLeft", "ArrowRight"), now))
    if "walkthrough" in pages:
        texts = (f"1×31×{d}", f"1×32×{d}")  # the shape pipeline strip (x's sizes)
        out.append(Scenario("/walkthrough step=softmax 512/16/32", "large",
                            url("walkthrough", **LARGE, walk_view="step", walk_step="softmax"),
                            SIDEBAR_SLIDER, 2, ("ArrowLeft", "ArrowRight"), texts))
        out.append(Scenario("/walkthrough all steps 512/16/32", "all-steps",
                            url("walkthrough", **LARGE, walk_view="all"), SIDEBAR_SLIDER, 2,
                            ("ArrowLeft", "ArrowRight"), texts))
    return out


class Tab:
    """One open page with the probe, counting the bytes it receives over the websocket."""

    def __init__(self, browser, url: str, text: str):
        self.context = browser.new_context(viewport=VIEWPORT, locale="en-US")
        self.context.add_init_script(PROBE)
        self.page = self.context.new_page()
        self.page.set_default_timeout(90_000)
        self.received = 0
        self.page.on("websocket", lambda ws: ws.on("framereceived", self._count))
        self.url, self.text = url, text
        self.open()

    def open(self) -> None:
        self.page.goto(self.url, wait_until="commit")
        self.page.evaluate("([t]) => window.__al.settled(0, 0, t)", [self.text])
        self.steps = 0

    def _count(self, payload) -> None:
        self.received += len(payload)

    def step(self, sc: Scenario) -> tuple[float, int]:
        """Press the next key on the scenario's slider; (ms from send to settled, bytes received)."""
        k = self.steps % 2
        self.steps += 1
        sent0, idle0 = self.page.evaluate("window.__al.mark()")
        self.page.evaluate("([s, i, t]) => { window.__al.p = window.__al.settled(s, i, t, 30000); }",
                           [sent0, idle0, sc.texts[k]])
        before = self.received
        thumb = self.page.locator(sc.slider).nth(sc.index).get_by_role("slider")
        thumb.focus()
        self.page.keyboard.press(sc.keys[k])
        try:
            r = self.page.evaluate("window.__al.p")
        except Exception as e:
            now = thumb.get_attribute("aria-valuenow") or thumb.get_attribute("aria-valuetext")
            raise RuntimeError(f"{sc.name}: no settled redraw after {sc.keys[k]} (slider now {now}, "
                               f"probe {self.page.evaluate('[window.__al.mark(), window.__al.sizes]')}, before {[sent0, idle0]}): {e}")
        self.last_quiet = self.page.evaluate("window.__al.lastQuiet") - r["send"]
        self.page.wait_for_timeout(30)  # let the last websocket events reach this process
        return r["end"] - r["send"], self.received - before

    def sample(self, sc: Scenario) -> tuple[float, int]:
        """step(), but a step whose redraw never comes (seen under heavy load: the rerun request was
        sent and nothing came back) reopens the page and tries again once; counted in sc.retries."""
        try:
            return self.step(sc)
        except RuntimeError as e:
            print(f"  retry: {e}"[:300], flush=True)
            sc.retries += 1
            self.open()
            return self.step(sc)

    def close(self) -> None:
        self.context.close()


def cold_load(browser, url: str, text: str) -> float:
    """A fresh context (no cache, no cookies) opens url: ms from navigation start to settled."""
    context = browser.new_context(viewport=VIEWPORT, locale="en-US")
    try:
        context.add_init_script(PROBE)
        page = context.new_page()
        page.set_default_timeout(90_000)
        page.goto(url, wait_until="commit")
        return page.evaluate("([t]) => window.__al.settled(0, 0, t)", [text])["end"]
    finally:
        context.close()


def median(xs):
    return statistics.median(xs) if xs else float("nan")


def load_average() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="fewer samples (about 2 minutes)")
    ap.add_argument("--steps", type=int, help="slider steps per scenario (default 10, quick 5)")
    ap.add_argument("--cold", type=int, help="cold loads per page (default 3, quick 2)")
    ap.add_argument("--sessions", type=int, default=40, help="concurrent sessions (0 to skip)")
    ap.add_argument("--only", default="", help="only scenarios whose name contains this text")
    args = ap.parse_args(argv)
    n_steps = args.steps or (5 if args.quick else 10)
    n_cold = args.cold or (2 if args.quick else 3)

    from playwright.sync_api import sync_playwright

    pages = app_pages()
    print(f"date {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {os.cpu_count()} cores, "
          f"python {platform.python_version()}, load average at start {load_average()}")
    print(f"pages from app.py: {', '.join('/' + p for p in pages)}")
    app, floor = Server(SERVE, timeout=120), Server(FLOOR, timeout=120)
    failures: list[str] = []
    try:
        executable = CHROMIUM if Path(CHROMIUM).exists() else shutil.which("chromium")
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
            all_sc = scenarios(app, floor, pages)
            chosen = [sc for sc in all_sc if sc.group == "floor" or args.only in sc.name]
            floor_sc, app_sc = chosen[0], chosen[1:]
            floor_tab = Tab(browser, floor_sc.url, floor_sc.texts[1])
            floor_tab.sample(floor_sc)  # unmeasured: the first step of a page loads lazy code
            for sc in app_sc:
                tab = Tab(browser, sc.url, sc.texts[1])
                tab.sample(sc)
                for _ in range(n_steps):  # floor, app, floor, app, ...: each ratio pairs samples in time
                    for s, t in ((floor_sc, floor_tab), (sc, tab)):
                        ms, nbytes = t.sample(s)
                        s.times.append(ms)
                        s.quiet.append(t.last_quiet)
                        s.kbytes.append(nbytes / 1024)
                        if s is floor_sc:
                            sc.floor_times.append(ms)
                            sc.floor_quiet.append(t.last_quiet)
                tab.close()
                print(f"  {sc.name}: {median(sc.times):.0f} ms (floor {median(sc.floor_times):.0f} ms)", flush=True)
            floor_tab.close()

            # Cold loads, interleaved with the floor's.
            cold: dict[str, list[float]] = {"floor": []}
            cold_pages = [p_ for p_ in pages if args.only in f"/{p_} default"] or []
            for _ in range(n_cold):
                for path in cold_pages:
                    cold["floor"].append(cold_load(browser, floor.url, "floor value = 50"))
                    cold.setdefault(path, []).append(cold_load(browser, f"{app.url}/{path}", dk_caption(64, 4)))

            # Bytes per step at the largest sizes on every page (h = 16 and h = 64).
            big_bytes: dict[str, float] = {}
            d = LARGE["d_model"]
            for h in (16, 64):
                params = dict(LARGE, num_heads=h)
                for path in pages:
                    # the walkthrough: every step's one-step view (each draws other tensors) and all steps;
                    # the heads page: its first section and the grid of heads
                    extra = {"walkthrough": [dict(walk_view="step", walk_step=n, **({"mask": "causal"} if n == "mask"
                                                                                     else {}))
                                             for n in WALK_STEPS] + [dict(walk_view="all")],
                             "heads": [{}, dict(heads_tab="heads")]}.get(path, [{}])
                    for more in extra:
                        label = " ".join(f"{k}={v}" for k, v in more.items() if k in ("heads_tab", "walk_step"))
                        label = "all" if more.get("walk_view") == "all" else label
                        name = f"/{path}{' ' + label if label else ''} 512/{h}/32"
                        if args.only not in name and args.only:
                            continue
                        # num_heads h -> h/2 -> h/4: every step goes to settings this page has not shown yet.
                        # (Stepping back to a view already seen is cheaper: Streamlit's client keeps the
                        # messages of 10 KB and more, and the server sends only their hash.) The d_k caption
                        # is new content on every page.
                        sc = Scenario(name, "bytes", f"{app.url}/{path}?{urlencode(params | more)}", SIDEBAR_SLIDER,
                                      1, ("ArrowLeft", "ArrowLeft"), (dk_caption(d, h // 2), dk_caption(d, h // 4)))
                        tab = Tab(browser, sc.url, dk_caption(d, h))
                        sizes = [tab.sample(sc)[1] / 1024 for _ in range(2)]
                        tab.close()
                        big_bytes[name] = max(sizes)
            browser.close()

        # ---------------------------------------------------------------- the table
        f_step = median(floor_sc.times)
        print(f"\nslider step -> settled redraw (median of {n_steps}; 'x floor' divides by the median of the"
              f" {n_steps} floor samples interleaved with that scenario's)")
        print("'quiet': until the browser's main thread is idle (a 40 ms idle period) after settling, which also"
              " counts work a chart library does after the page looks drawn; shown, not judged")
        print(f"{'scenario':42s} {'median':>9s} {'p90':>9s} {'x floor':>8s} {'target':>7s} {'KB/step':>8s}"
              f" {'quiet':>8s} {'x floor':>8s}")
        print("-" * 106)
        print(f"{'floor app':42s} {f_step:7.0f}ms {statistics.quantiles(floor_sc.times, n=10)[-1]:7.0f}ms "
              f"{1:7.2f}x {'':>7s} {median(floor_sc.kbytes):8.1f} {median(floor_sc.quiet):6.0f}ms {1:7.2f}x")
        for sc in app_sc:
            m = median(sc.times)
            ratio = m / median(sc.floor_times)  # against the floor samples taken alongside
            target = TARGETS[sc.group]
            ok = ratio <= target
            if not ok:
                failures.append(f"step {sc.name}: {ratio:.2f}x floor (target {target}x)")
            p90 = statistics.quantiles(sc.times, n=10)[-1] if len(sc.times) > 1 else m
            quiet = median(sc.quiet)
            print(f"{sc.name:42s} {m:7.0f}ms {p90:7.0f}ms {ratio:7.2f}x {'<=' + str(target):>7s} "
                  f"{median(sc.kbytes):8.1f} {quiet:6.0f}ms {quiet / median(sc.floor_quiet):7.2f}x "
                  f"{'ok' if ok else 'MISSED'}"
                  + (f" ({sc.retries} retried)" if sc.retries else ""))
        if cold_pages:
            f_cold = median(cold["floor"])
            print(f"\ncold load of a page in a fresh browser context (median of {n_cold})")
            print(f"{'page':42s} {'median':>9s} {'x floor':>8s} {'target':>7s}")
            print("-" * 70)
            print(f"{'floor app':42s} {f_cold:7.0f}ms {1:7.2f}x")
            for path in cold_pages:
                m = median(cold[path])
                ratio = m / f_cold
                ok = ratio <= TARGETS["cold"]
                if not ok:
                    failures.append(f"cold /{path}: {ratio:.2f}x floor (target {TARGETS['cold']}x)")
                print(f"{'/' + path:42s} {m:7.0f}ms {ratio:7.2f}x {'<=' + str(TARGETS['cold']):>7s} "
                      f"{'ok' if ok else 'MISSED'}")
        if big_bytes:
            print("\nbytes received over the websocket per num_heads step to settings not shown before"
                  " (h -> h/2 -> h/4), d_model 512, T 32 (the larger of the 2 steps)")
            for name, kb in big_bytes.items():
                ok = kb <= MAX_KB_PER_STEP
                if not ok:
                    failures.append(f"bytes {name}: {kb:.1f} KB per step (target {MAX_KB_PER_STEP} KB)")
                print(f"{name:42s} {kb:8.1f} KB {'<=' + str(MAX_KB_PER_STEP):>6s} {'ok' if ok else 'MISSED'}")
        print(f"\nload average after the browser part {load_average()}")
    finally:
        app.stop()
        floor.stop()

    if args.sessions:
        sys.path.insert(0, str(ROOT / "benchmarks"))
        from bench_sessions import run_sessions_benchmark
        failures += run_sessions_benchmark(args.sessions, quick=args.quick)

    print("\nmissed:" if failures else "\nall targets met")
    for f in failures:
        print("  " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
