"""Walkthrough: the whole multi-head attention computation, one step at a time.

Every step shows its formula, the exact source line(s) that compute it (read from core by
lessons/walkthrough/ through lessons/source.py), the shape with named axes and live sizes, and a heatmap
per head. URL: walk_view (step | all | present), walk_step (a step name or 1..10), walk_hpage (page of
heads), walk_head / walk_i / walk_j (the followed cell), walk_cellcharts (the cell's charts on/off),
walk_drill (the cell's story open): lessons.walkthrough.URL_KEYS.

Speed: a view draws the charts of ONE step (the chosen one; in the all-steps view the others
keep their formula, code and shape, and draw their tensors on a click); the drill-down (ui/walk_drill.py,
below the page in a fragment of its own) tells one cell's story in text and a table, its charts one toggle
away. The heatmaps are plain data (lessons.heatmap.Heatmap) built once per settings and choices for the
whole server (ui.cache.shared) and drawn by ui.heatmaps.show_heatmap, the one heatmap route.
"""

from html import escape

import streamlit as st

from i18n import plain
from lessons import walkthrough as W
from lessons.heatmap import Heatmap
from lessons.url import Fix
from ui import url_state, walk_nav
from ui.cache import shared
from ui.code import fenced
from ui.heatmaps import show_heatmap
from ui.shell import page_context, url_values
from ui.words import word

ctx = page_context()
t, s = ctx.t, ctx.settings


# The run is every page's (ui.shell.PageContext.run), and its check against nn.MultiheadAttention is computed once per
# settings: a click on a cell or a step change reruns the page and needs neither again. Both are shared by every
# session (ui/cache.py), so frozen: an in-place write into any of their tensors raises instead of changing another
# student's page.
run = ctx.run()
check = shared("walk.check", ctx.key, lambda: W.reference_check(run))
T, h, d_k = s.seq_len, s.num_heads, s.d_k
PER_PAGE = W.heads_per_page(T)
N_PAGES = W.head_pages(h, T)

walk_nav.apply_chosen()  # a view or step chosen in a callback (ui/walk_nav.py), before settle() and any widget


# ------------------------------------------------------------------ URL values → valid widget state
KEPT = "walk_kept"  # the page's values while the widgets showing them are not drawn (the cell's story closed)


def notice(fix: Fix, from_link: bool) -> str | None:
    """A link's bad value is named and corrected; a value new settings moved (head 12 after h 16 → 8) quietly."""
    return t("walk.bad_url", param=fix.key, given=plain(fix.given), used=fix.used) if from_link else None


def settle() -> list[str]:
    """Every page key (lessons.walkthrough.URL_KEYS), valid for these settings, in session state before any
    widget is drawn (ui.url_state.settle). A link to a cell (or to its charts) opens the cell's story, the first
    time this session sees the page. Returns the notices to show (at the top of the page)."""
    first_visit = "walk_drill" not in st.session_state and "walk_drill" not in url_state.kept(KEPT)
    opens = first_visit and W.link_opens_drill({k: url_values(k) for k in (*W.CELL_KEYS, "walk_drill")})
    report: list[tuple[Fix, bool]] = []
    url_state.settle(W.URL_KEYS, {"settings": s}, t=t, store=KEPT, notice=notice, report=report)
    if opens:
        st.session_state["walk_drill"] = url_state.kept(KEPT)["walk_drill"] = True
    return [text for text in (notice(fix, from_link) for fix, from_link in report) if text]


# ------------------------------------------------------------------ drawing helpers
SETTINGS_KEY = ctx.key  # (d_model, h, T, mask, seed, lang, custom text): every page's
PRESENT = False  # set below, once the view is known
FONT_SCALE = 1.6  # the presenter view: every text of a chart (tick labels included) 1.6 times larger


def chart(hm: Heatmap, key: str, *, fit: int = 0):
    """Draw a heatmap. In the presenter view its type is 1.6x larger and, with `fit` (the least height in px),
    the chart fills the height the window leaves below it. compact: 4-decimal values as int16 codes (a step at
    d_model 512, T 32 stays under 64 KB)."""
    if PRESENT:
        return show_heatmap(hm, key=key, t=t, compact=True, font_scale=FONT_SCALE, fit_height=fit)
    return show_heatmap(hm, key=key, t=t, compact=True)


