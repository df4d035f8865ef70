"""Why many heads: train one, two and four heads live on a task that needs two attention
patterns at once, and show what each head learned (lessons/why_heads.py has the task, the model and the heatmaps
as data; charts/lines.py the loss chart, charts/live_curve.py its live HTML while training)."""

import time

import streamlit as st

import i18n
from charts import lines
from charts.live_curve import live_loss_html
from lessons import why_heads as W
from ui import url_state
from ui.cache import shared
from ui.heatmaps import show_heatmap
from ui.linecharts import show_lines
from ui.sections import lazy_tabs
from ui.shell import page_context

ctx = page_context()
t = ctx.t
HS = W.HEAD_COUNTS
UPDATES_PER_MODEL = 20  # live progress refreshes per model
LIVE_EVERY_S = 0.25  # the live curve is redrawn at most this often (a few KB of HTML each time)
# The trained results as two tabs: only the open one runs and draws (the head grids are 3 charts).
VIEWS = ("results", "heads")  # why_tab (lessons.why_heads.VIEWS; a literal for the fuzz test)
VIEW_LABELS = {"results": "why.results.header", "heads": "why.heatmaps.header"}


@st.cache_resource(show_spinner=False)
def result_store() -> W.ResultStore:
    """One store for the whole server: a class revisiting the page (or a second student) never retrains."""
    return W.ResultStore()


def curves_for(results: dict, running=None, stopped=None) -> list:
    out = [W.Curve(f"h = {h}", h, r.losses) for h, r in results.items() if r is not None]
    if running is not None:
        out.append(W.Curve(f"h = {running.num_heads}", running.num_heads, running.losses))
    if stopped is not None:
        out.append(W.Curve(t("why.stopped_curve", h=stopped["h"]), stopped["h"], stopped["losses"], dashed=True))
    return out


def loss_chart(placeholder, curves, steps: int, key: str) -> None:
    show_lines(
        lines.loss_chart(curves, steps=steps, chance=W.chance_loss(), t=t),
        name="training-loss",
        key=key,
        t=t,
        where=placeholder,
    )


def live_chart(placeholder, curves, steps: int) -> None:
    """The curves while training, as HTML (charts/live_curve.py): shown at once, where a plotly chart replaced
    every fraction of a second was never seen (it needs a few frames to mount). No user text goes in."""
    placeholder.html(
        live_loss_html(
            curves,
            steps=steps,
            chance=W.chance_loss(),
            title=t("why.loss.title"),
            x_title=t("why.loss.x"),
            y_title=t("why.loss.y"),
            chance_label=t("why.loss.chance"),
        )
    )


def view_label(view: str, lang: str) -> str:
    return i18n.t(VIEW_LABELS[view], lang)


def example_table(lang: str, focus: int = 7) -> str:
    """The example sequence and its answers as a Markdown table (static text: cheap on every rerun), one row
    per position: three columns fit a phone (a row per position would need 11 columns and cut off at 390 px,
    hiding position `focus`, the one the text explains, which is in bold)."""
    head = "| " + " | ".join(i18n.t(f"why.example.{c}", lang) for c in ("position", "digit", "answer")) + " |"
    # "9*" is the marked digit, not emphasis
    rows = [
        [str(i), label.replace("*", "\\*"), "–" if pair is None else f"({pair[0]}, {pair[1]})"]
        for i, label, pair in W.example_rows()
    ]
    rows[focus] = [f"**{v}**" for v in rows[focus]]
    return "\n".join([head, "|---|---|---|", *("| " + " | ".join(r) + " |" for r in rows)])


# ---------------------------------------------------------------- the claim and the task
st.title(t("page.why-heads"))
st.write(t("why.intro"))

st.subheader(t("why.task.header"))
st.write(t("why.task.text", T=W.SEQ_LEN))
tokens, m = list(W.EXAMPLE_TOKENS), W.EXAMPLE_MARKER
seq = " ".join(f"**{d}\\***" if i == m else str(d) for i, d in enumerate(tokens))
st.write(t("why.task.example", seq=seq, marked=tokens[m], m=m, i=7, cur=tokens[7], prev=tokens[6]))
# Fixed text, once per language for the whole server (this page depends on none of the sidebar settings).
st.markdown(shared("why-example", (ctx.lang,), lambda: example_table(ctx.lang)))

