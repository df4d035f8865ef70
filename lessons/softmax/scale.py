"""Section "scale" (why ÷ sqrt(d_k)): the variance of q·k measured against d_k (`variance_curve`), and one row of the
run's raw scores through the softmax under ÷1, ÷sqrt(d_k) and ÷d_k, with entropy, largest weight and gradient size
(`scale_row`)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch

from core.masks import FILL_SEED
from core.softmax_numerics import SCALE_NAMES, divisor, dot_variance, entropy, gradient_size
from lessons.heatmap import Heatmap, Text, text
from lessons.scenario import Scenario
from lessons.settings import Settings
from lessons.softmax.common import _keep, _ro, get_run, heatmap, max_abs_diff
from lessons.tables import Column

VARIANCE_D_KS = tuple(2**i for i in range(10))  # 1 .. 512: every d_k the shared settings can make
# The draws' own seed: the curve is a property of random vectors, not of the shared X, so it is one measurement
# for every setting (computed once per d_k for the whole server) and its caption names this seed.
VARIANCE_SEED = 0
VARIANCE_DRAWS = 1000  # random (q, k) pairs per d_k: ~0.1 s; the relative error of a variance is ~ sqrt(8 / 1000)


SCALE_LABELS = ("÷1", "÷√d_k", "÷d_k")  # the scale heatmap's row labels, in SCALE_NAMES order (symbols, no words)


@dataclass(frozen=True)
class VarianceCurve:
    """Var(q·k) against d_k for random N(0, 1) q, k: a line chart with x = d_k (log scale reads best),
    the measured points, the line y = d_k, and the variance after ÷ sqrt(d_k) (~1 everywhere)."""

    d_ks: np.ndarray  # (n,) int  1, 2, 4, ..., 512
    variance: np.ndarray  # (n,)  measured Var(q·k)
    expected: np.ndarray  # (n,)  d_k: the line
    scaled_variance: np.ndarray  # (n,)  measured Var(q·k / sqrt(d_k))
    draws: int
    seed: int
    current_d_k: int  # the settings' d_k: the point the page marks
    current_index: int  # its index in d_ks


def variance_curve(settings: Settings) -> VarianceCurve:
    """Measured over VARIANCE_DRAWS random pairs per d_k, from VARIANCE_SEED (core dot_variance); the settings
    only pick the d_k the page marks."""
    rows = dot_variance(VARIANCE_D_KS, VARIANCE_DRAWS, VARIANCE_SEED)
    return VarianceCurve(
        d_ks=_ro(np.array(VARIANCE_D_KS)),
        variance=_ro(np.array([r.variance for r in rows])),
        expected=_ro(np.array([r.expected for r in rows])),
        scaled_variance=_ro(np.array([r.scaled_variance for r in rows])),
        draws=VARIANCE_DRAWS,
        seed=VARIANCE_SEED,
        current_d_k=settings.d_k,
        current_index=VARIANCE_D_KS.index(settings.d_k),
    )


@dataclass(frozen=True)
class ScaleVariantRow:
    name: str  # "1", "sqrt_d_k", "d_k" (SCALE_NAMES)
    divisor: float
    scaled: np.ndarray  # (T,)  raw q·k / divisor (blocked keys included, greyed by `kept`)
    weights: np.ndarray  # (T,)  softmax, blocked keys filled with -1e9 first (0 weight)
    entropy: float  # nats
    max_weight: float
    gradient: float  # Frobenius norm of the softmax Jacobian (core gradient_size)
    mean_entropy: float  # over every row and head of the run
    mean_max_weight: float
    mean_gradient: float


@dataclass(frozen=True)
class ScaleRow:
    """One row of the run's raw scores under ÷1, ÷sqrt(d_k), ÷d_k: bars with the key tokens on x."""

    head: int
    row: int
    d_k: int
    token: str  # the query's token
    key_tokens: tuple[str, ...]  # (T,)
    raw: np.ndarray  # (T,)  q·k of this row (trace.scores)
    kept: np.ndarray  # (T,) bool  keys the mask keeps
    row_blocked: bool  # the mask keeps no key: every variant is uniform (all cells -1e9), as in the model
    variants: tuple[ScaleVariantRow, ...]  # in SCALE_NAMES order
    max_entropy: float  # log(number of kept keys): a uniform row
    order_holds: bool  # entropy(÷1) <= entropy(÷sqrt d_k) <= entropy(÷d_k) (with 1e-6 slack)
    divisors_equal: bool  # d_k = 1: the three variants are the same
    model_diff: float  # max |÷sqrt(d_k) weights - the model's trace.weights row|: the page's check
    heatmap: Heatmap  # (3, T) the three weight rows, rows = the variants (row_axis "scale")


