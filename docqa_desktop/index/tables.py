"""Tables read as tables: PyMuPDF's grid, each cell's text read again from the words inside its box, header rows
and row labels turned into a header path per cell, numbers normalised.

`Table.extract()` glues and mangles the numbers of real statements ("46,298" -> "46298\\n,", "6.31" -> "631.");
the page's own words inside each cell's box come out as printed. A cell merged into its left neighbour (a header
spanning columns) gives that neighbour's text to every column it spans, so "January 28, 2023" heads both the
"$" column and the figure under it.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace

import pymupdf

from .. import numbers
from . import table_finding, table_text
from ..domain import BBox, TableCell, TableOnPage, Word
from ..pdf.document import page_turn
from ..pdf.orientation import moved, moved_table, turned_upright, upright, words_turn

# grids tried in order inside a region the layout model calls a table: ruled, then rules across with columns
# from the text's alignment (papers' booktabs), then alignment alone
ALIGNED = {"strategy": "text"}
STRATEGIES = ({"strategy": "lines"}, {"horizontal_strategy": "lines", "vertical_strategy": "text"}, ALIGNED)
MIN_COLUMNS = 2
REGION_MARGIN = 8  # points around a layout region: its box may cut the table's outer rules
CROWDED = 0.1  # the share of a ruled grid's cells holding words apart in columns past which its rules miss columns
MIN_FILLED = 0.45  # the least share of its body's cells a table found by alignment alone fills (not a chart's labels)
MAX_MERGED = 0.5  # the most of a ruled grid's cells that may be merged into others for it to be a table's
MATCH = 0.5  # the least intersection over union of a table found and the layout region it is read for
_SCALE = re.compile(r"\bin\s+(thousands|millions|billions)\b|\(\s*(?:[$€£]\s*)?(?:in\s+)?(thousands|millions|"
                    r"billions)\s*\)|\b(thousands|millions|billions)\s+of\s+(?:dollars|euros|usd)\b", re.I)
SCALES = {"thousands": 1e3, "millions": 1e6, "billions": 1e9}
_ASIDE = re.compile(r"(?<=[\d%])\s*(?:\(\s*±?\s*[\d.,]+%?\s*\)|±\s*[\d.,]+%?)$")
_CURRENCY_ONLY = re.compile(rf"^[{numbers.CURRENCY}]$")
_AMOUNT_LED = re.compile(rf"[{numbers.CURRENCY}]\s?\d")
_YEAR = re.compile(r"^(?:FY\s?)?(?:19|20)\d\d[A-Z]?$")
LINE_GAP = 0.5  # words whose centres are closer than half a word's height apart stand on one line
CAPTION_REACH = 40  # points above a table within which a text block is its caption ("$ in millions", "Table 3")


@dataclass(frozen=True)
class PageText:
    """What every table of a page is read from, taken from the page once: its words and its text blocks."""
    words: list[tuple]
    blocks: list[tuple]

    @classmethod
    def of(cls, page: pymupdf.Page) -> PageText:
        """The page's words and blocks where the page shows them: a page turned by its /Rotate has its text
        extracted unturned, its table regions and rules found turned."""
        words, blocks = page.get_text("words"), page.get_text("blocks")
        if page.rotation:
            turn = page.rotation_matrix
            words, blocks = ([(*(pymupdf.Rect(item[:4]) * turn), *item[4:]) for item in found]
                             for found in (words, blocks))
        return cls(words, blocks)


@dataclass(frozen=True)
class GridCell:
    text: str
    bbox: BBox
    indent: float  # where its first word starts: a row label further right belongs to the section above


@dataclass(frozen=True)
class Grid:
    """One table as found: a row of cells each, None where a cell is merged into its neighbour."""
    bbox: BBox
    rows: list[list[GridCell | None]]
    caption: str = ""


def tables_on(page: pymupdf.Page, regions: list[BBox] | None) -> list[TableOnPage]:
    """The tables read inside `regions` (the layout model's table boxes), or anywhere on the page when None."""
    return [table for _, table in grids_on(page, regions)]


def scanned_tables(words: list[Word], regions: list[BBox] | None) -> list[TableOnPage]:
    """The tables of a page read by OCR, from its words' boxes alone (a scan has no rules to go by, and its
    words no line of the PDF's text), inside `regions` or found on the whole page; marked as read from the scan."""
    return [replace(table, from_scan=True) for _, table in scanned_grids(words, regions)]


def scanned_grids(words: list[Word], regions: list[BBox] | None) -> list[tuple[Grid, TableOnPage]]:
    """scanned_tables' grids and tables, read in the frame where the words run left to right (a scan of a page
    turned on its side), boxes in the page as shown."""
    turn = words_turn(words)
    if not turn:
        return _scanned_grids(words, regions)
    # any frame turned so will do, read and mapped back by the same matrix: the words' extent stands for the page
    width, height = (max(w.bbox[i] for w in words) for i in (2, 3))
    to_upright = upright(turn, width, height)
    found = _scanned_grids([replace(w, bbox=moved(w.bbox, to_upright)) for w in words],
                           None if regions is None else [moved(r, to_upright) for r in regions])
    return [_moved(pair, ~to_upright) for pair in found]


def _scanned_grids(words: list[Word], regions: list[BBox] | None) -> list[tuple[Grid, TableOnPage]]:
    boxes = [(*w.bbox, w.text) for w in words]
    lines = table_text.lines_of(boxes)
    text = PageText(boxes, [(min(w[0] for w in line), min(w[1] for w in line), max(w[2] for w in line),
                             max(w[3] for w in line), " ".join(w[4] for w in line)) for line in lines])
    if regions is None:
        return _aligned_tables(text, table_finding.table_regions(boxes))
    found = (_aligned(text, _grown(region)) for region in regions)
    return [pair for pair in found if pair is not None]


def grids_on(page: pymupdf.Page, regions: list[BBox] | None) -> list[tuple[Grid, TableOnPage]]:
    """Each table as found (its grid, header rows included) and as read (tables_on's). In a region (the layout
    model called it a table, so a table of words alone counts): its ruled grid (found over the whole page once: a
    region hugs the text and may cut the table's outer rules) unless the words inside its cells stand apart in
    columns the rules do not draw, or its rules box the body alone and leave the header out; else the grid of the
    words' alignment; else PyMuPDF's rules across with aligned columns, then its alignment alone. Regions and what
    is found are in the page as shown; text turned on it (a landscape table printed on a portrait page) is read with
    the page turned so that it stands upright."""
    turn = page_turn(page)
    with turned_upright(page, turn) as back:
        found = _grids_on(page, None if regions is None else [moved(r, ~back) for r in regions])
    return [_moved(pair, back) for pair in found] if turn else found


def _moved(pair: tuple[Grid, TableOnPage], matrix: pymupdf.Matrix) -> tuple[Grid, TableOnPage]:
    """A table found in a turned frame, its boxes mapped back by `matrix` to the page as shown."""
    grid, table = pair
    rows = [[None if cell is None else replace(cell, bbox=moved(cell.bbox, matrix)) for cell in row]
            for row in grid.rows]
    return replace(grid, bbox=moved(grid.bbox, matrix), rows=rows), moved_table(table, matrix)


def _grids_on(page: pymupdf.Page, regions: list[BBox] | None) -> list[tuple[Grid, TableOnPage]]:
    text = PageText.of(page)
    if regions is None:
        return _whole_page(page, text)
    found: list[tuple[Grid, TableOnPage]] = []
    whole_page: dict[int, list[tuple[Grid, TableOnPage]]] = {}
    for region in regions:
        clip = _grown(region)
        ruled = [pair for pair in whole_page.setdefault(0, _read(page, text, STRATEGIES[0], None, True))
                 if _overlap(pair[1].bbox, region) >= MATCH and pair not in found]
        aligned = _aligned(text, clip)
        if aligned and (not ruled or _crowded(ruled[0][0], text.words) or
                        ruled[0][1].header_rows < min(1, aligned[1].header_rows)):  # rules around its body alone
            found.append(aligned)
            continue
        for i, strategy in enumerate(STRATEGIES):
            if strategy is ALIGNED:
                candidates = _read(page, text, strategy, clip, True)
            else:
                candidates = whole_page.setdefault(i, _read(page, text, strategy, None, True))
            matching = [pair for pair in candidates if _overlap(pair[1].bbox, region) >= MATCH and pair not in found]
            if matching:
                found += matching[:1]
                break
    return found


def _whole_page(page: pymupdf.Page, text: PageText) -> list[tuple[Grid, TableOnPage]]:
    """The tables of a page no layout model has looked at: its ruled grids, and the runs of lines whose words
    align in columns (index/table_finding.py). A ruled grid whose rules miss columns is read by alignment over
    its box and the aligned lines that reach out of it (a header above its rules); a table found by alignment
    alone holds a figure under a header (words alone in columns are too often a list or a form)."""
    regions = table_finding.table_regions(text.words)
    found = []
    for grid, table in _read(page, text, STRATEGIES[0], None, words_alone=True):
        if read_table(grid) is None and not _grid_like(grid, table):
            continue  # words alone in a chart's gridlines, a form's boxes
        if _crowded(grid, text.words):
            box = pymupdf.Rect(grid.bbox)
            for region in (r for r in regions if pymupdf.Rect(r).intersects(grid.bbox)):
                box |= region
            found.append(_aligned(text, box, words_alone=False) or (grid, table))
        else:
            found.append((grid, table))
    alone = [r for r in regions if not any(pymupdf.Rect(r).intersects(grid.bbox) for grid, _ in found)]
    return sorted(found + _aligned_tables(text, alone), key=lambda pair: (pair[0].bbox[1], pair[0].bbox[0]))


def _aligned_tables(text: PageText, regions: list[BBox]) -> list[tuple[Grid, TableOnPage]]:
    """The tables read by alignment in regions found without a layout model: each holds a figure under a header
    and fills its body like a table."""
    found = []
    for region in regions:
        aligned = _aligned(text, _grown(region), words_alone=False)
        if aligned and _filled(aligned[1]) >= MIN_FILLED:
            found.append(aligned)
    return found


def _grid_like(grid: Grid, table: TableOnPage) -> bool:
    """Whether a ruled grid of words alone is a table's: it fills its body (MIN_FILLED) and most of its cells are
    cells, not parts of a merged box (a chart's gridlines and bars make boxes over many cells, with a label here
    and there)."""
    merged = sum(cell is None for row in grid.rows for cell in row)
    return _filled(table) >= MIN_FILLED and merged <= MAX_MERGED * sum(len(row) for row in grid.rows)


def _filled(table: TableOnPage) -> float:
    """The share of the body's grid that holds something: a table fills most of its cells, a chart's scattered
    labels and ticks lined up in columns fill few."""
    covered = sum(cell.column_span for cell in table.body)
    return covered / max(1, (table.rows - table.header_rows) * table.columns)


def _read(page: pymupdf.Page, text: PageText, strategy: dict, clip, words_alone: bool = False
          ) -> list[tuple[Grid, TableOnPage]]:
    # use_layout=False: the regions are the layout stage's already; with pymupdf.layout loaded, find_tables
    # would run the layout model again on every call (0.5 s a call here)
    grids = [_grid(text, t) for t in page.find_tables(clip=clip, use_layout=False, **strategy)
             if t.col_count >= MIN_COLUMNS]
    return [(grid, table) for grid in grids if (table := read_table(grid, words_alone)) is not None]


def _aligned(text: PageText, clip: pymupdf.Rect, words_alone: bool = True) -> tuple[Grid, TableOnPage] | None:
    """The table the words inside `clip` make by their alignment alone (index/table_text.py), if they make one."""
    rows = table_text.aligned_rows(_inside(text.words, clip))
    if rows is None:
        return None
    grid_rows = [[None if cell is None else GridCell(cell.text, cell.bbox, cell.indent) for cell in row]
                 for row in rows]
    cells = [c for row in grid_rows for c in row if c is not None]
    bbox = (min(c.bbox[0] for c in cells), min(c.bbox[1] for c in cells), max(c.bbox[2] for c in cells),
            max(c.bbox[3] for c in cells))
    grid = Grid(bbox, grid_rows, _caption(text.blocks, bbox))
    table = read_table(grid, words_alone)
    return (grid, table) if table is not None else None


def _crowded(grid: Grid, words: list[tuple]) -> bool:
    """Whether a ruled grid leaves columns undrawn: more than CROWDED of its cells hold a line of words standing
    apart like cells of their own ("Austria 86.2 13.8 0 3,375" under rules across only)."""
    cells = [cell for row in grid.rows for cell in row if cell is not None and cell.text]
    apart = sum(any(len(table_text.pieces_of(line)) > 1 for line in table_text.lines_of(_inside(words, cell.bbox)))
                for cell in cells)
    return apart > CROWDED * len(cells)


def _grown(region: BBox) -> pymupdf.Rect:
    return pymupdf.Rect(region) + (-REGION_MARGIN, -REGION_MARGIN, REGION_MARGIN, REGION_MARGIN)


def _inside(words: list[tuple], box) -> list[tuple]:
    x0, y0, x1, y1 = box
    return [w for w in words if x0 <= (w[0] + w[2]) / 2 <= x1 and y0 <= (w[1] + w[3]) / 2 <= y1]


def _overlap(a: BBox, b: BBox) -> float:
    """Intersection over union of two boxes."""
    def area(box):
        return max(0.0, box[2] - box[0]) * max(0.0, box[3] - box[1])
    inside = area((max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3])))
    return inside / (area(a) + area(b) - inside or 1.0)


