"""What an index stage is: the shape every stage has, and what a run hands it.

A stage is one kind of work the index does for every page or chunk (keywords, layout, embeddings, page images),
with everything said about it in one place: its row in `docqa status`, its phase in the progress bar and the
app's status bar, its part of `docqa index`'s report, whether it runs, and the work. The list of stages, in the
order they run, is index/stages/__init__.py; stages of another engine (the page images, visual/stage.py) have
the same shape without importing this (engines do not import each other) and are handed in by the service.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Callable, Protocol, runtime_checkable

from ...domain import Reported, StageStatus
from ...progress import ProgressFn
from ...settings import IndexSettings
from ...store.database import Database

StageTimer = Callable[[dict[str, float]], None]  # adds seconds per step (layout, embed, …) to the run's report


@dataclass
class StageContext:
    """What a stage's run gets: the store, the settings, and the run's progress, cancel and errors."""
    db: Database
    settings: IndexSettings
    progress: ProgressFn
    cancel: threading.Event
    errors: dict[str, str]  # path -> reason: a file the stage could not do, kept in the run's report
    add_time: StageTimer


@runtime_checkable
class Stage(Protocol):
    name: str  # its row in `docqa status` and its key in IndexReport.stages
    unit: str  # what its status row counts: pages | chunks
    phase: str  # the Progress.phase of its snapshots
    phase_text: str  # the app's status bar while it runs: a template over the Progress fields, {name} and {eta}
    bar_text: str  # the counts in `docqa index`'s progress bar: a template over the Progress fields
    reported: Reported  # how its result reads in `docqa index`'s report

    def enabled(self, settings: IndexSettings) -> str | None:
        """None when it runs; else why not (a switch, a model not installed), without loading anything."""

    def status(self, cur, settings: IndexSettings) -> StageStatus:
        """How far it has got over the live library, and why it does not run if it does not."""

    def run(self, ctx: StageContext) -> int:
        """Do what is still pending, resumably; returns how many units it did. May raise domain.StageSkipped
        when it finds, once running, that it cannot run now."""


def switch_status(stage: Stage, counts: tuple[int, int], settings: IndexSettings) -> StageStatus:
    """The status row of a stage whose note is why `enabled` says it does not run."""
    done, pending = counts
    why_not = stage.enabled(settings) or ""
    return StageStatus(stage.name, done, pending, stage.unit, why_not, off=bool(why_not))
