"""Bar charts (across, up, grouped, stacked, diverging) read from their rectangles and the words around them.

The steps, each a person's: the bars' thickness tells the orientation (bars across share their height); bars on
one level are a slot, touching bars in a slot a stack; slots close together a group (grouped bars); the label on
the category side level with a group names it; a figure on a bar or just past its end is its value, else its end
read through the axis's ticks; a bar's fill colour is its series, named by the legend swatch of that colour (or a
header over that colour's bars, Pew's "Less | More").
"""
from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field

from ..domain import BBox
from .chart_axes import Frame, Scale, axis_scale
from .chart_marks import Colour, Mark, Piece, Reading, enclosing

TOUCH = 1.5  # points between two bars of a stack
SAME_LEVEL = 0.3  # bars whose centres across differ by less than this share of their thickness share a slot
REACH = 2.5  # a label stands at most this many bar thicknesses past the bar's end
CATEGORY_REACH = 160.0  # points between a category label and the bars
MIN_FIT = 0.97  # the least correlation between the labelled bars' lengths and their figures
MIN_BARS = 2
LABEL_ROOM = 3.0  # a label under bars up is at most this many times as wide as its group's share of the axis


@dataclass
class Segment:
    mark: Mark
    along: tuple[float, float]
    across: tuple[float, float]
    stacked_on: Segment | None = None  # the segment between it and the base, when stacked
    label: Piece | None = None
    total: Piece | None = None  # the figure past the stack this bar ends: the stack's total ("NET")
    outer: float = 0.0  # the end away from the base
    inner: float = 0.0


@dataclass(frozen=True)
class StackTotal:
    """A stack's total as printed past its end (Pew's "NET" column): its category, the stack's colours from
    the base out, the figure and the boxes of the stack and of the figure."""
    category: str
    colours: tuple[Colour, ...]
    number: float
    text: str
    stack: BBox
    label: BBox


@dataclass
class BarReading(Reading):
    frame: Frame
    values: list[tuple[str, Colour, float, str, bool, BBox, BBox | None]]  # category, colour, number, text, axis
    categories: list[str]
    bars: list[Mark]
    values_and_ticks: list[Piece]  # the pieces no other chart may read
    category_pieces: list[Piece]  # the labels naming its categories
    stacked: bool  # some bars stand on others
    totals: list[StackTotal] = field(default_factory=list)  # figures printed past stacks: each stack's total

    @property
    def kind(self) -> str:
        return "stacked bar chart" if self.stacked else "bar chart"

    @property
    def box(self) -> BBox:
        return enclosing(m.box for m in self.bars)


def orientation(rects: list[Mark]) -> Frame | None:
    """Bars across when their heights agree more than their widths; None when neither does (cells, not bars)."""
    widths = [r.box[2] - r.box[0] for r in rects]
    heights = [r.box[3] - r.box[1] for r in rects]
    spread_w, spread_h = max(widths) / min(widths), max(heights) / min(heights)
    if min(spread_w, spread_h) > 1.25:
        return None
    return Frame(across_bars=spread_h < spread_w)


def panels(frame: Frame, rects: list[Mark]) -> list[list[Mark]]:
    """Bars standing apart along the value axis: small multiples side by side (Pew's "U.S. | China | Japan | EU"
    columns over shared rows), each read as a chart of its own. Diverging bars touch at the zero line: one."""
    ordered = sorted(rects, key=lambda r: frame.along(r.box)[0])
    parts, reach = [], None
    for r in ordered:
        lo, hi = frame.along(r.box)
        if reach is None or lo > reach + TOUCH:
            parts.append([])
            reach = hi
        parts[-1].append(r)
        reach = max(reach, hi)
    return [p for p in parts if len(p) >= MIN_BARS or len(parts) > 1]


