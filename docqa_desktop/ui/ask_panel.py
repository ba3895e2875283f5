"""The question box: method, scope, Ask / Stop, follow-up or new thread (the running method's steps show under
the question in the answer view)."""
from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QStyledItemDelegate,
    QVBoxLayout,
    QWidget,
)

from ..service import MethodSpec

WHOLE_LIBRARY = "Whole library"
SELECTED = "Selected documents"
SHORTFALL_ROLE = Qt.ItemDataRole.UserRole + 1  # a method's item: why the installed model is too small for it


class MethodItems(QStyledItemDelegate):
    """The method list shows after a method's name what size of model it needs, when the installed one is
    smaller (the item's text stays the method's name: it is what is asked with)."""

    def initStyleOption(self, option, index) -> None:
        super().initStyleOption(option, index)
        needs = index.data(SHORTFALL_ROLE)
        if needs:
            option.text = f"{option.text} — {needs}"


class AskPanel(QWidget):
    ask_requested = Signal(str, str, bool)  # question, method, only the selected documents
    stop_requested = Signal()
    new_thread_requested = Signal()

    def __init__(self, methods: list[MethodSpec], default_method: str, parent: QWidget | None = None,
                 shortfalls: dict[str, str] | None = None):
        super().__init__(parent)
        self.question = QLineEdit()
        self.question.setPlaceholderText("Ask about your documents (Ctrl+L), Enter to ask")
        self.question.returnPressed.connect(self._ask)
        self.specs = {spec.name: spec for spec in methods}
        self.shortfalls: dict[str, str] = {}
        self.timings: dict[str, str] = {}  # by method: about how long a question takes here (set_timings)
        self.method = QComboBox()
        self.method.setItemDelegate(MethodItems(self.method))
        for spec in methods:
            self.method.addItem(spec.name)
        self.about = QLabel("")
        self.about.setObjectName("steps")
        self.about.setWordWrap(True)
        self.method.currentTextChanged.connect(self._describe)
        self.method.setCurrentText(default_method)
        self.set_shortfalls(shortfalls or {})
        self.scope = QComboBox()
        self.scope.addItems([WHOLE_LIBRARY, SELECTED])
        self.scope.setToolTip("Ask over the whole library or only the documents selected in it")
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
        # two short rows, not one long one: the panel fits a laptop screen beside the library and the page
        asking = QHBoxLayout()
        asking.addWidget(self.question, 1)
        asking.addWidget(self.ask_button)
        asking.addWidget(self.stop_button)
        options = QHBoxLayout()
        options.addWidget(QLabel("Method"))
        options.addWidget(self.method)
        options.addWidget(self.scope)
        options.addStretch(1)
        options.addWidget(self.follow_up)
        options.addWidget(self.new_thread)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(asking)
        layout.addLayout(options)
        layout.addWidget(self.about)

    def _ask(self) -> None:
        text = self.question.text().strip()
        if text and self.ask_button.isEnabled():
            self.ask_requested.emit(text, self.method.currentText(), self.scope.currentText() == SELECTED)

    def set_running(self, running: bool) -> None:
        self.ask_button.setEnabled(not running)
        self.stop_button.setEnabled(running)

    def set_thread(self, answers: int) -> None:
        """A thread with `answers` answers is shown: the next question follows it up unless unchecked."""
        self.follow_up.setEnabled(answers > 0)
        self.follow_up.setChecked(answers > 0)
        self.new_thread.setEnabled(answers > 0)
        self.follow_up.setText(f"Follow-up ({answers} before)" if answers else "Follow-up")

    def set_shortfalls(self, shortfalls: dict[str, str]) -> None:
        """Why the installed language model is too small for some methods (service.models.shortfalls): shown
        beside them in the list, in their tooltips and under the picker. They stay selectable; their answers
        come labelled unverified."""
        self.shortfalls = {name: text for name, text in shortfalls.items() if text}
        for i in range(self.method.count()):
            spec = self.specs[self.method.itemText(i)]
            shortfall = self.shortfalls.get(spec.name, "")
            tip = f"{spec.title}: {spec.description} ({spec.paper})"
            self.method.setItemData(i, f"{tip}\n\n{spec.title} {shortfall}." if shortfall else tip,
                                    Qt.ItemDataRole.ToolTipRole)
            self.method.setItemData(i, f"needs a ≥{spec.min_model_params:g}B model" if shortfall else None,
                                    SHORTFALL_ROLE)
        view = self.method.view()
        view.setMinimumWidth(view.sizeHintForColumn(0) + 24)  # the popup as wide as its longest line
        self._describe(self.method.currentText())

    def set_timings(self, timings: dict[str, str]) -> None:
        """About how long a question takes here with each method and the current model (service.models.
        per_question's texts: measured over this machine's answers, else the estimate), shown under the picker."""
        self.timings = {name: text for name, text in timings.items() if text}
        self._describe(self.method.currentText())

    def _describe(self, name: str) -> None:
        spec = self.specs.get(name)
        about = f"{spec.title} — {spec.description} Cost: {spec.cost}." if spec else ""
        if spec and self.timings.get(name):
            about += f" Here: {self.timings[name]}."
        if spec and self.shortfalls.get(name):
            about += f" ⚠ {spec.title} {self.shortfalls[name]}; its answers are labelled unverified."
        self.about.setText(about)
