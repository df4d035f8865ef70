"""Why many heads (the lesson of pages/why-heads.py, plain data): a tiny task that needs two attention patterns at
once, a tiny model built
on our MultiHeadAttention, a deterministic training loop, and the measurements the page reports.

The task ("previous digit + marked digit")
------------------------------------------
A sequence of SEQ_LEN digits 0..VOCAB-1; exactly one position is *marked*. At every position
i >= 1 the model answers two digits: the digit at i-1 (the previous token, a relation by
position) and the marked digit (a relation by content: "the token that carries the mark").

The model
---------
One attention layer and a linear readout, nothing else (no FFN, no residual, no second layer):

    x_j      = E[token_j] + P[j] + (M if j is marked)       what a query/key sees
    value_j  = E[token_j]                                    what a token *is*
    out      = MultiHeadAttention(query=x, key=x, value=value)
    logits_i = readout(out_i) -> two groups of VOCAB logits (previous digit, marked digit)

Position and mark only steer *where* to look (queries and keys); the values carry the digit
alone. Every head count uses the same d_model and the same parameter count (W^Q, W^K, W^V, W^O
are d_model x d_model whatever h is), and the same seed gives the same initial weights for
every h, so the three models differ only in how the projections are split into heads.

Why one head cannot solve it: a head's output is a weighted average of value vectors (softmax
weights are >= 0 and sum to 1). One head that looks at both positions returns
w*v(a) + (1-w)*v(b): the two digits are mixed in one vector, and two linear readouts (one per
answer) cannot get both answers right for every pair: once the pairs with a = b are right, the
two readouts put contradictory conditions on the weight ratio w/(1-w) of the sequences (a, b)
and (b, a), whatever w is for each. So it either locks onto one position and guesses the other
digit, or splits its attention and confuses the two. Two heads put v(a) and v(b) into different
subspaces, side by side in the concatenation. If the values also carried position and mark
(values="full", benchmark only), a full-width single head can tag the two positions through
its weights and does learn the task for some seeds (FULL_VALUES_ACCURACY).

Everything is deterministic for a fixed seed: weights and batches come from explicit
torch.Generator objects, never from the global RNG (the app serves several sessions at once).
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F

from core.accounting import weight_count
from core.attention import AttentionTrace, MultiHeadAttention
from core.frozen import freeze
from core.limits import (
    MAX_TRAININGS_IN_FLIGHT,
    WHY_RESULTS_BYTES,
    WHY_SEED_MAX,
    WHY_SEED_MIN,
    WHY_STEP_CHOICES,
    check_range,
)
from core.sizes import nbytes
from core.threads import single_thread
from lessons import url
from lessons.heatmap import Heatmap, Panel, readonly, text
from lessons.url import UrlKey

VOCAB = 10  # digits 0..9
SEQ_LEN = 10
D_MODEL = 32
HEAD_COUNTS = (1, 2, 4)
BATCH_SIZE = 128
LEARNING_RATE = 1e-2
STEP_CHOICES = WHY_STEP_CHOICES  # core/limits.py: the longest training a click can start
DEFAULT_STEPS = 400
SEED_MIN, SEED_MAX = WHY_SEED_MIN, WHY_SEED_MAX
EVAL_SEED = 20_240_601  # one fixed test set for every run, so runs are compared on the same sequences
EVAL_SIZE = 1024
MATCH_THRESHOLD = 0.5  # a head "does" a relation when at least this much attention mass is on that position
LOSS_MARGIN = 0.25  # nats per answer: how much lower the multi-head loss must be to count as "clearly lower"
# Measured with benchmarks/bench_why_heads.py --full-values --heads 1 --seeds 0-2 --steps N (values = x,
# position and mark included): the single head's test accuracy (both answers right) for seeds 0, 1, 2.
FULL_VALUES_ACCURACY = {400: (0.93, 0.19, 0.87), 1600: (0.98, 0.19, 0.94)}
# Measured with benchmarks/bench_why_heads.py --heads 1 --seeds 0-4 --steps 3200 (the page's model):
# the single head's best test accuracy over those seeds.
SINGLE_HEAD_LONG_RUN = {"steps": 3200, "seeds": "0-4", "best_accuracy": 0.28}
# Measured with benchmarks/bench_why_heads.py --seeds 0-19 --steps 400 (the page's default): how many of
# the 40 multi-head runs (h = 2 and 4) showed the effect cleanly, and the single head's best accuracy.
SURVEY = {"steps": 400, "seeds": "0-19", "runs": 40, "clean": 39, "single_best_accuracy": 0.35}
SOLVED_ACCURACY = 0.5  # a single head above this "solved the task (or most of it)": reported, never hidden
CLEAN_ACCURACY = 0.95  # a multi-head run below this shows the effect only partly (heads not fully separated)
TASK_VERSION = 1  # part of every cache key: bump when the task, the model or the training changes

# The example drawn in the heatmaps: the first ten digits of pi, with the 9 at position 5 marked.
EXAMPLE_TOKENS = (3, 1, 4, 1, 5, 9, 2, 6, 5, 3)
EXAMPLE_MARKER = 5

RELATIONS = ("previous", "marker")
# "token": values carry the digit only (the page's model). "full": values are x itself, position and
# mark included -- only for the benchmark that measures how a single head fares then.
VALUE_KINDS = ("token", "full")


# ---------------------------------------------------------------- the task
@dataclass(frozen=True)
class Batch:
    tokens: torch.Tensor  # (B, T) digits
    marker: torch.Tensor  # (B,) the marked position
    targets: torch.Tensor  # (B, T-1, 2): for positions 1..T-1, (previous digit, marked digit)


def make_targets(tokens: torch.Tensor, marker: torch.Tensor) -> torch.Tensor:
    """(previous digit, marked digit) for every position 1..T-1: shape (B, T-1, 2)."""
    previous = tokens[:, :-1]  # (B, T-1): the token before positions 1..T-1
    marked = tokens.gather(1, marker[:, None]).expand_as(previous)  # (B, T-1)
    return torch.stack([previous, marked], dim=-1)


def make_batch(batch_size: int, generator: torch.Generator, *, vocab: int = VOCAB, seq_len: int = SEQ_LEN) -> Batch:
    tokens = torch.randint(0, vocab, (batch_size, seq_len), generator=generator)
    marker = torch.randint(0, seq_len, (batch_size,), generator=generator)
    return Batch(tokens, marker, make_targets(tokens, marker))


def example_batch() -> Batch:
    tokens = torch.tensor([EXAMPLE_TOKENS])
    marker = torch.tensor([EXAMPLE_MARKER])
    return Batch(tokens, marker, make_targets(tokens, marker))


def eval_batch() -> Batch:
    return make_batch(EVAL_SIZE, torch.Generator().manual_seed(EVAL_SEED))


# ---------------------------------------------------------------- the model
class WhyHeadsModel(nn.Module):
    """Token/position/mark embeddings -> one MultiHeadAttention -> linear readout."""

    def __init__(
        self,
        num_heads: int,
        *,
        d_model: int = D_MODEL,
        vocab: int = VOCAB,
        seq_len: int = SEQ_LEN,
        values: str = "token",
    ) -> None:
        super().__init__()
        if values not in VALUE_KINDS:
            raise ValueError(f"values must be one of {VALUE_KINDS}, got {values!r}")
        self.vocab, self.seq_len, self.num_heads, self.values = vocab, seq_len, num_heads, values
        self.token_embedding = nn.Embedding(vocab, d_model)
        self.position_embedding = nn.Embedding(seq_len, d_model)
        self.marker_embedding = nn.Parameter(torch.zeros(d_model))
        self.attention = MultiHeadAttention(d_model, num_heads)
        self.readout = nn.Linear(d_model, 2 * vocab)  # previous digit, marked digit

    def inputs(self, tokens: torch.Tensor, marker: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """x for queries and keys (what, where, marked?) and the values (what only, unless values='full')."""
        B, T = tokens.shape
        what = self.token_embedding(tokens)  # (B, T, d_model)
        is_marked = (torch.arange(T)[None, :] == marker[:, None]).to(what.dtype)  # (B, T)
        x = what + self.position_embedding.weight[:T][None] + is_marked[..., None] * self.marker_embedding
        return x, (what if self.values == "token" else x)

    def _logits(self, out: torch.Tensor) -> torch.Tensor:
        return self.readout(out[:, 1:]).unflatten(-1, (2, self.vocab))  # (B, T-1, 2, V)

    def forward(self, tokens: torch.Tensor, marker: torch.Tensor) -> torch.Tensor:
        x, values = self.inputs(tokens, marker)
        return self._logits(self.attention(x, x, values))

    def forward_with_trace(self, tokens: torch.Tensor, marker: torch.Tensor) -> tuple[torch.Tensor, AttentionTrace]:
        x, values = self.inputs(tokens, marker)
        out, trace = self.attention.forward_with_trace(x, x, values)
        return self._logits(out), trace


def build_why_model(num_heads: int, seed: int, *, values: str = "token") -> WhyHeadsModel:
    """The initial model: its weights depend only on the seed, never on num_heads."""
    model = WhyHeadsModel(num_heads, values=values)
    gen = torch.Generator().manual_seed(int(seed))
    with torch.no_grad():
        for name, p in model.named_parameters():  # same names, shapes and order for every h
            if name.endswith("bias"):
                p.zero_()
            elif "embedding" in name:
                nn.init.normal_(p, 0.0, 1.0, generator=gen)
            else:  # (out, in) weights: nn.Linear's default range
                bound = 1.0 / math.sqrt(p.shape[1])
                nn.init.uniform_(p, -bound, bound, generator=gen)
    return model


def parameter_count(model: nn.Module) -> int:
    return weight_count(model)  # from the layer shapes, frozen or not


def task_loss(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """Mean cross-entropy per answer (nats); a model that guesses scores ln(VOCAB)."""
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))


# ---------------------------------------------------------------- measuring the heads
def pattern_masses(weights: torch.Tensor, marker: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Per head: mean attention mass on the previous position and on the marked position.

    weights (B, h, T, T); marker (B,). Averaged over every query i >= 1 whose previous token
    is not the marked one (there the two relations point at the same key and cannot be told apart).
    Returns two (h,) tensors.
    """
    B, h, T, _ = weights.shape
    i = torch.arange(1, T)
    on_previous = weights[:, :, i, i - 1]  # (B, h, T-1)
    on_marker = weights[torch.arange(B), :, :, marker][:, :, 1:]  # (B, h, T-1)  (advanced index moves h first)
    apart = (marker[:, None] != i[None, :] - 1).to(weights.dtype)  # (B, T-1)
    count = apart.sum().clamp(min=1)
    prev = (on_previous * apart[:, None]).sum(dim=(0, 2)) / count
    mark = (on_marker * apart[:, None]).sum(dim=(0, 2)) / count
    return prev, mark


