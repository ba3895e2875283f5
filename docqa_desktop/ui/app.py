"""`docqa gui` / `python -m docqa_desktop`: the application object, theme and main window."""
from __future__ import annotations

import gc
import os
import signal
import sys
import threading
from typing import Callable, Protocol

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QColor, QIcon, QPalette
from PySide6.QtWidgets import QApplication, QMessageBox

from ..launcher import ICON
from .. import components
from ..service import Service, StoreError
from ..settings import Settings
from .main_window import MainWindow
from .served_commands import ServedCommands

class Closable(Protocol):
    def close(self) -> None: ...


GIL_SWITCH_SECONDS = float(os.environ.get("DOCQA_GUI_SWITCH_INTERVAL", "0.001"))
STYLE = """
QLabel#firstRun { padding: 8px 10px; border-radius: 6px; background: palette(alternate-base); }
QLabel#steps { color: palette(placeholder-text); }
QTreeWidget, QListWidget, QTextBrowser { border: 1px solid palette(mid); border-radius: 4px; }
"""


DARK = {QPalette.ColorRole.Window: "#2b2d30", QPalette.ColorRole.WindowText: "#e6e6e6",
        QPalette.ColorRole.Base: "#1e1f22", QPalette.ColorRole.AlternateBase: "#34363a",
        QPalette.ColorRole.Text: "#e6e6e6", QPalette.ColorRole.Button: "#393b40",
        QPalette.ColorRole.ButtonText: "#e6e6e6", QPalette.ColorRole.ToolTipBase: "#393b40",
        QPalette.ColorRole.ToolTipText: "#e6e6e6", QPalette.ColorRole.Highlight: "#3574f0",
        QPalette.ColorRole.HighlightedText: "#ffffff", QPalette.ColorRole.Link: "#6ea8fe",
        QPalette.ColorRole.PlaceholderText: "#8c8f94", QPalette.ColorRole.Mid: "#4e5157",
        QPalette.ColorRole.Light: "#4e5157", QPalette.ColorRole.Dark: "#1b1c1f", QPalette.ColorRole.Shadow: "#111"}


def dark_palette() -> QPalette:
    palette = QPalette()
    for role, colour in DARK.items():
        palette.setColor(role, QColor(colour))
    for role in (QPalette.ColorRole.WindowText, QPalette.ColorRole.Text, QPalette.ColorRole.ButtonText):
        palette.setColor(QPalette.ColorGroup.Disabled, role, QColor("#6f7278"))
    return palette


def apply_theme(app: QApplication, scheme: Qt.ColorScheme | None = None) -> None:
    """Fusion in the system's colour scheme: an explicit dark palette, because not every platform
    theme gives Fusion one."""
    scheme = app.styleHints().colorScheme() if scheme is None else scheme
    app.setPalette(dark_palette() if scheme == Qt.ColorScheme.Dark else app.style().standardPalette())
    app.setStyleSheet(STYLE)  # palette(...) colours in the style sheet are resolved when it is set


def make_app(argv: list[str] | None = None) -> QApplication:
    app = QApplication.instance() or QApplication(argv or sys.argv)
    app.setApplicationName("DocQA Desktop")
    app.setDesktopFileName("docqa-desktop")  # matches the launcher's entry, so docks group the window with it
    app.setWindowIcon(QIcon(str(ICON)))
    app.setOrganizationName("DocQA")
    app.setStyle("Fusion")
    # worker threads (indexing, answering) share the interpreter lock with the GUI thread: hand it over
    # more often than the default 5 ms so the window keeps its frames
    sys.setswitchinterval(GIL_SWITCH_SECONDS)
    # a full garbage collection walks every object the app has loaded (Qt, numpy, the engines) while holding
    # that lock: indexing allocates enough to trigger one every few seconds, each a 40+ ms hitch. Startup
    # objects live as long as the app, so they are moved out of the collector's sight.
    gc.freeze()
    apply_theme(app)
    app.styleHints().colorSchemeChanged.connect(lambda scheme: apply_theme(app, scheme))
    return app


def open_main_window(service: Service, offer_models: bool = False) -> MainWindow:
    """The main window, shown; `offer_models`: the first-run panel too, when this is the first run."""
    service.warm_up()  # before the window shows: later it would be a visible hitch
    window = MainWindow(service)
    window.show()
    if offer_models:
        window.offer_models()
    return window


def run(settings: Settings, folders: list[str] = (), argv: list[str] | None = None,
        serve_commands: Callable[[Service, ServedCommands], Closable] | None = None) -> int:
    """The app until its window closes; `serve_commands(service, events)` starts what runs `docqa` commands
    typed while it is open (the command line's listener, cli/app_link.py), closed before the library is."""
    components.activate(settings.locations)  # the optional components installed in the data folder
    app = make_app(argv)
    with Service(settings) as service:
        try:
            window = open_main_window(service, offer_models=True)
        except StoreError as exc:  # damaged (the message says to run `docqa repair`), in use, read-only folder
            QMessageBox.critical(None, "DocQA Desktop cannot open its library", str(exc))
            return 2
        if folders:
            window.add_paths(list(folders))
        _close_on_sigterm(app)
        events = ServedCommands()
        events.connect_to(window)
        server = serve_commands(service, events) if serve_commands else None
        try:
            return app.exec()
        finally:
            if server is not None:
                server.close()


def _close_on_sigterm(app: QApplication) -> None:
    """A logout or `kill` (SIGTERM) closes the window as Quit does: its layout saved, its tasks stopped, then the
    command listener and the library closed. Python runs a signal handler only between bytecodes, and Qt's event
    loop runs none while idle: a timer gives it a moment twice a second."""
    if not hasattr(signal, "SIGTERM") or threading.current_thread() is not threading.main_thread():
        return
    # posted, not called: a signal before app.exec() would close the window while no loop runs, and the loop,
    # started after, would wait for a last window that has already gone (the app then outlived SIGTERM)
    signal.signal(signal.SIGTERM, lambda signum, frame: QTimer.singleShot(0, app.closeAllWindows))
    heartbeat = QTimer(app)
    heartbeat.timeout.connect(lambda: None)
    heartbeat.start(500)
