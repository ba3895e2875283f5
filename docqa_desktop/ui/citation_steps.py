"""The page viewer's row for stepping through an answer's citations: "◀ Previous citation · Citation 2 of 5 ·
Next citation ▶", with F8 and Shift+F8 anywhere in the window. It stops at either end and says so ("Citation 5
of 5, the last"): the reader knows they have seen them all, and a held key does not cycle round."""
from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QHBoxLayout, QLabel, QToolButton, QWidget

from ..answers import Citation


class CitationSteps(QWidget):
    chosen = Signal(object)  # the Citation to show

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.citations: list[Citation] = []
        self.at: int | None = None  # the index of the citation shown; None: none of this answer's
        self.previous_action = self._action("◀ Previous citation", "Shift+F8", -1)
        self.next_action = self._action("Next citation ▶", "F8", +1)
        self.label = QLabel()
        self.label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self._button(self.previous_action))
        layout.addWidget(self.label, 1)
        layout.addWidget(self._button(self.next_action))
        self.set_citations([])

    def _action(self, text: str, shortcut: str, step: int) -> QAction:
        action = QAction(text, self)
        action.setShortcut(QKeySequence(shortcut))
        action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)  # from the question box or the answer too
        action.setToolTip(f"{text.strip('◀▶ ').capitalize()} ({shortcut})")
        action.triggered.connect(lambda: self.step(step))
        self.addAction(action)
        return action

    @staticmethod
    def _button(action: QAction) -> QToolButton:
        button = QToolButton()
        button.setDefaultAction(action)
        button.setAutoRaise(True)
        return button

    def set_citations(self, citations: list[Citation]) -> None:
        """A new answer's citations (none: the row hides); none of them shown yet."""
        self.citations, self.at = list(citations), None
        self.setVisible(bool(self.citations))
        self._update()

    def showing(self, citation: Citation) -> None:
        """The viewer shows `citation`: the row says which of the answer's it is (an earlier turn's is none)."""
        self.at = next((i for i, c in enumerate(self.citations) if c is citation),
                       next((i for i, c in enumerate(self.citations) if c == citation), None))
        self._update()

    def step(self, by: int) -> None:
        """The next (+1) or previous (-1) citation, from the one shown; from none, the first or the last."""
        if not self.citations:
            return
        target = (0 if by > 0 else len(self.citations) - 1) if self.at is None else self.at + by
        if 0 <= target < len(self.citations):
            self.chosen.emit(self.citations[target])

    def _update(self) -> None:
        count, at = len(self.citations), self.at
        if at is None:
            self.label.setText(f"{count} citation{'s' if count != 1 else ''} in this answer")
        else:
            end = ", the last" if at == count - 1 and count > 1 else ""
            self.label.setText(f"Citation {at + 1} of {count}{end}")
        self.previous_action.setEnabled(count > 0 and (at is None or at > 0))
        self.next_action.setEnabled(count > 0 and (at is None or at < count - 1))
