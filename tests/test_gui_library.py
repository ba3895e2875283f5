"""The library panel as a library: title, authors, year, pages, file name and status in sortable columns, long
text elided with the whole of it on hover, a file name standing in (in italics) where no title was found; and the
background stages' lines, which say plainly that a stage is off instead of counting its pages as pending."""
from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtCore import Qt  # noqa: E402

from docqa_desktop.domain import DocumentInfo, FileEntry, FileStatus, StageStatus  # noqa: E402
from docqa_desktop.ui.library_panel import (  # noqa: E402
    AUTHORS, COLUMNS, FILE, PAGES, STATUS, TITLE, YEAR, LibraryPanel)

ROOT = "/papers"
LONG_TITLE = ("Retrieval-Augmented Generation for Large Language Models: A Survey of Paradigms, Retrievers, "
              "Generators and Augmentation Techniques")
ENTRIES = [
    FileEntry(f"{ROOT}/2312.10997v5.pdf", "2312.10997v5.pdf", FileStatus.INDEXED, 21, None, 1,
              DocumentInfo(LONG_TITLE, "Yunfan Gao, Yun Xiong, Xinyu Gao", 2023)),
    FileEntry(f"{ROOT}/ADI_2009.pdf", "ADI_2009.pdf", FileStatus.INDEXED, 110, None, 2,
              DocumentInfo("2009 Annual Report", "", 2009)),
    FileEntry(f"{ROOT}/scan-0042.pdf", "scan-0042.pdf", FileStatus.INDEXED, 9, None, 3, DocumentInfo()),
    FileEntry(f"{ROOT}/broken.pdf", "broken.pdf", FileStatus.ERROR, None, "corrupt or truncated PDF", None),
]


@pytest.fixture
def panel(qtbot):
    widget = LibraryPanel()
    qtbot.addWidget(widget)
    widget.resize(700, 400)
    widget.show()
    widget.show_library([ROOT], ENTRIES)
    return widget


def _column(panel: LibraryPanel, column: int) -> list[str]:
    folder = panel.tree.topLevelItem(0)
    return [folder.child(i).text(column) for i in range(folder.childCount())]


def test_the_columns_show_what_the_documents_are(panel):
    header = panel.tree.headerItem()
    assert [header.text(i) for i in range(panel.tree.columnCount())] == list(COLUMNS)
    rows = {panel.tree.topLevelItem(0).child(i).text(FILE): panel.tree.topLevelItem(0).child(i)
            for i in range(len(ENTRIES))}
    survey = rows["2312.10997v5.pdf"]
    assert (survey.text(TITLE), survey.text(AUTHORS), survey.text(YEAR), survey.text(PAGES)) == (
        LONG_TITLE, "Yunfan Gao, Yun Xiong, Xinyu Gao", "2023", "21")
    # the title is longer than its column: elided on screen, whole on hover
    rect = panel.tree.visualItemRect(survey)
    assert panel.tree.fontMetrics().horizontalAdvance(LONG_TITLE) > panel.tree.columnWidth(TITLE) > 0 < rect.height()
    assert panel.tree.textElideMode() == Qt.TextElideMode.ElideRight and survey.toolTip(TITLE).splitlines()[0] == LONG_TITLE
    assert survey.toolTip(FILE) == f"{ROOT}/2312.10997v5.pdf"
    # no title found: the file name stands in, in italics, and the tooltip says why; nothing else is made up
    scan = rows["scan-0042.pdf"]
    assert scan.text(TITLE) == "scan-0042.pdf" and scan.font(TITLE).italic() and not survey.font(TITLE).italic()
    assert "No title" in scan.toolTip(TITLE) and scan.text(AUTHORS) == scan.text(YEAR) == ""
    # a failed file says why on every column
    assert all("corrupt or truncated PDF" in rows["broken.pdf"].toolTip(c) for c in range(len(COLUMNS)))
    assert rows["broken.pdf"].text(STATUS).endswith("error")


