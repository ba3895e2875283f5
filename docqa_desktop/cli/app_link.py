"""One library, many front ends: while the app is open, `docqa` commands run in it.

DuckDB lets one process write a database file, and the open app is that process; a `docqa` process that finds the
app listening (host.command_address) sends it the command line and the folder it was typed in, and the app runs
the command on its own service, on a thread of its own, writing the command's output back as it comes (progress
included) and finally the exit code. The command's code is the same as in a `docqa` process (cli/console.py routes
its streams), so the output is too. Ctrl-C in the `docqa` process cancels the command in the app.

The channel is multiprocessing.connection's: a Unix socket or a Windows named pipe that only the holder of the
key may use (a random key the app writes, readable by its user only, into the data folder at each start), with
JSON messages:
    docqa → app    {"argv": [...], "cwd": "...", "tty": {"stdin": b, "stdout": b, "stderr": b}}
                   {"cancel": true}                  Ctrl-C
                   {"line": "..."}                   a line of the user's input, when asked for one
    app → docqa    {"stdout": "..."} / {"stderr": "..."}
                   {"read": true}                    the command reads a line of input (a confirmation)
                   {"exit": 0}
"""
from __future__ import annotations

import json
import logging
import os
import queue
import shlex
import signal
import sys
import threading
import traceback
from multiprocessing.connection import AuthenticationError, Client, Connection, Listener
from pathlib import Path
from typing import Callable, Protocol

from .. import host
from .common import signal_handlers_restored
from .console import CANCELLING, Console, serving

log = logging.getLogger(__name__)

KEY_FILE = "app.key"
CLOSE_WAIT_SECONDS = 10.0  # how long a closing app waits for the commands it cancelled to end


def _send(conn: Connection, **message) -> None:
    conn.send_bytes(json.dumps(message, ensure_ascii=False).encode())


def _receive(conn: Connection) -> dict:
    return json.loads(conn.recv_bytes())


# -- the docqa process's side ----------------------------------------------------------------------------------

def forward(argv: list[str], data_dir: Path) -> int | None:
    """Run `docqa argv` in the open app of the library in `data_dir` and return its exit code, its output
    written here as it comes; None when no app is listening (the caller opens the library itself)."""
    conn = _connect(data_dir)
    if conn is None:
        return None
    with conn:
        _send(conn, argv=argv, cwd=os.getcwd(),
              tty={name: _isatty(getattr(sys, name)) for name in ("stdin", "stdout", "stderr")})
        with signal_handlers_restored():
            _cancel_on_signals(conn)
            return _relay(conn)


def _connect(data_dir: Path) -> Connection | None:
    try:
        key = (Path(data_dir) / KEY_FILE).read_bytes()
    except OSError:  # no app has run here, or another user's
        return None
    address, family = host.command_address(data_dir)
    try:
        return Client(address, family, authkey=key)
    except (OSError, AuthenticationError, EOFError):  # not listening (closed, or it crashed), or an older key
        return None


def _relay(conn: Connection) -> int:
    while True:
        try:
            message = _receive(conn)
        except (EOFError, OSError):
            print("docqa: the app closed before the command ended", file=sys.stderr)
            return 1
        if "stdout" in message:
            sys.stdout.write(message["stdout"])
            sys.stdout.flush()
        elif "stderr" in message:
            sys.stderr.write(message["stderr"])
            sys.stderr.flush()
        elif "read" in message:
            _send(conn, line=sys.stdin.readline())
        elif "exit" in message:
            return int(message["exit"])


def _cancel_on_signals(conn: Connection) -> None:
    """First Ctrl-C (or SIGTERM) asks the app to cancel the command, as in a `docqa` process of its own; a
    second one aborts here (KeyboardInterrupt). The handler does not raise the first time, so a message being
    read is read whole."""
    asked = threading.Event()

    def handler(signum, frame) -> None:
        if asked.is_set():
            raise KeyboardInterrupt
        asked.set()
        print(CANCELLING, file=sys.stderr)
        _send(conn, cancel=True)

    signal.signal(signal.SIGINT, handler)
    signal.signal(signal.SIGTERM, handler)


def _isatty(stream) -> bool:
    try:
        return bool(stream) and stream.isatty()
    except (AttributeError, ValueError):
        return False


# -- the app's side --------------------------------------------------------------------------------------------

class AppEvents(Protocol):
    """What the app shows of the commands it serves (called from the serving threads)."""

    def command_started(self, command: str) -> None: ...
    def command_ended(self, command: str, code: int) -> None: ...
    def bring_forward(self, paths: list[str]) -> None: ...