def small(text: str) -> str:
    """Caption-styled text inside a markdown element: a caption of its own would be one more element to render."""
    return f":small[:gray[{text}]]"


def note(text: str, host=None) -> None:
    """A caption; in the presenter view inside our own class `walk-note`, which the view's CSS keeps small."""
    host = host or st
    if PRESENT:  # blank lines around the text: the markdown inside the div is still markdown
        host.caption(f"<div class='walk-note'>\n\n{escape(text, quote=False)}\n\n</div>", unsafe_allow_html=True)
    else:
        host.caption(text)


def shape_markdown(step: W.Step, present: bool = False, where: bool = True) -> str:
    """Where the step's code comes from (in caption style) and its shapes under a bold title, ONE markdown element
    (every element a step re-sends costs the browser a render). `present`: the reshape chain of split / concat one
    operation a line, without the repeated k, v shapes."""
    source = code_where(step) + "\n\n" if where else ""
    return source + "  \n".join([f"**{t('walk.shape')}**", *W.shape_lines(run, step.name, present)])


def code_where(step: W.Step) -> str:
    return small(t("walk.code_where", where=W.step_source(step.name).where()))


def title_markdown(step: W.Step, level: str = "###") -> str:
    """The step's heading and formula in one markdown element: neither changes with the settings, so a slider
    step leaves the element as it was and the browser does not typeset the formula again."""
    return f"{level} {step_title(step)}\n\n$$\n{t(f'walk.{step.name}.latex')}\n$$"


def listing_markdown(step: W.Step, rule: bool, level: str = "###") -> str:
    """A step's heading, formula, where its code comes from and the code, then its paragraph when no setting
    changes it (W.fixed_text): our own text only (the strings of i18n/, core's source); a rule above it on request.
    The page reads the same as with the paragraph in the next element, which a slider step re-sends."""
    top = "---\n\n" if rule else ""
    fixed = W.fixed_text(step.name)
    said = f"\n\n{joined(fixed)}" if fixed else ""
    return f"{top}{title_markdown(step, level)}\n\n{code_where(step)}\n\n{fenced(W.step_source(step.name).code)}{said}"


def mistake_markdown() -> str:
    return f":blue-background[:material/lightbulb: {t('walk.split.mistake', T=T)}]"


def cut_check(step: str, diff: float) -> None:
    """The split / concat check, its sentence chosen by the difference: a cut and a re-join move numbers without
    arithmetic, so anything but an exact 0 is a bug to show in red, not a rounding to call equal. An alert of its
    own: merged into the markdown beside it, the step was 10-15 ms slower (bench_browser, 2026-12-04)."""
    if diff == 0:
        st.success(t(f"{step}.check", diff=diff), icon=":material/check:")
    else:
        st.error(t(f"{step}.check_off", diff=diff), icon=":material/error:")


def heads_for_page() -> tuple[int, ...]:
    page = int(st.session_state.get("walk_hpage") or 1)
    return tuple(W.page_of_heads(h, page - 1, PER_PAGE))


def role_choice(label_key: str) -> str:
    return st.segmented_control(t(label_key), W.ROLES, key="walk_role", default="q", required=True) or "q"


def step_figures(step: W.Step, big: bool) -> None:
    name = step.name
    heads = heads_for_page() if step.per_head else ()
    label = W.role_label(name, s.d_model)  # split: one role's heads; project: q, k, v one at a time when wide
    role = role_choice(label) if label else "q"
    if label == "walk.project.role":
        note(t("walk.project.one", d_model=s.d_model))
    charts = shared("walk.charts", SETTINGS_KEY + (name, heads, role), lambda: W.step_charts(run, name, heads, role))
    if name == "split":
        heads_map = " · ".join(word(part, t) for part in W.split_map(heads, d_k))
        if PRESENT:  # the presenter view: the band and the heads' panels, no room for the legend
            st.markdown(heads_map)
        else:  # the legend and which columns each head owns, one element
            legend = t("walk.split.band" if charts.band is not None else "walk.split.strip", role=role, d_k=d_k)
            st.markdown(f"{small(legend)}\n\n{heads_map}")
        if charts.band is not None:
            chart(charts.band, "walk_band")
        chart(charts.main, "walk_chart", fit=220)  # below the band: what the window leaves
        cut_check("walk.split", W.split_max_diff(run.trace, h, d_k))
    elif charts.mask is not None:
        left, right = st.columns([1, 2]) if not big or PRESENT else (st.container(), st.container())
        with left:
            note(t("walk.mask.grid"))
            chart(charts.mask, "walk_mask")
        with right:
            chart(charts.main, "walk_chart", fit=300)
    else:
        chart(charts.main, "walk_chart", fit=300)
        if name == "concat":
            cut_check("walk.concat", W.concat_max_diff(run.trace, h, d_k))


