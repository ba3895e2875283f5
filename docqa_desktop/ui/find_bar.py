"""The viewer's find bar (Ctrl+F): a text to find in the document shown, how many matches and which one is shown,
previous / next. It holds the matches; the search itself runs as a task (MainWindow.find_in_document), so the
bar fills in while a long document is searched."""
from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QToolButton, QWidget

from ..domain import BBox

TYPING_PAUSE_MS = 300  # a search starts once typing pauses this long (or at Enter)


class FindBar(QWidget):
    search_requested = Signal(str)  # the text to find; "" when the bar closes (the search running stops)
    match_chosen = Signal()  # show the match current() gives
    highlights_changed = Signal()  # matches came or went: boxes_on(page) may have changed

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.searched = ""  # the text the matches are of
        self.searching = False
        self.from_page = 1  # the first match shown is the first on or after this page
        self.matches: list[tuple[int, tuple[BBox, ...]]] = []  # (page, boxes) of each match, in document order
        self.index = -1  # the match shown, -1 before one is
        self.field = QLineEdit()
        self.field.setPlaceholderText("Find in document")
        self.field.setClearButtonEnabled(True)
        self.field.setToolTip("Enter: next match · Shift+Enter: previous · Esc: close")
        self.field.setMinimumWidth(80)  # it gives way in a narrow viewer; the buttons keep their room
        self.count = QLabel()
        self.count.setMinimumWidth(64)
        self.count.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.previous_button = self._button("▲", "Previous match (Shift+F3)", "Shift+F3", self.previous)
        self.next_button = self._button("▼", "Next match (F3)", "F3", self.next)
        self.close_button = self._button("✕", "Close (Esc)", "", self.close_bar)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.field, 1)
        for widget in (self.count, self.previous_button, self.next_button, self.close_button):
            row.addWidget(widget)
        self.typing = QTimer(self)
        self.typing.setSingleShot(True)
        self.typing.setInterval(TYPING_PAUSE_MS)
        self.typing.timeout.connect(self.search)
        self.field.textEdited.connect(lambda _: self.typing.start())
        self.field.installEventFilter(self)  # Enter, Shift+Enter and Esc
        self.setVisible(False)
        self._update()

    def _button(self, text: str, tip: str, shortcut: str, slot) -> QToolButton:
        button = QToolButton()
        button.setText(text)
        button.setToolTip(tip)
        if shortcut:
            button.setShortcut(QKeySequence(shortcut))
        button.setAutoRaise(True)
        button.clicked.connect(slot)
        return button

    def open_bar(self) -> None:
        """Shown, its text selected to type over (Ctrl+F)."""
        self.setVisible(True)
        self.field.setFocus()
        self.field.selectAll()

    def close_bar(self) -> None:
        self.setVisible(False)
        self.typing.stop()
        self.searched = ""
        self._clear()
        self._update()
        self.search_requested.emit("")

    def search(self) -> None:
        """Look for the field's text from the start (in a new document too); the matches come in by add_found."""
        self.typing.stop()
        self.searched = " ".join(self.field.text().split())
        self._clear()
        self.searching = bool(self.searched)
        self._update()
        self.search_requested.emit(self.searched)

    def add_found(self, page: int, matches: tuple[tuple[BBox, ...], ...]) -> None:
        """A page's matches, as the search reads them: the first on or after `from_page` is shown at once."""
        self.matches += [(page, boxes) for boxes in matches]
        self.highlights_changed.emit()
        if self.index < 0 and page >= self.from_page:
            self._choose(len(self.matches) - len(matches))
        self._update()

    def finished(self) -> None:
        self.searching = False
        if self.index < 0 and self.matches:  # none after from_page: the first one, from the top
            self._choose(0)
        self._update()

    def failed(self, message: str) -> None:
        self.searching = False
        self.count.setText("Not searched")
        self.count.setToolTip(message)

    def next(self) -> None:
        if self.matches:
            self._choose((self.index + 1) % len(self.matches))

    def previous(self) -> None:
        if self.matches:
            self._choose((self.index - 1) % len(self.matches))

    def current(self) -> tuple[int, tuple[BBox, ...]] | None:
        """The match shown: its page and boxes."""
        return self.matches[self.index] if self.index >= 0 else None

    def boxes_on(self, page: int) -> list[BBox]:
        """Every match's boxes on `page`, for drawing them all."""
        return [box for on, boxes in self.matches if on == page for box in boxes]

    def _choose(self, index: int) -> None:
        self.index = index
        self._update()
        self.match_chosen.emit()

    def _clear(self) -> None:
        had = bool(self.matches)
        self.matches, self.index, self.searching = [], -1, False
        if had:
            self.highlights_changed.emit()

    def _enter(self, backwards: bool) -> None:
        """Enter searches a changed text, else steps to the next match (Shift+Enter: the previous one)."""
        if self.typing.isActive() or " ".join(self.field.text().split()) != self.searched:
            self.search()
        elif backwards:
            self.previous()
        else:
            self.next()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ShortcutOverride and event.key() == Qt.Key.Key_Escape:
            event.accept()  # Esc closes the bar: the window's Esc (stop the answer) does not take it from the field
            return True
        if event.type() == QEvent.Type.KeyPress:
            if event.key() == Qt.Key.Key_Escape:
                self.close_bar()
                return True
            if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                self._enter(backwards=bool(event.modifiers() & Qt.KeyboardModifier.ShiftModifier))
                return True
        return super().eventFilter(watched, event)

    def _update(self) -> None:
        found = len(self.matches)
        if not self.searched:
            text = ""
        elif found:
            text = f"{self.index + 1 if self.index >= 0 else '–'} of {found}" + ("…" if self.searching else "")
        else:
            text = "Searching…" if self.searching else "No matches"
        self.count.setText(text)
        pages = len({page for page, _ in self.matches})
        self.count.setToolTip(f"{found} matches on {pages} pages" + (" so far" if self.searching else "")
                              if found else "")
        for button in (self.previous_button, self.next_button):
            button.setEnabled(found > 0)
