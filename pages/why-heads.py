"""Why many heads: train one, two and four heads live on a task that needs two attention
patterns at once, and show what each head learned (lessons/why_heads/ has the task, the model, the heatmaps,
the tables and the verdicts as data; charts/lines.py the loss chart, live while training and when done)."""

import itertools
import time
from dataclasses import replace

import streamlit as st

import i18n
from charts import lines
from lessons import why_heads as W
from ui import display, url_state, work_queue
from ui.cache import process_wide, shared
from ui.heatmaps import show_heatmap
from ui.linecharts import show_lines
from ui.sections import lazy_tabs
from ui.shell import page_context
from ui.tables import show_table, show_table_in_text

ctx = page_context()
t = ctx.t
HS = W.HEAD_COUNTS
UPDATES_PER_MODEL = 20  # live progress refreshes per model
LIVE_DRAWS = itertools.count()  # this run's live redraws (the page's code runs anew each run)
LIVE_EVERY_S = 0.25  # the live curve is redrawn at most this often (a few KB of chart spec each time)
# The trained results as two tabs: only the open one runs and draws (the head grids are 3 charts).
VIEWS = W.view.VIEWS  # why_tab
VIEW_LABELS = {"results": "why.results.header", "heads": "why.heatmaps.header"}


def result_store() -> W.ResultStore:
    """One store for the whole server: a class revisiting the page (or a second student) never retrains.
    (ui.cache.process_wide: no client message can empty it.)"""
    return process_wide("why-heads.results", W.ResultStore)


def say(key: str, facts: dict) -> str:
    """A text whose list values (tuples) are joined with the language's list separator."""
    sep = t("why.list_sep")
    return t(key, **{k: sep.join(v) if isinstance(v, tuple) else v for k, v in facts.items()})


def worded(curves: list) -> list:
    """A stopped run's dashed curve is labelled "h = 1 (stopped)" in the reader's language."""
    return [replace(c, label=t("why.stopped_curve", h=c.num_heads)) if c.dashed else c for c in curves]


def loss_chart(placeholder, curves, steps: int, key: str, live: bool = False) -> None:
    show_lines(
        lines.loss_chart(worded(curves), steps=steps, chance=W.chance_loss(), t=t),
        name="training-loss",
        key=key,
        t=t,
        where=placeholder,
        live=live,
    )


def live_places(chart) -> tuple:
    """Two places in `chart` (an st.empty), one under the other without a gap, for the live curve's redraws."""
    both = chart.container(gap=None)
    return both.empty(), both.empty()


def live_chart(places: tuple, curves, steps: int) -> None:
    """The curves while training, by the same route as the finished chart. A key is used once a run, so each
    redraw is a new chart under the next key, in the other place: the last one stays on screen until it is drawn
    (ui/linecharts.show_lines(live=True)). The table view is redrawn in one place (it shows at once)."""
    n = next(LIVE_DRAWS)
    place = places[0] if display.current().table_view else places[n % 2]
    loss_chart(place, curves, steps, key=f"why_live_{n}", live=True)


def view_label(view: str, lang: str) -> str:
    return i18n.t(VIEW_LABELS[view], lang)


def example_table(lang: str, focus: int = 7) -> str:
    """The example sequence and its answers as a Markdown table (static text: cheap on every rerun), one row
    per position: three columns fit a phone (a row per position would need 11 columns and cut off at 390 px,
    hiding position `focus`, the one the text explains, which is in bold)."""
    head = "| " + " | ".join(i18n.t(f"why.example.{c}", lang) for c in ("position", "digit", "answer")) + " |"
    rows = [[c.replace("*", "\\*") for c in row] for row in W.example_cells()]  # "9*" is the marked digit
    rows[focus] = [f"**{v}**" for v in rows[focus]]
    return "\n".join([head, "|---|---|---|", *("| " + " | ".join(r) + " |" for r in rows)])


TICKET = "why_ticket"  # this session's place in the server's heavy-work queue (ui/work_queue.py)


def train_missing(results: dict, seed: int, steps: int, status, progress, places: tuple) -> None:
    """Train every h not in the store yet, drawing the place in the server's heavy-work queue, the progress and
    the live curve; a click stops it (Streamlit raises in the running script), and the run is then kept as
    stopped."""
    todo = [h for h in HS if results[h] is None]
    if not todo:
        status.success(t("why.cached"), icon=":material/cached:")
    for n, h in enumerate(todo):
        if not train_one(results, h, (n, len(todo)), seed, steps, progress, places):
            return
    if todo:
        progress.progress(1.0, text=t("why.training_done"))


