"""The pages' side of the server's heavy-work queue (core/work_queue.py): ask for a job, keep the ticket in the
session, show the place in the queue live with a Cancel button while waiting, and say how loaded the server was
while a timing ran.

Two ways to wait. On a page that runs in the app's live fragment (/kv-cache, /heads) a click is a fragment rerun,
and Streamlit never lets one preempt a running script: a page that waited inside its run would ignore the Cancel
button and every other widget until the job ended. So there the script run ends at once and `watch` draws the
place in a small fragment that reruns itself every WATCH_EVERY_S (a few ms of work; the page's widgets stay live)
and reruns the app when the job has finished, where `collect` hands the page its result. A page that runs whole
(why-heads: its Stop must interrupt a training) may `wait` inside its run instead: every click there preempts it.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

import streamlit as st

from core.work_queue import Control, Job, Load, QueueFull, Ticket, WorkQueue, heavy_queue

POLL_S = 0.3  # how often a session waiting inside its run (`wait`) redraws its place
WATCH_EVERY_S = 2.0  # how often the place drawn by `watch` reruns itself (each rerun is a small script run)


def pending(state_key: str) -> Ticket | None:
    """The session's ticket kept under `state_key` (anything else found there is dropped)."""
    ticket = st.session_state.get(state_key)
    if isinstance(ticket, Ticket):
        return ticket
    st.session_state.pop(state_key, None)
    return None


def ask(state_key: str, submit: Callable[[WorkQueue], Ticket], t: Callable[..., str] | None = None) -> bool:
    """submit(the server's queue) -> a ticket (a new job, or the one already queued or running under the same
    key), kept in the session under `state_key`. False when the queue is full: said at once with `t`, else (from
    a button's callback, before the page runs) by the page's next `collect`."""
    queue = heavy_queue()
    try:
        st.session_state[state_key] = submit(queue)
    except QueueFull:
        if t is not None:
            st.warning(t("queue.full", n=queue.max_waiting), icon=":material/hourglass_disabled:")
        else:
            st.session_state[f"{state_key}_full"] = queue.max_waiting
        return False
    return True


def job(key: Hashable, work: Callable[[Control], Any], kind: str) -> Callable[[WorkQueue], Ticket]:
    """What `ask` submits for plain work: fn(control) under `key`."""
    return lambda queue: queue.submit(key, work, kind)


def give_back(state_key: str, say: bool = True) -> None:
    """The session stops waiting for its ticket (the Cancel button; a stopped training); the next wait() says so
    unless `say` is False."""
    ticket = st.session_state.pop(state_key, None)
    if isinstance(ticket, Ticket):
        heavy_queue().cancel(ticket)
        if say:
            st.session_state[f"{state_key}_gone"] = True


def shared_text(ticket: Ticket, t: Callable[..., str]) -> str:
    """ " N other students share this run", or nothing."""
    others = len(ticket.job.tickets) - 1
    return " " + t("queue.shared", n=others) if others > 0 else ""


def waiting_text(ticket: Ticket, t: Callable[..., str]) -> str:
    """Where the ticket stands: its place and the queue's counts, and who shares the run."""
    queue = heavy_queue()
    running, waiting = queue.counts()
    place = queue.place(ticket)
    line = (
        t("queue.waiting", place=place, waiting=waiting, running=running, workers=queue.workers)
        if place
        else t("queue.running")
    )
    return line + shared_text(ticket, t)


def wait(
    state_key: str,
    t: Callable[..., str],
    running: Callable[[Job], str | None] | None = None,
    each: Callable[[Job], None] | None = None,
    cancel_button: bool = True,
) -> Job | None:
    """Wait for the session's ticket under `state_key`, drawing its place while it waits, then `running(job)`
    with a progress bar from the job's progress (None: the box goes, the page draws its own progress), and a
    Cancel button; `each(job)` after every redraw (a page's live chart); `cancel_button=False` where the page has
    its own Stop. Returns the finished job (done, failed or cancelled; the ticket is given back), None without
    one; after a Cancel, the next call says so."""
    if st.session_state.pop(f"{state_key}_gone", None) is not None:
        st.caption(t("queue.cancelled"))
    ticket = pending(state_key)
    if ticket is None:
        return None
    job = ticket.job
    holder = st.empty()  # cleared when the wait ends (a container itself cannot be)
    box = holder.container(border=True)
    line, bar = box.empty(), box.empty()
    if cancel_button:
        box.button(
            t("queue.cancel"), key=f"{state_key}_cancel", icon=":material/close:", on_click=give_back, args=(state_key,)
        )
    while True:
        finished = job.finished.is_set()
        if not finished and job.state == "running":
            words = running(job) if running is not None else t("queue.running")
            if words is None:
                holder.empty()
            else:
                line.info(words + shared_text(ticket, t), icon=":material/timer:")
                done, total = job.progress
                if total > 0:
                    bar.progress(min(1.0, done / total))
        elif not finished:
            line.info(waiting_text(ticket, t), icon=":material/hourglass_top:")
        if each is not None:
            each(job)
        if finished or job.finished.wait(POLL_S):
            break
    holder.empty()
    st.session_state.pop(state_key, None)
    heavy_queue().cancel(ticket)  # gives the token back (the job has finished: nothing else happens)
    return job