class CommandServer:
    """Listens for `docqa` commands while the app is open and runs each with `run(argv) -> exit code` on a
    thread of its own (several at once, as several `docqa` processes would run)."""

    def __init__(self, data_dir: Path, run: Callable[[list[str]], int], events: AppEvents):
        self.run = run
        self.events = events
        self.key_path = Path(data_dir) / KEY_FILE
        self.address, self.family = host.command_address(data_dir)
        self.key = os.urandom(32)
        self.serving: dict[threading.Thread, Console] = {}
        self.closing = False
        _write_private(self.key_path, self.key)
        if self.family == "AF_UNIX":  # the app that left it is gone: this one holds the library now
            Path(self.address).unlink(missing_ok=True)
        self.listener = Listener(self.address, self.family, authkey=self.key)
        self.accepting = threading.Thread(target=self._accept, name="docqa-commands", daemon=True)
        self.accepting.start()

    def _accept(self) -> None:
        while not self.closing:
            try:
                conn = self.listener.accept()
            except (AuthenticationError, EOFError, ConnectionError) as exc:
                log.info("a connection to the command listener was refused: %s", exc)
                continue
            except OSError:  # the listener was closed
                return
            if self.closing:
                conn.close()
                return
            thread = threading.Thread(target=self._serve, args=(conn,), name="docqa-command", daemon=True)
            thread.start()

    def _serve(self, conn: Connection) -> None:
        with conn:
            try:
                request = _receive(conn)
                console = _ClientConsole(conn, request, self.events.bring_forward)
            except (EOFError, OSError, ValueError, KeyError):
                return
            command = shown_command(request["argv"])
            self.serving[threading.current_thread()] = console.console
            self.events.command_started(command)
            code = 1
            try:
                with serving(console.console):
                    code = self.run(list(request["argv"]))
            except Exception:  # a fault: its traceback goes where a docqa process would print it
                log.exception("served command %s failed", command)
                console.write_quietly("stderr", traceback.format_exc())
            finally:
                self.serving.pop(threading.current_thread(), None)
                self.events.command_ended(command, code)
            console.write_quietly("exit", code)

    def close(self) -> None:
        """Stop listening, cancel the commands still running and wait a little for them to end."""
        self.closing = True
        try:  # wake the accepting thread
            Client(self.address, self.family, authkey=self.key).close()
        except (OSError, AuthenticationError, EOFError):
            pass
        self.listener.close()
        self.accepting.join(timeout=CLOSE_WAIT_SECONDS)
        for console in list(self.serving.values()):
            console.cancel.set()
        for thread in list(self.serving):
            thread.join(timeout=CLOSE_WAIT_SECONDS)
        self.key_path.unlink(missing_ok=True)


class _ClientConsole:
    """A served command's console over its connection: streams that send what is written, an input that asks
    the client for a line, and a reader that hears Ctrl-C (or the client going away: the command is
    cancelled)."""

    def __init__(self, conn: Connection, request: dict, bring_forward: Callable[[list[str]], None]):
        self.conn = conn
        self.sending = threading.Lock()
        self.lines: queue.Queue[str] = queue.Queue()
        tty = request.get("tty", {})
        self.console = Console(stdin=_ClientInput(self, tty.get("stdin", False)),
                               stdout=_ClientOutput(self, "stdout", tty.get("stdout", False)),
                               stderr=_ClientOutput(self, "stderr", tty.get("stderr", False)),
                               cwd=request["cwd"], bring_forward=bring_forward)
        threading.Thread(target=self._listen, name="docqa-command-input", daemon=True).start()

    def send(self, **message) -> None:
        with self.sending:
            _send(self.conn, **message)

    def write_quietly(self, kind: str, value) -> None:
        """Send, unless the client has gone away (nothing is left to tell it)."""
        try:
            self.send(**{kind: value})
        except OSError:
            pass

    def _listen(self) -> None:
        try:
            while True:
                message = _receive(self.conn)
                if message.get("cancel"):
                    self.console.cancel.set()
                elif "line" in message:
                    self.lines.put(message["line"])
        except (EOFError, OSError, ValueError):  # the client went away (or the command ended): stop its work
            self.console.cancel.set()
            self.lines.put("")


class _ClientOutput:
    """A text stream whose writes go to the client's stdout or stderr."""
    encoding = "utf-8"
    errors = "strict"

    def __init__(self, console: _ClientConsole, kind: str, tty: bool):
        self._console, self._kind, self._tty = console, kind, tty

    def write(self, text: str) -> int:
        if text:
            try:
                self._console.send(**{self._kind: text})
            except OSError as exc:  # the reader went away, as a closed pipe in a docqa process
                raise BrokenPipeError(str(exc)) from exc
        return len(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return self._tty


class _ClientInput:
    """The client's stdin, a line at a time (what input() reads when stdin has no file descriptor)."""
    encoding = "utf-8"

    def __init__(self, console: _ClientConsole, tty: bool):
        self._console, self._tty = console, tty

    def readline(self, size: int = -1) -> str:
        self._console.send(read=True)
        return self._console.lines.get()

    def isatty(self) -> bool:
        return self._tty


def _write_private(path: Path, data: bytes) -> None:
    """Write `data` to a file only its owner may read."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)


def shown_command(argv: list[str]) -> str:
    """A served command as the window and log show it: without --home (the app serves its own library only), the
    arguments that hold spaces quoted as they were typed ("docqa ask 'What was the revenue?'")."""
    words, skip = ["docqa"], False
    for arg in argv:
        if skip or arg.startswith("--home="):
            skip = False
            continue
        if arg == "--home":
            skip = True
            continue
        words.append(_typed(arg))
    return " ".join(words)


def _typed(arg: str) -> str:
    """An argument as a person types it: bare, 'in single quotes', or "in double quotes" when it holds an
    apostrophe ("What's the revenue?", not shlex's 'What'"'"'s the revenue?')."""
    if arg and not any(c.isspace() or c in "'\"\\$`" for c in arg):
        return arg
    if "'" in arg and not any(c in arg for c in '"\\$`'):
        return f'"{arg}"'
    return shlex.quote(arg)
