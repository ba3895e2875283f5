"""Line charts and dot plots read from their points: a stroked line's vertices and the dots (markers) drawn on the
page, a colour a series. Line charts put their categories under the points (years along the bottom); dot plots
put them left of rows of dots. A point's value is the figure printed next to it (in its series' colour when the
chart colours its labels, as Pew does), else its height read through the axis's ticks.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..domain import BBox
from .chart_axes import Frame, axis_scale
from .chart_bars import axis_text
from .chart_labels import srgb
from .chart_marks import Colour, Line, Mark, Piece, Reading, enclosing, linked

NEAR = 22.0  # points between a point and its printed value
GROUP = 40.0  # points between the boxes of two series of one chart
CATEGORY_DEPTH = 200.0  # points under the lowest point (or left of the leftmost) within which category labels stand
# points between two dots of one colour in one chart, one way and the other: a dot plot's rows stand far apart
DOT_GROUP, DOT_SPREAD = 80.0, 400.0
ALIGNED = 1.5  # points between the centres of two dots on one row (or column)
MIN_NAMED = 0.6  # the least share of a chart's positions that must have a category label under them
MIN_POINTS = 3


@dataclass(frozen=True)
class Point:
    x: float
    y: float
    colour: Colour
    box: BBox


@dataclass
class PointReading(Reading):
    frame: Frame
    values: list[tuple[str, Colour, float, str, bool, BBox, BBox | None]]
    categories: list[str]
    box: BBox
    values_and_ticks: list[Piece]  # the pieces no other chart may read
    category_pieces: list[Piece]  # the labels naming its categories
    lined: bool  # the points are joined by lines (a line chart), not dots alone

    @property
    def kind(self) -> str:
        return "line chart" if self.lined else "dot plot"


def point_groups(lines: list[Line], dots: list[Mark]) -> list[list[Point]]:
    """The points of each chart: lines and dots whose boxes stand within GROUP points of each other (two dots of
    one colour: DOT_GROUP one way, DOT_SPREAD the other), linked in chains."""
    items = [[Point(x, y, line.colour, (x, y, x, y)) for x, y in line.points] for line in lines]
    items += [[Point((d.box[0] + d.box[2]) / 2, (d.box[1] + d.box[3]) / 2, d.colour, d.box)] for d in dots]
    boxes = [_box([(p.x, p.y) for p in item]) for item in items]
    def near(i: int, j: int) -> bool:
        a, b = boxes[i], boxes[j]
        gap_x, gap_y = max(b[0] - a[2], a[0] - b[2]), max(b[1] - a[3], a[1] - b[3])
        if len(items[i]) == len(items[j]) == 1:  # dots: one series' along its rows, the series' on one row
            u, v = items[i][0], items[j][0]
            apart = min(gap_x, gap_y) <= DOT_GROUP if u.colour == v.colour else \
                min(abs(u.x - v.x), abs(u.y - v.y)) < ALIGNED
            return apart and max(gap_x, gap_y) <= DOT_SPREAD
        return max(gap_x, gap_y) <= GROUP

    pairs = ((i, j) for i in range(len(items)) for j in range(i + 1, len(items)) if near(i, j))
    chains = [[p for i in chain for p in items[i]] for chain in linked(len(items), pairs)]
    return [_once(members) for members in chains if len(members) >= MIN_POINTS]


def _once(points: list[Point]) -> list[Point]:
    """A marker drawn on a line's vertex is one point."""
    seen, kept = set(), []
    for p in points:
        key = (round(p.x), round(p.y), p.colour)
        if key not in seen:
            seen.add(key)
            kept.append(p)
    return kept


def _box(points) -> BBox:
    return enclosing((x, y, x, y) for x, y in points)


def read_points(points: list[Point], pieces: list[Piece], taken: set[int], lined: bool) -> PointReading | None:
    pieces = [p for p in pieces if id(p) not in taken]
    for frame in (Frame(across_bars=False), Frame(across_bars=True)):
        named = _categories(frame, points, pieces)
        if named is not None:
            return _values(frame, points, pieces, named, lined)
    return None


