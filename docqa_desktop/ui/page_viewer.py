"""One page at a time, rendered by the service at the widget's resolution, with the cited region drawn
over it and scrolled into view at any zoom; zoom, previous / next, and "open in the system viewer"."""
from __future__ import annotations

import os

from PySide6.QtCore import QRect, QRectF, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import QColor, QDesktopServices, QGuiApplication, QPainter, QPen, QPixmap
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPushButton,
    QScrollArea,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ..domain import BBox
from ..service import RenderedPage, document_kind
from .elided import ElidedLabel

ZOOMS = (0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 3.0)  # of the whole page in view
FIT = 1.0
HIGHLIGHT = QColor(255, 196, 0)
HIGHLIGHT_MARGIN = 3  # points drawn around the cited box
CITED = "cited region highlighted"


def highlighted(png: bytes, page: RenderedPage, box: BBox | None, device_ratio: float = 1.0) -> QPixmap:
    """The page pixmap with `box` (PDF points) outlined and tinted."""
    pixmap = QPixmap()
    pixmap.loadFromData(png)
    if box:
        scale = pixmap.width() / page.width
        x0, y0, x1, y1 = box
        painter = QPainter(pixmap)
        pen = QPen(HIGHLIGHT, max(2.0, 2 * device_ratio))
        painter.setPen(pen)
        fill = QColor(HIGHLIGHT)
        fill.setAlpha(60)
        painter.setBrush(fill)
        m = HIGHLIGHT_MARGIN
        painter.drawRect(QRectF(x0 * scale - m, y0 * scale - m, (x1 - x0) * scale + 2 * m, (y1 - y0) * scale + 2 * m))
        painter.end()
    pixmap.setDevicePixelRatio(device_ratio)
    return pixmap


def box_on_screen(box: BBox, page: RenderedPage, shown_width: int) -> QRect:
    """Where `box` (PDF points) lies on the page image shown `shown_width` pixels wide (device-independent),
    highlight margin included."""
    scale = shown_width / page.width
    x0, y0, x1, y1 = (round(v * scale) for v in box)
    m = HIGHLIGHT_MARGIN
    return QRect(x0 - m, y0 - m, x1 - x0 + 2 * m, y1 - y0 + 2 * m)


