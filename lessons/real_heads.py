"""The "Real heads" lesson as plain data: what the page shows about all-MiniLM-L6-v2's heads for one sentence.

core/pretrained.py loads the model and runs it (plain loading and forward); this module decides what the page
shows from that run, with no Streamlit, no plotly and no string of one language:

- `read`: everything derived from one sentence before any click (weights of every layer, the head that
  follows each simple pattern best, the share of weight on [CLS]/[SEP], the check against PyTorch, a token
  pair worth linking), computed once per sentence;
- `hide_special`, `special_share`, `pattern_scores`, `best_heads`, `patterns_found`, `link_scores`: the
  heads' summaries and the thresholds the page offers them by (PATTERN_MIN);
- `ablate`, `ablation_baseline`: switching heads off and what the same number of other heads does;
- `param_count`, `attention_param_share`: the model's size;
- `grid_heatmap`, `head_heatmap`: one layer's heads as lessons.heatmap.Heatmap (one panel per head, titles
  "head i", hover the tokens), drawn by ui.heatmaps.show_heatmap;
- `URL_KEYS` (`HEAD_KEYS` settled every run, `LINK_KEYS` once the sentence is read: ui/url_state.settle) and the
  page's small views (its token chips are drawn by charts/diagrams.py): `token_labels`, `has_words`, `heads_off`,
  `mapping_rows`, `Baseline.context`.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch
import torch.nn.functional as F

from core.accounting import weight_count
from core.pretrained import (
    BERT_TO_OURS,
    CLS,
    EXAMPLES,
    MAX_TOKENS,
    SEP,
    SPECIAL_TOKENS,
    Batch,
    Encoded,
    EncoderRun,
    Pretrained,
    encoder_layers,
    reference_check,
)
from lessons.heatmap import Heatmap, Panel, readonly, text
from lessons.url import Env, UrlKey, names

# The page's URL keys, declared once (lessons/url.py parses them): name, type, allowed values, default.
VIEWS = ("grid", "head", "patterns", "link", "ablate", "core")  # the sections, as tabs
LAYERS = tuple(range(6))  # layers and heads count from 0, like the code (weights[layer, head])
HEADS = tuple(range(12))
DEFAULT_LAYER, DEFAULT_HEAD = 3, 1  # with the first example, this head links "it" to "animal"


def _link(i: int) -> Callable[[Env], int]:
    """The default of the link tab's query (0) or key (1) token: the sentence's own pair (`Reading.link`)."""
    return lambda env: env.get("link", (0, 0))[i]


def _last_token(env: Env) -> int:
    return int(env.get("n_tokens", MAX_TOKENS)) - 1


# real_text (free text, bounded by core.limits MAX_TEXT_CHARS / MAX_TEXT_TOKENS: ui/free_text refuses a longer one with
# a notice) and real_off (any set of HEADS, Streamlit's pills bound to the URL) are not kinds lessons/url parses.
# real_from / real_to, the link tab's token pair, depend on the sentence: settled in that tab with env
# {"n_tokens": its length, "link": Reading.link}; kept in the session (their widgets do not write the URL), read
# from a link that carries them, and a new sentence starts again from its own pair.
URL_KEYS: tuple[UrlKey, ...] = (
    UrlKey("real_tab", "choice", VIEWS[0], choices=VIEWS),  # the open section (ui/sections.lazy_tabs)
    UrlKey("real_layer", "choice", DEFAULT_LAYER, choices=LAYERS),
    UrlKey("real_head", "choice", DEFAULT_HEAD, choices=HEADS),
    UrlKey("real_hide", "bool", False),
    UrlKey("real_from", "int", _link(0), lo=0, hi=_last_token, note="a token of the sentence"),
    UrlKey("real_to", "int", _link(1), lo=0, hi=_last_token, note="a token of the sentence"),
)
URL_KEY_NAMES = names(URL_KEYS) + ("real_text", "real_off")
HEAD_KEYS = URL_KEYS[1:4]  # settled before the layer control, every run
LINK_KEYS = URL_KEYS[4:]  # settled in the link tab, once the sentence is read


def url_key(name: str) -> UrlKey:
    return next(k for k in URL_KEYS if k.name == name)


def find_token(tokens: Sequence[str], word: str, *, after: int = 0) -> int | None:
    """Position of the first token equal to `word` (lower-case) at or after `after`, or None."""
    for i in range(after, len(tokens)):
        if tokens[i] == word.lower():
            return i
    return None


PRONOUNS = ("it", "he", "she", "they", "him", "her", "them", "its", "his", "their")


def default_link(encoded: Encoded) -> tuple[int, int]:
    """A (query, key) token pair worth looking at: the example's own pair, else a pronoun and the
    first word, else the last word and the first word."""
    tokens = encoded.tokens
    words = [i for i, tok in enumerate(tokens) if tok not in SPECIAL_TOKENS]
    if not words:
        return 0, 0
    for sentence, q_word, k_word in EXAMPLES:
        if encoded.text.strip() == sentence:
            k = find_token(tokens, k_word)
            q = find_token(tokens, q_word, after=(k or 0) + 1)
            if q is not None and k is not None:
                return q, k
    for i in words:
        if tokens[i] in PRONOUNS and i != words[0]:
            return i, words[0]
    return words[-1], words[0]


@dataclass(frozen=True)
class Reading:
    """What the page shows about one sentence before any click: computed once per sentence and shared
    (a class on the teacher's link reads the same sentence; a slider step in the sidebar changes none of it)."""

    encoded: Encoded
    batch: Batch  # the sentence alone (B = 1)
    run: EncoderRun
    weights: torch.Tensor  # (num_layers, h, T, T): every layer's attention weights for this sentence
    best: dict  # pattern -> (layer, head, score) of the head that follows it most (layer and head from 0)
    special_share: tuple  # per layer: mean weight the word queries put on [CLS]/[SEP]
    check: dict  # reference_check(): largest |ours - nn.MultiheadAttention| for weights and outputs
    link: tuple  # default_link(): a (query, key) token pair worth looking at


def read(model: Pretrained, encoded: Encoded) -> Reading:
    """Run one encoded sentence and everything the page derives from it without a click."""
    batch = model.batch([encoded])
    run = model.run(batch)
    weights = run.weights[:, 0]  # (layers, h, T, T) for this one sentence
    scores = pattern_scores(weights, encoded.tokens)
    return Reading(
        encoded=encoded,
        batch=batch,
        run=run,
        weights=weights,
        best={name: best_heads(scores[name], 1)[0] for name in PATTERNS},
        special_share=tuple(float(special_share(w, encoded.tokens).mean()) for w in weights),
        check=reference_check(model, run),
        link=default_link(encoded),
    )


def hide_special(weights: torch.Tensor, tokens: Sequence[str]) -> torch.Tensor:
    """The weights with every [CLS]/[SEP]/[PAD] row and column set to NaN (drawn blank).

    Nothing is renormalised: the word-to-word numbers stay the real weights, and a colour
    scale computed over what is left (NaN is skipped) stretches to show their pattern.
    """
    special = torch.tensor([tok in SPECIAL_TOKENS for tok in tokens[: weights.shape[-1]]])
    blank = special[:, None] | special[None, :]  # (T, T)
    return weights.masked_fill(blank, float("nan"))


def special_share(weights: torch.Tensor, tokens: Sequence[str]) -> torch.Tensor:
    """(..., ) mean over the word queries of the weight that lands on [CLS] or [SEP]."""
    special = torch.tensor([tok in (CLS, SEP) for tok in tokens])
    words = ~special
    per_query = weights[..., special].sum(-1)  # (..., T)
    return per_query[..., words].mean(-1) if words.any() else per_query.mean(-1)


PATTERNS = ("previous", "next", "self", "cls", "sep")
# A head "follows" a pattern when its word queries put at least half their weight there on average:
# more than all the other positions together. Below it (e.g. 0.15 on itself) the best head is only the
# least unlike the pattern, and the page does not offer it as one.
PATTERN_MIN = 0.5


def patterns_found(best: dict) -> tuple[list[str], list[str]]:
    """(patterns some head follows at PATTERN_MIN or more, patterns no head does), each in PATTERNS order."""
    found = [p for p in PATTERNS if best[p][2] >= PATTERN_MIN]
    return found, [p for p in PATTERNS if p not in found]


def pattern_scores(weights: torch.Tensor, tokens: Sequence[str]) -> dict[str, torch.Tensor]:
    """How strongly each head follows a simple pattern, averaged over the word queries.

    weights (L, h, T, T) for one sentence -> {pattern: (L, h)} with values in 0..1:
    previous / next = weight on the word just before / after, self = on itself,
    cls / sep = on [CLS] / [SEP].
    """
    T = weights.shape[-1]
    words = [i for i, tok in enumerate(tokens[:T]) if tok not in SPECIAL_TOKENS]
    out = {p: torch.zeros(weights.shape[:2]) for p in PATTERNS}
    if not words:
        return out
    q = torch.tensor(words)
    out["previous"] = weights[..., q, q - 1].mean(-1)  # the word before the first word is [CLS]
    out["next"] = weights[..., q, q + 1].mean(-1)  # the word after the last word is [SEP]
    out["self"] = weights[..., q, q].mean(-1)
    out["cls"] = weights[..., q, 0].mean(-1)
    sep = [i for i, tok in enumerate(tokens[:T]) if tok == SEP]
    if sep:
        out["sep"] = weights[..., q, sep[-1]].mean(-1)
    return out


def best_heads(scores: torch.Tensor, k: int = 1) -> list[tuple[int, int, float]]:
    """The k (layer, head, score) with the highest score in an (L, h) table; layer and head from 0."""
    flat = scores.flatten()
    top = torch.topk(flat, min(k, flat.numel()))
    h = scores.shape[1]
    return [(int(i) // h, int(i) % h, float(v)) for v, i in zip(top.values, top.indices)]


def link_scores(weights: torch.Tensor, query: int, key: int) -> torch.Tensor:
    """(L, h): how much each head makes token `query` attend to token `key`."""
    return weights[..., query, key]


def cosine(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Cosine similarity along the last axis."""
    return F.cosine_similarity(a, b, dim=-1)


@dataclass(frozen=True)
class Ablation:
    heads: list[int]  # switched off, from 0
    layer: int  # from 0
    embedding_cosine: float  # sentence embedding, ablated vs full
    layer_change: float  # ||layer output ablated - full|| / ||full||, over the real tokens
    token_cosine: list[float]  # per real token: this layer's output, ablated vs full
    final_token_cosine: list[float]  # per real token: the last layer's output, ablated vs full

    @property
    def token_change(self) -> list[float]:
        """Per real token, 1 - cosine similarity of this layer's output (0 = unchanged)."""
        return [1.0 - c for c in self.token_cosine]

    @property
    def final_token_change(self) -> list[float]:
        return [1.0 - c for c in self.final_token_cosine]


def ablate(model: Pretrained, batch: Batch, full: EncoderRun, layer: int, heads: Sequence[int]) -> Ablation:
    """Switch off `heads` in `layer` (both from 0) for the first sentence of `batch` and measure the change."""
    heads = sorted({int(h) for h in heads if 0 <= int(h) < model.cfg.num_heads})
    cut = model.run(batch, {layer: heads})
    n = int(batch.lengths[0])
    a, b = cut.hidden[layer + 1][0, :n], full.hidden[layer + 1][0, :n]
    change = float((a - b).norm() / b.norm().clamp(min=1e-12))
    return Ablation(
        heads=heads,
        layer=layer,
        embedding_cosine=float(cosine(cut.sentence_embedding()[0], full.sentence_embedding()[0])),
        layer_change=change,
        token_cosine=cosine(a, b).tolist(),
        final_token_cosine=cosine(cut.last_hidden[0, :n], full.last_hidden[0, :n]).tolist(),
    )


RANDOM_DRAWS = 12  # how many random choices of heads an ablation is compared with


@dataclass(frozen=True)
class Baseline:
    """What switching off the same number of heads of the same layer does when they are not chosen:
    every single head of the layer (one head off), else RANDOM_DRAWS random sets of that size."""

    k: int  # heads off in each draw
    draws: tuple  # the head sets tried, each sorted, from 0
    layer_change: tuple  # Ablation.layer_change of each draw
    embedding_cosine: tuple  # Ablation.embedding_cosine of each draw

    @property
    def mean_change(self) -> float:
        return sum(self.layer_change) / len(self.layer_change)

    def smaller_than(self, change: float) -> int:
        """How many draws changed the layer less than `change`."""
        return sum(1 for c in self.layer_change if c < change)

    def context(self, change: float) -> dict:
        """The numbers the page puts beside an ablation that changed the layer by `change`: heads off per draw
        (k), draws (n), their mean, smallest and largest change, how many changed it less, their mean cosine."""
        return {
            "k": self.k,
            "n": len(self.draws),
            "mean": self.mean_change,
            "lo": min(self.layer_change),
            "hi": max(self.layer_change),
            "change": change,
            "less": self.smaller_than(change),
            "cos": sum(self.embedding_cosine) / len(self.embedding_cosine),
        }


def ablation_baseline(model: Pretrained, batch: Batch, full: EncoderRun, layer: int, k: int) -> Baseline | None:
    """The ablations an ablation of k heads in `layer` is compared with (None when k is all the heads or
    none: there is no other choice). Random sets are drawn with a fixed seed per (layer, k): the same
    sentence and choice give the same comparison on every server."""
    h = model.cfg.num_heads
    if not 0 < k < h:
        return None
    if k == 1:
        draws: list[tuple[int, ...]] = [(i,) for i in range(h)]
    else:
        rng = random.Random(f"attention-lab-ablation:{layer}:{k}")
        draws = [tuple(sorted(rng.sample(range(h), k))) for _ in range(RANDOM_DRAWS)]
    results = [ablate(model, batch, full, layer, d) for d in draws]
    return Baseline(k, tuple(draws), tuple(r.layer_change for r in results), tuple(r.embedding_cosine for r in results))


def param_count(model: Pretrained) -> int:
    return weight_count(model.encoder)


def attention_param_share(model: Pretrained) -> float:
    """Share of the parameters that sit in the attention layers (W_q, W_k, W_v, W_o of every layer)."""
    att = sum(weight_count(layer.attention) for layer in encoder_layers(model))
    return att / param_count(model)


# ---------------------------------------------------------------- the page's small views


def token_labels(tokens: Sequence[str], sep: str = ":") -> list[str]:
    """Each token with its position in front ("3:animal"): the ablation chart's rows."""
    return [f"{i}{sep}{tok}" for i, tok in enumerate(tokens)]


def has_words(tokens: Sequence[str]) -> bool:
    """Is anything left when [CLS]/[SEP]/[PAD] are blanked? (An empty sentence is only the two markers.)"""
    return any(tok not in SPECIAL_TOKENS for tok in tokens)


def heads_off(chosen: Sequence[int]) -> tuple[int, ...]:
    """The heads picked to switch off, as sorted distinct ints (the pills give them as they were clicked)."""
    return tuple(sorted({int(h) for h in chosen}))


def mapping_rows() -> list[tuple[str, str]]:
    """BERT's parameter names beside ours (core.pretrained.BERT_TO_OURS): (BERT's weight and bias, ours)."""
    return [(f"{bert}.weight/.bias", ours) for bert, ours in BERT_TO_OURS.items()]


# ---------------------------------------------------------------- the heatmaps (plain descriptions)


def layer_weights(weights: torch.Tensor, layer: int, tokens: Sequence[str], *, blank: bool) -> torch.Tensor:
    """(h, T, T): the layer's weights as drawn (with [CLS]/[SEP] rows and columns blank when `blank`)."""
    w = weights[layer]
    return hide_special(w, tokens) if blank else w


def weights_range(values: torch.Tensor) -> tuple[float, float]:
    """min..max over the finite (not blanked) weights: one colour range for the grid and the enlarged head."""
    finite = values[torch.isfinite(values)]
    if finite.numel() == 0:
        return 0.0, 1.0
    lo, hi = float(finite.min()), float(finite.max())
    return (lo, hi) if lo < hi else (lo - 1.0, hi + 1.0)


def grid_heatmap(weights: torch.Tensor, layer: int, tokens: Sequence[str], *, blank: bool) -> Heatmap:
    """Every head of `layer`, one panel each titled "head i" (text "real.hm.head"), four to a row; the tokens
    label rows (queries) and columns (keys). Blanked cells are NaN (gaps, "no value" on hover)."""
    w = layer_weights(weights, layer, tokens, blank=blank)
    lo, hi = weights_range(w)
    labels = tuple(str(tok) for tok in tokens[: w.shape[-1]])
    panels = tuple(
        Panel(values=readonly(w[i]), title=text("real.hm.head", head=i), row_labels=labels, col_labels=labels)
        for i in range(w.shape[0])
    )
    return Heatmap(
        name=f"MiniLM-layer{layer}-heads",
        panels=panels,
        role="weights",
        vmin=lo,
        vmax=hi,
        row_axis=text("common.query"),
        col_axis=text("common.key"),
        panel_columns=4,
        title=text("real.hm.layer", layer=layer),
    )


def head_heatmap(weights: torch.Tensor, layer: int, head: int, tokens: Sequence[str], *, blank: bool) -> Heatmap:
    """One head enlarged, with the same colour range as its layer's grid."""
    w = layer_weights(weights, layer, tokens, blank=blank)
    lo, hi = weights_range(w)
    labels = tuple(str(tok) for tok in tokens[: w.shape[-1]])
    panel = Panel(
        values=readonly(w[head]),
        title=text("real.big.title", layer=layer, head=head),
        row_labels=labels,
        col_labels=labels,
    )
    return Heatmap(
        name=f"MiniLM-layer{layer}-head{head}",
        panels=(panel,),
        role="weights",
        vmin=lo,
        vmax=hi,
        row_axis=text("common.query"),
        col_axis=text("common.key"),
    )
