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
SEARCH_MODES = {"Automatic (text + page images once embedded)": "auto", "Text": "text",
                "Page images": "visual", "Text and page images": "hybrid"}
VISUAL_INDEXING = {"With a GPU only": "auto", "Always (slow on a CPU)": "on", "Never": "off"}
VISUAL_TOKENS = (256, 512, 768, 1024)


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
        self.search_mode = _choice(SEARCH_MODES, settings.search.mode)
        self.search_mode.setToolTip("How pages are found for a question")
        self.visual = _choice(VISUAL_INDEXING, settings.index.visual)
        self.visual.setToolTip("Embed page images (ColQwen2.5) when indexing; needs a page embedder in Models")
        self.visual_tokens = QComboBox()
        self.visual_tokens.addItems([str(t) for t in VISUAL_TOKENS])
        self.visual_tokens.setCurrentText(str(settings.index.visual_tokens))
        self.visual_tokens.setToolTip("Detail of each page image: fewer tokens embed faster (on a CPU about "
                                      "22 s per page at 256, 66 s at 768)")
        form = QFormLayout()
        form.addRow("Data location", location)
        form.addRow("Device", self.device)
        form.addRow("Threads", self.threads)
        form.addRow("Default method", self.method)
        form.addRow("Pages retrieved (k)", self.k)
        form.addRow("Reasoning rounds", self.iterations)
        form.addRow("Find pages by", self.search_mode)
        form.addRow("Embed page images", self.visual)
        form.addRow("Page-image detail (tokens)", self.visual_tokens)
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
        search = dataclasses.replace(s.search, mode=SEARCH_MODES[self.search_mode.currentText()])
        index = dataclasses.replace(s.index, visual=VISUAL_INDEXING[self.visual.currentText()],
                                    visual_tokens=int(self.visual_tokens.currentText()))
        return dataclasses.replace(s, llm=llm, ask=ask, search=search, index=index)


def _choice(options: dict[str, str], current: str) -> QComboBox:
    box = QComboBox()
    box.addItems(list(options))
    box.setCurrentIndex(max(0, list(options.values()).index(current) if current in options.values() else 0))
    return box