def head_roles(
    prev_mass: Sequence[float] | torch.Tensor,
    marker_mass: Sequence[float] | torch.Tensor,
    threshold: float = MATCH_THRESHOLD,
) -> list[str | None]:
    """For each head, the relation it matches ('previous', 'marker') or None."""
    roles: list[str | None] = []
    for p, m in zip(list(map(float, prev_mass)), list(map(float, marker_mass))):
        best, mass = ("previous", p) if p >= m else ("marker", m)
        roles.append(best if mass >= threshold else None)
    return roles


@dataclass(frozen=True)
class RunResult:
    num_heads: int
    seed: int
    steps: int  # planned steps
    losses: tuple[float, ...]  # training loss after every step that was run
    eval_loss: float  # mean cross-entropy per answer on the fixed test set
    accuracy: float  # both answers right
    previous_accuracy: float
    marker_accuracy: float
    previous_mass: tuple[float, ...]  # per head
    marker_mass: tuple[float, ...]  # per head
    example_weights: torch.Tensor  # (h, T, T) on the example sequence
    parameters: int
    seconds: float

    @property
    def complete(self) -> bool:
        return len(self.losses) >= self.steps

    @property
    def roles(self) -> list[str | None]:
        return head_roles(self.previous_mass, self.marker_mass)

    def heads_for(self, relation: str) -> list[int]:
        return [i for i, r in enumerate(self.roles) if r == relation]


