// Attention Lab: hand Streamlit's client a burst of websocket messages in one task (entry `client_batching` of
// ui/seam/__init__.py; put first into every page by ui/seam/client_batching.py).
//
// Why: a slider step answers with a few dozen messages that arrive within milliseconds. The browser dispatches
// each as its own task, and Streamlit's client sets React state once per message, so React renders the whole
// page once per message. Delivered together, the state updates of a burst fall into one task: one render.
//
// How: a WebSocket's "message" listeners get the events of a burst after QUIET_MS without a new message
// (or after MAX_HOLD_MS of continuous messages, so a long stream still shows progress), in their order.
// Pending messages are delivered before the socket's "close"/"error" listeners run, and at once in a
// hidden tab (timers there are throttled to a second or more). Without WebSocket nothing is patched.
(() => {
  const proto = window.WebSocket && window.WebSocket.prototype;
  if (!proto || proto.__alBatched) return;
  Object.defineProperty(proto, "__alBatched", {value: true});
  const QUIET_MS = 3, MAX_HOLD_MS = 20;
  const add = proto.addEventListener, remove = proto.removeEventListener;
  const stats = window.__alBatching = {flushes: 0, messages: 0, largest: 0};
  const wrappers = new WeakMap();  // socket -> Map(listener -> its batching wrapper), for removeEventListener

  proto.addEventListener = function (type, listener, options) {
    if (type !== "message" || typeof listener !== "function") return add.call(this, type, listener, options);
    const ws = this, queue = [];
    if (wrappers.get(ws)?.has(listener)) return undefined;  // added twice: once, as without batching
    let timer = null, first = 0;
    const flush = () => {
      if (timer !== null) { clearTimeout(timer); timer = null; }
      if (!queue.length) return;
      const batch = queue.splice(0);
      stats.flushes += 1; stats.messages += batch.length; stats.largest = Math.max(stats.largest, batch.length);
      for (const event of batch) listener.call(ws, event);
    };
    const onMessage = event => {
      queue.push(event);
      if (document.hidden) { flush(); return; }
      const now = performance.now();
      if (queue.length === 1) first = now;
      if (timer !== null) clearTimeout(timer);
      timer = setTimeout(flush, now - first >= MAX_HOLD_MS ? 0 : QUIET_MS);
    };
    if (!wrappers.has(ws)) wrappers.set(ws, new Map());
    wrappers.get(ws).set(listener, {onMessage, flush});
    add.call(ws, "close", flush);  // registered before the app's own close/error listeners, so they run first
    add.call(ws, "error", flush);
    return add.call(ws, "message", onMessage, options);
  };

  proto.removeEventListener = function (type, listener, options) {
    const w = type === "message" && wrappers.get(this)?.get(listener);
    if (!w) return remove.call(this, type, listener, options);
    wrappers.get(this).delete(listener);
    w.flush();  // what arrived before the removal is delivered, as it would have been without batching
    remove.call(this, "close", w.flush);
    remove.call(this, "error", w.flush);
    return remove.call(this, "message", w.onMessage, options);
  };
})();
