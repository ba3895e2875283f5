"""Tables out of the app (issue 54): the page viewer's context menu copies the table under the pointer as CSV and
exports every table of the document, one CSV file per table as `docqa tables FILE -o DIR` writes them; the library
panel's document menu exports too. The tables come from the index (the tables stage on every page whole: no layout
model), read off the GUI thread."""
from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

pytest.importorskip("pytestqt")  # the test extra installs it

from PySide6.QtCore import QEvent, QPoint, QPointF, Qt  # noqa: E402
from PySide6.QtGui import QGuiApplication, QMouseEvent  # noqa: E402
from PySide6.QtWidgets import QApplication, QMenu  # noqa: E402

from conftest import open_window, write_pdf  # noqa: E402
from docqa_desktop.settings import TablesGate  # noqa: E402
from docqa_desktop.ui import page_tables, tables_out  # noqa: E402
from docqa_desktop.ui.library_panel import EXPORT_TABLES, FILE  # noqa: E402
from table_pdf import write_table_pdf  # noqa: E402

TABLES_INDEX = {"ocr": False, "tables_gate": TablesGate.NONE}  # the tables stage on every page whole
STATEMENT = "statement.pdf"  # page 1: an income statement; 2: share repurchases; 3: a paper's results
WRITTEN = [f"statement-p{page}-t1.csv" for page in (1, 2, 3)]


def add_documents(folder: Path) -> None:
    write_table_pdf(folder / STATEMENT)
    write_pdf(folder / "prose.pdf", ["Nothing but prose on this page."])


def _action(menu: QMenu, text: str):
    return next(action for action in menu.actions() if action.text() == text)


def _rows(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


@pytest.fixture
def window(qtbot, indexed_service):
    service = indexed_service(add_documents, "docs", **TABLES_INDEX)
    win = open_window(qtbot, service)
    yield win
    win.close()


@pytest.fixture
def said(window) -> list[str]:
    """What the tables' exports say in the status bar, in order: the watcher shares the status bar and may say its
    own line right after."""
    lines, say = [], window.tables_out.say
    window.tables_out.say = lambda text: (lines.append(text), say(text))
    return lines


def _open(window, qtbot, path: str, page: int) -> None:
    window.viewer.open_page(path, page)
    qtbot.waitUntil(lambda: window.viewer.shown == (path, page) and window.viewer.tables.tables is not None,
                    timeout=60_000)


def _on_image(viewer, x: float, y: float) -> QPoint:
    """A point of the page, in PDF points, where it lies on the page image."""
    scale = viewer.image.width() / viewer.rendered.width
    return QPoint(round(x * scale), round(y * scale))


def test_the_viewer_copies_the_table_under_the_pointer_and_exports_the_documents_tables(
        window, said, qtbot, tmp_path, monkeypatch):
    path = str(tmp_path / "docs" / STATEMENT)
    assert window.service.tables.of_file(path).from_index  # what the viewer shows is what the index read
    viewer = window.viewer
    _open(window, qtbot, path, 1)
    (table,) = viewer.tables.tables
    x0, y0, x1, y1 = table.bbox
    inside = _on_image(viewer, (x0 + x1) / 2, (y0 + y1) / 2)

    # the pointer over the table outlines it faintly; off it, the outline goes
    move = QMouseEvent(QEvent.Type.MouseMove, QPointF(inside), QPointF(viewer.image.mapToGlobal(inside)),
                       Qt.MouseButton.NoButton, Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(viewer.image, move)
    assert viewer.tables.outline.isVisible() and viewer.tables.outline.geometry().contains(inside)

    menu = viewer.tables.menu_at(inside)
    _action(menu, page_tables.COPY).trigger()
    menu.close()
    rows = _rows(QGuiApplication.clipboard().text())
    assert rows[1] == ["Revenue", "$", "46298", "$", "51761"]  # numbers as numbers: no thousands separators
    assert rows[4] == ["Restructuring charges", "", "147", "", "-34"]  # "(34)" as a negative number
    assert rows[-1] == ["Diluted earnings per share", "$", "6.29", "$", "9.84"]
    assert "Copied table 1 of page 1" in window.status_text.text()

    outside = _on_image(viewer, x0 + 10, y1 + 40)  # the prose under the table
    menu = viewer.tables.menu_at(outside)
    assert page_tables.COPY not in [a.text() for a in menu.actions()]
    assert not _action(menu, page_tables.ELSEWHERE).isEnabled()

    out = tmp_path / "out"
    chosen = []
    monkeypatch.setattr(tables_out.QFileDialog, "getExistingDirectory",
                        staticmethod(lambda *args: chosen.append(args) or str(out)))
    _action(menu, page_tables.EXPORT).trigger()
    qtbot.waitUntil(lambda: said[-1].startswith("Exported"), timeout=60_000)
    assert len(chosen) == 1
    assert said == [f"Reading the tables of {STATEMENT}…",
                    f"Exported the tables of {STATEMENT}: 3 CSV files (one per table) in {out}"]
    assert sorted(p.name for p in out.iterdir()) == WRITTEN
    first = (out / WRITTEN[0]).read_text("utf-8-sig")
    assert first == QGuiApplication.clipboard().text()  # the file holds what was copied
    assert _rows((out / WRITTEN[1]).read_text("utf-8-sig"))[1][1:] == ["2411322", "80.12"]


def test_the_library_exports_a_documents_tables_and_says_when_there_are_none(window, said, qtbot, tmp_path,
                                                                             monkeypatch):
    folder = tmp_path / "docs"
    library = window.library
    qtbot.waitUntil(lambda: library.tree.topLevelItemCount() == 1 and library.tree.topLevelItem(0).childCount() == 2,
                    timeout=60_000)
    out = tmp_path / "out"
    monkeypatch.setattr(tables_out.QFileDialog, "getExistingDirectory", staticmethod(lambda *args: str(out)))

    def export(name: str, outcome: str) -> None:
        """Export from the document's menu and wait for the status bar to say `outcome`."""
        folder_row = library.tree.topLevelItem(0)  # the list is rebuilt whenever the library changes: found anew
        row = next(folder_row.child(i) for i in range(folder_row.childCount())
                   if folder_row.child(i).text(FILE) == name)
        menu = library._document_menu(library.tree.visualItemRect(row).center())
        _action(menu, EXPORT_TABLES).trigger()
        menu.close()
        qtbot.waitUntil(lambda: said[-1] != f"Reading the tables of {name}…", timeout=60_000)
        assert said[-2:] == [f"Reading the tables of {name}…", outcome]

    export(STATEMENT, f"Exported the tables of {STATEMENT}: 3 CSV files (one per table) in {out}")
    assert sorted(p.name for p in out.iterdir()) == WRITTEN
    assert _rows((out / WRITTEN[0]).read_text("utf-8-sig"))[2] == ["Cost of sales", "", "36386", "", "40121"]
    export("prose.pdf", "No table was read from prose.pdf: nothing was written")
    assert library._document_menu(library.tree.visualItemRect(library.tree.topLevelItem(0)).center()) is None

    (folder / STATEMENT).unlink()  # gone since it was listed: the message names the file and why
    export(STATEMENT, f"Exporting the tables of {STATEMENT}: cannot read the tables of {folder / STATEMENT}: "
                      "no such file")
