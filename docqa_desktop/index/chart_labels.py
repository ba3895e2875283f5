"""The words that name a chart's parts: its series (legend swatches, labels in the series' colour, headers over a
colour's bars), its title and subtitle above it, its note and source lines under it."""
from __future__ import annotations

import re
from dataclasses import replace

from ..domain import BBox
from .chart_marks import Colour, Mark, Piece, enclosing

SWATCH = 16.0  # points: a legend's swatch is no larger
SWATCH_GAP = 14.0  # points between a swatch and its entry's first word
HEADER_REACH = 30.0  # points above the first bars within which a header names the colour under it
HEADER_SLACK = 15.0  # points a header's middle may stand beside a short bar it names
BESIDE_GAP, BESIDE_WIDTH = 40.0, 120.0  # points right of the last bars up where series labels stand; their widest
TITLE_REACH = 90.0  # points above the chart within which its title and subtitle stand
NOTE_REACH = 45.0  # points under the chart within which its note and source start
LINE_GAP = 1.6  # line heights between two lines of one title
MAX_TITLE_LINES = 6
_NOTE = re.compile(r"^(?:notes?|sources?|\*)\b", re.I)


def legend(marks: list[Mark], pieces: list[Piece], colours: set[Colour], near: BBox) -> dict[Colour, Piece]:
    """{colour: its entry} from swatches of the chart's colours, each with a label just right of it; of two
    swatches of one colour (two charts sharing a palette), the one nearer the chart."""
    found, distance = {}, {}
    for m in marks:
        if m.colour not in colours or max(m.box[2] - m.box[0], m.box[3] - m.box[1]) > SWATCH:
            continue
        off = box_distance(m.box, near)
        if off > 150 or off >= distance.get(m.colour, float("inf")):
            continue
        middle = (m.box[1] + m.box[3]) / 2
        entry = min((p for p in pieces if p.names and 0 <= p.box[0] - m.box[2] <= SWATCH_GAP
                     and p.box[1] - 2 <= middle <= p.box[3] + 2), key=lambda p: p.box[0], default=None)
        if entry is not None:
            found[m.colour], distance[m.colour] = entry, off
    return found


def box_distance(a: BBox, b: BBox) -> float:
    dx = max(b[0] - a[2], a[0] - b[2], 0.0)
    dy = max(b[1] - a[3], a[1] - b[3], 0.0)
    return (dx * dx + dy * dy) ** 0.5


def coloured_entries(pieces: list[Piece], colours: set[Colour], near: BBox) -> dict[Colour, Piece]:
    """{colour: label} from words printed in a series' own colour near the chart (Pew's "Republican/Lean Rep")."""
    wanted = {srgb(c): c for c in colours}
    found = {}
    for p in pieces:
        colour = wanted.get(p.colour)
        if colour is not None and p.number is None and colour not in found and _near(p.box, near, 20) \
                and p.colour != 0:
            found[colour] = p
    return found


def srgb(colour: Colour) -> int:
    r, g, b = (min(255, max(0, round(c * 255))) for c in colour[:3])
    return (r << 16) | (g << 8) | b


def _near(box: BBox, region: BBox, margin: float) -> bool:
    return box[0] < region[2] + margin and box[2] > region[0] - margin and \
        box[1] < region[3] + margin and box[3] > region[1] - margin


def headers(pieces: list[Piece], first_bars: list[tuple[Colour, float, float, float]], taken: set[int]) -> dict:
    """{colour: header} from words just above the first row of bars across, over (or nearest over) one colour's
    bar (`first_bars`: colour, left, right, top of each bar of the top slot); a header names one colour."""
    offers = []
    for colour, left, right, top in first_bars:
        for p in pieces:
            if id(p) in taken or p.number is not None or not 0 <= top - p.box[3] <= HEADER_REACH:
                continue
            off = max(left - p.centre[0], p.centre[0] - right, 0.0)
            if off <= HEADER_SLACK:
                offers.append((off, top - p.box[3], id(p), colour, p))
    found, used = {}, set()
    for _, _, key, colour, p in sorted(offers, key=lambda o: o[:2]):
        if colour not in found and key not in used:
            found[colour] = p
            used.add(key)
    return found