st.subheader(t("why.model.header"))
params = shared("why-params", (W.D_MODEL,), lambda: W.parameter_count(W.build_why_model(1, 0)))
st.write(t("why.model.text", d_model=W.D_MODEL, dks=", ".join(str(W.D_MODEL // h) for h in HS), params=params))
st.info(t("why.model.own", d_model=W.D_MODEL, T=W.SEQ_LEN, batch=W.BATCH_SIZE), icon=":material/info:")

# ---------------------------------------------------------------- settings and training
# The seed and steps from the URL or the widgets, corrected with a notice before the widgets are drawn
# (lessons.why_heads.URL_KEYS; the tab id is ui.sections.lazy_tabs' own).
url_state.settle(tuple(k for k in W.URL_KEYS if k.name != "why_tab"), {"settings": ctx.settings}, t=t, store="why_kept")
c_seed, c_steps = st.columns(2)
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
b_train, b_stop = st.columns(2)
train = b_train.button(t("why.train"), type="primary", key="why_train", icon=":material/play_arrow:", width="stretch")
b_stop.button(t("why.stop"), key="why_stop", icon=":material/stop:", width="stretch")

store = result_store()
keys = {h: W.cache_key(h, seed, steps) for h in HS}
results = {h: store.get(keys[h]) for h in HS}

# A run that was still going when this script run began was interrupted (Stop, or any other click).
run = st.session_state.get("why_run")
if not (
    isinstance(run, dict)
    and run.get("h") in HS
    and isinstance(run.get("losses"), list)
    and run.get("status") in ("running", "stopped", "done")
):
    run = None  # nothing, or state this page cannot read: ignore it
elif run["status"] == "running":
    run["status"] = "stopped"
stopped = (
    run
    if (
        run is not None
        and run["status"] == "stopped"
        and (run.get("seed"), run.get("steps")) == (seed, steps)
        and results[run["h"]] is None
    )
    else None
)

status = st.empty()
progress = st.empty()
chart = st.empty()

if train:
    todo = [h for h in HS if results[h] is None]
    if not todo:
        status.success(t("why.cached"), icon=":material/cached:")
    stopped = None
    chunk = max(1, steps // UPDATES_PER_MODEL)
    for n, h in enumerate(todo):
        # One training per run for the whole server: a second student asking for it shares this one.
        trainer = store.trainer(keys[h], lambda h=h: W.Trainer(h, seed, steps))
        state = {"seed": seed, "steps": steps, "h": h, "losses": trainer.losses, "status": "running"}
        st.session_state["why_run"] = state
        try:
            progress.progress(n / len(todo), text=t("why.training", h=h, step=0, steps=steps))
            live_chart(chart, curves_for(results, running=trainer), steps)  # the axes at once
            drawn = time.monotonic()
            while not trainer.done:
                trainer.advance_shared(chunk)  # or wait while another session advances it
                done = (n * steps + trainer.step) / (len(todo) * steps)
                progress.progress(done, text=t("why.training", h=h, step=trainer.step, steps=steps))
                if time.monotonic() - drawn >= LIVE_EVERY_S or trainer.done:
                    live_chart(chart, curves_for(results, running=trainer), steps)
                    drawn = time.monotonic()
            results[h] = store.finish(keys[h], trainer)
        except BaseException:  # Streamlit stops a running script with an exception when the user clicks
            state["status"], state["losses"] = "stopped", list(trainer.losses)  # (another may go on with it)
            raise
        state["status"] = "done"
    if todo:
        progress.progress(1.0, text=t("why.training_done"))
elif stopped is not None:
    status.warning(
        t("why.stopped", h=stopped["h"], step=len(stopped["losses"]), steps=steps), icon=":material/stop_circle:"
    )
elif all(r is not None for r in results.values()):
    status.success(t("why.cached"), icon=":material/cached:")
elif any(r is not None for r in results.values()):
    status.info(
        t(
            "why.partly_cached",
            done=", ".join(str(h) for h in HS if results[h] is not None),
            todo=", ".join(str(h) for h in HS if results[h] is None),
        ),
        icon=":material/pending:",
    )
else:
    status.info(t("why.not_trained"), icon=":material/model_training:")

curves = curves_for(results, stopped=stopped)
if curves:
    loss_chart(chart, curves, steps, key="why_loss")

# ---------------------------------------------------------------- results
finished = {h: r for h, r in results.items() if r is not None}
if finished:
    view, tabs = lazy_tabs("why_tab", VIEWS, view_label, ctx.lang)
    with tabs[view]:  # only the open tab runs and draws
        if view == "results":
            st.caption(t("why.results.caption", n=W.EVAL_SIZE))
            rows = list(finished.values())
            st.table(
                {
                    t("why.col.h"): [r.num_heads for r in rows],
                    t("why.col.d_k"): [W.D_MODEL // r.num_heads for r in rows],
                    t("why.col.params"): [r.parameters for r in rows],
                    t("why.col.loss"): [f"{r.eval_loss:.3f}" for r in rows],
                    t("why.col.acc"): [f"{r.accuracy:.0%}" for r in rows],
                    t("why.col.acc_prev"): [f"{r.previous_accuracy:.0%}" for r in rows],
                    t("why.col.acc_mark"): [f"{r.marker_accuracy:.0%}" for r in rows],
                    t("why.col.seconds"): [f"{r.seconds:.1f}" for r in rows],
                },
                hide_index=True,
            )

            st.subheader(t("why.verdict.header"))
            single = finished.get(1)
            if single is not None:
                story = W.single_head_story(single)
                st.write(
                    t(
                        f"why.single.{story}",
                        d_k=W.D_MODEL,
                        pm=single.previous_mass[0],
                        mm=single.marker_mass[0],
                        acc=single.accuracy,
                        acc_prev=single.previous_accuracy,
                        acc_mark=single.marker_accuracy,
                    )
                )
                for h, multi in finished.items():
                    if h == 1:
                        continue
                    cmp = W.compare(single, multi)
                    if cmp.verdict in ("effect", "partial"):
                        sep = t("why.list_sep")
                        text = t(
                            f"why.verdict.{cmp.verdict}",
                            h=h,
                            pis=sep.join(map(str, cmp.previous_heads)),
                            pms=sep.join(f"{multi.previous_mass[i]:.2f}" for i in cmp.previous_heads),
                            mis=sep.join(map(str, cmp.marker_heads)),
                            mms=sep.join(f"{multi.marker_mass[i]:.2f}" for i in cmp.marker_heads),
                            loss=multi.eval_loss,
                            single=single.eval_loss,
                            acc=multi.accuracy,
                        )
                        if cmp.verdict == "effect":
                            st.success(text, icon=":material/check_circle:")
                        else:
                            st.warning(text, icon=":material/timelapse:")
                    else:
                        reasons = []
                        thr = W.MATCH_THRESHOLD
                        if not cmp.previous_heads:
                            reasons.append(t("why.reason.no_previous", thr=thr, best=max(multi.previous_mass)))
                        if not cmp.marker_heads:
                            reasons.append(t("why.reason.no_marker", thr=thr, best=max(multi.marker_mass)))
                        if not cmp.clearly_lower:
                            reasons.append(
                                t(
                                    "why.reason.loss",
                                    loss=multi.eval_loss,
                                    single=single.eval_loss,
                                    margin=W.LOSS_MARGIN,
                                )
                            )
                        st.warning(t("why.verdict.no_effect", h=h, reasons=" ".join(reasons)), icon=":material/error:")
            missing = [h for h in HS if h not in finished]
            if missing:
                st.caption(t("why.partial_results", todo=", ".join(map(str, missing))))
        else:  # "heads"
            st.caption(t("why.heatmaps.caption", n=W.EVAL_SIZE, thr=W.MATCH_THRESHOLD))
            for h, r in finished.items():
                st.markdown(f"**{t('why.heatmaps.model', h=h, d_k=W.D_MODEL // h)}**")
                # one heatmap per model, built once per finished run for the whole server (its weights never change)
                hm = shared("why-heads-hm", W.cache_key(h, r.seed, r.steps), lambda r=r: W.heads_heatmap(r))
                show_heatmap(hm, key=f"why_heads_{h}", t=t)
                roles = r.roles
                st.table(
                    {
                        t("why.col.head"): list(range(h)),
                        t("why.col.relation"): [
                            t(f"why.relation.{x}") if x else t("why.relation.none", thr=W.MATCH_THRESHOLD)
                            for x in roles
                        ],
                        t("why.col.mass_prev"): [f"{v:.2f}" for v in r.previous_mass],
                        t("why.col.mass_mark"): [f"{v:.2f}" for v in r.marker_mass],
                    },
                    hide_index=True,
                )

# ---------------------------------------------------------------- what it means
if finished:  # "what you just saw" only once something was trained
    st.subheader(t("why.explain.header"))
    st.write(t("why.explain.representations"))
    st.write(t("why.explain.capacity"))
else:
    st.subheader(t("why.explain.header.before"))
    st.write(t("why.explain.before"))
long_run, survey = W.SINGLE_HEAD_LONG_RUN, W.SURVEY
st.write(
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
with st.expander(t("why.fine.header")):
    sep = t("why.list_sep")
    accs = {n: sep.join(f"{a:.0%}" for a in values) for n, values in W.FULL_VALUES_ACCURACY.items()}
    st.markdown(t("why.fine.text", acc400=accs[400], acc1600=accs[1600]))
