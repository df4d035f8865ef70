"""Masks lab: which cells a mask blocks, what happens to the scores and the weights, and the traps
(polarity, the fill value of a fully blocked row, cross-attention, padding in a batch).

The page's controls (which masks, batch, T_k, polarity, fill value, head) sit above four sections
shown as lazy tabs (ui/sections.py): only the open one runs and draws, and its id is in the URL
(?masks_tab=row) so a teacher's link opens the same section for the class. Everything built from
the settings and these choices alone is computed once per server (ui/cache.py): a class shares them.
The computation, the heatmaps and the tables (plain data) are lessons/masks_lab/; the heatmaps are drawn by
ui.heatmaps.show_heatmap (the page's URL keys: lessons.masks_lab.URL_KEYS), and the hand-drawn grid's editor
(its buttons, text box, keyboard toggle and their callbacks) is ui/mask_grid.py.
"""

import streamlit as st

import i18n
from i18n import plain
from lessons import masks_lab as lab
from lessons.export import GRID_PARAM as GRID_KEY  # the hand-drawn grid's text box and URL parameter
from lessons.url import Fix, key_default
from ui import display, free_text, url_state
from ui import mask_grid as grid
from ui.cache import shared
from ui.choice import labelled
from ui.downloads import lab_downloads
from ui.heatmaps import show_heatmap
from ui.live_part import live_part
from ui.sections import lazy_tabs
from ui.shell import CUSTOM_MASK_KEY, PageContext, page_context
from ui.tables import show_table, show_table_in_text

ctx = page_context()
t, s = ctx.t, ctx.settings
# The lab's charts print the mask's 0/1 always and the scores and weights with "Numbers in the cells".
numbers = display.current().cell_numbers

SECTIONS = lab.choices.SECTIONS  # masks_tab


# ------------------------------------------------------------------ page-local state
def notice(fix: Fix, from_link: bool) -> str | None:
    """A link's corrections are shown, in the lab's words ("<key>=<given> is not valid here: <used>")."""
    return t("masks.fixed", what=fix.key, given=plain(fix.given), used=fix.used) if from_link else None


def settle_grid() -> str:
    """The hand-drawn grid's text: the editor's (its tab is open), else the one kept while another tab is
    open, else the link's, else the grid drawn before on another page. It stays in the URL in every tab."""
    if GRID_KEY in st.session_state:
        text = st.session_state[GRID_KEY]
    elif GRID_KEY in grid.kept():
        text = grid.kept()[GRID_KEY]
    else:
        text = free_text.url_text(GRID_KEY, "masks_grid") or st.session_state.get(CUSTOM_MASK_KEY) or ""
    text = str(text or "")
    grid.kept()[GRID_KEY] = text
    st.session_state[CUSTOM_MASK_KEY] = text  # the other pages draw it too
    return text


def section_label(sid: str, lang: str) -> str:
    return i18n.t(f"masks.tab.{sid}", lang)


def headed(table: dict, prefix: str = "masks.col", **params) -> dict:
    """A lesson's table with its column ids worded ("i" and "j" stay as they are; `params[id]` formats one)."""
    return {c if c in ("i", "j") else t(f"{prefix}.{c}", **params.get(c, {})): v for c, v in table.items()}


# ------------------------------------------------------------------ header
# The title, the intro and the two lines every mask ends in (a fenced block: the same highlighter and copy button as
# a code element), one element that no step changes.
st.markdown(
    f"# {t('page.masks')}\n\n{t('masks.intro')}\n\n```python\n"
    "attn_scores = attn_scores.masked_fill(mask == 0, -1e9)\nattn_probs = F.softmax(attn_scores, dim=-1)\n```"
)


# ------------------------------------------------------------------ controls (every section uses them)
# Every page key declared in lessons.masks_lab.URL_KEYS, valid for these settings before any widget is drawn.
def settle(s) -> None:
    url_state.settle(lab.URL_KEYS, {"settings": s}, t=t, store=grid.KEPT, notice=notice)


settle(s)

