"""`docqa gui` / `python -m docqa_desktop`: the application object, theme and main window."""
from __future__ import annotations

import sys

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from ..service import Service
from ..settings import Settings
from .main_window import MainWindow

STYLE = """
QLabel#firstRun { padding: 8px 10px; border-radius: 6px; background: palette(alternate-base); }
QLabel#steps { color: palette(placeholder-text); }
QTreeWidget, QListWidget, QTextBrowser { border: 1px solid palette(mid); border-radius: 4px; }
"""


def make_app(argv: list[str] | None = None) -> QApplication:
    app = QApplication.instance() or QApplication(argv or sys.argv)
    app.setApplicationName("DocQA Desktop")
    app.setOrganizationName("DocQA")
    app.setStyle("Fusion")  # follows the system's light / dark colour scheme (Qt >= 6.5)
    app.setStyleSheet(STYLE)
    app.styleHints().colorSchemeChanged.connect(lambda scheme: app.setStyle("Fusion"))
    app.setAttribute(Qt.ApplicationAttribute.AA_DontShowIconsInMenus, False)
    return app


def run(settings: Settings, argv: list[str] | None = None) -> int:
    app = make_app(argv)
    with Service(settings) as service:
        window = MainWindow(service)
        window.show()
        return app.exec()