def train_one(results: dict, h: int, nth: tuple[int, int], seed: int, steps: int, progress, places) -> bool:
    """Train h to the end in the queue (or share the training already there) and put it in `results`; False
    when it did not finish (cancelled, failed, the queue full: said on the page)."""
    store, key, chunk = result_store(), W.cache_key(h, seed, steps), max(1, steps // UPDATES_PER_MODEL)
    n, of = nth
    state = {"seed": seed, "steps": steps, "h": h, "losses": [], "status": "running"}
    st.session_state["why_run"] = state
    drawn = -LIVE_EVERY_S  # the curve is drawn at the first progress, then every LIVE_EVERY_S

    def each(job) -> None:
        nonlocal drawn
        # Waiting in the queue, or the job still building its trainer: the queue's box says so meanwhile.
        trainer = store.in_flight(key) if job.progress[1] else None
        if trainer is None:
            return
        state["losses"] = trainer.losses
        progress.progress(
            (n * steps + trainer.step) / (of * steps), text=t("why.training", h=h, step=trainer.step, steps=steps)
        )
        if time.monotonic() - drawn >= LIVE_EVERY_S:
            live_chart(places, W.loss_curves(results, running=trainer), steps)
            drawn = time.monotonic()

    try:
        # One training per run for the whole server, in the one queue for heavy work: a second student asking
        # for it shares this one, different runs take turns (core/work_queue.py).
        make = lambda: W.Trainer(h, seed, steps)  # noqa: E731
        if not work_queue.ask(TICKET, lambda queue: store.train_queued(queue, key, make, chunk), t):
            state["status"] = "stopped"
            return False
        live_chart(places, W.loss_curves(results), steps)  # the axes at once
        # The queue's box while waiting or starting ("Running…"), then the page's own progress and live curve.
        job = work_queue.wait(
            TICKET,
            t,
            running=lambda job: None if job.progress[1] else t("queue.running"),
            each=each,
            cancel_button=False,
        )
    except BaseException:  # Streamlit stops a running script with an exception when the user clicks
        work_queue.give_back(TICKET, say=False)  # nobody else waiting: the training stops after its chunk
        trainer = store.in_flight(key)
        state["status"], state["losses"] = "stopped", list(trainer.losses if trainer else state["losses"])
        raise
    if job is None or not job.done:
        work_queue.show_outcome(job, t)
        state["status"] = "stopped"
        return False
    results[h] = job.result
    state["status"] = "done"
    return True


def show_status(status, results: dict, stopped: dict | None, steps: int) -> None:
    """What the store holds for this seed and these steps (nothing was trained in this run)."""
    if stopped is not None:
        status.warning(
            t("why.stopped", h=stopped["h"], step=len(stopped["losses"]), steps=steps), icon=":material/stop_circle:"
        )
        return
    kind, done, todo = W.cache_status(results)
    if kind == "all":
        status.success(t("why.cached"), icon=":material/cached:")
    elif kind == "some":
        status.info(
            t("why.partly_cached", done=", ".join(map(str, done)), todo=", ".join(map(str, todo))),
            icon=":material/pending:",
        )
    else:
        status.info(t("why.not_trained"), icon=":material/model_training:")


def results_tab(finished: dict) -> None:
    # what the table measured and the table: one element (each element a step re-sends costs the browser a render)
    table = W.results_table(finished)
    caption = f":small[:gray[{t('why.results.caption', n=W.EVAL_SIZE)}]]"
    show_table_in_text(caption, {t(f"why.col.{c}"): table[c] for c in W.RESULT_COLUMNS})

    single = finished.get(1)
    said = [f"### {t('why.verdict.header')}"]  # the heading and what the single head did: one element
    if single is not None:
        story, facts = W.single_head_facts(single)
        said.append(t(f"why.single.{story}", **facts))
    st.markdown("\n\n".join(said))
    if single is not None:
        for v in W.verdicts(finished):
            if v.verdict == "effect":
                st.success(say("why.verdict.effect", v.facts), icon=":material/check_circle:")
            elif v.verdict == "partial":
                st.warning(say("why.verdict.partial", v.facts), icon=":material/timelapse:")
            else:
                reasons = " ".join(t(f"why.reason.{r}", **values) for r, values in v.reasons)
                st.warning(t("why.verdict.no_effect", h=v.num_heads, reasons=reasons), icon=":material/error:")
    missing = [h for h in HS if h not in finished]
    if missing:
        st.caption(t("why.partial_results", todo=", ".join(map(str, missing))))


def heads_tab(finished: dict) -> None:
    st.caption(t("why.heatmaps.caption", n=W.EVAL_SIZE, thr=W.MATCH_THRESHOLD))
    for h, r in finished.items():
        st.markdown(f"**{t('why.heatmaps.model', h=h, d_k=W.D_MODEL // h)}**")
        # one heatmap per model, built once per finished run for the whole server (its weights never change)
        hm = shared("why-heads-hm", W.cache_key(h, r.seed, r.steps), lambda r=r: W.heads_heatmap(r))
        show_heatmap(hm, key=f"why_heads_{h}", t=t)
        table = W.heads_table(r)
        table["relation"] = [
            t(f"why.relation.{x}") if x else t("why.relation.none", thr=W.MATCH_THRESHOLD) for x in table["relation"]
        ]
        show_table({t(f"why.col.{c}"): table[c] for c in W.HEAD_COLUMNS})


# ---------------------------------------------------------------- the claim and the task
st.markdown(f"# {t('page.why-heads')}\n\n{t('why.intro')}")  # title and intro: one element

# Each heading with its paragraphs: one markdown element (each element a step re-sends costs the browser a render).
tokens, m = list(W.EXAMPLE_TOKENS), W.EXAMPLE_MARKER
seq = " ".join(f"**{d}\\***" if i == m else str(d) for i, d in enumerate(tokens))
example = t("why.task.example", seq=seq, marked=tokens[m], m=m, i=7, cur=tokens[7], prev=tokens[6])
# The example's table: fixed text, once per language for the whole server (this page depends on none of the sidebar
# settings), in the same element as the heading and the text that explains it.
table_md = shared("why-example", (ctx.lang,), lambda: example_table(ctx.lang))
st.markdown(f"### {t('why.task.header')}\n\n{t('why.task.text', T=W.SEQ_LEN)}\n\n{example}\n\n{table_md}")

params = shared("why-params", (W.D_MODEL,), lambda: W.parameter_count(W.build_why_model(1, 0)))
model_text = t("why.model.text", d_model=W.D_MODEL, dks=", ".join(map(str, W.head_widths())), params=params)
st.markdown(f"### {t('why.model.header')}\n\n{model_text}")
st.info(t("why.model.own", d_model=W.D_MODEL, T=W.SEQ_LEN, batch=W.BATCH_SIZE), icon=":material/info:")

# ---------------------------------------------------------------- settings and training
# The seed and steps from the URL or the widgets, corrected with a notice before the widgets are drawn
# (lessons.why_heads.URL_KEYS; the tab id is ui.sections.lazy_tabs' own).
url_state.settle(tuple(k for k in W.URL_KEYS if k.name != "why_tab"), {"settings": ctx.settings}, t=t, store="why_kept")
c_seed = c_steps = st.container(horizontal=True)  # one container, not three (columns)
seed = int(
    c_seed.number_input(
        t("why.seed"),
        W.SEED_MIN,
        W.SEED_MAX,
        value=0,
        step=1,
        key="why_seed",
        bind="query-params",
        help=t("why.seed.help"),
    )
)
steps = int(
    c_steps.select_slider(
        t("why.steps"),
        W.STEP_CHOICES,
        value=W.DEFAULT_STEPS,
        key="why_steps",
        bind="query-params",
        help=t("why.steps.help", batch=W.BATCH_SIZE),
    )
)
b_train = b_stop = st.container(horizontal=True)
train = b_train.button(t("why.train"), type="primary", key="why_train", icon=":material/play_arrow:", width="stretch")
b_stop.button(t("why.stop"), key="why_stop", icon=":material/stop:", width="stretch")

results = {h: result_store().get(W.cache_key(h, seed, steps)) for h in HS}
# A run that was still going when this script run began was interrupted (Stop, or any other click).
_, stopped = W.interrupted_run(st.session_state.get("why_run"), seed, steps, results)

status = st.empty()
progress = st.empty()
chart = st.empty()
if train:
    stopped = None
    places = live_places(chart)
    train_missing(results, seed, steps, status, progress, places)
else:
    show_status(status, results, stopped, steps)
curves = W.loss_curves(results, stopped=stopped)
if curves:  # after a training, in the live curve's first place, the second one emptied
    loss_chart(places[0] if train else chart, curves, steps, key="why_loss")
if train:
    places[1].empty()

# ---------------------------------------------------------------- results
finished = {h: r for h, r in results.items() if r is not None}
if finished:
    view, tabs = lazy_tabs("why_tab", VIEWS, view_label, ctx.lang)
    with tabs[view]:  # only the open tab runs and draws
        if view == "results":
            results_tab(finished)
        else:
            heads_tab(finished)

# ---------------------------------------------------------------- what it means
if finished:  # "what you just saw" only once something was trained
    parts = [t("why.explain.header"), t("why.explain.representations"), t("why.explain.capacity")]
else:
    parts = [t("why.explain.header.before"), t("why.explain.before")]
long_run, survey = W.SINGLE_HEAD_LONG_RUN, W.SURVEY
parts.append(
    t(
        "why.explain.stability",
        seeds=survey["seeds"],
        steps=survey["steps"],
        runs=survey["runs"],
        clean=survey["clean"],
        single_best=survey["single_best_accuracy"],
        long_seeds=long_run["seeds"],
        long_steps=long_run["steps"],
        long_best=long_run["best_accuracy"],
    )
)
st.markdown("### " + "\n\n".join(parts))  # the heading, its paragraphs and how stable it is: one element
with st.expander(t("why.fine.header")):
    accs = W.full_values_accuracy()
    st.markdown(say("why.fine.text", dict(acc400=accs[400], acc1600=accs[1600])))
