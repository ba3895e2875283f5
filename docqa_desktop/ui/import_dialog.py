"""Importing a model file, in one dialog: the GGUF chosen, what its header says (name, parameters, size, licence), a
plain choice between a text model and a vision model (then its projector file), and whether the file is copied into
the app's model folder (the default: the model stays when the drive it came from goes) or kept where it lies. The
header is read off the GUI thread (a USB stick can be slow)."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from ..service import Service
from .remedies import KEEP_WHERE_IT_IS
from .tasks import TaskRunner

TEXT_MODEL = "This is a text model"
VISION_MODEL = "This is a vision model: choose its projector file (mmproj…)"
GGUF_FILTER = "GGUF (*.gguf)"


@dataclass(frozen=True)
class ImportChoice:
    model: str
    projector: str  # "" for a text model
    link: bool  # keep the file where it lies instead of copying it


class ImportDialog(QDialog):
    def __init__(self, service: Service, tasks: TaskRunner, model: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Import a model file")
        self.resize(720, 0)
        self.service, self.tasks = service, tasks
        self.model = QLineEdit(model)
        self.model.setReadOnly(True)
        self.about = QLabel("Reading the file…")
        self.about.setWordWrap(True)
        self.text_choice = QRadioButton(TEXT_MODEL)
        self.vision_choice = QRadioButton(VISION_MODEL)
        self.kind = QButtonGroup(self)
        for button in (self.text_choice, self.vision_choice):
            self.kind.addButton(button)
        self.text_choice.setChecked(True)
        self.projector = QLineEdit()
        self.projector.setPlaceholderText("the projector file (mmproj….gguf) that came with the model")
        self.projector_button = QPushButton("Choose…")
        self.projector_button.clicked.connect(self.choose_projector)
        self.link = QCheckBox(KEEP_WHERE_IT_IS)
        self.link.setToolTip("Unticked, the file is copied into the app's model folder and stays when the drive it "
                             "came from goes. Ticked, the model is missing while the file is away.")
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.import_button = self.buttons.addButton("Import", QDialogButtonBox.ButtonRole.AcceptRole)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        for signal in (self.kind.buttonToggled, self.projector.textChanged):
            signal.connect(self._update)

        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("Model file (GGUF):"))
        layout.addWidget(self.model)
        layout.addWidget(self.about)
        layout.addWidget(self.text_choice)
        layout.addWidget(self.vision_choice)
        projector_row = QHBoxLayout()
        projector_row.setContentsMargins(24, 0, 0, 0)  # under its choice
        projector_row.addWidget(self.projector, 1)
        projector_row.addWidget(self.projector_button)
        layout.addLayout(projector_row)
        layout.addWidget(self.link)
        layout.addWidget(self.buttons)
        self.readable = False  # the model file's header was read and it is a language model
        self._update()
        self.tasks.start("read model file", lambda progress, cancel: service.models.read_file(model), self._read,
                         on_failed=self._unreadable)

    @classmethod
    def ask(cls, parent: QWidget, service: Service, tasks: TaskRunner) -> ImportChoice | None:
        """The model file, then this dialog; None when either is cancelled."""
        model, _ = QFileDialog.getOpenFileName(parent, "Model file (GGUF)", "", GGUF_FILTER)
        if not model:
            return None
        dialog = cls(service, tasks, model, parent)
        return dialog.choice() if dialog.exec() == QDialog.DialogCode.Accepted else None

    def choice(self) -> ImportChoice:
        vision = self.vision_choice.isChecked()
        return ImportChoice(self.model.text(), self.projector.text().strip() if vision else "", self.link.isChecked())

    def choose_projector(self) -> None:
        folder = str(Path(self.model.text()).parent)
        projector, _ = QFileDialog.getOpenFileName(self, "Vision projector (mmproj GGUF)", folder, GGUF_FILTER)
        if projector:
            self.projector.setText(projector)
            self.vision_choice.setChecked(True)

    def _read(self, file) -> None:
        if file.is_projector:
            self.about.setText(f"{file.path.name} is a vision projector, not a model: choose the language model "
                               "file and give this one as its projector.")
            return
        self.readable = True
        self.about.setText(file.summary)
        if file.projector_beside is not None and not self.projector.text():
            self.projector.setText(str(file.projector_beside))  # the one beside it: offered, the choice still plain
        self._update()

    def _unreadable(self, message: str) -> None:
        self.about.setText(message)

    def _update(self, *_) -> None:
        vision = self.vision_choice.isChecked()
        self.projector.setEnabled(vision)
        self.projector_button.setEnabled(vision)
        self.import_button.setEnabled(self.readable and (not vision or bool(self.projector.text().strip())))
