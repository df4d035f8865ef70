"""The Masks lab's hand-drawn grid editor: Streamlit glue for the grid that every page draws while mask=custom
(ui/shell.PageContext.custom_text reads it, keep_grid_in_url keeps it in the link).

The grid's text lives in the text box (`GRID_KEY`, also its URL parameter), in the value kept while the lab's
grid tab is closed (`KEPT`, ui/url_state.kept) and in `CUSTOM_MASK_KEY` for the other pages. Every edit (typed,
a button, a click on the chart, the keyboard's toggle) goes through lessons.masks_lab.edit_grid and is written to
the link in a callback, never while the page is drawn. The page reads the grid's starting text itself
(pages/masks.py settle_grid: the link's value through ui/free_text.url_text).
"""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from lessons import masks_lab as lab
from lessons.export import GRID_PARAM as GRID_KEY  # the hand-drawn grid: its text box and URL parameter
from ui import free_text, url_state

KEPT = "masks_kept"  # values of the lab's widgets drawn inside a tab, kept while their tab is closed
CLICKED = "masks_clicked"  # a click on the hand-drawn mask, applied at the start of the next run


def kept() -> dict:
    return url_state.kept(KEPT)


def grid_to_url() -> None:
    """An edit of the grid (typed, clicked, a button) into the link. Written in a callback, never while the
    page is drawn: a write then, after a page change, would drop the URL values of the bound widgets."""
    if not free_text.check(GRID_KEY, "masks_grid", previous=kept().get(GRID_KEY, "")):
        return  # too long: refused, the previous grid is back in the box (ui/free_text.py)
    text = st.session_state.get(GRID_KEY) or ""
    kept()[GRID_KEY] = text
    if text:
        st.query_params[GRID_KEY] = text
    elif GRID_KEY in st.query_params:
        del st.query_params[GRID_KEY]


def edit_grid(action: str, T_q: int, T_k: int, cell=None, row_key=None) -> None:
    st.session_state[GRID_KEY] = lab.edit_grid(st.session_state.get(GRID_KEY), T_q, T_k, action, cell)
    grid_to_url()
    if cell is not None:  # the row inspector ("One row up close") opens on the edited row
        st.session_state["masks_row"] = kept()["masks_row"] = cell[0]
        if row_key is not None:
            st.session_state["masks_seq"] = kept()["masks_seq"] = row_key


def keep_click(row: int, col: int, seq: int, T_q: int, T_k: int) -> None:
    """A click on the hand-drawn mask of sequence `seq` (show_heatmap returns it in the run the click caused):
    kept under CLICKED and run again, so that it is applied before the grid's text box is drawn."""
    st.session_state[CLICKED] = (row, col, seq, T_q, T_k)
    st.rerun()


def apply_click(T_q: int, T_k: int) -> None:
    """The cell a click selected (keep_click): toggled once, before the grid's text box is drawn, as a callback
    would."""
    click = st.session_state.pop(CLICKED, None)
    if click is not None and click[3:] == (T_q, T_k):
        row, col, seq = click[:3]
        edit_grid("toggle", T_q, T_k, (row, col), str(seq))


def toggle_chosen_cell(T_q: int, T_k: int) -> None:
    """The keyboard's toggle: the cell chosen in the two select boxes (read when the button is pressed)."""
    i, j = st.session_state.get("masks_cell_i"), st.session_state.get("masks_cell_j")
    if i in range(T_q) and j in range(T_k):
        edit_grid("toggle", T_q, T_k, (int(i), int(j)))


def editor(t: Callable[..., str], T_q: int, T_k: int, grid_text: str, combined: bool) -> None:
    """The grid's editor, beside the chart whose mask cells it toggles: a button per action, the text box, and
    the keyboard way to toggle one cell (a click on the grid needs a pointer)."""
    st.subheader(t("masks.editor"))
    st.caption(t("masks.editor.how") + (" " + t("masks.editor.combined") if combined else ""))
    cols = st.columns(len(lab.GRID_ACTIONS))
    for col, action in zip(cols, lab.GRID_ACTIONS):
        col.button(
            t(f"masks.btn.{action}"),
            key=f"masks_btn_{action}",
            on_click=edit_grid,
            args=(action, T_q, T_k),
            width="stretch",
        )
    if st.session_state.get(GRID_KEY) != grid_text:
        st.session_state[GRID_KEY] = grid_text  # the tab was closed: its text box starts from the kept grid
    st.text_input(
        t("masks.grid_text"),
        key=GRID_KEY,
        help=t("masks.grid_text.help"),
        on_change=grid_to_url,
        max_chars=free_text.max_chars("masks_grid"),
    )
    for key, n in (("masks_cell_i", T_q), ("masks_cell_j", T_k)):
        if st.session_state.get(key) not in range(n):
            st.session_state[key] = 0
    k1, k2, k3 = st.columns([2, 2, 1], vertical_alignment="bottom")
    k1.selectbox(t("masks.cell.i"), list(range(T_q)), key="masks_cell_i")
    k2.selectbox(t("masks.cell.j"), list(range(T_k)), key="masks_cell_j")
    k3.button(
        t("masks.cell.toggle"),
        key="masks_cell_toggle",
        icon=":material/keyboard:",
        width="stretch",
        on_click=toggle_chosen_cell,
        args=(T_q, T_k),
    )
