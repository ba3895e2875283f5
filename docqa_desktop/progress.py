"""One vocabulary for long tasks — index, prepare, ask, eval: what progress looks like, how they are cancelled.

Every long task takes `progress: ProgressFn | None` and `cancel: threading.Event | None`, reports
`Progress` snapshots, and raises (or ends with) `Cancelled` when the event is set. Plain data, no imports
from the rest of the package, so every layer can use it.
"""
from __future__ import annotations

import threading
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


ProgressFn = Callable[[Progress], None]
StreamFn = Callable[[str], None]  # an answer's text so far, each time it grows (streaming)


class Cancelled(Exception):
    """The task's cancel event was set; what was done so far is kept."""


def check_cancel(cancel: threading.Event | None) -> None:
    if cancel is not None and cancel.is_set():
        raise Cancelled()


def ignore(_progress: Progress) -> None:
    """A ProgressFn for callers that do not show progress."""
