"""Predict, then reveal (the lesson of pages/quiz.py, plain data): questions generated from the shared settings,
answers read from the core.

No answer is a formula written again here; each one is read from the code that the other pages run:
- shapes from the traced tensors of scenario.run (the AttentionTrace), named axes from core.accounting;
- parameter counts from the model's own nn.Linear layers (and a head's slice from head_projection);
- d_k, and whether an h is allowed at all, from MultiHeadAttention itself (built on torch's "meta"
  device: no memory, no random numbers drawn);
- blocked cells from core.masks (through scenario.settings_mask, the mask every page uses);
- a row's sum from the traced attention weights.

The question set depends only on the settings and the shared seed: a class that opens the teacher's
link gets the same questions in the same order. Pure Python + torch: no Streamlit, no wording: every text is
returned as `Words` -- a strings key with its values (lessons.heatmap.Text, whose values may be Words themselves),
a Join of Words, a Quoted user text, or a plain language-neutral string such as a shape -- and the page words it
(ui.words.word with its ctx.t).

build_quiz makes the walkthrough's 11; quiz_set (the Quiz page) adds the KV cache, Softmax and Positions pages'
own questions after them (28 at the defaults), each page through one LessonSource adapter (sources.py).

Which file holds what (each imports only the ones above it; `from lessons import quiz as Q` is the public name):
- model.py     the data: Question, the Words its texts are made of (Join, Quoted), Record, Link; what a set holds
               (PLAN, SHAPE_FAMILIES, the d_k pools, CHANGES)
- checking.py  whether a parsed value is right, and the known mistakes a question can catch (mistake_of)
- parsing.py   reading typed or picked text: Parsed, parse_shape / parse_int / parse_d_k / parse_real ...
- texts.py     the walkthrough questions' words (keys + values, no language): prompt, hint, answer, why, option
- build.py     how the walkthrough's set is built from a run (build_quiz) and the answers read from the core
- links.py     a link's question number, the walkthrough "see it" link, the score
- sources.py   how the other lessons' questions join (LessonSource, KV cache / Softmax / Positions) and quiz_set
- dispatch.py  a question's public functions (parse_answer, is_correct, prompt_text, see_it_link ...), each asking
               the question's source or the walkthrough's own rules
"""

from __future__ import annotations

from lessons.quiz.build import build_quiz, head_width
from lessons.quiz.checking import d_k_mistakes, mistake_of, params_mistakes, shape_mistakes
from lessons.quiz.dispatch import (
    answer_text,
    format_value,
    hint_text,
    is_correct,
    option_text,
    parse_answer,
    prompt_text,
    see_it_link,
    why_text,
)
from lessons.quiz.links import question_number, score, settings_params, walk_link_params
from lessons.quiz.model import CHANGES, D_K_FITS, D_K_MISFITS, PLAN, Join, Question, Quoted, Record
from lessons.quiz.parsing import parse_cells, parse_choice, parse_d_k, parse_int, parse_real, parse_shape
from lessons.quiz.sources import PART_SIZES, QUIZ_SIZE, lesson_source, part_of, quiz_part, quiz_set
from lessons.quiz.texts import SHAPE_WHY, error_text, mistake_text

__all__ = [
    "CHANGES",
    "D_K_FITS",
    "D_K_MISFITS",
    "PART_SIZES",
    "PLAN",
    "QUIZ_SIZE",
    "SHAPE_WHY",
    "Join",
    "Question",
    "Quoted",
    "Record",
    "answer_text",
    "build_quiz",
    "d_k_mistakes",
    "error_text",
    "format_value",
    "head_width",
    "hint_text",
    "is_correct",
    "lesson_source",
    "mistake_of",
    "mistake_text",
    "option_text",
    "params_mistakes",
    "parse_answer",
    "parse_cells",
    "parse_choice",
    "parse_d_k",
    "parse_int",
    "parse_real",
    "parse_shape",
    "part_of",
    "prompt_text",
    "question_number",
    "quiz_part",
    "quiz_set",
    "score",
    "see_it_link",
    "settings_params",
    "shape_mistakes",
    "walk_link_params",
    "why_text",
]
