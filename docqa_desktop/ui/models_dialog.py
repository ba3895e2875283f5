"""Models: what is installed and recommended, which model serves which role; pull (with progress and
cancel), import a GGUF, verify, remove. Every call runs as a task."""
from __future__ import annotations

from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QProgressBar,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
)

from ..service import Service
from .tasks import Task, TaskRunner

COLUMNS = ["Role", "Name", "State", "Variant", "Size", "Memory", "Licence"]


def size_text(mb: float) -> str:
    return f"{mb / 1024:.1f} GB" if mb >= 1024 else f"{mb:.0f} MB"


def model_table(columns: list[str]) -> QTableWidget:
    """A read-only table of models, one selectable row each."""
    table = QTableWidget(0, len(columns))
    table.setHorizontalHeaderLabels(columns)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    table.horizontalHeader().setStretchLastSection(True)
    return table


def start_pull(tasks: TaskRunner, service: Service, name: str, bar: QProgressBar, message: QLabel,
               on_done, on_failed, on_finished) -> Task:
    """Download a catalog model as a task (the manager resumes a cut download and checks it), its bytes shown on
    `bar` and `message`."""
    def run(progress, cancel):
        return service.models.pull(name, progress=lambda done, total: progress((done, total)), cancel=cancel)

    def show_progress(value) -> None:
        done, total = value
        bar.setRange(0, max(total, 1))
        bar.setValue(done)
        message.setText(f"Downloading {name}: {done / 2**20:,.0f} of {total / 2**20:,.0f} MB")

    return tasks.start("download", run, on_done, show_progress, on_failed, on_finished=on_finished)


class ModelsDialog(QDialog):
    def __init__(self, service: Service, tasks: TaskRunner, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Models")
        self.resize(860, 440)
        self.service = service
        self.tasks = tasks
        self.pull_task: Task | None = None
        self.roles = QLabel("")
        self.roles.setWordWrap(True)
        self.table = model_table(COLUMNS)
        self.message = QLabel("")
        self.message.setWordWrap(True)
        self.progress = QProgressBar()
        self.progress.setVisible(False)
        self.pull_button = QPushButton("Download")
        self.cancel_button = QPushButton("Cancel download")
        self.cancel_button.setVisible(False)
        self.import_button = QPushButton("Import GGUF…")
        self.verify_button = QPushButton("Verify")
        self.remove_button = QPushButton("Remove")
        self.pull_button.clicked.connect(self.pull)
        self.cancel_button.clicked.connect(self.cancel_pull)
        self.import_button.clicked.connect(self.import_gguf)
        self.verify_button.clicked.connect(self.verify)
        self.remove_button.clicked.connect(self.remove)
        buttons = QHBoxLayout()
        for b in (self.pull_button, self.cancel_button, self.import_button, self.verify_button, self.remove_button):
            buttons.addWidget(b)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addWidget(self.roles)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.progress)
        layout.addWidget(self.message)
        layout.addLayout(buttons)
        self.refresh()

    def refresh(self) -> None:
        def read(progress, cancel):
            hardware = self.service.models.hardware
            return self.service.models.statuses(), self.service.models.roles(), hardware.describe(), \
                hardware.recommendation()

        self.tasks.start("models", read, self._show, on_failed=self.message.setText)

    def _show(self, result) -> None:
        rows, roles, hardware, (recommended, variant, why) = result
        self.roles.setText(f"{hardware}\nRecommended here: {recommended} {variant} ({why}).\n"
                           f"Text tasks → {roles['text'] or 'none'};  page images → "
                           f"{roles['vision'] or 'no vision model installed (answers use page text and OCR)'}")
        self.table.setRowCount(len(rows))
        for i, r in enumerate(rows):
            cells = [r.role, r.name, r.state, r.variant, size_text(r.size_mb),
                     f"{r.memory_gb:.1f} GB" if r.memory_gb else "–", r.licence]
            for j, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(r.detail or r.path)
                self.table.setItem(i, j, item)

    def selected_name(self) -> str | None:
        row = self.table.currentRow()
        return self.table.item(row, 1).text() if row >= 0 and self.table.item(row, 1) else None

    def pull(self) -> None:
        name = self.selected_name()
        if not name:
            self.message.setText("Choose a model to download")
            return

        self._busy(True)
        self.pull_task = start_pull(self.tasks, self.service, name, self.progress, self.message,
                                    lambda m: self.message.setText(f"Installed {m.name}"), self.message.setText,
                                    lambda: (self._busy(False), self.refresh()))

    def cancel_pull(self) -> None:
        if self.pull_task is not None:
            self.pull_task.cancel.set()

    def _busy(self, busy: bool) -> None:
        self.progress.setVisible(busy)
        self.cancel_button.setVisible(busy)
        self.pull_button.setEnabled(not busy)

    def import_gguf(self) -> None:
        model, _ = QFileDialog.getOpenFileName(self, "Model file (GGUF)", "", "GGUF (*.gguf)")
        if not model:
            return
        projector, _ = QFileDialog.getOpenFileName(self, "Vision projector (mmproj GGUF) — cancel for a text model",
                                                   "", "GGUF (*.gguf)")
        self.tasks.start("import", lambda progress, cancel: self.service.models.import_file(model, projector or None),
                         lambda m: (self.message.setText(f"Imported {m.name}"), self.refresh()),
                         on_failed=self.message.setText)

    def verify(self) -> None:
        def show(results) -> None:
            self.message.setText("\n".join(f"{'✓' if r.ok else '✗'} {r.name}: {r.detail}" for r in results))

        self.tasks.start("verify", lambda progress, cancel: self.service.models.verify(self.selected_name()), show,
                         on_failed=self.message.setText)

    def remove(self) -> None:
        name = self.selected_name()
        if name:
            self.tasks.start("remove", lambda progress, cancel: self.service.models.remove(name),
                             lambda _: (self.message.setText(f"Removed {name}"), self.refresh()),
                             on_failed=self.message.setText)
