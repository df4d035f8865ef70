// Attention Lab: a link the server writes while the page stays the same replaces the browser's history entry
// instead of adding one (entry `link_in_place` of ui/seam/__init__.py; put into every page by
// ui/seam/client_batching.py, with client_batching.js).
//
// Why: the server writes seq_len and the seed into the link at the end of each step's run (app.py SERVER_LINKED),
// and Streamlit's client applies a link the server writes with history.pushState: every step would add an entry,
// and Back would bring an older link that the next run writes over again (the view keeps its value), press after
// press. A bound widget's own change replaces the entry; this makes the server's writes do the same.
// How: history.pushState to the current path (and hash) becomes replaceState; a page change (another path) still
// adds an entry, so Back goes to the previous page.
(() => {
  const h = window.history;
  if (!h || typeof h.pushState !== "function" || h.__alInPlace) return;
  Object.defineProperty(h, "__alInPlace", {value: true});
  const push = h.pushState;
  h.pushState = function (state, title, url) {
    if (url !== undefined && url !== null) {
      try {
        const next = new URL(String(url), window.location.href);
        const here = window.location;
        if (next.origin === here.origin && next.pathname === here.pathname && next.hash === here.hash) {
          return h.replaceState(state, title, url);
        }
      } catch (e) {
        // an address URL cannot read: as Streamlit asked
      }
    }
    return push.call(this, state, title, url);
  };
})();