@torch.no_grad()
def evaluate(
    model: WhyHeadsModel, *, num_heads: int, seed: int, steps: int, losses: Sequence[float], seconds: float
) -> RunResult:
    model.eval()
    data = eval_batch()
    logits, trace = model.forward_with_trace(data.tokens, data.marker)
    right = logits.argmax(-1) == data.targets  # (B, T-1, 2)
    prev, mark = pattern_masses(trace.weights, data.marker)
    example = example_batch()
    _, example_trace = model.forward_with_trace(example.tokens, example.marker)
    return RunResult(
        num_heads=num_heads,
        seed=seed,
        steps=steps,
        losses=tuple(losses),
        eval_loss=float(task_loss(logits, data.targets)),
        accuracy=float(right.all(-1).float().mean()),
        previous_accuracy=float(right[..., 0].float().mean()),
        marker_accuracy=float(right[..., 1].float().mean()),
        previous_mass=tuple(map(float, prev)),
        marker_mass=tuple(map(float, mark)),
        example_weights=example_trace.weights[0].clone(),
        parameters=parameter_count(model),
        seconds=seconds,
    )


# ---------------------------------------------------------------- training
class Trainer:
    """Adam on fresh random batches; `advance(n)` runs n more steps, so a page can draw in between.

    Weights and batches come from their own generators seeded by `seed` (data: a separate
    stream), so the same (num_heads, seed) always gives bit-identical losses.
    """

    def __init__(
        self, num_heads: int, seed: int, steps: int, *, values: str = "token", max_steps: int = STEP_CHOICES[-1]
    ) -> None:
        self.num_heads, self.seed, self.steps = int(num_heads), int(seed), int(steps)
        # Bounded work: at most the longest training the page offers (a benchmark may raise max_steps).
        check_range("steps", self.steps, 1, max_steps)
        check_range("seed", self.seed, SEED_MIN, SEED_MAX)
        self.model = build_why_model(self.num_heads, self.seed, values=values)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=LEARNING_RATE)
        self.data = torch.Generator().manual_seed(self.seed + 1_000_003)
        self.losses: list[float] = []
        self.seconds = 0.0
        self.gate = threading.Lock()  # held by the one session advancing it (ResultStore.run_shared)

    @property
    def step(self) -> int:
        return len(self.losses)

    @property
    def done(self) -> bool:
        return self.step >= self.steps

    def advance(self, n: int) -> None:
        start = time.perf_counter()
        self.model.train()
        with single_thread():
            for _ in range(min(n, self.steps - self.step)):
                batch = make_batch(BATCH_SIZE, self.data)
                loss = task_loss(self.model(batch.tokens, batch.marker), batch.targets)
                self.optimizer.zero_grad(set_to_none=True)
                loss.backward()
                self.optimizer.step()
                self.losses.append(loss.item())
        self.seconds += time.perf_counter() - start

    @property
    def busy(self) -> bool:
        return self.gate.locked()

    def advance_shared(self, n: int, wait: float = 0.25) -> bool:
        """advance(n) unless another session is advancing this trainer: then wait up to `wait` seconds
        (the caller redraws the shared progress meanwhile). True when this call advanced it."""
        if not self.gate.acquire(timeout=wait):
            return False
        try:
            if not self.done:
                self.advance(n)
            return True
        finally:
            self.gate.release()

    def result(self) -> RunResult:
        with single_thread():
            return evaluate(
                self.model,
                num_heads=self.num_heads,
                seed=self.seed,
                steps=self.steps,
                losses=self.losses,
                seconds=self.seconds,
            )


