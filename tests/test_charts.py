"""The chart route's Streamlit-free half (charts/): the payload carries the arrays exactly, the table view
prints with the Heatmap's decimals, the accessible name summarises the panels, the palettes give every role
a scale."""

from __future__ import annotations

import json
import struct

import numpy as np
import pytest

from charts import palettes
from charts.alt import alt_text
from charts.payload import MAGIC, file_name, payload, unpack
from charts.table import number, tables
from lessons.heatmap import Heatmap, Panel, Rect, text


def _heatmap(**kw) -> Heatmap:
    rng = np.random.default_rng(7)
    a = rng.standard_normal((5, 7)).astype(np.float32)
    a[0, 0], a[1, 2], a[4, 6] = np.nan, -np.inf, 1e-9
    b = rng.random((5, 7)).astype(np.float32)
    blocked = np.zeros((5, 7), dtype=bool)
    blocked[1, 2] = blocked[3, 5] = True
    args = dict(
        name="weights-h4",
        role="signed",
        vmin=-3.0,
        vmax=3.0,
        decimals=3,
        clickable=True,
        row_axis=text("walk.axis.query"),
        col_axis=text("walk.axis.key"),
        panels=(
            Panel(
                values=a, title=text("x", h=0), row_labels=tuple("abcde"), blocked=blocked, row_groups=(0, 0, 1, 1, 2)
            ),
            Panel(values=b, row_labels=tuple("abcde"), col_labels=tuple("ABCDEFG")),
        ),
        rects=(Rect(0, 1, 3, 2, 4, "current"),),
    )
    args.update(kw)
    return Heatmap(**args)


def test_payload_round_trip_is_exact():
    hm = _heatmap()
    data = payload(
        hm,
        palette="contrast",
        cell_numbers=True,
        image_format="svg",
        words={
            "title": "T",
            "row_axis": "query",
            "col_axis": "key",
            "panels": ["head 0", ""],
            "alt": "an alt",
            "download": "Download (SVG)",
        },
    )
    assert data[:4] == MAGIC
    header, arrays = unpack(data)
    for panel, got in zip(hm.panels, arrays):
        assert got["values"].dtype == np.float32 and got["values"].shape == panel.values.shape
        # bit for bit: NaN, -inf and 1e-9 travel unchanged (no text, no rounding)
        assert got["values"].tobytes() == np.ascontiguousarray(panel.values, dtype="<f4").tobytes()
    assert np.array_equal(arrays[0]["blocked"], hm.panels[0].blocked)
    assert "blocked" not in arrays[1]  # no blocked cells: nothing sent
    assert header["decimals"] == 3 and header["role"] == "signed" and header["clickable"] is True
    assert (header["vmin"], header["vmax"]) == (-3.0, 3.0)
    assert header["format"] == "svg" and header["file"] == "attention-lab-weights-h4" and header["alt"] == "an alt"
    assert header["colours"]["scale"] == [list(s) for s in palettes.scale("signed", "contrast")]
    assert header["cell_numbers"] is True and header["palette"] == "contrast"
    assert [p["title"] for p in header["panels"]] == ["head 0", ""]
    assert header["panels"][0]["row_groups"] == [0, 0, 1, 1, 2]
    # shared labels travel once; () means 0..n-1 and sends nothing
    assert header["labels"] == [list("abcde"), list("ABCDEFG")]
    assert [p["row_labels"] for p in header["panels"]] == [0, 0]
    assert [p["col_labels"] for p in header["panels"]] == [None, 1]
    assert header["rects"] == [{"panel": 0, "r0": 1, "r1": 3, "c0": 2, "c1": 4, "style": "current"}]
    # raw bytes, no base64 or numbers as text: header + 2 x 35 float32 + 35 bytes (+ padding)
    (n,) = struct.unpack_from("<I", data, 4)
    assert len(data) - 8 - n <= 2 * 35 * 4 + 35 + 3 + 3
    assert "bdata" not in data[8 : 8 + n].decode() and json.loads(data[8 : 8 + n])["v"] == 1


def test_payload_says_when_every_row_is_labelled():
    assert unpack(payload(_heatmap()))[0]["every_row"] is False
    assert unpack(payload(_heatmap(every_row=True)))[0]["every_row"] is True


