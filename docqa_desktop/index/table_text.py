"""A table's grid from its words' alignment alone, for tables with no rules between their columns (ruled across
only, or not at all) and for scanned pages, whose OCR words have no rules to go by.

After Camelot's stream flavour (and Nurminen's text-edge analysis before it): the words stand on lines (a row
each); a line's words close together make one piece of text; the lines with the most common number of pieces
place the columns, each piece's extent widening its column; pieces of other lines that fall outside every column
add columns of their own; a piece reaching over several columns spans them (a header over "Male" and "Female").
"""
from __future__ import annotations

import re
from dataclasses import dataclass

# words: PyMuPDF's tuples (x0, y0, x1, y1, text, ...), OCR words turned into the same shape
Word = tuple

SAME_LINE = 0.5  # a word whose centre is within half a line's height of the line's centre stands on it
PIECE_GAP = 0.9  # words closer than this many line heights apart are one piece of text ("Czech Republic")
LONG_PIECE = 5  # words: a piece this long is running text (a paragraph's line, a column of a two-column page)
ACROSS = 0.6  # of a table's width: a line of running text this wide above or below its rows is a title or note
THIN_SPACE = 0.4  # line heights: a gap this narrow between "15" and "455" sets thousands apart, not columns
MIN_COLUMNS = 2
MIN_ROWS = 2
_GROUP = re.compile(r"\d{3}(?:[.,]\d+)?%?")  # the thousands after the first group: "455", "068,5"
_LEADING = re.compile(r"[-−(]?\d{1,3}")
CAPTION = re.compile(r"(?:table|figure|source|note)s?\b", re.I)


@dataclass(frozen=True)
class Piece:
    """Words of a line that read as one: a cell's text, or a header over several cells."""
    x0: float
    y0: float
    x1: float
    y1: float
    text: str
    words: tuple = ()


def lines_of(words: list[Word]) -> list[list[Word]]:
    """The words grouped into lines by their vertical centres, top down, each line left to right; rules and leaders
    typed as text ("-------", "........") are no words."""
    lines: list[list[Word]] = []
    for word in sorted((w for w in words if not _typed_rule(w[4])), key=lambda w: (w[1] + w[3]) / 2):
        middle, height = (word[1] + word[3]) / 2, word[3] - word[1]
        if lines:
            first = lines[-1][0]  # the line's first word, not its extent: a line grown tall would take the next
            if abs(middle - (first[1] + first[3]) / 2) <= SAME_LINE * min(height, first[3] - first[1]):
                lines[-1].append(word)
                continue
        lines.append([word])
    return [sorted(line, key=lambda w: w[0]) for line in lines]


def pieces_of(line: list[Word]) -> list[Piece]:
    """The line's words joined where the gap between them is less than PIECE_GAP of the line's height and the
    text puts them on one line."""
    height = max(w[3] - w[1] for w in line)
    groups: list[list[Word]] = [[line[0]]]
    for word in line[1:]:
        if word[0] - groups[-1][-1][2] < PIECE_GAP * height and _one_line(groups[-1][-1], word):
            groups[-1].append(word)
        else:
            groups.append([word])
    return [_piece(part) for group in groups for part in _figures_apart(group)]


def _figures_apart(words: list[Word]) -> list[list[Word]]:
    """Figures set close are figures of neighbouring columns ("1,144 193.5"), a figure each, but for a figure in
    brackets after one (its share or spread: "63 (18.5%)") and for thousands set apart by a thin space
    ("15 455")."""
    if not all(is_figure(w[4]) for w in words):
        return [words]
    parts: list[list[Word]] = []
    for word in words:
        if parts and (word[4].startswith("(") or _thousands(parts[-1], word)):
            parts[-1].append(word)
        else:
            parts.append([word])
    return parts


def _thousands(part: list[Word], word: Word) -> bool:
    before = part[-1]
    return bool(_GROUP.fullmatch(word[4]) and _LEADING.fullmatch(before[4] if len(part) == 1 else "0")
                and word[0] - before[2] < THIN_SPACE * (word[3] - word[1]))


def _piece(words: list[Word]) -> Piece:
    return Piece(min(w[0] for w in words), min(w[1] for w in words), max(w[2] for w in words),
                 max(w[3] for w in words), " ".join(w[4] for w in words), tuple(words))


def _typed_rule(text: str) -> bool:
    return len(text) >= 3 and not text.strip("-_=.…·")


def _one_line(left: Word, right: Word) -> bool:
    """Whether two words are of one line of text where the words say (PyMuPDF's block and line numbers): the PDF's
    text sets a cell's words as one line, the next cell's as another, however close."""
    return len(left) < 7 or len(right) < 7 or left[5:7] == right[5:7]


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
    """A cell of the aligned grid: its text, its box (across the columns it spans) and where its words start."""
    text: str
    bbox: tuple[float, float, float, float]
    indent: float


