"""lessons.heatmap.head_grid: the one builder of a "panel per head" heatmap (the walkthrough's heads of a step,
the heads page's weights)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from lessons.heatmap import head_grid, readonly, text


def test_head_grid_is_one_panel_per_head_on_one_colour_range():
    weights = torch.arange(3 * 2 * 4, dtype=torch.float32).reshape(3, 2, 4)  # (h, rows, cols)
    blocked = np.array([[False, True, True, True], [False, False, True, True]])
    hm = head_grid(
        "demo",
        [weights[i] for i in (2, 0)],
        (2, 0),
        title=lambda i: text("walk.chart.head", head=i),
        role="signed",
        vrange=(-23, 23),
        row_axis=text("walk.axis.token"),
        col_axis=text("walk.axis.col"),
        row_labels=("0:a", "1:b"),
        col_labels=lambda i: tuple(str(4 * i + c) for c in range(4)),  # each head its own columns
        blocked=blocked,
        head_columns=True,
        panel_columns=4,
        decimals=2,
    )
    assert (hm.name, hm.role, hm.vmin, hm.vmax, hm.panel_columns, hm.decimals) == ("demo", "signed", -23.0, 23.0, 4, 2)
    assert [(p.title.key, p.title.kw()) for p in hm.panels] == [("walk.chart.head", {"head": h}) for h in (2, 0)]
    assert [p.col_labels for p in hm.panels] == [("8", "9", "10", "11"), ("0", "1", "2", "3")]
    assert [p.col_groups for p in hm.panels] == [(2, 2, 2, 2), (0, 0, 0, 0)]
    assert all(p.row_labels == ("0:a", "1:b") and p.blocked is blocked for p in hm.panels)
    assert np.array_equal(hm.panels[0].values, weights[2].numpy()) and hm.panels[1].values.dtype == np.float32
    with pytest.raises(ValueError):
        hm.panels[0].values[0, 0] = 1.0  # what a lesson hands out cannot be changed
    weights[0, 0, 0] = 99.0  # nor does it follow the tensor it was made from
    assert hm.panels[1].values[0, 0] == 0.0


def test_head_grid_keeps_read_only_arrays_and_copies_writable_ones():
    frozen, writable = readonly(np.ones((2, 2))), np.ones((2, 2), dtype=np.float32)
    hm = head_grid(
        "w",
        [frozen, writable],
        [0, 1],
        title=lambda i: text("heads.hm.head", i=i),
        role="weights",
        vrange=(0.0, 1.0),
        row_axis=text("common.query"),
        col_axis=text("common.key"),
        col_labels=("x", "y"),
    )
    assert hm.panels[0].values is frozen  # already as the renderer needs it (the walkthrough's printed values)
    assert hm.panels[1].values is not writable and not hm.panels[1].values.flags.writeable
    assert [p.col_labels for p in hm.panels] == [("x", "y")] * 2 and hm.panels[0].col_groups == ()
    assert hm.panels[0].blocked is None and hm.panel_columns == 0 and hm.decimals == 4
