"""The viewer as readers expect (pytest-qt, offscreen, real PDFs): a page box that says "3 / 8" and goes where a
typed number says, a single click in the library that opens a document, and find in the document (Ctrl+F): the
matches counted, the one shown highlighted on its page and in view, previous / next, Esc closes; a scanned page
found by its OCR words, and a search that a newer one (or a cancel) stops."""
from __future__ import annotations

import shutil
import threading
from pathlib import Path

import pymupdf
import pytest

pytest.importorskip("pytestqt")  # the test extra installs it

from PySide6.QtCore import Qt  # noqa: E402

from conftest import SAMPLES, SMALL_PAPER, add_small_paper, open_window, write_pdf  # noqa: E402

REPORT = "harbour-solar-report.pdf"  # 4 born-digital pages; "ferry" once, on page 2
SCAN = "ferry-memo-scanned.pdf"  # one scanned page: its words come from OCR


def add_paper_and_report(folder: Path) -> None:
    add_small_paper(folder)
    shutil.copy(SAMPLES / REPORT, folder / REPORT)


def _rendered(viewer, path: str, page: int) -> bool:
    return viewer.shown == (path, page) and "rendering" not in viewer.title.text()


def _document_rows(window) -> dict[str, object]:
    """The library's document rows by file name."""
    folder = window.library.tree.topLevelItem(0)
    children = [folder.child(i) for i in range(folder.childCount())] if folder else []
    return {Path(item.data(0, Qt.ItemDataRole.UserRole)).name: item for item in children}


def _click(qtbot, window, name: str, modifier=Qt.KeyboardModifier.NoModifier) -> None:
    """A click on the library's row of the document `name`."""
    tree, item = window.library.tree, _document_rows(window)[name]
    qtbot.mouseClick(tree.viewport(), Qt.MouseButton.LeftButton, modifier, tree.visualItemRect(item).center())


@pytest.fixture
def reader(qtbot, tmp_path, indexed_service):
    """The window on an indexed folder holding the small paper (8 pages) and the harbour report (4 pages), its
    library listed."""
    window = open_window(qtbot, indexed_service(add_paper_and_report, "docs", ocr=False))
    window.resize(1280, 700)
    # the watcher checks the folder at start: once it has, the list stays as it is
    qtbot.waitUntil(lambda: "Library up to date" in window.status_text.text(), timeout=60_000)
    qtbot.waitUntil(lambda: len(_document_rows(window)) == 2, timeout=30_000)
    yield window
    window.close()


def test_a_single_click_opens_a_document_and_the_page_box_goes_to_a_typed_page(reader, qtbot, tmp_path):
    viewer = reader.viewer
    paper = str(tmp_path / "docs" / SMALL_PAPER)
    assert not viewer.page_box.isEnabled() and viewer.page_box.text() == "–"  # nothing shown yet
    _click(qtbot, reader, SMALL_PAPER)  # one click, not a double click
    qtbot.waitUntil(lambda: _rendered(viewer, paper, 1), timeout=60_000)
    assert viewer.page_box.isEnabled() and viewer.page_box.text() == "1 / 8"

    viewer.page_box.lineEdit().selectAll()
    qtbot.keyClicks(viewer.page_box, "3")
    qtbot.keyClick(viewer.page_box, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: _rendered(viewer, paper, 3), timeout=60_000)
    assert viewer.page_box.text() == "3 / 8" and viewer.title.text().endswith("page 3 of 8")
    viewer.page_box.lineEdit().selectAll()
    qtbot.keyClicks(viewer.page_box, "99")  # past the last page: the box takes no such number
    qtbot.keyClick(viewer.page_box, Qt.Key.Key_Return)
    assert viewer.page_box.value() <= 8 and viewer.page <= 8

    _click(qtbot, reader, SMALL_PAPER)  # a click on the document shown keeps the reader's page
    qtbot.wait(200)
    assert viewer.page == 3 and viewer.shown == (paper, 3)
    _click(qtbot, reader, REPORT, Qt.KeyboardModifier.ControlModifier)  # choosing documents to ask: none opens
    qtbot.wait(200)
    assert viewer.path == paper and len(reader.library.selected_documents()) == 2
    _click(qtbot, reader, REPORT)
    report = str(tmp_path / "docs" / REPORT)
    qtbot.waitUntil(lambda: _rendered(viewer, report, 1), timeout=60_000)
    assert viewer.page_box.text() == "1 / 4"


