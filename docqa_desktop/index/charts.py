"""Charts read as data from their geometry: a born-digital page's vector marks (bars, wedges, dots) with the words
printed on and around them, turned into series × category → value (issue 55).

Most report charts are not pictures: Pew's bars are filled rectangles (often several in one drawing, one `re` item
a bar) and every data label, category and legend entry is a word with a box. So a chart is read the way a person
reads it: the marks of one fill colour are a series; each mark's category is the label level with it (bars across)
or under it (bars up); its value is the figure printed on or just past its end, or, with none printed, its length
mapped through the axis's tick labels (marked "from the axis", less sure).
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, replace

import pymupdf

from ..domain import BBox, TableCell, TableOnPage
from . import chart_labels
from .chart_bars import BarReading, orientation, panels, read_bars
from .chart_labels import SWATCH, SWATCH_GAP
from .chart_marks import Drawn, Mark, Piece, Reading, drawn_on, enclosing, linked
from .chart_pies import pies, read_pie
from .chart_points import point_groups, read_points

PANEL_GAP = 120.0  # points between the bars of two panels side by side over shared rows
BAR, STACKED, PIE, LINE, DOT = "bar chart", "stacked bar chart", "pie chart", "line chart", "dot plot"


@dataclass(frozen=True)
class ChartValue:
    series: str  # its legend entry, or the chart's title when it has one series
    category: str  # its axis label ("Germany", "2019")
    number: float
    text: str  # as printed ("34%"), or as read from the axis ("34")
    from_axis: bool  # no label printed: read off the axis scale
    mark: BBox  # the bar, wedge or dot
    label: BBox | None  # the printed value's box


@dataclass(frozen=True)
class Chart:
    kind: str  # BAR, STACKED, PIE, LINE, DOT
    bbox: BBox  # the marks, their labels, the axes, the legend
    title: str  # the line(s) above it ("In both nations, young people have …")
    subtitle: str  # the measure ("% who would describe relations … as good")
    notes: str  # its note and source lines
    unit: str  # "%", "$", "" …
    series: tuple[str, ...]  # legend order
    categories: tuple[str, ...]  # axis order: top down for bars across, left to right for bars up
    values: tuple[ChartValue, ...]

    def as_table(self) -> TableOnPage:
        """The chart as the tables stage stores a table: a row a category, a column a series, so the reader answers
        from it as from any table ("Germany" · "2019" → 34%); caption = title and subtitle."""
        row_of = {c: i + 1 for i, c in enumerate(self.categories)}
        column_of = {s: i + 1 for i, s in enumerate(self.series)}
        header = [TableCell(0, column_of[s], s, "", "", None, self.bbox, header=True) for s in self.series]
        body = [TableCell(row_of[c], 0, c, c, "", None, self.bbox) for c in self.categories]
        body += [TableCell(row_of[v.category], column_of[v.series], v.text, v.category, v.series, v.number,
                           _union(v.mark, v.label), from_axis=v.from_axis) for v in self.values]
        caption = " — ".join(part for part in (self.title, self.subtitle) if part)
        cells = tuple(header) + tuple(sorted(body, key=lambda c: (c.row, c.column)))
        return TableOnPage(self.bbox, caption, 1.0, len(self.categories) + 1, len(self.series) + 1, 1, cells,
                           chart=self.kind)


def _union(a: BBox, b: BBox | None) -> BBox:
    return a if b is None else enclosing((a, b))


def charts_on(page: pymupdf.Page) -> list[Chart]:
    """The charts drawn on a born-digital page, in reading order; [] when it draws none."""
    drawn = drawn_on(page)
    swatches = [m for m in drawn.marks if _swatch(m, drawn.pieces)]
    rects = [m for m in drawn.marks if m.shape == "rect" and m not in swatches]
    charts, taken = [], set()  # taken: the pieces a chart read as its values or ticks
    for cluster in sorted(clusters(rects), key=lambda c: min(m.box[0] for m in c)):
        frame = orientation(cluster)
        if frame is None:
            continue
        readings = []
        for panel in panels(frame, cluster):
            reading = read_bars(frame, panel, drawn.pieces, taken, readings[0] if readings else None)
            if reading is not None:
                readings.append(reading)
                taken |= {id(p) for p in reading.values_and_ticks}
        charts += _panels_charts(readings, drawn)
    for wedges in pies([m for m in drawn.marks if m.shape == "wedge"]):
        reading = read_pie(wedges, drawn.marks, drawn.pieces, taken)
        if reading is not None:
            taken |= {id(p) for p in reading.values_and_ticks}
            charts.append(_bar_chart([(reading, [])], drawn))
    dots = [m for m in drawn.marks if m.shape == "dot" and m not in swatches]
    for points in point_groups(drawn.lines, dots):
        reading = read_points(points, drawn.pieces, taken, lined=any(p.box[0] == p.box[2] for p in points))
        if reading is not None:
            taken |= {id(p) for p in reading.values_and_ticks}
            charts.append(_bar_chart([(reading, [])], drawn))
    return sorted(charts, key=lambda c: (round(c.bbox[1] / 40), c.bbox[0]))


def _swatch(mark: Mark, pieces: list[Piece]) -> bool:
    """A legend's swatch: a small mark with a word (no figure) starting just right of it, on its level."""
    box = mark.box
    if max(box[2] - box[0], box[3] - box[1]) > SWATCH:
        return False
    middle = (box[1] + box[3]) / 2
    return any(p.names and 0 <= p.box[0] - box[2] <= SWATCH_GAP and p.box[1] - 2 <= middle <= p.box[3] + 2
               for p in pieces)