def train(
    num_heads: int, seed: int, steps: int = DEFAULT_STEPS, *, values: str = "token", max_steps: int = STEP_CHOICES[-1]
) -> RunResult:
    trainer = Trainer(num_heads, seed, steps, values=values, max_steps=max_steps)
    trainer.advance(steps)
    return trainer.result()


# ---------------------------------------------------------------- the verdict
@dataclass(frozen=True)
class Comparison:
    """How one multi-head run compares with the single-head run of the same seed and steps."""

    num_heads: int
    loss_gap: float  # single-head eval loss minus this run's (nats per answer)
    previous_heads: tuple[int, ...]
    marker_heads: tuple[int, ...]
    accuracy: float  # this run's, both answers right

    @property
    def clearly_lower(self) -> bool:
        return self.loss_gap >= LOSS_MARGIN

    @property
    def both_relations(self) -> bool:
        return bool(self.previous_heads) and bool(self.marker_heads)

    @property
    def shows_effect(self) -> bool:
        return self.clearly_lower and self.both_relations

    @property
    def verdict(self) -> str:
        """'effect' (clean), 'partial' (effect, but the heads did not fully separate) or 'no_effect'."""
        if not self.shows_effect:
            return "no_effect"
        return "effect" if self.accuracy >= CLEAN_ACCURACY else "partial"


def compare(single: RunResult, multi: RunResult) -> Comparison:
    return Comparison(
        num_heads=multi.num_heads,
        loss_gap=single.eval_loss - multi.eval_loss,
        previous_heads=tuple(multi.heads_for("previous")),
        marker_heads=tuple(multi.heads_for("marker")),
        accuracy=multi.accuracy,
    )


