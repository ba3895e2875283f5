"""Settings: where data lives, GPU or CPU, threads, the default method and its settings. Saved to settings.toml.

A method's settings form is built from its settings dataclass, so a new method needs no change here."""
from __future__ import annotations

import dataclasses

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from ..service import AUTO_METHOD, MethodSpec
from ..settings import Settings

DEVICES = {"GPU when available": -1, "CPU only": 0}
SEARCH_MODES = {"Automatic (text + page images once embedded)": "auto", "Text": "text",
                "Page images": "visual", "Text and page images": "hybrid"}
VISUAL_INDEXING = {"With a GPU only": "auto", "Always (slow on a CPU)": "on", "Never": "off"}
VISUAL_TOKENS = (256, 512, 768, 1024)
PRESETS = {"As in the paper": "paper", "Smaller, for a CPU": "cpu"}


class SettingsDialog(QDialog):
    def __init__(self, settings: Settings, methods: list[MethodSpec], parent=None):
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
        self.specs = {spec.name: spec for spec in methods}
        self.method = QComboBox()
        self.method.addItems([AUTO_METHOD, *self.specs])
        self.method.setItemData(0, "Quoted answers while only the built-in model is installed, SimpleDoc once a "
                                   "capable model is", Qt.ItemDataRole.ToolTipRole)
        self.method.setCurrentText(settings.ask.method)
        self.preset = _choice(PRESETS, settings.ask.preset)
        self.preset.setToolTip("The methods' published parameters, or fewer pages and shorter texts (faster on a CPU)")
        self.method_form = QFormLayout()
        self.method_fields: dict[str, QWidget] = {}
        self.method.currentTextChanged.connect(self._show_method_settings)
        self.preset.currentTextChanged.connect(lambda _: self._show_method_settings(self.method.currentText()))
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
        form.addRow("Budget", self.preset)
        form.addRow(self.method_form)
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
        self._show_method_settings(self.method.currentText())

    def _show_method_settings(self, name: str) -> None:
        """One field per setting of the chosen method, showing its current value."""
        while self.method_form.rowCount():
            self.method_form.removeRow(0)
        self.method_fields = {}
        spec = self.specs.get(name)
        if spec is None:
            return
        values = {**spec.defaults(PRESETS[self.preset.currentText()]),
                  **self.settings.tables.get("methods", {}).get(name, {})}
        for key, value in values.items():
            field = _editor(value)
            self.method_fields[key] = field
            self.method_form.addRow(f"{spec.title}: {key.replace('_', ' ')}", field)

    def _method_table(self) -> dict:
        """The chosen method's values that differ from its defaults under the chosen preset."""
        spec = self.specs.get(self.method.currentText())
        if spec is None:  # auto: no settings of its own
            return {}
        defaults = spec.defaults(PRESETS[self.preset.currentText()])
        values = {key: _value(field) for key, field in self.method_fields.items()}
        return {key: value for key, value in values.items() if value != defaults.get(key)}

    def chosen(self) -> Settings:
        s = self.settings
        llm = dataclasses.replace(s.llm, gpu_layers=DEVICES[self.device.currentText()], threads=self.threads.value())
        ask = dataclasses.replace(s.ask, method=self.method.currentText(), preset=PRESETS[self.preset.currentText()])
        methods = dict(s.tables.get("methods", {}))
        if self.method.currentText() in self.specs:
            methods[self.method.currentText()] = self._method_table()
        search = dataclasses.replace(s.search, mode=SEARCH_MODES[self.search_mode.currentText()])
        index = dataclasses.replace(s.index, visual=VISUAL_INDEXING[self.visual.currentText()],
                                    visual_tokens=int(self.visual_tokens.currentText()))
        return dataclasses.replace(s, llm=llm, ask=ask, search=search, index=index,
                                   tables={**s.tables, "methods": methods})


def _choice(options: dict[str, str], current: str) -> QComboBox:
    box = QComboBox()
    box.addItems(list(options))
    box.setCurrentIndex(max(0, list(options.values()).index(current) if current in options.values() else 0))
    return box


def _editor(value) -> QWidget:
    if isinstance(value, bool):
        box = QCheckBox()
        box.setChecked(value)
        return box
    if isinstance(value, int):
        box = QSpinBox()
        box.setRange(0, 1_000_000)
        box.setValue(value)
        return box
    if isinstance(value, float):
        box = QDoubleSpinBox()
        box.setRange(-1e9, 1e9)
        box.setDecimals(3)
        box.setValue(value)
        return box
    return QLineEdit(str(value))


def _value(field: QWidget):
    if isinstance(field, QCheckBox):
        return field.isChecked()
    if isinstance(field, (QSpinBox, QDoubleSpinBox)):
        return field.value()
    return field.text()
