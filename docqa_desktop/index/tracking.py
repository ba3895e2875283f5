"""Progress snapshots of indexing and its background passes, with a rate and an ETA."""
from __future__ import annotations

import time

from ..progress import Progress, ProgressFn


def index_progress(phase: str, docs_done: int = 0, docs_total: int = 0, done: int = 0, total: int = 0,
                   item: str | None = None, rate: float = 0.0, eta_seconds: float | None = None,
                   unit: str = "pages") -> Progress:
    """A snapshot of indexing: `done`/`total` count `unit` (pages, chunks, page images), `docs_*` documents
    (files while scanning). Phases: scanning | indexing | layout | embedding | visual | done | cancelled."""
    return Progress("index", phase, done, total, unit, item, rate, eta_seconds, docs_done, docs_total)


class ProgressTracker:
    def __init__(self, docs_total: int, pages_total: int, emit: ProgressFn, phase: str = "indexing",
                 unit: str = "pages"):
        self.docs_total, self.pages_total, self.emit = docs_total, pages_total, emit
        self.phase, self.unit = phase, unit
        self.docs_done = self.pages_done = 0
        self.current: str | None = None
        self.started = time.monotonic()

    def start_document(self, path: str) -> None:
        self.current = path
        self._send()

    def pages_parsed(self, count: int) -> None:
        self.pages_done += count
        self._send()

    def finish_document(self) -> None:
        self.docs_done += 1
        self._send()

    def _send(self) -> None:
        elapsed = max(1e-6, time.monotonic() - self.started)
        rate = self.pages_done / elapsed
        eta = (self.pages_total - self.pages_done) / rate if rate > 0 else None
        self.emit(index_progress(self.phase, self.docs_done, self.docs_total, self.pages_done, self.pages_total,
                                 self.current, round(rate, 2), None if eta is None else round(eta, 1), self.unit))
