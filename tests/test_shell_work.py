"""The app shell's per-run work (issue 18): the shared settings are sanitised once per run, not 2-3 times."""

import pytest
from conftest import run_app

import lessons.settings
import ui.shell

pytestmark = pytest.mark.app


@pytest.mark.parametrize("page", [None, "quiz", "why-heads"])  # why-heads runs as the whole app, not in the fragment
def test_settings_are_sanitised_once_per_run(page, monkeypatch):
    at = run_app(page, d_model=512, num_heads=16, seq_len=31, seed=7)
    assert not at.exception, at.exception
    calls = []
    inner = lessons.settings.sanitize

    def counted(*args, **kwargs):
        calls.append(args[0])
        return inner(*args, **kwargs)

    monkeypatch.setattr(lessons.settings, "sanitize", counted)  # app.py imports it from here on every run
    monkeypatch.setattr(ui.shell, "sanitize", counted)
    at.number_input(key="seed").set_value(8)
    at.run()
    assert not at.exception, at.exception
    assert len(calls) == 1, calls
    assert at.session_state[ui.shell.SETTLED_KEY].seed == 8
    assert (at.session_state["d_model"], at.session_state["num_heads"], at.session_state["seq_len"]) == (512, 16, 31)


def test_the_remembered_settings_are_the_sidebar_values():
    """What current_settings() hands the pages is what the sidebar's widgets hold, a corrected URL value too."""
    at = run_app("quiz", seed=3, num_heads=7)  # 7 does not divide 64: corrected to 8 with a notice
    settled = at.session_state[ui.shell.SETTLED_KEY]
    assert (settled.seed, settled.num_heads) == (3, 8)
    assert all(getattr(settled, k) == at.session_state[k] for k in lessons.settings.SETTING_KEYS)