def aligned_rows(words: list[Word]) -> list[list[AlignedCell | None]] | None:
    """The words as a grid of rows (one a line), a cell per column; None where a cell spans into that column,
    an empty cell ("" text) where a row has nothing. None when the words do not align into columns."""
    rows = _trimmed([pieces_of(line) for line in lines_of(words)])
    columns = columns_of(rows)
    if len(columns) < MIN_COLUMNS or len(rows) < MIN_ROWS:
        return None
    edges = [columns[0][0]] + [(a[1] + b[0]) / 2 for a, b in zip(columns, columns[1:])] + [columns[-1][1]]
    extents = [(min(p.y0 for p in row), max(p.y1 for p in row)) for row in rows]
    placed = [_placed(row, edges) for row in rows]
    # the header: the rows above the first with a figure beside its label; a table of words alone has one
    first_data = next((r for r, row in enumerate(placed) if any(is_figure(p.text) for p, first, _ in row if first)),
                      1)
    headed = max((r + 1 for r, row in enumerate(placed[:first_data]) if any(first for _, first, _ in row)), default=0)
    placed[:headed] = _stub_stacked([_shared_out(row, edges) for row in placed[:headed]])
    placed, extents, first_data = _header_lines_joined(placed, extents, first_data)
    rows_kept: list[tuple[list[Placed], tuple[float, float]]] = []
    for r, (row, extent) in enumerate(zip(placed, extents)):
        if rows_kept and r > first_data and _continues(rows_kept[-1][0], row):
            above, (top, _) = rows_kept[-1]
            rows_kept[-1] = (above + row, (top, extent[1]))
        else:
            rows_kept.append((row, extent))
    return [_cells(row, edges, top, bottom) for row, (top, bottom) in rows_kept]


def _header_lines_joined(placed: list[list[Placed]], extents: list[tuple[float, float]], first_data: int):
    """Header lines that are the next line of the header cells above them, one cell a column, are joined to them
    ("to air" over "kg/year", "Proportion" over "(total)"): a header line of words in columns that all hold words in
    the line above, neither with a header spanning columns."""
    rows, spans = [placed[0]], [extents[0]]
    for r in range(1, len(placed)):
        above, row = rows[-1], placed[r]
        if r < first_data and row and above and _one_a_column(above) and _one_a_column(row) and \
                {first for _, first, _ in row} <= {first for _, first, _ in above}:
            rows[-1], spans[-1] = above + row, (spans[-1][0], extents[r][1])
            first_data -= 1
        else:
            rows.append(row)
            spans.append(extents[r])
    return rows, spans, first_data


def _one_a_column(row: list[Placed]) -> bool:
    return all(first == last for _, first, last in row) and not any(is_figure(p.text) for p, _, _ in row)


def _continues(above: list[Placed], row: list[Placed]) -> bool:
    """Whether a body row is the next line of the cells above it, written over several lines: words alone, under
    cells of words, with nothing in the first column ("more of any one air toxic" under "Emissions of 10 tons");
    or a first column going on in lower case ("the analysis" under "Number of member states in") or in brackets
    alone, where no other column holds something in both."""
    if not row or any(is_figure(piece.text) for piece, _, _ in row):
        return False
    filled_above = {c for _, first, last in above for c in range(first, last + 1)}
    filled = {c for _, first, last in row for c in range(first, last + 1)}
    label = next((piece.text for piece, first, _ in row if first == 0), "")
    if not label:
        return filled <= filled_above
    going_on = label[:1].islower() or (label[:1] == "(" and filled == {0})  # "(as HCl)" under its compound
    return going_on and 0 in filled_above and not (filled & filled_above) - {0}


def _trimmed(rows: list[list[Piece]]) -> list[list[Piece]]:
    """The rows without the title or notes a region took in above or below the table: lines of running text
    alone across most of its width ("schools, by control of school: Fall 1996 through fall 2021", "¹ Includes
    private nursery …"), or opening "Table 3", "Source:", "Note:"."""
    if not rows:
        return rows
    width = max(p.x1 for row in rows for p in row) - min(p.x0 for row in rows for p in row)

    def aside(row: list[Piece]) -> bool:
        return len(row) == 1 and (CAPTION.match(row[0].text) is not None or (
            len(row[0].text.split()) >= LONG_PIECE and row[0].x1 - row[0].x0 > ACROSS * width))
    first = next((r for r, row in enumerate(rows) if not aside(row)), len(rows))
    if 0 < first < len(rows) and any(is_figure(p.text) for p in rows[first][1:]):
        first -= 1  # the line just above figures heads them ("Percentage difference between actual and …")
    last = next((r for r in range(len(rows) - 1, first - 1, -1) if not aside(rows[r])), first - 1)
    return rows[first:last + 1]