def single_head_story(single: RunResult) -> str:
    """What the single head did: 'solved' (unexpected), 'marker' / 'previous' (locked onto one) or 'split'."""
    if single.accuracy >= SOLVED_ACCURACY:
        return "solved"
    role = single.roles[0]
    return role if role is not None else "split"


# ---------------------------------------------------------------- caching finished runs
CacheKey = tuple[int, int, int, int]  # (TASK_VERSION, num_heads, seed, steps)


def cache_key(num_heads: int, seed: int, steps: int) -> CacheKey:
    return (TASK_VERSION, int(num_heads), int(seed), int(steps))


class ResultStore:
    """Finished runs by cache_key, shared by every session of the server; the oldest go first (at most
    `capacity` runs and `budget` bytes). Also the trainings in flight: one Trainer per key, shared by
    every session that asks for that run while it trains (`trainer`, `run_shared`)."""

    def __init__(self, capacity: int = 300, budget: int = WHY_RESULTS_BYTES) -> None:
        self.capacity, self.budget = capacity, budget
        self._runs: OrderedDict[CacheKey, RunResult] = OrderedDict()
        self._sizes: dict[CacheKey, int] = {}
        self._lock = threading.Lock()
        self._training: OrderedDict[CacheKey, Trainer] = OrderedDict()

    def trainer(self, key: CacheKey, make: Callable[[], Trainer]) -> Trainer:
        """The one in-flight Trainer for `key`, made by make() when there is none: a second session asking
        for the same run gets the same trainer (a half-done one left by a stopped run is picked up too)."""
        with self._lock:
            trainer = self._training.get(key)
            if trainer is None:
                trainer = self._training[key] = make()
                while len(self._training) > MAX_TRAININGS_IN_FLIGHT:  # bounded: the oldest idle one goes
                    old = next((k for k, t in self._training.items() if not t.busy and k != key), None)
                    if old is None:
                        break
                    del self._training[old]
            return trainer

    def finish(self, key: CacheKey, trainer: Trainer) -> RunResult:
        """The finished run of `trainer`, evaluated and stored once (whoever gets here second reads it)."""
        with trainer.gate:
            done = self.get(key)
            if done is None:
                done = self.put(key, trainer.result())
        with self._lock:
            if self._training.get(key) is trainer:
                del self._training[key]
        return done

    def run_shared(
        self,
        key: CacheKey,
        make: Callable[[], Trainer],
        chunk: int,
        each: Callable[[Trainer], object] | None = None,
    ) -> RunResult:
        """Train the run `key` to the end, sharing the work with every session asking for it at the same
        time: whoever holds the trainer advances it `chunk` steps, the others wait meanwhile; `each(trainer)`
        after every chunk (a page draws its progress). 40 students pressing Train cost one training."""
        done = self.get(key)
        if done is not None:
            return done
        trainer = self.trainer(key, make)
        while not trainer.done:
            trainer.advance_shared(chunk)
            if each is not None:
                each(trainer)
        return self.finish(key, trainer)

    def get(self, key: CacheKey) -> RunResult | None:
        with self._lock:
            return self._runs.get(key)

    def put(self, key: CacheKey, result: RunResult) -> RunResult:
        """Keep a finished run; returns the stored, frozen copy (what every session will read)."""
        if not result.complete:
            raise ValueError("only finished runs are cached")
        result = freeze(result)  # every session reads it: its tensors become read-only
        size = nbytes(result)
        with self._lock:
            self._runs[key] = result
            self._runs.move_to_end(key)
            self._sizes[key] = size
            while len(self._runs) > self.capacity or (len(self._runs) > 1 and self.nbytes > self.budget):
                old, _ = self._runs.popitem(last=False)
                self._sizes.pop(old, None)
        return result

    @property
    def nbytes(self) -> int:
        return sum(self._sizes.values())

    def __len__(self) -> int:
        return len(self._runs)


# ---------------------------------------------------------------- what the page shows
# The page's URL keys, declared once (lessons/url.py parses them; ui/url_state.py reads and writes them back).
VIEWS = ("results", "heads")  # the trained results as two lazy tabs: only the open one runs and draws
URL_KEYS: tuple[UrlKey, ...] = (
    UrlKey("why_tab", "choice", VIEWS[0], choices=VIEWS),
    UrlKey("why_seed", "int", 0, lo=SEED_MIN, hi=SEED_MAX),
    UrlKey("why_steps", "choice", DEFAULT_STEPS, choices=STEP_CHOICES),  # the nearest offered step count
)
URL_KEY_NAMES = url.names(URL_KEYS)


