"""`docqa tables` (issue 54): a PDF's tables as CSV, Markdown and JSON — read on the spot from a file not indexed,
from the index once it is, and served by the open app; header rows with their spans, numbers as numbers, boxes in
the page's frame."""
from __future__ import annotations

import csv
import functools
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pymupdf
import pytest

from conftest import ROOT, make_settings
from docqa_desktop.cli import main
from docqa_desktop.domain import TableCell, TableOnPage
from docqa_desktop.service import Service
from docqa_desktop.settings import TablesGate, save
from docqa_desktop.store.tables import insert_tables, tables_of_page
from docqa_desktop.table_export import csv_value
from table_pdf import _ruled_row

ICDAR = ROOT.parent / "shared" / "corpus-train" / "icdar2013"
SEGMENTS = [["Segment", "Fiscal 2023", None, "Change"],  # "Fiscal 2023" spans Revenue and Margin
            ["", "Revenue", "Margin", "Share"],
            ["Retail", "46,298", "(34)", "12.5%"],
            ["Services | online", "1,419", "$6.31", "-3.0%"]]
SEGMENT_WIDTHS = [150, 90, 90, 90]
TOP = 100  # where the segments table starts on page 1, in points from the top
STOCK = [["Item", "Code", "Count"], ["=1+2", "007", "12"], ["Pens", "042", "-5"]]
# the tables stage on every page whole, no layout model, no OCR: the index reads what a file read now gives
TABLES_INDEX = {"layout": False, "dense": False, "ocr": False, "tables_gate": TablesGate.NONE}