def step_title(step: W.Step) -> str:
    return f"{W.step_index(step.name) + 1}. {t(f'walk.{step.name}.title')}"


def joined(parts) -> str:
    sep = "" if ctx.lang == "zh" else " "  # Chinese sentences follow each other without a space
    return sep.join(word(part, t) for part in parts)


def step_text(step: W.Step, present: bool = False) -> str:
    """The step's whole paragraph (the presenter view)."""
    return joined(W.step_text(run, step.name, present))


def run_text(step: W.Step) -> str:
    """The part of the step's paragraph with this run's numbers ("" when it has none: listing_markdown says it)."""
    return joined(W.run_text(run, step.name))


def render_step(
    step: W.Step,
    big: bool = False,
    draw: bool = True,
    rule: bool = False,
    pipeline: str | None = None,
    checked: str = "",
) -> None:
    """A step's title, formula, text, code and shape, then its charts. With `draw` off (the all-steps
    view's other steps) the same teaching in fewer elements (the server pays ~0.5 ms per element and
    the all-steps view has ten steps), and a button that draws this step's tensors instead. `rule`: a horizontal
    rule above the step, inside its first (unchanging) element rather than a divider element of its own.
    `pipeline` (the one-step view): the shape pipeline, said under the step's shapes, then `checked` (the live
    check against PyTorch, which changes with the same settings), and the pager of heads under them, just above the
    charts whose heads it pages."""
    n = W.step_index(step.name) + 1
    # The paragraph's numbers (a paragraph no setting changes is in the listing, above), the split's common mistake,
    # the shapes: they change together, one element.
    mistake = mistake_markdown() if step.name == "split" else ""
    changing = [part for part in (run_text(step), mistake, shape_markdown(step, where=False)) if part]
    if not draw:
        # Two elements and the button: title, formula, where the code comes from and the code itself (a fenced
        # block, which the browser draws with the same highlighter and copy button as a code element) in one
        # markdown element that no setting changes, so a slider step leaves it as it was (no formula typeset
        # again, no code highlighted again); then the text and the shapes, which change together, in one more.
        st.markdown(listing_markdown(step, rule), unsafe_allow_html=True)  # the code's wrapper is a div
        st.markdown("\n\n".join(changing))
        st.button(
            t("walk.all.show", n=n),
            key=f"walk_show_{step.name}",
            on_click=walk_nav.select_step,
            args=(step.name,),
            icon=":material/grid_on:",
        )
        return
    # Heading, formula, where the code comes from and the code (none changes with the settings, so a slider step
    # leaves the element as it was); then the text, the shapes and the pipeline, which change together, in one
    # element: two elements and no columns (each element and container a step re-sends costs the browser a render).
    st.markdown(listing_markdown(step, rule, "##" if big else "###"), unsafe_allow_html=True)
    below = [small(line) for line in (pipeline or "").split("\n\n") if line]
    st.markdown("\n\n".join([*changing, *below, *([checked] if checked else [])]))
    if pipeline is not None and step.per_head:
        head_pager(with_note=False)
    step_figures(step, big)


def step_label(name: str) -> str:
    return walk_nav.step_label(name, ctx.lang)


def pages_note() -> str:
    heads = heads_for_page()
    shown = t("common.heads_range", first=heads[0], last=heads[-1], h=h)
    return shown + " — " + t("walk.heads_capped", h=h, n=PER_PAGE)


def head_pager(with_note: bool = True) -> None:
    """The pager of heads, its note above it (`with_note` off: the pipeline strip says it). No row container
    around them: one container fewer for a step to re-send."""
    if N_PAGES <= 1:
        return
    if with_note:
        note(pages_note())
    st.pagination(N_PAGES, key="walk_hpage", bind="query-params", persist_state="page")


