"""Tables as users take them away (`docqa tables`): CSV for a spreadsheet, GitHub Markdown, JSON with every cell's
box — over (page, TableOnPage) pairs, as the facade's tables part gives them.

A cell that spans several grid cells is written in the first of them, the rest of its span left empty, as a
spreadsheet shows a merged cell. CSV writes a cell that is one figure as a plain number, so that a spreadsheet
opens it as a number ("46,298" 46298, "(34)" -34, "$6.31" 6.31, "−12" -12), a percent with its "%" (LibreOffice
and Excel read "77%" as a percent), everything else as printed. Page text is untrusted: a CSV cell a spreadsheet
would run as a formula ("=HYPERLINK(…)") gets an apostrophe before it, and Markdown escapes what would form markup
(export.markdown_text) and the pipes that would end a cell.
"""
from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from . import numbers
from .domain import BBox, TableCell, TableOnPage
from .export import markdown_text
from .files import write_atomically

FORMATS = ("csv", "md", "json")
PageTable = tuple[int, TableOnPage]  # (1-based page, a table of it)
BOM = "\ufeff"  # Excel reads a CSV file as UTF-8 only after it (LibreOffice either way); not printed to a pipe
HEADER_JOIN = " / "  # a column's header rows, top down, in its Markdown header cell
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")  # what a spreadsheet runs as a formula (CSV injection)
_CODE = re.compile(r"^\D*0\d")  # "007", "02139": a code whose leading zero a number would lose


def numbered(tables: Iterable[PageTable]) -> Iterator[tuple[int, int, TableOnPage]]:
    """(page, n, table), n counting each page's tables from 1: the file names and headings say "page 3, table 2"."""
    counts: dict[int, int] = {}
    for page, table in tables:
        counts[page] = counts.get(page, 0) + 1
        yield page, counts[page], table


def grid(table: TableOnPage, shown: Callable[[TableCell], str] = lambda cell: cell.text) -> list[list[str]]:
    """The table's rows × columns, header rows first: each cell shown in the first grid cell it covers, the rest
    of its span empty."""
    rows = [[""] * table.columns for _ in range(table.rows)]
    for cell in table.cells:
        rows[cell.row][cell.column] = shown(cell)
    return rows


# -- CSV --------------------------------------------------------------------------------------------------------

def tables_csv(tables: Iterable[PageTable]) -> str:
    """Every table as CSV, a blank line between two (what is printed; a file holds one table: table_csv)."""
    return "\n".join(table_csv(table) for _, table in tables)


def table_csv(table: TableOnPage) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(grid(table, lambda cell: csv_value(cell.text)))
    return out.getvalue()


def csv_value(text: str) -> str:
    """A cell as a spreadsheet should read it: one figure as a plain number (a percent keeps its "%"), any other
    text as printed, but never as a formula."""
    figure = numbers.value(text)
    if figure is not None and not _CODE.search(text):
        return f"{figure.value:f}{'%' * figure.percent}"
    if text.startswith(FORMULA_STARTS) and len(text) > 1:  # a lone "-" (nothing) runs nothing
        return "'" + text
    return text


# -- Markdown ---------------------------------------------------------------------------------------------------

def tables_markdown(tables: Iterable[PageTable], name: str) -> str:
    """Every table as a GitHub pipe table under "### <name>, page N, table n" (and its caption; a chart's kind after
    n): its header rows make the header line, each column's joined top down ("Fiscal 2023 / Revenue"); no header
    rows, empty cells."""
    return "\n".join(_markdown_table(name, page, n, table) for page, n, table in numbered(tables))