def jacobian_norm(weights: torch.Tensor) -> torch.Tensor:
    """(...,) the Frobenius norm of each row's softmax Jacobian diag(p) - p p^T without building it:
    ||J||^2 = sum_i (p_i (1 - p_i))^2 + sum_{i != j} p_i^2 p_j^2, the second sum as (sum p^2)^2 - sum p^4, in
    float64 (a near one-hot row cancels). Same number as core gradient_size (tested), but O(T) a row instead of
    O(T^2), so the run's mean over every head and row fits in a step."""
    p = weights.double()
    p2 = p * p  # (..., T_k)
    off = (p2.sum(dim=-1) ** 2 - (p2 * p2).sum(dim=-1)).clamp(min=0)  # (...,)
    return ((p * (1 - p)) ** 2).sum(dim=-1).add(off).sqrt().to(weights.dtype)


def _variant_weights(raw: torch.Tensor, keep: torch.Tensor, c: float) -> torch.Tensor:
    """raw / c, blocked cells filled with the seed's -1e9 (after scaling, as the model does), softmax."""
    return torch.softmax((raw / c).masked_fill(~keep, FILL_SEED), dim=-1)


def scale_row(
    settings: Settings, head: int, row: int, run: Scenario | None = None, custom_text: str | None = None
) -> ScaleRow:
    """The same row of q·k under the three divisors, with the saturation measures of each, for the run."""
    run = get_run(settings, run, custom_text)
    keep = _keep(run)  # (T, T)
    scores = run.trace.scores[0]  # (h, T, T)  raw q·k
    raw = scores[head, row]  # (T,)
    d_k = settings.d_k
    variants = []
    for name in SCALE_NAMES:
        c = divisor(name, d_k)
        w = _variant_weights(raw, keep[row], c)  # (T,)
        w_all = _variant_weights(scores, keep, c)  # (h, T, T)
        if name == "sqrt_d_k":
            model_diff = max_abs_diff(w, run.trace.weights[0, head, row])  # the model's own softmax row
        variants.append(
            ScaleVariantRow(
                name=name,
                divisor=c,
                scaled=_ro(raw / c),
                weights=_ro(w),
                entropy=float(entropy(w)) + 0.0,
                max_weight=float(w.max()),
                gradient=float(gradient_size(w)),
                mean_entropy=float(entropy(w_all).mean()) + 0.0,
                mean_max_weight=float(w_all.amax(dim=-1).mean()),
                mean_gradient=float(jacobian_norm(w_all).mean()),
            )
        )
    e = [v.entropy for v in variants]
    n_kept = int(keep[row].sum())
    hm = heatmap(
        "scale_row",
        np.stack([v.weights for v in variants]),
        "scale",
        "key",
        run.tokens,
        "weights",
        row_labels=SCALE_LABELS,
        blocked=np.broadcast_to(~keep[row].numpy(), (len(SCALE_NAMES), len(raw))),
        title=text("softmax.hm.scale_row", head=head, row=row, token=run.tokens[row]),
    )
    return ScaleRow(
        head=head,
        row=row,
        d_k=d_k,
        token=run.tokens[row],
        key_tokens=tuple(run.tokens),
        raw=_ro(raw),
        kept=_ro(keep[row]),
        row_blocked=n_kept == 0,
        variants=tuple(variants),
        max_entropy=math.log(n_kept if n_kept else settings.seq_len),
        order_holds=e[0] <= e[1] + 1e-6 and e[1] <= e[2] + 1e-6,
        divisors_equal=d_k == 1,
        model_diff=model_diff,
        heatmap=hm,
    )


# ================================================================ the run's own variances
NEAR_ONE = (0.75, 4 / 3)  # "÷sqrt(d_k) brings it back to about 1": the run's scaled variance within this range


@dataclass(frozen=True)
class RunVariance:
    """Variances measured on the run itself (the lesson model draws its weights N(0, 1/d_model), so q and k get
    unit-variance components when X has: core.attention.weight_std)."""

    d_k: int
    n_scores: int  # h·T·T raw scores q·k (blocked ones too: the mask comes after the scores)
    x: float  # variance of X's components (all T·d_model values)
    q: float  # of q's components
    k: float  # of k's components
    scores: tuple[float, float, float]  # Var(q·k / c) for c = 1, sqrt(d_k), d_k (SCALE_NAMES order)
    expected: tuple[float, float, float]  # d_k, 1, 1/d_k: what unit-variance q, k components give
    near_one: bool  # scores[1] within NEAR_ONE


