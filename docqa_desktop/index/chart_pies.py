"""Pie and donut charts read from their wedges: touching wedges around one centre are a pie; a wedge's share is
its angle over the full turn; its value the figure printed in it or just outside it ("34%", reportlab's
"Under $30K 34%"), else its share read from its angle (so about); its category the legend entry of its colour, else
the lines of one label in or beside it. A pie is one series: the chart's title names it.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

from ..domain import BBox
from . import chart_labels
from .chart_marks import Colour, Mark, Piece, Reading, enclosing, linked
from .tables import parse_number

PIE_TOUCH = 3.0  # points between the boxes of two wedges of one pie
MIN_WEDGES = 2
OUTSIDE = 45.0  # points past the circle within which a wedge's name or figure stands
_FIGURE = re.compile(r"[-$€£]?\d[\d,.]*%?")  # a figure ending a label ("34%", "$1,200"), not a name's "$30K"
ONE_SERIES = (-1.0, -1.0, -1.0)  # the colour every value shares (no mark has it): a pie's colours are its categories


@dataclass
class PieReading(Reading):
    values: list[tuple[str, Colour, float, str, bool, BBox, BBox | None]]  # category, ONE_SERIES, number, text, axis
    categories: list[str]
    box: BBox
    values_and_ticks: list[Piece]
    category_pieces: list[Piece]
    kind = "pie chart"


def pies(wedges: list[Mark]) -> list[list[Mark]]:
    """The wedges of each pie: wedges whose boxes touch, linked in chains (read_pie checks they make a full turn)."""
    pairs = ((i, j) for i in range(len(wedges)) for j in range(i + 1, len(wedges))
             if _touch(wedges[i].box, wedges[j].box))
    return [[wedges[i] for i in chain] for chain in linked(len(wedges), pairs) if len(chain) >= MIN_WEDGES]


def _touch(a: BBox, b: BBox) -> bool:
    return b[0] - a[2] <= PIE_TOUCH and a[0] - b[2] <= PIE_TOUCH and b[1] - a[3] <= PIE_TOUCH and \
        a[1] - b[3] <= PIE_TOUCH


def read_pie(wedges: list[Mark], marks: list[Mark], pieces: list[Piece], taken: set[int]) -> PieReading | None:
    """One pie's values, clockwise from the top; None when its wedges make no full turn or a wedge has no name."""
    box = enclosing(m.box for m in wedges)
    centre = _centre(wedges, box)
    radius = _radius(wedges, centre, box)
    spans = [_span(w, centre, radius) for w in wedges]
    if any(s is None for s in spans) or abs(sum(s[1] for s in spans) - 360) > 12:
        return None  # not a full turn of wedges: a drawing of curved shapes, not a pie
    pieces = [p for p in pieces if id(p) not in taken]
    legend = chart_labels.legend(marks, pieces, {w.colour for w in wedges}, box)
    used_ids = {id(p) for p in legend.values()}
    values, names, named_by = [], [], []
    for wedge, (start, sweep) in sorted(zip(wedges, spans), key=lambda pair: pair[1][0]):
        around = [p for p in pieces if id(p) not in used_ids and _within(p, centre, radius, start, sweep)]
        figure = next((p for p in sorted(around, key=lambda p: _off(p, centre, radius)) if _figure(p)), None)
        name_pieces = [legend[wedge.colour]] if wedge.colour in legend else \
            _block([p for p in around if p.names and p is not figure], _mid(centre, radius, start, sweep, figure))
        name = " ".join(p.text for p in name_pieces)
        if figure is not None and figure.number is None:  # "Under $30K 34%": the name and the figure in one line
            name, text, number = _split(figure.text)
        elif figure is not None:
            text, number = figure.text, figure.number
        else:
            number = round(sweep / 3.6, 1)
            text = f"{number:g}%"
        if not name:
            return None
        used_ids |= {id(p) for p in name_pieces + ([figure] if figure else [])}
        values.append((name, ONE_SERIES, number, text, figure is None, wedge.box, figure.box if figure else None))
        names.append(name)
        named_by += [p for p in name_pieces if p not in named_by]
    own = [p for p in pieces if id(p) in used_ids and p not in named_by]
    return PieReading(values, names, box, own, named_by)


