"""Rotated pages (issue 56, item 2): a page turned by its /Rotate, and text set turned on a page (a landscape table
printed on a portrait page), read in reading order, with boxes in the page as shown — where the viewer draws them
over the rendered page and crops clip them.

Each page is generated with its text standing turned by `turn` (clockwise) as the page is shown, on a page whose
/Rotate is `rotation`; its twin is the same text set upright on an unrotated page. Text and tables must come out as
the twin's, and each box must be the twin's box turned onto the page (and have the text's ink under it)."""
from __future__ import annotations

import numpy as np
import pymupdf
import pytest

from docqa_desktop.domain import Word
from docqa_desktop.index import ocr
from docqa_desktop.index.tables import scanned_tables, tables_on
from docqa_desktop.pdf.document import page_turn, parse_page, text_layer
from docqa_desktop.pdf.find import find_in_words, wanted_text
from docqa_desktop.pdf.orientation import moved, upright, words_turn
from docqa_desktop.pdf.render import render, render_region

ANGLES = (0, 90, 180, 270)
WIDTH, HEIGHT = 612, 792
PROSE = ["Island ferry timetable for the winter season", "The last ferry leaves the harbour at 22:40 daily",
         "Tickets are sold on board and at the pier office"]
HEADER = ("Country", "Domestic (%)", "Imported (%)", "Total (n)")
ROWS = [("Austria", "86.2", "13.8", "3,375"), ("Belgium", "0", "100.0", "3,973"),
        ("Germany", "90.5", "9.5", "55,400"), ("United Kingdom", "22.8", "77.2", "57,815")]
COLUMNS = (72, 220, 320, 420)  # where each column's text starts, in the upright frame
PHRASE = "last ferry leaves"


def _turned_page(doc: pymupdf.Document, rotation: int, turn: int, size: tuple[float, float] = (WIDTH, HEIGHT)
                 ) -> pymupdf.Page:
    """A page of `size` with /Rotate `rotation` whose prose and table stand turned by `turn` as it is shown. Laid
    out in the upright frame, then put where that frame lies on the shown page, then where the shown page lies in
    the unrotated page the content stream draws in."""
    page = doc.new_page(width=size[0], height=size[1])
    page.set_rotation(rotation)
    place = ~upright(turn, page.rect.width, page.rect.height) * page.derotation_matrix
    angle = (rotation - turn) % 360  # insert_text turns text anticlockwise in the unrotated page
    for i, line in enumerate(PROSE):
        page.insert_text(pymupdf.Point(72, 80 + 16 * i) * place, line, fontsize=10, rotate=angle)
    for r, row in enumerate([HEADER, *ROWS]):
        y = 160 + 18 * r
        for x, text in zip(COLUMNS, row):
            page.insert_text(pymupdf.Point(x, y) * place, text, fontsize=9, rotate=angle)
        page.draw_line(pymupdf.Point(70, y + 5) * place, pymupdf.Point(480, y + 5) * place, width=0.5)
    return page


def _twin(rotation: int, turn: int) -> pymupdf.Page:
    """The same text set upright on an unrotated page the size of the upright frame (the shown page turned back)."""
    shown = (WIDTH, HEIGHT) if rotation % 180 == 0 else (HEIGHT, WIDTH)
    return _turned_page(pymupdf.open(), 0, 0, shown if turn % 180 == 0 else shown[::-1])


def _close(a, b, tolerance: float = 0.6) -> bool:
    return all(abs(x - y) <= tolerance for x, y in zip(a, b))


def _found(words: list[Word], phrase: str = PHRASE):
    (match,) = find_in_words([(w.text, w.bbox) for w in words], wanted_text(phrase))
    (box,) = match
    return box


def _ink(png: bytes, box, zoom: float) -> float:
    """The share of the pixels under `box` (points) on a page rendered at `zoom` pixels per point that are dark."""
    pix = pymupdf.Pixmap(png)
    image = np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.height, pix.width, pix.n)
    x0, y0, x1, y1 = (round(v * zoom) for v in box)
    return float((image[y0:y1, x0:x1, :3].min(axis=2) < 128).mean())