def clusters(rects: list[Mark]) -> list[list[Mark]]:
    """Rectangles standing within about two bar thicknesses of each other: one chart's bars (two charts side by
    side stand further apart)."""
    order = sorted(range(len(rects)), key=lambda i: rects[i].box[0])

    def pairs():
        for n, i in enumerate(order):
            a = rects[i].box
            for j in order[n + 1:]:
                b = rects[j].box
                if b[0] - a[2] > PANEL_GAP:
                    break
                if _close(a, b) or _same_row(a, b):
                    yield i, j

    return [[rects[i] for i in chain] for chain in linked(len(rects), pairs()) if len(chain) >= 2]


def _close(a: BBox, b: BBox) -> bool:
    margin = 2 * max(3.0, min(_thin(a), _thin(b)))
    return b[0] - a[2] <= margin and a[0] - b[2] <= margin and b[1] - a[3] <= margin and a[1] - b[3] <= margin


def _same_row(a: BBox, b: BBox) -> bool:
    """Bars across on one level and of one thickness, not far apart: panels of one chart over shared rows."""
    return abs(a[1] - b[1]) < 1 and abs(a[3] - b[3]) < 1 and b[0] - a[2] <= PANEL_GAP


def _thin(box: BBox) -> float:
    return min(box[2] - box[0], box[3] - box[1])


def _panels_charts(readings: list[BarReading], drawn: Drawn) -> list[Chart]:
    """A cluster's panels as charts: panels of one colour each over the same rows are one chart whose series
    are the panels' headers (Pew's "U.S. | China | Japan | EU"); other panels are charts of their own, their
    series named after the panel ("Germans · Increase")."""
    if not readings:
        return []
    if len(readings) == 1:
        return [_bar_chart([(readings[0], [])], drawn)]
    heads = [_panel_header(r, drawn) for r in readings]
    one_colour = all(len({colour for _, colour, *_ in r.values}) == 1 for r in readings)
    if one_colour and all(heads) and len({tuple(r.categories) for r in readings}) == 1:
        return [_bar_chart(list(zip(readings, heads)), drawn, heads_name_series=True)]
    whole = _bar_chart(list(zip(readings, heads)), drawn)  # the figure's title, subtitle and notes are the panels'
    return [replace(_bar_chart([(r, head)], drawn), title=whole.title, subtitle=whole.subtitle, notes=whole.notes)
            for r, head in zip(readings, heads)]


def _text(pieces: list[Piece]) -> str:
    return " ".join(p.text for p in pieces)


def _panel_header(reading: BarReading, drawn: Drawn) -> list[Piece]:
    """The line just above a panel's first bars and over them, above the headers of its colours if it has any."""
    top = min(m.box[1] for m in reading.bars)
    left, right = min(m.box[0] for m in reading.bars), max(m.box[2] for m in reading.bars)
    taken = {id(p) for p in reading.used}
    entries = {id(p) for p in _series_entries(reading, drawn, reading.box, taken).values()}
    over = [p for p in drawn.pieces if id(p) not in taken | entries and p.number is None and
            left - 4 <= p.box[0] <= right and 0 <= top - p.box[3] <= 2 * chart_labels.HEADER_REACH]
    lowest = max((p.box[3] for p in over), default=0)
    return [p for p in sorted(over, key=lambda p: p.box[0]) if p.box[3] > lowest - 2]