def test_payload_blobs_are_aligned_for_float32_views():
    hm = _heatmap(
        panels=(
            Panel(values=np.ones((3, 3), np.float32), blocked=np.eye(3, dtype=bool)),
            Panel(values=np.arange(6, dtype=np.float32).reshape(2, 3)),
        )
    )
    data = payload(hm)
    (n,) = struct.unpack_from("<I", data, 4)
    start = 8 + n + (-(8 + n) % 4)
    assert start % 4 == 0
    header, arrays = unpack(data)
    assert all(p["values"][0] % 4 == 0 for p in header["panels"])
    assert arrays[1]["values"].tolist() == [[0, 1, 2], [3, 4, 5]]


def test_unknown_options_fall_back():
    header, _ = unpack(payload(_heatmap(), palette="neon", image_format="gif"))
    assert header["palette"] == "colorblind" and header["format"] == "png"
    assert file_name("a b/c") == "attention-lab-a-b-c"


def test_table_prints_every_value_with_the_decimals():
    hm = _heatmap(decimals=2)
    tabs = tables(hm, {"panels": ["head 0", "head 1"]})
    assert [t.title for t in tabs] == ["head 0", "head 1"]
    a = hm.panels[0].values
    assert tabs[0].rows[2][3] == f"{float(a[2, 3]):.2f}"
    assert tabs[0].rows[0][0] == "" and tabs[0].rows[1][2] == "-inf" and tabs[0].rows[4][6] == "0.00"
    assert tabs[0].col_labels == [str(c) for c in range(7)] and tabs[0].row_labels == list("abcde")
    assert tabs[1].col_labels == list("ABCDEFG")
    repeated = tables(_heatmap(panels=(Panel(values=np.zeros((2, 3), np.float32), col_labels=("the", "cat", "the")),)))
    assert repeated[0].col_labels == ["0:the", "1:cat", "2:the"]  # a table's header needs unique names
    assert all(len(v.split(".")[1]) == 2 for row in tabs[1].rows for v in row)
    assert number(0.123456, 4) == "0.1235" and number(float("inf"), 3) == "inf"


def test_table_words_states():
    hm = Heatmap(
        name="tiles",
        role="state",
        vmin=0,
        vmax=2,
        row_axis=text("a"),
        col_axis=text("b"),
        states=("s.todo", "s.done", "s.skip"),
        panels=(Panel(values=np.array([[0, 1], [2, np.nan]], np.float32)),),
    )
    assert tables(hm, {"states": ["todo", "done", "skipped"]})[0].rows == [["todo", "done"], ["skipped", ""]]
    header, _ = unpack(payload(hm, words={"states": ["todo", "done", "skipped"]}))
    assert header["states"] == ["todo", "done", "skipped"] and len(header["colours"]["states"]) == 3


def test_alt_text_summarises_the_panels():
    said = []

    def sentence(**kw):
        said.append(kw)
        return "heatmap, {n} panel(s) of {rows}×{cols}{names}.".format(**kw)

    hm = _heatmap()
    out = alt_text(hm, {"title": "Weights", "panels": ["head 0", "head 1"]}, sentence)
    assert out == "Weights: heatmap, 2 panel(s) of 5×7 (head 0, head 1)."
    many = _heatmap(panels=tuple(Panel(values=np.zeros((2, 3), np.float32)) for _ in range(10)))
    out = alt_text(many, {"panels": [f"h{i}" for i in range(10)]}, sentence)
    assert out == "heatmap, 10 panel(s) of 2×3 (h0, h1, h2, h3, h4, h5, h6, h7 …)."


# The palettes' scales as plotly names them: Viridis for weights and masks; a colour-blind safe diverging scale
# (RdBu reversed) for signed values.
VIRIDIS_ENDS = ("#440154", "#fde725")


@pytest.mark.parametrize("palette", palettes.PALETTES)
def test_palettes_give_every_role_a_scale_and_keep_blocked_cells_apart(palette):
    assert palettes.PALETTES == ("colorblind", "contrast") and palettes.DEFAULT_PALETTE == "colorblind"
    for role in ("weights", "signed", "mask"):
        scale = palettes.scale(role, palette)
        assert scale[0][0] == 0 and scale[-1][0] == 1 and all(a[0] < b[0] for a, b in zip(scale, scale[1:]))
        assert all(c.startswith("#") and len(c) == 7 for _, c in scale)
    if palette == "colorblind":
        assert (palettes.scale("weights", palette)[0][1], palettes.scale("weights", palette)[-1][1]) == VIRIDIS_ENDS
    assert palettes.scale("similarity", palette) == palettes.scale("signed", palette)
    co = palettes.colours("mask", palette)
    assert co["blocked"]["fill"] not in {c for _, c in palettes.scale("mask", palette)}


