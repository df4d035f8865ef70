"""How the other lessons' quiz questions join: each lesson page (KV cache, Softmax up close, Positions) builds its
own predict-then-reveal questions as data. One LessonSource per page turns them into Questions and says how to
read, grade and word them and where "see it" goes; dispatch.py hands a lesson question to its source
(lesson_source). By default a source reads answers with this package's parsers (KV cache: shape / int / cells); a
page whose lesson grades typed text itself (softmax.check_answer, positions.accepts) keeps the cleaned text as the
value and asks the lesson. quiz_set is the whole set: the walkthrough's questions, then each page's; quiz_part one
of those parts (the Quiz page builds only the part it shows).
"""

from __future__ import annotations

from dataclasses import dataclass

from lessons import kv_cache as KV
from lessons import positions as POS
from lessons import softmax as SM
from lessons.heatmap import text
from lessons.quiz.build import build_quiz, question_uid
from lessons.quiz.checking import first_wins, is_correct_own
from lessons.quiz.links import settings_params
from lessons.quiz.model import PLAN, Join, LessonItem, Link, Question, Quoted, Words, fmt_shape, iterable
from lessons.quiz.parsing import Parsed, clean, parse_choice, parse_int, parse_own, read_number
from lessons.quiz.texts import format_own
from lessons.scenario import Scenario
from lessons.settings import Settings


@dataclass(frozen=True)
class LessonSource:
    name: str  # Question.source
    page: str  # the page file the "see it" link opens
    title: str  # strings key of the page's title
    tab_key: str  # the page's URL key of its open section
    tab_strings: str  # strings key prefix of a section's title: f"{tab_strings}.{section}"
    count = 0  # how many questions the page's lesson asks, the same for every setting (quiz_part checks it)

    def questions(self, run: Scenario, custom_text: str | None, start: int) -> list[Question]:
        raise NotImplementedError

    def question(
        self,
        settings: Settings,
        custom_text: str | None,
        index: int,
        item: LessonItem,
        *,
        kind: str,
        facts: dict,
        section: str,
        mistakes: tuple = (),
    ) -> Question:
        """One of this page's items as a Question: its answer, type and options are the item's own."""
        return Question(
            index=index,
            uid=question_uid(settings, custom_text, index),
            kind=kind,
            answer_type=item.answer_type,
            answer=item.answer,
            step="",
            facts=facts,
            options=item.options,
            mistakes=mistakes,
            source=self.name,
            item=item,
            section=section,
        )

    def parse(self, q: Question, raw: object) -> Parsed:
        return parse_own(q, raw)

    def correct(self, q: Question, value: object) -> bool:
        return is_correct_own(q, value)

    def value_text(self, q: Question, value: object) -> Words:
        return format_own(q, value)

    def prompt(self, q: Question) -> Words:
        raise NotImplementedError

    def why(self, q: Question) -> Words:
        raise NotImplementedError

    def hint(self, q: Question) -> Words:
        return text(f"quiz.hint.{q.answer_type}")

    def answer(self, q: Question) -> Words:
        return self.value_text(q, q.answer)

    def option(self, q: Question, option: object) -> Words:
        return text(f"quiz.choice.{option}")

    def link_params(self, q: Question) -> dict[str, str]:
        return {self.tab_key: q.section}

    def link(self, q: Question, settings: Settings) -> Link:
        label = text("quiz.link.page", page=text(self.title), section=text(f"{self.tab_strings}.{q.section}"))
        return Link(self.page, label, {**settings_params(settings), **self.link_params(q)}, ":material/school:")


