"""Arrow keys (and a presenter clicker's Page Up / Page Down) step through something: the walkthrough's
presenter view uses it for ← →.

A `st.components.v2` component (public API) with no visible content: its script listens to the page's
keydown and sets a trigger value, -1 or +1, which runs `on_step`. Keys typed into a text box, a select
box, a slider, tabs or a pills group keep their own meaning (those widgets use the arrows themselves).
"""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

_JS = """
export default function (component) {
  const {parentElement, setTriggerValue} = component;
  const win = (parentElement.ownerDocument || document).defaultView || window;
  if (win.__alStepKeys) win.removeEventListener("keydown", win.__alStepKeys);
  const onKey = e => {
    if (!parentElement.isConnected) { win.removeEventListener("keydown", onKey); return; }
    if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey || e.shiftKey || e.repeat) return;
    const t = e.target;
    if (t && t.closest && t.closest('input,textarea,select,[contenteditable=true],[role=slider],[role=listbox],' +
                                    '[role=combobox],[role=tablist],[role=radiogroup],[role=toolbar]')) return;
    const delta = {ArrowRight: 1, PageDown: 1, ArrowLeft: -1, PageUp: -1}[e.key];
    if (!delta) return;
    e.preventDefault();
    setTriggerValue("step", delta);
  };
  win.__alStepKeys = onKey;
  win.addEventListener("keydown", onKey);
  return () => { win.removeEventListener("keydown", onKey); if (win.__alStepKeys === onKey) win.__alStepKeys = null; };
}
"""  # st.pills / st.segmented_control: role radiogroup (one choice) or toolbar (several)
KEYS = st.components.v2.component("attention_lab.step_keys", js=_JS)


def step_keys(key: str, on_step: Callable[[int], None]) -> None:
    """Listen for ← → (Page Up / Page Down) on the whole page; `on_step(-1 or +1)` runs before the rerun."""

    def stepped() -> None:
        state = st.session_state.get(key)
        try:
            delta = state.get("step") if hasattr(state, "get") else getattr(state, "step", None)
        except Exception:  # noqa: BLE001
            delta = None
        if delta in (-1, 1):
            on_step(int(delta))

    KEYS(key=key, on_step_change=stepped)
