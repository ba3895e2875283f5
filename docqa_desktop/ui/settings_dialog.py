"""Settings: where data lives, GPU or CPU, threads, and the asking defaults. Saved to settings.toml."""
from __future__ import annotations

import dataclasses

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QSpinBox,
    QVBoxLayout,
)

from ..settings import Settings

DEVICES = {"GPU when available": -1, "CPU only": 0}


class SettingsDialog(QDialog):
    def __init__(self, settings: Settings, methods: list[str], parent=None):
        super().__init__(parent)
        self.setWindowTitle("Settings")
        self.settings = settings
        location = QLabel(str(settings.locations.database.parent.parent))
        location.setToolTip("Start DocQA with --home DIR (or set DOCQA_HOME) to keep everything elsewhere")
        self.device = QComboBox()
        self.device.addItems(list(DEVICES))
        self.device.setCurrentIndex(0 if settings.llm.gpu_layers != 0 else 1)
        self.threads = QSpinBox()
        self.threads.setRange(0, 256)
        self.threads.setSpecialValueText("automatic (cores − 1)")
        self.threads.setValue(settings.llm.threads)
        self.method = QComboBox()
        self.method.addItems(methods)
        self.method.setCurrentText(settings.ask.method)
        self.k = QSpinBox()
        self.k.setRange(1, 50)
        self.k.setValue(settings.ask.k)
        self.k.setToolTip("Pages the first retrieval step hands to the method (SimpleDoc: 10, or 30)")
        self.iterations = QSpinBox()
        self.iterations.setRange(1, 10)
        self.iterations.setValue(settings.ask.iterations)
        self.iterations.setToolTip("SimpleDoc's reasoning rounds before it says the documents do not answer")
        form = QFormLayout()
        form.addRow("Data location", location)
        form.addRow("Device", self.device)
        form.addRow("Threads", self.threads)
        form.addRow("Default method", self.method)
        form.addRow("Pages retrieved (k)", self.k)
        form.addRow("Reasoning rounds", self.iterations)
        note = QLabel("Device and threads apply when a model is next loaded.")
        note.setObjectName("steps")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(note)
        layout.addWidget(buttons)

    def chosen(self) -> Settings:
        s = self.settings
        llm = dataclasses.replace(s.llm, gpu_layers=DEVICES[self.device.currentText()], threads=self.threads.value())
        ask = dataclasses.replace(s.ask, method=self.method.currentText(), k=self.k.value(),
                                  iterations=self.iterations.value())
        return dataclasses.replace(s, llm=llm, ask=ask)
