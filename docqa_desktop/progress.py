"""One vocabulary for long tasks — index, prepare, ask, eval: what progress looks like, how they are cancelled.

Every long task takes `progress: ProgressFn | None` and `cancel: threading.Event | None`, reports
`Progress` snapshots, and raises (or ends with) `Cancelled` when the event is set. Plain data, no imports
from the rest of the package, so every layer can use it.
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True, slots=True)
class Progress:
    task: str  # index | prepare | ask | eval
    phase: str  # what is happening now, e.g. "parsing", "summaries", "reading pages 3, 4"
    done: int = 0
    total: int = 0  # 0: not known
    unit: str = ""  # what done/total count: pages, chunks, questions, steps
    item: str | None = None  # the file or question being worked on
    rate: float = 0.0  # units per second
    eta_seconds: float | None = None
    docs_done: int = 0  # indexing: documents as well as pages
    docs_total: int = 0

    @property
    def fraction(self) -> float | None:
        return min(1.0, self.done / self.total) if self.total else None

    def text(self, template: str, **extra) -> str:
        """`template` (str.format) filled in with this snapshot's fields and `extra` (an index stage's phase
        texts, index/stages)."""
        return template.format(**{name: getattr(self, name) for name in self.__slots__}, **extra)


ProgressFn = Callable[[Progress], None]
StreamFn = Callable[[str], None]  # an answer's text so far, each time it grows (streaming)


class Cancelled(Exception):
    """The task's cancel event was set; what was done so far is kept."""


def check_cancel(cancel: threading.Event | None) -> None:
    if cancel is not None and cancel.is_set():
        raise Cancelled()


def ignore(_progress: Progress) -> None:
    """A ProgressFn for callers that do not show progress."""

def index_progress(phase: str, docs_done: int = 0, docs_total: int = 0, done: int = 0, total: int = 0,
                   item: str | None = None, rate: float = 0.0, eta_seconds: float | None = None,
                   unit: str = "pages") -> Progress:
    """A snapshot of indexing: `done`/`total` count `unit` (pages, chunks, page images), `docs_*` documents
    (files while scanning). Phases: scanning | indexing | layout | embedding | visual | done | cancelled."""
    return Progress("index", phase, done, total, unit, item, rate, eta_seconds, docs_done, docs_total)


class ProgressTracker:
    """Counts documents and `unit`s done. The rate is per second of the run, or with `rate_by_work` per second
    of the work reported with each step (the visual stage: embedding is its only real cost, and its slow
    pages would otherwise be averaged with the rendering and committing around them)."""

    def __init__(self, docs_total: int, pages_total: int, emit: ProgressFn, phase: str = "indexing",
                 unit: str = "pages", rate_by_work: bool = False):
        self.docs_total, self.pages_total, self.emit = docs_total, pages_total, emit
        self.phase, self.unit, self.rate_by_work = phase, unit, rate_by_work
        self.docs_done = self.pages_done = 0
        self.work_seconds = 0.0
        self.current: str | None = None
        self.started = time.monotonic()

    def start_document(self, path: str | None) -> None:
        self.current = path
        self._send()

    def pages_parsed(self, count: int, seconds: float = 0.0) -> None:
        self.pages_done += count
        self.work_seconds += seconds
        self._send()

    def skip(self, count: int) -> None:
        """`count` units will not be done after all (their file went away)."""
        self.pages_total -= count
        self._send()

    def finish_document(self) -> None:
        self.docs_done += 1
        self._send()

    def _send(self) -> None:
        seconds = self.work_seconds if self.rate_by_work else time.monotonic() - self.started
        rate = self.pages_done / seconds if seconds > 0 else 0.0
        eta = (self.pages_total - self.pages_done) / rate if rate > 0 else None
        self.emit(index_progress(self.phase, self.docs_done, self.docs_total, self.pages_done, self.pages_total,
                                 self.current, round(rate, 3), None if eta is None else round(eta, 1), self.unit))
