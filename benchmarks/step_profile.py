"""Where one slider step's time goes, in a real browser: the app beside the floor app (benchmarks/floor_app.py).

    PYTHONPATH=. .venv/bin/python benchmarks/step_profile.py [--steps 8] [--url "/walkthrough?..."] [--top 25]

Drives the step the way benchmarks/bench_browser.py does (a new seed typed, not timed; then seq_len one notch with
the keyboard, timed from the key press to the later of the last DOM mutation and the last canvas paint), and for
every timed step records, on Chromium's one clock:

- the wire (CDP Network websocket frames): key -> BackMsg sent (the slider's own handling), BackMsg -> first
  ForwardMsg (server: script start), -> script_finished (server: the whole run, loopback wire ~0), how many
  BackMsgs and script runs the step made (a second rerun shows as a second script_finished);
- the renderer main thread (a devtools.timeline trace): its busy time inside the step by kind (script, style,
  layout, paint, GC, other) and its idle time, before the last frame and after it;
- the JavaScript (CDP Profiler, sampled only while a step is timed): self time by script and the heaviest
  functions, app vs floor.

`--timeline` prints the last step's websocket frames (with each delta's element kind and size) and main-thread
tasks; `--variant benchmarks/step_floors/floor_cb.py` (repeatable) profiles another one-slider app beside the
floor, to price one feature of the app's step on its own (floor_cb: two fragments and a keyed rerun from a
callback, two script runs a step; floor_bind: a slider bound to the URL; floor_frag: one fragment).
`--app DIR/serve.py` profiles another checkout. Findings: benchmarks/README.md, issue 31, "One step profiled".
"""

from __future__ import annotations

import argparse
import base64
import bisect
import collections
import json
import shutil
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "benchmarks"))
from bench_browser import FLOOR, PROBE, SERVE, VIEWPORT, dk_caption, focus
from bench_sessions import load_average
from servers import CHROMIUM, CHROMIUM_ARGS, Server
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

# performance.mark on the key press, each websocket send, each paint stamp and DOM mutation: on the trace's clock.
MARKS = """
(() => {
  window.addEventListener('keydown', () => performance.mark('al-key'), true);
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (d) { performance.mark('al-send'); return send.call(this, d); };
  let painted = 0;
  Object.defineProperty(window, '__alPainted', {configurable: true,
    get() { return painted; }, set(v) { painted = v; performance.mark('al-paint'); }});
  new MutationObserver(() => performance.mark('al-mut'))
    .observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
})();
"""
QUIET_MS = 250


def url_caption(url: str) -> str:
    """The d_k caption the sidebar shows once `url`'s page has settled (its d_model and num_heads, 64 and 4 unless
    the url says)."""
    from urllib.parse import parse_qs, urlparse

    query = parse_qs(urlparse(url).query)
    return dk_caption(int(query.get("d_model", ["64"])[0]), int(query.get("num_heads", ["4"])[0]))


LABELLED = {  # the trace events a timeline line names inside a task
    "FunctionCall",
    "TimerFire",
    "EventDispatch",
    "FireAnimationFrame",
    "RunMicrotasks",
    "Layout",
    "UpdateLayoutTree",
    "Paint",
    "Commit",
    "ParseHTML",
    "EvaluateScript",
    "v8.compile",
}
CATEGORIES = [
    "devtools.timeline",
    "disabled-by-default-devtools.timeline",
    "blink.user_timing",
    "v8",
    "v8.execute",
]
KIND = {  # trace event name -> kind (the innermost known kind wins for its self time)
    "FunctionCall": "script",
    "EvaluateScript": "script",
    "v8.compile": "script compile",
    "v8.compileModule": "script compile",
    "v8.parseOnBackground": "script compile",
    "TimerFire": "script",
    "FireAnimationFrame": "script",
    "EventDispatch": "script",
    "RunMicrotasks": "script",
    "V8.GCScavenger": "GC",
    "MajorGC": "GC",
    "MinorGC": "GC",
    "V8.GCFinalizeMC": "GC",
    "BlinkGC.AtomicPhase": "GC",
    "UpdateLayoutTree": "style",
    "RecalculateStyles": "style",
    "ParseAuthorStyleSheet": "style",
    "Layout": "layout",
    "UpdateLayerTree": "layout",
    "Paint": "paint",
    "PaintImage": "paint",
    "PrePaint": "paint",
    "Layerize": "paint",
    "CompositeLayers": "paint",
    "Commit": "paint",
    "HitTest": "other",
    "ParseHTML": "other",
}