@pytest.mark.parametrize("turn", ANGLES)
@pytest.mark.parametrize("rotation", ANGLES)
def test_turned_text_is_read_in_order_and_boxed_on_the_page_as_shown(tmp_path, rotation, turn):
    doc = pymupdf.open()
    page = _turned_page(doc, rotation, turn)
    twin = _twin(rotation, turn)
    text, words = text_layer(page)
    assert text == text_layer(twin)[0]
    assert text.splitlines()[:2] == PROSE[:2]
    assert "Germany 90.5 9.5 55,400" in text.splitlines()
    assert page_turn(page) == turn
    to_twin = upright(turn, page.rect.width, page.rect.height)
    for word, twin_word in zip(words, text_layer(twin)[1]):
        assert word.text == twin_word.text and _close(moved(word.bbox, to_twin), twin_word.bbox), (word, twin_word)
    box = _found(words)
    assert _close(moved(box, to_twin), _found(text_layer(twin)[1]))
    # where the viewer draws it: the rendered page (scaled to its width), and the crop of it
    path = tmp_path / "turned.pdf"
    doc.save(path)
    shown = render(str(path), 1, max_width=1200)
    zoom = pymupdf.Pixmap(shown.png).width / shown.width
    assert (shown.width, shown.height) == (page.rect.width, page.rect.height)
    assert _ink(shown.png, box, zoom) > 0.05  # the letters' ink: about a fifth of the box
    beside = moved(moved(box, to_twin), pymupdf.Matrix(1, 0, 0, 1, 300, 0) * ~to_twin)  # past the end of its line
    assert _ink(shown.png, beside, zoom) == 0.0
    crop = render_region(str(path), 1, box, 40_000)
    assert _close(crop.box, box) and _ink(crop.png, (0, 0, crop.width, crop.height), 1.0) > 0.05


@pytest.mark.parametrize("turn", ANGLES)
@pytest.mark.parametrize("rotation", ANGLES)
def test_a_table_turned_on_the_page_is_read_with_its_cells_where_the_page_shows_them(rotation, turn):
    page = _turned_page(pymupdf.open(), rotation, turn)
    twin = _twin(rotation, turn)
    to_twin = upright(turn, page.rect.width, page.rect.height)
    region = moved(pymupdf.Rect(60, 145, 490, 240), ~to_twin)  # the layout model's box, in the page as shown
    for regions in (None, [region]):
        (table,) = tables_on(page, regions)
        (twin_table,) = tables_on(twin, None if regions is None else [(60, 145, 490, 240)])
        germany = next(c.row for c in table.cells if c.text == "Germany")
        assert [c.text for c in table.cells if c.row == germany] == ["Germany", "90.5", "9.5", "55,400"]
        cell = next(c for c in table.body if c.text == "55,400")
        assert cell.row_path == "Germany" and cell.column_path.endswith("Total (n)")
        twin_cell = next(c for c in twin_table.body if c.text == "55,400")
        assert _close(moved(cell.bbox, to_twin), twin_cell.bbox)
        assert _close(moved(table.bbox, to_twin), twin_table.bbox)
    assert page.rotation == rotation  # the page turned to read its table is turned back


@pytest.mark.parametrize("turn", ANGLES)
def test_a_scanned_table_turned_on_the_page_is_read_from_its_words(turn):
    """A scan's words come from OCR in reading order with boxes on the page as shown (no line directions): the
    table is read in the frame its rows run left to right in."""
    twin = _twin(0, 0)
    _, words = text_layer(twin)
    to_page = ~upright(turn, HEIGHT if turn % 180 else WIDTH, WIDTH if turn % 180 else HEIGHT)
    turned = [Word(w.text, moved(w.bbox, to_page), w.line) for w in words]
    assert words_turn(turned) == turn
    (table,) = scanned_tables(turned, None)
    (twin_table,) = scanned_tables(words, None)
    germany = next(c.row for c in table.cells if c.text == "Germany")
    assert [c.text for c in table.cells if c.row == germany] == ["Germany", "90.5", "9.5", "55,400"]
    assert table.from_scan
    cell, twin_cell = (next(c for c in t.body if c.text == "55,400") for t in (table, twin_table))
    assert _close(cell.bbox, moved(twin_cell.bbox, to_page))


