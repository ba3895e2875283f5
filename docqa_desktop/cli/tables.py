"""`docqa tables`: a PDF's tables as the product reads them, as CSV, Markdown or JSON."""
from __future__ import annotations

import argparse
import os
import sys

from ..service import TABLE_FORMATS, Service, tables_text, write_tables
from .common import local_path, page_list

DESCRIPTION = """\
The tables of a PDF as the product reads them: header rows, cells spanning rows or columns, numbers as numbers.
An indexed file's tables come from the index; any other PDF is read now (its pages with a text layer; a scan's
tables are read once it is indexed with OCR).

formats:
  csv   one CSV per table: a spanned cell's text in its first cell, the rest of its span empty (as a merged
        cell); a cell that is one figure as a plain number ("46,298" 46298, "(34)" -34, "$6.31" 6.31), a
        percent with its "%"; other text as printed, an apostrophe before text a spreadsheet would run as a
        formula ("=…"). Printed, the tables follow each other with a blank line between two; with -o, one
        file each, DIR/<stem>-p<page>-t<n>.csv, UTF-8 with a BOM (which Excel needs to read UTF-8;
        LibreOffice reads either)
  md    a GitHub pipe table under "### <file>, page N, table n" (and its caption); a column's header rows,
        top down, joined with " / " in the header line; with -o, DIR/<stem>-tables.md
  json  {"tables": [{"page", "bbox", "caption", "from_scan", "cells": [{"row", "col", "row_span", "col_span",
        "text", "bbox", "header"}]}]}: rows and columns 0-based, boxes in PDF points from the page's top left;
        a chart read as a table (after the page's tables) adds "chart" (its kind) and "by_model"; with -o,
        DIR/<stem>-tables.json"""


def add_parsers(sub, common) -> None:
    p = sub.add_parser("tables", parents=[common], help="a PDF's tables as CSV, Markdown or JSON",
                       description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", type=local_path, help="the PDF (indexed or not)")
    p.add_argument("--pages", type=page_list, metavar="PAGES", help="1-based pages, e.g. 3,5-7 (default: all)")
    shown = p.add_mutually_exclusive_group()
    shown.add_argument("--format", choices=TABLE_FORMATS,
                       help="default: md on a terminal, csv into a pipe, a file or -o DIR")
    shown.add_argument("--json", dest="format", action="store_const", const="json", help="the same as --format json")
    p.add_argument("-o", "--output", type=local_path, metavar="DIR",
                   help="write files into DIR (made when missing) and print their paths, instead of printing the tables")
    p.set_defaults(run=tables)


def tables(service: Service, args) -> int:
    found = service.tables.of_file(args.file, args.pages)
    for note in found.notes:
        print(f"docqa: {note}", file=sys.stderr)
    if not found.tables:
        print(f"docqa: no table found in {found.path}", file=sys.stderr)
    fmt = args.format or ("md" if args.output is None and sys.stdout.isatty() else "csv")
    name = os.path.basename(found.path)
    if args.output is not None:
        for path in write_tables(found.tables, fmt, args.output, name):
            print(path)
    else:
        sys.stdout.write(tables_text(found.tables, fmt, name))
    if found.error:  # a damaged page: what was read before it is out, and the command did only part of its work
        print(f"docqa: {found.error}", file=sys.stderr)
        return 1
    return 0