def collect(state_key: str, t: Callable[..., str]) -> Job | None:
    """The session's job under `state_key` once it has finished (the ticket is given back), else None; after a
    Cancel or a full queue, says so once."""
    if st.session_state.pop(f"{state_key}_gone", None) is not None:
        st.caption(t("queue.cancelled"))
    full = st.session_state.pop(f"{state_key}_full", None)
    if full is not None:
        st.warning(t("queue.full", n=full), icon=":material/hourglass_disabled:")
    ticket = pending(state_key)
    if ticket is None or not ticket.job.finished.is_set():
        return None
    st.session_state.pop(state_key, None)
    heavy_queue().cancel(ticket)  # gives the token back (the job has finished: nothing else happens)
    return ticket.job


def ask_button(state_key: str, label: str, key: str, submit: Callable[[WorkQueue], Ticket]) -> None:
    """The primary button that asks for `submit`'s job, drawn while the session has none under `state_key`. One
    queue for the server's heavy work: at most a few jobs at once, the same job asked by several students is one
    run (core/work_queue.py). Asked in the click's callback, so the run it causes already draws the place."""
    if pending(state_key) is None:
        st.button(label, key=key, icon=":material/timer:", type="primary", on_click=ask, args=(state_key, submit))


def collect_into(
    state_key: str, t: Callable[..., str], results_key: str, loads_key: str, asked: Callable[[Job], Hashable]
) -> tuple[Job | None, dict, dict]:
    """`collect`, keeping a finished job's result and load in the session: session state `results_key` and
    `loads_key` are dicts keyed by `asked(job)` (the settings the result belongs to), so an earlier result stays
    shown when the settings come back. Returns the job and both dicts (a value there that is no dict starts anew)."""
    results = st.session_state.get(results_key)
    if not isinstance(results, dict):
        results = {}
    loads = st.session_state.get(loads_key)
    if not isinstance(loads, dict):
        loads = {}
    job = collect(state_key, t)
    if job is not None and job.done:
        key = asked(job)
        results[key], loads[key] = job.result, job.load
        st.session_state[results_key], st.session_state[loads_key] = results, loads
    return job, results, loads


def watch(state_key: str, t: Callable[..., str], running: Callable[[Job], str] | None = None) -> None:
    """While the session's ticket under `state_key` waits or runs: its place (then `running(job)` and a progress
    bar) and a Cancel button, redrawn every WATCH_EVERY_S by a fragment of their own; the app reruns when the job
    has finished (the page's `collect` then has it) or was cancelled."""
    if pending(state_key) is not None:
        _watch_box(state_key, t, running)


@st.fragment(run_every=WATCH_EVERY_S)
def _watch_box(state_key: str, t: Callable[..., str], running: Callable[[Job], str] | None) -> None:
    ticket = pending(state_key)
    if ticket is None or ticket.job.finished.is_set():
        st.rerun()  # the whole app: the page collects the result, or draws its button again after a Cancel
        return
    job = ticket.job
    with st.container(border=True):
        if job.state == "running":
            words = running(job) if running is not None else t("queue.running")
            st.info(words + shared_text(ticket, t), icon=":material/timer:")
            done, total = job.progress
            if total > 0:
                st.progress(min(1.0, done / total))
        else:
            st.info(waiting_text(ticket, t), icon=":material/hourglass_top:")
        st.button(
            t("queue.cancel"), key=f"{state_key}_cancel", icon=":material/close:", on_click=give_back, args=(state_key,)
        )


def show_outcome(job: Job | None, t: Callable[..., str]) -> None:
    """What a job that did not finish normally left to say: cancelled, or failed."""
    if job is None or job.done:
        return
    if job.state == "cancelled":
        st.caption(t("queue.cancelled"))
    else:
        st.error(t("queue.failed", error=type(job.error).__name__), icon=":material/error:")


def load_note(load: Load | None, t: Callable[..., str]) -> str | None:
    """How busy the server was while a timing ran: times measured beside other work are noisier."""
    if load is None:
        return None
    avg = f"{load.load_average:.1f}" if load.load_average >= 0 else "?"
    if load.others_running or load.waiting:
        return t("queue.load.busy", others=load.others_running, waiting=load.waiting, load=avg, cores=load.cores)
    return t("queue.load.quiet", load=avg, cores=load.cores)