def write_tables_pdf(path: Path) -> Path:
    """Page 1: the segments table under its caption; 2: prose; 3: the stock table; 4: page 1 as a picture (a
    scan: no text layer)."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((72, 80), "Table 1: Results by segment", fontsize=10)
    for r, row in enumerate(SEGMENTS):
        _ruled_row(page, row, SEGMENT_WIDTHS, TOP + 20 * r)
    doc.new_page(width=612, height=792).insert_text((72, 80), "Nothing but prose on this page.", fontsize=10)
    page = doc.new_page(width=612, height=792)
    for r, row in enumerate(STOCK):
        _ruled_row(page, row, [150, 90, 90], TOP + 20 * r)
    scan = doc[0].get_pixmap(dpi=100).tobytes("png")
    doc.new_page(width=612, height=792).insert_image(pymupdf.Rect(0, 0, 612, 792), stream=scan)
    doc.save(path)
    return path


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("tables") / "docs"
    folder.mkdir()
    write_tables_pdf(folder / "segments.pdf")
    return folder


def tables(capsys, *argv: str) -> tuple[int, str, str]:
    """`docqa tables ARGV` in this process: (exit code, stdout, stderr)."""
    code = main(["tables", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


def printed_json(capsys, *argv) -> dict:
    code, out, err = tables(capsys, *argv, "--json")
    assert code == 0, err
    return json.loads(out)


# -- formats, on a file read on the spot ------------------------------------------------------------------------

def test_json_gives_every_cell_with_the_header_rows_their_spans_and_boxes_in_the_page_frame(folder, tmp_path, capsys):
    found = printed_json(capsys, folder / "segments.pdf", "--pages", "1", "--home", tmp_path / "home")
    (table,) = found["tables"]
    assert set(table) == {"page", "bbox", "caption", "from_scan", "cells"}
    assert (table["page"], table["caption"], table["from_scan"]) == (1, "Table 1: Results by segment", False)
    assert table["bbox"] == [72.0, TOP, 72.0 + sum(SEGMENT_WIDTHS), TOP + 20 * len(SEGMENTS)]
    assert all(set(cell) == {"row", "col", "row_span", "col_span", "text", "bbox", "header"} for cell in table["cells"])
    cells = {cell["text"]: cell for cell in table["cells"]}
    assert [(c["row"], c["col"], c["col_span"], c["header"]) for c in table["cells"] if c["header"]] == [
        (0, 0, 1, True), (0, 1, 2, True), (0, 3, 1, True), (1, 1, 1, True), (1, 2, 1, True), (1, 3, 1, True)]
    assert cells["Fiscal 2023"]["bbox"] == [222.0, TOP, 402.0, TOP + 20]  # across both columns it spans
    assert (cells["46,298"]["row"], cells["46,298"]["col"], cells["46,298"]["header"]) == (2, 1, False)
    assert cells["46,298"]["bbox"] == [222.0, TOP + 40, 312.0, TOP + 60]  # the ruled cell, top-left origin


def test_csv_files_hold_numbers_as_numbers_and_a_span_as_a_merged_cell(folder, tmp_path, capsys):
    out = tmp_path / "out"  # made by the command
    code, printed, err = tables(capsys, folder / "segments.pdf", "-o", out, "--home", tmp_path / "home")
    assert code == 0, err
    assert printed.splitlines() == [str(out / "segments-p1-t1.csv"), str(out / "segments-p3-t1.csv")]
    raw = (out / "segments-p1-t1.csv").read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")  # the BOM Excel needs to read UTF-8
    assert list(csv.reader(io.StringIO(raw.decode("utf-8-sig")))) == [
        ["Segment", "Fiscal 2023", "", "Change"], ["", "Revenue", "Margin", "Share"],
        ["Retail", "46298", "-34", "12.5%"], ["Services | online", "1419", "6.31", "-3.0%"]]
    stock = list(csv.reader(io.StringIO((out / "segments-p3-t1.csv").read_text("utf-8-sig"))))
    assert stock == [["Item", "Code", "Count"], ["'=1+2", "007", "12"], ["Pens", "042", "-5"]]


@pytest.mark.parametrize("text, written", [
    ("46,298", "46298"), ("1,005", "1005"), ("(34)", "-34"), ("$6.31", "6.31"), ("\u221212", "-12"), ("–12", "-12"), ("77%", "77%"),
    ("(2.3)%", "-2.3%"), ("0.5", "0.5"), ("66.4% (0.8%)", "66.4% (0.8%)"), ("007", "007"), ("Revenue", "Revenue"),
    ("-", "-"), ("—", "—"), ("=HYPERLINK(\"http://x\")", "'=HYPERLINK(\"http://x\")"), ("@SUM(A1)", "'@SUM(A1)"),
    ("- of which", "'- of which")])
def test_a_csv_cell_is_a_number_when_it_is_one_figure_and_never_a_formula(text, written):
    assert csv_value(text) == written


def test_printed_csv_puts_a_blank_line_between_tables(folder, tmp_path, capsys):
    code, out, err = tables(capsys, folder / "segments.pdf", "--home", tmp_path / "home")  # not a terminal: csv
    assert code == 0, err
    first, second = out.split("\n\n")
    assert first.splitlines()[2] == "Retail,46298,-34,12.5%"
    assert second.splitlines()[0] == "Item,Code,Count" and "\ufeff" not in out  # no BOM into a pipe


def test_markdown_heads_each_column_with_its_header_rows(folder, tmp_path, capsys):
    code, out, err = tables(capsys, folder / "segments.pdf", "--pages", "1-2", "--format", "md",
                            "--home", tmp_path / "home")
    assert code == 0, err
    assert out == ("### segments.pdf, page 1, table 1\n\n"
                   "Table 1: Results by segment\n\n"
                   "| Segment | Fiscal 2023 / Revenue | Fiscal 2023 / Margin | Change / Share |\n"
                   "| --- | --- | --- | --- |\n"
                   "| Retail | 46,298 | (34) | 12.5% |\n"
                   "| Services \\| online | 1,419 | $6.31 | -3.0% |\n")


def test_a_page_without_a_text_layer_is_said_to_wait_for_ocr(folder, tmp_path, capsys):
    code, out, err = tables(capsys, folder / "segments.pdf", "--pages", "3-4", "--json", "--home", tmp_path / "home")
    assert code == 0, err
    assert [table["page"] for table in json.loads(out)["tables"]] == [3]
    assert err == ("docqa: no text layer on page 4: tables there are read only once the file is indexed with OCR "
                   "(`docqa index FILE`; setting index.ocr)\n")


# -- errors -----------------------------------------------------------------------------------------------------

def test_a_missing_file_or_one_that_is_no_pdf_is_said_by_name_with_exit_2(tmp_path, capsys):
    home = tmp_path / "home"
    (tmp_path / "notes.txt").write_text("no tables here")
    (tmp_path / "fake.pdf").write_text("no tables here either")
    (tmp_path / "folder.pdf").mkdir()
    for name, reason in (("missing.pdf", "no such file"), ("notes.txt", ".txt files are not read"),
                         ("fake.pdf", "not a PDF"), ("folder.pdf", "a folder, not a PDF")):
        code, out, err = tables(capsys, tmp_path / name, "--home", home)
        assert (code, out) == (2, ""), err
        assert str(tmp_path / name) in err and reason in err


def test_a_page_list_that_is_none_or_beyond_the_document_is_refused(folder, tmp_path, capsys):
    for pages in ("x", "3-", "0", "7-5", ""):
        with pytest.raises(SystemExit) as exit_:
            main(["tables", str(folder / "segments.pdf"), "--pages", pages, "--home", str(tmp_path / "home")])
        assert exit_.value.code == 2
        assert "--pages" in capsys.readouterr().err
    code, out, err = tables(capsys, folder / "segments.pdf", "--pages", "2,5-6", "--home", tmp_path / "home")
    assert (code, out) == (2, "")
    assert err.strip() == f"docqa: {folder / 'segments.pdf'} has 4 pages: no page 5, 6"


# -- from the index ---------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def indexed(folder, tmp_path_factory) -> tuple[Path, Path]:
    """A copy of the folder indexed with the tables stage on every page (no layout model, no OCR)."""
    base = tmp_path_factory.mktemp("tables-indexed")
    library, home = base / "docs", base / "home"
    library.mkdir()
    (library / "segments.pdf").write_bytes((folder / "segments.pdf").read_bytes())
    settings = make_settings(home, **TABLES_INDEX)
    save(settings)
    with Service(settings) as service:
        report = service.library.index([str(library)])
    assert report.stages["tables"].done == 4 and not report.errors
    return library / "segments.pdf", home


@pytest.mark.slow  # indexes a PDF (a worker pool for its text, another for its tables)
def test_an_indexed_files_tables_come_from_the_index_as_the_file_gives_them(indexed, folder, tmp_path, capsys):
    pdf, home = indexed
    with Service(make_settings(home, **TABLES_INDEX)) as service:
        assert service.tables.of_file(str(pdf)).from_index
    from_index = printed_json(capsys, pdf, "--home", home)
    read_now = printed_json(capsys, folder / "segments.pdf", "--home", tmp_path / "home")
    assert from_index == read_now and len(from_index["tables"]) == 2
    assert "no text layer on page 4" in tables(capsys, pdf, "--pages", "4", "--home", home)[2]


@pytest.mark.slow  # indexes a PDF
def test_a_file_changed_since_it_was_indexed_is_read_again(indexed, tmp_path):
    pdf, home = indexed
    changed = tmp_path / "segments.pdf"
    changed.write_bytes(pdf.read_bytes())
    os.utime(changed, (1, 1))
    os.replace(changed, pdf)  # the same bytes, another mtime: the index may be stale, so the file is read
    with Service(make_settings(home, **TABLES_INDEX)) as service:
        found = service.tables.of_file(str(pdf), [1])
    assert not found.from_index and [page for page, _ in found.tables] == [1]


def test_header_cells_and_spans_come_back_from_the_store_as_written(tmp_path):
    header = (TableCell(0, 0, "Segment", "", "", None, (72.0, 100.0, 222.0, 140.0), row_span=2, header=True),
              TableCell(0, 1, "Fiscal 2023", "", "", 2023.0, (222.0, 100.0, 402.0, 120.0), column_span=2,
                        header=True),
              TableCell(1, 1, "Revenue", "", "", None, (222.0, 120.0, 312.0, 140.0), header=True),
              TableCell(1, 2, "Margin", "", "", None, (312.0, 120.0, 402.0, 140.0), header=True))
    body = (TableCell(2, 0, "Retail", "", "Segment", None, (72.0, 140.0, 222.0, 160.0)),
            TableCell(2, 1, "46,298", "Retail", "Fiscal 2023 / Revenue", 46298.0, (222.0, 140.0, 312.0, 160.0)),
            TableCell(2, 2, "(34)", "Retail", "Fiscal 2023 / Margin", -34.0, (312.0, 140.0, 402.0, 160.0)))
    written = TableOnPage((72.0, 100.0, 402.0, 160.0), "Table 1: Results by segment", 1e6, 3, 3, 2,
                          header + body, from_scan=True)
    with Service(make_settings(tmp_path / "home")) as service:
        db = service.resources.db
        with db.transaction() as write:
            insert_tables(db, write, 7, {2: [written]})
        assert tables_of_page(db.cursor(), 7, 2) == [written]


# -- a real document, and the command served by the open app ----------------------------------------------------

def test_a_real_report_gives_its_tables_in_json(tmp_path, capsys):
    pdf = ICDAR / "us-017.pdf"
    assert pdf.exists(), f"the ICDAR 2013 corpus is missing: {ICDAR} (CI keeps ../shared beside the checkout)"
    found = printed_json(capsys, pdf, "--pages", "2", "--home", tmp_path / "home")
    table = found["tables"][0]  # Table 1, enrollment by year
    assert any(cell["header"] for cell in table["cells"]) and any(not cell["header"] for cell in table["cells"])
    x0, y0, x1, y1 = table["bbox"]
    assert all(x0 - 1 <= c["bbox"][0] <= c["bbox"][2] <= x1 + 1 and y0 - 1 <= c["bbox"][1] <= c["bbox"][3] <= y1 + 1
               for c in table["cells"])
    code, out, err = tables(capsys, pdf, "--pages", "2", "--format", "csv", "--home", tmp_path / "home")
    grid = list(csv.reader(io.StringIO(out)))
    assert code == 0 and all(grid[c["row"]][c["col"]] == csv_value(c["text"]) for c in table["cells"]), err
    grouped = [c for c in table["cells"] if re.fullmatch(r"\d{1,3}(?:,\d{3})+", c["text"])]  # "14,062"
    assert grouped and all(grid[c["row"]][c["col"]] == c["text"].replace(",", "") for c in grouped)


CLIENT = ("import sys\n"
          "from docqa_desktop.cli.app_link import forward\n"
          "sys.exit(forward(sys.argv[2:], sys.argv[1]))\n")


@pytest.mark.slow  # a docqa-side client process
def test_the_open_app_serves_the_command_with_paths_from_where_it_was_typed(folder, tmp_path, monkeypatch):
    from docqa_desktop.cli.app_link import CommandServer
    from docqa_desktop.cli.main import run_served

    for name in ("stdin", "stdout", "stderr"):  # serving a command routes them: put back after the test
        monkeypatch.setattr(sys, name, getattr(sys, name))
    typed_in = tmp_path / "where the user is"
    typed_in.mkdir()
    (typed_in / "segments.pdf").write_bytes((folder / "segments.pdf").read_bytes())
    events = SimpleNamespace(command_started=lambda command: None, command_ended=lambda command, code: None,
                             bring_forward=lambda paths: None)  # what the window would show
    with Service(make_settings(tmp_path / "home")) as service:
        data = service.settings.locations.data_dir
        server = CommandServer(data, functools.partial(run_served, service), events)
        try:
            client = subprocess.run([sys.executable, "-c", CLIENT, str(data), "tables", "segments.pdf", "-o", "out",
                                     "--pages", "1"], cwd=typed_in, capture_output=True, text=True, timeout=120)
        finally:
            server.close()
    assert client.returncode == 0, client.stderr
    assert client.stdout == f"{typed_in / 'out' / 'segments-p1-t1.csv'}\n"
    assert "46298" in (typed_in / "out" / "segments-p1-t1.csv").read_text("utf-8-sig")