class Probe:
    def __init__(self, browser, url: str, text: str, slider_css: str, slider_index: int, seed: bool):
        self.context = browser.new_context(viewport=VIEWPORT, locale="en-US")
        self.context.add_init_script(PROBE)
        self.context.add_init_script(MARKS)
        self.page = self.context.new_page()
        self.page.set_default_timeout(90_000)
        self.cdp = self.context.new_cdp_session(self.page)
        self.frames: list[tuple[str, float, object]] = []  # (sent|recv, monotonic s, ForwardMsg type or size)
        self.cdp.send("Network.enable")
        self.cdp.on("Network.webSocketFrameSent", lambda e: self.frames.append(("sent", e["timestamp"], None)))
        self.cdp.on("Network.webSocketFrameReceived", self._recv)
        self.cdp.send("Profiler.enable")
        self.cdp.send("Profiler.setSamplingInterval", {"interval": 200})
        self.slider_css, self.slider_index, self.seed = slider_css, slider_index, seed
        self.page.goto(url, wait_until="commit")
        self.page.evaluate("([t]) => window.__al.settled(t)", [text])
        self.profiles: list[dict] = []
        self.steps: list[dict] = []
        self.n = 0
        self.step(timed=False)  # the page's first step loads lazy code

    def _recv(self, e) -> None:
        r = e["response"]
        kind: object = "text"
        if r.get("opcode") == 2:
            try:
                msg = ForwardMsg.FromString(base64.b64decode(r["payloadData"]))
                kind = msg.WhichOneof("type")
                if kind == "delta":
                    what = msg.delta.WhichOneof("type")
                    sub = ""
                    if what == "new_element":
                        sub = str(msg.delta.new_element.WhichOneof("type"))
                    elif what == "add_block":
                        sub = str(msg.delta.add_block.WhichOneof("type"))
                    kind = f"delta.{what} {sub} {len(r['payloadData']) * 3 // 4}B"
                elif kind == "script_finished":
                    kind = f"script_finished.{msg.script_finished}"
            except Exception:  # noqa: BLE001
                kind = "?"
        self.frames.append(("recv", e["timestamp"], kind))

    def step(self, timed: bool = True) -> None:
        if self.seed:
            box = self.page.locator("[data-testid=stSidebar] [data-testid=stNumberInput] input").first
            box.fill(str(20_000 + self.n))
            self._wait(lambda: box.press("Enter"))
        self.n += 1
        thumb = self.page.locator(self.slider_css).nth(self.slider_index).get_by_role("slider")
        focus(self.page, thumb)  # as bench_browser.py: a key pressed right after a focus move waits for a vsync
        key = "ArrowLeft" if self.n % 2 else "ArrowRight"
        f0 = len(self.frames)
        if timed:
            self.cdp.send("Profiler.start")
        r = self._wait(lambda: self.page.keyboard.press(key))
        if timed:
            self.profiles.append(self.cdp.send("Profiler.stop")["profile"])
            self.steps.append({"frames": self.frames[f0:], "sends": r["sends"], "msgs": r["msgs"], "r": r})

    def _wait(self, act) -> dict:
        sent0, recv0, keys0 = self.page.evaluate("window.__al.mark()")
        self.page.evaluate(
            "([s, r, k, q]) => { window.__al.p = window.__al.stopped(s, r, k, q); }", [sent0, recv0, keys0, QUIET_MS]
        )
        act()
        r = self.page.evaluate("window.__al.p")
        r["sends"] = self.page.evaluate("window.__al.sends.length") - sent0
        return r


def trace_events(raw: bytes) -> list[dict]:
    data = json.loads(raw)
    return data["traceEvents"] if isinstance(data, dict) else data


def _pop(stack: list[list], busy: collections.Counter, by_name: collections.Counter) -> None:
    """The innermost open event ends: its self time (its span less its children's) goes to its kind and name."""
    _te, kind, kids, dur, name = stack.pop()
    busy[kind] += dur - kids
    by_name[name] += dur - kids


