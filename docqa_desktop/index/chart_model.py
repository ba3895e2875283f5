"""Raster charts read by the vision model (issue 55): a chart that is pixels (a scanned page, a slide deck exported as
images) has no marks to measure, so the charts stage asks the vision model once per picture for the chart as a data
table — DePlot's plot-to-table idea (Liu et al., 2023: the chart linearised as "TITLE | … / header / a row a line"),
through llama.cpp's multimodal path — and stores it as the vector charts are, marked read by the model.

A model reading a chart guesses where it cannot read, so a value stands only when the chart itself prints it: kept
when it equals a number printed in the picture (its OCR words on a scan, its text layer's or OCR's words on a
born-digital page), other than the numbers the model used as labels (a category "2019" proves no value). A chart
that prints no numbers keeps none — its values would be the model's estimates off the axis, and an answer is never
an estimate — and a category or series left with no value is dropped with it.

The vision model is the service's (engines do not import each other): the stage is handed a VisionReader.
"""
from __future__ import annotations

import re
import threading
from dataclasses import dataclass, replace
from typing import Protocol

from ..domain import BBox, TableOnPage, Word
from ..settings import ChartModel
from .charts import BAR, DOT, LINE, PIE, STACKED, Chart, ChartValue
from .tables import parse_number


class VisionReader(Protocol):
    """The vision model, as the charts stage uses it."""

    def installed(self) -> bool:
        """Whether a vision model is there to read images (without loading it)."""

    def quick(self) -> bool:
        """Whether it runs on a GPU (or a server): quick enough to read every raster chart by default."""

    def read(self, image: bytes, prompt: str, cancel: threading.Event | None = None) -> str:
        """The model's reply to `prompt` about `image` (PNG); errors.ModelError when it cannot be served."""


@dataclass(frozen=True)
class Picture:
    """A picture that may be a raster chart, as the worker rendered it."""
    bbox: BBox  # in PDF points, the page space words are stored in
    png: bytes
    words: tuple[Word, ...]  # printed in and around it: what the model's values are checked against


PROMPT = """Read the chart as a data table.
First line: TITLE | the chart's title
Second line: TYPE | bar chart, stacked bar chart, line chart, pie chart, dot plot or other
Third line: the header row: what the categories are | the first series | the second series …
Then one line a category: the category | its value in each series
Write each value as the chart prints it, separate cells with " | ", and write nothing else."""
MAX_TOKENS = 400  # ~30 rows of a few series: a longer table is no chart the page prints legibly

SWITCHED_OFF = "raster charts are not read (index.chart_model = \"off\")"
NO_VISION_MODEL = "no vision model installed: raster charts are not read (`docqa models list` names one)"
NO_GPU = "no GPU: raster charts are not read (index.chart_model = \"on\" reads them slowly on the CPU)"
KINDS = {kind: kind for kind in (BAR, STACKED, PIE, LINE, DOT)}
_SEPARATOR = re.compile(r"^[\s|:-]*$")  # a Markdown table's |---|---| line
_EDGE_PUNCTUATION = ".,;:"


def why_off(setting: ChartModel, vision: VisionReader | None) -> str | None:
    """None when the charts stage reads raster charts with the model; else why not, in words."""
    if setting == ChartModel.OFF:
        return SWITCHED_OFF
    if vision is None or not vision.installed():
        return NO_VISION_MODEL
    if setting == ChartModel.AUTO and not vision.quick():
        return NO_GPU
    return None


def read_pictures(vision: VisionReader, pictures: dict[int, list[Picture]],
                  cancel: threading.Event) -> dict[int, list[TableOnPage]] | None:
    """{page: the charts the model read there} (pages in order, pictures in order); None when cancelled mid-way."""
    found: dict[int, list[TableOnPage]] = {}
    for page, on_page in sorted(pictures.items()):
        for picture in on_page:
            if cancel.is_set():
                return None
            chart = chart_from_reply(vision.read(picture.png, PROMPT, cancel), picture)
            if chart is not None:
                found.setdefault(page, []).append(chart)
    return found


@dataclass(frozen=True)
class LinearTable:
    """A model's reply read as DePlot's linearised table."""
    title: str
    kind: str
    series: tuple[str, ...]
    rows: tuple[tuple[str, tuple[str, ...]], ...]  # (category, its values as written, one a series)


def parse_reply(reply: str) -> LinearTable | None:
    """The reply's table: "TITLE | …", "TYPE | …", a header row, then a row a line; None when it holds no row of a
    category and a value (the model wrote something else)."""
    lines = [_cells(line) for line in reply.replace("<0x0A>", "\n").splitlines()
             if "|" in line and not _SEPARATOR.match(line)]
    title, kind, table = "", "chart", []
    for cells in lines:
        key = cells[0].lower().rstrip(":") if cells else ""
        if key == "title" and not table:
            title = " ".join(cells[1:])
        elif key == "type" and not table:
            kind = KINDS.get(" ".join(cells[1:]).lower(), "chart")
        elif len(cells) >= 2:
            table.append(cells)
    if len(table) < 2:
        return None
    header, body = table[0], table[1:]
    series = tuple(name or f"Series {i}" for i, name in enumerate(header[1:], 1))
    rows = tuple((cells[0], tuple(cells[1:len(series) + 1])) for cells in body if cells[0])
    return LinearTable(title, kind, series, rows) if rows else None


def _cells(line: str) -> list[str]:
    cells = [cell.strip() for cell in line.strip().split("|")]
    if cells and not cells[0]:  # "| a | b |": Markdown's outer bars
        cells = cells[1:]
    if cells and not cells[-1]:
        cells = cells[:-1]
    return cells


def chart_from_reply(reply: str, picture: Picture) -> TableOnPage | None:
    """The chart the model read in `picture`, as a table with only the values the picture prints (module
    docstring); None when none is left."""
    table = parse_reply(reply)
    if table is None:
        return None
    labels = {table.title, *table.series, *(category for category, _ in table.rows)}
    printed = _printed_numbers(picture.words, labels)
    values, seen = [], set()
    for category, written in table.rows:
        for name, text in zip(table.series, written):
            number = parse_number(text)
            key = None if number is None else _key(number)
            if key in printed and (category, name) not in seen:  # a category written twice: its first row
                seen.add((category, name))
                boxes = printed[key]  # where it is printed, when only once: the value's cell is cited there
                values.append(ChartValue(name, category, number, text, False, boxes[0] if len(boxes) == 1 else
                                         picture.bbox, None))
    if not values:
        return None
    kept_series = tuple(s for s in table.series if any(v.series == s for v in values))
    kept_categories = tuple(dict.fromkeys(v.category for v in values))
    chart = Chart(table.kind, picture.bbox, table.title, "", "", "", kept_series, kept_categories, tuple(values))
    return replace(chart.as_table(), by_model=True)


def _printed_numbers(words: tuple[Word, ...], labels: set[str]) -> dict[float, list[BBox]]:
    """{number: the boxes it is printed at} of the picture's words that are figures, the model's labels left out."""
    label_numbers = {_key(n) for n in map(parse_number, labels) if n is not None}
    printed: dict[float, list[BBox]] = {}
    for word in words:
        number = parse_number(word.text.strip(_EDGE_PUNCTUATION))
        if number is not None and _key(number) not in label_numbers:
            printed.setdefault(_key(number), []).append(word.bbox)
    return printed


def _key(number: float) -> float:
    return round(number, 6)  # "0.50" printed, "0.5" written: one value