def _grid(text: PageText, table) -> Grid:
    """The grid's rows, each cell read across its row; in its own box where the next row starts inside this one with
    cells of its own (a row beside a label merged over several rows is as tall as that label, its other cells are
    not); line by line where stacked rows ran together."""
    rows = []
    for row, after in zip(table.rows, [*table.rows[1:], None]):
        lines = _lines_of(text.words, row)
        if len(lines) == 1 and after is not None and after.bbox[1] < row.bbox[3] - 1 and any(after.cells):
            rows.append([None if box is None else _cell(text.words, box) for box in row.cells])
            continue
        for top, bottom in lines:
            rows.append([None if box is None else _cell(text.words, (box[0], top, box[2], bottom))
                         for box in row.cells])
    return Grid(tuple(float(v) for v in table.bbox), rows, _caption(text.blocks, table.bbox))


def _lines_of(words: list[tuple], row) -> list[tuple[float, float]]:
    """The row's extent, or one extent per line of text where the grid merged stacked rows into one (a paper's
    table ruled only above and below its body): several columns with a word on more than one line, and a label
    on every line."""
    x0, y0, x1, y1 = row.bbox
    inside = sorted((w for w in words if x0 <= (w[0] + w[2]) / 2 <= x1 and y0 <= (w[1] + w[3]) / 2 <= y1),
                    key=lambda w: (w[1] + w[3]) / 2)
    lines: list[list[tuple]] = []
    for word in inside:
        if lines and (word[1] + word[3]) / 2 - (lines[-1][-1][1] + lines[-1][-1][3]) / 2 < LINE_GAP * (word[3] - word[1]):
            lines[-1].append(word)
        else:
            lines.append([word])
    columns = [box for box in row.cells if box is not None]
    lines_in = [sum(any(box[0] <= (w[0] + w[2]) / 2 <= box[2] for w in line) for line in lines) for box in columns]
    # rows run together carry a label on each line; a row of cells written over several lines does not
    if len(lines) < 2 or sum(n > 1 for n in lines_in) < 2 or lines_in[0] < len(lines):
        return [(y0, y1)]
    edges = [y0] + [(min(w[1] for w in b) + max(w[3] for w in a)) / 2 for a, b in zip(lines, lines[1:])] + [y1]
    return list(zip(edges, edges[1:]))


