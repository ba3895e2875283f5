"""Where a `docqa` command reads, writes and hears Ctrl-C: this process's terminal, or the terminal of a `docqa`
process whose command the open app runs (cli/app_link.py).

The commands print to sys.stdout and sys.stderr and read sys.stdin as any Unix tool does. In the app those three
are routers: a thread that serves a command writes to and reads from its client's terminal, every other thread
uses the app's own streams. So a command's code is the same in both places, and so is its output."""
from __future__ import annotations

import io
import os
import signal
import sys
import threading
from dataclasses import dataclass, field
from typing import Callable, TextIO

_served = threading.local()  # .console: the served command's console on the thread that runs it


@dataclass
class Console:
    """A served command's side of its client: the client's streams, its working folder, its Ctrl-C."""
    stdin: TextIO
    stdout: TextIO
    stderr: TextIO
    cwd: str
    bring_forward: Callable[[list[str]], None]  # `docqa gui [FOLDERS]` while the app is open: its window comes up
    cancel: threading.Event = field(default_factory=threading.Event)


def served_console() -> Console | None:
    """The console of the command this thread serves for a `docqa` process; None in a `docqa` process itself."""
    return getattr(_served, "console", None)


class serving:
    """`with serving(console):` — this thread's standard streams and working folder are the client's."""

    def __init__(self, console: Console):
        self.console = console

    def __enter__(self) -> Console:
        route_standard_streams()
        _served.console = self.console
        return self.console

    def __exit__(self, *exc) -> None:
        _served.console = None


def local_path(text: str) -> str:
    """An argument type for a file or folder the user names: absolute, from the folder the command was typed in
    (the client's, when the app serves the command; the app's own working folder is not the user's)."""
    console = served_console()
    return os.path.join(console.cwd if console else os.getcwd(), os.path.expanduser(text))


def cancel_on_sigint() -> threading.Event:
    """First Ctrl-C cancels cleanly (the current document rolls back); a second one aborts. A served command's
    Ctrl-C comes from its client (which says "cancelling…" and aborts on the second)."""
    console = served_console()
    if console is not None:
        return console.cancel
    event = threading.Event()

    def handler(signum, frame):
        if event.is_set():
            raise KeyboardInterrupt
        event.set()
        print(CANCELLING, file=sys.stderr)

    signal.signal(signal.SIGINT, handler)
    signal.signal(signal.SIGTERM, handler)
    return event


CANCELLING = "\ncancelling… (Ctrl-C again to abort)"


class _Router:
    """sys.stdin, sys.stdout or sys.stderr of the app process: the served command's stream on its thread, the
    app's own elsewhere."""

    def __init__(self, name: str, own: TextIO):
        self._name = name
        self._own = own

    def _stream(self) -> TextIO:
        console = served_console()
        return getattr(console, self._name) if console is not None else self._own

    def fileno(self) -> int:
        if served_console() is not None:  # input() then prompts through write() and reads through readline()
            raise io.UnsupportedOperation("a served command's stream has no file descriptor")
        return self._own.fileno()

    def __getattr__(self, name: str):
        return getattr(self._stream(), name)


def route_standard_streams() -> None:
    """Put the routers in place (once, in the app process)."""
    for name in ("stdin", "stdout", "stderr"):
        stream = getattr(sys, name)
        if not isinstance(stream, _Router) and stream is not None:
            setattr(sys, name, _Router(name, stream))