Placed = tuple[Piece, int, int]  # a piece and the first and last column it covers


def _placed(row: list[Piece], edges: list[float]) -> list[Placed]:
    """Each piece with the columns it covers: those whose edges it crosses, while no other piece of the row
    stands in them (else the one it overlaps most); a piece whose words each stand inside one column ("no. Rate"
    set close over two columns) is a piece a column."""
    placed = []
    for piece in (part for piece in row for part in _parted(piece, edges)):
        first, last = _first_last(piece, edges)
        others = {c for other in row if other is not piece for c in range(*_first_last(other, edges, True))}
        if first < last and any(c in others for c in range(first, last + 1)):
            first = last = max(range(first, last + 1),
                               key=lambda c: min(piece.x1, edges[c + 1]) - max(piece.x0, edges[c]))
        placed.append((piece, first, last))
    return placed


def _parted(piece: Piece, edges: list[float]) -> list[Piece]:
    first, last = _first_last(piece, edges)
    if first == last or not piece.words:
        return [piece]
    columns = [_first_last(_piece([w]), edges) for w in piece.words]
    if any(a != b for a, b in columns):
        return [piece]
    by_column: dict[int, list[Word]] = {}
    for word, (column, _) in zip(piece.words, columns):
        by_column.setdefault(column, []).append(word)
    return [_piece(words) for words in by_column.values()]


def _first_last(piece: Piece, edges: list[float], end_exclusive: bool = False) -> tuple[int, int]:
    columns = len(edges) - 1
    first = max(0, min(columns - 1, next((c for c in range(columns) if piece.x0 < edges[c + 1]), columns - 1)))
    last = max(first, next((c for c in reversed(range(columns)) if piece.x1 > edges[c]), first))
    return (first, last + 1) if end_exclusive else (first, last)


def _shared_out(row: list[Placed], edges: list[float]) -> list[Placed]:
    """A header row where a piece spans columns heads groups of columns: each column but the first goes to the
    piece whose middle is nearest its own ("Stroke" beside "Coronary heart disease" heads its own "no. Rate
    (95% CI)")."""
    if len(row) < 2 or not any(last > first for _, first, last in row):
        return row
    spans = [[first, last] for _, first, last in row]
    middles = [(p.x0 + p.x1) / 2 for p, _, _ in row]
    for c in range(1, len(edges) - 1):
        nearest = min(range(len(row)), key=lambda i: abs(middles[i] - (edges[c] + edges[c + 1]) / 2))
        if not any(first <= c <= last for first, last in spans):
            spans[nearest] = [min(spans[nearest][0], c), max(spans[nearest][1], c)]
    return [(piece, first, last) for (piece, _, _), (first, last) in zip(row, spans)]


def _stub_stacked(header: list[list[Placed]]) -> list[list[Placed]]:
    """The header rows' words in the first column are one label written over several lines ("Age / group /
    (yrs)"): joined, in the first header row."""
    stub = [(r, i) for r, row in enumerate(header) for i, (_, first, last) in enumerate(row) if first == last == 0]
    if len(stub) < 2:
        return header
    pieces = [header[r][i][0] for r, i in stub]
    joined = Piece(min(p.x0 for p in pieces), min(p.y0 for p in pieces), max(p.x1 for p in pieces),
                   max(p.y1 for p in pieces), " ".join(p.text for p in pieces))
    kept = [[placed for i, placed in enumerate(row) if (r, i) not in stub] for r, row in enumerate(header)]
    kept[0].insert(0, (joined, 0, 0))
    return kept


def _cells(row: list[Placed], edges: list[float], top: float, bottom: float) -> list[AlignedCell | None]:
    cells: list[AlignedCell | None] = [AlignedCell("", (edges[c], top, edges[c + 1], bottom), edges[c])
                                       for c in range(len(edges) - 1)]
    for piece, first, last in row:
        held = cells[first]
        text = f"{held.text} {piece.text}".strip() if held is not None else piece.text
        cells[first] = AlignedCell(text, (edges[first], top, edges[last + 1], bottom),
                                   piece.x0 if held is None or not held.text else held.indent)
        for c in range(first + 1, last + 1):
            cells[c] = None
    return cells


def is_figure(text: str) -> bool:
    """A figure, or a span of them: digits and no letters ("2,213.2", "(95.1–97.3)", "12%")."""
    return any(ch.isdigit() for ch in text) and not any(ch.isalpha() for ch in text)