def analyse(events: list[dict], steps: list[dict]) -> list[dict]:
    """One row per timed step: the phases on the trace's clock (ms) and the main thread's time by kind."""
    marks = sorted((e["ts"], e["name"]) for e in events if e.get("name", "").startswith("al-") and e.get("ph") in "IRn")
    # the renderer main thread: the thread of the al- marks' process named CrRendererMain
    pid = next(e["pid"] for e in events if e.get("name", "").startswith("al-"))
    names = {
        (e["pid"], e["tid"]): e["args"]["name"] for e in events if e.get("ph") == "M" and e.get("name") == "thread_name"
    }
    tid = next(t for (p, t), n in names.items() if p == pid and n == "CrRendererMain")
    main = sorted(
        (e for e in events if e.get("pid") == pid and e.get("tid") == tid and e.get("ph") == "X" and "dur" in e),
        key=lambda e: (e["ts"], -e["dur"]),
    )
    keys = [ts for ts, n in marks if n == "al-key"]
    rows = []
    for st in steps:
        # the timed step's key press is the last al-key before its first BackMsg frame
        frames = st["frames"]
        sent = [t * 1e6 for d, t, _ in frames if d == "sent"]
        recv = [(t * 1e6, k) for d, t, k in frames if d == "recv"]
        if not sent or not recv:
            continue
        key = max(k for k in keys if k <= sent[0] + 2000)
        # the probe's end (performance.now()) on the trace's clock, through the key press seen by both
        end = key + (st["r"]["end"] - st["r"]["key"]) * 1000
        paints = [ts for ts, n in marks if key <= ts <= end and n == "al-paint"]
        finished = [t for t, k in recv if str(k).startswith("script_finished")]
        last_frame = max(t for t, _ in recv)
        kinds = collections.Counter(str(k).split(".")[0] if not str(k).startswith("delta") else k for _, k in recv)
        row = {
            "total": (end - key) / 1000,
            "key->send": (sent[0] - key) / 1000,
            "send->first msg": (recv[0][0] - sent[0]) / 1000,
            "send->script_finished": ((finished[-1] if finished else last_frame) - sent[0]) / 1000,
            "last frame->end": (end - last_frame) / 1000,
            "paints": len(paints),
            "backmsgs": len(sent),
            "runs": len(finished),
            "finished": [str(k) for _, k in recv if str(k).startswith("script_finished")],
            "msgs": len(recv),
            "kinds": dict(kinds),
        }
        # the main thread's self time by kind, for events starting inside [key, end]; busy: top-level tasks
        busy: collections.Counter = collections.Counter()
        by_name: collections.Counter = collections.Counter()
        stack: list[list] = []  # [end ts, kind, children's time, own dur]
        top_busy = 0.0

        for e in main:
            ts, te = e["ts"], e["ts"] + e["dur"]
            if ts < key or ts > end:
                continue
            while stack and stack[-1][0] <= ts:
                _pop(stack, busy, by_name)
            if not stack:
                top_busy += min(te, end) - ts
            else:
                stack[-1][2] += e["dur"]
            kind = KIND.get(e["name"]) or (stack[-1][1] if stack else "other")
            stack.append([te, kind, 0.0, e["dur"], e["name"]])
        while stack:
            _pop(stack, busy, by_name)
        row["busy"] = top_busy / 1000
        row["idle"] = row["total"] - row["busy"]
        row["by kind"] = {k: v / 1000 for k, v in busy.items() if k}
        row["by name"] = {k: v / 1000 for k, v in by_name.items() if k}
        rows.append(row)
    return rows


