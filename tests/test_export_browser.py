"""Downloads in a real browser: the files a click saves reload to the tensors the core traces."""

import io
import json

import numpy as np
import pandas as pd
import pytest
import torch
from conftest import open_app, sidebar_slider, wait_idle
from playwright.sync_api import expect
from waits import wait_quiet
from wire import SIDEBAR, delta_paths

from core.attention import AttentionTrace
from lessons import export, scenario
from lessons.settings import sanitize

# The server computes with one torch thread (app.py); so does this test process, for bit-equal matmuls.
pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("one_torch_thread")]

SETTINGS = dict(d_model=32, num_heads=4, seq_len=6, mask="causal", seed=12, lang="en")


def download(page, label: str) -> bytes:
    button = page.get_by_role("button", name=label)
    button.scroll_into_view_if_needed()
    with page.expect_download() as info:
        button.click()
    return open(info.value.path(), "rb").read(), info.value.suggested_filename


def open_section(page):
    section = page.get_by_text("Download the tensors", exact=True)
    section.scroll_into_view_if_needed()
    section.click()
    expect(page.get_by_role("button", name="All tensors (.npz)")).to_be_visible()


def test_downloaded_npz_json_and_csv_reload_to_the_traced_tensors(page, server):
    open_app(page, server, "walkthrough", **SETTINGS)
    open_section(page)
    run = scenario.run(sanitize(SETTINGS)[0])

    data, name = download(page, "All tensors (.npz)")
    assert name == "attention_d32_h4_T6_causal_seed12.npz"
    with np.load(io.BytesIO(data), allow_pickle=False) as z:
        for field in AttentionTrace.names():
            assert torch.equal(torch.from_numpy(z[field]), getattr(run.trace, field)), field
        assert torch.equal(torch.from_numpy(z["W_q.weight"]), run.model.W_q.weight)

    data, name = download(page, "Settings (.json)")
    recipe = json.loads(data)
    assert recipe["settings"] == {k: v for k, v in SETTINGS.items()}
    assert recipe["url"].startswith(f"{server.url}/walkthrough?") and "seed=12" in recipe["url"]
    again = export.rerun(recipe)
    assert torch.equal(again.tensors["weights"], run.trace.weights)

    first_npz = download(page, "All tensors (.npz)")[0]
    # pick another head (the slice picker is a fragment), and the CSV is that slice
    page.get_by_label("Head", exact=True).fill("3")
    page.keyboard.press("Enter")
    wait_idle(page)
    expect(page.get_by_role("button", name="Download weights[0, 3] (.csv)")).to_be_visible()
    data, name = download(page, "Download weights[0, 3] (.csv)")
    assert name == "attention_d32_h4_T6_causal_seed12_weights_0_3.csv"
    frame = pd.read_csv(io.BytesIO(data), index_col=0, encoding="utf-8-sig")
    assert torch.equal(torch.tensor(frame.to_numpy()).float(), run.trace.weights[0, 3])
    assert list(frame.columns)[:2] == ["0:the", "1:cat"]
    assert download(page, "All tensors (.npz)")[0] == first_npz  # still served after the fragment's rerun
    expect(page.locator("[data-testid=stException]")).to_have_count(0)


def test_a_step_of_seq_len_leaves_the_closed_section_and_redraws_the_open_one(page, server):
    """The section is below the page in a fragment of its own (app.py tail_part): closed, a step of seq_len sends
    nothing into it (the same closed expander stays); open, the step redraws it with the new run, and its files are
    that run's tensors."""
    paths = delta_paths(page)
    open_app(page, server, "walkthrough", **SETTINGS)
    section = page.get_by_text("Download the tensors", exact=True)
    expect(section).to_be_visible()
    drawn = {p[1] for p in paths if len(p) > 1 and p[0] != SIDEBAR}
    tail = max(drawn)  # the main area's last block: the section, below the page

    def step(seq_len: int) -> set[int]:
        """seq_len one notch up; the main area's top-level blocks the answer drew into."""
        paths.clear()
        thumb = sidebar_slider(page, 2)
        thumb.focus()
        page.keyboard.press("ArrowRight")
        expect(page.get_by_text(f"(1, {seq_len}, 32)").first).to_be_visible()  # X's shape: the page has the step
        wait_idle(page)
        wait_quiet(page)
        return {p[1] for p in paths if len(p) > 1 and p[0] != SIDEBAR}

    assert tail not in step(7)  # closed: not sent again
    expect(section).to_be_visible()
    open_section(page)
    expect(page.get_by_text("has shape (1, 4, 7, 7)").first).to_be_visible()
    assert tail in step(8)  # open: redrawn with the new run
    expect(page.get_by_text("has shape (1, 4, 8, 8)").first).to_be_visible()
    data, name = download(page, "All tensors (.npz)")
    assert name == "attention_d32_h4_T8_causal_seed12.npz"
    run = scenario.run(sanitize({**SETTINGS, "seq_len": 8})[0])
    with np.load(io.BytesIO(data), allow_pickle=False) as z:
        assert torch.equal(torch.from_numpy(z["weights"]), run.trace.weights)
