"""The "shapes" section: the whole layer as boxes, each with its live shape (`shape_flow`; drawn as HTML by
charts/diagrams.py's `shape_flow_html`), and the h shown before the latest change (`track_h`), so changed
boxes say what they were."""

from __future__ import annotations

from dataclasses import dataclass

from core.accounting import Shape, tensor_shapes

# (name, column centre, row, width in columns): X on top, Q/K/V side by side, the score
# steps under Q and K, V running down on the right until it meets the weights.
FLOW_LAYOUT = (
    ("x", 1.0, 0, 1.0),
    ("q", 0.0, 1, 0.94),
    ("k", 1.0, 1, 0.94),
    ("v", 2.0, 1, 0.94),
    ("q_heads", 0.0, 2, 0.94),
    ("k_heads", 1.0, 2, 0.94),
    ("v_heads", 2.0, 2, 0.94),
    ("scores", 0.5, 3, 1.94),
    ("scaled_scores", 0.5, 4, 1.94),
    ("masked_scores", 0.5, 5, 1.94),
    ("weights", 0.5, 6, 1.94),
    ("head_outputs", 1.0, 7, 2.94),
    ("concat", 1.0, 8, 2.94),
    ("output", 1.0, 9, 2.94),
)


def depends_on_h(shape: Shape) -> bool:
    """A shape changes with h exactly when it has a head axis or a per-head width."""
    return "h" in shape.axes or "d_k" in shape.axes


@dataclass(frozen=True)
class FlowBox:
    name: str  # "x" or an AttentionTrace field
    shape: Shape  # at the current h
    prev_shape: Shape | None  # at the previous h, when one was given and valid
    x: float  # centre column
    row: int
    width: float  # in columns

    @property
    def depends_on_h(self) -> bool:
        return depends_on_h(self.shape)

    @property
    def changed(self) -> bool:
        return self.prev_shape is not None and self.prev_shape.sizes != self.shape.sizes


def shape_flow(
    d_model: int, h: int, T_q: int, T_k: int | None = None, *, B: int = 1, prev_h: int | None = None
) -> list[FlowBox]:
    """Every box of the diagram with its live shape; `prev_h` (if it divides d_model) adds the old shapes."""
    T_k = T_q if T_k is None else T_k
    shapes = tensor_shapes(B, T_q, T_k, d_model, h)
    prev = None
    if (
        isinstance(prev_h, int)
        and not isinstance(prev_h, bool)
        and prev_h >= 1
        and d_model % prev_h == 0
        and prev_h != h
    ):
        prev = tensor_shapes(B, T_q, T_k, d_model, prev_h)
    return [
        FlowBox(name, shapes[name], prev[name] if prev else None, x, row, width) for name, x, row, width in FLOW_LAYOUT
    ]


def track_h(
    last: object, prev: object, d_model: int, T: int, h: int
) -> tuple[int | None, tuple[int, int, int], object]:
    """The h shown before the latest change of h (same d_model and T), for the shapes section to say what changed.

    `last` is the (d_model, T, h) seen on the previous run and `prev` the h before the latest change (both from
    the session, so possibly garbage). Returns (that h or None, the new `last`, the new `prev`)."""
    if not (isinstance(last, tuple) and len(last) == 3) or last[:2] != (d_model, T):
        prev = None
    elif last[2] != h:
        prev = last[2]
    ok = isinstance(prev, int) and not isinstance(prev, bool) and 0 < prev != h and d_model % prev == 0
    return (prev if ok and isinstance(prev, int) else None), (d_model, T, h), prev