def test_charts_package_imports_no_streamlit_or_plotly():
    import subprocess
    import sys

    code = (
        "import sys, charts.payload, charts.table, charts.alt, charts.palettes; "
        "print(sorted(m for m in ('streamlit', 'plotly', 'ui', 'pages') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=str(__import__("pathlib").Path(__file__).resolve().parent.parent),
    )
    assert out.stdout.strip() == "[]"


def test_compact_panels_carry_exactly_the_printed_numbers():
    from charts.payload import NAN16, printed_codes

    rng = np.random.default_rng(3)
    w = rng.random((32, 32)).astype(np.float32)
    w[0, 0], w[0, 1], w[0, 2] = np.nan, 0.12345, 0.5
    wide = (rng.standard_normal((32, 512)) * 3).astype(np.float32)  # past +-3.2767: stays float32 at 4 decimals
    hm = _heatmap(decimals=4, role="weights", vmin=0.0, vmax=1.0, panels=(Panel(values=w), Panel(values=wide)))
    full, compact = payload(hm), payload(hm, compact=True)
    header, arrays = unpack(compact)
    assert header["panels"][0].get("codes") is True and "codes" not in header["panels"][1]
    codes = arrays[0]["codes"]
    assert codes[0, 0] == NAN16
    printed = [[f"{float(v):.4f}" for v in row] for row in w.tolist()]
    assert all(
        f"{c / 1e4:.4f}" == printed[r][k]
        for r, row in enumerate(codes.tolist())
        for k, c in enumerate(row)
        if c != NAN16
    )
    assert np.array_equal(arrays[1]["values"], wide)  # the panel that does not fit travels as float32
    assert len(full) - len(compact) >= 32 * 32 * 2 - 32  # (the header says "codes": +13 bytes)
    # cell numbers print 2 decimals: rounding a 4-decimal code again could differ, so float32 then
    assert "codes" not in unpack(payload(hm, compact=True, cell_numbers=True))[0]["panels"][0]
    assert printed_codes(np.array([[-0.00001]], np.float32), 4) is None  # "-0.0000": a code has no sign of zero
    assert printed_codes(np.array([[np.inf]], np.float32), 2) is None
    assert printed_codes(w, 5) is None


def test_marks_travel_as_bytes_and_print_in_the_table_and_hover():
    """A marked cell (a mask's stored 0/1, a fill value, NaN) shows its mark's word instead of its number."""
    from lessons.heatmap import Mark

    values = np.array([[0.5, -1e9], [np.nan, 0.25]], dtype=np.float32)
    marks = np.array([[0, 1], [2, 0]], dtype=np.uint8)
    hm = Heatmap(
        name="m",
        role="signed",
        vmin=-1.0,
        vmax=1.0,
        decimals=4,
        row_axis=text("common.query"),
        col_axis=text("common.key"),
        panels=(Panel(values=values, marks=marks),),
        marks=(Mark("-1e9"), Mark("NaN", text("masks.hover.mask.keep", v=1))),
    )
    header, arrays = unpack(payload(hm, words={"marks": ["-1e9", "mask = 1 (1 = keep)"]}))
    assert header["marks"] == [{"cell": "-1e9", "hover": "-1e9"}, {"cell": "NaN", "hover": "mask = 1 (1 = keep)"}]
    assert arrays[0]["marks"].tolist() == [[0, 1], [2, 0]]
    assert tables(hm)[0].rows == [["0.5000", "-1e9"], ["NaN", "0.2500"]]
    no_marks = Heatmap(
        name="n",
        role="weights",
        vmin=0.0,
        vmax=1.0,
        row_axis=text("common.query"),
        col_axis=text("common.key"),
        panels=(Panel(values=np.zeros((2, 2), np.float32)),),
    )
    assert "marks" not in unpack(payload(no_marks))[1][0]
    with pytest.raises(ValueError):  # a mark number the Heatmap does not have
        Heatmap(
            name="x",
            role="signed",
            vmin=-1.0,
            vmax=1.0,
            row_axis=text("common.query"),
            col_axis=text("common.key"),
            panels=(Panel(values=values, marks=marks),),
            marks=(Mark("a"),),
        )