def run_variance(settings: Settings, run: Scenario | None = None, custom_text: str | None = None) -> RunVariance:
    run = get_run(settings, run, custom_text)
    tr = run.trace
    d_k = settings.d_k
    raw = tr.scores.double()  # (1, h, T, T)
    scores = tuple(float((raw / divisor(name, d_k)).var()) for name in SCALE_NAMES)
    return RunVariance(
        d_k=d_k,
        n_scores=raw.numel(),
        x=float(run.x.double().var()),
        q=float(tr.q.double().var()),
        k=float(tr.k.double().var()),
        scores=scores,  # type: ignore[arg-type]
        expected=(float(d_k), 1.0, 1.0 / d_k),
        near_one=NEAR_ONE[0] <= scores[1] <= NEAR_ONE[1],
    )


def variance_table(rv: RunVariance) -> tuple[Column, ...]:
    """This run: the measured variance of X, q, k and of q·k under each divisor, beside what unit-variance
    components give (d_k, 1, 1/d_k)."""
    names = ("x", "q", "k")
    return (
        Column(
            text("softmax.scale.var.col.what"),
            (*(text(f"softmax.scale.var.{n}") for n in names), *(f"q·k {lab}" for lab in SCALE_LABELS)),
        ),
        Column(
            text("softmax.scale.var.col.measured"),
            tuple(f"{v:.4g}" for v in (rv.x, rv.q, rv.k, *rv.scores)),
        ),
        Column(
            text("softmax.scale.var.col.expected"),
            ("1", "1", "1", f"d_k = {rv.d_k}", "1", f"1/d_k = {rv.expected[2]:.4g}"),
        ),
    )


def variance_note(rv: RunVariance, draws: int) -> Text:
    """Whether ÷sqrt(d_k) brings this run's scores back to about 1 (NEAR_ONE), in the numbers of variance_table."""
    v1, v2, v3 = rv.scores
    if rv.d_k == 1:
        return text("softmax.scale.var_d_k_1", v=v1)
    if rv.near_one:
        return text("softmax.scale.var_back", v1=v1, v2=v2, v3=v3, d_k=rv.d_k)
    return text(
        "softmax.scale.var_off",
        v2=v2,
        lo=NEAR_ONE[0],
        hi=NEAR_ONE[1],
        n=rv.n_scores,
        q=rv.q,
        k=rv.k,
        draws=draws,
    )


# ================================================================ the hint: where ÷1 saturates
HINT_D_MODEL, HINT_HEADS = 512, 1  # the largest d_k the settings make (d_k = 512): the widest raw scores


@dataclass(frozen=True)
class BigHint:
    """The same T, mask, seed and text at d_model 512, h 1 (d_k 512): how close to one-hot its ÷1 rows get."""

    d_model: int
    num_heads: int
    d_k: int
    mean_max_1: float  # mean largest weight of the ÷1 rows (rows with a visible key)
    mean_max_sqrt: float  # of the ÷sqrt(d_k) rows (the model's own weights)
    saturated_rows: int  # ÷1 rows whose largest weight >= SATURATED
    rows: int  # rows with at least one visible key


def big_hint(settings: Settings, custom_text: str | None = None) -> BigHint:
    big = Settings(HINT_D_MODEL, HINT_HEADS, settings.seq_len, settings.mask, settings.seed, settings.lang)
    run = get_run(big, None, custom_text)
    keep = _keep(run)  # (T, T)
    live = keep.any(dim=-1)  # (T,) rows with a visible key
    d_k = big.d_k
    tops = {}
    for name in ("1", "sqrt_d_k"):
        w = _variant_weights(run.trace.scores[0], keep, divisor(name, d_k))  # (h, T, T)
        tops[name] = w.amax(dim=-1)[:, live]  # (h, rows)
    return BigHint(
        d_model=HINT_D_MODEL,
        num_heads=HINT_HEADS,
        d_k=d_k,
        mean_max_1=float(tops["1"].mean()),
        mean_max_sqrt=float(tops["sqrt_d_k"].mean()),
        saturated_rows=int((tops["1"] >= SATURATED).sum()),
        rows=int(tops["1"].numel()),
    )


