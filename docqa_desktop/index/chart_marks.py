"""What a chart is drawn with, taken off a page once: its filled marks (bars, legend swatches, dots, wedges), the
points of its stroked lines, and its words as pieces (a label each), with their colour, size and direction.

Report charts draw several bars in one path (Pew: one drawing, six `re` items, six bars), so marks are the items,
not the drawings. Rules, gridlines and axes are filled or stroked hairlines: thinner than MIN_THICKNESS, left out.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import pymupdf

from ..domain import BBox
from .tables import parse_number

MIN_THICKNESS = 1.2  # points: a thinner rectangle is a rule or a gridline, not a bar
WHITE = 0.94  # every channel above it: a background, not a mark
MAX_PAGE_SHARE = 0.4  # a filled box over this share of the page is a panel's background
DOT = 14.0  # points: a closed curved shape no wider or taller is a dot (a marker), larger a wedge or a blob
PIECE_GAP = 0.6  # words further apart than this many heights on one text line are separate labels
Colour = tuple[float, float, float]


@dataclass(frozen=True)
class Mark:
    box: BBox
    colour: Colour
    shape: str  # "rect", "dot", "wedge"
    points: tuple[tuple[float, float], ...] = ()  # a wedge's outline (for its angle)


@dataclass(frozen=True)
class Line:
    """A stroked polyline of a line chart: its vertices, in drawing order."""
    colour: Colour
    points: tuple[tuple[float, float], ...]


@dataclass(frozen=True)
class Piece:
    """The words of one label: a text line's words standing together."""
    text: str
    box: BBox
    size: float
    colour: int  # sRGB as PyMuPDF gives it
    bold: bool
    turned: float  # degrees the text is turned from horizontal (0 level, 90 reading upwards)
    number: float | None  # its value when it is a figure ("34%" 34.0)

    @property
    def centre(self) -> tuple[float, float]:
        return (self.box[0] + self.box[2]) / 2, (self.box[1] + self.box[3]) / 2

    @property
    def names(self) -> bool:
        """Words, or a year ("2019"): a label that can name a series or a category, not a value."""
        text = self.text.strip()
        return self.number is None or (text.isdigit() and len(text) == 4)


class Reading:
    """What every chart reading (bars, points, wedges) gives the chart it becomes: its `values`, `categories`,
    `box`, `kind`, the pieces naming its categories and those it read as values or ticks; `totals`, the stack
    totals only bars print."""
    category_pieces: list[Piece]
    values_and_ticks: list[Piece]  # the pieces no other chart may read
    totals = ()

    @property
    def used(self) -> list[Piece]:
        """Every piece read as a category, a value or a tick."""
        return self.category_pieces + self.values_and_ticks


@dataclass(frozen=True)
class Drawn:
    marks: list[Mark]
    lines: list[Line]
    pieces: list[Piece]
    page: BBox


def drawn_on(page: pymupdf.Page) -> Drawn:
    area = page.rect.width * page.rect.height
    marks, lines = [], []
    for drawing in page.get_drawings():
        fill, stroke = drawing.get("fill"), drawing.get("color")
        if fill is not None and not _white(fill) and (drawing.get("fill_opacity") or 1) > 0.2:
            marks += [m for m in _marks(drawing, tuple(fill)) if _area(m.box) < MAX_PAGE_SHARE * area]
        elif fill is None and stroke is not None and not _white(stroke):
            lines += _polylines(drawing, tuple(stroke))
    return Drawn(marks, lines, pieces_of(page), tuple(page.rect))


def linked(count: int, pairs) -> list[list[int]]:
    """The indices 0..count-1 in chains: `pairs` (i, j) link two; each chain's indices in order."""
    parent = list(range(count))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, j in pairs:
        parent[root(i)] = root(j)
    chains: dict[int, list[int]] = {}
    for i in range(count):
        chains.setdefault(root(i), []).append(i)
    return list(chains.values())


def _white(colour) -> bool:
    return all(c > WHITE for c in colour[:3])


def _area(box: BBox) -> float:
    return (box[2] - box[0]) * (box[3] - box[1])


def _marks(drawing: dict, colour: Colour) -> list[Mark]:
    items = drawing["items"]
    if all(item[0] in ("re", "qu") for item in items):  # one rectangle an item: several bars in one path
        boxes = [tuple(item[1] if item[0] == "re" else item[1].rect) for item in items]
        return [Mark(b, colour, "rect") for b in boxes if min(b[2] - b[0], b[3] - b[1]) >= MIN_THICKNESS]
    box = tuple(drawing["rect"])
    width, height = box[2] - box[0], box[3] - box[1]
    if min(width, height) < MIN_THICKNESS:
        return []
    points = _points(items)
    curved = any(item[0] == "c" for item in items)
    if not curved and _axis_aligned(points):  # a bar drawn as a closed path of four lines
        return [Mark(box, colour, "rect")]
    if max(width, height) <= DOT:
        return [Mark(box, colour, "dot")]
    return [Mark(box, colour, "wedge", tuple(points))] if curved else []


