"""One page at a time, rendered by the service at the widget's resolution, with the cited region drawn
over it; zoom, previous / next, and "open in the system viewer"."""
from __future__ import annotations

import os

from PySide6.QtCore import QRectF, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import QColor, QDesktopServices, QPainter, QPen, QPixmap
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ..domain import BBox
from ..service import RenderedPage

ZOOMS = (0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 3.0)
HIGHLIGHT = QColor(255, 196, 0)


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
        painter.drawRect(QRectF(x0 * scale - 3, y0 * scale - 3, (x1 - x0) * scale + 6, (y1 - y0) * scale + 6))
        painter.end()
    pixmap.setDevicePixelRatio(device_ratio)
    return pixmap


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
        self.zoom = 1.0
        self.image = QLabel("Click a citation or a document to see its page here.")
        self.image.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.image.setWordWrap(True)
        self.image.resize(360, 120)
        self.scroll = QScrollArea()
        self.scroll.setWidget(self.image)  # sized to the page image: larger zooms scroll
        self.scroll.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.title = QLabel("")
        self.title.setObjectName("pageTitle")
        self.previous_button = self._tool_button("◀", "Previous page (PgUp)", "PgUp")
        self.next_button = self._tool_button("▶", "Next page (PgDown)", "PgDown")
        self.zoom_out_button = self._tool_button("−", "Zoom out (Ctrl+-)", "Ctrl+-")
        self.zoom_in_button = self._tool_button("+", "Zoom in (Ctrl++)", "Ctrl++")
        self.zoom_label = QLabel("100%")
        self.zoom_label.setMinimumWidth(40)
        self.zoom_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.open_button = QPushButton("Open PDF")
        self.open_button.setToolTip("Open the document in the system's PDF viewer")
        self.previous_button.clicked.connect(lambda: self.go(self.page - 1))
        self.next_button.clicked.connect(lambda: self.go(self.page + 1))
        self.zoom_out_button.clicked.connect(lambda: self.set_zoom(-1))
        self.zoom_in_button.clicked.connect(lambda: self.set_zoom(+1))
        self.open_button.clicked.connect(self.open_externally)
        bar = QHBoxLayout()
        bar.addWidget(self.title, 1)
        for w in (self.previous_button, self.next_button, self.zoom_out_button, self.zoom_label, self.zoom_in_button,
                  self.open_button):
            bar.addWidget(w)
        self.resized = QTimer(self)  # re-render once the user stops resizing, at the new resolution
        self.resized.setSingleShot(True)
        self.resized.setInterval(250)
        self.resized.timeout.connect(self._request)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
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

    def open_page(self, path: str, page: int, box: BBox | None = None) -> None:
        self.path, self.page, self.box = path, page, box
        self._request()

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
                self.title.setText(f"{os.path.basename(self.path)} — page {self.page}"
                                   + (f" of {self.page_count}" if self.page_count else "") + "  (rendering…)")
            self.render_requested.emit(self.path, self.page, *self.pixel_box())

    def show_render(self, path: str, page: int, rendered: RenderedPage) -> None:
        if (path, page) != (self.path, self.page):
            return  # an older request finished after the user moved on
        self.page_count = rendered.page_count
        self.shown = (path, page)
        pixmap = highlighted(rendered.png, rendered, self.box, self.devicePixelRatioF())
        self.image.setPixmap(pixmap)
        self.image.resize(pixmap.deviceIndependentSize().toSize())
        self.title.setText(f"{os.path.basename(path)} — page {page} of {rendered.page_count}"
                           + ("  · cited region highlighted" if self.box else ""))
        self._update_buttons()

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
            QDesktopServices.openUrl(url)

    def _update_buttons(self) -> None:
        has = self.path is not None
        self.previous_button.setEnabled(has and self.page > 1)
        self.next_button.setEnabled(has and self.page < self.page_count)
        self.open_button.setEnabled(has)
        self.zoom_in_button.setEnabled(has and self.zoom < ZOOMS[-1])
        self.zoom_out_button.setEnabled(has and self.zoom > ZOOMS[0])