@dataclass(frozen=True)
class Curve:
    """One run's training loss for the loss chart: `label` is worded by the page (h = 2, or "h = 1 (stopped)")."""

    label: str
    num_heads: int
    losses: tuple[float, ...] | list[float]
    dashed: bool = False


def chance_loss() -> float:
    """The loss of a model that guesses: ln(VOCAB) nats per answer (the loss chart's dotted line)."""
    return math.log(VOCAB)


def example_labels() -> tuple[str, ...]:
    """The example's digits as axis labels, the marked one with a star ("9*")."""
    return tuple(f"{d}*" if i == EXAMPLE_MARKER else str(d) for i, d in enumerate(EXAMPLE_TOKENS))


def example_rows() -> tuple[tuple[int, str, tuple[int, int] | None], ...]:
    """The example sequence, one row per position: (position, digit label, (previous, marked) answer or None at
    position 0, which has no previous digit)."""
    answers = [None] + [tuple(pair) for pair in example_batch().targets[0].tolist()]
    return tuple((i, label, answers[i]) for i, label in enumerate(example_labels()))


def heads_heatmap(result: RunResult) -> Heatmap:
    """A trained model's attention weights on the example sequence, one panel per head (query rows, key columns),
    four panels a row on a wide screen."""
    labels = example_labels()
    weights = result.example_weights
    panels = tuple(
        Panel(readonly(weights[i]), title=text("why.panel.head", i=i), row_labels=labels, col_labels=labels)
        for i in range(int(weights.shape[0]))
    )
    return Heatmap(
        f"trained-weights-h{result.num_heads}",
        panels,
        "weights",
        0.0,
        1.0,
        text("common.query"),
        text("common.key"),
        panel_columns=4,
    )


# ---------------------------------------------------------------- the page's tables, curves and verdicts (plain data)
# Column and text ids, never words: the page words "why.col.<id>", "why.verdict.<verdict>", "why.reason.<id>".
RESULT_COLUMNS = ("h", "d_k", "params", "loss", "acc", "acc_prev", "acc_mark", "seconds")
HEAD_COLUMNS = ("head", "relation", "mass_prev", "mass_mark")
RUN_STATUSES = ("running", "stopped", "done")