def test_clicking_a_header_sorts_by_that_column(panel, qtbot):
    header = panel.tree.header()

    def click(column: int) -> None:
        qtbot.mouseClick(header.viewport(), Qt.MouseButton.LeftButton,
                         pos=header.rect().topLeft() + _section_centre(header, column))

    click(YEAR)
    order = panel.tree.header().sortIndicatorOrder()
    years = _column(panel, YEAR)
    filled = [int(y) for y in years if y]
    assert filled == sorted(filled, reverse=order == Qt.SortOrder.DescendingOrder) and len(filled) == 2
    click(PAGES)  # numbers as numbers: 9 before 21 before 110
    pages = [int(p) for p in _column(panel, PAGES) if p]
    ascending = panel.tree.header().sortIndicatorOrder() == Qt.SortOrder.AscendingOrder
    assert pages == (sorted(pages) if ascending else sorted(pages, reverse=True)) and set(pages) == {9, 21, 110}
    panel.tree.sortByColumn(TITLE, Qt.SortOrder.AscendingOrder)
    assert _column(panel, TITLE) == sorted(_column(panel, TITLE), key=str.lower)
    panel.tree.sortByColumn(AUTHORS, Qt.SortOrder.AscendingOrder)  # documents without authors after the rest
    assert _column(panel, AUTHORS)[0] == "Yunfan Gao, Yun Xiong, Xinyu Gao"
    panel.tree.sortByColumn(FILE, Qt.SortOrder.DescendingOrder)
    assert _column(panel, FILE) == sorted((e.name for e in ENTRIES), key=str.lower, reverse=True)
    # a refresh keeps the order the user chose
    panel.show_library([ROOT], list(reversed(ENTRIES)))
    assert _column(panel, FILE) == sorted((e.name for e in ENTRIES), key=str.lower, reverse=True)


def _section_centre(header, column: int):
    from PySide6.QtCore import QPoint
    return QPoint(header.sectionViewportPosition(column) + header.sectionSize(column) // 2, header.height() // 2)


def test_stages_that_do_not_run_say_off_and_why(panel):
    panel.show_stages([
        StageStatus("keywords", 79, 0, "pages"),
        StageStatus("layout", 40, 39, "pages"),
        StageStatus("page images", 0, 79, "pages", "off (no page embedder installed)", off=True,
                    hint="`docqa models pull colqwen2.5-v0.2`, or import a folder"),
        StageStatus("summaries", 10, 69, "pages", "not needed by the current method (Quoted answer)", off=True),
    ])
    lines = panel.stages.text().splitlines()
    assert lines == ["Keywords: 79 / 79 pages", "Layout: 40 / 79 pages — 39 pending",
                     "Page images: off (no page embedder installed)",
                     "Summaries: not needed by the current method (Quoted answer) — 10 / 79 pages done"]
    assert "pending" not in panel.stages.text().split("Layout")[1].split("\n", 1)[1]  # off stages owe nothing
    assert "docqa models pull colqwen2.5-v0.2" in panel.stages.toolTip()


def test_a_narrow_panel_keeps_the_status_in_view_and_the_header_menu_brings_back_any_column(panel, qtbot):
    from docqa_desktop.ui.library_panel import TITLE_ROOM
    panel.resize(300, 400)  # a laptop's library panel
    qtbot.waitUntil(lambda: panel.tree.isColumnHidden(AUTHORS) and panel.tree.isColumnHidden(FILE))
    header = panel.tree.header()
    shown = [c for c in range(len(COLUMNS)) if not panel.tree.isColumnHidden(c)]
    assert shown == [TITLE, YEAR, STATUS]
    assert header.sectionViewportPosition(STATUS) + header.sectionSize(STATUS) <= panel.tree.viewport().width()
    assert header.sectionSize(TITLE) - panel.tree.indentation() >= TITLE_ROOM - 10  # ~22 characters of title
    title = panel.tree.topLevelItem(0).child(0)
    assert "Yunfan Gao" in title.toolTip(TITLE) and "2312.10997v5.pdf" in title.toolTip(TITLE)  # what is hidden

    menu = panel._column_menu(header.rect().center())
    [file_action] = [a for a in menu.actions() if a.text() == "File"]
    assert not file_action.isChecked()
    file_action.trigger()  # the user wants the file names, narrow panel or not
    menu.close()
    assert not panel.tree.isColumnHidden(FILE)
    panel.resize(310, 400)
    qtbot.wait(50)
    assert not panel.tree.isColumnHidden(FILE) and panel.tree.isColumnHidden(AUTHORS)
    panel.resize(760, 400)  # wide enough for every column again
    qtbot.waitUntil(lambda: not panel.tree.isColumnHidden(AUTHORS))
