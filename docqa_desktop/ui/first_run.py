"""The first-run panel: what this machine has, the language models it can run (size, licence, about how long a
question takes), one-click download with progress and cancel (resumed and checksum-verified by the model
manager), a model file already on this machine imported (the offline way: a GGUF brought on a USB stick), or skip
and keep quoted answers. Shown once, while only the built-in models are installed."""
from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QDialog, QHBoxLayout, QLabel, QProgressBar, QPushButton, QTableWidgetItem, QVBoxLayout

from ..service import Recommendation, Service
from .models_dialog import (model_table, model_tooltip, per_question_text, recommended_text, size_text,
                            start_import, start_pull)
from .remedies import IMPORT_BUTTON
from .tasks import Task, TaskRunner

COLUMNS = ["Model", "", "Download", "Memory", "About per question", "Licence"]
INTRO = ("DocQA Desktop answers from your PDFs on this machine; nothing leaves it. Right now it quotes the sentence "
         "that answers a question, with its page. A language model writes answers that combine pages and read "
         "tables, charts and scans — download one now, import a model file you have (a GGUF), or do either later "
         "from Tools → Models.")


class FirstRunPanel(QDialog):
    installed = Signal(str)  # the model now answering

    def __init__(self, service: Service, tasks: TaskRunner, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Welcome to DocQA Desktop")
        self.resize(1000, 460)
        self.service, self.tasks = service, tasks
        self.rows: list[Recommendation] = []
        self.running_task: Task | None = None  # the download or import Cancel stops
        intro = QLabel(INTRO)
        intro.setWordWrap(True)
        self.hardware = QLabel("Looking at this machine…")
        self.hardware.setWordWrap(True)
        self.table = model_table(COLUMNS)
        self.progress = QProgressBar()
        self.progress.setVisible(False)
        self.message = QLabel("")
        self.message.setWordWrap(True)
        self.download_button = QPushButton("Download")
        self.download_button.setDefault(True)
        self.download_button.clicked.connect(self.download)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setToolTip("A download cancelled is kept: Download again resumes; an import cancelled "
                                      "keeps nothing")
        self.cancel_button.setVisible(False)
        self.cancel_button.clicked.connect(self.cancel_task)
        self.import_button = QPushButton(IMPORT_BUTTON)
        self.import_button.setToolTip("Install a GGUF model file already on this machine (downloaded elsewhere, "
                                      "brought on a USB stick: copied, so it stays), and its vision projector")
        self.import_button.clicked.connect(self.import_file)
        self.skip_button = QPushButton("Skip: use quoted answers")
        self.skip_button.clicked.connect(self.skip)
        buttons = QHBoxLayout()
        for button in (self.download_button, self.cancel_button, self.import_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        buttons.addWidget(self.skip_button)
        layout = QVBoxLayout(self)
        for widget in (intro, self.hardware):
            layout.addWidget(widget)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.progress)
        layout.addWidget(self.message)
        layout.addLayout(buttons)
        self.finished.connect(lambda _: self.service.models.finish_first_run())  # shown once, however it is closed
        self.tasks.start("recommended models", self._read, self._show, on_failed=self.message.setText)

    def _read(self, progress, cancel):
        models = self.service.models
        return models.hardware.describe(), models.recommendation(), models.recommended()

    def _show(self, result) -> None:
        hardware, choice, self.rows = result
        self.hardware.setText(f"{hardware}\nRecommended here: {choice.name} {choice.variant} ({choice.why}).")
        self.table.setRowCount(len(self.rows))
        for i, row in enumerate(self.rows):
            m = row.model
            state = "" if m.state == "not installed" else m.state_text
            cells = [f"{m.name} ({m.variant})", recommended_text(row) or state,
                     size_text(m.size_mb), f"{m.memory_gb:.1f} GB" if m.memory_gb else "–", per_question_text(row),
                     m.licence_text]
            for j, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(model_tooltip(row))
                self.table.setItem(i, j, item)
        if self.rows:
            self.table.selectRow(0)

    def selected(self) -> Recommendation | None:
        row = self.table.currentRow()
        return self.rows[row] if 0 <= row < len(self.rows) else None

    def download(self) -> None:
        chosen = self.selected()
        if chosen is None:
            self.message.setText("Choose a model to download")
            return
        self._busy(True)
        self.running_task = start_pull(self.tasks, self.service, chosen.model.name, self.progress, self.message,
                                       self._installed, self._failed, lambda: self._busy(False))

    def import_file(self) -> None:
        """The Models dialog's import: a GGUF file, said in one dialog to be a text or a vision model (then its
        projector), copied with progress and Cancel, or linked."""
        task = start_import(self, self.tasks, self.service, self.progress, self.message, self._installed,
                            self.message.setText, lambda: self._busy(False))
        if task is not None:
            self.running_task = task
            self._busy(True)

    def _installed(self, model) -> None:
        """Which model serves now is read off the GUI thread (it reads the models' file headers, a linked one's
        maybe from a USB stick)."""
        self.tasks.start("roles", lambda progress, cancel: self.service.models.roles()["text"],
                         lambda serving: self._serving(model, serving), on_failed=self.message.setText)

    def _serving(self, model, serving: str) -> None:
        self.message.setText(f"Installed {model.name}: {serving} answers your questions from now on.")
        self.skip_button.setText("Close")
        self.installed.emit(serving or model.name)

    def _failed(self, message: str) -> None:
        # offline, the message already sends the user to the import; any other failure may resume
        advice = "" if IMPORT_BUTTON in message else "\nDownload again to resume, or skip and use quoted answers."
        self.message.setText(message + advice)

    def cancel_task(self) -> None:
        if self.running_task is not None and not self.running_task.ended.is_set():
            self.running_task.cancel.set()
            self.message.setText("Cancelling… a download keeps what it has (Download again resumes); an import "
                                 "keeps nothing.")

    def _busy(self, busy: bool) -> None:
        self.progress.setVisible(busy)
        self.cancel_button.setVisible(busy)
        self.download_button.setEnabled(not busy)
        self.import_button.setEnabled(not busy)

    def skip(self) -> None:
        self.cancel_task()
        self.accept()
