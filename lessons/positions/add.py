"""Section 2, "Add positions": the same sentence's per-head weights with no, sinusoidal, learned and RoPE
positions, on the shared random model or the real one."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np
import torch

from core import positions as P
from core.limits import ROPE_D_K_MAX
from core.pretrained import EXAMPLES, SPECIAL_TOKENS, Pretrained
from lessons import scenario
from lessons.heatmap import Heatmap, Text, text
from lessons.positions.common import KINDS, MODELS, REAL_WIDTH, Table, _heatmap, _labels, _np, _scenario, gap_text
from lessons.settings import Settings


# ================================================================ 2. Add positions
@dataclass(frozen=True)
class KindResult:
    """One kind of positions on the section's sentence."""

    kind: str
    available: bool
    reason: str  # "" or why not: "learned_width" (384-wide table, d_model wide X), "rope_odd_d_k",
    # "rope_d_k_max" (d_k above core.limits.ROPE_D_K_MAX: d_model 512 with one head)
    weights: np.ndarray | None  # (h, T, T)
    shuffle_gap: float | None  # max |weights - un-shuffled weights of the shuffled sentence|: 0 only without positions
    twin_gap: float | None  # real model: max |row of the first copy - row of the second| of a repeated word
    change: float | None  # max |weights - weights without positions|: how much the positions moved them
    trained: bool = False  # the model was trained with this kind (only "learned" on the real model)
    added_norm: float | None = None  # mean length of the rows added to the tokens (0: none, RoPE add nothing)


@dataclass(frozen=True)
class AddView:
    """The same sentence under every kind of positions, side by side for one head (and all heads per kind).

    model "random": the shared scenario (d_model, h, T, seed, the shared mask), its tokens; "learned" is not
    available (reason "learned_width": table_width 384 vs d_model) and the page points to model "real".
    model "real": all-MiniLM-L6-v2's layer 0 (12 heads, d_k 32) on EXAMPLES[example]: all four kinds.
    """

    model: str
    head: int
    num_heads: int
    d_model: int
    d_k: int
    table_width: int  # the learned table's width (384)
    base: float
    tokens: tuple[str, ...]
    kinds: tuple[KindResult, ...]  # in KINDS order
    side_by_side: Heatmap  # (available kinds, T, T) of `head`, panels = their kind keys, one colour range 0..1
    perm: np.ndarray  # the shuffle used for shuffle_gap (pos_shuffle's seed)
    twin: tuple[int, int] | None  # real model: the two positions of a repeated word, else None
    scenario_gap: float | None  # random model: max |kind none - the scenario's own weights| (the other pages' numbers)
    token_norm: float  # mean length of the tokens' vectors before positions (compare with each kind's added_norm:
    # on the real model the sinusoid rows are ~11x longer than its token vectors and ~25x its learned rows,
    # so after the LayerNorm they drown the words -- one reason a model needs the positions it was trained with)
    notes: tuple[str, ...]


def _unshuffle(w: torch.Tensor, inv: torch.Tensor) -> torch.Tensor:
    return w[..., inv, :][..., :, inv]


def _mean_norm(rows: torch.Tensor) -> float:
    return float(rows.norm(dim=-1).mean())


