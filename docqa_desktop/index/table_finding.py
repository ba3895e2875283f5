"""Where a page's tables stand, found from its words' alignment alone: for a page no layout model has looked at
(`docqa tables` on a file, the index with its layout gate off) and for scans whose layout shows no table.

A table is a run of lines of several pieces of text (index/table_text.py), a row's height or two apart; running
text (a paragraph of the page's other column) parts a line and a line of it between two rows is passed over;
labels alone ("Male", "Race/ethnicity") may stand among the rows; the short lines just above are its header, and a
header set a little apart above a body joins it; a row of words alone after rows of figures heads the next table.
"""
from __future__ import annotations

from .table_text import CAPTION, LONG_PIECE, Piece, Word, is_figure, lines_of, pieces_of

ROW_GAP = 2.0  # line heights between a table's rows at most
MIN_TABLE_LINES = 3  # lines in columns that make a table
MIN_ROWS = 2  # rows of figures after which a row of words alone heads the next table
HEADER_LINES = 4  # lines above a table's aligned lines read as its header at most
HEADER_GAP = 3.5  # line heights a header may stand above its table's body


def table_regions(words: list[Word]) -> list[tuple[float, float, float, float]]:
    """Where a page's words stand in a table, found from their alignment alone (no layout model): runs of lines of
    several pieces, at most one of them running text, a row's height or two apart (one line of a label alone
    may stand among them), each run with the short lines just above it (its header)."""
    pieces = [_beside_text(pieces_of(line)) for line in lines_of(words)]
    tabular = [len(row) > 1 for row in pieces]
    runs, run = [], []
    i, extent = 0, (0, 0, 0)  # the run's width, known for a run of so many rows
    while i < len(pieces):
        if run and extent[0] != len(run):
            extent = (len(run), *_extent([pieces[r] for r in run if tabular[r]]))
        if run and not tabular[i] and all(p.x0 > extent[2] or p.x1 < extent[1] for p in pieces[i]):
            i += 1  # a line of the page's other column, between two of the table's rows
            continue
        labels = _labels_then_row(pieces, tabular, i) if run and _near(pieces[run[-1]], pieces[i]) else 0
        if tabular[i] and (not run or _near(pieces[run[-1]], pieces[i])) and not _heads_next(pieces, run, i):
            run.append(i)
        elif labels and not _heads_next(pieces, run, i):  # labels alone among the rows ("Male"), rows under them
            run += range(i, i + labels)
            i += labels
            continue
        else:
            runs.append(run)
            run = [i] if tabular[i] else []
        i += 1
    runs.append(run)
    return [region for run in _headed(pieces, [r for r in runs if r]) for region in _region(pieces, tabular, run)]


def _headed(pieces: list[list[Piece]], runs: list[list[int]]) -> list[list[int]]:
    """Runs joined where one of words alone stands a little above one with figures, across the same width: a
    header set apart from its table's body ("Postnatal Day 1 … Weight (g)" above "0 39 5.8 …")."""
    joined: list[list[int]] = []
    for run in runs:
        if joined and _header_run([pieces[i] for i in joined[-1]]) and _above(pieces, joined[-1], run):
            joined[-1] = joined[-1] + run
        else:
            joined.append(run)
    return joined


def _header_run(rows: list[list[Piece]]) -> bool:
    return len(rows) <= HEADER_LINES + 2 and not any(is_figure(p.text) for row in rows for p in row[1:])


def _above(pieces: list[list[Piece]], upper: list[int], lower: list[int]) -> bool:
    top, bottom = pieces[upper[-1]], pieces[lower[0]]
    gap = min(p.y0 for p in bottom) - max(p.y1 for p in top)
    (x0, x1), (u0, u1) = _extent([pieces[i] for i in lower]), _extent([pieces[i] for i in upper])
    return gap <= HEADER_GAP * _height(bottom) and min(x1, u1) - max(x0, u0) > 0.5 * (x1 - x0)


def _heads_next(pieces: list[list[Piece]], run: list[int], i: int) -> bool:
    """Whether a line after rows of figures heads the next table set close under: a row of words alone in
    columns, or a label alone standing over the columns rather than at the rows' left ("Design effect")."""
    if sum(any(is_figure(p.text) for p in pieces[r][1:]) for r in run) < MIN_ROWS:
        return False
    if len(pieces[i]) == 1:
        left, right = _extent([pieces[r] for r in run])
        return pieces[i][0].x0 > left + 0.25 * (right - left)
    return _header_run([pieces[i]])


def _beside_text(row: list[Piece]) -> list[Piece]:
    """The pieces of a line that may be a table's row: running text (a paragraph of the page's other column)
    parts a line; the part with the most pieces is kept, or the text alone when nothing else is there."""
    parts: list[list[Piece]] = [[]]
    for piece in row:
        if len(piece.text.split()) >= LONG_PIECE:
            parts += [[piece], []]
        else:
            parts[-1].append(piece)
    longest = max(parts, key=len)
    return longest if len(longest) > 1 else row[:1]


def _labels_then_row(pieces: list[list[Piece]], tabular: list[bool], start: int) -> int:
    """How many lines from `start` are labels alone (one short piece each, close under one another) followed
    closely by a row of the table; 0 when they are not."""
    end = start
    while end < len(pieces) and end - start < HEADER_LINES and not tabular[end] and len(pieces[end]) == 1 \
            and len(pieces[end][0].text.split()) < LONG_PIECE and (end == start or _near(pieces[end - 1], pieces[end])):
        end += 1
    return end - start if end > start and end < len(pieces) and tabular[end] and _near(pieces[end - 1], pieces[end]) \
        else 0


def _near(above: list[Piece], below: list[Piece]) -> bool:
    return min(p.y0 for p in below) - max(p.y1 for p in above) <= ROW_GAP * _height(below)


def _region(pieces: list[list[Piece]], tabular: list[bool], run: list[int]) -> list[tuple[float, float, float, float]]:
    if sum(tabular[i] for i in run) < MIN_TABLE_LINES:
        return []
    first = run[0]
    while first > 0 and run[0] - first < HEADER_LINES and _heads(pieces[first - 1], pieces[first]):
        first -= 1
    rows = [pieces[i] for i in range(first, run[0])] + [pieces[i] for i in run]
    x0, x1 = _extent([pieces[i] for i in run if tabular[i]])
    return [(x0, min(p.y0 for row in rows for p in row), x1, max(p.y1 for row in rows for p in row))]


def _extent(rows: list[list[Piece]]) -> tuple[float, float]:
    """Where a table's rows stand across the page: the pieces in columns that two other rows share, not a word
    of the page's other column that happened to stand on a row's line."""
    shared = [p for row in rows for p in row
              if sum(any(q.x0 <= p.x1 and q.x1 >= p.x0 for q in other) for other in rows if other is not row) >= 2]
    shared = shared or [p for row in rows for p in row]  # too few rows to tell: all of them
    return min(p.x0 for p in shared), max(p.x1 for p in shared)


def _heads(above: list[Piece], below: list[Piece]) -> bool:
    """Whether a line just above a table's rows is a line of its header: short pieces, close above, within the
    table's width, no "Table 3:" caption."""
    return (below[0].y0 - above[-1].y1 <= ROW_GAP * _height(above)
            and all(len(p.text.split()) < LONG_PIECE for p in above)
            and not CAPTION.match(above[0].text)
            and min(p.x0 for p in above) >= min(p.x0 for p in below) - 2 * _height(above)
            and max(p.x1 for p in above) <= max(p.x1 for p in below) + 2 * _height(above))


def _height(row: list[Piece]) -> float:
    return max(p.y1 - p.y0 for p in row)
