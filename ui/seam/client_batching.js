// Attention Lab: hand Streamlit's client a burst of websocket messages in one task (entry `client_batching` of
// ui/seam/__init__.py; put first into every page by ui/seam/client_batching.py).
//
// Why: a slider step answers with a few dozen messages that arrive within milliseconds. The browser dispatches
// each as its own task, and Streamlit's client sets React state once per message, so React renders the whole
// page once per message. Delivered together, the state updates of a burst fall into one task: one render.
// A script run's messages are one burst even with gaps inside it: the run's end (script_finished, then
// session_status_changed) came a few ms after its last delta, so the page rendered twice a step, and a run
// stopped for a rerun (a step reruns the page's fragment from a callback) added a third render (~9 ms each).
//
// How: a WebSocket's "message" listeners get the events of a burst after QUIET_MS without a new message
// (or after MAX_HOLD_MS of continuous messages, so a long stream still shows progress), in their order.
// While a script run is open (its new_session or a delta came, its script_finished has not), the burst is
// held until that run ends, at most RUN_HOLD_MS after the burst's first message; a run stopped early for a
// rerun does not end it (the rerun follows at once). The script reads only the top-level field numbers of each
// ForwardMsg (protobuf wire format); a message it cannot read falls back to the quiet rule. Pending messages
// are delivered before the socket's "close"/"error" listeners run, and at once in a hidden tab (timers there
// are throttled to a second or more). Without WebSocket nothing is patched.
// The link (page_info_changed) is handed over once the step has been painted: Streamlit's client writes it into
// the address bar at once, and that handled in the middle of the step's delivery cost the step 8-13 ms
// (benchmarks/README.md, "The link handed over after the paint"). It waits until the renderer is idle (at most
// LINK_WAIT_MS: a window behind others gets no frames and may not know it is hidden); it is handed over at once
// before the socket's next delivery, on the user's next key or pointer press (capture: before the press's own
// handlers read the address), on pagehide and in a hidden tab; a popstate (Back or Forward) drops it, as it
// belongs to the entry being left. It is held here, not by deferring the history call, because Streamlit's
// client compares the link with the address bar before it writes one: a write it thinks done must be done.
// window.__alLinkPending says one waits.
// Not a whole-app run's link: it may come with a page change, whose path Streamlit's client writes in a callback of
// the React commit of that run, with the link's query as its state then holds it. A link handed over after the run's
// delivery but before that commit (a busy machine: the idle wait timed out) went to the page being left, and the
// new page's address kept only the bound widgets' values (/quiz?mask=custom: no seq_len, seed or drawn grid). Handed
// over in the same task as the run's navigation message, its state update is in the same commit. A link held before
// the navigation message (the run's first page_info comes ahead of it) is handed over before it: links keep their
// order, else the older one would overwrite the newer (a first visit to /walkthrough?walk_step=7 ended there).
(() => {
  const proto = window.WebSocket && window.WebSocket.prototype;
  if (!proto || proto.__alBatched) return;
  Object.defineProperty(proto, "__alBatched", {value: true});
  const QUIET_MS = 3, MAX_HOLD_MS = 20, RUN_HOLD_MS = 40, LINK_WAIT_MS = 100;
  // ForwardMsg's field numbers (Streamlit 1.67)
  const NEW_SESSION = 4, DELTA = 5, FINISHED = 6, STATUS = 9, PAGE_INFO = 12, NAVIGATION = 23;
  const EARLY_FOR_RERUN = 2;  // ForwardMsg.ScriptFinishedStatus.FINISHED_EARLY_FOR_RERUN
  // A ForwardMsg's top-level fields: number -> its value (a varint) or true; empty for anything but bytes.
  const fields = data => {
    const out = new Map();
    if (!(data instanceof ArrayBuffer)) return out;
    const b = new Uint8Array(data);
    let i = 0;
    const varint = () => {
      let v = 0, m = 1, c;
      do { c = b[i++]; v += (c & 127) * m; m *= 128; } while (c & 128 && i < b.length);
      return v;
    };
    while (i < b.length) {
      const tag = varint(), wire = tag % 8;
      if (wire === 0) { out.set(Math.floor(tag / 8), varint()); continue; }
      out.set(Math.floor(tag / 8), true);
      if (wire === 2) { const n = varint(); i += n; } else if (wire === 1) i += 8; else if (wire === 5) i += 4;
      else return new Map();  // not a message this script can read: the quiet rule
    }
    return out;
  };
  const add = proto.addEventListener, remove = proto.removeEventListener;
  const stats = window.__alBatching = {flushes: 0, messages: 0, largest: 0};
  const wrappers = new WeakMap();  // socket -> Map(listener -> its batching wrapper), for removeEventListener
  const waiting = new Map();  // the links waiting for the paint: hand them over -> drop them (one per listener)
  Object.defineProperty(window, "__alLinkPending", {get: () => waiting.size > 0, configurable: true});
  const handOver = () => { for (const give of [...waiting.keys()]) give(); };
  // When the renderer is next idle (the step painted), at most LINK_WAIT_MS later; without requestIdleCallback
  // (Safari) after the next frame, or LINK_WAIT_MS where no frame comes.
  const frame = window.requestIdleCallback
    ? fn => { window.requestIdleCallback(fn, {timeout: LINK_WAIT_MS}); }
    : fn => { setTimeout(fn, LINK_WAIT_MS); requestAnimationFrame(() => setTimeout(fn, 0)); };

  proto.addEventListener = function (type, listener, options) {
    if (type !== "message" || typeof listener !== "function") return add.call(this, type, listener, options);
    const ws = this, queue = [];  // [event, its fields], read once on arrival
    if (wrappers.get(ws)?.has(listener)) return undefined;  // added twice: once, as without batching
    let timer = null, first = 0;
    let open = false, ended = false;  // the queue holds a script run's messages / that run's end
    const links = [];  // this listener's page_info_changed events, held until after the paint
    let whole = false;  // the run being delivered is a whole-app run (st.navigation's message followed its new_session)
    let turn = 0;  // a handover's timers hand over only the links they were set for
    const giveLinks = () => {
      turn += 1;
      waiting.delete(giveLinks);
      for (const event of links.splice(0)) listener.call(ws, event);
    };
    const dropLinks = () => { turn += 1; waiting.delete(giveLinks); links.length = 0; };
    const flush = () => {
      if (timer !== null) { clearTimeout(timer); timer = null; }
      giveLinks();  // an older link first: messages keep their order
      if (!queue.length) return;
      const batch = queue.splice(0);
      stats.flushes += 1; stats.messages += batch.length; stats.largest = Math.max(stats.largest, batch.length);
      for (const [event, f] of batch) {
        if (f.has(NEW_SESSION)) whole = false;  // every run starts with one, a fragment's too
        if (f.has(NAVIGATION)) { whole = true; giveLinks(); }  // its own link may come first: in order
        if (f.has(PAGE_INFO) && !whole && !document.hidden) links.push(event);
        else listener.call(ws, event);
      }
      if (links.length && !waiting.has(giveLinks)) {
        waiting.set(giveLinks, dropLinks);
        const mine = turn;
        frame(() => { if (turn === mine) giveLinks(); });
      }
    };
    const onMessage = event => {
      const f = fields(event.data);
      queue.push([event, f]);
      if (document.hidden) { flush(); return; }
      const now = performance.now();
      if (queue.length === 1) { first = now; open = false; ended = false; }
      if (f.has(NEW_SESSION) || f.has(DELTA)) open = true;
      if (f.has(FINISHED) && f.get(FINISHED) !== EARLY_FOR_RERUN) ended = true;
      if (timer !== null) clearTimeout(timer);
      if (ended && f.has(STATUS)) { flush(); return; }  // the run's last message: one render for the whole run
      if (open && !ended) { timer = setTimeout(flush, Math.max(0, first + RUN_HOLD_MS - now)); return; }
      timer = setTimeout(flush, now - first >= MAX_HOLD_MS ? 0 : QUIET_MS);
    };
    if (!wrappers.has(ws)) wrappers.set(ws, new Map());
    wrappers.get(ws).set(listener, {onMessage, flush, giveLinks});
    add.call(ws, "close", flush);  // registered before the app's own close/error listeners, so they run first
    add.call(ws, "error", flush);
    return add.call(ws, "message", onMessage, options);
  };

  proto.removeEventListener = function (type, listener, options) {
    const w = type === "message" && wrappers.get(this)?.get(listener);
    if (!w) return remove.call(this, type, listener, options);
    wrappers.get(this).delete(listener);
    w.flush();  // what arrived before the removal is delivered, as it would have been without batching
    w.giveLinks();
    remove.call(this, "close", w.flush);
    remove.call(this, "error", w.flush);
    return remove.call(this, "message", w.onMessage, options);
  };

  window.addEventListener("pointerdown", handOver, true);
  window.addEventListener("keydown", handOver, true);
  window.addEventListener("pagehide", handOver, true);
  document.addEventListener("visibilitychange", () => { if (document.hidden) handOver(); });  // no frames come
  window.addEventListener("popstate", () => {
    for (const drop of [...waiting.values()]) drop();
  }, true);
})();
