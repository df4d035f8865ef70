"""Tensor downloads: the .npz reloads to the traced tensors, a CSV parses back to its slice, and the
JSON recipe, fed back to the core, reproduces identical tensors. The buttons are on the pages."""

import io
import json

import numpy as np
import pandas as pd
import pytest
import torch
from conftest import run_app

from core.attention import AttentionTrace
from core.masks import mask_to_text
from lessons import export, masks_lab, scenario
from lessons.heatmap import axis_labels
from lessons.settings import sanitize

pytestmark = pytest.mark.usefixtures("one_torch_thread")

CASES = [
    dict(),
    dict(d_model=8, num_heads=1, seq_len=2, mask="causal", seed=3, lang="zh"),
    dict(d_model=32, num_heads=8, seq_len=7, mask="padding", seed=42),
    dict(d_model=16, num_heads=4, seq_len=3, mask="custom", seed=7),
    dict(d_model=128, num_heads=16, seq_len=32, mask="causal", seed=99_999, lang="zh"),
]
CUSTOM = "100.011.111"  # a 3x3 hand-drawn grid (row 0 sees itself only, row 1 does not see key 0)


def scenario_set(**raw):
    settings, fixes = sanitize(raw)
    assert not fixes
    custom = CUSTOM if settings.mask == "custom" else None
    run = scenario.run(settings, custom_text=custom)
    return run, export.from_scenario(run, custom)


def reload(data: bytes) -> dict:
    with np.load(io.BytesIO(data), allow_pickle=False) as z:
        return {name: z[name] for name in z.files}


@pytest.mark.parametrize("raw", CASES, ids=lambda r: "-".join(f"{k}{v}" for k, v in r.items()) or "defaults")
def test_npz_reloads_to_exactly_the_traced_tensors(raw):
    run, ts = scenario_set(**raw)
    arrays = reload(export.npz_bytes(ts))
    for name in AttentionTrace.names():  # the 13 traced tensors, under their own names
        got = torch.from_numpy(arrays[name])
        assert got.dtype == getattr(run.trace, name).dtype
        assert torch.equal(got, getattr(run.trace, name)), name
    assert torch.equal(torch.from_numpy(arrays["x"]), run.x)
    for role in "qkvo":
        layer = getattr(run.model, f"W_{role}")
        assert torch.equal(torch.from_numpy(arrays[f"W_{role}.weight"]), layer.weight)
        assert torch.equal(torch.from_numpy(arrays[f"W_{role}.bias"]), layer.bias)
    if run.mask is None:
        assert "mask" not in arrays
    else:
        assert torch.equal(torch.from_numpy(arrays["mask"]), run.mask)
    assert arrays["tokens"].tolist() == [run.tokens]


def test_npz_weights_follow_the_seed_formulas():
    """What the .npz's `weights_layout` note promises: q = x @ W_q.weight.T + W_q.bias, output likewise."""
    _, ts = scenario_set(d_model=32, num_heads=4, seq_len=6, mask="causal")
    a = {k: torch.from_numpy(v) for k, v in reload(export.npz_bytes(ts)).items() if k != "tokens"}
    assert torch.allclose(a["q"], a["x"] @ a["W_q.weight"].T + a["W_q.bias"], atol=1e-6)
    assert torch.allclose(a["output"], a["concat"] @ a["W_o.weight"].T + a["W_o.bias"], atol=1e-6)
    # and the file alone rebuilds the seed's nn.Linear layers
    model = torch.nn.ModuleDict({r: torch.nn.Linear(32, 32) for r in ("W_q", "W_k", "W_v", "W_o")})
    model.load_state_dict({k: v for k, v in a.items() if k.startswith("W_")})
    assert torch.equal(model["W_v"](a["x"]), a["v"])


