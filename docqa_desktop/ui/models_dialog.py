"""Models: what is installed and recommended, which model serves which role; pull (with progress and
cancel), import a GGUF (copied with progress and cancel, or linked), verify, remove. Every call runs as a task.
The pull and the import are shared with the first-run panel (start_pull, start_import)."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QProgressBar,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ..service import Recommendation, Service
from .components_panel import ComponentsPanel
from .import_dialog import ImportDialog
from .remedies import IMPORT_BUTTON
from .tasks import Task, TaskRunner

COLUMNS = ["Role", "Name", "State", "", "Variant", "Size", "Memory", "About per question", "Licence"]  # "": ★
NAME_COLUMN = 1


def size_text(mb: float) -> str:
    return f"{mb / 1024:.1f} GB" if mb >= 1024 else f"{mb:.0f} MB"


def per_question_text(row: Recommendation) -> str:
    """About how long a question takes here with the model and the default method, as the service says it
    (question_time): "~14 s, measured over 9 questions", "~25 s, estimated from size"; "–" for one that writes no
    answers (an embedder) or whose file is away."""
    return row.timing.short if row.timing is not None else "–"


def recommended_text(row: Recommendation) -> str:
    """The marker of the model recommended for this machine (service.models.recommendation; why: its tooltip)."""
    return "★ Recommended" if row.recommended else ""


def model_tooltip(row: Recommendation) -> str:
    """The catalog's notes on a model, its licence's conditions when it has some, and why it is recommended."""
    m = row.model
    lines = (m.location, m.detail or m.path, m.licence_note and f"Licence: {m.licence_note}",
             row.timing is not None and row.timing.basis, row.why and f"Recommended here: {row.why}")
    return "\n".join(line for line in lines if line)


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

    return tasks.start("download", run, on_done, _bytes_shown(bar, message, f"Downloading {name}"), on_failed,
                       on_finished=on_finished)


def start_import(parent: QWidget, tasks: TaskRunner, service: Service, bar: QProgressBar, message: QLabel,
                 on_done, on_failed, on_finished=None) -> Task | None:
    """Install a GGUF already on this machine (brought on a USB stick, say) as a task: the file, whether it is a
    vision model (then its projector) and whether it is copied or linked chosen in one dialog (ImportDialog); the
    copy's bytes shown on `bar` and `message`, stopped by the task's cancel. None when the choice is cancelled."""
    choice = ImportDialog.ask(parent, service, tasks)
    if choice is None:
        return None
    name = Path(choice.model).name
    doing = f"Reading {name} (linked: it stays where it is)" if choice.link else f"Copying {name}"
    message.setText(f"{doing}…")

    def run(progress, cancel):
        return service.models.import_file(choice.model, choice.projector or None, link=choice.link,
                                          progress=lambda done, total: progress((done, total)), cancel=cancel)

    return tasks.start("import", run, on_done, _bytes_shown(bar, message, doing), on_failed,
                       on_finished=on_finished)


def _bytes_shown(bar: QProgressBar, message: QLabel, doing: str):
    """A task's (bytes done, total) on `bar`, in MB (a bar counts in 32 bits: a 5 GB file's bytes overflow it),
    and as "Copying x.gguf: 300 of 1,066 MB" in `message`."""
    def show(value) -> None:
        done, total = value
        bar.setRange(0, max(total >> 20, 1))
        bar.setValue(done >> 20)
        message.setText(f"{doing}: {done / 2**20:,.0f} of {total / 2**20:,.0f} MB")

    return show


class ModelsDialog(QDialog):
    def __init__(self, service: Service, tasks: TaskRunner, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Models")
        self.resize(1180, 660)  # every column in view on a 1366-pixel screen; the components below the models
        self.service = service
        self.tasks = tasks
        self.running_task: Task | None = None  # the download or import the Cancel button stops
        self.roles = QLabel("")
        self.roles.setWordWrap(True)
        self.table = model_table(COLUMNS)
        self.message = QLabel("")
        self.message.setWordWrap(True)
        self.progress = QProgressBar()
        self.progress.setVisible(False)
        self.pull_button = QPushButton("Download")
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setToolTip("Stop the download (what was downloaded is kept) or the import (nothing of it "
                                      "is kept)")
        self.cancel_button.setVisible(False)
        self.import_button = QPushButton(IMPORT_BUTTON)
        self.import_button.setToolTip("Install a GGUF model file already on this machine (copied into the model "
                                      "folder, or linked where it lies), and its vision projector")
        self.verify_button = QPushButton("Verify")
        self.remove_button = QPushButton("Remove")
        self.pull_button.clicked.connect(self.pull)
        self.cancel_button.clicked.connect(self.cancel_task)
        self.import_button.clicked.connect(self.import_gguf)
        self.verify_button.clicked.connect(self.verify)
        self.remove_button.clicked.connect(self.remove)
        self.close_buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.close_buttons.rejected.connect(self.reject)  # a download keeps running in the background
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
        self.components = ComponentsPanel(service, tasks, model_table)
        layout.addWidget(self.components)
        layout.addWidget(self.close_buttons)
        self.refresh()

    def refresh(self) -> None:
        def read(progress, cancel):
            models = self.service.models
            return models.overview(), models.roles(), models.hardware.describe(), models.recommendation()

        self.tasks.start("models", read, self._show, on_failed=self.message.setText)

    def _show(self, result) -> None:
        rows, roles, hardware, choice = result
        chosen = self.selected_name()
        self.roles.setText(f"{hardware}\nRecommended here: {choice.name} {choice.variant} ({choice.why}).\n"
                           f"Text tasks → {roles['text'] or 'none'};  page images → "
                           f"{roles['vision'] or 'no vision model installed (answers use page text and OCR)'}")
        self.table.setRowCount(len(rows))
        for i, row in enumerate(rows):
            m = row.model
            cells = [m.role, m.name, m.state_text, recommended_text(row), m.variant, size_text(m.size_mb),
                     f"{m.memory_gb:.1f} GB" if m.memory_gb else "–", per_question_text(row), m.licence_text]
            for j, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(model_tooltip(row))
                self.table.setItem(i, j, item)
        # the selection survives a refresh; the first time, the recommended model is the one Download fetches
        names = [row.model.name for row in rows]
        self.table.selectRow(names.index(chosen) if chosen in names else
                             next((i for i, row in enumerate(rows) if row.recommended), 0))

    def selected_name(self) -> str | None:
        row = self.table.currentRow()
        item = self.table.item(row, NAME_COLUMN) if row >= 0 else None
        return item.text() if item else None

    def pull(self) -> None:
        name = self.selected_name()
        if not name:
            self.message.setText("Choose a model to download")
            return

        self._busy(True)
        self.running_task = start_pull(self.tasks, self.service, name, self.progress, self.message,
                                       lambda m: self.message.setText(f"Installed {m.name}"), self.message.setText,
                                       lambda: (self._busy(False), self.refresh()))

    def cancel_task(self) -> None:
        if self.running_task is not None:
            self.running_task.cancel.set()

    def _busy(self, busy: bool) -> None:
        self.progress.setVisible(busy)
        self.cancel_button.setVisible(busy)
        self.pull_button.setEnabled(not busy)
        self.import_button.setEnabled(not busy)

    def import_gguf(self) -> None:
        task = start_import(self, self.tasks, self.service, self.progress, self.message, self._imported,
                            self.message.setText, lambda: (self._busy(False), self.refresh()))
        if task is not None:
            self.running_task = task
            self._busy(True)

    def _imported(self, model) -> None:
        self.message.setText(f"Imported {model.name} ({model.where_kept})")

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