def _cell(words: list[tuple], box) -> GridCell:
    """The cell as the page's words whose centre is inside its box, in reading order."""
    x0, y0, x1, y1 = box
    inside = [w for w in words if x0 <= (w[0] + w[2]) / 2 <= x1 and y0 <= (w[1] + w[3]) / 2 <= y1]
    inside.sort(key=lambda w: (w[5], w[6], w[7]))  # block, line, word: the page's reading order
    return GridCell(" ".join(w[4] for w in inside), tuple(float(v) for v in box),
                    min((w[0] for w in inside), default=x0))


def _caption(blocks: list[tuple], bbox) -> str:
    """The text blocks just above the table and across it: a title, "$ in millions", "Table 3: …"."""
    x0, y0, x1, _ = bbox
    above = [b for b in blocks if y0 - CAPTION_REACH <= b[3] <= y0 + 2 and b[2] > x0 and b[0] < x1]
    return " ".join(" ".join(b[4].split()) for b in sorted(above, key=lambda b: (b[1], b[0])))


def read_table(grid: Grid, words_alone: bool = False) -> TableOnPage | None:
    """The grid as cells with header paths: header rows are the rows above the first one holding a number
    outside its first column; a row's path is its label, under the label of a section row ("Other income
    (expense):") above it. None when nothing in it is a figure under a header (a layout grid, not a table),
    unless it may be a table of words alone (the layout model called it a table): then its first row heads it."""
    texts = _spanned(grid)
    first_data = next((r for r, row in enumerate(texts) if _holds_figures(row)), None)
    if words_alone and not first_data:
        first_data = min(1, len(texts) - 1) if first_data is None else 0
    elif not first_data:  # no figure, or none under a header
        return None
    columns = len(texts[0])
    labels = _label_columns(texts, first_data)
    if columns - labels < 1:  # labels alone
        return None
    headers = [" / ".join(dict.fromkeys(t for t in _column_header(texts[:first_data], c, labels) if t))
               for c in range(columns)]
    header_text = " ".join(" ".join(row) for row in texts[:first_data])
    scale = scale_of(f"{grid.caption} {header_text}")
    cells = [TableCell(r, c, cell.text, "", "", parse_number(cell.text), box, 1, span, header=True)
             for r in range(first_data) for c, cell, span, box in _spans(grid.rows[r])]
    for r, path in zip(range(first_data, len(texts)), _row_paths(grid, texts, first_data, labels)):
        cells += [TableCell(r, c, cell.text, path if c >= labels else "", headers[c], parse_number(cell.text), box,
                            1, span) for c, cell, span, box in _spans(grid.rows[r])]
    return TableOnPage(grid.bbox, grid.caption, scale, len(texts), columns, first_data, tuple(cells))


