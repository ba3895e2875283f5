"""Service calls off the GUI thread: each task runs a function on a pool thread and reports back by
signals, which Qt delivers on the GUI thread (the emitter lives there, so connections are queued)."""
from __future__ import annotations

import logging
import threading
import traceback
from typing import Any, Callable

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

from .remedies import in_app_words

log = logging.getLogger(__name__)


class TaskSignals(QObject):
    progress = Signal(object)
    done = Signal(object)
    failed = Signal(str)
    finished = Signal()  # after done or failed, always


class Task(QRunnable):
    """fn(progress, cancel) -> result; progress(value) may be called from the pool thread at any rate."""

    def __init__(self, name: str, fn: Callable[[Callable[[Any], None], threading.Event], Any]):
        super().__init__()
        self.setAutoDelete(False)  # the runner keeps it until `finished` so signals stay alive
        self.name = name
        self.fn = fn
        self.cancel = threading.Event()
        self.ended = threading.Event()  # set when fn has returned or raised (waitable from other threads)
        self.signals = TaskSignals()

    def run(self) -> None:
        try:
            result = self.fn(self.signals.progress.emit, self.cancel)
        except Exception as exc:  # any failure becomes a message in the app's words, never a crashed window
            log.warning("task %s failed: %s\n%s", self.name, exc, traceback.format_exc())
            self.signals.failed.emit(f"{self.name}: {in_app_words(exc)}")
        else:
            self.signals.done.emit(result)
        finally:
            self.ended.set()
            self.signals.finished.emit()


class TaskRunner(QObject):
    """Starts tasks on a small thread pool and keeps them alive until they finish."""

    def __init__(self, parent: QObject | None = None, threads: int = 3):
        super().__init__(parent)
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(threads)
        self.running: set[Task] = set()
        self.closed = False  # after shutdown, results still queued for the GUI thread are dropped

    def start(self, name: str, fn, on_done: Callable[[Any], None] | None = None,
              on_progress: Callable[[Any], None] | None = None,
              on_failed: Callable[[str], None] | None = None,
              on_finished: Callable[[], None] | None = None) -> Task:
        task = Task(name, fn)
        for signal, slot in ((task.signals.done, on_done), (task.signals.progress, on_progress),
                             (task.signals.failed, on_failed), (task.signals.finished, on_finished)):
            if slot:
                signal.connect(self._unless_closed(slot))
        task.signals.finished.connect(lambda: self.running.discard(task))
        self.running.add(task)
        self.pool.start(task)
        return task

    def _unless_closed(self, slot: Callable[[Any], None]) -> Callable[[Any], None]:
        def deliver(*value):
            if not self.closed:  # the widgets the slot updates may be gone
                slot(*value)
        return deliver

    def shutdown(self, msecs: int = 30000) -> bool:
        """Cancel every task, drop their pending results, and wait for the pool threads."""
        self.closed = True
        for task in list(self.running):
            task.cancel.set()
        return self.pool.waitForDone(msecs)


class Newest:
    """A kind of task of which only the newest counts (a search as the reader types, find in a document): starting
    one cancels the one running, and what an older one still sends is dropped."""

    def __init__(self, tasks: TaskRunner):
        self.tasks = tasks
        self.task: Task | None = None

    def cancel(self) -> None:
        if self.task is not None:
            self.task.cancel.set()
            self.task = None

    def start(self, name: str, fn, on_done: Callable[[Any], None] | None = None,
              on_progress: Callable[[Any], None] | None = None,
              on_failed: Callable[[str], None] | None = None) -> Task:
        self.cancel()

        def current(slot):  # a slot that hears only the newest task
            return (lambda *value: slot(*value) if self.task is task else None) if slot else None

        task = self.tasks.start(name, fn, current(on_done), current(on_progress), current(on_failed))
        self.task = task
        return task
