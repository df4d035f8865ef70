"""Browser waits on a condition, for what Streamlit's idle flag does not cover: formulas, charts and late styles
draw after the run ends, so a test waits until the page has stopped changing, never for a fixed time."""

from __future__ import annotations

# Records when anything in the document last changed (nodes, attributes, text): installed once per page.
_WATCH = """() => {
  if (window.__alLastChange !== undefined) return;
  window.__alLastChange = performance.now();
  new MutationObserver(() => { window.__alLastChange = performance.now(); })
    .observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
}"""


def wait_quiet(page, quiet_ms: int = 500, timeout: float = 60_000) -> None:
    """Until nothing in the page has changed for `quiet_ms` (at most `timeout` ms): the run's output, and what
    draws after it (KaTeX, canvas charts re-fitting to their box), is in place."""
    page.evaluate(_WATCH)
    page.wait_for_function("ms => performance.now() - window.__alLastChange >= ms", arg=quiet_ms, timeout=timeout)