with st.container(border=True):
    # the box's title and where it starts from: one element (each element a step re-sends costs a render)
    st.markdown(f"**{t('masks.controls')}**\n\n:small[:gray[{t('masks.kind_from_sidebar', kind=t(f'mask.{s.mask}'))}]]")
    # The widgets in one wrapping row container, not three columns: one container a step re-sends, not
    # four (columns are one container and one more per column).
    c1 = c2 = c3 = st.container(horizontal=True, vertical_alignment="bottom")
    with c1:
        # Translated labels, neutral names in the URL (ui/choice.py: Streamlit binds the shown text).
        extra = (
            labelled(
                "pills",
                "masks_extra",
                lab.EXTRA_PARTS,
                lambda p: t(f"mask.{p}"),
                t("masks.extra"),
                default=[],
                multi=True,
                help=t("masks.extra.help"),
            )
            or []
        )
        parts = lab.mask_parts(s.mask, extra)
        cross = st.toggle(
            t("masks.cross"), value=False, key="masks_cross", bind="query-params", help=t("masks.cross.help")
        )
        T_q = s.seq_len
        if cross:
            T_k = st.slider(
                t("masks.tk"), lab.T_K_MIN, lab.T_K_MAX, value=lab.DEFAULT_T_K, key="masks_tk", bind="query-params"
            )
        else:
            T_k = T_q
    with c2:
        lengths = None
        if "padding" in parts:
            batch = st.segmented_control(
                t("masks.batch"),
                ("1", "2"),
                key="masks_batch",
                bind="query-params",
                default="1",
                required=True,
                help=t("masks.batch.help"),
            )
            if batch == "2":
                defaults = lab.default_lengths(T_k)
                lengths = []
                for b in range(2):
                    key = f"masks_len{b}"
                    lengths.append(
                        st.slider(t("masks.len", b=b), 0, T_k, value=defaults[b], key=key, bind="query-params")
                    )
            else:
                default_pad = lab.default_padding(T_k)
                pad = st.slider(t("masks.pad"), 0, T_k, value=default_pad, key="masks_pad", bind="query-params")
                lengths = [T_k - pad]
    with c3:
        polarity = (
            labelled(
                "segmented_control",
                "masks_polarity",
                lab.POLARITIES,
                lambda p: t(f"masks.polarity.{p}.label"),
                t("masks.polarity"),
                default="keep",
                required=True,
            )
            or "keep"
        )
        fill = st.segmented_control(
            t("masks.fill"),
            lab.FILLS,
            key="masks_fill",
            bind="query-params",
            default="-1e9",
            required=True,
            help=t("masks.fill.help"),
        )
        h_max = s.num_heads - 1
        head = int(
            st.number_input(
                t("masks.head"),
                0,
                h_max,
                value=0,
                step=1,
                key="masks_head",
                bind="query-params",
                help=t("masks.head.help"),
                disabled=h_max == 0,
                width=200,  # a head number: the row's sliders take the rest
            )
        )
    # what the polarity means and which mask is in use: one element
    in_use = t("masks.in_use", parts=" ∧ ".join(t(f"mask.{p}") for p in parts)) if parts else t("masks.in_use.none")
    st.caption(f"{t(f'masks.polarity.{polarity}')}\n\n{in_use}")

custom_grid, grid_text = None, ""
if "custom" in parts:
    grid.apply_click(T_q, T_k)
    grid_text = settle_grid()
    free_text.show_refusal(GRID_KEY, ctx.lang)
    custom_grid, fitted = lab.parse_grid(grid_text, T_q, T_k)
    if not fitted:
        st.warning(t("masks.grid_unfit", T_q=T_q, T_k=T_k), icon=":material/build:")

lengths = tuple(lengths) if lengths else None
# A step of seq_len or the seed reruns the open section alone (the page's live part, ui/live_part.py) when no control
# above it follows T: with padding the sliders go up to T_k, and the hand-drawn grid is T_q x T_k (then the page runs).
LIVE = "padding" not in parts and "custom" not in parts
T_K_CHOSEN = T_k if cross else None  # cross-attention's own T_k (its slider), else T_k is T


