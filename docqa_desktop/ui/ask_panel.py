"""The question box: method, scope, Ask / Stop, and the live steps of the running method."""
from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ..progress import Progress
from ..service import MethodSpec

WHOLE_LIBRARY = "Whole library"
SELECTED = "Selected documents"


class AskPanel(QWidget):
    ask_requested = Signal(str, str, bool)  # question, method, only the selected documents
    stop_requested = Signal()
    new_thread_requested = Signal()

    def __init__(self, methods: list[MethodSpec], default_method: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.question = QLineEdit()
        self.question.setPlaceholderText("Ask a question about your documents (Ctrl+L), Enter to ask")
        self.question.returnPressed.connect(self._ask)
        self.specs = {spec.name: spec for spec in methods}
        self.method = QComboBox()
        for i, spec in enumerate(methods):
            self.method.addItem(spec.name)
            self.method.setItemData(i, f"{spec.title}: {spec.description} ({spec.paper})", Qt.ItemDataRole.ToolTipRole)
        self.about = QLabel("")
        self.about.setObjectName("steps")
        self.about.setWordWrap(True)
        self.method.currentTextChanged.connect(self._describe)
        self.method.setCurrentText(default_method)
        self._describe(self.method.currentText())
        self.scope = QComboBox()
        self.scope.addItems([WHOLE_LIBRARY, SELECTED])
        self.ask_button = QPushButton("Ask")
        self.ask_button.setDefault(True)
        self.ask_button.clicked.connect(self._ask)
        self.stop_button = QPushButton("Stop")
        self.stop_button.setToolTip("Stop the running answer (Esc)")
        self.stop_button.clicked.connect(self.stop_requested)
        self.stop_button.setEnabled(False)
        self.follow_up = QCheckBox("Follow-up")
        self.follow_up.setToolTip("Ask with the questions and answers above as context (a new thread when unchecked)")
        self.follow_up.setEnabled(False)  # until there is an answer to follow up
        self.new_thread = QPushButton("New thread")
        self.new_thread.setToolTip("Start over: the next question is asked on its own")
        self.new_thread.clicked.connect(self.new_thread_requested)
        self.new_thread.setEnabled(False)
        self.steps = QLabel("")
        self.steps.setWordWrap(True)
        self.steps.setObjectName("steps")
        row = QHBoxLayout()
        row.addWidget(QLabel("Method"))
        row.addWidget(self.method)
        row.addWidget(QLabel("Scope"))
        row.addWidget(self.scope)
        row.addStretch(1)
        row.addWidget(self.follow_up)
        row.addWidget(self.new_thread)
        row.addWidget(self.ask_button)
        row.addWidget(self.stop_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.question)
        layout.addLayout(row)
        layout.addWidget(self.about)
        layout.addWidget(self.steps)

    def _ask(self) -> None:
        text = self.question.text().strip()
        if text and self.ask_button.isEnabled():
            self.ask_requested.emit(text, self.method.currentText(), self.scope.currentText() == SELECTED)

    def set_running(self, running: bool) -> None:
        self.ask_button.setEnabled(not running)
        self.stop_button.setEnabled(running)
        if running:
            self.steps.setText("Starting…")

    def set_thread(self, answers: int) -> None:
        """A thread with `answers` answers is shown: the next question follows it up unless unchecked."""
        self.follow_up.setEnabled(answers > 0)
        self.follow_up.setChecked(answers > 0)
        self.new_thread.setEnabled(answers > 0)
        self.follow_up.setText(f"Follow-up ({answers} before)" if answers else "Follow-up")

    def _describe(self, name: str) -> None:
        spec = self.specs.get(name)
        self.about.setText(f"{spec.title} — {spec.description} Cost: {spec.cost}." if spec else "")

    def show_step(self, progress: Progress) -> None:
        message = progress.phase
        self.steps.setText(message[:1].upper() + message[1:] + "…")
