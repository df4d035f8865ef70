"""Token labels for the random input X: a sentence, so that masks and patterns read naturally.

The labels only name the positions; X itself comes from the seed (core.attention.build_input),
so the numbers are the same in both languages.
"""

from __future__ import annotations

SENTENCES = {
    "en": (
        "the cat sat on the mat because it was tired and the dog ran to the park "
        "where the children played with a red ball until the sun went down over the quiet hills"
    ).split(),
    "zh": list("小猫坐在垫子上因为它累了小狗跑向公园孩子们在那里玩一个红色的球直到太阳下山了为止"),
}


def tokens(seq_len: int, lang: str) -> list[str]:
    """The first seq_len tokens of the example sentence (repeating it if needed)."""
    words = SENTENCES.get(lang, SENTENCES["en"])
    return [words[i % len(words)] for i in range(seq_len)]
