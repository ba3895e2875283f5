"""Which way a page's text runs as the page is shown, and the frame in which it reads upright.

Boxes are stored in the page as shown: PyMuPDF's page.rect, the page's /Rotate applied, origin top left. It is what
the viewer draws over the rendered page, what crops clip and what the layout model and find_tables report in.
mupdf extracts text and drawings in the unrotated page; page.rotation_matrix turns them into the shown page.

Text may still run sideways or upside down there: a landscape table printed turned on a portrait page, a page whose
/Rotate turns text that was set upright. Such text is read in its upright frame, where its lines run left to right
(`upright`), and its boxes are mapped back to the shown page.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import replace

import pymupdf

from ..domain import BBox, TableOnPage, Word
from .reading_order import reading_order

# A turn: how a text stands on the shown page, in clockwise degrees (0, 90: it runs down the page, 180, 270: up).
# A line direction this close to an axis runs along it (mupdf's unit vector; slanted text is read as upright).
AXIS = 0.9


def upright(turn: int, width: float, height: float) -> pymupdf.Matrix:
    """From the shown page (`width` x `height` points) to the frame in which text turned by `turn` runs left to
    right, origin top left: the page turned back by `turn`."""
    if turn == 90:
        return pymupdf.Matrix(0, -1, 1, 0, 0, width)
    if turn == 180:
        return pymupdf.Matrix(-1, 0, 0, -1, width, height)
    if turn == 270:
        return pymupdf.Matrix(0, 1, -1, 0, height, 0)
    return pymupdf.Matrix(1, 1)


def turn_of(dx: float, dy: float) -> int | None:
    """The turn of a line running in direction (dx, dy) on the shown page (y down); None when slanted."""
    if abs(dx) >= AXIS:
        return 0 if dx > 0 else 180
    if abs(dy) >= AXIS:
        return 90 if dy > 0 else 270
    return None


def moved(box: BBox, matrix: pymupdf.Matrix) -> BBox:
    """`box` mapped by `matrix`, a turn by a multiple of 90 degrees and a shift (each word of every page goes
    through here: two corners by hand, a third of the time pymupdf.Rect takes)."""
    a, b, c, d, e, f = matrix.a, matrix.b, matrix.c, matrix.d, matrix.e, matrix.f
    if a == d == 1 and b == c == e == f == 0:
        return box
    x0, y0, x1, y1 = box
    u0, v0, u1, v1 = a * x0 + c * y0 + e, b * x0 + d * y0 + f, a * x1 + c * y1 + e, b * x1 + d * y1 + f
    return (min(u0, u1), min(v0, v1), max(u0, u1), max(v0, v1))


def main_turn(lines: Iterable[tuple[int, list[Word]]]) -> int:
    """The turn most of the characters of `lines` ((turn, words) each) have; 0 for none."""
    characters: Counter = Counter()
    for turn, words in lines:
        characters[turn] += sum(len(w.text) for w in words)
    return max(characters, key=lambda turn: (characters[turn], turn == 0), default=0)


def words_turn(words: list[Word]) -> int:
    """How words stored in reading order (Word.line their row) are turned on the shown page: the way most of them
    follow the word before them in their row (a scan read by OCR keeps no line directions); 0 for none."""
    votes: Counter = Counter()
    for before, word in zip(words, words[1:]):
        if word.line == before.line:
            dx = (word.bbox[0] + word.bbox[2] - before.bbox[0] - before.bbox[2]) / 2
            dy = (word.bbox[1] + word.bbox[3] - before.bbox[1] - before.bbox[3]) / 2
            length = (dx * dx + dy * dy) ** 0.5
            turn = turn_of(dx / length, dy / length) if length else None
            if turn is not None:
                votes[turn] += 1
    return max(votes, key=lambda turn: (votes[turn], turn == 0), default=0)


def read_turned(lines: Iterable[tuple[int, list[Word]]], width: float, height: float) -> list[Word]:
    """The words of `lines` ((turn, a line's words in reading direction, boxes in the shown page) each) in reading
    order: the lines of each turn read in their upright frame (reading_order), the turn holding the most characters
    first, then the others (a stamp up the margin, a table printed turned); boxes stay in the shown page, and
    Word.line numbers the rows consecutively from 0 across them."""
    groups: dict[int, list[list[Word]]] = {}
    for turn, words in lines:
        if words:
            groups.setdefault(turn, []).append(words)
    ordered: list[Word] = []
    turns = sorted(groups, key=lambda t: (-sum(len(w.text) for line in groups[t] for w in line), t)) \
        if len(groups) > 1 else list(groups)
    for turn in turns:
        first_row = ordered[-1].line + 1 if ordered else 0
        if not turn:  # most pages: nothing to turn, the rows numbered from 0
            read = reading_order(groups[turn])
            ordered += [replace(w, line=w.line + first_row) for w in read] if first_row else read
            continue
        to_upright = upright(turn, width, height)
        back = ~to_upright
        read = reading_order([[replace(w, bbox=moved(w.bbox, to_upright)) for w in line] for line in groups[turn]])
        ordered += [replace(w, bbox=moved(w.bbox, back), line=w.line + first_row) for w in read]
    return ordered


def turn_upright(page: pymupdf.Page, turn: int) -> pymupdf.Matrix:
    """Show text turned by `turn` upright: the page's /Rotate changed in memory (the file is never written).
    Returns the matrix from the page's new shown space back to the page as the file shows it, for what is found
    there: find_tables and the layout model work in the page as shown and have no other way to be turned."""
    shown = page.rect
    if turn:
        page.set_rotation((page.rotation - turn) % 360)
    return ~upright(turn, shown.width, shown.height)


@contextmanager
def turned_upright(page: pymupdf.Page, turn: int) -> Iterator[pymupdf.Matrix]:
    """turn_upright for the duration: the page's /Rotate is put back after."""
    rotation = page.rotation
    try:
        yield turn_upright(page, turn)
    finally:
        if turn:
            page.set_rotation(rotation)


def moved_table(table: TableOnPage, matrix: pymupdf.Matrix) -> TableOnPage:
    """The table with its box and its cells' boxes mapped by `matrix` (from the frame it was read in)."""
    cells = tuple(replace(cell, bbox=moved(cell.bbox, matrix)) for cell in table.cells)
    return replace(table, bbox=moved(table.bbox, matrix), cells=cells)
