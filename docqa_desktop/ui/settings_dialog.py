"""Settings: where data lives, GPU or CPU, threads, the default method and its settings. Saved to settings.toml.

A method's settings form is built from its settings dataclass, so a new method needs no change here. With the
method "auto" the form shows the settings of the method auto stands for now. A new data folder is used from
the next start: the running app keeps its database open, and the library is not moved."""
from __future__ import annotations

import dataclasses
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
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
SCREEN_SHARE = 0.9  # the dialog's height at most: its method settings scroll on a small screen


class SettingsDialog(QDialog):
    def __init__(self, settings: Settings, methods: list[MethodSpec], auto_method: str = "", parent=None):
        """`auto_method`: the method "auto" stands for now (service.answers.default_method under "auto")."""
        super().__init__(parent)
        self.setWindowTitle("Settings")
        self.settings = settings
        self.auto_method = auto_method
        self.data_folder = QLineEdit()
        self.data_folder.setReadOnly(True)  # chosen with Change…: a folder, not a typed path
        self.data_folder.setToolTip("The library's database, installed-model list and first-run marker. "
                                    "--home DIR (or DOCQA_HOME) moves the settings, caches and logs too")
        change = QPushButton("Change…")
        change.clicked.connect(self._choose_data_folder)
        location = QHBoxLayout()
        location.addWidget(self.data_folder, 1)
        location.addWidget(change)
        self.data_note = QLabel("")
        self.data_note.setObjectName("steps")
        self.data_note.setWordWrap(True)
        self.set_data_folder(settings.tables.get("locations", {}).get("data") or str(settings.locations.data_dir))
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
        self.shown_method = ""  # whose settings the form shows: the chosen method, or the one auto stands for
        method_page = QWidget()
        method_page.setLayout(self.method_form)
        self.method_area = QScrollArea()  # DocLens has 21 settings: they scroll rather than outgrow the screen
        self.method_area.setWidget(method_page)
        self.method_area.setWidgetResizable(True)
        self.method_area.setFrameShape(QScrollArea.Shape.NoFrame)
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
        form.addRow("Data folder", location)
        form.addRow(self.data_note)
        form.addRow("Device", self.device)
        form.addRow("Threads", self.threads)
        form.addRow("Default method", self.method)
        form.addRow("Budget", self.preset)
        form.addRow(self.method_area)
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
        screen = self.screen().availableGeometry()
        self.resize(self.sizeHint().width(), min(self.sizeHint().height(), int(screen.height() * SCREEN_SHARE)))

    def _choose_data_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Keep the library in", self.data_folder.text())
        if folder:
            self.set_data_folder(folder)

    def set_data_folder(self, folder: str) -> None:
        """Use `folder` for the data from the next start (said under the field)."""
        self.data_folder.setText(str(Path(folder).expanduser().resolve()))
        current = self.settings.locations.data_dir
        moved = self.data_folder.text() != str(current)
        self.data_note.setText(f"Used from the next start of DocQA (app and command line). The library in {current} "
                               "is not moved: copy that folder's files there first to keep it, or start a new "
                               "library there." if moved else "")
        self.data_note.setVisible(moved)

    def _show_method_settings(self, name: str) -> None:
        """One field per setting of the chosen method (or of the method auto stands for now, labelled so),
        showing its current value."""
        while self.method_form.rowCount():
            self.method_form.removeRow(0)
        self.method_fields = {}
        self.shown_method = self.auto_method if name == AUTO_METHOD else name
        spec = self.specs.get(self.shown_method)
        self.method_area.setVisible(spec is not None)
        if spec is None:
            return
        if name == AUTO_METHOD:
            heading = QLabel(f"auto uses {spec.title} now; its settings:")
            heading.setObjectName("steps")
            self.method_form.addRow(heading)
        values = {**spec.defaults(PRESETS[self.preset.currentText()]),
                  **self.settings.tables.get("methods", {}).get(spec.name, {})}
        for key, value in values.items():
            field = _editor(value)
            self.method_fields[key] = field
            self.method_form.addRow(f"{spec.title}: {key.replace('_', ' ')}", field)

    def _method_table(self) -> dict:
        """The shown method's values that differ from its defaults under the chosen preset."""
        spec = self.specs[self.shown_method]
        defaults = spec.defaults(PRESETS[self.preset.currentText()])
        values = {key: _value(field) for key, field in self.method_fields.items()}
        return {key: value for key, value in values.items() if value != defaults.get(key)}

    def chosen(self) -> Settings:
        s = self.settings
        llm = dataclasses.replace(s.llm, gpu_layers=DEVICES[self.device.currentText()], threads=self.threads.value())
        ask = dataclasses.replace(s.ask, method=self.method.currentText(), preset=PRESETS[self.preset.currentText()])
        methods = dict(s.tables.get("methods", {}))
        if self.shown_method in self.specs:
            methods[self.shown_method] = self._method_table()
        search = dataclasses.replace(s.search, mode=SEARCH_MODES[self.search_mode.currentText()])
        index = dataclasses.replace(s.index, visual=VISUAL_INDEXING[self.visual.currentText()],
                                    visual_tokens=int(self.visual_tokens.currentText()))
        # the running app keeps its locations (its database is open there); the file names the new folder
        locations = dict(s.tables.get("locations", {}))
        if self.data_folder_changed() or locations.get("data"):  # a folder chosen before, or now
            locations["data"] = self.data_folder.text()
        return dataclasses.replace(s, llm=llm, ask=ask, search=search, index=index,
                                   tables={**s.tables, "methods": methods, "locations": locations})

    def data_folder_changed(self) -> bool:
        """Whether a data folder other than the one in use was chosen (it takes effect at the next start)."""
        return self.data_folder.text() != str(self.settings.locations.data_dir)


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