def pipeline_text(step: W.Step) -> str:
    """The shapes from step to step, and which heads the pager below shows."""
    parts = [f"{step_label(n)} `{sizes}`" for n, sizes in W.pipeline(run)]
    heads = f"\n\n{pages_note()}" if step.per_head and N_PAGES > 1 else ""
    return f"{t('walk.pipeline')}: " + " → ".join(parts) + heads


# ------------------------------------------------------------------ the page
def present_step(step: W.Step) -> None:
    """The presenter view: formula, shape and text on the left, the step's tensors on the right, filling the
    window's height (1440×900 and 1920×1080 projectors: all of it in view at once), large type everywhere."""
    left, right = st.columns([5, 7], gap="large")
    with left:
        st.markdown(title_markdown(step, "##"))
        st.markdown(shape_markdown(step, present=True, where=False) + "\n\n" + step_text(step, present=True))
        source = W.step_source(step.name)
        with st.expander(t("walk.present.code"), icon=":material/code:"):
            st.code(source.code, language="python", wrap_lines=True)
            note(t("walk.code_where", where=source.where()))
    with right:
        if step.per_head:
            head_pager()
        step_figures(step, big=True)


def check_markdown() -> str:
    """The live check against torch.nn.MultiheadAttention as a line of the step's text (its numbers change with
    the same settings as the text, so one element re-sent instead of two): green and small when equal, a red
    line at full size when not."""
    said = word(W.reference_text(check), t)
    if check.equal:
        return f":small[:green[:material/verified: {said}]]"
    return f":red-background[:material/error: {said}]"


notices = settle()  # every page key valid in session state, before the navigation (app.py, after) shows them
# The title, the view and step choosers and prev / next are ui/walk_nav.py's, drawn by app.py above this page in a
# fragment of their own: a step of seq_len or the seed reruns this page alone and sends none of them again.
view, step = walk_nav.view(), walk_nav.step()
for text in notices:  # a link's bad value, named at the top of the page, under the choosers
    st.warning(text, icon=":material/build:")
PRESENT = view == "present"

if PRESENT:
    # The projector gets the whole width: the sidebar starts collapsed (its arrow opens it again).
    st.set_page_config(initial_sidebar_state="collapsed")
    # Our keyed classes only; the main area's padded block is found as the <main> landmark's first child
    # (ui/seam entry `keyed_css`: its canary measures what these rules give).
    st.html("""<style>
            main > :first-child { padding-top: 4.5rem !important; }
            .st-key-walk_present p, .st-key-walk_present li { font-size: 1.5rem !important; line-height: 1.5; }
            .st-key-walk_present .katex-display > .katex { font-size: 1.5em !important; }
            .st-key-walk_present code { font-size: 1.1rem !important; }
            .st-key-walk_present h2 { font-size: 2.4rem !important; padding-top: 0 !important; }
            .st-key-walk_present .walk-note p { font-size: 1.1rem !important; }
            .st-key-walk_nav_row p { font-size: 1.5rem !important; line-height: 1.5; }
            .st-key-walk_nav_row .walk-step-of { font-size: 1.5rem; }
            .st-key-walk_step_shown button p { font-size: 1.05rem !important; line-height: 1.5; }
            .st-key-walk_role button p { font-size: 1.05rem !important; }
            </style>""")  # static CSS only: no space in the page
    with st.container(key="walk_present"):
        present_step(step)
elif view == "step":
    render_step(step, pipeline=pipeline_text(step), checked=check_markdown())
    if step.name not in W.DRILL_STEPS:  # the steps that tell it end with the cell's story (ui/walk_drill.py), below
        st.caption(t("walk.drill.in_steps"))
else:  # all steps: every formula, code line and shape; the tensors of the chosen step
    st.caption(pipeline_text(step))
    if step.per_head:
        head_pager(with_note=False)
    for index, other in enumerate(W.STEPS):  # the rule between two steps opens the next one's first element
        render_step(other, draw=other is step, rule=index > 0)

if view != "step":  # the one-step view says it in the step's text (check_markdown)
    if check.equal:
        st.success(word(W.reference_text(check), t), icon=":material/verified:")
    else:
        st.error(word(W.reference_text(check), t), icon=":material/error:")
# Below the page, in a fragment of its own that app.py draws: the cell's story (ui/walk_drill.py), on the steps that
# tell it and in the all-steps view, then the downloads section (ui/downloads.py TAIL_PAGES).
