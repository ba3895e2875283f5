"""The viewer opens at the evidence (issue 56, item 6), offscreen with a real rendered page: a table cell cited on a
dense statistics page is scrolled into view and zoomed until its words stand at least 10 pt tall on screen (at the
whole page they stand smaller), "Fit" (Ctrl+0) gives the whole page back in one click, and Next / Previous
citation (F8, Shift+F8) step through an answer's citations across pages and documents, stopping at the last with
the row saying so."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

pytest.importorskip("pytestqt")  # the test extra installs it

from PySide6.QtCore import QPoint, QRect, Qt  # noqa: E402
from PySide6.QtWidgets import QToolButton  # noqa: E402

from conftest import ask_in_window, open_window  # noqa: E402
from docqa_desktop.settings import TablesGate  # noqa: E402

LAPTOP = (1280, 700)  # a 1366 × 768 screen less the window's frame and a taskbar: the viewer is a narrow pane
STATES = ["Alabama", "Alaska", "Arizona", "Arkansas", "California", "Colorado", "Connecticut", "Delaware", "Florida",
          "Georgia", "Hawaii", "Idaho", "Illinois", "Indiana", "Iowa", "Kansas", "Kentucky", "Louisiana", "Maine",
          "Maryland", "Massachusetts", "Michigan", "Minnesota", "Mississippi", "Missouri", "Montana", "Nebraska",
          "Nevada", "New Hampshire", "New Jersey", "New Mexico", "New York", "North Carolina", "North Dakota", "Ohio",
          "Oklahoma", "Oregon", "Pennsylvania", "Rhode Island", "South Carolina", "South Dakota", "Tennessee", "Texas",
          "Utah", "Vermont", "Virginia", "Washington", "West Virginia", "Wisconsin", "Wyoming"]
HEADER = ["State", "Handgun", "Long gun", "Permit", "Other", "Total"]
WIDTHS = [110, 60, 60, 60, 60, 70]
LEFT, TOP, ROW = 40, 52, 13  # the table's corner and row height, in points
FONT = 6.5  # points: the size of a dense statistics page
QUESTION = "How many handgun checks were there in Texas in 2019?"


def _figure(row: int, column: int, year: int) -> str:
    return f"{(row * 7919 + column * 104729 + year * 31) % 90000 + 1000:,}"


def cell_box(row: int, column: int) -> tuple[float, float, float, float]:
    """Where a cell of the table lies (row 0: the header), in PDF points."""
    x = LEFT + sum(WIDTHS[:column])
    y = TOP + ROW * row
    return (x, y, x + WIDTHS[column], y + ROW)


def write_checks(path: Path, years: tuple[int, ...]) -> Path:
    """A dense ruled statistics table of the 50 states, one page a year."""
    import pymupdf

    doc = pymupdf.open()
    for year in years:
        page = doc.new_page(width=612, height=792)
        page.insert_text((LEFT, 40), f"Firearm checks by state, {year}", fontsize=11)
        rows = [HEADER] + [[state] + [_figure(r, c, year) for c in range(1, 6)] for r, state in enumerate(STATES, 1)]
        for r, row in enumerate(rows):
            for c, cell in enumerate(row):
                x0, y0, x1, y1 = cell_box(r, c)
                page.draw_rect(pymupdf.Rect(x0, y0, x1, y1), color=(0, 0, 0), width=0.4)
                page.insert_text((x0 + 2, y1 - 3.5), cell, fontsize=FONT)
    doc.save(path)
    doc.close()
    return path


def add_reports(folder: Path) -> None:
    write_checks(folder / "checks.pdf", (2019, 2020))
    write_checks(folder / "checks-2021.pdf", (2021,))


@pytest.fixture
def window(qtbot, indexed_service):
    service = indexed_service(add_reports, "stats", ocr=False, tables_gate=TablesGate.NONE)
    win = open_window(qtbot, service)
    win.resize(*LAPTOP)
    qtbot.waitUntil(lambda: win.size().toTuple() == LAPTOP, timeout=10_000)
    yield win
    win.close()


def words_height(path: str, page: int, box) -> float:
    """The cited words' height in PDF points, as the page's own text layer gives it (not the app's index)."""
    import pymupdf

    with pymupdf.open(path) as doc:
        words = [w for w in doc[page - 1].get_text("words")
                 if box[0] <= (w[0] + w[2]) / 2 <= box[2] and box[1] <= (w[1] + w[3]) / 2 <= box[3]]
    assert words, box
    return max(w[3] - w[1] for w in words)


def points_on_screen(viewer, height: float) -> float:
    """How tall `height` PDF points stand on screen, in points: the page image's logical pixels per PDF point
    and the screen's logical dots per inch."""
    return height * viewer.image.width() / viewer.rendered.width * 72 / viewer.logicalDpiY()


def settled(viewer, path: str, page: int) -> bool:
    """The page is on screen at the zoom its citation settled on (no render or zoom still to come)."""
    if viewer.zooming is not None or viewer.shown != (path, page) or viewer.requested[:2] != (path, page):
        return False
    width, height = (side * viewer.devicePixelRatioF() for side in viewer.image.size().toTuple())
    asked_width, asked_height = viewer.requested[2:]  # the newest render asked for is the one drawn
    return width <= asked_width + 1 and height <= asked_height + 1 and (width >= asked_width - 2
                                                                        or height >= asked_height - 2)


def on_screen(viewer):
    """The cited box as it lies in the viewport."""
    return viewer.cited.translated(viewer.image.mapTo(viewer.scroll.viewport(), QPoint(0, 0)))


def test_a_cited_table_cell_opens_in_view_readable_and_the_whole_page_is_one_click_away(window, qtbot, tmp_path):
    answer = ask_in_window(window, qtbot, QUESTION)
    assert len(answer.citations) == 1, (answer.status, answer.text)
    citation = answer.citations[0]
    assert answer.short_answer == _figure(STATES.index("Texas") + 1, 1, 2019)
    assert citation.page == 1 and citation.bbox
    viewer = window.viewer
    qtbot.waitUntil(lambda: settled(viewer, citation.path, 1) and viewer.cited_in_view(), timeout=60_000)
    height = words_height(citation.path, 1, citation.bbox)
    assert points_on_screen(viewer, height) >= 10, (viewer.zoom, points_on_screen(viewer, height))
    viewport = viewer.scroll.viewport().rect()
    assert viewport.contains(on_screen(viewer))  # the whole cell in view, highlighted
    cell = on_screen(viewer)  # and to its right in the view: what stands left of it, its row's label, shows too
    assert cell.left() > 2 * (viewport.width() - cell.right()), (cell, viewport)
    assert viewer.box == citation.bbox and "cited region highlighted" in viewer.title.text()
    assert viewer.zoom > 1.5 and viewer.zoom_label.text() == f"{viewer.zoom:.0%}"
    assert viewer.steps.label.text() == "Citation 1 of 1" and viewer.steps.isVisible()
    hint = window.minimumSizeHint()  # the citations' row and Fit do not widen the window past a laptop's
    assert hint.width() <= LAPTOP[0] and hint.height() <= LAPTOP[1] and window.size().toTuple() == LAPTOP
    for control in (viewer.whole_button, viewer.steps.label, *viewer.steps.findChildren(QToolButton)):
        top_left = control.mapTo(window, QPoint(0, 0))
        assert control.isVisible() and window.rect().contains(QRect(top_left, control.size())), control
        assert control.width() >= control.sizeHint().width(), control  # not squeezed: its text whole ("Wh…ge")

    qtbot.keyClick(viewer, Qt.Key.Key_0, Qt.KeyboardModifier.ControlModifier)  # Fit: the whole page
    qtbot.waitUntil(lambda: settled(viewer, citation.path, 1)
                    and viewer.image.width() <= viewer.scroll.viewport().width(), timeout=60_000)
    assert viewer.zoom == 1.0 and viewer.zoom_label.text() == "100%" and not viewer.whole_button.isEnabled()
    image, viewport = viewer.image.size(), viewer.scroll.viewport().size()
    assert image.width() <= viewport.width() and image.height() <= viewport.height()  # all of the page
    assert points_on_screen(viewer, height) < 10  # what the reader got before: the evidence too small to read
    assert viewer.box == citation.bbox and viewer.cited_in_view()  # still highlighted

    window.answer_view.citation_clicked.emit(citation)  # its chip clicked again: zoomed to the cell again
    qtbot.waitUntil(lambda: settled(viewer, citation.path, 1) and viewer.zoom > 1.5 and viewer.cited_in_view(),
                    timeout=60_000)
    assert points_on_screen(viewer, height) >= 10


def test_next_citation_steps_through_pages_and_documents_and_stops_at_the_last(window, qtbot, tmp_path):
    answer = ask_in_window(window, qtbot, QUESTION)
    first = answer.citations[0]
    other = str(Path(first.path).with_name("checks-2021.pdf"))
    row = STATES.index("Ohio") + 1
    citations = [first,
                 dataclasses.replace(first, page=2, quote="Ohio — Permit", bbox=cell_box(row, 3)),
                 dataclasses.replace(first, doc="checks-2021.pdf", path=other, page=1, quote="Ohio — Total",
                                     bbox=cell_box(row, 5))]
    window.show_answer(dataclasses.replace(answer, citations=citations))
    viewer, steps = window.viewer, window.viewer.steps
    window.activateWindow()
    qtbot.waitUntil(lambda: settled(viewer, first.path, 1) and viewer.cited_in_view(), timeout=60_000)
    assert steps.label.text() == "Citation 1 of 3" and not steps.previous_action.isEnabled()

    for n, citation in enumerate(citations[1:], 2):
        qtbot.keyClick(window.answer_view.text, Qt.Key.Key_F8)  # from the answer, as a reader would
        qtbot.waitUntil(lambda: settled(viewer, citation.path, citation.page) and viewer.box == citation.bbox
                        and viewer.cited_in_view(), timeout=60_000)
        assert points_on_screen(viewer, words_height(citation.path, citation.page, citation.bbox)) >= 10
        assert steps.label.text().startswith(f"Citation {n} of 3")
    assert steps.label.text() == "Citation 3 of 3, the last" and not steps.next_action.isEnabled()
    assert viewer.title.text().startswith("checks-2021.pdf — page 1 of 1")

    qtbot.keyClick(window.answer_view.text, Qt.Key.Key_F8)  # past the last: it stays there, and says so
    qtbot.wait(200)
    assert viewer.shown == (other, 1) and viewer.requested[:2] == (other, 1)
    assert steps.label.text() == "Citation 3 of 3, the last"

    steps.previous_action.trigger()  # back, by the button's action (Shift+F8)
    qtbot.waitUntil(lambda: settled(viewer, first.path, 2) and viewer.box == citations[1].bbox
                    and viewer.cited_in_view(), timeout=60_000)
    assert steps.label.text() == "Citation 2 of 3" and steps.previous_action.shortcut().toString() == "Shift+F8"

    window.show_answer(dataclasses.replace(answer, citations=[]))  # an answer without citations: no row
    assert not steps.isVisible()
