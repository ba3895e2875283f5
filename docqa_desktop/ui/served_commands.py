"""The `docqa` commands the open app runs for the command line (cli/app_link.py), told to the window: the
serving threads emit, Qt delivers on the GUI thread."""
from __future__ import annotations

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QLabel


class ServedCommands(QObject):
    """The app's side of `AppEvents`: each call becomes a signal the window is connected to."""
    started = Signal(str)
    ended = Signal(str, int)
    forward = Signal(list)

    def command_started(self, command: str) -> None:
        self.started.emit(command)

    def command_ended(self, command: str, code: int) -> None:
        self.ended.emit(command, code)

    def bring_forward(self, paths: list[str]) -> None:
        self.forward.emit(list(paths))

    def connect_to(self, window) -> None:
        self.started.connect(window.command_started)
        self.ended.connect(window.command_ended)
        self.forward.connect(window.bring_forward)


class CommandsLabel(QLabel):
    """The status bar's word on the `docqa` commands the app is running for the command line: hidden when
    none is, the command (or how many) while they run, each in the tooltip."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.running: list[str] = []
        self.setVisible(False)

    def started(self, command: str) -> None:
        self.running.append(command)
        self._show()

    def ended(self, command: str) -> None:
        if command in self.running:
            self.running.remove(command)
        self._show()

    def _show(self) -> None:
        shown = (_short(self.running[0]) if len(self.running) == 1
                 else f"{len(self.running)} commands")
        self.setText(f"Command line: {shown} running")
        self.setToolTip("Run by this app for the command line:\n" + "\n".join(self.running))
        self.setVisible(bool(self.running))


def _short(command: str, width: int = 48) -> str:
    return command if len(command) <= width else command[:width - 1] + "…"
