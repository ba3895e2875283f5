"""A table's grid from its words' alignment alone, for tables with no rules between their columns (ruled across
only, or not at all) and for scanned pages, whose OCR words have no rules to go by.

After Camelot's stream flavour (and Nurminen's text-edge analysis before it): the words stand on lines (a row
each); a line's words close together make one piece of text; the lines with the most common number of pieces
place the columns, each piece's extent widening its column; pieces of other lines that fall outside every column
add columns of their own; a piece reaching over several columns spans them (a header over "Male" and "Female").
"""
from __future__ import annotations

from dataclasses import dataclass

# words: PyMuPDF's tuples (x0, y0, x1, y1, text, ...), OCR words turned into the same shape
Word = tuple

SAME_LINE = 0.5  # a word whose centre is within half a line's height of the line's centre stands on it
PIECE_GAP = 0.9  # words closer than this many line heights apart are one piece of text ("Czech Republic")
MIN_COLUMNS = 2
MIN_ROWS = 2


@dataclass(frozen=True)
class Piece:
    """Words of a line that read as one: a cell's text, or a header over several cells."""
    x0: float
    y0: float
    x1: float
    y1: float
    text: str


def lines_of(words: list[Word]) -> list[list[Word]]:
    """The words grouped into lines by their vertical centres, top down, each line left to right."""
    lines: list[list[Word]] = []
    for word in sorted(words, key=lambda w: (w[1] + w[3]) / 2):
        middle, height = (word[1] + word[3]) / 2, word[3] - word[1]
        if lines:
            line = lines[-1]
            top, bottom = min(w[1] for w in line), max(w[3] for w in line)
            if abs(middle - (top + bottom) / 2) <= SAME_LINE * max(height, bottom - top):
                line.append(word)
                continue
        lines.append([word])
    return [sorted(line, key=lambda w: w[0]) for line in lines]


def pieces_of(line: list[Word]) -> list[Piece]:
    """The line's words joined where the gap between them is less than PIECE_GAP of the line's height."""
    height = max(w[3] - w[1] for w in line)
    groups: list[list[Word]] = [[line[0]]]
    for word in line[1:]:
        if word[0] - groups[-1][-1][2] < PIECE_GAP * height:
            groups[-1].append(word)
        else:
            groups.append([word])
    return [Piece(min(w[0] for w in g), min(w[1] for w in g), max(w[2] for w in g), max(w[3] for w in g),
                  " ".join(w[4] for w in g)) for g in groups]


def columns_of(rows: list[list[Piece]]) -> list[tuple[float, float]]:
    """The columns' extents, left to right: from the lines of the most common number of pieces (more than one),
    widened by every piece of theirs; then those of the pieces elsewhere that fall between or beside them."""
    counts = [len(row) for row in rows if len(row) > 1]
    if not counts:
        return []
    common = max(set(counts), key=lambda n: (counts.count(n), n))
    columns = _merged(sorted((p.x0, p.x1) for row in rows if len(row) == common for p in row))
    outside = [p for row in rows for p in row if not any(_overlaps(p, c) for c in columns)]
    return _merged(sorted(columns + [(p.x0, p.x1) for p in outside]))


def _merged(extents: list[tuple[float, float]]) -> list[tuple[float, float]]:
    merged: list[tuple[float, float]] = []
    for x0, x1 in extents:
        if merged and x0 <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], x1))
        else:
            merged.append((x0, x1))
    return merged


def _overlaps(piece: Piece, column: tuple[float, float]) -> bool:
    return piece.x0 <= column[1] and piece.x1 >= column[0]


@dataclass(frozen=True)
class AlignedCell:
    """A cell of the aligned grid: its text and box, and how many columns it spans."""
    text: str
    bbox: tuple[float, float, float, float]
    span: int
    indent: float


def aligned_rows(words: list[Word]) -> list[list[AlignedCell | None]] | None:
    """The words as a grid of rows (one a line), a cell per column; None where a cell spans into that column,
    an empty cell ("" text) where a row has nothing. None when the words do not align into columns."""
    rows = [pieces_of(line) for line in lines_of(words)]
    columns = columns_of(rows)
    if len(columns) < MIN_COLUMNS or len(rows) < MIN_ROWS:
        return None
    edges = [columns[0][0]] + [(a[1] + b[0]) / 2 for a, b in zip(columns, columns[1:])] + [columns[-1][1]]
    grid = []
    for row in rows:
        top, bottom = min(p.y0 for p in row), max(p.y1 for p in row)
        cells: list[AlignedCell | None] = [AlignedCell("", (edges[c], top, edges[c + 1], bottom), 1, edges[c])
                                           for c in range(len(columns))]
        for piece in row:
            first, last = _spanned_columns(piece, columns)
            held = cells[first]
            text = f"{held.text} {piece.text}".strip() if held is not None else piece.text
            cells[first] = AlignedCell(text, (edges[first], top, edges[last + 1], bottom), last - first + 1,
                                       piece.x0 if held is None or not held.text else held.indent)
            for c in range(first + 1, last + 1):
                cells[c] = None
        grid.append(cells)
    return grid


def _spanned_columns(piece: Piece, columns: list[tuple[float, float]]) -> tuple[int, int]:
    """The first and last column a piece covers: those it overlaps by more than half of either's width; the
    nearest column when it overlaps none that much."""
    covered = [c for c, (x0, x1) in enumerate(columns)
               if min(piece.x1, x1) - max(piece.x0, x0) > 0.5 * min(x1 - x0, piece.x1 - piece.x0)]
    if not covered:
        middle = (piece.x0 + piece.x1) / 2
        nearest = min(range(len(columns)), key=lambda c: abs((columns[c][0] + columns[c][1]) / 2 - middle))
        return nearest, nearest
    return covered[0], covered[-1]