def _bar_chart(parts: list[tuple[Reading, list[Piece]]], drawn: Drawn, heads_name_series: bool = False) -> Chart:
    """The chart of one panel (bars, points or a pie), or of panels that are its series; parts: (panel, its
    header)."""
    used = [p for r, head in parts for p in r.used + head]
    box = enclosing([r.box for r, _ in parts] + [p.box for p in used])
    taken = {id(p) for p in used}
    series_of, entries = {}, []
    for reading, head in parts:
        names = {} if heads_name_series else _series_entries(reading, drawn, box, taken)
        entries += list(names.values())
        series_of[id(reading)] = _series_names(reading, {c: p.text for c, p in names.items()}, _text(head))
    total_heads = [head for r, _ in parts if r.totals and (head := chart_labels.total_header(
        drawn.pieces, r.frame.across_bars, [t.label for t in r.totals], taken | {id(p) for p in entries}))]
    entries += total_heads
    box = enclosing([box] + [p.box for p in entries])
    taken |= {id(p) for p in entries}
    title, subtitle = chart_labels.title_lines(drawn.pieces, box, taken)
    notes = chart_labels.note_lines(drawn.pieces, box, taken)
    unit = "%" if subtitle.startswith("%") or any(text.endswith("%") for r, _ in parts
                                                  for _, _, _, text, *_ in r.values) else ""
    values = tuple(ChartValue(series_of[id(r)][colour] or title or "value", category, number, _shown(text, unit),
                              axis, mark, label)
                   for r, _ in parts for category, colour, number, text, axis, mark, label in r.values)
    values += tuple(ChartValue(name, t.category, t.number, _shown(t.text, unit), False, t.stack, t.label)
                    for r, _ in parts for t, name in _totals_named(r, series_of[id(r)], total_heads))
    series = tuple(dict.fromkeys(v.series for v in values))
    categories = tuple(dict.fromkeys(c for r, _ in parts for c in r.categories))
    kind = next((r.kind for r, _ in parts if r.kind == STACKED), parts[0][0].kind)
    return Chart(kind, box, title, subtitle, notes, unit, series, categories, values)


def _series_entries(reading: Reading, drawn: Drawn, box: BBox, taken: set[int]) -> dict:
    """{colour: the piece naming it}: legend swatches, then words in the series' colour, then headers over a
    colour's first bar (bars across)."""
    colours = {colour for _, colour, *_ in reading.values}
    names = chart_labels.legend(drawn.marks, drawn.pieces, colours, box)
    names.update({c: p for c, p in chart_labels.coloured_entries(drawn.pieces, colours, box).items()
                  if c not in names})
    if isinstance(reading, BarReading) and reading.frame.across_bars and len(colours) > 1:
        names.update({c: p for c, p in chart_labels.headers(drawn.pieces, _top_bars(reading), taken).items()
                      if c not in names})
    if isinstance(reading, BarReading) and not reading.frame.across_bars and len(colours) > 1:
        names.update({c: p for c, p in chart_labels.beside(drawn.pieces, _last_bars(reading), taken).items()
                      if c not in names})
    return names


def _totals_named(reading: Reading, series: dict, heads: list[Piece]) -> list:
    """(total, its series) for each stack total: the header over the totals ("Net"); stacks on both sides of a
    zero line name theirs by their bars' series ("Not too/Not at all (net)"); else "Total"."""
    sides = {t.colours for t in reading.totals}
    named = []
    for t in reading.totals:
        head = next((h.text for h in heads if chart_labels.box_distance(h.box, t.label) < 2 * chart_labels.HEADER_REACH),
                    "")
        if len(sides) > 1 and not head:
            head = "/".join(dict.fromkeys(series[c] for c in t.colours if series.get(c))) + " (net)"
        named.append((t, head or next((h.text for h in heads), "Total")))
    return named


def _top_bars(reading: BarReading):
    """(colour, left, right, top) of the bars of the first row of bars across: where headers stand."""
    top = min(m.box[1] for m in reading.bars)
    return [(m.colour, m.box[0], m.box[2], m.box[1]) for m in reading.bars if m.box[1] - top < 1]


def _last_bars(reading: BarReading):
    """(colour, top, bottom, right) of the bars of the rightmost stack of bars up: where Pew names its series."""
    right = max(m.box[2] for m in reading.bars)
    return [(m.colour, m.box[1], m.box[3], m.box[2]) for m in reading.bars if right - m.box[2] < 1]


def _series_names(reading: BarReading, named: dict, panel: str) -> dict:
    """Each colour's series: its legend entry (after the panel's header, when the panel has one); one series when
    the bars have one colour, or every category has one bar whatever its colour (a highlighted bar is no series of
    its own), named by the panel's header ("" : the chart's title names it)."""
    colours = list(dict.fromkeys(colour for _, colour, *_ in reading.values))
    per_category = defaultdict(int)
    for category, *_ in reading.values:
        per_category[category] += 1
    if len(colours) == 1 or (max(per_category.values()) == 1 and not named):
        return {c: panel for c in colours}
    prefix = f"{panel} · " if panel else ""
    return {c: prefix + named.get(c, f"series {n + 1}") for n, c in enumerate(colours)}


def _shown(text: str, unit: str) -> str:
    """A value as the chart means it: Pew prints "%" on the first label only ("13%", then "18")."""
    text = text.strip()
    return text + "%" if unit == "%" and not text.endswith("%") else text

