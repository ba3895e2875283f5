"""Help → About DocQA Desktop: the version, the AGPL notice and where the licence and the source are, the
third-party components with their versions and licences, and the models this copy has with their licences.

The components are read from the installed packages' metadata when the dialog opens (tens of milliseconds); the
models come from the model manager as a task, off the GUI thread."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QTableWidgetItem, QVBoxLayout

from .. import third_party
from ..service import Service
from .models_dialog import model_table
from .tasks import TaskRunner

COMPONENT_COLUMNS = ["Component", "Version", "Licence"]
MODEL_COLUMNS = ["Model", "Variant and state", "Licence"]


def fill(table, rows: list[third_party.ComponentRow]) -> None:
    """One row per component or model; the note (where the metadata is silent, a licence's conditions) as the
    tooltip."""
    table.verticalHeader().setVisible(False)  # a list, not numbered
    table.setRowCount(len(rows))
    for i, row in enumerate(rows):
        for j, text in enumerate((row.name, row.version, row.licence)):
            item = QTableWidgetItem(text)
            item.setToolTip(row.note)
            table.setItem(i, j, item)


class AboutDialog(QDialog):
    def __init__(self, service: Service, tasks: TaskRunner, parent=None):
        super().__init__(parent)
        self.setWindowTitle(f"About {third_party.PRODUCT}")
        self.resize(1000, 640)
        self.title = QLabel(f"<h2>{third_party.PRODUCT} {third_party.product_version()}</h2>"
                       f"Licence: GNU Affero General Public License, version 3 or later "
                       f"({third_party.PRODUCT_LICENCE})")
        self.notice = QLabel(third_party.NOTICE)
        self.notice.setWordWrap(True)
        self.source = QLabel("\n".join(third_party.source_lines()))
        self.source.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)  # paths to copy
        self.components = model_table(COMPONENT_COLUMNS)
        fill(self.components, third_party.component_rows())
        self.models = model_table(MODEL_COLUMNS)
        self.models_message = QLabel("Reading the installed models…")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        for widget in (self.title, self.notice, self.source, QLabel("<b>Third-party components</b> (optional ones are "
                                                          "installed later, when asked for)")):
            layout.addWidget(widget)
        layout.addWidget(self.components, 3)
        layout.addWidget(QLabel("<b>Models</b>"))
        layout.addWidget(self.models, 1)
        layout.addWidget(self.models_message)
        layout.addWidget(buttons)
        tasks.start("about models", lambda progress, cancel: third_party.model_rows(service.models.statuses()),
                    self._show_models, on_failed=self.models_message.setText)

    def _show_models(self, rows: list[third_party.ComponentRow]) -> None:
        fill(self.models, rows)
        self.models_message.setText("" if rows else "No models installed")
        self.models_message.setVisible(not rows)