def _each_kind(
    weights_of: Callable[[str, torch.Tensor | None], torch.Tensor],
    perm: torch.Tensor,
    unavailable: Mapping[str, str],
    added_of: Mapping[str, float],
    twin: tuple[int, int] | None,
    trained: str | None,
) -> tuple[list[KindResult], torch.Tensor]:
    """Every kind of KINDS on one model, before and after the shuffle `perm`: written once for both models.

    `weights_of(kind, order)` is the model's (h, T, T) weights with that kind of positions, on the words in their
    order (None) or in `order` (the shuffled words; the positions, and the mask, stay in their slots). Returns the
    results in KINDS order and the weights without positions (KINDS starts with "none", always available)."""
    inv = P.inverse_permutation(perm)
    results: list[KindResult] = []
    none: torch.Tensor | None = None
    for kind in KINDS:
        if kind in unavailable:
            results.append(KindResult(kind, False, unavailable[kind], None, None, None, None))
            continue
        w = weights_of(kind, None)  # (h, T, T)
        w_s = weights_of(kind, perm)
        if kind == "none":
            none = w
        assert none is not None  # KINDS starts with "none"
        results.append(
            KindResult(
                kind,
                True,
                "",
                _np(w),
                float((_unshuffle(w_s, inv) - w).abs().max()),
                None if twin is None else float((w[:, twin[0]] - w[:, twin[1]]).abs().max()),
                float((w - none).abs().max()),
                trained=kind == trained,
                added_norm=added_of[kind],
            )
        )
    assert none is not None
    return results, none


def twin_positions(tokens: list[str]) -> tuple[int, int] | None:
    """The first word (not [CLS]/[SEP]) that occurs twice: its two positions."""
    seen: dict[str, int] = {}
    for i, tok in enumerate(tokens):
        if tok in SPECIAL_TOKENS:
            continue
        if tok in seen:
            return seen[tok], i
        seen[tok] = i
    return None


def add_view(
    settings: Settings,
    model: str,
    head: int,
    base: float,
    shuffle_seed: int,
    real: Pretrained | None = None,
    example: int = 0,
    run: scenario.Scenario | None = None,
) -> AddView:
    """Section 2. Per-head weights of one sentence with no / sinusoidal / learned / RoPE positions.

    Why also the shuffle gap per kind: it is the number that says "now order matters" (0 only for none).
    `real` (the loaded real model) is needed only for model "real" (and for the table width).
    """
    if model not in MODELS:
        raise ValueError(f"model must be one of {MODELS}, got {model!r}")
    width = int(P.learned_table(real).shape[1]) if real is not None else REAL_WIDTH
    notes: list[str] = []
    unavailable: dict[str, str] = {}  # kind -> why it cannot run on this model
    weights_of: Callable[[str, torch.Tensor | None], torch.Tensor]  # (kind, word order or None) -> (h, T, T)
    if model == "random":
        run = _scenario(settings, run)
        h, d_k, d_model, T = settings.num_heads, settings.d_k, settings.d_model, settings.seq_len
        tokens = list(run.tokens)
        scene = run

        def weights_of(kind: str, order: torch.Tensor | None) -> torch.Tensor:
            x = scene.x if order is None else scene.x[:, order]
            return P.positioned_weights(scene.model, x, kind, base=base, mask=scene.mask)[0]

        unavailable["learned"] = "learned_width"
        if d_k % 2:
            unavailable["rope"] = "rope_odd_d_k"
            notes.append("rope_odd_d_k")
        elif d_k > ROPE_D_K_MAX:  # d_model 512 with one head: past core's RoPE limit
            unavailable["rope"] = "rope_d_k_max"
        twin = None
        token_norm = _mean_norm(run.x[0])
        added_learned = 0.0  # unused: learned does not fit this model
        trained = None
    else:
        if real is None:
            raise ValueError("model 'real' needs the loaded real model")
        check = min(max(int(example), 0), len(EXAMPLES) - 1)
        encoded = real.encode(EXAMPLES[check][0])  # 14 to 16 tokens: within the shuffle's SEQ_LEN_MAX (tested)
        tokens = list(encoded.tokens)
        ids = torch.tensor(encoded.ids)
        T, h, d_model = len(tokens), real.cfg.num_heads, real.cfg.d_model
        d_k = d_model // h
        model_ = real

        def weights_of(kind: str, order: torch.Tensor | None) -> torch.Tensor:
            return P.real_first_layer_weights(model_, ids if order is None else ids[order], kind, base=base)

        twin = twin_positions(tokens)
        emb = real.encoder.embeddings
        with torch.no_grad():
            token_norm = _mean_norm(emb.word(ids) + emb.token_type(torch.zeros_like(ids)))  # as the model adds them
        added_learned = _mean_norm(P.learned_table(real)[:T])
        trained = "learned"
    head = min(max(int(head), 0), h - 1)
    perm = P.random_permutation(T, shuffle_seed)
    added_of = {
        "none": 0.0,
        "rope": 0.0,
        "learned": added_learned,
        "sinusoidal": _mean_norm(P.sinusoidal_table(T, d_model)),
    }
    results, none = _each_kind(weights_of, perm, unavailable, added_of, twin, trained)
    scenario_gap = None
    if model == "random":
        assert run is not None
        scenario_gap = float((none - run.trace.weights[0]).abs().max())
        if settings.mask != "none":
            notes.append("shuffle_gap_with_mask")  # a mask is positional too: the none gap is not 0 then
    labels = _labels(tokens)
    shown = [r for r in results if r.available]
    side = np.stack([r.weights[head] for r in shown if r.weights is not None])
    side.setflags(write=False)
    return AddView(
        model=model,
        head=head,
        num_heads=h,
        d_model=d_model,
        d_k=d_k,
        table_width=width,
        base=float(base),
        tokens=labels,
        kinds=tuple(results),
        side_by_side=_heatmap(
            f"weights-{model}-head{head}",
            [(side[i], labels, labels, f"pos.kind.{r.kind}") for i, r in enumerate(shown)],
            "weights",
            0.0,
            1.0,
            "query",
            "key",
        ),
        perm=_np(perm),
        twin=twin,
        scenario_gap=scenario_gap,
        token_norm=token_norm,
        notes=tuple(dict.fromkeys(notes)),
    )