def test_npz_of_the_masks_lab_keeps_the_batch_and_the_key_sequence():
    settings, _ = sanitize(dict(d_model=16, num_heads=2, seq_len=4, mask="padding", seed=5))
    setup = masks_lab.LabSetup(("causal", "padding"), 4, 6, cross=True, lengths=(6, 3), fill="-inf")
    run = masks_lab.run_lab(settings, setup)
    ts = export.from_lab(run, settings)
    arrays = reload(export.npz_bytes(ts))
    assert arrays["x"].shape == (2, 4, 16) and arrays["kv"].shape == (2, 6, 16)
    for name in AttentionTrace.names():
        assert torch.equal(torch.from_numpy(arrays[name]), getattr(run.trace, name)), name
    assert torch.equal(torch.from_numpy(arrays["mask"]), run.mask)
    assert arrays["tokens"].tolist() == run.q_labels and arrays["key_tokens"].tolist() == run.k_labels


def read_csv(data: bytes) -> pd.DataFrame:
    return pd.read_csv(io.BytesIO(data), index_col=0, encoding="utf-8-sig")


@pytest.mark.parametrize(
    "name,batch,head",
    [
        ("weights", 0, 2),
        ("masked_scores", 0, 1),
        ("q_heads", 0, 3),
        ("scores", 0, 0),
        ("x", 0, 0),
        ("output", 0, 0),
        ("mask", 0, 0),
        ("W_q.weight", 0, 0),
        ("W_o.bias", 0, 0),
        ("head_outputs", 0, 3),
    ],
)
def test_csv_parses_back_to_the_slice(name, batch, head):
    run, ts = scenario_set(d_model=32, num_heads=4, seq_len=6, mask="causal", lang="zh")
    frame = read_csv(export.csv_bytes(export.slice_2d(ts, name, batch, head)))
    full = ts.tensors[name]
    if name == "mask":
        expected = run.mask[0, 0].expand(6, 6)  # the broadcast (1, 1, 6, 6) mask as the grid it acts as
    elif name.startswith("W_"):
        expected = full if full.dim() == 2 else full[:, None]  # a bias is one column
    elif full.dim() == 4:
        expected = full[batch, head]  # (B, h, T, ·) -> one sequence, one head
    else:
        expected = full[batch]  # (B, T, d_model) -> one sequence
    got = torch.tensor(frame.to_numpy(dtype=np.float64)).to(torch.float32)
    assert torch.equal(got, expected.to(torch.float32)), name  # exact: the text keeps every float32 bit
    if name in ("weights", "scores", "masked_scores", "mask"):  # token labels on both axes, as on the heatmaps
        assert list(frame.index) == list(frame.columns) == list(axis_labels(run.tokens))
    if name == "masked_scores":
        assert (frame.to_numpy() == -1e9).sum() == 15  # the causal mask's 15 blocked cells of 6x6


def test_csv_slices_of_a_batch_of_two_use_each_sequence_and_its_tokens():
    settings, _ = sanitize(dict(d_model=16, num_heads=2, seq_len=4, mask="padding", seed=1))
    run = masks_lab.run_lab(settings, masks_lab.LabSetup(("padding",), 4, 4, lengths=(4, 2)))
    ts = export.from_lab(run, settings)
    sl = export.slice_2d(ts, "weights", 1, 1)
    assert sl.label == "weights[1, 1]"
    frame = read_csv(export.csv_bytes(sl))
    assert torch.equal(torch.from_numpy(frame.to_numpy()).float(), run.trace.weights[1, 1])
    assert list(frame.columns) == list(axis_labels(run.k_labels[1]))
    mask = read_csv(export.csv_bytes(export.slice_2d(ts, "mask", 1)))
    assert mask.to_numpy().tolist() == [[1, 1, 0, 0]] * 4  # sequence 1 has 2 real tokens


def test_out_of_range_indices_are_clamped_not_raised():
    _, ts = scenario_set(d_model=16, num_heads=2, seq_len=3)
    assert export.slice_2d(ts, "weights", 5, 9).index == (0, 1)
    assert export.slice_2d(ts, "weights", -3, -1).index == (0, 0)