def js_by_script(profiles: list[dict], top: int) -> tuple[dict, list]:
    """Self time (ms per step) by script URL and by function, over the timed steps' CPU profiles."""
    by_url: collections.Counter = collections.Counter()
    by_fn: collections.Counter = collections.Counter()
    for prof in profiles:
        nodes = {n["id"]: n for n in prof["nodes"]}
        deltas = prof.get("timeDeltas", [])
        for sid, dt in zip(prof.get("samples", []), deltas[1:] + [0]):
            cf = nodes[sid]["callFrame"]
            url = cf.get("url") or f"({cf.get('functionName') or 'native'})"
            url = url.split("/")[-1].split("?")[0] or url
            by_url[url] += dt / 1000
            by_fn[f"{cf.get('functionName') or '(anonymous)'} {url}:{cf.get('lineNumber', 0) + 1}"] += dt / 1000
    n = max(1, len(profiles))
    return {k: v / n for k, v in by_url.most_common()}, [(k, v / n) for k, v in by_fn.most_common(top)]


def med(rows, key):
    return statistics.median(r[key] for r in rows)


def report(name: str, rows: list[dict], scripts: dict, fns: list, top: int) -> None:
    print(f"\n== {name}: {len(rows)} timed steps (medians, ms)")
    for k in ("total", "key->send", "send->first msg", "send->script_finished", "last frame->end", "busy", "idle"):
        print(f"  {k:24s} {med(rows, k):7.1f}   samples: {' '.join(f'{r[k]:.0f}' for r in rows)}")
    kinds = sorted({k for r in rows for k in r["by kind"]})
    for k in kinds:
        print(f"  main thread {k:12s} {statistics.median(r['by kind'].get(k, 0) for r in rows):7.1f}")
    names = collections.Counter()
    for r in rows:
        for k, v in r["by name"].items():
            names[k] += v / len(rows)
    print(
        "  main thread self time by trace event (mean ms per step): "
        + ", ".join(f"{k} {v:.1f}" for k, v in names.most_common(14))
    )
    print(
        f"  BackMsgs per step {[r['backmsgs'] for r in rows]}, script runs {[r['runs'] for r in rows]},"
        f" paints {[r['paints'] for r in rows]}, messages {[r['msgs'] for r in rows]}"
    )
    print(f"  finished kinds (first step): {rows[0]['finished']}; message kinds: {rows[0]['kinds']}")
    print("  JS self time by script (ms per step):")
    for url, ms in list(scripts.items())[:12]:
        print(f"    {ms:7.1f}  {url}")
    print(f"  top {top} functions by self time (ms per step):")
    for fn, ms in fns:
        print(f"    {ms:7.2f}  {fn[:140]}")


SEQ_LEN_SLIDER = "[data-testid=stSidebar] [data-testid=stSlider]"  # the app's sliders; seq_len is the third


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--steps", type=int, default=8)
    ap.add_argument("--url", default="/walkthrough?walk_view=step&walk_step=input&lang=en")
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--app", type=Path, default=SERVE, help="the app's serve.py (e.g. another checkout's)")
    ap.add_argument(
        "--compare",
        type=Path,
        action="append",
        default=[],
        help="another checkout's serve.py, profiled at the same URL interleaved with the app (an A/B in one run)",
    )
    ap.add_argument("--no-floor", action="store_true")
    ap.add_argument("--timeline", action="store_true", help="print the last step's frames and tasks")
    ap.add_argument(
        "--variant",
        type=Path,
        action="append",
        default=[],
        help="another one-slider script (its first slider, anywhere on the page), profiled like the floor",
    )
    args = ap.parse_args(argv)
    from playwright.sync_api import sync_playwright

    print(f"load average at start {load_average()}; url {args.url}; {args.steps} timed steps each")
    app = Server(args.app, timeout=120)
    floor = None if args.no_floor else Server(FLOOR, timeout=120)
    extra_servers: list[Server] = []
    try:
        executable = CHROMIUM if Path(CHROMIUM).exists() else shutil.which("chromium")
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
            caption = url_caption(args.url)
            probes = {"app": Probe(browser, app.url + args.url, caption, SEQ_LEN_SLIDER, 2, True)}
            for serve in args.compare:
                srv = Server(serve.resolve(), timeout=120)
                extra_servers.append(srv)
                name = serve.resolve().parent.name
                while name in probes:  # two checkouts in folders of the same name (or named app): both reported
                    name += "'"
                probes[name] = Probe(browser, srv.url + args.url, caption, SEQ_LEN_SLIDER, 2, True)
            if floor:
                probes["floor"] = Probe(browser, floor.url, "floor value = 50", "[data-testid=stSlider]", 0, False)
            for script in args.variant:
                srv = Server(script.resolve(), timeout=120)
                extra_servers.append(srv)
                probes[script.stem] = Probe(browser, srv.url, "floor value = 50", "[data-testid=stSlider]", 0, False)
            browser.start_tracing(page=probes["app"].page, categories=CATEGORIES)
            for _ in range(args.steps):  # interleaved: floor, app
                for pr in reversed(list(probes.values())):
                    pr.step()
            raw = browser.stop_tracing()
            events = trace_events(raw)
            for name, pr in probes.items():
                rows = analyse_for(events, pr)
                scripts, fns = js_by_script(pr.profiles, args.top)
                report(name, rows, scripts, fns, args.top)
                if args.timeline:
                    print(f"  timeline of the last timed step ({name}):")
                    pid = rows_pid(events, pr)
                    pid_events = [e for e in events if e.get("pid") == pid]
                    for line in timeline(pid_events, pr.steps[-1]):
                        print("    " + line)
            browser.close()
    finally:
        app.stop()
        if floor:
            floor.stop()
        for srv in extra_servers:
            srv.stop()
    print(f"load average at end {load_average()}")
    return 0


