"""Running the real `docqa` CLI as subprocesses for the reliability benchmarks (kill9_index.py, watch_churn.py):
progress read from a terminal, the processes a run started, the database read between runs."""
from __future__ import annotations

import hashlib
import os
import pty
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import duckdb

from _common import REPO


def docqa_env(**variables: str) -> dict:
    """The environment of a docqa subprocess: offline, unbuffered (its reports are read as they come)."""
    return {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONUNBUFFERED": "1", "PYTHONPATH": str(REPO), **variables}


def docqa_args(*args: str, home: Path) -> list[str]:
    return [sys.executable, "-m", "docqa_desktop", *args, "--home", str(home)]


def run_docqa(*args: str, home: Path, env: dict, timeout: float = 1800) -> subprocess.CompletedProcess:
    return subprocess.run(docqa_args(*args, home=home), capture_output=True, text=True, env=env, timeout=timeout,
                          cwd=REPO)


class Run:
    """A docqa subprocess whose stderr is a terminal, so its progress bar redraws on every step; each line is
    kept with the moment it appeared, and stdout lines likewise."""

    def __init__(self, args: list[str], env: dict):
        master, slave = pty.openpty()
        self.started = time.monotonic()
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=slave,
                                     env=env, cwd=REPO, start_new_session=True)
        os.close(slave)
        self.lines: list[tuple[float, str]] = []
        self.out: list[tuple[float, str]] = []
        self._lock = threading.Lock()
        self._readers = [threading.Thread(target=self._read_terminal, args=(master,), daemon=True),
                         threading.Thread(target=self._read_stdout, daemon=True)]
        for reader in self._readers:
            reader.start()

    def _read_terminal(self, fd: int) -> None:
        pending = b""
        shown: int | None = None  # index in self.lines of the line still being drawn
        while True:
            try:
                data = os.read(fd, 4096)
            except OSError:  # EIO: the process closed the terminal
                break
            if not data:
                break
            pending += data
            *complete, pending = re.split(rb"[\r\n]", pending)
            now = time.monotonic()
            with self._lock:
                # the bar writes "\r" + line: a line ends only when the next one starts, but it counts from the
                # moment it appeared
                for position, raw in enumerate(complete + [pending]):
                    text = raw.decode("utf-8", "replace").strip()
                    if not text:
                        continue
                    if shown is None:
                        self.lines.append((now, text))
                        shown = len(self.lines) - 1
                    else:
                        self.lines[shown] = (self.lines[shown][0], text)
                    if position < len(complete):  # ended
                        shown = None
        os.close(fd)

    def _read_stdout(self) -> None:
        for line in self.proc.stdout:
            with self._lock:
                self.out.append((time.monotonic(), line.decode("utf-8", "replace").strip()))

    def first(self, pattern: str, after: int = 0) -> tuple[float, str] | None:
        """The first terminal line (from line `after` on) matching `pattern`, with its time."""
        with self._lock:
            lines = self.lines[after:]
        return next(((t, line) for t, line in lines if re.search(pattern, line)), None)

    def wait_for(self, pattern: str, timeout: float, stdout: bool = False) -> float | None:
        """Seconds after the start at which a line matching `pattern` appeared; None if the process ended
        (or the time ran out) first."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._lock:
                lines = list(self.out if stdout else self.lines)
            hit = next((t for t, line in lines if re.search(pattern, line)), None)
            if hit is not None:
                return hit - self.started
            if self.proc.poll() is not None:
                time.sleep(0.2)  # the readers may still hold its last lines
                with self._lock:
                    lines = list(self.out if stdout else self.lines)
                hit = next((t for t, line in lines if re.search(pattern, line)), None)
                return None if hit is None else hit - self.started
            time.sleep(0.05)
        return None

    def last_line(self) -> str:
        with self._lock:
            return self.lines[-1][1] if self.lines else ""

    def kill9(self, grace: float = 15.0) -> int:
        """SIGKILL the docqa process alone (not its group): its workers must notice and exit by themselves.
        Returns how many of its descendants are still running after `grace` seconds (they are killed then)."""
        family = descendants(self.proc.pid)
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait()
        deadline = time.monotonic() + grace
        alive = family
        while alive and time.monotonic() < deadline:
            time.sleep(0.25)
            alive = [pid for pid in alive if running(pid)]
        for pid in alive:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        return len(alive)

    def stop(self, timeout: float = 120) -> int:
        """Ctrl-C, as a user stops `docqa watch`; returns the exit code."""
        self.proc.send_signal(signal.SIGINT)
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait()

    def finish(self, timeout: float = 1800) -> int:
        return self.proc.wait(timeout)


def descendants(pid: int) -> list[int]:
    """Every process below `pid` (children, grandchildren...), from /proc."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    parents[int(entry)] = int(fh.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
    found, frontier = [], [pid]
    while frontier:
        children = [child for child, parent in parents.items() if parent in frontier]
        found += children
        frontier = children
    return found


def running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def open_readonly(db_path: Path, timeout: float = 60) -> duckdb.DuckDBPyConnection:
    """A read-only connection, waiting while a docqa process holds the file."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            return duckdb.connect(str(db_path), read_only=True)
        except duckdb.IOException as exc:
            if "lock" not in str(exc).lower() or time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def sha256_file(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()
