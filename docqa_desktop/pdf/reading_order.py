"""The order in which a page's lines are read: column by column where the page is set in columns of prose,
row by row (top to bottom, left to right) everywhere else.

Geometric, from the line boxes alone, so the text layer and OCR get the same order. A gutter is an x
position that (almost) no line crosses, with a column of prose on each side. The lines that do cross it
(titles, full-width captions, a one-column abstract, page numbers) cut the page into vertical segments;
inside a segment the left side is read before the right, recursively, so three columns work too.

The layout model's elements (index/layout.py) are not used: that pass runs in the background after the page
text, its words and chunks are stored, and is off or skipped on some pages; ordering by it would mean
rewriting stored text afterwards and two orders for the same kind of page.
"""
from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable
from dataclasses import dataclass, replace
from statistics import median

from ..domain import BBox, Word

# A column holds at least this many lines: fewer say nothing reliable about prose, and a page with fewer
# lines is read row by row.
MIN_COLUMN_LINES = 4
# Lines that may cross a gutter, as a share of the region's lines. On the two-column corpus papers titles,
# author lines, full-width captions and the page number cross the middle on 1-12% of a page's lines; the
# rest is headroom for a longer header, since the prose test below, not this share, tells tables apart.
MAX_CROSSING_SHARE = 0.25
# A prose line holds at least this many words: a table's value columns hold one or two per line, its label
# column mostly two or three, the columns of the corpus papers a median of six to nine.
MIN_WORDS_PER_LINE = 4
# ... and fills its column: it is at least this share of the side's long (90th percentile) lines. In the
# papers' columns the median line is 0.9-1.0 of the long ones; in a table's label column (names of every
# length, as in a balance sheet) it is near 0.5.
MIN_FILL = 0.6
# A side of a gutter is prose when MIN_COLUMN_LINES of its lines and at least this share of them are prose
# lines: a column holding figures or a small table still counts (1912.01214 p.7: 0.46, 2023.acl-long.386
# p.8: 0.38), while a table's value columns have none.
MIN_PROSE_SHARE = 1 / 3
# Candidate gutters tried per region, fewest crossing lines first: a column gutter is among the first few,
# and a page of scattered labels (a scatter plot, a map) would otherwise try one per label.
MAX_GUTTER_TRIES = 16
# Columns inside columns, at most this deep (three columns take two): a crafted page cannot recurse without end.
MAX_DEPTH = 8


@dataclass(frozen=True)
class _Line:
    words: tuple[Word, ...]
    box: BBox
    # the height most of its words share: one tall glyph (a script K, a big bracket) would reach into the
    # next line and pull it into the same row
    top: float
    bottom: float

    @property
    def width(self) -> float:
        return self.box[2] - self.box[0]


def reading_order(lines: Iterable[list[Word]]) -> list[Word]:
    """The words of `lines` (each a line's words, left to right) in reading order, with Word.line the row
    number, consecutive from 0: lines at the same height in one column, or outside columns (a table's label
    and its values), share a row."""
    boxed = [_line(words) for words in lines if words]
    # text set vertically (an arXiv stamp in the margin, a rotated axis title) comes last: read at its
    # height it would cut a sentence of the column beside it in two
    vertical = [line for line in boxed if _is_vertical(line)]
    rows = _read([line for line in boxed if not _is_vertical(line)]) + [[line] for line in vertical]
    ordered = []
    for row_no, row in enumerate(rows):
        ordered.extend(replace(word, line=row_no) for line in row for word in line.words)
    return ordered


def _line(words: list[Word]) -> _Line:
    x0s, y0s, x1s, y1s = zip(*(w.bbox for w in words))
    return _Line(tuple(words), (min(x0s), min(y0s), max(x1s), max(y1s)), median(y0s), median(y1s))


def _is_vertical(line: _Line) -> bool:
    """Words stacked one above the other: a line much taller than wide."""
    return len(line.words) > 1 and line.box[3] - line.box[1] > 2 * line.width