def rows_pid(events: list[dict], pr: Probe) -> int:
    """The trace holds every page's renderer: the process whose key marks match this probe's BackMsgs."""
    first_send = pr.steps[0]["frames"][0][1] * 1e6
    cands = collections.defaultdict(list)
    for e in events:
        if e.get("name") == "al-key":
            cands[e["pid"]].append(e["ts"])
    return min(cands, key=lambda pid: min(abs(first_send - t) for t in cands[pid]))


def analyse_for(events: list[dict], pr: Probe) -> list[dict]:
    """analyse() on this probe's renderer process only."""
    pid = rows_pid(events, pr)
    return analyse([e for e in events if e.get("pid") == pid], pr.steps)


def timeline(events: list[dict], st: dict, min_ms: float = 1.0) -> list[str]:
    """One step as lines: websocket frames and the main thread's tasks (>= min_ms), ms from the key press."""
    key_ts = [e["ts"] for e in events if e.get("name") == "al-key"]
    sent0 = next(t for d, t, _ in st["frames"] if d == "sent") * 1e6
    key = max(k for k in key_ts if k <= sent0 + 2000)
    end = key + (st["r"]["end"] - st["r"]["key"]) * 1000
    pid = next(e["pid"] for e in events if e.get("name") == "al-key")
    names = {
        (e["pid"], e["tid"]): e["args"]["name"] for e in events if e.get("ph") == "M" and e.get("name") == "thread_name"
    }
    tid = next(t for (p, t), n in names.items() if p == pid and n == "CrRendererMain")
    out = [(t * 1e6, f"{d} {k}") for d, t, k in st["frames"]]
    main = sorted(
        (
            e
            for e in events
            if e.get("pid") == pid
            and e.get("tid") == tid
            and e.get("ph") == "X"
            and "dur" in e
            and key - 5000 <= e["ts"] <= end + 5000
        ),
        key=lambda e: e["ts"],
    )
    starts = [e["ts"] for e in main]
    tasks = [e for e in main if e["name"] == "RunTask" and e["dur"] >= min_ms * 1000]
    for t in tasks:
        lo, hi = bisect.bisect_left(starts, t["ts"]), bisect.bisect_left(starts, t["ts"] + t["dur"])
        what: collections.Counter = collections.Counter()
        for e in main[lo:hi]:
            if e["name"] in LABELLED:
                d = e.get("args", {}).get("data", {})
                named = (d.get("type") or d.get("functionName") or d.get("url", "").split("/")[-1])[:30] if d else ""
                what[e["name"] + (f"({named})" if d else "")] += e["dur"] / 1000
        top = ", ".join(f"{k} {v:.1f}" for k, v in what.most_common(5))
        out.append((t["ts"], f"task {t['dur'] / 1000:6.1f} ms  {top}"))
    out.append((end, "END (last mutation or paint)"))
    return [f"{(ts - key) / 1000:8.1f}  {s}" for ts, s in sorted(out)]


if __name__ == "__main__":
    sys.exit(main())
