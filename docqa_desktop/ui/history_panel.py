"""Earlier questions (from the database), newest first; activating one shows its answer again."""
from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QListWidget, QListWidgetItem

from ..answers import Answer
from .elided import plain_tooltip


class HistoryPanel(QListWidget):
    answer_chosen = Signal(str)  # answer id

    def __init__(self, parent=None):
        super().__init__(parent)
        self.itemActivated.connect(lambda item: self.answer_chosen.emit(item.data(Qt.ItemDataRole.UserRole)))
        self.itemClicked.connect(lambda item: self.answer_chosen.emit(item.data(Qt.ItemDataRole.UserRole)))

    def show_history(self, answers: list[Answer]) -> None:
        """Threads newest first, each as its first question with its follow-ups under it (↳), in order."""
        self.clear()
        for answer in by_thread(answers):
            arrow = "↳ " if answer.thread and answer.thread != answer.id else ""
            item = QListWidgetItem(f"{arrow}{answer.question}\n{arrow and '   '}{answer.status.label} · "
                                   f"{answer.created_at[:16]}")
            item.setData(Qt.ItemDataRole.UserRole, answer.id)
            item.setToolTip(plain_tooltip(answer.text[:400]))  # model output: shown as text, never as HTML
            self.addItem(item)


def by_thread(newest_first: list[Answer]) -> list[Answer]:
    """The answers grouped by thread: the thread with the newest answer first, each thread oldest first."""
    threads: dict[str, list[Answer]] = {}
    for answer in newest_first:
        threads.setdefault(answer.thread_id, []).append(answer)
    return [answer for thread in threads.values() for answer in reversed(thread)]
