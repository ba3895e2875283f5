"""The reasoning trace under an answer: one row a model call (or a note of the method), its step, model, pages,
tokens and seconds, and below the rows the chosen call's output whole, wrapped at the panel's full width. In a
sixth column beside five others the output had ~20 characters of a 560-pixel panel: unreadable. The split between
the rows and the output is the reader's to drag, and kept between runs with the window's panels (window_state.py)."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPlainTextEdit, QSplitter, QTreeWidget, QTreeWidgetItem, QWidget

from ..answers import Answer
from .elided import plain_tooltip

COLUMNS = ("Step", "Model", "Pages", "Tokens in/out", "Seconds", "Output")
COLUMN_WIDTHS = (110, 110, 110, 90, 60)  # at most: the rest of the row is the output's first words
OUTPUT_SHARE = 2 / 3  # of the panel's height, the output's at first: it is what is read
ROLE_TEXT = Qt.ItemDataRole.UserRole  # a row's output (or note) whole


class TracePanel(QSplitter):
    def __init__(self, parent: QWidget | None = None):
        super().__init__(Qt.Orientation.Vertical, parent)
        self.setObjectName("tracePanel")  # its sizes are saved by this name
        self.tree = QTreeWidget()
        self.tree.setHeaderLabels(list(COLUMNS))
        self.tree.setRootIsDecorated(False)
        self.tree.setUniformRowHeights(True)
        self.tree.currentItemChanged.connect(self._show_output)
        self.output = QPlainTextEdit()  # plain text: model output is shown as written, never as markup
        self.output.setReadOnly(True)
        self.output.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.output.setPlaceholderText("Choose a step above to read what the model wrote.")
        self.addWidget(self.tree)
        self.addWidget(self.output)
        self.setChildrenCollapsible(False)
        self.setStretchFactor(0, 1)
        self.setStretchFactor(1, 2)
        self.setSizes([int(1000 * (1 - OUTPUT_SHARE)), int(1000 * OUTPUT_SHARE)])

    def show_trace(self, answer: Answer) -> None:
        """The answer's notes and calls; the last call chosen, its output shown (the answer as the model wrote it)."""
        self.tree.clear()
        self.output.clear()
        rows = [["note", "", "", "", "", note] for note in answer.notes]
        rows += [[call.step, call.model, ", ".join(call.pages), f"{call.prompt_tokens}/{call.output_tokens}",
                  f"{call.seconds:.1f}", call.output] for call in answer.calls]
        for row in rows:
            item = QTreeWidgetItem(self.tree, [" ".join(cell.split())[:200] for cell in row])
            item.setData(0, ROLE_TEXT, row[-1])
            for column, cell in enumerate(row):
                item.setToolTip(column, plain_tooltip(cell[:2000]))  # the whole text on hover
        for column, widest in enumerate(COLUMN_WIDTHS):
            self.tree.resizeColumnToContents(column)
            self.tree.setColumnWidth(column, min(self.tree.columnWidth(column), widest))
        if rows:
            self.tree.setCurrentItem(self.tree.topLevelItem(len(rows) - 1))

    def clear(self) -> None:
        self.tree.clear()
        self.output.clear()

    def _show_output(self, item: QTreeWidgetItem | None) -> None:
        self.output.setPlainText(item.data(0, ROLE_TEXT) if item is not None else "")