def wants_hint(settings: Settings, sr: ScaleRow) -> bool:
    """The page computes big_hint only when scale_notes will word it: a ÷1 row that is not one-hot yet, at settings
    other than the hint's own."""
    return (
        not sr.row_blocked
        and not sr.divisors_equal
        and sr.variants[0].max_weight < SATURATED
        and (settings.d_model, settings.num_heads) != (HINT_D_MODEL, HINT_HEADS)
    )


# ================================================================ what the section prints
SATURATED = 0.9  # a row whose largest weight reaches this is "almost one-hot"


def variance_now(vc: VarianceCurve) -> Text:
    """The caption under the variance chart: the measured variances at the settings' d_k."""
    i = vc.current_index
    return text(
        "softmax.scale.variance_now",
        d_k=vc.current_d_k,
        var=float(vc.variance[i]),
        scaled=float(vc.scaled_variance[i]),
    )


def scale_table(sr: ScaleRow) -> tuple[Column, ...]:
    """The three divisors' numbers, one line each: divisor, entropy, largest weight, gradient size, and the means
    over every row and head of the run."""
    v = sr.variants
    return (
        Column(text("softmax.scale.col.divisor"), SCALE_LABELS),
        Column(text("softmax.scale.col.value"), tuple(f"{x.divisor:.4g}" for x in v)),
        Column(text("softmax.scale.col.entropy"), tuple(f"{x.entropy:.4f}" for x in v)),
        Column(text("softmax.scale.col.max"), tuple(f"{x.max_weight:.4f}" for x in v)),
        Column(text("softmax.scale.col.grad"), tuple(f"{x.gradient:.4f}" for x in v)),
        Column(text("softmax.scale.col.mean_entropy"), tuple(f"{x.mean_entropy:.4f}" for x in v)),
        Column(text("softmax.scale.col.mean_max"), tuple(f"{x.mean_max_weight:.4f}" for x in v)),
        Column(text("softmax.scale.col.mean_grad"), tuple(f"{x.mean_gradient:.4f}" for x in v)),
    )


def top_two_gap(sr: ScaleRow) -> float:
    """The two largest visible raw scores' difference (÷1): the second key keeps e^-gap of the top key's weight."""
    kept = np.sort(sr.raw[sr.kept].astype(np.float64))
    return float(kept[-1] - kept[-2]) if kept.size >= 2 else math.inf


def scale_notes(sr: ScaleRow, hint: BigHint | None = None) -> tuple[Text, ...]:
    """What the page says under the table, in order, each sentence chosen by the numbers shown: why the row looks
    as it does (the mask blocks it, d_k = 1, the entropies in order or not), whether the ÷1 row is almost one-hot
    (largest weight >= SATURATED) or why not (its top two scores' gap) and, with `hint` (big_hint, when wants_hint),
    what d_k = 512 does with the same T, mask and seed; which divisor has the largest gradient in this row and on
    average; then the check against the model's own weights."""
    e = {f"e{i + 1}": v.entropy for i, v in enumerate(sr.variants)}
    check = text("softmax.scale.check", diff=sr.model_diff)
    if sr.row_blocked:
        return (text("softmax.scale.blocked"), check)
    if sr.divisors_equal:
        return (text("softmax.scale.d_k_1"), check)
    out = [text("softmax.scale.order" if sr.order_holds else "softmax.scale.order_broken", **e)]
    one, sqrt = sr.variants[0], sr.variants[1]
    if one.max_weight >= SATURATED:
        out.append(text("softmax.scale.saturated", top=one.max_weight, top2=sqrt.max_weight, g=one.gradient))
    else:
        gap = top_two_gap(sr)
        out.append(text("softmax.scale.not_saturated", top=one.max_weight, gap=gap, ratio=math.exp(-gap)))
        if hint is not None:
            out.append(
                text(
                    "softmax.scale.try_big",
                    d_model=hint.d_model,
                    h=hint.num_heads,
                    d_k=hint.d_k,
                    m1=hint.mean_max_1,
                    m2=hint.mean_max_sqrt,
                    k=hint.saturated_rows,
                    n=hint.rows,
                )
            )
    grads = [v.gradient for v in sr.variants]
    means = [v.mean_gradient for v in sr.variants]
    i, j = int(np.argmax(grads)), int(np.argmax(means))
    n = int(sr.kept.sum())
    if n == 1:
        out.append(text("softmax.scale.grad_one_key"))
        return (*out, check)
    out.append(
        text(
            "softmax.scale.grad",
            row=SCALE_LABELS[i],
            g=grads[i],
            mean=SCALE_LABELS[j],
            gm=means[j],
            n=n,
            u=math.sqrt(n - 1) / n,
        )
    )
    out.append(check)
    return tuple(out)
