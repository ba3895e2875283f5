"""The optional components in the Models dialog: each with what it adds, installed or not and its size before
installing; Install / Remove run as tasks (the GUI thread never waits on pip), with a progress bar and Cancel."""
from __future__ import annotations

from PySide6.QtWidgets import QGroupBox, QHeaderView, QHBoxLayout, QLabel, QProgressBar, QPushButton, QTableWidgetItem, QVBoxLayout

from ..service import Service
from .tasks import Task, TaskRunner

COLUMNS = ["Component", "Adds", "State", "Size"]


def size_text(download_mb: float, disk_mb: float) -> str:
    return f"~{download_mb:,.0f} MB ({disk_mb:,.0f} MB on disk)"


class ComponentsPanel(QGroupBox):
    def __init__(self, service: Service, tasks: TaskRunner, table_factory, parent=None):
        super().__init__("Optional components", parent)
        self.service, self.tasks = service, tasks
        self.task: Task | None = None
        self.table = table_factory(COLUMNS)
        self.table.setMaximumHeight(130)
        self.table.horizontalHeader().setStretchLastSection(False)
        self.table.horizontalHeader().setSectionResizeMode(COLUMNS.index("Adds"), QHeaderView.ResizeMode.Stretch)
        self.progress = QProgressBar()
        self.progress.setVisible(False)
        self.message = QLabel("The app answers without these; each installs into the app's own folder when asked.")
        self.message.setWordWrap(True)
        self.install_button = QPushButton("Install")
        self.cancel_button = QPushButton("Cancel install")
        self.cancel_button.setVisible(False)
        self.remove_button = QPushButton("Remove")
        self.install_button.clicked.connect(self.install)
        self.cancel_button.clicked.connect(self.cancel)
        self.remove_button.clicked.connect(self.remove)
        self.table.itemSelectionChanged.connect(self._describe_selected)
        buttons = QHBoxLayout()
        for b in (self.install_button, self.cancel_button, self.remove_button):
            buttons.addWidget(b)
        buttons.addWidget(self.message, 1)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table)
        layout.addWidget(self.progress)
        layout.addLayout(buttons)
        self.states = []
        self.refresh()

    def refresh(self) -> None:
        self.tasks.start("components", lambda progress, cancel: self.service.components.states(), self._show,
                         on_failed=self.message.setText)

    def _show(self, states) -> None:
        chosen = self.selected()
        self.states = states
        self.table.setRowCount(len(states))
        for i, s in enumerate(states):
            state = f"Installed ({s.where.removeprefix('in ')})" if s.installed else "Not installed"
            needs = f" + {', '.join(s.needs)}" if s.needs else ""
            for j, text in enumerate((s.title, s.adds, state, size_text(s.download_mb, s.disk_mb) + needs)):
                item = QTableWidgetItem(text)
                item.setToolTip(f"{s.name}: {s.adds}")
                self.table.setItem(i, j, item)
        names = [s.name for s in states]
        self.table.selectRow(names.index(chosen.name) if chosen and chosen.name in names else 0)

    def selected(self):
        row = self.table.currentRow()
        return self.states[row] if 0 <= row < len(self.states) else None

    def _describe_selected(self) -> None:
        s = self.selected()
        if s is None or self.task is not None:
            return
        if s.installed:
            self.message.setText(f"{s.title} is installed {s.where}.")
            return
        plan = [x for x in self.states if x.name in s.needs and not x.installed] + [s]
        download, disk = sum(x.download_mb for x in plan), sum(x.disk_mb for x in plan)
        also = f" (with {', '.join(x.name for x in plan[:-1])})" if len(plan) > 1 else ""
        self.message.setText(f"Install {s.title}{also}: about {download:,.0f} MB to download, {disk:,.0f} MB on "
                             "disk" + (" (several GB more for torch's CUDA build on an NVIDIA GPU)"
                                       if s.name == "visual" else "") + ".")

    def install(self) -> None:
        s = self.selected()
        if s is None or s.installed:
            return
        self._busy(True)

        def show(p) -> None:
            if p.bytes_total:
                self.progress.setRange(0, p.bytes_total)
                self.progress.setValue(p.bytes_done)
            else:
                self.progress.setRange(0, max(p.packages_total, 1))
                self.progress.setValue(min(p.packages_done, p.packages_total))
            self.message.setText(p.text())

        self.task = self.tasks.start(
            f"install {s.name}", lambda progress, cancel: self.service.components.install(s.name, progress, cancel),
            lambda made: self.message.setText(f"Installed {s.title}: ready now"), show, self.message.setText,
            on_finished=self._finished)

    def cancel(self) -> None:
        if self.task is not None:
            self.task.cancel.set()
            self.message.setText("Cancelling: nothing will be left half-installed…")

    def remove(self) -> None:
        s = self.selected()
        if s is None:
            return
        self.tasks.start(f"remove {s.name}", lambda progress, cancel: self.service.components.remove(s.name),
                         lambda path: (self.message.setText(f"Removed {s.title} (gone once the app restarts)"),
                                       self.refresh()), on_failed=self.message.setText)

    def _finished(self) -> None:
        self.task = None
        self._busy(False)
        self.refresh()

    def _busy(self, busy: bool) -> None:
        self.progress.setVisible(busy)
        self.progress.setRange(0, 0)
        self.cancel_button.setVisible(busy)
        self.install_button.setEnabled(not busy)
        self.remove_button.setEnabled(not busy)