@pytest.mark.parametrize("raw", CASES, ids=lambda r: "-".join(f"{k}{v}" for k, v in r.items()) or "defaults")
def test_json_fed_back_to_the_core_reproduces_identical_tensors(raw):
    run, ts = scenario_set(**raw)
    text = export.json_text(ts)
    data = json.loads(text)
    settings, custom, fixes = export.read_recipe(text)
    assert not fixes and settings == run.settings
    assert custom == (CUSTOM if run.settings.mask == "custom" else None)
    assert set(data["versions"]) >= {"python", "torch", "numpy", "streamlit"}
    assert data["versions"]["torch"] == torch.__version__
    # the URL query string carries the same settings (what a student's link would open)
    from urllib.parse import parse_qs

    query = {k: v[0] for k, v in parse_qs(data["query"]).items()}
    assert sanitize(query)[0] == run.settings
    again = scenario.run(settings, custom_text=custom)
    for name in AttentionTrace.names():
        assert torch.equal(getattr(again.trace, name), getattr(run.trace, name)), name
    assert export.npz_bytes(export.rerun(text)) == export.npz_bytes(ts)  # the whole file, byte for byte


def test_custom_mask_text_is_what_reproduces_a_hand_drawn_mask():
    run, ts = scenario_set(d_model=16, num_heads=4, seq_len=3, mask="custom")
    data = json.loads(export.json_text(ts))
    assert data["custom_mask"] == CUSTOM and "masks_grid=100.011.111" in data["query"]
    data["custom_mask"] = None  # without it the default grid is used: different weights
    assert not torch.equal(export.rerun(data).tensors["weights"], run.trace.weights)


def test_json_of_the_masks_lab_reproduces_its_tensors():
    settings, _ = sanitize(dict(d_model=16, num_heads=4, seq_len=5, mask="custom", seed=11, lang="zh"))
    grid = mask_to_text(torch.tensor([[1, 0, 0, 1, 1]] * 5))
    setup = masks_lab.LabSetup(
        ("custom", "causal"), 5, 5, custom_grid=torch.tensor([[1, 0, 0, 1, 1]] * 5).bool(), fill="-inf"
    )
    run = masks_lab.run_lab(settings, setup)
    ts = export.from_lab(run, settings, grid, extra_query={"masks_extra": "causal", "masks_fill": "-inf"})
    data = json.loads(export.json_text(ts))
    assert data["masks_lab"]["custom_grid"] == grid and data["masks_lab"]["fill"] == "-inf"
    assert "masks_fill=-inf" in data["query"]
    again = export.rerun(export.json_text(ts))
    assert again.tensors.keys() == ts.tensors.keys()
    for name, tensor in ts.tensors.items():
        assert torch.equal(again.tensors[name], tensor), name  # NaN-free here: every row keeps key 0


def test_a_file_that_is_not_a_recipe_is_refused_and_bad_values_are_sanitised():
    with pytest.raises(ValueError):
        export.read_recipe({"settings": {}})
    settings, _, fixes = export.read_recipe({"format": export.FORMAT, "settings": {"d_model": 512, "num_heads": 7}})
    assert settings.num_heads == 8 and fixes


def test_every_export_string_has_both_languages():
    from i18n.strings.export import STRINGS

    for key, texts in STRINGS.items():
        assert key.startswith("export.") and texts["zh"].strip() and texts["en"].strip(), key


# ---------------------------------------------------------------- on the pages (AppTest)
LABELS = {
    "zh": ("全部张量（.npz）", "设置（.json）", "下载 weights[0, 0]（.csv）"),
    "en": ("All tensors (.npz)", "Settings (.json)", "Download weights[0, 0] (.csv)"),
}