def head_widths() -> tuple[int, ...]:
    """d_k of each model the page trains: d_model / h for h in HEAD_COUNTS."""
    return tuple(D_MODEL // h for h in HEAD_COUNTS)


def example_cells() -> tuple[tuple[str, str, str], ...]:
    """The example as table cells, one row per position: (position, digit label, answer "(previous, marked)" or
    "–" at position 0, which has no previous digit)."""
    return tuple(
        (str(i), label, "–" if pair is None else f"({pair[0]}, {pair[1]})") for i, label, pair in example_rows()
    )


def interrupted_run(
    raw: object, seed: int, steps: int, results: Mapping[int, RunResult | None]
) -> tuple[dict | None, dict | None]:
    """The session's last training run and, when it was stopped before it finished for this seed and these steps
    (a run still "running" when a new script run begins was interrupted: marked "stopped" in place), that run.

    `raw` is whatever the session holds; anything this page cannot read is (None, None)."""
    if not (
        isinstance(raw, dict)
        and raw.get("h") in HEAD_COUNTS
        and isinstance(raw.get("losses"), list)
        and raw.get("status") in RUN_STATUSES
    ):
        return None, None
    if raw["status"] == "running":
        raw["status"] = "stopped"
    stopped = raw["status"] == "stopped" and (raw.get("seed"), raw.get("steps")) == (seed, steps)
    return raw, raw if stopped and results.get(raw["h"]) is None else None


def cache_status(results: Mapping[int, RunResult | None]) -> tuple[str, tuple[int, ...], tuple[int, ...]]:
    """("all" | "some" | "none", the h already trained, the h still to train)."""
    done = tuple(h for h in HEAD_COUNTS if results.get(h) is not None)
    todo = tuple(h for h in HEAD_COUNTS if results.get(h) is None)
    return ("all" if not todo else "some" if done else "none"), done, todo


def loss_curves(
    results: Mapping[int, RunResult | None], running: Trainer | None = None, stopped: Mapping | None = None
) -> list[Curve]:
    """The loss chart's curves: every finished run, the one training now, and a stopped run's partial curve
    (dashed; the page words its label "h = 1 (stopped)")."""
    out = [Curve(f"h = {h}", h, r.losses) for h, r in results.items() if r is not None]
    if running is not None:
        out.append(Curve(f"h = {running.num_heads}", running.num_heads, running.losses))
    if stopped is not None:
        out.append(Curve(f"h = {stopped['h']}", stopped["h"], stopped["losses"], dashed=True))
    return out


def results_table(finished: Mapping[int, RunResult]) -> dict[str, list]:
    """The results tab's table: column id (RESULT_COLUMNS) -> one value per finished run."""
    rows = list(finished.values())
    return {
        "h": [r.num_heads for r in rows],
        "d_k": [D_MODEL // r.num_heads for r in rows],
        "params": [r.parameters for r in rows],
        "loss": [f"{r.eval_loss:.3f}" for r in rows],
        "acc": [f"{r.accuracy:.0%}" for r in rows],
        "acc_prev": [f"{r.previous_accuracy:.0%}" for r in rows],
        "acc_mark": [f"{r.marker_accuracy:.0%}" for r in rows],
        "seconds": [f"{r.seconds:.1f}" for r in rows],
    }


def heads_table(result: RunResult) -> dict[str, list]:
    """The heads tab's table of one run: column id (HEAD_COLUMNS) -> one value per head; "relation" holds the
    relation each head does (RELATIONS) or None."""
    return {
        "head": list(range(result.num_heads)),
        "relation": list(result.roles),
        "mass_prev": [f"{v:.2f}" for v in result.previous_mass],
        "mass_mark": [f"{v:.2f}" for v in result.marker_mass],
    }


def single_head_facts(single: RunResult) -> tuple[str, dict]:
    """The single head's story (single_head_story) and the values its text "why.single.<story>" shows."""
    facts = dict(
        d_k=D_MODEL,
        pm=single.previous_mass[0],
        mm=single.marker_mass[0],
        acc=single.accuracy,
        acc_prev=single.previous_accuracy,
        acc_mark=single.marker_accuracy,
    )
    return single_head_story(single), facts


@dataclass(frozen=True)
class Verdict:
    """One multi-head run against the single head: `verdict` ("effect" | "partial" | "no_effect") and the values
    of its text; tuples are lists the page joins with its list separator. A "no_effect" verdict says why:
    `reasons`, each (reason id of "why.reason.<id>", its values)."""

    num_heads: int
    verdict: str
    facts: dict
    reasons: tuple[tuple[str, dict], ...] = ()


def verdicts(finished: Mapping[int, RunResult]) -> list[Verdict]:
    """Every finished multi-head run against the finished single head (none without it)."""
    single = finished.get(1)
    if single is None:
        return []
    out = []
    for h, multi in finished.items():
        if h == 1:
            continue
        cmp = compare(single, multi)
        if cmp.verdict in ("effect", "partial"):
            facts = dict(
                h=h,
                pis=tuple(map(str, cmp.previous_heads)),
                pms=tuple(f"{multi.previous_mass[i]:.2f}" for i in cmp.previous_heads),
                mis=tuple(map(str, cmp.marker_heads)),
                mms=tuple(f"{multi.marker_mass[i]:.2f}" for i in cmp.marker_heads),
                loss=multi.eval_loss,
                single=single.eval_loss,
                acc=multi.accuracy,
            )
            out.append(Verdict(h, cmp.verdict, facts))
            continue
        reasons: list[tuple[str, dict]] = []
        if not cmp.previous_heads:
            reasons.append(("no_previous", dict(thr=MATCH_THRESHOLD, best=max(multi.previous_mass))))
        if not cmp.marker_heads:
            reasons.append(("no_marker", dict(thr=MATCH_THRESHOLD, best=max(multi.marker_mass))))
        if not cmp.clearly_lower:
            reasons.append(("loss", dict(loss=multi.eval_loss, single=single.eval_loss, margin=LOSS_MARGIN)))
        out.append(Verdict(h, "no_effect", dict(h=h), tuple(reasons)))
    return out


def full_values_accuracy() -> dict[int, tuple[str, ...]]:
    """The measured accuracies with full-width values (FULL_VALUES_ACCURACY) as percentages, per step count."""
    return {n: tuple(f"{a:.0%}" for a in values) for n, values in FULL_VALUES_ACCURACY.items()}