@pytest.mark.model  # real OCR, twice a turned page: 5-25 s a page on 2 busy cores
@pytest.mark.parametrize("rotation", ANGLES)
def test_a_scan_turned_by_its_rotate_is_read_upright_by_ocr(rotation):
    """An image of upright text on a page whose /Rotate turns it (as nemotron_multipage.pdf's pages are): OCR reads
    the lines in order and boxes the words where the page shows them."""
    twin = _twin(0, 0)
    clip = pymupdf.Rect(60, 60, 400, 120)
    image = twin.get_pixmap(matrix=pymupdf.Matrix(3, 3), clip=clip)
    doc = pymupdf.open()
    page = doc.new_page(width=clip.width, height=clip.height)
    page.insert_image(page.rect, pixmap=image)
    page.set_rotation(rotation)
    parsed = parse_page(page, lambda p: ocr.ocr_page(p, 150, "cpu"))
    assert parsed.text_source.value == "ocr"
    assert [line.lower() for line in parsed.text.splitlines()[:2]] == [line.lower() for line in PROSE[:2]]
    box = _found(parsed.words)
    expected = moved(_found(text_layer(twin)[1]), pymupdf.Matrix(1, 0, 0, 1, -clip.x0, -clip.y0) * page.rotation_matrix)
    assert pymupdf.Rect(box).intersect(expected).get_area() > 0.5 * pymupdf.Rect(expected).get_area()


def test_ocr_takes_the_turn_its_classifier_and_line_shapes_give():
    """Stand-in results: lines taller than wide are sideways; the 0/180 classifier's confidence decides which way."""
    class Classifier:
        cls_thresh = 0.9

        def __init__(self, label):
            self.label = label

        def __call__(self, crops):
            return crops, [[self.label, 0.95] for _ in crops], 0.0

    class Engine:
        def __init__(self, label):
            self.text_cls = Classifier(label)

    image = np.zeros((400, 300, 3), dtype=np.uint8)
    wide = [[[10, 10], [200, 10], [200, 30], [10, 30]], "a line of text", 0.9]
    tall = [[[10, 10], [30, 10], [30, 200], [10, 200]], "a line of text", 0.9]
    assert ocr._turn(Engine("0"), image, [wide, wide]) == 0
    assert ocr._turn(Engine("180"), image, [wide, wide]) == 180
    assert ocr._turn(Engine("0"), image, [tall, tall, wide]) == 90
    assert ocr._turn(Engine("180"), image, [tall, tall, wide]) == 270


@pytest.mark.model  # the layout model: ~1 s a page
def test_the_layout_model_is_shown_turned_text_upright_and_boxes_it_where_the_page_shows_it():
    """Shown sideways, the layout model calls the table a picture or misses the prose; shown upright it finds both,
    its boxes mapped back to the page as shown."""
    from docqa_desktop.index.layout import layout_elements

    combos = [(0, 90), (90, 90), (270, 180)]
    doc = pymupdf.open()
    for rotation, turn in combos:
        _turned_page(doc, rotation, turn)
    found = layout_elements(doc, [1, 2, 3], "cpu")
    twin = _twin(0, 0)
    expected = next(e.bbox for e in layout_elements(twin.parent, [1], "cpu")[1] if e.kind == "table")
    for number, (rotation, turn) in enumerate(combos, 1):
        shown = (WIDTH, HEIGHT) if rotation % 180 == 0 else (HEIGHT, WIDTH)  # pymupdf4llm leaves the pages changed
        (table,) = [e for e in found[number] if e.kind == "table"]
        assert _close(moved(table.bbox, upright(turn, *shown)), expected, 2.0)
        assert sum(e.kind == "text" for e in found[number]) >= 2