def read_bars(frame: Frame, rects: list[Mark], pieces: list[Piece], taken: set[int],
              labels_of: BarReading | None = None) -> BarReading | None:
    """One panel's bars read; `taken`: pieces another chart read as its values or ticks (never this one's);
    `labels_of`: the panel beside it over the same rows, whose category labels name this one's."""
    pieces = [p for p in pieces if id(p) not in taken]
    slots = _slots(frame, rects)
    if slots is None:
        return None
    segments = [s for slot in slots for s in slot]
    thickness = sorted(s.across[1] - s.across[0] for s in segments)[len(segments) // 2]
    low = min(s.along[0] for s in segments)
    high = max(s.along[1] for s in segments)
    groups = _groups(slots)
    side = [p for p in pieces if frame.along(p.box)[1] <= low + 2 and low - frame.along(p.box)[1] < CATEGORY_REACH
            and (p.number is None or _year_like(p))]  # a figure beside the bars is a total, not a name
    names, named_by = _categories(frame, groups, side, thickness)
    if names is None and labels_of is not None:
        names, named_by = _categories(frame, groups, labels_of.category_pieces, thickness)
    if names is None:
        return None
    taken = {id(p) for p in named_by}
    ticks = _ticks(frame, pieces, slots, low, high, taken)
    taken |= {id(t) for t in ticks}
    _label(frame, segments, [p for p in pieces if p.number is not None and id(p) not in taken], thickness)
    if not _lengths_fit(segments):
        return None
    scale = axis_scale(frame, ticks)
    values, totals = [], []
    for group, name in zip(groups, names):
        for slot in group:
            for s in slot:
                read = _value(s, scale)
                if read is not None:
                    values.append((name, s.mark.colour, *read, s.mark.box, s.label.box if s.label else None))
                if s.total is not None:
                    stack = _stack_of(s)
                    totals.append(StackTotal(name, tuple(t.mark.colour for t in stack), s.total.number, s.total.text,
                                             enclosing(t.mark.box for t in stack), s.total.box))
    if not values:
        return None
    own = ticks + [s.label for s in segments if s.label] + [s.total for s in segments if s.total]
    return BarReading(frame, values, names, [s.mark for s in segments], own, named_by,
                      any(s.stacked_on is not None for s in segments), totals)


def _stack_of(outermost: Segment) -> list[Segment]:
    """The bars of the stack `outermost` ends, from the base out."""
    stack = [outermost]
    while stack[-1].stacked_on is not None:
        stack.append(stack[-1].stacked_on)
    return stack[::-1]


def _slots(frame: Frame, rects: list[Mark]) -> list[list[Segment]] | None:
    """The bars on one level, each slot a stack from its base outward; None when a slot holds two touching bars
    of one colour (a table's shaded cells, not a stack)."""
    segments = sorted((Segment(r, frame.along(r.box), frame.across(r.box)) for r in rects),
                      key=lambda s: (s.across[0] + s.across[1]) / 2)
    slots: list[list[Segment]] = []
    for s in segments:
        centre = (s.across[0] + s.across[1]) / 2
        if slots:
            last = slots[-1][0]
            if abs(centre - (last.across[0] + last.across[1]) / 2) < SAME_LEVEL * (last.across[1] - last.across[0]):
                slots[-1].append(s)
                continue
        slots.append([s])
    base = _base(slots)
    for slot in slots:
        slot.sort(key=lambda s: s.along[0])
        for a, b in zip(slot, slot[1:]):
            if b.along[0] - a.along[1] < TOUCH and a.mark.colour == b.mark.colour:
                return None
        for s in slot:
            below = s.along[1] <= base + TOUCH
            s.outer, s.inner = (s.along[0], s.along[1]) if below else (s.along[1], s.along[0])
        for s in slot:
            s.stacked_on = next((t for t in slot if t is not s and abs(t.outer - s.inner) < TOUCH), None)
    return slots


def _base(slots: list[list[Segment]]) -> float:
    """The line the bars grow from: the end most bars share (the zero line of diverging bars)."""
    ends = defaultdict(int)
    for slot in slots:
        for s in slot:
            ends[round(s.along[0])] += 1
            ends[round(s.along[1])] += 1
    best = max(ends.values())
    return min(end for end, n in ends.items() if n == best)


def _groups(slots: list[list[Segment]]) -> list[list[list[Segment]]]:
    """Slots close together, one category's bars (grouped bars): the gaps between slots are of two sizes."""
    if len(slots) < 3:
        return [[slot] for slot in slots]
    gaps = [b[0].across[0] - a[0].across[1] for a, b in zip(slots, slots[1:])]
    small, large = min(gaps), max(gaps)
    if large <= 1.8 * small + 1:
        return [[slot] for slot in slots]
    cut = (small + large) / 2
    groups = [[slots[0]]]
    for gap, slot in zip(gaps, slots[1:]):
        if gap > cut:
            groups.append([slot])
        else:
            groups[-1].append(slot)
    sizes = {len(g) for g in groups}
    return groups if len(sizes) <= 2 else [[slot] for slot in slots]


def _anchor(frame: Frame, piece: Piece) -> float:
    """Where a category label points across: its middle, or for a label turned part way (rotated 45°) its
    upper end, which stands under its bar."""
    if not frame.across_bars and 15 < piece.turned < 75:
        return piece.box[2] - piece.size / 2
    if not frame.across_bars and -75 < piece.turned < -15:
        return piece.box[0] + piece.size / 2
    return frame.across_point(*piece.centre)


def _categories(frame: Frame, groups, side: list[Piece], thickness: float):
    """Each group's name: the labels on the category side (`side`: left of bars across, under bars up) standing
    level with it, top to bottom; None when a group has none."""
    spans = [(g[0][0].across[0], g[-1][0].across[1]) for g in groups]
    names, used = [], []
    for i, (start, end) in enumerate(spans):
        before = (start - spans[i - 1][1]) / 2 if i else thickness / 2
        after = (spans[i + 1][0] - end) / 2 if i + 1 < len(spans) else thickness / 2
        room = end - start + before + after
        mine = [p for p in side if start - before <= _anchor(frame, p) <= end + after and
                (frame.across_bars or p.box[2] - p.box[0] <= LABEL_ROOM * room)]  # not a line of text under bars
        if not mine:
            return None, []
        nearest = max(mine, key=lambda p: frame.along(p.box)[1])
        if frame.across_bars:  # the text column nearest the bars (not the figures of a panel further left)
            mine = [p for p in mine if p.box[2] > nearest.box[0] and p.box[0] < nearest.box[2]]
        else:  # under bars up: the labels nearest the axis (not an axis title below)
            mine = [p for p in mine if frame.along(nearest.box)[1] - frame.along(p.box)[1] < 2 * p.size]
        mine.sort(key=lambda p: (p.box[1], p.box[0]))
        names.append(" ".join(p.text for p in mine))
        used += mine
    return names, used


def _year_like(piece: Piece) -> bool:
    """A label that is a figure and still a name: a year ("2019"), a quarter ("1Q09"), an age ("65+"); not a
    negative figure ("-58", "−40%": a diverging bar's label, left of its end)."""
    text = piece.text.strip()
    bare = text.lstrip("-−–(").rstrip(")").replace(",", "").replace(".", "").strip("%$€£")
    return (text.isdigit() and len(text) == 4) or not bare.isdigit()


def _ticks(frame: Frame, pieces: list[Piece], slots, low: float, high: float, taken: set[int]) -> list[Piece]:
    """The value axis's labels: figures beyond the bars across (under bars across, left of bars up), level
    with the plot along."""
    first = min(s.across[0] for slot in slots for s in slot)
    last = max(s.across[1] for slot in slots for s in slot)
    span = high - low
    ticks = []
    for p in pieces:
        if p.number is None or id(p) in taken:
            continue
        centre_along, centre_across = frame.along_point(*p.centre), frame.across_point(*p.centre)
        outside = centre_across > last if frame.across_bars else centre_across < first
        if outside and low - 0.1 * span - 4 <= centre_along <= high + 0.1 * span + 4 and \
                abs(centre_across - (last if frame.across_bars else first)) < 40:
            ticks.append(p)
    return ticks


def _label(frame: Frame, segments: list[Segment], figures: list[Piece], thickness: float) -> None:
    """Each figure to the bar it is printed on or just past the end of; a bar keeps its nearest (a figure past
    a stack that already has one inside its last bar is the stack's total, kept as the outermost bar's `total`)."""
    offers = []
    for p in figures:
        across = frame.across_point(*p.centre)
        lo, hi = frame.along(p.box)
        middle = (lo + hi) / 2
        for s in segments:
            if not s.across[0] - 1 <= across <= s.across[1] + 1:
                continue
            # by its middle: a figure's line box may overhang a thin bar it is printed in (Pew's "6" on a 9 pt bar)
            inside = s.along[0] - 1 <= middle <= s.along[1] + 1
            distance = 0.0 if inside else _past_end(s, lo, hi)
            if distance is not None and distance <= REACH * thickness + 6:
                offers.append((distance, not inside, id(p), p, s))
    offers.sort(key=lambda o: (o[0], o[1]))
    placed = set()
    for _, outside, key, p, s in offers:
        if key in placed:
            continue
        if outside and _stack_total(s, segments):
            if s.total is None and not any(t.stacked_on is s for t in segments):
                s.total = p
                placed.add(key)
        elif s.label is None:
            s.label = p
            placed.add(key)


def _past_end(s: Segment, lo: float, hi: float) -> float | None:
    """How far a figure stands past the bar's outer end (None when it stands on the base side)."""
    if s.outer >= s.inner:
        return max(0.0, lo - s.outer) if lo >= s.outer - 1 else (0.0 if lo >= s.inner else None)
    return max(0.0, s.outer - hi) if hi <= s.outer + 1 else (0.0 if hi <= s.inner else None)


def _stack_total(s: Segment, segments: list[Segment]) -> bool:
    """Whether a figure past this bar is its stack's total: the bar is the outer end of a stack whose other
    bars have figures inside them."""
    stack = [t for t in segments if t is not s and t.across == s.across]
    return s.stacked_on is not None and any(t.label is not None for t in stack)


def _lengths_fit(segments: list[Segment]) -> bool:
    """The labelled bars' lengths go with their figures (correlation ≥ MIN_FIT over three or more): a table's
    shading or a picture's blocks with numbers beside them do not."""
    pairs = [(abs(s.outer - s.inner), abs(s.label.number)) for s in segments if s.label is not None]
    if len({v for _, v in pairs}) < 3:
        return True
    n = len(pairs)
    mx, my = sum(x for x, _ in pairs) / n, sum(y for _, y in pairs) / n
    sxy = sum((x - mx) * (y - my) for x, y in pairs)
    sxx = sum((x - mx) ** 2 for x, _ in pairs)
    syy = sum((y - my) ** 2 for _, y in pairs)
    return sxx > 0 and syy > 0 and sxy / (sxx * syy) ** 0.5 >= MIN_FIT


def _value(s: Segment, scale: Scale | None) -> tuple[float, str, bool] | None:
    """(number, text, read from the axis) of a bar: its label's, else its length through the axis."""
    if s.label is not None:
        return s.label.number, s.label.text, False
    if scale is None:
        return None
    if s.stacked_on is not None:
        number = scale.value(s.outer) - scale.value(s.inner)
    else:
        number = scale.value(s.outer)
    return number, axis_text(number, scale), True


def axis_text(number: float, scale: Scale) -> str:
    """A value read off the axis, to the precision the axis allows (a thousandth of its span)."""
    step = scale.span / 1000 if scale.span else 1
    digits = max(0, min(6, -int(_floor_log10(step))))
    return f"{number:.{digits}f}"


def _floor_log10(x: float) -> float:
    return math.floor(math.log10(x)) if x > 0 else 0