def test_the_documents_chosen_to_ask_about_stay_chosen_when_the_list_is_re_read(reader, qtbot, tmp_path):
    """The library list is rebuilt whenever the library changes (a background stage, the watcher, a command run
    beside the app): the reader's choice of documents, the current row and the open document stay as they were."""
    library, viewer = reader.library, reader.viewer
    paper, report = (str(tmp_path / "docs" / name) for name in (SMALL_PAPER, REPORT))
    _click(qtbot, reader, SMALL_PAPER)
    qtbot.waitUntil(lambda: _rendered(viewer, paper, 1), timeout=60_000)
    _click(qtbot, reader, REPORT, Qt.KeyboardModifier.ControlModifier)
    assert sorted(library.selected_documents()) == sorted([paper, report])
    opened = []
    library.document_clicked.connect(opened.append)
    library.show_library(reader.roots, reader.service.library.status())  # what refresh_library shows
    assert sorted(library.selected_documents()) == sorted([paper, report])
    assert library.tree.currentItem().data(0, Qt.ItemDataRole.UserRole) == report
    assert opened == [] and viewer.shown == (paper, 1)
    _click(qtbot, reader, SMALL_PAPER, Qt.KeyboardModifier.ControlModifier)  # and the choice goes on from there
    assert library.selected_documents() == [report]


def _expected_matches(pdf: Path, text: str) -> list[int]:
    """The pages of each match of `text`, as mupdf's own search of the text layer finds them."""
    with pymupdf.open(pdf) as doc:
        return [page.number + 1 for page in doc for _ in page.search_for(text)]


