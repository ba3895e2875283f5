"""One vocabulary for long tasks — index, prepare, ask, eval: what progress looks like, how they are cancelled.

Every long task takes `progress: ProgressFn | None` and `cancel: threading.Event | None`, reports
`Progress` snapshots, and raises (or ends with) `Cancelled` when the event is set. Plain data, no imports
from the rest of the package, so every layer can use it.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")


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


def about(seconds: float) -> str:
    """A rough duration as people say it: "~45 s", "~4 min", "~2 h"."""
    if seconds < 120:
        return f"~{max(1, round(seconds))} s"
    if seconds < 2 * 3600:
        return f"~{round(seconds / 60)} min"
    return f"~{round(seconds / 3600)} h"


def describe(p: Progress) -> str:
    """A long step's line for people, the same in the app and the CLI: what it is doing, which item of how many
    (a counted step: the item being worked on) and, once a few are timed, the time left —
    "writing page summaries 3/10 · ~1 min left"."""
    line = p.phase
    if p.total > 1:
        line += f" {min(p.done + 1, p.total)}/{p.total}"
    if p.eta_seconds is not None:
        line += f" · {about(p.eta_seconds)} left"
    return line


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


ETA_AFTER = 2  # items finished before a time left is given: the first also loads the model, so it is not counted


def now() -> float:
    """The clock long steps are timed by (tests script it)."""
    return time.monotonic()


class Eta:
    """Time left in a run of like items, from the rate of those finished after the first (which pays for loading
    the model and warming caches, and would make every estimate too long)."""

    def __init__(self, clock: Callable[[], float] | None = None):
        self.clock = clock or now
        self.finished = 0
        self.first_done_at: float | None = None

    def item_done(self) -> None:
        self.finished += 1
        if self.finished == 1:
            self.first_done_at = self.clock()

    @property
    def rate(self) -> float:
        """Items a second, over those timed; 0.0 before ETA_AFTER are finished."""
        if self.finished < ETA_AFTER or self.first_done_at is None:
            return 0.0
        elapsed = self.clock() - self.first_done_at
        return (self.finished - 1) / elapsed if elapsed > 0 else 0.0

    def seconds_left(self, remaining: int) -> float | None:
        rate = self.rate
        return round(remaining / rate, 1) if rate > 0 else None


def counted(items: Iterable[T], emit: ProgressFn, task: str, phase: str | Callable[[T], str], unit: str,
            item: str | None = None, clock: Callable[[], float] | None = None) -> Iterator[T]:
    """Each of `items`, telling `emit` before each one what is being done (`phase`, or `phase(item)`), how many
    are done of how many `unit`s and, once ETA_AFTER are done, the rate and time left. The loop's body is the
    work: a long step wraps its items in this and says what it does, with counts, at no other cost."""
    items = list(items)
    eta = Eta(clock)
    for done, thing in enumerate(items):
        if done:
            eta.item_done()
        emit(Progress(task, phase(thing) if callable(phase) else phase, done, len(items), unit, item,
                      round(eta.rate, 4), eta.seconds_left(len(items) - done)))
        yield thing


StepsFn = Callable[..., Iterator]  # counted with the task bound: (phase, items, unit) -> the items


def uncounted(phase, items: Iterable[T], unit: str = "") -> Iterator[T]:
    """A StepsFn for callers that show no progress."""
    return iter(items)


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
