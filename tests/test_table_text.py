"""Tables read from their words' alignment (index/table_text.py): the failure classes of issue 54, each on a page
built here and on a real ICDAR 2013 page — rules across only, spanning headers, cells over several lines, turned
pages, whole pages without a layout model (and what is no table there), scanned pages read from OCR words."""
from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from docqa_desktop.domain import Word
from docqa_desktop.index.ocr import ocr_page
from docqa_desktop.index.tables import scanned_tables, tables_on

ICDAR = Path(__file__).resolve().parents[2] / "shared" / "corpus-train" / "icdar2013"
COUNTRIES = [("Austria", "86.2", "13.8", "0", "3,375"), ("Belgium", "0", "0", "100.0", "3,973"),
             ("Czech Republic", "98.6", "1.4", "0", "17,655"), ("Germany", "90.5", "4.4", "5.1", "55,400"),
             ("United Kingdom", "22.8", "1.4", "75.8", "57,815")]
HEADER = ("Country", "Domestic (%)", "Imported (%)", "Unknown (%)", "Total (n)")
X = (72, 200, 290, 380, 470)  # where each column's text starts


def _rows_page(page: pymupdf.Page, top: float = 100, rules: bool = True) -> pymupdf.Rect:
    """The country table set at X as the page is shown (a turned page gets its text turned the other way, as a
    landscape table printed on a portrait page does), a rule across under each row when `rules` (no rule between
    columns); returns its box."""
    shown = page.derotation_matrix
    for r, row in enumerate([HEADER, *COUNTRIES]):
        y = top + 18 * r
        for x, text in zip(X, row):
            page.insert_text(pymupdf.Point(x, y) * shown, text, fontsize=9, rotate=page.rotation)
        if rules:
            page.draw_line(pymupdf.Point(70, y + 5) * shown, pymupdf.Point(540, y + 5) * shown, width=0.5)
    return pymupdf.Rect(70, top - 12, 540, top + 18 * len(COUNTRIES) + 6)


def _row(table, label: str) -> list[str]:
    row = next(c.row for c in table.cells if c.text == label)
    return [c.text for c in sorted(table.cells, key=lambda c: c.column) if c.row == row]


def _one_table(page, regions):
    (table,) = tables_on(page, regions)
    return table


def test_a_table_ruled_across_only_keeps_its_columns_in_a_region_and_on_the_whole_page():
    """Rules under each row and none between the columns: each row is still five cells, not one."""
    with pymupdf.open() as doc:
        page = doc.new_page(width=612, height=792)
        box = _rows_page(page)
        for regions in ([tuple(box)], None):
            table = _one_table(page, regions)
            assert _row(table, "Germany") == ["Germany", "90.5", "4.4", "5.1", "55,400"]
            assert [c.text for c in table.cells if c.header] == list(HEADER)
            assert next(c for c in table.body if c.text == "55,400").column_path.endswith("Total (n)")


def test_a_header_over_two_columns_spans_them_and_heads_the_figures_under_them():
    with pymupdf.open() as doc:
        page = doc.new_page(width=612, height=792)
        page.insert_text((250, 88), "Population", fontsize=9)  # over "Domestic" and "Imported"
        _rows_page(page, rules=False)
        table = _one_table(page, None)
        spanning = next(c for c in table.cells if c.text == "Population")
        assert (spanning.header, spanning.column, spanning.column_span) == (True, 1, 2)
        path = next(c for c in table.body if c.text == "86.2").column_path
        assert path.startswith("Population / ") and path.endswith("Domestic (%)")


def test_a_label_written_over_two_lines_is_one_cell():
    with pymupdf.open() as doc:
        page = doc.new_page(width=612, height=792)
        _rows_page(page, rules=False)
        page.insert_text((72, 100 + 18 * 6), "Total of the member", fontsize=9)
        page.insert_text((72, 100 + 18 * 6 + 10), "states reporting", fontsize=9)
        for x, text in zip(X[1:], ("61.6", "6.8", "31.6", "200,507")):
            page.insert_text((x, 100 + 18 * 6), text, fontsize=9)
        table = _one_table(page, None)
        assert _row(table, "Total of the member states reporting")[1:] == ["61.6", "6.8", "31.6", "200,507"]