@pytest.mark.app
@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("page", ["walkthrough", "heads", "masks"])
def test_download_buttons_are_on_the_page(page, lang):
    at = run_app(page, lang=lang, mask="causal", seq_len=5)
    assert not at.exception, at.exception
    titles = [e.proto.label for e in at.get("expander")]
    assert ("下载张量" if lang == "zh" else "Download the tensors") in titles
    assert not at.get("download_button")  # closed, the section is one element (ui/downloads.py)
    at.session_state[f"{page}_export_open"] = True  # as a click on the expander does
    at.run()
    labels = [b.proto.label for b in at.get("download_button")]
    assert labels == list(LABELS[lang])
    assert all(b.proto.ignore_rerun for b in at.get("download_button"))  # a download never reruns the page


@pytest.mark.app
def test_picking_a_tensor_and_head_changes_the_csv_button():
    at = run_app("walkthrough", lang="en", d_model=32, num_heads=4, seq_len=4)
    at.session_state["walkthrough_export_open"] = True
    at.run()
    at.selectbox(key="walkthrough_export_tensor").set_value("q_heads")
    at.number_input(key="walkthrough_export_h").set_value(3)
    at.run()
    assert not at.exception, at.exception
    assert at.get("download_button")[-1].proto.label == "Download q_heads[0, 3] (.csv)"
    assert any("(1, 4, 4, 8)" in c.value for c in at.caption)
    # a smaller h afterwards: the head index is clamped, no error
    at.sidebar.select_slider(key="num_heads").set_value(2)
    at.run()
    assert not at.exception, at.exception
    assert at.get("download_button")[-1].proto.label == "Download q_heads[0, 1] (.csv)"


def test_csv_keeps_minus_inf_nan_and_awkward_labels():
    """The -inf fill and the NaN of a fully blocked row read back as such; a label with a comma stays one field."""
    settings, _ = sanitize(dict(d_model=8, num_heads=2, seq_len=3, mask="custom", seed=2))
    grid = torch.tensor([[0, 0, 0], [1, 0, 0], [1, 1, 1]]).bool()  # query 0 sees no key: a NaN row with -inf
    run = masks_lab.run_lab(settings, masks_lab.LabSetup(("custom",), 3, 3, custom_grid=grid, fill="-inf"))
    ts = export.from_lab(run, settings)
    got = {}
    for name in ("masked_scores", "weights"):
        frame = read_csv(export.csv_bytes(export.slice_2d(ts, name, 0, 1)))
        got[name] = torch.tensor(frame.to_numpy(dtype=np.float64)).float()
        assert torch.allclose(got[name], getattr(run.trace, name)[0, 1], rtol=0, atol=0, equal_nan=True), name
    assert torch.isneginf(got["masked_scores"][0]).all() and torch.isnan(got["weights"][0]).all()
    sl = export.Slice("weights", (0, 0), torch.eye(2), ["0:a,b", '1:"q"'], ["0:a,b", '1:"q"'], "query", "key")
    frame = read_csv(export.csv_bytes(sl))
    assert list(frame.index) == list(frame.columns) == ["0:a,b", '1:"q"']
    assert frame.to_numpy().tolist() == [[1.0, 0.0], [0.0, 1.0]]


@pytest.mark.app
def test_a_link_with_the_hand_drawn_grid_shows_that_mask_on_the_walkthrough():
    """The JSON's URL carries masks_grid: opened directly on the walkthrough, it gives the same mask."""
    grid = "111.111.100"  # blocks 2 of 9 cells (the default grid would block 3)
    at = run_app("walkthrough", lang="en", mask="custom", seq_len=3, walk_step="mask", masks_grid=grid)
    assert not at.exception, at.exception
    assert any("2 of 9 cells blocked" in m.value for m in at.markdown)
    at = run_app("walkthrough", lang="en", mask="custom", seq_len=3, walk_step="mask")
    assert any("3 of 9 cells blocked" in m.value for m in at.markdown)


def test_export_labels_with_the_charts_labels_and_builds_no_figure():
    """lessons/export.py labels its tables as the charts do (lessons.heatmap.axis_labels); what it may import:
    tests/test_layers.py."""
    assert axis_labels(["the", "cat", "the"]) == ("0:the", "1:cat", "2:the")