def _categories(frame: Frame, points: list[Point], pieces: list[Piece]):
    """{position across: (its label, the pieces)}: the labels under the points (or left of them, for rows of
    dots) standing at each position the points take; None when too few positions have one."""
    positions = sorted({round(frame.across_point(p.x, p.y), 0) for p in points})
    low = min(frame.along_point(p.x, p.y) for p in points)
    side = [p for p in pieces if frame.along(p.box)[1] <= low and low - frame.along(p.box)[1] < CATEGORY_DEPTH
            and p.names]
    if not side or len(positions) < 2:
        return None
    spacing = min(b - a for a, b in zip(positions, positions[1:]))
    reach = max(6.0, spacing / 2)
    near = {position: [p for p in side if abs(frame.across_point(*p.centre) - position) <= reach]
            for position in positions}
    levels = [(edge, _level(frame, p, edge)) for found in near.values() for p in found for edge in (1, 0)]
    if not levels:
        return None
    edge, row = max(set(levels), key=levels.count)  # the labels' row: the level most positions have a label on
    named = {}
    for position, found in near.items():
        on_row = [p for p in found if abs(_level(frame, p, edge) - row) <= 1]
        if on_row:
            nearest = min(on_row, key=lambda p: abs(frame.across_point(*p.centre) - position))
            named[position] = (nearest.text, [nearest])
    return named if len(named) >= MIN_NAMED * len(positions) and len(named) >= 2 else None


def _level(frame: Frame, piece: Piece, edge: int) -> int:
    """The row a category label stands on by one of its edges along: 1 the edge nearest the points (labels
    right-aligned left of rows of dots, labels under points sharing their top), 0 the far one (left-aligned)."""
    return round(frame.along(piece.box)[edge] / 3)


def _values(frame: Frame, points: list[Point], pieces: list[Piece], named: dict, lined: bool) -> PointReading | None:
    category_pieces = [p for _, ps in named.values() for p in ps]
    used_ids = {id(p) for p in category_pieces}
    figures = [p for p in pieces if p.number is not None and id(p) not in used_ids]
    coloured = {srgb(p.colour) for p in points} - {0}
    ticks = _ticks(frame, points, [f for f in figures if f.colour not in coloured])  # a series' colour: a label
    tick_ids = {id(t) for t in ticks}
    labels = _labels(points, [f for f in figures if id(f) not in tick_ids])
    scale = axis_scale(frame, ticks)
    values = []
    for point in points:
        position = round(frame.across_point(point.x, point.y), 0)
        if position not in named:
            continue
        label = labels.get(id(point))
        if label is not None:
            values.append((named[position][0], point.colour, label.number, label.text, False, point.box, label.box))
        elif scale is not None:
            number = scale.value(frame.along_point(point.x, point.y))
            values.append((named[position][0], point.colour, number, axis_text(number, scale), True, point.box, None))
    if len(values) < 2:
        return None
    own = ticks + list(labels.values())
    box = _box([(p.x, p.y) for p in points] + [b for p in category_pieces + own for b in (p.box[:2], p.box[2:])])
    categories = [named[k][0] for k in sorted(named)]
    return PointReading(frame, values, categories, box, own, category_pieces, lined)


def _ticks(frame: Frame, points: list[Point], figures: list[Piece]) -> list[Piece]:
    """The value axis's labels: figures left of the points (line charts) or under them (rows of dots), level
    with them along."""
    first = min(frame.across_point(p.x, p.y) for p in points)
    lows = [frame.along_point(p.x, p.y) for p in points]
    low, high = min(lows), max(lows)
    span = max(high - low, 10.0)
    if frame.across_bars:  # rows of dots: the axis runs under them
        last = max(frame.across_point(p.x, p.y) for p in points)
        return [f for f in figures if 0 < frame.across_point(*f.centre) - last < 40 and
                low - span <= frame.along_point(*f.centre) <= high + span]
    return [f for f in figures if 0 < first - frame.across(f.box)[1] < 40 and
            low - span <= frame.along_point(*f.centre) <= high + span]


def _labels(points: list[Point], figures: list[Piece]) -> dict[int, Piece]:
    """{point: its printed value}: the nearest figure within NEAR points, one in the point's colour first."""
    offers = []
    for point in points:
        for f in figures:
            dx = max(f.box[0] - point.x, point.x - f.box[2], 0.0)
            dy = max(f.box[1] - point.y, point.y - f.box[3], 0.0)
            distance = (dx * dx + dy * dy) ** 0.5
            if distance <= NEAR:
                offers.append((f.colour != srgb(point.colour), distance, id(point), id(f), point, f))
    offers.sort(key=lambda o: o[:2])
    chosen, used = {}, set()
    for _, _, pid, fid, point, f in offers:
        if pid not in chosen and fid not in used:
            chosen[pid] = f
            used.add(fid)
    return chosen
