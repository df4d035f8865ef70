"""What a lesson's page prints besides charts, as plain data shared by the lessons: a table as columns of cells
under a header (`Column`: a strings key `Text` the page words, or a language-neutral string or number), and a byte
count in binary units (`bytes_text`, the same text in both languages)."""

from __future__ import annotations

from dataclasses import dataclass

from lessons.heatmap import Text

Cell = Text | str  # a text key the page words, or a language-neutral string (a number, a token, a symbol)

# Largest first: a size prints in the largest unit it fills (1 TiB, never 1024 GiB).
BINARY_UNITS = (("PiB", 1 << 50), ("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10))


@dataclass(frozen=True)
class Column:
    """One column of a table the page shows: its header and its cells (the page words the Text ones)."""

    header: Cell
    cells: tuple


Table = tuple[Column, ...]


def bytes_text(n: int, *, decimals: int = 1, grouped: bool = False) -> str:
    """Bytes in the largest binary unit they fill: '512 B', '4 KiB', '1.5 MiB' (whole values without decimals,
    others with `decimals`; `grouped`: thousands with commas, '1,024 GiB')."""
    sep = "," if grouped else ""
    for unit, size in BINARY_UNITS:
        if n >= size:
            v = n / size
            return f"{v:{sep}.0f} {unit}" if v == int(v) else f"{v:{sep}.{decimals}f} {unit}"
    return f"{n:{sep}} B"