def test_a_turned_page_is_read_as_it_is_shown(tmp_path):
    """A page with /Rotate 90: its words come out unturned; the table is read in the frame the page is shown in
    (and the region, like the layout model's, is given in that frame)."""
    with pymupdf.open() as doc:
        page = doc.new_page(width=612, height=792)
        page.set_rotation(90)
        shown = page.rect  # 792 x 612
        _rows_page(page)
        raw = next(pymupdf.Rect(w[:4]) for w in page.get_text("words") if w[4] == "55,400")
        assert raw.height > raw.width  # extracted unturned: the words run down the page
        table = _one_table(page, [tuple(shown)])
        assert _row(table, "Germany") == ["Germany", "90.5", "4.4", "5.1", "55,400"]
        germany = next(c for c in table.cells if c.text == "Germany")
        assert germany.bbox[2] <= shown.width and germany.bbox[3] <= shown.height


def test_running_text_in_two_columns_and_a_lone_line_of_figures_are_no_table():
    with pymupdf.open() as doc:
        page = doc.new_page(width=612, height=792)
        left = "The member states reported their figures to the centre in the spring of each year as asked."
        right = "Most of them sent the figures on time and a few sent them after the summer of that year."
        for i in range(12):
            page.insert_text((72, 100 + 14 * i), left[:48], fontsize=9)
            page.insert_text((320, 100 + 14 * i), right[:48], fontsize=9)
        page.insert_text((72, 400), "Totals 12 14 16", fontsize=9)
        assert tables_on(page, None) == []


@pytest.mark.skipif(not ICDAR.is_dir(), reason="needs ../shared/corpus-train")
def test_real_pages_ruled_across_only_and_with_group_headers():
    """eu-016 p.3 (rules across only: PyMuPDF's grid reads each row as one cell) and us-025 p.2 ("Coronary heart
    disease" and "Stroke" each over their own "no. Rate (95% CI)")."""
    with pymupdf.open(ICDAR / "eu-016.pdf") as doc:
        table = _one_table(doc[2], [(88.0, 140.9, 482.0, 577.9)])
        assert _row(table, "Germany") == ["Germany", "90.5", "4.4", "5.1", "55,400"]
    with pymupdf.open(ICDAR / "us-025.pdf") as doc:
        table = tables_on(doc[1], None)[0]
        heads = {c.text: (c.column, c.column_span) for c in table.cells if c.header}  # "no. Rate (95% CI)" twice
        assert heads["Coronary heart disease"] == (1, 3) and heads["Stroke"] == (4, 3)
        female = _row(table, "Female")
        assert female == ["Female", "200,915", "103.1", "(102.7–103.6)", "82,595", "42.6", "(42.3–42.9)"]


@pytest.mark.slow  # real OCR of a page: ~5 s
def test_a_scanned_table_is_read_from_its_ocr_words_and_marked_so():
    with pymupdf.open() as doc, pymupdf.open() as scan:
        page = doc.new_page(width=612, height=792)
        _rows_page(page)
        scanned = scan.new_page(width=612, height=792)
        scanned.insert_image(scanned.rect, pixmap=page.get_pixmap(dpi=200))
        _, words = ocr_page(scanned, dpi=200)
    (table,) = scanned_tables(words, None)
    assert table.from_scan
    germany = _row(table, "Germany")
    assert germany[1:] == ["90.5", "4.4", "5.1", "55,400"]
    assert next(c for c in table.body if c.text == "55,400").number == 55400


def test_scanned_words_without_a_table_give_none():
    words = [Word(w, (72 + 40 * i, 100, 72 + 40 * i + 30, 110), 0) for i, w in enumerate("a page of words".split())]
    assert scanned_tables(words, None) == []


@pytest.mark.slow  # indexes a scanned page with real OCR: ~10 s
def test_the_index_reads_a_scanned_pages_table_from_its_ocr_words(tmp_path):
    """The tables stage reads a page read by OCR from its stored words: the table comes back from the index marked
    as read from the scan, its figures as the page shows them."""
    from docqa_desktop.service import Service
    from docqa_desktop.settings import TablesGate

    from conftest import make_settings

    folder = tmp_path / "docs"
    folder.mkdir()
    with pymupdf.open() as doc, pymupdf.open() as scan:
        page = doc.new_page(width=612, height=792)
        _rows_page(page)
        scanned = scan.new_page(width=612, height=792)
        scanned.insert_image(scanned.rect, pixmap=page.get_pixmap(dpi=200))
        scan.save(folder / "scanned.pdf")
    settings = make_settings(tmp_path / "home", layout=False, dense=False, ocr=True, ocr_dpi=200,
                             tables_gate=TablesGate.NONE)
    with Service(settings) as service:
        service.library.index([str(folder)])
        read = service.tables.of_file(str(folder / "scanned.pdf"))
    assert read.from_index
    ((number, table),) = read.tables
    assert number == 1 and table.from_scan
    assert _row(table, "Germany")[1:] == ["90.5", "4.4", "5.1", "55,400"]