def add_numbers(v: AddView) -> dict[str, dict[str, object]]:
    """The numbers of the section's captions and notices, by message, as the page prints them."""
    return {
        "model": {"h": v.num_heads, "d": v.d_model, "dk": v.d_k, "T": len(v.tokens)},  # pos.add.model.<model>
        "reason": {"width": v.table_width, "d": v.d_model, "dk": v.d_k, "max": ROPE_D_K_MAX},  # pos.reason.<reason>
        "heatmap": {"h": v.head},
        "table": {"token": f"{v.token_norm:.3f}"},
    }


def add_table(v: AddView) -> Table:
    """The section's table, one row per kind that runs on the model: its name (★ the kind the model was trained
    with), the shuffle gap, the change from no positions, the mean length added and, on the real model, the gap
    between the two copies of its repeated word."""
    rows = [k for k in v.kinds if k.available]
    gaps: dict[str, list[str]] = {"shuffle": [], "change": [], "added": [], "twin": []}
    for k in rows:
        assert k.shuffle_gap is not None and k.change is not None and k.added_norm is not None, k.kind
        gaps["shuffle"].append(gap_text(k.shuffle_gap))
        gaps["change"].append(gap_text(k.change))
        gaps["added"].append(f"{k.added_norm:.3f}")
        gaps["twin"].append(gap_text(k.twin_gap) if k.twin_gap is not None else "")
    kinds = tuple(
        text("pos.add.kind.trained", kind=text(f"pos.kind.{k.kind}")) if k.trained else text(f"pos.kind.{k.kind}")
        for k in rows
    )
    columns: list[tuple[Text, tuple[Text | str, ...]]] = [
        (text("pos.add.col.kind"), kinds),
        (text("pos.add.col.shuffle"), tuple(gaps["shuffle"])),
        (text("pos.add.col.change"), tuple(gaps["change"])),
        (text("pos.add.col.added"), tuple(gaps["added"])),
    ]
    if v.twin is not None:
        a, b = v.tokens[v.twin[0]], v.tokens[v.twin[1]]
        columns.append((text("pos.add.col.twin", a=a, b=b), tuple(gaps["twin"])))
    return Table(tuple(columns))