def _points(items) -> list[tuple[float, float]]:
    points = []
    for item in items:
        for p in item[1:]:
            if isinstance(p, pymupdf.Point):
                points.append((p.x, p.y))
    return points


def _axis_aligned(points: list[tuple[float, float]]) -> bool:
    xs = {round(x, 1) for x, _ in points}
    ys = {round(y, 1) for _, y in points}
    return len(xs) <= 2 and len(ys) <= 2


def _polylines(drawing: dict, colour: Colour) -> list[Line]:
    """A stroked path's runs of straight segments: a line chart's series (its vertices are its data points)."""
    runs, run = [], []
    for item in drawing["items"]:
        if item[0] != "l":
            runs.append(run)
            run = []
            continue
        start, end = (item[1].x, item[1].y), (item[2].x, item[2].y)
        if run and _far(run[-1], start):
            runs.append(run)
            run = []
        if not run:
            run.append(start)
        run.append(end)
    runs.append(run)
    return [Line(colour, tuple(r)) for r in runs if len(r) >= 3 and not _straight(r)]


def _far(a, b) -> bool:
    return abs(a[0] - b[0]) + abs(a[1] - b[1]) > 0.5


def _straight(points: list[tuple[float, float]]) -> bool:
    """A gridline, an axis or a tick drawn in pieces: every point on one level or one upright."""
    return len({round(y) for _, y in points}) == 1 or len({round(x) for x, _ in points}) == 1


def pieces_of(page: pymupdf.Page) -> list[Piece]:
    """The page's labels: each text line split where its words stand apart, with its font's size, weight,
    colour and direction (the line's)."""
    pieces = []
    for block in page.get_text("rawdict")["blocks"]:
        for line in block.get("lines", ()):
            spans = [s for s in line["spans"] if any(not c["c"].isspace() for c in s["chars"])]
            if not spans:
                continue
            dx, dy = line["dir"]
            turned = round(math.degrees(math.atan2(-dy, dx)))
            pieces += _split(spans, turned)
    return _once(pieces)


def _once(pieces: list[Piece]) -> list[Piece]:
    """Each label once: a report may print a label twice in one place (Pew: black under grey, half a point off)."""
    kept: list[Piece] = []
    by_text: dict[str, list[Piece]] = {}
    for p in pieces:
        same = by_text.setdefault(p.text, [])
        if not any(math.dist(q.centre, p.centre) < p.size / 2 for q in same):
            same.append(p)
            kept.append(p)
    return kept


def _split(spans: list[dict], turned: float) -> list[Piece]:
    """A line's spans as labels: words a gap wider than PIECE_GAP heights apart start a new one (text only:
    turned lines are one label)."""
    words = []
    for span in spans:
        for chars in _span_words(span):
            words.append((chars, span))
    groups, group = [], []
    for (text, box), span in words:
        if group and not turned and box[0] - group[-1][0][1][2] > PIECE_GAP * span["size"]:
            groups.append(group)
            group = []
        group.append(((text, box), span))
    groups.append(group)
    return [_piece(g, turned) for g in groups if g]


def _span_words(span: dict) -> list[tuple[str, BBox]]:
    """A span's words with their boxes (from its characters')."""
    words, current = [], []
    for ch in span["chars"]:
        if ch["c"].isspace():
            if current:
                words.append(current)
            current = []
        else:
            current.append(ch)
    if current:
        words.append(current)
    return [("".join(c["c"] for c in w), (w[0]["bbox"][0], min(c["bbox"][1] for c in w), w[-1]["bbox"][2],
                                           max(c["bbox"][3] for c in w))) for w in words]


def enclosing(boxes) -> BBox:
    """The box around `boxes`."""
    boxes = list(boxes)
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))


def _piece(group, turned: float) -> Piece:
    text = " ".join(text for (text, _), _ in group)
    boxes = [box for (_, box), _ in group]
    span = group[0][1]
    return Piece(text, enclosing(boxes), span["size"], span["color"], bool(span["flags"] & 16), turned, _number(text))


def _number(text: str) -> float | None:
    stripped = text.strip().rstrip("*†")
    if not stripped or not any(ch.isdigit() for ch in stripped) or len(stripped) > 16:
        return None
    return parse_number(stripped)