def lab_run(s):
    """One run per distinct choice for the whole server (frozen: never written to), for settings `s` and the page's
    choices (the grid as its text): (the run, its cache key, T_q, T_k)."""
    T_q = s.seq_len
    T_k = T_K_CHOSEN if cross else T_q
    SK = (s.d_model, s.num_heads, s.seq_len, s.mask, s.seed, s.lang)
    setup = lab.LabSetup(parts, T_q, T_k, cross, lengths, custom_grid, fill)
    return shared("masks_run", SK + setup.cache_key, lambda: lab.run_lab(s, setup)), SK + setup.cache_key, T_q, T_k


open_id, tabs = lazy_tabs(
    "masks_tab",
    SECTIONS,
    section_label,
    ctx.lang,
    on_bad_url=lambda given, used: st.warning(
        t("masks.fixed", what="masks_tab", given=plain(given), used=used), icon=":material/build:"
    ),
)


def sections(c: PageContext) -> None:
    """The open section and the downloads below it, for the settings of `c`."""
    s = c.settings
    SK = (s.d_model, s.num_heads, s.seq_len, s.mask, s.seed, s.lang)
    run, K, T_q, T_k = lab_run(s)
    B = run.batch
    # ------------------------------------------------------------------ the mask, the scores, the weights
    if open_id == "grid":
        clickable = "custom" in parts
        if clickable:  # the hand-drawn grid's editor, beside the chart whose mask cells it toggles
            grid.editor(t, T_q, T_k, grid_text, combined=len(parts) > 1)

        st.subheader(t("masks.figures"))
        for b in range(B):
            if B > 1:
                st.markdown(f"**{t('masks.sequence', b=b, n=lengths[b])}**")
            # Per sequence: mask | masked scores | weights, three charts side by side (stacked on a phone).
            view = shared(
                "masks_view",
                K + (b, head, polarity, clickable),
                lambda b=b: lab.lab_view(run, b, head, polarity, clickable=clickable),
            )
            c_mask, c_scores, c_weights = st.columns(3)
            with c_mask:
                # The hand-drawn mask's chart is keyed per sequence (tests and the phone layout find it there).
                with st.container(key=f"masks_click_{b}"):
                    picked = show_heatmap(view.mask, key=f"masks_mask_{b}", t=t)
                if clickable and picked is not None:  # one click = one toggle, applied before the text box is drawn
                    grid.keep_click(picked.row, picked.col, b, T_q, T_k)
            with c_scores:
                show_heatmap(view.scores, key=f"masks_scores_{b}", t=t)
            with c_weights:
                show_heatmap(view.weights, key=f"masks_weights_{b}", t=t)

        sep = "" if ctx.lang == "zh" else " "  # Chinese sentences follow each other without a space
        st.caption(t("masks.legend", fill=fill) + ("" if numbers else sep + t("masks.numbers_hint")))
        check = shared("masks_check", K + (head,), lambda: lab.blocked_check(run, head))
        if check["largest"] is not None:
            st.success(
                t(
                    "masks.check.zero",
                    h=head,
                    n=check["blocked"],
                    total=check["total"],
                    m=check["checked"],
                    max=lab.fmt_value(check["largest"]),
                ),
                icon=":material/check_circle:",
            )
        elif not check["blocked"]:
            st.info(t("masks.check.none"), icon=":material/info:")
        if run.mask is not None:
            st.caption(
                t(
                    "masks.shapes",
                    mask_shape=tuple(run.mask.shape),
                    scores_shape=tuple(run.trace.weights.shape),
                    h=s.num_heads,
                )
            )
        if cross:
            st.info(t("masks.cross.about", T_q=T_q, T_k=T_k), icon=":material/compare_arrows:")

    # ------------------------------------------------------------------ one row up close
    if open_id == "row":
        st.subheader(t("masks.row"))
        r1 = r2 = st.container(horizontal=True)  # one container, not three (columns)
        seq = 0
        if B > 1:
            seq = int(
                r2.segmented_control(
                    t("masks.row.seq"), ("0", "1"), key="masks_seq", bind="query-params", default="0", required=True
                )
            )
        row = int(
            r1.number_input(
                t("masks.row.query"),
                0,
                T_q - 1,
                value=key_default(lab.URL_KEYS, "masks_row", {"settings": s}),
                step=1,
                key="masks_row",
                bind="query-params",
                width=200,
            )
        )
        st.caption(t("masks.row.caption", i=row, tok=run.q_labels[seq][row], h=head))
        table = lab.row_table(run, seq, row, head, polarity)
        show_table(
            headed(table, mask=dict(polarity=t(f"masks.polarity.{polarity}.label"))),
            where=st.container(key="masks_inspector"),
        )

    # ------------------------------------------------------------------ fully blocked rows
    if open_id == "full":
        st.subheader(t("masks.full"))
        demo = lab.full_row_demo(run, head)
        full = lab.full_rows(run)
        if full.count:
            where_key = "masks.full.where" if B > 1 else "masks.full.where1"
            where = ", ".join(t(where_key, b=b, i=i, tok=tok) for b, i, tok in full.where) + (" …" if full.more else "")
            effect = t(f"masks.full.effect.{fill}", u=full.uniform, nan=full.nan)
            st.warning(
                t("masks.full.found", n=full.count, where=where, fill=fill, effect=effect), icon=":material/warning:"
            )
        else:
            st.info(t("masks.full.none", i=demo.query), icon=":material/info:")
        st.caption(t("masks.full.table", i=demo.query, tok=run.q_labels[demo.seq][demo.query]))
        for col, name in zip(st.columns(2), lab.FILLS):
            show_table(
                headed(lab.full_row_table(demo, name), masked_f=dict(fill=name), shift=dict(fill=name)), where=col
            )
        st.markdown(t("masks.full.why"))

    # ------------------------------------------------------------------ polarity and its bug
    if open_id == "polarity":
        # The heading, its text, both ways to write the fill and the libraries' trap: one markdown element, which only
        # the polarity and the fill change (the two code blocks stack as fenced code instead of sitting in two
        # columns, as they do on a phone). A step of T or the seed leaves it as it was, so the browser does not
        # highlight the code again (benchmarks/README.md, 2026-12-05); the check and the bug's setup, which the run
        # changes, are the next element.
        fixed = [
            f"### {t('masks.pol')}",
            t("masks.pol.now", polarity=t(f"masks.polarity.{polarity}.label")),
            f"```python\n# keep: 1 = keep\nscores = scores.masked_fill(mask == 0, {fill})\n```",
            f"```python\n# block: True = blocked\nscores = scores.masked_fill(mask, {fill})\n```",
            f":small[:gray[{t('masks.pol.libs')}]]",
        ]
        st.markdown("\n\n".join(fixed))
        said = []
        if run.mask is not None and not run.blocked_rows.any():
            diff = shared("masks_ref", K, lambda: lab.reference_diff(run))
            said.append(f":small[:gray[{t('masks.pol.check', diff=diff)}]]")
        said += [f"**{t('masks.bug')}**", t("masks.bug.setup", T=s.seq_len, fill=fill)]
        st.markdown("\n\n".join(said))
        bug = shared("masks_bug", SK + (fill,), lambda: lab.polarity_bug(s, fill, run.model))  # the same weights
        bug_view = shared("masks_bug_view", SK + (fill, head), lambda: lab.bug_view(bug, head))
        show_heatmap(bug_view.masks, key="masks_bug_masks", t=t)
        show_heatmap(bug_view.weights, key="masks_bug_weights", t=t)
        summary = shared("masks_bug_summary", SK + (fill, head), lambda: bug.summary(head))
        first, last = summary[0], summary[-1]
        said_first = t("masks.bug.first", tok=first["token"], future=first["bug_future"], self_w=first["bug_past"])
        said_last = t(f"masks.bug.last.{fill}", tok=last["token"], u=lab.uniform_weight(s.seq_len))
        show_table_in_text(  # the two sentences and the table they sum up: one element
            f"{said_first}\n\n{said_last}",
            headed(lab.bug_table(summary), "masks.bug.col"),
            caption=t("masks.bug.table", h=head),
        )
    lab_downloads(c, run)


def live(c: PageContext, alone: bool) -> None:
    """The open section as the page's live part. Rerun alone, the page's values are settled again for the new T first:
    a row past it moves back to the last row, as on a whole-page run, instead of its new widget starting at its
    default."""
    if alone:
        settle(c.settings)
    sections(c)


with tabs[open_id]:
    if LIVE:
        live_part(live, ctx)
    else:
        sections(ctx)