def beside(pieces: list[Piece], last_bars: list[tuple[Colour, float, float, float]], taken: set[int]) -> dict:
    """{colour: label} from the lines just right of the last stack of bars up, each line to the bar level with
    it (Pew's "Every day / or almost / every day" beside the stack's lower bar), a label's lines joined."""
    if not last_bars:
        return {}
    right = max(r for *_, r in last_bars)
    lines: dict[Colour, list[Piece]] = {}
    for p in pieces:
        if id(p) in taken or p.number is not None or not 0 <= p.box[0] - right <= BESIDE_GAP or \
                p.box[2] - p.box[0] > BESIDE_WIDTH:
            continue
        middle = p.centre[1]
        off, colour = min((max(top - middle, middle - bottom, 0.0), colour) for colour, top, bottom, _ in last_bars)
        if off <= p.size:
            lines.setdefault(colour, []).append(p)
    return {colour: _joined_piece(sorted(found, key=lambda p: p.box[1])) for colour, found in lines.items()}


def _joined_piece(lines: list[Piece]) -> Piece:
    return replace(lines[0], text=_joined([p.text for p in lines]), box=enclosing(p.box for p in lines))


def total_header(pieces: list[Piece], across_bars: bool, totals: list[BBox], taken: set[int]) -> Piece | None:
    """The word heading a column (bars across: above it) or row (bars up: right of it) of stack totals: "NET"."""
    if not totals:
        return None
    first = min(totals, key=lambda b: b[1]) if across_bars else max(totals, key=lambda b: b[2])
    for p in pieces:
        if id(p) in taken or p.number is not None:
            continue
        if across_bars and 0 <= first[1] - p.box[3] <= HEADER_REACH and p.box[0] < first[2] + 4 and \
                p.box[2] > first[0] - 4:
            return p
        if not across_bars and 0 <= p.box[0] - first[2] <= BESIDE_GAP and abs(p.centre[1] - (first[1] + first[3]) / 2) < 4:
            return p
    return None


def title_lines(pieces: list[Piece], box: BBox, taken: set[int]) -> tuple[str, str]:
    """(title, subtitle): the lines standing close together just above the chart and over it; the subtitle is
    the lines in a smaller type than the first (Pew's "% who say …"), or starting with "%"."""
    above = sorted((p for p in pieces if id(p) not in taken and _worded(p) and p.box[3] <= box[1] + 1 and
                    box[1] - p.box[3] < TITLE_REACH and p.box[0] < box[2] and p.box[2] > box[0] and not p.turned),
                   key=lambda p: -p.box[3])
    lines: list[list[Piece]] = []
    edge = box[1]
    for p in above:
        if lines and abs(p.box[3] - lines[-1][0].box[3]) < 0.5 * p.size:
            lines[-1].append(p)
            continue
        if edge - p.box[3] > LINE_GAP * p.size + (12 if not lines else 0) or len(lines) >= MAX_TITLE_LINES:
            break
        lines.append([p])
        edge = p.box[1]
    lines.reverse()
    if not lines:
        return "", ""
    texts = [" ".join(p.text for p in sorted(line, key=lambda p: p.box[0])) for line in lines]
    sizes = [max(p.size for p in line) for line in lines]
    title_size = max(sizes)
    title = [t for t, s in zip(texts, sizes) if s >= title_size - 0.5 and not t.startswith("%")]
    subtitle = [t for t, s in zip(texts, sizes) if not (s >= title_size - 0.5 and not t.startswith("%"))]
    return _joined(title), _joined(subtitle)


def _worded(piece: Piece) -> bool:
    """A title's line has words: figures alone above a chart are another chart's labels ("28.5% $572")."""
    return any(ch.isalpha() for ch in piece.text)


def note_lines(pieces: list[Piece], box: BBox, taken: set[int]) -> str:
    """The note and source lines just under the chart ("Note: …", "Source: …") and the lines that go on them."""
    below = sorted((p for p in pieces if id(p) not in taken and p.box[1] >= box[3] - 1 and
                    p.box[1] - box[3] < NOTE_REACH + 80 and p.box[0] < box[2] and p.box[2] > box[0]),
                   key=lambda p: (p.box[1], p.box[0]))
    lines, edge, started = [], box[3], False
    for p in below:
        if not started:
            if p.box[1] - box[3] > NOTE_REACH:
                break
            if not _NOTE.match(p.text):
                continue
            started = True
        elif p.box[1] - edge > LINE_GAP * p.size:
            break
        lines.append(p.text)
        edge = max(edge, p.box[3])
    return _joined(lines)


def _joined(lines: list[str]) -> str:
    text = " ".join(lines)
    return re.sub(r"(\w)- (\w)", r"\1-\2", re.sub(r"\s+", " ", text)).strip()