class KvCacheSource(LessonSource):
    """lessons/kv_cache.quiz_questions: shape / int / cells are this package's own answer types."""

    count = 3  # questions in every set (quiz_part checks it)

    def questions(self, run: Scenario, custom_text: str | None, start: int) -> list[Question]:
        s = run.settings
        kv_heads = KV.default_kv_heads(s.num_heads)  # the page's own default
        out: list[Question] = []
        for n, item in enumerate(KV.quiz_questions(s, kv_heads)):
            index = start + n
            out.append(
                self.question(
                    s,
                    custom_text,
                    index,
                    item,
                    kind=item.key,
                    facts=dict(item.params),
                    section=item.section,
                    mistakes=self._mistakes(item),
                )
            )
        return out

    @staticmethod
    def _mistakes(item: KV.QuizQuestion) -> tuple[tuple[object, str], ...]:
        """The cache counted with the h query heads instead of its h_kv K/V heads; only K counted, not K and V."""
        p, answer = item.params, item.answer
        out: list[tuple[object, str]] = []
        if item.key == "kv.cache_shape":
            assert isinstance(answer, tuple)  # the cache's shape
            if p["h"] != p["h_kv"]:
                out.append((answer[:1] + (p["h"],) + answer[2:], "kv_query_heads"))
            if p["d_model"] != p["d_k"]:
                out.append((answer[:-1] + (p["d_model"],), "d_model_for_d_k"))
        if item.key == "kv.preset_bytes":
            assert isinstance(answer, int)  # MiB
            if p["heads"] != p["kv_heads"] and (p["bytes"] * p["heads"]) % (p["kv_heads"] * 2**20) == 0:
                out.append((p["bytes"] * p["heads"] // p["kv_heads"] // 2**20, "kv_query_heads_bytes"))
            if answer % 2 == 0:
                out.append((answer // 2, "kv_only_k"))
        return first_wins(out, answer)

    def prompt(self, q: Question) -> Words:  # kind "kv.cache_shape" is worded by "kv.quiz.cache_shape"
        return text(q.kind.replace("kv.", "kv.quiz.", 1), **q.facts)

    def why(self, q: Question) -> Words:
        return text(q.kind.replace("kv.", "kv.quiz.", 1) + ".why", **q.facts)

    def hint(self, q: Question) -> Words:
        return text("quiz.hint.heads" if q.answer_type == "cells" else f"quiz.hint.{q.answer_type}")

    def value_text(self, q: Question, value: object) -> Words:
        if q.answer_type == "cells":
            return Join(tuple(self.option(q, j) for j in iterable(value))) if value else text("quiz.heads.none")
        if q.answer_type == "int":
            return f"{value:,} MiB"
        return format_own(q, value)

    def answer(self, q: Question) -> Words:
        if q.answer_type == "shape":
            return f"({q.facts['axes']}) = {fmt_shape(q.answer)}"
        return self.value_text(q, q.answer)

    def option(self, q: Question, option: object) -> Words:
        return text("quiz.head", j=option)

    def link_params(self, q: Question) -> dict[str, str]:
        """The section, and for a question about our model the h_kv it was asked with (the page shows that one)."""
        h_kv = q.facts.get("h_kv")
        return {self.tab_key: q.section} if h_kv is None else {self.tab_key: q.section, "kv_heads": str(h_kv)}


class SoftmaxSource(LessonSource):
    """lessons/softmax.quiz_questions, graded by its check_answer (int, number within a slack, bytes with a binary
    unit, the order of three divisors)."""

    count = 6  # questions in every set (quiz_part checks it)

    SECTION = {
        "causal_skipped": "tiles",
        "tile_count": "tiles",
        "score_bytes": "tiles",
        "entropy_order": "scale",
        "dot_variance": "scale",
        "overflow_threshold": "max",
    }

    def questions(self, run: Scenario, custom_text: str | None, start: int) -> list[Question]:
        s = run.settings
        out: list[Question] = []
        for n, item in enumerate(SM.quiz_questions(s, run, custom_text)):
            index = start + n
            facts = dict(item.params, **(item.facts or {}))
            if item.kind == "entropy_order":
                facts.update(zip(("e1", "e2", "e3"), facts["entropies"]))  # item.facts' own list
            if item.kind == "dot_variance":
                facts["expr"] = "q·k / √d_k" if item.params["scaled"] else "q·k"
            out.append(
                self.question(
                    s,
                    custom_text,
                    index,
                    item,
                    kind=f"softmax.{item.kind}",
                    facts=facts,
                    section=self.SECTION[item.kind],
                )
            )
        return out

    @staticmethod
    def _item(q: Question) -> SM.QuizQuestion:
        assert isinstance(q.item, SM.QuizQuestion)  # questions() made it
        return q.item

    def parse(self, q: Question, raw: object) -> Parsed:
        given = clean(raw)
        if isinstance(given, Parsed):
            return given
        if SM.check_answer(self._item(q), given).value is None:
            return Parsed(error="not_order" if q.answer_type == "order" else "not_number")
        return Parsed(given)

    def correct(self, q: Question, value: object) -> bool:
        return SM.check_answer(self._item(q), value).correct

    def value_text(self, q: Question, value: object) -> Words:
        return Quoted(value, 40)

    def answer(self, q: Question) -> Words:
        if q.answer_type == "order":
            return " < ".join(SM.SCALE_LABELS[SM.SCALE_NAMES.index(n)] for n in iterable(q.answer))
        if q.answer_type == "bytes":
            return f"{q.answer:,} B = {self._item(q).accepted[2]}"
        return self._item(q).accepted[0]

    def _kind(self, q: Question) -> str:
        return q.kind.split(".", 1)[1]

    def prompt(self, q: Question) -> Words:
        return text(f"softmax.quiz.{self._kind(q)}.prompt", **q.facts)

    def why(self, q: Question) -> Words:
        return text(f"softmax.quiz.{self._kind(q)}.why", answer=q.answer, **q.facts)


class PositionsSource(LessonSource):
    """lessons/positions.quiz_items (for the page's default URL values), graded by its accepts."""

    count = 8  # questions in every set (quiz_part checks it)

    SECTION = {
        "shuffled_row": "shuffle",
        "gap_free": "shuffle",
        "gap_causal": "shuffle",
        "front_self": "shuffle",
        "rope_diagonal": "rope",
        "rope_angle": "rope",
        "rope_odd": "rope",
        "sinusoid": "add",
    }

    def questions(self, run: Scenario, custom_text: str | None, start: int) -> list[Question]:
        s = run.settings
        out: list[Question] = []
        for n, item in enumerate(POS.quiz_items(s, POS.parse_url({}, s), run)):
            index = start + n
            # a list (the permutation) as the text it shows: the page's shared cache freezes lists into tuples
            facts = {
                k: "[" + ", ".join(map(str, v)) + "]" if isinstance(v, list) else v for k, v in item.params.items()
            }
            section = self.SECTION[item.key.rsplit(".", 1)[1]]
            out.append(self.question(s, custom_text, index, item, kind=item.key, facts=facts, section=section))
        return out

    @staticmethod
    def _item(q: Question) -> POS.QuizItem:
        assert isinstance(q.item, POS.QuizItem)  # questions() made it
        return q.item

    def parse(self, q: Question, raw: object) -> Parsed:
        if q.answer_type == "choice":
            return parse_choice(raw, q.options)
        given = clean(raw)
        if isinstance(given, Parsed):
            return given
        if q.answer_type == "number" and not read_number(given).ok:
            return read_number(given)
        if q.answer_type == "int" and given.lower() not in self._item(q).accepted and not parse_int(given).ok:
            return parse_int(given)
        return Parsed(given)

    def correct(self, q: Question, value: object) -> bool:
        return POS.accepts(self._item(q), str(value or ""))  # what accepts reads of any value itself

    def value_text(self, q: Question, value: object) -> Words:
        return self.option(q, value) if q.answer_type == "choice" else Quoted(value, 40)

    def _shown(self, q: Question) -> Words:
        if q.answer_type == "choice":
            return self.option(q, q.answer)
        return f"{q.answer:.4f}" if q.answer_type == "number" else str(q.answer)

    def answer(self, q: Question) -> Words:
        if q.answer_type == "int" and "token" in q.facts:
            return f"{q.answer} · {q.facts['token']}"
        return self._shown(q)

    def prompt(self, q: Question) -> Words:
        return text(f"{q.kind}.prompt", **q.facts)

    def why(self, q: Question) -> Words:
        return text(f"{q.kind}.why", **{**q.facts, "answer": self._shown(q)})

    def hint(self, q: Question) -> Words:
        return text("quiz.hint.row" if q.answer_type == "int" else f"quiz.hint.{q.answer_type}")


# The pages whose questions join the quiz, in this order, after the walkthrough's questions.
LESSON_SOURCES = (
    KvCacheSource("kv_cache", "pages/kv-cache.py", "page.kv-cache", "kv_tab", "kv.tab"),
    SoftmaxSource("softmax", "pages/softmax.py", "page.softmax", "soft_tab", "softmax.tab"),
    PositionsSource("positions", "pages/positions.py", "page.positions", "pos_tab", "pos.tab"),
)
_SOURCE_BY_NAME = {src.name: src for src in LESSON_SOURCES}


def lesson_source(q: Question) -> LessonSource | None:
    """The lesson page a question comes from, or None for the walkthrough's own questions."""
    return _SOURCE_BY_NAME.get(q.source)


# The set in parts: the walkthrough's questions, then each lesson page's. Each part's size is the same for every
# setting, so the Quiz page builds only the part of the question it shows (a step of T rebuilt all four: ~22 ms at
# 512/16/32, most of it the KV and Positions lessons' own runs, for one question on screen).
PART_SIZES: tuple[int, ...] = (len(PLAN), *(source.count for source in LESSON_SOURCES))
QUIZ_SIZE = sum(PART_SIZES)


def part_of(index: int) -> tuple[int, int]:
    """(the part holding question `index` of the set, the index of that part's first question)."""
    start = 0
    for part, size in enumerate(PART_SIZES):
        if index < start + size:
            return part, start
        start += size
    raise IndexError(f"question {index} outside 0..{QUIZ_SIZE - 1}")


def quiz_part(run: Scenario, part: int, *, custom_text: str | None = None) -> list[Question]:
    """Part `part` of the set (PART_SIZES), its questions numbered as in the whole set."""
    start = sum(PART_SIZES[:part])
    questions = (
        build_quiz(run, custom_text=custom_text)
        if part == 0
        else LESSON_SOURCES[part - 1].questions(run, custom_text, start)
    )
    if len(questions) != PART_SIZES[part]:  # a lesson that asks more or fewer would shift every later number
        raise ValueError(f"quiz part {part}: {len(questions)} questions, declared {PART_SIZES[part]}")
    return questions


def quiz_set(run: Scenario, *, custom_text: str | None = None) -> list[Question]:
    """The whole set: the walkthrough's questions (build_quiz), then each lesson page's, grouped (class mode)."""
    return [q for part in range(len(PART_SIZES)) for q in quiz_part(run, part, custom_text=custom_text)]
