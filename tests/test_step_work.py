"""What a repeated step costs the server (issue 30.8): a class steps through the same tiles walk and the same K/V
head counts, so a step someone already made must find everything built. Counted, not timed: tiled-attention runs,
tile views and pandas DataFrames (a table is one HTML element now, ui/tables.py: no pandas on a step)."""

from __future__ import annotations

import pandas as pd
import pytest
from conftest import run_app, tables

import core.tiled_attention
import lessons.softmax
import lessons.softmax.tiles
from lessons import kv_cache as K

BIG = {"d_model": 512, "num_heads": 16, "seq_len": 32, "lang": "en"}


class Counter:
    def __init__(self, monkeypatch):
        self.counts: dict[str, int] = {}
        self.monkeypatch = monkeypatch

    def wrap(self, owner, name: str, label: str) -> None:
        original = getattr(owner, name)

        def counted(*args, **kwargs):
            self.counts[label] = self.counts.get(label, 0) + 1
            return original(*args, **kwargs)

        self.monkeypatch.setattr(owner, name, counted)

    def reset(self) -> None:
        self.counts.clear()


@pytest.fixture
def counter(monkeypatch):
    c = Counter(monkeypatch)
    c.wrap(pd.DataFrame, "__init__", "DataFrame")
    return c


@pytest.mark.app
def test_a_repeated_tiles_step_runs_no_attention_no_tile_view_and_no_pandas(counter):
    counter.wrap(lessons.softmax.tiles, "tiled_attention", "tiled_attention")
    counter.wrap(core.tiled_attention, "tiled_attention", "tiled_attention")
    counter.wrap(lessons.softmax, "tile_step", "tile_step")
    at = run_app("softmax", soft_tab="tiles", **BIG)
    assert not at.exception
    for step in (5, 6, 5):  # another student's steps first: 5 and 6 are then in the server's cache
        counter.reset()
        at.slider(key="soft_step").set_value(step).run()
        assert not at.exception
    assert any("Step **5 of" in m.value for m in at.markdown)
    assert counter.counts.get("tiled_attention", 0) == 0
    assert counter.counts.get("tile_step", 0) == 0
    assert counter.counts.get("DataFrame", 0) == 0, counter.counts
    assert len(tables(at)) >= 2  # the tile's rows and the memory table are still drawn


@pytest.mark.app
def test_a_repeated_kv_sharing_step_converts_no_table(counter):
    counter.wrap(K, "sharing_view", "sharing_view")
    at = run_app("kv-cache", kv_tab="sharing", **BIG)
    assert not at.exception
    for kv in (4, 8, 4):
        counter.reset()
        at.select_slider(key="kv_heads").set_value(kv).run()
        assert not at.exception
    assert counter.counts.get("sharing_view", 0) == 0
    assert counter.counts.get("DataFrame", 0) == 0, counter.counts
    assert tables(at)  # the tables are drawn