def _mid(centre, radius: float, start: float, sweep: float, figure: Piece | None) -> tuple[float, float]:
    """Where a wedge's name is looked for from: its figure, else the middle of its arc."""
    if figure is not None:
        return figure.centre
    angle = math.radians(start + sweep / 2)
    return centre[0] + radius * math.sin(angle), centre[1] - radius * math.cos(angle)


def _block(pieces: list[Piece], near: tuple[float, float]) -> list[Piece]:
    """The lines of one label: the piece nearest `near`, and the lines right above or below it, top to bottom."""
    if not pieces:
        return []
    block = [min(pieces, key=lambda p: math.dist(p.centre, near))]
    grown = True
    while grown:
        grown = False
        for p in pieces:
            if p not in block and any(chart_labels.box_distance(p.box, q.box) < 0.5 * q.size for q in block):
                block.append(p)
                grown = True
    return sorted(block, key=lambda p: (p.box[1], p.box[0]))


def _centre(wedges: list[Mark], box: BBox) -> tuple[float, float]:
    """A pie's centre: the point every wedge's outline passes through (its apex); a donut's, its box's middle."""
    shared = set.intersection(*({(round(x, 1), round(y, 1)) for x, y in w.points} for w in wedges))
    if len(shared) == 1:
        return next(iter(shared))
    return (box[0] + box[2]) / 2, (box[1] + box[3]) / 2


def _radius(wedges: list[Mark], centre: tuple[float, float], box: BBox) -> float:
    """The circle's radius: the middle distance of the outline's far points (curve handles stand a little out)."""
    far = sorted(d for w in wedges for p in w.points if (d := math.dist(p, centre)) > 0.2 * (box[2] - box[0]))
    return far[len(far) // 2] if far else (box[2] - box[0]) / 2


def _span(wedge: Mark, centre: tuple[float, float], radius: float) -> tuple[float, float] | None:
    """(start, sweep) in degrees clockwise from the top: the angles its outline points away from the centre take,
    the full turn less the widest gap between them."""
    angles = sorted(_angle(p, centre) for p in wedge.points if math.dist(p, centre) > 0.4 * radius)
    if len(angles) < 2:
        return None
    gaps = [(b - a, b) for a, b in zip(angles, angles[1:])] + [(angles[0] + 360 - angles[-1], angles[0])]
    widest, start = max(gaps)
    return start % 360, 360 - widest


def _angle(point: tuple[float, float], centre: tuple[float, float]) -> float:
    return math.degrees(math.atan2(point[0] - centre[0], centre[1] - point[1])) % 360


def _within(piece: Piece, centre, radius: float, start: float, sweep: float) -> bool:
    """The piece stands in the wedge's angle, inside the circle or just outside it."""
    if math.dist(piece.centre, centre) > radius + OUTSIDE:
        return False
    return (_angle(piece.centre, centre) - start) % 360 <= sweep


def _off(piece: Piece, centre, radius: float) -> float:
    """How far a piece stands from the wedge's body: 0 inside the circle."""
    return max(0.0, math.dist(piece.centre, centre) - radius)


def _figure(piece: Piece) -> bool:
    return (piece.number is not None and not piece.names) or _split(piece.text)[2] is not None


def _split(text: str) -> tuple[str, str, float | None]:
    """"Under $30K 34%" -> ("Under $30K", "34%", 34.0); (text, "", None) without a trailing figure."""
    head, _, last = text.rpartition(" ")
    number = parse_number(last) if head and _FIGURE.fullmatch(last) else None
    return (head.strip(), last, number) if number is not None else (text, "", None)