def _spans(row: list[GridCell | None]):
    """(column, cell, columns spanned, box across them) of each non-empty cell of a grid row: a cell merged into its
    left neighbour (None) widens it."""
    for c, cell in enumerate(row):
        if cell is None or not cell.text:
            continue
        span = next((n for n, other in enumerate(row[c + 1:], 1) if other is not None), len(row) - c)
        last = next((other for other in reversed(row[c:c + span]) if other is not None), cell)
        yield c, cell, span, (cell.bbox[0], cell.bbox[1], max(cell.bbox[2], last.bbox[2]), cell.bbox[3])


def _label_columns(texts: list[list[str]], first_data: int) -> int:
    """How many columns at the left hold a row's label (a grid aligned by its text splits "PaLM-2L + CoT" over
    three): those before the first with a figure in a data row, or with nothing but currency signs ("$")."""
    data = texts[first_data:]
    for c in range(1, len(texts[0])):
        held = [row[c] for row in data if row[c]]
        if any(parse_number(t) is not None for t in held) or (held and all(_CURRENCY_ONLY.match(t) for t in held)):
            return c
    return 1


def _column_header(header_rows: list[list[str]], column: int, labels: int) -> list[str]:
    """A column's header, top down; a header row's own label ("Fiscal Years Ended") heads each of its columns."""
    if column < labels:
        return [row[column] for row in header_rows]
    return [part for row in header_rows
            for part in ((" ".join(t for t in row[:labels] if t), row[column]) if row[column] else ())]


