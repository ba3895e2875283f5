"""Where the user left the main window, kept between runs: its size and place, the panels' widths, the library's
columns, the reasoning trace's split between its rows and the output, and the folder an answer was last exported
to. A QSettings ini file beside settings.toml, so each home
(a test's, a second profile's) has its own."""
from __future__ import annotations

import os
from pathlib import Path

import platformdirs
from PySide6.QtCore import QByteArray, QSettings
from PySide6.QtWidgets import QMainWindow, QSplitter

from .library_panel import LibraryPanel

STATE_FILE = "window.ini"
GEOMETRY, PANELS, COLUMNS, EXPORT_FOLDER = "window/geometry", "window/panels", "library/columns", "export/folder"
TRACE = "answer/trace"


class WindowState:
    def __init__(self, config_dir: Path):
        self.store = QSettings(str(Path(config_dir) / STATE_FILE), QSettings.Format.IniFormat)

    def restore(self, window: QMainWindow, panels: QSplitter, library: LibraryPanel, trace: QSplitter) -> None:
        """The saved layout, where one was saved (a first run keeps the window's own)."""
        for key, restore in ((GEOMETRY, window.restoreGeometry), (PANELS, panels.restoreState),
                             (COLUMNS, library.restore_columns), (TRACE, trace.restoreState)):
            saved = self.store.value(key)
            if isinstance(saved, QByteArray) and not saved.isEmpty():
                restore(saved)

    def save(self, window: QMainWindow, panels: QSplitter, library: LibraryPanel, trace: QSplitter) -> None:
        self.store.setValue(GEOMETRY, window.saveGeometry())
        self.store.setValue(PANELS, panels.saveState())
        self.store.setValue(COLUMNS, library.column_state())
        self.store.setValue(TRACE, trace.saveState())
        self.store.sync()

    def export_folder(self) -> str:
        """The folder an answer was last exported to, else the user's documents folder (the home folder on a
        system without one): never the folder the app was started from."""
        return next((str(folder) for folder in (self.store.value(EXPORT_FOLDER), platformdirs.user_documents_dir(),
                                                Path.home()) if folder and os.path.isdir(folder)), "")

    def exported_to(self, path: str) -> None:
        self.store.setValue(EXPORT_FOLDER, os.path.dirname(os.path.abspath(path)))
        self.store.sync()