class PageViewer(QWidget):
    # (document path, 1-based page, pixel width and height to fit the page into)
    render_requested = Signal(str, int, int, int)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.path: str | None = None
        self.page = 0
        self.page_count = 0
        self.box: BBox | None = None
        self.shown: tuple[str, int] | None = None  # the page on screen
        self.requested: tuple[str, int, int, int] | None = None  # the newest render asked for: path, page, size
        self.zoom = FIT
        self.note = ""  # said after the page when no region is cited ("stopped, nothing cited")
        self.cited: QRect | None = None  # the cited box on the shown image, for scrolling it into view
        self.open_failed: QMessageBox | None = None  # the notice shown when no viewer opens the document
        self.image = QLabel("Click a citation or a document to see its page here.")
        self.image.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.image.setWordWrap(True)
        self.image.resize(360, 120)
        self.scroll = QScrollArea()
        self.scroll.setWidget(self.image)  # sized to the page image: larger zooms scroll
        self.scroll.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.title = ElidedLabel()  # a long file name is elided, whole in the tooltip: it never widens the window
        self.title.setObjectName("pageTitle")
        self.previous_button = self._tool_button("◀", "Previous page (PgUp)", "PgUp")
        self.next_button = self._tool_button("▶", "Next page (PgDown)", "PgDown")
        self.zoom_out_button = self._tool_button("−", "Zoom out (Ctrl+-)", "Ctrl+-")
        self.zoom_in_button = self._tool_button("+", "Zoom in (Ctrl++)", "Ctrl++")
        self.zoom_label = QLabel("100%")
        self.zoom_label.setMinimumWidth(40)
        self.zoom_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.open_button = QPushButton()  # named for the shown document's kind in _update_buttons
        self.previous_button.clicked.connect(lambda: self.go(self.page - 1))
        self.next_button.clicked.connect(lambda: self.go(self.page + 1))
        self.zoom_out_button.clicked.connect(lambda: self.set_zoom(-1))
        self.zoom_in_button.clicked.connect(lambda: self.set_zoom(+1))
        self.open_button.clicked.connect(self.open_externally)
        bar = QHBoxLayout()  # the title has its own line above: the controls keep theirs at any width
        for w in (self.previous_button, self.next_button, self.zoom_out_button, self.zoom_label, self.zoom_in_button):
            bar.addWidget(w)
        bar.addStretch(1)
        bar.addWidget(self.open_button)
        self.resized = QTimer(self)  # re-render once the user stops resizing, at the new resolution
        self.resized.setSingleShot(True)
        self.resized.setInterval(250)
        self.resized.timeout.connect(self._request)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.title)
        layout.addLayout(bar)
        layout.addWidget(self.scroll, 1)
        self._update_buttons()

    def _tool_button(self, text: str, tip: str, shortcut: str) -> QToolButton:
        button = QToolButton()
        button.setText(text)
        button.setToolTip(tip)
        button.setShortcut(shortcut)
        button.setAutoRaise(True)
        button.setMinimumWidth(30)
        return button

    def open_page(self, path: str, page: int, box: BBox | None = None, note: str = "") -> None:
        self.path, self.page, self.box, self.note = path, page, box, note
        self._request()

    def show_uncited(self, note: str) -> None:
        """No region is cited (a stopped answer, one without citations): the page shown loses its highlight
        and the title says `note` instead."""
        if self.path:
            self.open_page(self.path, self.page, None, note)

    def fit(self) -> None:
        """Back to the whole page in view (each new answer opens so: see MainWindow.show_answer)."""
        self.zoom = FIT
        self.zoom_label.setText(f"{self.zoom:.0%}")
        self._update_buttons()

    def go(self, page: int) -> None:
        if self.path and 1 <= page <= max(self.page_count, 1):
            self.open_page(self.path, page)

    def set_zoom(self, step: int) -> None:
        index = min(max(ZOOMS.index(self.zoom) + step, 0), len(ZOOMS) - 1)
        if ZOOMS[index] != self.zoom:
            self.zoom = ZOOMS[index]
            self.zoom_label.setText(f"{self.zoom:.0%}")
            self._request()

    def pixel_box(self) -> tuple[int, int]:
        """Render at the viewport's device resolution (whole page in view at zoom 100%), not a fixed DPI."""
        viewport = self.scroll.viewport()
        scale = self.devicePixelRatioF() * self.zoom
        return tuple(int(min(max(side - 8, 200) * scale, 4000)) for side in (viewport.width(), viewport.height()))

    def _request(self) -> None:
        if self.path:
            if (self.path, self.page) != self.shown:  # a re-render at a new size keeps its title
                self.title.set_text(os.path.basename(self.path), f" — page {self.page}"
                                    + (f" of {self.page_count}" if self.page_count else "") + "  (rendering…)")
            self.requested = (self.path, self.page, *self.pixel_box())
            self.render_requested.emit(*self.requested)

    def show_render(self, path: str, page: int, size: tuple[int, int], rendered: RenderedPage) -> None:
        if (path, page, *size) != self.requested:
            return  # an older request (another page, or this one at an earlier zoom) finished after a newer one
        self.page_count = rendered.page_count
        new_page = self.shown != (path, page)
        self.shown = (path, page)
        pixmap = highlighted(rendered.png, rendered, self.box, self.devicePixelRatioF())
        self.image.setPixmap(pixmap)
        self.image.resize(pixmap.deviceIndependentSize().toSize())
        self.cited = box_on_screen(self.box, rendered, self.image.width()) if self.box else None
        said = f"  · {CITED}" if self.box else f"  · {self.note}" if self.note else ""
        self.title.set_text(os.path.basename(path), f" — page {page} of {rendered.page_count}{said}")
        self._update_buttons()
        if self.cited is not None:
            self.scroll_to_cited()
        elif new_page:
            self.scroll.horizontalScrollBar().setValue(0)
            self.scroll.verticalScrollBar().setValue(0)

    def scroll_to_cited(self) -> None:
        """The cited box in the middle of the view, or its top left corner first when it is larger than the view
        (the scroll bars' values are the image's pixels at the view's top left; they clamp to their range)."""
        viewport, box = self.scroll.viewport().size(), self.cited
        for bar, start, length, room in ((self.scroll.horizontalScrollBar(), box.left(), box.width(), viewport.width()),
                                         (self.scroll.verticalScrollBar(), box.top(), box.height(), viewport.height())):
            bar.setValue(start + length // 2 - room // 2 if length <= room else start)

    def cited_in_view(self) -> bool:
        """Whether the cited box lies wholly in the visible part of the page (False with none cited)."""
        if self.cited is None:
            return False
        top_left = self.image.mapTo(self.scroll.viewport(), self.cited.topLeft())
        return self.scroll.viewport().rect().contains(QRect(top_left, self.cited.size()))

    def show_error(self, message: str) -> None:
        self.title.setText(message)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if self.path:
            self.resized.start()

    def open_externally(self) -> None:
        if self.path:
            url = QUrl.fromLocalFile(self.path)
            url.setFragment(f"page={self.page}")  # honoured by most PDF viewers
            if not QDesktopServices.openUrl(url):  # no application is registered for the kind
                self.open_failed = self._notice(
                    f"No application on this computer is set up to open {document_kind(self.path)} files, so "
                    f"{os.path.basename(self.path)} did not open.\n\nIt is in {os.path.dirname(self.path)}",
                    "Open the folder", self._open_folder)

    def _open_folder(self) -> None:
        folder = os.path.dirname(self.path)
        if not QDesktopServices.openUrl(QUrl.fromLocalFile(folder)):
            QGuiApplication.clipboard().setText(self.path)
            self.open_failed = self._notice(f"No file manager opened {folder} either. The document's path is "
                                            f"copied to the clipboard:\n\n{self.path}")

    def _notice(self, text: str, action: str = "", then=None) -> QMessageBox:
        """A window-modal notice (it does not block the event loop), with an optional action button."""
        box = QMessageBox(QMessageBox.Icon.Information, self.open_button.text(), text,
                          QMessageBox.StandardButton.Close, self)
        box.setTextFormat(Qt.TextFormat.PlainText)  # file names are shown as they are
        box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        if action:
            button = box.addButton(action, QMessageBox.ButtonRole.AcceptRole)
            box.setDefaultButton(button)
            box.buttonClicked.connect(lambda clicked: clicked is button and then())
        box.open()
        return box

    def _update_buttons(self) -> None:
        has = self.path is not None
        self.previous_button.setEnabled(has and self.page > 1)
        self.next_button.setEnabled(has and self.page < self.page_count)
        self.open_button.setEnabled(has)
        # the shown document's kind as documents.py names it ("Open PDF"); before one is shown, PDF as ever
        kind = document_kind(self.path) if has else "PDF"
        self.open_button.setText(f"Open {kind}")
        self.open_button.setToolTip(f"Open the document in the system's {kind} viewer")
        self.zoom_in_button.setEnabled(has and self.zoom < ZOOMS[-1])
        self.zoom_out_button.setEnabled(has and self.zoom > ZOOMS[0])
