"""The tables the product read on the page in the viewer: the one under the pointer outlined faintly, and the
page's context menu — "Copy table as CSV" over a table (the CSV `docqa tables --format csv` prints), "Export tables
of this document…" anywhere on the page."""
from __future__ import annotations

import os

from PySide6.QtCore import QEvent, QObject, QPoint, QRect, Qt, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QFrame, QLabel, QMenu

from ..domain import TableOnPage
from ..service import tables_text

COPY = "Copy table as CSV"
EXPORT = "Export tables of this document…"
READING = "Reading this page's tables…"
NONE_HERE = "No table read on this page"
ELSEWHERE = "Copy table as CSV (right-click on a table)"
OUTLINE_MARGIN = 2  # pixels around the table's box
OUTLINE_STYLE = "border: 1px solid rgba(40, 140, 255, 190); background: rgba(40, 140, 255, 22);"


class PageTables(QObject):
    """Attached to the viewer's page image (a QLabel as large as the page shown, the page at its top left)."""
    export_requested = Signal(str)  # the document's path: every table of it into a folder
    said = Signal(str)  # what was done, for the status bar

    def __init__(self, image: QLabel, parent: QObject | None = None):
        super().__init__(parent)
        self.image = image
        self.path: str | None = None
        self.page = 0
        self.page_width = 0.0  # in PDF points: image pixels per point = image width / this
        self.tables: list[TableOnPage] | None = None  # None: not read yet
        self.outline = QFrame(image)  # the hint: a faint frame over the table under the pointer
        self.outline.setStyleSheet(OUTLINE_STYLE)
        self.outline.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.outline.hide()
        image.setMouseTracking(True)
        image.installEventFilter(self)
        image.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        image.customContextMenuRequested.connect(self.menu_at)

    def expect(self, path: str, page: int, page_width: float) -> None:
        """A page is shown whose tables are not read yet (show_tables brings them)."""
        self.path, self.page, self.page_width, self.tables = path, page, page_width, None
        self.outline.hide()

    def show_tables(self, path: str, page: int, tables: list[TableOnPage]) -> None:
        """The tables read on `page` of `path`; dropped when another page is shown by now."""
        if (path, page) == (self.path, self.page):
            self.tables = list(tables)

    def table_at(self, pos: QPoint) -> TableOnPage | None:
        """The table whose box holds `pos` (on the page image), the smallest where boxes nest."""
        if not self.tables or not self.page_width:
            return None
        scale = self.image.width() / self.page_width
        x, y = pos.x() / scale, pos.y() / scale
        inside = [t for t in self.tables if t.bbox[0] <= x <= t.bbox[2] and t.bbox[1] <= y <= t.bbox[3]]
        return min(inside, key=lambda t: (t.bbox[2] - t.bbox[0]) * (t.bbox[3] - t.bbox[1]), default=None)

    def menu_at(self, pos: QPoint) -> QMenu | None:
        """The page's context menu for a right-click at `pos` (on the page image), popped up and returned."""
        if self.path is None:
            return None
        menu = QMenu(self.image)
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        table = self.table_at(pos)
        if table is not None:
            menu.addAction(COPY, lambda: self.copy(table))
        else:
            waiting = READING if self.tables is None else ELSEWHERE if self.tables else NONE_HERE
            menu.addAction(waiting).setEnabled(False)
        menu.addSeparator()
        path = self.path
        menu.addAction(EXPORT, lambda: self.export_requested.emit(path))
        menu.popup(self.image.mapToGlobal(pos))
        return menu

    def copy(self, table: TableOnPage) -> None:
        """The table's CSV on the clipboard, numbers as plain numbers (table_export.csv_value)."""
        name = os.path.basename(self.path or "")
        QGuiApplication.clipboard().setText(tables_text([(self.page, table)], "csv", name))
        number = next((n for n, t in enumerate(self.tables or (), 1) if t is table), 1)
        self.said.emit(f"Copied table {number} of page {self.page} of {name} as CSV "
                       f"({table.rows} rows × {table.columns} columns): paste it into a spreadsheet")

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.image:
            if event.type() == QEvent.Type.MouseMove:
                self._hint(self.table_at(event.position().toPoint()))
            elif event.type() in (QEvent.Type.Leave, QEvent.Type.Resize):
                self.outline.hide()
        return False

    def _hint(self, table: TableOnPage | None) -> None:
        """The faint frame over `table`, or none."""
        if table is None:
            self.outline.hide()
            return
        scale = self.image.width() / self.page_width
        x0, y0, x1, y1 = (round(v * scale) for v in table.bbox)
        m = OUTLINE_MARGIN
        self.outline.setGeometry(QRect(x0 - m, y0 - m, x1 - x0 + 2 * m, y1 - y0 + 2 * m))
        self.outline.show()
