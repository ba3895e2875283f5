"""One page at a time, rendered by the service at the widget's resolution, with the cited region drawn
over it, scrolled into view and zoomed until its words read (readable_zoom.py); the answer's citations one by one
(citation_steps.py: F8, Shift+F8); zoom, "Fit" (the whole page, Ctrl+0), previous / next, a page box ("12 / 75":
type a page to go to it), find in the document (Ctrl+F: its matches drawn, the one shown scrolled into view),
"open in the system viewer", and the page's tables out of the app from its context menu (page_tables.py)."""
from __future__ import annotations

import os
from collections.abc import Sequence

from PySide6.QtCore import QRect, QRectF, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import QAction, QColor, QDesktopServices, QGuiApplication, QKeySequence, QPainter, QPen, QPixmap
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ..answers import Citation
from ..domain import BBox
from ..service import RenderedPage, document_kind
from .citation_steps import CitationSteps
from .elided import ElidedLabel
from .find_bar import FindBar
from .page_tables import PageTables
from .readable_zoom import Pane, readable_zoom, render_size

ZOOMS = (0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 3.0, 4.0, 6.0)  # of the whole page in view; a citation's zoom may fall between
FIT = 1.0
HIGHLIGHT = QColor(255, 196, 0)
HIGHLIGHT_MARGIN = 3  # points drawn around the cited box
FOUND = QColor(40, 140, 255)  # find's matches: a colour of their own beside a cited box
FOUND_MARGIN = 1
CITED = "cited region highlighted"


def highlighted(png: bytes, page: RenderedPage, box: BBox | None, device_ratio: float = 1.0,
                found: Sequence[BBox] = (), current: Sequence[BBox] = ()) -> QPixmap:
    """The page pixmap with `box` (PDF points) outlined and tinted; `found` (find's matches) tinted, and `current`
    (the match shown) tinted deeper and outlined."""
    pixmap = QPixmap()
    pixmap.loadFromData(png)
    scale = pixmap.width() / page.width
    painter = QPainter(pixmap)
    pen_width = max(2.0, 2 * device_ratio)
    for boxes, colour, alpha, outline, margin in ((found, FOUND, 70, False, FOUND_MARGIN),
                                                  (current, FOUND, 90, True, FOUND_MARGIN),
                                                  ((box,) if box else (), HIGHLIGHT, 60, True, HIGHLIGHT_MARGIN)):
        painter.setPen(QPen(colour, pen_width) if outline else Qt.PenStyle.NoPen)
        fill = QColor(colour)
        fill.setAlpha(alpha)
        painter.setBrush(fill)
        for x0, y0, x1, y1 in boxes:
            painter.drawRect(QRectF(x0 * scale - margin, y0 * scale - margin,
                                    (x1 - x0) * scale + 2 * margin, (y1 - y0) * scale + 2 * margin))
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


def boxes_on_screen(boxes: tuple[BBox, ...], page: RenderedPage, shown_width: int) -> QRect:
    """The rectangle around `boxes` on the page image (a match that spans lines: all of it)."""
    rect = QRect()
    for box in boxes:
        rect = rect.united(box_on_screen(box, page, shown_width))
    return rect


