"""The search box over the library: pages found as the reader types (BM25 first, then the fused ranking), each as
its document, page and snippet with the query's words in bold; filters by author, year and folder; scoped to the
documents selected in the library when there are some. Keyboard only: Ctrl+K, type, ↓ to the results, Enter opens
the page, Esc back to the box, Esc again clears it."""
from __future__ import annotations

import html
import os
import re

from PySide6.QtCore import QEvent, QObject, QSize, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ..domain import DocumentFilter, SearchHit, parse_years

TYPING_PAUSE_MS = 250  # a search starts once typing pauses this long (Enter starts it at once)
ALL_FOLDERS = "All folders"
_WORD = re.compile(r"\w+", re.UNICODE)


def marked_snippet(snippet: str, matched: frozenset[str]) -> str:
    """The snippet as HTML, its words among `matched` (lower case) in bold, the rest escaped."""
    parts, at = [], 0
    for word in _WORD.finditer(snippet):
        parts.append(html.escape(snippet[at:word.start()]))
        text = html.escape(word.group())
        parts.append(f"<b>{text}</b>" if word.group().lower() in matched else text)
        at = word.end()
    parts.append(html.escape(snippet[at:]))
    return "".join(parts)


class LibrarySearch(QWidget):
    search_requested = Signal(str, object)  # (query, DocumentFilter): the main window runs it as a task
    hit_opened = Signal(object, str)  # (SearchHit, query): open its page with the query's words highlighted
    cleared = Signal()  # the box emptied: the library list shows again
    widen_requested = Signal()  # the scope line's "whole library": the selection is let go and the query run again

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.hits: list[SearchHit] = []
        self.titles: dict[str, str] = {}  # path → the title the library lists it by
        self.searched = ""  # the query the results shown are for
        self.box = QLineEdit()
        self.box.setPlaceholderText("Search the library (Ctrl+K)")
        self.box.setClearButtonEnabled(True)
        self.box.setToolTip("Pages with these words, ranked as `docqa search` ranks them; in the selected documents "
                            "when some are selected. ↓ to the results, Enter opens a page, Esc clears.")
        self.filters_button = QToolButton()
        self.filters_button.setText("Filters")
        self.filters_button.setCheckable(True)
        self.filters_button.setToolTip("Only documents of an author, a year or a range of years, a folder")
        self.author = QLineEdit()
        self.author.setPlaceholderText("Author")
        self.year = QLineEdit()
        self.year.setPlaceholderText("Year: 2019, 2015-2020")
        self.folder = QComboBox()
        self.folder.addItem(ALL_FOLDERS, "")
        filters = QWidget()
        row = QHBoxLayout(filters)
        row.setContentsMargins(0, 0, 0, 0)
        for widget in (self.author, self.year, self.folder):
            row.addWidget(widget)
        self.filters = filters
        filters.setVisible(False)
        self.filters_button.toggled.connect(self._show_filters)
        self.scope = QLabel()  # "5 pages · in 3 selected documents", "Searching…", what went wrong
        self.scope.setWordWrap(True)
        self.scope.setTextInteractionFlags(Qt.TextInteractionFlag.LinksAccessibleByMouse
                                           | Qt.TextInteractionFlag.LinksAccessibleByKeyboard)
        self.scope.linkActivated.connect(lambda _: self.widen_requested.emit())
        self.results = QListWidget()
        self.results.setWordWrap(True)
        self.results.itemActivated.connect(self._open)
        self.results.itemClicked.connect(self._open)
        top = QHBoxLayout()
        top.addWidget(self.box, 1)
        top.addWidget(self.filters_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(filters)
        layout.addWidget(self.scope)
        self.scope.setVisible(False)
        self.pause = QTimer(self)
        self.pause.setSingleShot(True)
        self.pause.setInterval(TYPING_PAUSE_MS)
        self.pause.timeout.connect(self.search)
        self.box.textChanged.connect(self._typed)
        for field in (self.author, self.year):
            field.textChanged.connect(self._typed)
        self.folder.currentIndexChanged.connect(self._typed)
        self.box.installEventFilter(self)
        self.results.installEventFilter(self)
        self.results.viewport().installEventFilter(self)  # its resizes: the rows re-wrap

    # -- typing and searching --------------------------------------------------------------------

    def focus(self) -> None:
        """Ctrl+K: the box, its text selected to type over."""
        self.box.setFocus()
        self.box.selectAll()

    def set_folders(self, roots: list[str]) -> None:
        chosen = self.folder.currentData()
        self.folder.blockSignals(True)
        self.folder.clear()
        self.folder.addItem(ALL_FOLDERS, "")
        for root in roots:
            self.folder.addItem(os.path.basename(root.rstrip(os.sep)) or root, root)
            self.folder.setItemData(self.folder.count() - 1, root, Qt.ItemDataRole.ToolTipRole)
        self.folder.setCurrentIndex(max(self.folder.findData(chosen), 0))
        self.folder.blockSignals(False)

    def document_filter(self) -> DocumentFilter:
        """The filters as typed; ValueError naming what is wrong with the year."""
        return DocumentFilter(self.author.text(), parse_years(self.year.text()), self.folder.currentData() or "")

    def query(self) -> str:
        return self.box.text().strip()

    def _typed(self) -> None:
        if self.query():
            self.pause.start()
        else:
            self.pause.stop()
            self.clear_results()

    def search(self) -> None:
        """Ask for the query's pages now (the main window answers with show_hits, as many times as it ranks them)."""
        self.pause.stop()
        query = self.query()
        if not query:
            return
        try:
            where = self.document_filter()
        except ValueError as e:
            self.say(html.escape(str(e), quote=False))
            return
        self.say("Searching…")
        self.search_requested.emit(query, where)

    def _show_filters(self, shown: bool) -> None:
        self.filters.setVisible(shown)
        if not shown and (self.author.text() or self.year.text() or self.folder.currentIndex()):
            self.author.clear()  # hidden filters would narrow the search unseen
            self.year.clear()
            self.folder.setCurrentIndex(0)

    # -- results ---------------------------------------------------------------------------------

    def show_hits(self, query: str, hits: list[SearchHit], scope: str, final: bool) -> None:
        """The pages found for `query` (a later query's results replace them; an older query's are dropped by the
        caller); `scope`: 'in 3 selected documents' or ''; `final`: no better ranking follows."""
        if query != self.query():
            return
        current = self.results.currentRow()
        self.hits, self.searched = hits, query
        self.results.clear()
        for hit in hits:
            item = QListWidgetItem()
            item.setToolTip(hit.path)
            self.results.addItem(item)
            label = QLabel(f"<b>{html.escape(self.titles.get(hit.path) or hit.doc)}</b> · p. {hit.page}<br>"
                           f"<span>{marked_snippet(hit.snippet, hit.matched)}</span>")
            label.setWordWrap(True)
            label.setTextFormat(Qt.TextFormat.RichText)
            label.setContentsMargins(4, 3, 4, 3)
            self.results.setItemWidget(item, label)
        self.fit_rows()
        if hits:
            self.results.setCurrentRow(min(max(current, 0), len(hits) - 1))
        count = f"{len(hits)} page{'s' * (len(hits) != 1)}" if hits else "No page matches"
        widen = f"{html.escape(scope)} (<a href='whole'>search the whole library</a>)" if scope else ""
        self.say(" · ".join(part for part in (count, widen, "" if final else "ranking…") if part))

    def say(self, text: str) -> None:
        """`text` under the box (rich text: escape what comes from elsewhere)."""
        self.scope.setText(text)
        self.scope.setVisible(bool(text))

    def clear_results(self) -> None:
        self.hits, self.searched = [], ""
        self.results.clear()
        self.say("")
        self.cleared.emit()

    def fit_rows(self) -> None:
        """Each result as tall as its wrapped snippet is at the list's width (after results come and on resize)."""
        width = max(self.results.viewport().width() - 4, 120)
        for row in range(self.results.count()):
            item = self.results.item(row)
            label = self.results.itemWidget(item)
            if label is not None:  # a row added and not yet given its label (its scroll bar resized the list)
                item.setSizeHint(QSize(width, label.heightForWidth(width)))

    def _open(self, item: QListWidgetItem) -> None:
        row = self.results.row(item)
        if 0 <= row < len(self.hits):
            self.hit_opened.emit(self.hits[row], self.searched)

    def open_current(self) -> None:
        """Enter in the box: the highlighted result (the first, until ↓ chooses another)."""
        if self.pause.isActive() or self.query() != self.searched:
            self.search()  # typed since: search first; Enter again opens
            return
        item = self.results.currentItem() or self.results.item(0)
        if item is not None:
            self._open(item)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """The keys that make it work without a mouse: ↓/↑ and Enter from the box, Esc back and out."""
        if watched is self.results.viewport() and event.type() == QEvent.Type.Resize:
            self.fit_rows()
            return False
        if event.type() == QEvent.Type.ShortcutOverride and event.key() == Qt.Key.Key_Escape \
                and (watched is self.results or self.box.text()):
            event.accept()  # Esc is ours here (back, clear), not the window's Stop
            return True
        if event.type() != QEvent.Type.KeyPress:
            return False
        key = event.key()
        if watched is self.box:
            if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                self.open_current()
                return True
            if key == Qt.Key.Key_Down and self.results.count():
                self.results.setFocus()
                if self.results.currentRow() < 0:
                    self.results.setCurrentRow(0)
                return True
            if key == Qt.Key.Key_Escape and self.box.text():
                self.box.clear()
                return True
        elif watched is self.results:
            if key == Qt.Key.Key_Escape or (key == Qt.Key.Key_Up and self.results.currentRow() <= 0):
                self.focus()
                return True
        return False