def _row_paths(grid: Grid, texts: list[list[str]], first_data: int, labels: int) -> list[str]:
    """Each data row's label under the section row above it: a row of a label alone ("Other income (expense):")
    opens a section that holds the rows labelled further right, until one at its own indent or left of it."""
    paths, section, section_indent = [], "", 0.0
    for r in range(first_data, len(texts)):
        label, first = " ".join(dict.fromkeys(t for t in texts[r][:labels] if t)), grid.rows[r][0]
        indent = first.indent if first is not None else 0.0
        if section and indent <= section_indent + 1:
            section = ""
        if label and not _holds_figures(texts[r]) and not any(texts[r][labels:]):
            section, section_indent = label.rstrip(": "), indent
            paths.append(label)
            continue
        paths.append(f"{section}: {label}" if section and label else label)
    return paths


def _holds_figures(row: list[str]) -> bool:
    """A row with a figure outside its label, or an amount that leads a cell ("$9,594 or less", "$9,595–$17,992");
    a row of years alone ("2023 2022") heads columns."""
    figures = [t for t in row[1:] if parse_number(t) is not None or _AMOUNT_LED.match(t)]
    return bool(figures) and not all(_YEAR.match(t.strip()) for t in figures)


def _spanned(grid: Grid) -> list[list[str]]:
    """Each cell's text; a merged cell takes its left neighbour's (a header spans its columns)."""
    texts = []
    for row in grid.rows:
        line, last = [], ""
        for cell in row:
            text = cell.text if cell is not None else last
            line.append(text)
            last = text
        texts.append(line)
    return texts


def parse_number(text: str) -> float | None:
    """A cell's number as a value: "46,298" 46298, "(34)" -34, "$6.31" 6.31, "77%" 77, "—" None; a spread
    after it is left out ("66.4% (0.8%)", "45.2 ± 0.3")."""
    number = numbers.value(_ASIDE.sub("", text.strip()))
    return float(number.value) if number else None


def scale_of(text: str) -> float:
    """The scale a table's caption or header gives its figures ("$ in millions"), 1 when none."""
    match = _SCALE.search(text)
    return SCALES[next(g for g in match.groups() if g).lower()] if match else 1.0