class PageViewer(QWidget):
    # (document path, 1-based page, pixel width and height to fit the page into)
    render_requested = Signal(str, int, int, int)
    find_requested = Signal(str, str)  # (document path, text to find); "" stops the search running
    tables_requested = Signal(str, int)  # (document path, 1-based page): its tables, for self.tables.show_tables
    # (document path, 1-based page, cited box): how tall its words stand, for show_text_height
    text_height_requested = Signal(str, int, object)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.path: str | None = None
        self.page = 0
        self.page_count = 0
        self.box: BBox | None = None
        self.marked: tuple[BBox, ...] = ()  # a library search's words on the page shown
        self.shown: tuple[str, int] | None = None  # the page on screen
        self.requested: tuple[str, int, int, int] | None = None  # the newest render asked for: path, page, size
        self.zoom = FIT
        self.chosen_zoom = FIT  # the zoom the reader chose by hand: a citation opens at it or, if larger, its own
        self.zooming: tuple[str, int, BBox] | None = None  # the citation whose zoom waits for its text height
        self.text_points: float | None = None  # how tall the cited words stand, PDF points (None: no words)
        self.text_read = False  # whether text_points has come for the citation in self.zooming
        self.note = ""  # said after the page when no region is cited ("stopped, nothing cited")
        self.rendered: RenderedPage | None = None  # the page on screen, as rendered (redrawn as matches come)
        self.cited: QRect | None = None  # the cited box on the shown image, for scrolling it into view
        self.match: QRect | None = None  # find's match shown, on the shown image
        self.follow_match = False  # the page was opened for a match of find: it, not the cited box, is scrolled to
        self.drawn_found: list[BBox] = []  # the matches drawn on the page on screen
        self.open_failed: QMessageBox | None = None  # the notice shown when no viewer opens the document
        self.image = QLabel("Click a citation or a document to see its page here.")
        self.image.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.image.setWordWrap(True)
        self.image.resize(360, 120)
        self.tables = PageTables(self.image, self)  # the page's tables: hinted under the pointer, its context menu
        self.scroll = QScrollArea()
        self.scroll.setWidget(self.image)  # sized to the page image: larger zooms scroll
        self.scroll.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.title = ElidedLabel()  # a long file name is elided, whole in the tooltip: it never widens the window
        self.title.setObjectName("pageTitle")
        self.previous_button = self._tool_button("◀", "Previous page (PgUp)", "PgUp")
        self.next_button = self._tool_button("▶", "Next page (PgDown)", "PgDown")
        self.page_box = QSpinBox()  # "12 / 75": type a page and Enter to go there
        self.page_box.setButtonSymbols(QAbstractSpinBox.ButtonSymbols.NoButtons)
        self.page_box.setKeyboardTracking(False)
        self.page_box.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.page_box.setToolTip("Page: type a number and press Enter to go to it")
        self.page_box.editingFinished.connect(self._go_typed)
        self.zoom_out_button = self._tool_button("−", "Zoom out (Ctrl+-)", "Ctrl+-")
        self.zoom_in_button = self._tool_button("+", "Zoom in (Ctrl++)", "Ctrl++")
        self.zoom_label = QLabel("100%")
        self.zoom_label.setMinimumWidth(40)
        self.zoom_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.zoom_label.setToolTip("Zoom: 100% shows the whole page")
        self.whole_button = self._tool_button("Fit", "Whole page: all of the page in view (Ctrl+0)", "Ctrl+0")
        self.whole_button.clicked.connect(self.whole_page)
        self.steps = CitationSteps()  # "◀ Previous citation · Citation 2 of 5 · Next citation ▶"
        self.steps.chosen.connect(self.show_citation)
        self.find_button = self._tool_button("Find", "Find in the document (Ctrl+F)", "")
        self.find_action = QAction("Find in document", self)  # Ctrl+F anywhere in the window
        self.find_action.setShortcut(QKeySequence.StandardKey.Find)
        self.find_action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        self.find_action.triggered.connect(self.start_find)
        self.addAction(self.find_action)
        self.find_bar = FindBar()
        self.find_bar.search_requested.connect(self._find)
        self.find_bar.match_chosen.connect(self._show_match)
        self.find_bar.highlights_changed.connect(self._redraw_found)
        self.open_button = QPushButton()  # named for the shown document's kind in _update_buttons
        self.previous_button.clicked.connect(lambda: self.go(self.page - 1))
        self.next_button.clicked.connect(lambda: self.go(self.page + 1))
        self.zoom_out_button.clicked.connect(lambda: self.set_zoom(-1))
        self.zoom_in_button.clicked.connect(lambda: self.set_zoom(+1))
        self.open_button.clicked.connect(self.open_externally)
        self.find_button.clicked.connect(self.start_find)
        bar = QHBoxLayout()  # the title has its own line above: the controls keep theirs at any width
        for w in (self.previous_button, self.page_box, self.next_button, self.zoom_out_button, self.zoom_label,
                  self.zoom_in_button, self.whole_button):
            bar.addWidget(w)
        bar.addStretch(1)
        bar.addWidget(self.find_button)
        bar.addWidget(self.open_button)
        self.resized = QTimer(self)  # re-render once the user stops resizing, at the new resolution
        self.resized.setSingleShot(True)
        self.resized.setInterval(250)
        self.resized.timeout.connect(self._request)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.title)
        layout.addLayout(bar)
        layout.addWidget(self.steps)
        layout.addWidget(self.find_bar)
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

    def open_page(self, path: str, page: int, box: BBox | None = None, note: str = "",
                  marked: Sequence[BBox] = ()) -> None:
        """`page` of `path`, `box` (a citation) highlighted and scrolled to; `marked`: a library search's words,
        tinted like find's matches, the first scrolled to."""
        other_document = path != self.path
        if self.zooming is not None and self.zooming != (path, page, box):
            self.zooming = None  # the reader went elsewhere first: a citation's zoom still to settle is dropped
        self.path, self.page, self.box, self.note = path, page, box, note
        self.marked = tuple(marked)
        self.follow_match = False
        if other_document:
            self.page_count = 0  # until this document's first page is rendered
            if self.find_bar.searched:
                self.find_bar.search()  # the text looked for, found in this document instead
        self._request()

    def set_citations(self, citations: list[Citation]) -> None:
        """A new answer's citations, for Next / Previous citation (none: the row hides)."""
        self.steps.set_citations(citations)

    def show_citation(self, citation: Citation) -> None:
        """The cited page, its box highlighted, scrolled into view and zoomed until its words read: at the zoom the
        reader chose or, when the words would stand smaller than READABLE_POINTS there, the zoom they read at
        (settled once the words' height is read, off the GUI thread: text_height_requested)."""
        self.steps.showing(citation)
        if self.shown != (citation.path, citation.page):
            self.zoom = self.chosen_zoom  # another page opens as the reader chose, then zooms to its citation
        self.text_points, self.text_read = None, False
        self.zooming = (citation.path, citation.page, citation.bbox) if citation.bbox else None
        self.open_page(citation.path, citation.page, citation.bbox)
        if self.zooming:
            self.text_height_requested.emit(*self.zooming)
        self._show_zoom()

    def show_text_height(self, path: str, page: int, box: BBox, points: float | None) -> None:
        """How tall the words of the citation's box stand (None: it has none, or they could not be read)."""
        if self.zooming == (path, page, box):
            self.text_points, self.text_read = points, True
            self._settle_zoom()

    def _settle_zoom(self) -> None:
        """Once both the words' height and the page's size are known: the zoom the cited words read at, the page
        rendered again at it (the box is scrolled to when it comes)."""
        if not self.zooming or not self.text_read or self.rendered is None or self.shown != self.zooming[:2]:
            return
        box, self.zooming = self.zooming[2], None
        if self.text_points is None:
            return  # no words to size (a figure, an unread scan): the reader's zoom
        zoom = max(self.chosen_zoom, readable_zoom(self.text_points, box, (self.rendered.width, self.rendered.height),
                                                   self._pane()))
        if abs(zoom - self.zoom) > 0.01:
            self.zoom = zoom
            self._show_zoom()
            self._request()

    def _pane(self) -> Pane:
        """The pane without scroll bars: the page's fit, and so its zoom, do not change as they come and go."""
        room = self.scroll.maximumViewportSize()
        return Pane(room.width(), room.height(), self.logicalDpiY(), self.devicePixelRatioF())

    def open_document(self, path: str) -> None:
        """A document's first page, or, when it is the one shown, the page the reader is on (a click on it in
        the library)."""
        if path != self.path:
            self.open_page(path, 1)

    def show_uncited(self, note: str) -> None:
        """No region is cited (a stopped answer, one without citations): the page shown loses its highlight
        and the title says `note` instead; there are no citations to step through."""
        self.steps.set_citations([])
        if self.path:
            self.open_page(self.path, self.page, None, note)

    def fit(self) -> None:
        """Back to the whole page in view as the reader's zoom (each new answer starts so: see
        MainWindow.show_answer; its citations then open at the zoom their words read at)."""
        self.zoom = self.chosen_zoom = FIT
        self.zooming = None  # a citation's zoom still to settle does not undo it
        self._show_zoom()

    def whole_page(self) -> None:
        """"Fit" (Ctrl+0): the whole page shown, all of it in view, the cited box still highlighted."""
        self.fit()
        if self.path:
            self._request()

    def _show_zoom(self) -> None:
        self.zoom_label.setText(f"{self.zoom:.0%}")
        self._update_buttons()

    def _go_typed(self) -> None:
        if self.page_box.value() != self.page:  # Enter or leaving the box: a page typed there is gone to
            self.go(self.page_box.value())

    def go(self, page: int) -> None:
        if self.path and 1 <= page <= max(self.page_count, 1):
            self.open_page(self.path, page)

    def set_zoom(self, step: int) -> None:
        """The next zoom of ZOOMS up (+1) or down (-1) from the one shown (a citation's may lie between two); it
        becomes the reader's."""
        larger = [z for z in ZOOMS if z > self.zoom + 0.005]
        smaller = [z for z in ZOOMS if z < self.zoom - 0.005]
        chosen = (larger[:1] if step > 0 else smaller[-1:]) or [self.zoom]
        if chosen[0] != self.zoom:
            self.zoom = self.chosen_zoom = chosen[0]
            self.zooming = None
            self._show_zoom()
            self._request()

    def pixel_box(self) -> tuple[int, int]:
        """Render at the viewport's device resolution (whole page in view at zoom 100%), not a fixed DPI."""
        return render_size(self._pane(), self.zoom)

    def _request(self) -> None:
        self.find_bar.from_page = self.page  # a new search shows the first match from here on
        self._show_page_number()
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
        self.rendered = rendered
        self._draw()
        if new_page:
            self.tables.expect(path, page, rendered.width)
            self.tables_requested.emit(path, page)
        said = f"  · {CITED}" if self.box else f"  · {self.note}" if self.note else ""
        self.title.set_text(os.path.basename(path), f" — page {page} of {rendered.page_count}{said}")
        self._update_buttons()
        self._settle_zoom()  # a citation's zoom waiting for the page's size: a sharper render is asked for
        if self.follow_match and self.match is not None:
            self._scroll_to(self.match)
        elif self.cited is not None:
            self.scroll_to_cited()
        elif new_page:
            self.scroll.horizontalScrollBar().setValue(0)
            self.scroll.verticalScrollBar().setValue(0)

    def _draw(self) -> None:
        """The page on screen with the cited box and find's matches on it."""
        rendered, current = self.rendered, self.find_bar.current()
        match = current[1] if current and current[0] == self.page else ()
        self.drawn_found = self.find_bar.boxes_on(self.page)
        pixmap = highlighted(rendered.png, rendered, self.box, self.devicePixelRatioF(),
                             [*self.drawn_found, *self.marked], match)
        self.image.setPixmap(pixmap)
        self.image.resize(pixmap.deviceIndependentSize().toSize())
        self.cited = box_on_screen(self.box, rendered, self.image.width()) if self.box else None
        self.match = boxes_on_screen(match, rendered, self.image.width()) if match else None
        if self.marked and not match:  # a search's words: the first in view, as a match of find would be
            self.match = boxes_on_screen(self.marked[:1], rendered, self.image.width())
            self.follow_match = True

    def scroll_to_cited(self) -> None:
        self._scroll_to(self.cited)

    def _scroll_to(self, box: QRect) -> None:
        """`box` (on the page image) in view: across, as far right as keeps a margin after it, so that what stands
        left of it (a table cell's row label) shows too; down, in the middle. A box larger than the view: its top
        left corner first (the scroll bars' values are the image's pixels at the view's top left; they clamp)."""
        viewport = self.scroll.viewport().size()
        across, down = self.scroll.horizontalScrollBar(), self.scroll.verticalScrollBar()
        margin = viewport.width() // 25
        across.setValue(min(box.left(), max(0, box.right() + margin - viewport.width()))
                        if box.width() <= viewport.width() else box.left())
        down.setValue(box.top() + box.height() // 2 - viewport.height() // 2
                      if box.height() <= viewport.height() else box.top())

    def cited_in_view(self) -> bool:
        """Whether the cited box lies wholly in the visible part of the page (False with none cited)."""
        return self._in_view(self.cited)

    def match_in_view(self) -> bool:
        """Whether find's match shown lies wholly in the visible part of the page (False with none shown)."""
        return self._in_view(self.match)

    def _in_view(self, box: QRect | None) -> bool:
        if box is None:
            return False
        top_left = self.image.mapTo(self.scroll.viewport(), box.topLeft())
        return self.scroll.viewport().rect().contains(QRect(top_left, box.size()))

    # -- find in the document ---------------------------------------------------------------

    def start_find(self) -> None:
        """Ctrl+F: the find bar, its text selected to type over."""
        self.find_bar.open_bar()

    def _find(self, text: str) -> None:
        if text and not self.path:
            self.find_bar.failed("Open a document to find in it")
            return
        self.find_requested.emit(self.path or "", text)

    def _show_match(self) -> None:
        """The match find_bar.current() gives: its page opened (or redrawn, when on screen), the match in view."""
        page, _ = self.find_bar.current()
        if (self.path, page) != self.shown or page != self.page:
            self.open_page(self.path, page)  # the page alone, as the reader paging to it would see it
            self.follow_match = True
        else:
            self._draw()
            self._scroll_to(self.match)

    def _redraw_found(self) -> None:
        """Matches came in or went: the page on screen is redrawn when its own changed."""
        if self.rendered is not None and (self.path, self.page) == self.shown \
                and self.find_bar.boxes_on(self.page) != self.drawn_found:
            self._draw()

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

    def _show_page_number(self) -> None:
        """The page box says "page / pages"; before a document's page count is known, its page alone."""
        box = self.page_box
        box.blockSignals(True)  # set here, not typed: no going to a page
        box.setRange(min(1, self.page), max(self.page_count, self.page))
        box.setValue(self.page)
        box.setSuffix(f" / {self.page_count}" if self.page_count else "")
        box.setSpecialValueText("–" if not self.path else "")
        box.blockSignals(False)
        box.setEnabled(self.page_count > 0)

    def _update_buttons(self) -> None:
        has = self.path is not None
        self._show_page_number()
        self.previous_button.setEnabled(has and self.page > 1)
        self.next_button.setEnabled(has and self.page < self.page_count)
        self.open_button.setEnabled(has)
        # the shown document's kind as documents.py names it ("Open PDF"); before one is shown, PDF as ever
        kind = document_kind(self.path) if has else "PDF"
        self.open_button.setText(f"Open {kind}")
        self.open_button.setToolTip(f"Open the document in the system's {kind} viewer")
        self.zoom_in_button.setEnabled(has and self.zoom < ZOOMS[-1])
        self.zoom_out_button.setEnabled(has and self.zoom > ZOOMS[0])
        self.whole_button.setEnabled(has and self.zoom != FIT)
