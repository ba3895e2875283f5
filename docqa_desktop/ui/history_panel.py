"""Earlier questions (from the database), newest first; activating one shows its answer again."""
from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QListWidget, QListWidgetItem

from ..answers import Answer
from .answer_view import plain_tooltip


class HistoryPanel(QListWidget):
    answer_chosen = Signal(str)  # answer id

    def __init__(self, parent=None):
        super().__init__(parent)
        self.itemActivated.connect(lambda item: self.answer_chosen.emit(item.data(Qt.ItemDataRole.UserRole)))
        self.itemClicked.connect(lambda item: self.answer_chosen.emit(item.data(Qt.ItemDataRole.UserRole)))

    def show_history(self, answers: list[Answer]) -> None:
        self.clear()
        for answer in answers:
            item = QListWidgetItem(f"{answer.question}\n{answer.status.value} · {answer.created_at[:16]}")
            item.setData(Qt.ItemDataRole.UserRole, answer.id)
            item.setToolTip(plain_tooltip(answer.text[:400]))  # model output: shown as text, never as HTML
            self.addItem(item)