def _open_find(window, qtbot):
    """Ctrl+F, as the reader presses it anywhere in the window."""
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=10_000)
    window.ask_panel.question.setFocus()
    qtbot.keyClick(window.ask_panel.question, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    bar = window.viewer.find_bar
    qtbot.waitUntil(lambda: bar.isVisible() and bar.field.hasFocus(), timeout=10_000)
    return bar


def test_ctrl_f_counts_the_matches_and_shows_each_highlighted_on_its_page(reader, qtbot, tmp_path):
    viewer = reader.viewer
    report = tmp_path / "docs" / REPORT
    reader.library.document_activated.emit(str(report))
    qtbot.waitUntil(lambda: _rendered(viewer, str(report), 1), timeout=60_000)
    bar = _open_find(reader, qtbot)

    qtbot.keyClicks(bar.field, "Ferry")  # case does not matter; the search starts once typing pauses
    qtbot.waitUntil(lambda: bar.count.text() == "1 of 1", timeout=30_000)
    assert _expected_matches(report, "ferry") == [2]
    qtbot.waitUntil(lambda: _rendered(viewer, str(report), 2) and viewer.match is not None, timeout=60_000)
    assert viewer.match_in_view() and viewer.page_box.text() == "2 / 4"
    image = viewer.image.pixmap().toImage()
    centre = viewer.match.center() * viewer.devicePixelRatioF()
    pixel = image.pixelColor(centre)
    assert pixel.blue() > pixel.red() + 20, pixel.name()  # the match is tinted (the page is black on white)

    bar.field.selectAll()
    qtbot.keyClicks(bar.field, "the")
    qtbot.keyClick(bar.field, Qt.Key.Key_Return)  # Enter searches a changed text at once
    expected = _expected_matches(report, "the")
    assert len(expected) > 2 and len(set(expected)) > 1
    qtbot.waitUntil(lambda: bar.count.text() == f"1 of {len(expected)}", timeout=30_000)
    # the search started on page 2: the first match shown is the first from there on
    first = expected.index(2)
    assert bar.index == first and bar.current()[0] == 2
    assert f"{len(expected)} matches on {len(set(expected))} pages" == bar.count.toolTip()
    shown = [bar.current()[0]]
    for _ in expected:
        qtbot.keyClick(bar.field, Qt.Key.Key_Return)  # Enter: the next match, round to the first
        shown.append(bar.current()[0])
    assert shown == (expected[first:] + expected[:first + 1])
    assert bar.count.text() == f"{first + 1} of {len(expected)}"
    last_page = expected[-1]
    while bar.current()[0] != last_page or bar.index != len(expected) - 1:
        qtbot.keyClick(bar.field, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)  # Shift+Enter: previous
    qtbot.waitUntil(lambda: _rendered(viewer, str(report), last_page) and viewer.match_in_view(), timeout=60_000)
    assert len(viewer.drawn_found) == expected.count(last_page)  # every match on the page is drawn

    qtbot.keyClick(bar.field, Qt.Key.Key_Escape)  # Esc closes the bar (not the window's Stop)
    assert not bar.isVisible() and bar.matches == [] and reader.page_feed.finds.task is None
    qtbot.waitUntil(lambda: viewer.drawn_found == [] and viewer.match is None, timeout=10_000)


def test_find_follows_the_reader_to_another_document(reader, qtbot, tmp_path):
    viewer, bar = reader.viewer, reader.viewer.find_bar
    reader.library.document_activated.emit(str(tmp_path / "docs" / REPORT))
    bar.open_bar()
    bar.field.setText("ferry")
    bar.search()
    qtbot.waitUntil(lambda: bar.count.text() == "1 of 1", timeout=30_000)
    paper = tmp_path / "docs" / SMALL_PAPER
    reader.library.document_activated.emit(str(paper))  # the text stays; the matches are the paper's now
    expected = _expected_matches(paper, "ferry")
    qtbot.waitUntil(lambda: not bar.searching, timeout=30_000)
    assert bar.searched == "ferry" and [page for page, _ in bar.matches] == expected
    assert bar.count.text() == ("No matches" if not expected else f"1 of {len(expected)}")


def test_a_newer_search_cancels_the_one_running_and_its_results_are_dropped(reader, qtbot, tmp_path, monkeypatch):
    report = str(tmp_path / "docs" / REPORT)
    reader.library.document_activated.emit(report)
    bar = reader.viewer.find_bar
    bar.open_bar()
    started, release = [], threading.Event()
    original = reader.service.pages.find

    def slow_find(path, text, cancel=None, found=None):
        started.append((text, cancel, threading.current_thread() is threading.main_thread()))
        if text == "ferry":
            release.wait(30)  # the first search is still running when the second starts
        return original(path, text, cancel=cancel, found=found)

    monkeypatch.setattr(reader.service.pages, "find", slow_find)
    bar.field.setText("ferry")
    bar.search()
    qtbot.waitUntil(lambda: len(started) == 1, timeout=10_000)
    bar.field.setText("cooperative")
    bar.search()
    qtbot.waitUntil(lambda: not bar.searching, timeout=30_000)
    release.set()
    expected = _expected_matches(Path(report), "cooperative")
    assert [page for page, _ in bar.matches] == expected and len(expected) >= 2
    first_cancel = started[0][1]
    assert first_cancel.is_set()  # the older search was told to stop
    qtbot.wait(500)  # whatever it still sends is dropped
    assert [page for page, _ in bar.matches] == expected and bar.searched == "cooperative"
    assert not any(on_gui_thread for _, _, on_gui_thread in started)  # searched off the GUI thread


def test_a_match_is_boxed_letter_by_letter_and_line_by_line():
    from docqa_desktop.pdf.find import find_in_words, might_contain, wanted_text
    words = [("The", (0, 0, 30, 10)), ("ferry-", (35, 0, 95, 10)),  # 10 points a letter
             ("man", (0, 20, 30, 30)), ("Ferryman", (40, 20, 120, 30))]
    assert find_in_words(words, wanted_text("FERRY")) == (((35, 0, 85, 10),), ((40, 20, 90, 30),))
    assert find_in_words(words, wanted_text("the  ferry")) == (((0, 0, 85, 10),),)  # one box on one line
    assert find_in_words(words, wanted_text("ferry-\nman")) == (((35, 0, 95, 10), (0, 20, 30, 30)),)  # two lines
    assert find_in_words(words, wanted_text("ferrymen")) == ()
    assert might_contain("The ferry-\nman", wanted_text("ferry- man")) and not might_contain("The ferry", "boat")


@pytest.mark.slow  # 300 pages indexed
def test_find_stops_when_cancelled_with_what_it_found(tmp_path, indexed_service):
    """A long document: each page with a match is told of as it is read, and a cancel stops the search there."""
    def add_long(folder: Path) -> None:
        write_pdf(folder / "long.pdf", [f"Page {n}: the ferry leaves at nine." for n in range(1, 301)])

    service = indexed_service(add_long, "long")
    path = str(tmp_path / "long" / "long.pdf")
    everything = service.pages.find(path, "FERRY leaves")
    assert [m.page for m in everything] == list(range(1, 301))
    assert all(len(m.matches) == 1 and len(m.matches[0]) == 1 for m in everything)
    cancel, told = threading.Event(), []

    def found(matches) -> None:
        told.append(matches.page)
        if len(told) == 5:
            cancel.set()

    stopped = service.pages.find(path, "ferry", cancel=cancel, found=found)
    assert [m.page for m in stopped] == told == [1, 2, 3, 4, 5]


@pytest.mark.slow
def test_a_scanned_page_is_found_by_its_ocr_words(tmp_path, indexed_service):
    def add_scan(folder: Path) -> None:
        shutil.copy(SAMPLES / SCAN, folder / SCAN)

    service = indexed_service(add_scan, "scans")  # OCR on: the page has no text layer
    path = tmp_path / "scans" / SCAN
    assert _expected_matches(path, "ferry") == []  # mupdf's search of the (missing) text layer finds nothing
    [page] = service.pages.find(str(path), "ferry")
    assert page.page == 1 and page.matches
    with pymupdf.open(path) as doc:
        width, height = doc[0].rect.width, doc[0].rect.height
    for match in page.matches:
        for x0, y0, x1, y1 in match:
            assert 0 <= x0 < x1 <= width and 0 <= y0 < y1 <= height
