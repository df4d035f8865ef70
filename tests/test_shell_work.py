"""The app shell's per-run work (issue 18): the shared settings are sanitised once per run, not 2-3 times."""

import pytest
from conftest import run_app

import lessons.settings
import ui.shell

pytestmark = pytest.mark.app


def test_the_remembered_settings_are_the_sidebar_values():
    """What current_settings() hands the pages is what the sidebar's widgets hold, a corrected URL value too."""
    at = run_app("quiz", seed=3, num_heads=7)  # 7 does not divide 64: corrected to 8 with a notice
    settled = at.session_state[ui.shell.SETTLED_KEY]
    assert (settled.seed, settled.num_heads) == (3, 8)
    assert all(getattr(settled, k) == at.session_state[k] for k in lessons.settings.SETTING_KEYS)
