"""The code the pages show is the code that runs, parsed under one lock, once per process (lessons/source.py).

Python 3.11's ast.parse can fail with "SystemError: AST constructor recursion depth mismatch"
when threads parse at once; Streamlit runs each session in its own thread (seen in the 8-session
browser test on Real heads). These tests check the three guards by what they do: a read waits for
the lock, threads at once get one answer, the server process reads it all before a page does.
"""

from __future__ import annotations

import threading

import pytest
import torch
from conftest import run_app

from core import pretrained
from lessons import source, walkthrough


def test_the_code_real_heads_shows_runs_like_the_model():
    """Run the shown text of EncoderLayer and without_heads (what the page prints) in core.pretrained's namespace:
    with the real layer's weights it gives the real layer's numbers, heads switched off too."""
    namespace = dict(vars(pretrained))
    for obj in source.shown_sources():
        exec(compile(source.source_text(obj), f"shown {obj.__qualname__}", "exec"), namespace)
        assert namespace[obj.__name__] is not obj  # the shown text defined its own copy
    cfg = pretrained.BertConfig(
        vocab_size=10, d_model=16, num_heads=4, num_layers=1, d_ff=32, max_positions=8, type_vocab_size=2,
        layer_norm_eps=1e-12, pad_token_id=0,
    )  # fmt: skip
    torch.manual_seed(0)
    real = pretrained.EncoderLayer(cfg).eval()
    shown = namespace["EncoderLayer"](cfg).eval()
    shown.load_state_dict(real.state_dict())
    x = torch.randn(1, 5, 16)  # (B, T, d_model)
    with torch.no_grad():
        for heads_off in ((), (1, 3)):
            for a, b in zip(real(x, None, heads_off)[:2], shown(x, None, heads_off)[:2], strict=True):
                assert torch.allclose(a, b, atol=1e-6), heads_off
        assert not torch.allclose(real(x, None, (1, 3))[0], real(x, None, ())[0])  # switching heads off shows


def forget_the_parsed_sources():
    source._source.cache_clear()
    source._source_of_unlocked.cache_clear()


@pytest.mark.parametrize("read", ["shown_sources", "steps"])
def test_a_read_waits_while_another_thread_holds_the_parse_lock(read):
    """A page run that needs code it has not read yet waits for the parse in progress, then reads it."""
    forget_the_parsed_sources()
    done = []

    def reader():
        if read == "shown_sources":
            done.extend(source.source_text(o) for o in source.shown_sources())
        else:
            done.extend(walkthrough.step_source(s.name).code for s in walkthrough.STEPS)

    expected = len(source.shown_sources()) if read == "shown_sources" else len(walkthrough.STEPS)
    thread = threading.Thread(target=reader)
    with source.PARSE_LOCK:
        thread.start()
        thread.join(timeout=1.0)  # proving a wait needs a bound: it must still be waiting after it
        assert thread.is_alive() and not done
    thread.join(timeout=60)
    assert not thread.is_alive() and len(done) == expected


def test_many_threads_at_once_get_the_same_source():
    forget_the_parsed_sources()
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
    forget_the_parsed_sources()
    run_app("quiz")  # a page that shows no code: the warm-up in app.py still read it all
    assert source._source.cache_info().currsize >= len(source.shown_sources())
    assert source._source_of_unlocked.cache_info().currsize >= len(walkthrough.STEPS)  # every step's lines
