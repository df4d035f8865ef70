"""What the KV cache sections print besides charts, as plain data: a table as columns of cells under a header
that is a strings key (`Text`) or a language-neutral name ("h_kv", "d_k"), and bytes in binary units (the same
text in both languages). The page words the Texts (ui.words.word) and shows the rest as it is.
"""

from __future__ import annotations

from lessons import tables

STEP_VALUES = 4096  # numbers above which a view draws one of two same-shaped matrices (a step's payload budget)


def bytes_text(n: int) -> str:
    """Bytes in binary units, as every number of the page: '4 GiB', '1.50 KiB', '512 B' (thousands with commas)."""
    return tables.bytes_text(n, decimals=2, grouped=True)


def diff_text(value: float) -> str:
    """A max abs difference as the page prints it (tests read it back): '8.94e-08'."""
    return f"{value:.2e}"


def shape_text(shape: tuple[int, ...]) -> str:
    """A shape as the tables print it: '(8, 64)'."""
    return "(" + ", ".join(map(str, shape)) + ")"