def _read(lines: list[_Line], depth: int = 0) -> list[list[_Line]]:
    """Rows in reading order, each row's lines left to right."""
    gutter = _find_gutter(lines) if depth < MAX_DEPTH else None
    if gutter is None:
        return _rows(lines)
    rows: list[list[_Line]] = []
    for crossing, left, right in _segments(lines, gutter):
        if crossing:
            rows += _rows(crossing)
        elif _is_table(left, right):
            rows += _rows(left + right)
        else:
            rows += _read(left, depth + 1) + _read(right, depth + 1)
    return rows


def _find_gutter(lines: list[_Line]) -> float | None:
    """The x of a gutter (the left edge of the column right of it), or None when there is none.

    Candidates are the left edges of lines, fewest crossing lines first; one is a gutter when, in some
    segment it cuts the page into, both sides are prose. (A table's gaps may cross fewer lines than the
    gutter of the columns under it, but its sides are not prose.)"""
    n = len(lines)
    if n < 2 * MIN_COLUMN_LINES:
        return None
    starts = sorted(line.box[0] for line in lines)
    ends = sorted(line.box[2] for line in lines)
    splits: dict[tuple[int, int], tuple[int, float]] = {}  # (lines left, lines right) -> (crossing, x)
    for x in starts:
        left, right = bisect_right(ends, x), n - bisect_left(starts, x)
        crossing = n - left - right
        if min(left, right) >= MIN_COLUMN_LINES and crossing <= MAX_CROSSING_SHARE * n:
            splits.setdefault((left, right), (crossing, x))
    for _, x in sorted(splits.values())[:MAX_GUTTER_TRIES]:
        if any(_is_prose(left) and _is_prose(right) for _, left, right in _segments(lines, x)):
            return x
    return None


def _is_prose(lines: list[_Line]) -> bool:
    if len(lines) < MIN_COLUMN_LINES:
        return False
    widths = sorted(line.width for line in lines)
    long_line = widths[int(0.9 * (len(widths) - 1))]
    prose = sum(len(line.words) >= MIN_WORDS_PER_LINE and line.width >= MIN_FILL * long_line for line in lines)
    return prose >= max(MIN_COLUMN_LINES, MIN_PROSE_SHARE * len(lines))


def _is_table(left: list[_Line], right: list[_Line]) -> bool:
    """Both sides of the gutter hold lines enough to tell, and neither is prose: a table the gutter runs
    through (a full-width one between two spanning captions), read by rows."""
    return min(len(left), len(right)) >= MIN_COLUMN_LINES and not (_is_prose(left) or _is_prose(right))


def _segments(lines: list[_Line], gutter: float):
    """(crossing, left, right) from top to bottom: a run of lines crossing the gutter, or the lines left and
    right of it down to the next crossing line (one of the two parts empty)."""
    crossing: list[_Line] = []
    left: list[_Line] = []
    right: list[_Line] = []
    for line in sorted(lines, key=lambda line: (line.top, line.box[0])):
        crosses = line.box[0] < gutter < line.box[2]
        if crosses and (left or right):
            yield [], left, right
            left, right = [], []
        elif not crosses and crossing:
            yield crossing, [], []
            crossing = []
        if crosses:
            crossing.append(line)
        else:
            (left if line.box[2] <= gutter else right).append(line)
    if crossing:
        yield crossing, [], []
    if left or right:
        yield [], left, right


def _rows(lines: list[_Line]) -> list[list[_Line]]:
    """Top to bottom; lines at the same height form one row, read left to right."""
    rows: list[list[_Line]] = []
    for line in sorted(lines, key=_centre_y):
        if rows and _same_row(rows[-1][0], line):
            rows[-1].append(line)
        else:
            rows.append([line])
    return [sorted(row, key=lambda line: line.box[0]) for row in rows]


def _same_row(anchor: _Line, line: _Line) -> bool:
    """Either line's vertical centre lies within the other's height (measured against the row's first line,
    so a row does not creep down the page)."""
    return anchor.top <= _centre_y(line) <= anchor.bottom or line.top <= _centre_y(anchor) <= line.bottom


def _centre_y(line: _Line) -> float:
    return (line.top + line.bottom) / 2
