"""The "Download the tensors" section: .npz of everything, the JSON recipe, and a CSV of one 2-D slice.

Files are built only when a button is clicked (st.download_button takes a callable: nothing is
serialised on a rerun), and a download does not rerun the page (on_click="ignore"). The slice picker
is a fragment: choosing another tensor or head reruns only this section, not the page's figures.
The section's contents exist only while its expander is open (see _section).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import streamlit as st

from lessons import export
from lessons.export import TensorSet
from ui.shell import PageContext, current_settings

# The pages whose end is the downloads section of the shared settings' run. app.py draws it below the page in a
# fragment of its own, which a step of a setting reruns only while the section is open: closed, it is the same
# element after the step, and a closed expander sent again costs the browser a render (benchmarks/README.md,
# 2026-12-05, "The downloads section below the page").
TAIL_PAGES = ("walkthrough", "heads")


def tail(page: str) -> None:
    """The downloads section at the end of `page` (one of TAIL_PAGES), for the shared settings' run: the pages' own
    cached one (ui.shell.PageContext.run), read only while the section is open."""
    ctx = PageContext(current_settings())
    _section(
        lambda: export.from_scenario(ctx.run(), ctx.custom_text, page=page, app_url=st.context.url),
        ctx.t,
        key=_tail_key(page),
        stem=export.file_stem(ctx.settings),
    )


def tail_open(page: str) -> bool:
    """The section at the end of `page` is open (a step of a setting must redraw it with the new run)."""
    return bool(st.session_state.get(_open_key(_tail_key(page))))


def _tail_key(page: str) -> str:
    """The keys of `page`'s section start with this (its widgets and its expander's open state)."""
    return f"{page}_export"


def _open_key(key: str) -> str:
    """The session-state key of a section's expander (open or closed)."""
    return f"{key}_open"


def lab_downloads(ctx, lab_run) -> None:
    """For the Masks lab, whose tensors come from its own choices (lessons.masks_lab.run_lab)."""
    _section(
        lambda: export.from_lab(
            lab_run,
            ctx.settings,
            ctx.custom_text,
            app_url=st.context.url,
            extra_query={k: v for k, v in st.query_params.to_dict().items() if k.startswith("masks_")},
        ),
        ctx.t,
        key="masks_export",
        stem=export.file_stem(ctx.settings) + "_lab",
        note=ctx.t("export.lab_note"),
    )


def _section(build: Callable[[], TensorSet], t, *, key: str, stem: str, note: str | None = None) -> None:
    # A lazy expander: closed (as it is on every slider step), it is one element. Its buttons and
    # pickers cost the browser work on every redraw even while hidden, so they and the
    # tensor set exist only while it is open; opening it reruns what it is drawn in (the page, or its own fragment).
    box = st.expander(t("export.title"), icon=":material/download:", key=_open_key(key), on_change="rerun")
    if not box.open:
        return
    ts = build()
    with box:
        st.caption(t("export.about"))
        if note:
            st.caption(note)
        files = (
            ("npz", export.npz_bytes, "application/octet-stream", ":material/download:"),
            ("json", export.json_text, "application/json", ":material/settings:"),
        )
        for column, (kind, write, mime, icon) in zip(st.columns(2), files, strict=True):
            column.download_button(
                t(f"export.{kind}"),
                partial(write, ts),
                file_name=f"{stem}.{kind}",
                mime=mime,
                key=f"{key}_{kind}",
                on_click="ignore",
                help=t(f"export.{kind}.help"),
                icon=icon,
                width="stretch",
            )
        _slice_picker(ts, t, key, stem)


def _settle_index(key: str, n: int) -> None:
    """A head/sequence index left over from larger settings would be out of range: clamp it first."""
    value = st.session_state.get(key)
    if not isinstance(value, int) or not 0 <= value < n:
        st.session_state[key] = 0 if not isinstance(value, int) else min(max(value, 0), n - 1)


@st.fragment
def _slice_picker(ts: TensorSet, t, key: str, stem: str) -> None:
    st.markdown(f"**{t('export.csv.title')}**")
    names = ts.names()  # every tensor has a 2-D (a bias: one-column) slice
    name_key, b_key, h_key = f"{key}_tensor", f"{key}_b", f"{key}_h"
    if st.session_state.get(name_key) not in names:
        st.session_state[name_key] = "weights"
    _settle_index(b_key, ts.batch)
    _settle_index(h_key, ts.num_heads)
    c1, c2, c3 = st.columns([2, 1, 1])
    name = c1.selectbox(t("export.csv.tensor"), names, key=name_key)
    b, head = (
        column.number_input(
            t(f"export.csv.{axis}"), 0, n - 1, step=1, key=k, disabled=n == 1 or not export.has_axis(name, axis)
        )
        for column, axis, n, k in ((c2, "batch", ts.batch, b_key), (c3, "head", ts.num_heads, h_key))
    )
    sl = export.slice_2d(ts, name, int(b), int(head))
    axis = lambda a: t(f"export.axis.{a if a in _AXES else 'bias'}")  # noqa: E731  (a bias's column is its name)
    st.caption(
        t(
            "export.csv.shape",
            name=name,
            shape=tuple(ts.tensors[name].shape),
            slice=sl.label,
            rows=sl.matrix.shape[0],
            cols=sl.matrix.shape[1],
            row_axis=axis(sl.row_axis),
            col_axis=axis(sl.col_axis),
        )
    )
    suffix = "".join(f"_{i}" for i in sl.index)
    st.download_button(
        t("export.csv.button", slice=sl.label),
        partial(export.csv_bytes, sl),
        file_name=f"{stem}_{name}{suffix}.csv",
        mime="text/csv",
        key=f"{key}_csv",
        on_click="ignore",
        icon=":material/table:",
    )


_AXES = ("query", "key", "dim", "out", "in")