def _markdown_table(name: str, page: int, n: int, table: TableOnPage) -> str:
    kind = f" ({table.chart}{', read by the vision model' if table.by_model else ''})" if table.chart else ""
    lines = [f"### {markdown_text(name, starts_line=False)}, page {page}, table {n}{kind}", ""]
    if table.caption:
        lines += [markdown_text(table.caption), ""]
    body = grid(table, lambda cell: _markdown_cell(cell.text))[table.header_rows:]
    lines += [_pipe_row(map(_markdown_cell, header_line(table))), _pipe_row(["---"] * table.columns),
              *map(_pipe_row, body)]
    return "\n".join(lines) + "\n"


def header_line(table: TableOnPage) -> list[str]:
    """Each column's header: the header cells over it, top down, joined with " / " (a cell spanning columns heads
    each of them)."""
    parts: list[list[str]] = [[] for _ in range(table.columns)]
    for cell in sorted((cell for cell in table.cells if cell.header), key=lambda cell: cell.row):
        for column in range(cell.column, min(cell.column + cell.column_span, table.columns)):
            parts[column].append(cell.text)
    return [HEADER_JOIN.join(part) for part in parts]


def _markdown_cell(text: str) -> str:
    return markdown_text(text, starts_line=False).replace("|", "\\|")


def _pipe_row(cells: Iterable[str]) -> str:
    return "| " + " | ".join(cells) + " |"


# -- JSON -------------------------------------------------------------------------------------------------------

def tables_json(tables: Iterable[PageTable]) -> str:
    """{"tables": [{"page", "bbox", "caption", "from_scan", "cells": [{"row", "col", "row_span", "col_span", "text",
    "bbox", "header"}]}]}: header cells first, boxes in PDF points with the origin at the page's top left. A chart
    read as a table has "chart" (its kind) and "by_model" too, and a value read off its axis "from_axis": true."""
    return json.dumps({"tables": [_table_json(page, table) for page, table in tables]}, indent=2,
                      ensure_ascii=False) + "\n"


def _table_json(page: int, table: TableOnPage) -> dict:
    chart = {"chart": table.chart, "by_model": table.by_model} if table.chart else {}  # a table's keys as they were
    return {"page": page, "bbox": _box(table.bbox), "caption": table.caption, "from_scan": table.from_scan, **chart,
            "cells": [_cell_json(cell) for cell in table.cells]}


def _cell_json(cell: TableCell) -> dict:
    return {"row": cell.row, "col": cell.column, "row_span": cell.row_span, "col_span": cell.column_span,
            "text": cell.text, "bbox": _box(cell.bbox), "header": cell.header,
            **({"from_axis": True} if cell.from_axis else {})}


def _box(box: BBox) -> list[float]:
    return [round(v, 2) for v in box]


# -- printed, or written into a folder --------------------------------------------------------------------------

def tables_text(tables: Iterable[PageTable], fmt: str, name: str) -> str:
    """The tables in one text of format `fmt` (FORMATS), as printed; `name`: the file's, for Markdown's headings."""
    tables = list(tables)
    texts = {"csv": tables_csv, "md": lambda found: tables_markdown(found, name), "json": tables_json}
    return texts[_known(fmt)](tables)


def write_tables(tables: Iterable[PageTable], fmt: str, folder: Path, name: str) -> list[Path]:
    """Write the tables into `folder` (made when missing) and return the paths written: CSV one file per table,
    "<stem>-p<page>-t<n>.csv", UTF-8 with a BOM for Excel; Markdown or JSON one file, "<stem>-tables.md|json"."""
    folder, stem = Path(folder), Path(name).stem
    folder.mkdir(parents=True, exist_ok=True)
    if _known(fmt) == "csv":
        return [write_atomically(folder / f"{stem}-p{page}-t{n}.csv", BOM + table_csv(table))
                for page, n, table in numbered(tables)]
    return [write_atomically(folder / f"{stem}-tables.{fmt}", tables_text(tables, fmt, name))]


def _known(fmt: str) -> str:
    if fmt not in FORMATS:
        raise ValueError(f"unknown table format {fmt!r}; choose one of {', '.join(FORMATS)}")
    return fmt
