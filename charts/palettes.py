"""Colours per role and palette, as explicit stops the browser interpolates (no plotly needed to read them).

The weights / signed / mask scales are plotly's 'Viridis' and 'RdBu_r' resolved to '#rrggbb' stops (the
names the charts had when they were plotly's; tests/test_charts.py checks the stops). The roles the plotly route
never had get colours in the same spirit:
- similarity (cosine, -1..1): the signed scale (diverging, white/grey middle = 0);
- state (small integer codes: todo / done / skipped ...): distinct colours, colour-blind safe (Okabe-Ito) or
  projector greys-with-one-accent;
- blocked (a mask blocks the cell): a flat fill with diagonal hatching, never a colour of the scale;
- groups (e.g. the K/V head a query head reads): a strip beside the labels, Okabe-Ito or dark/light steps;
- rects: the outline colour of each style (current tile, done, skipped, group).
"""

from __future__ import annotations

PALETTES = ("colorblind", "contrast")  # the URL values of the display option (ui/display.py)
DEFAULT_PALETTE = "colorblind"

Stops = list[tuple[float, str]]

VIRIDIS: Stops = [
    (0.0, "#440154"),
    (0.111111, "#482878"),
    (0.222222, "#3e4989"),
    (0.333333, "#31688e"),
    (0.444444, "#26828e"),
    (0.555556, "#1f9e89"),
    (0.666667, "#35b779"),
    (0.777778, "#6ece58"),
    (0.888889, "#b5de2b"),
    (1.0, "#fde725"),
]
RDBU_R: Stops = [
    (0.0, "#053061"),
    (0.1, "#2166ac"),
    (0.2, "#4393c3"),
    (0.3, "#92c5de"),
    (0.4, "#d1e5f0"),
    (0.5, "#f7f7f7"),
    (0.6, "#fddbc7"),
    (0.7, "#f4a582"),
    (0.8, "#d6604d"),
    (0.9, "#b2182b"),
    (1.0, "#67001f"),
]
# Okabe & Ito's eight colours (every colour-vision deficiency tells them apart), black left out.
OKABE_ITO = ("#0072b2", "#e69f00", "#009e73", "#cc79a7", "#56b4e9", "#d55e00", "#f0e442", "#999999")

SCALES: dict[str, dict[str, Stops]] = {
    "colorblind": {"weights": VIRIDIS, "signed": RDBU_R, "mask": [(0.0, "#444444"), (1.0, "#f4f4f4")]},
    "contrast": {
        "weights": [(0.0, "#e6e6e6"), (1.0, "#000000")],
        "signed": [(0.0, "#08306b"), (0.5, "#bdbdbd"), (1.0, "#7f2704")],
        "mask": [(0.0, "#000000"), (1.0, "#d4d4d4")],
    },
}
for _p in SCALES.values():
    _p["similarity"] = _p["signed"]

STATE_COLORS = {
    "colorblind": ("#e8e8e8", "#0072b2", "#e69f00", "#009e73", "#cc79a7", "#56b4e9", "#d55e00"),
    "contrast": (
        "#d4d4d4",
        "#000000",
        "#7f2704",
        "#08306b",
        "#737373",
        "#bdbdbd",
        "#525252",
    ),  # 0: not the page's white
}
GROUP_COLORS = {
    "colorblind": OKABE_ITO,
    "contrast": ("#000000", "#7f2704", "#08306b", "#737373", "#bdbdbd", "#525252", "#d94801", "#2171b5"),
}
# Blocked cells: a light fill hatched with dark lines (colorblind) or white hatched black (projector).
BLOCKED = {"colorblind": {"fill": "#d9d9d9", "hatch": "#6b6b6b"}, "contrast": {"fill": "#ffffff", "hatch": "#000000"}}
RECTS = {
    "colorblind": {"current": "#d62728", "done": "#5c6170", "skipped": "#9aa0aa", "group": "#0072b2"},
    "contrast": {"current": "#000000", "done": "#525252", "skipped": "#969696", "group": "#7f2704"},
}


def palette_name(name: object) -> str:
    """A known palette's name, else the default (an unknown URL value never reaches the browser)."""
    return name if isinstance(name, str) and name in PALETTES else DEFAULT_PALETTE


def scale(role: str, palette: str = DEFAULT_PALETTE) -> Stops:
    """The colour stops of a continuous role (weights, signed, mask, similarity) in a palette."""
    return SCALES[palette_name(palette)][role]


def colours(role: str, palette: str = DEFAULT_PALETTE, n_states: int = 0) -> dict:
    """Everything the renderer paints with for a heatmap of `role` in `palette`."""
    p = palette_name(palette)
    out: dict = {"blocked": BLOCKED[p], "groups": list(GROUP_COLORS[p]), "rects": RECTS[p]}
    if role == "state":
        base = STATE_COLORS[p]
        out["states"] = [base[i % len(base)] for i in range(max(n_states, 1))]
    else:
        out["scale"] = [[t, c] for t, c in scale(role, p)]
    return out


__all__ = ["DEFAULT_PALETTE", "PALETTES", "SCALES", "colours", "palette_name", "scale"]
