"""The code the pages show is parsed under one lock, once per process (lessons/source.py).

Python 3.11's ast.parse can fail with "SystemError: AST constructor recursion depth mismatch"
when threads parse at once; Streamlit runs each session in its own thread (seen in the 8-session
browser test on Real heads). These tests pin the three guards: the lock, the cache, the warm-up.
"""

from __future__ import annotations

import ast
import inspect
import threading
from pathlib import Path

import pytest
from conftest import run_app

from lessons import source, walkthrough

ROOT = Path(__file__).resolve().parent.parent


def test_shown_sources_are_the_real_source():
    for obj in source.shown_sources():
        assert source.source_text(obj) == inspect.getsource(obj)


def test_every_parse_happens_under_the_lock(monkeypatch):
    held = []
    real_getsource, real_parse = inspect.getsource, ast.parse

    def getsource(obj):
        held.append(source.PARSE_LOCK._is_owned())
        return real_getsource(obj)

    def parse(*args, **kwargs):
        held.append(source.PARSE_LOCK._is_owned())
        return real_parse(*args, **kwargs)

    monkeypatch.setattr(source.inspect, "getsource", getsource)
    monkeypatch.setattr(source.ast, "parse", parse)
    source._source.cache_clear()
    source._source_of_unlocked.cache_clear()
    walkthrough.warm()
    assert len(held) >= len(source.shown_sources()) + len(walkthrough.STEPS) - 1
    assert all(held)


def test_many_threads_at_once_get_the_same_source():
    source._source.cache_clear()
    source._source_of_unlocked.cache_clear()
    results, errors = [], []

    def read():
        try:
            results.append(
                (
                    tuple(source.source_text(o) for o in source.shown_sources()),
                    tuple(walkthrough.step_source(s.name) for s in walkthrough.STEPS),
                )
            )
        except Exception as e:  # noqa: BLE001 - any failure in a thread must reach the assert
            errors.append(e)

    threads = [threading.Thread(target=read) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(results) == 8 and len(set(results)) == 1


@pytest.mark.app
def test_the_server_reads_the_shown_code_when_the_process_starts():
    from ui.cache import forget_process_wide

    run_app("quiz")
    forget_process_wide("app.tune_process")  # a new server process: app.py's once-per-process set-up runs again
    source._source.cache_clear()
    source._source_of_unlocked.cache_clear()
    run_app("quiz")  # a page that shows no code: the warm-up in app.py still read it all
    assert source._source.cache_info().currsize >= len(source.shown_sources())
    assert source._source_of_unlocked.cache_info().currsize >= len(walkthrough.STEPS)  # every step's lines
