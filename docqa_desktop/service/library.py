"""The facade's library part: indexing folders and files, watching them, forgetting them, repairing the
database, and what is indexed, pending or failed."""
from __future__ import annotations

import dataclasses
import os
import threading
from collections.abc import Callable
from pathlib import Path

from ..domain import FileEntry, IndexReport, StageStatus
from ..index import onnx_device
from ..index.indexer import Indexer
from ..index.stages import STAGES, Stage, seeing
from ..index.scan import normalise
from ..index.watcher import watch as watch_folders
from ..methods import METHODS, MethodSpec
from ..methods.toolkit.page_summaries import WRITING as WRITING_SUMMARIES
from ..progress import Progress, ProgressFn
from ..store import catalog
from ..store.artifacts import ArtifactStore
from ..store.repair import RepairReport, repair as repair_database
from .chart_vision import ChartVision
from .resources import Resources

# What a watch runs after an indexing run that added or changed documents: the default method's preparation,
# called as prepare(progress=…, cancel=…).
PrepareFn = Callable[..., object]
# The questions being answered and preparations running now: (method, its latest step or None, what it is for in
# words), as Answers.running gives them.
RunningFn = Callable[[], list[tuple[str, Progress | None, str]]]
# The step of a question that does a prepared stage's work, by the stage: while a question is at it, its row says so.
WRITING_STEP = {"summaries": WRITING_SUMMARIES}


class Library:
    def __init__(self, resources: Resources, prepare: PrepareFn, current_method: Callable[[], str],
                 running: RunningFn = lambda: []):
        """`current_method()`: the method questions go to now, whose prepared work alone is pending; `running()`:
        the questions being answered now, whose methods' prepared work is needed now too."""
        self._resources = resources
        self._prepare = prepare
        self._current_method = current_method
        self._running = running

    @property
    def database_path(self) -> Path:
        return self._resources.settings.locations.database

    @property
    def stages(self) -> tuple[Stage, ...]:
        """The index stages in the order they run: the index's own (the charts' with this library's vision model),
        then the page images (the visual engine's, with this library's page embedder)."""
        return (*seeing(STAGES, ChartVision(self._resources)), self._resources.visual.stage)

    def index(self, paths: list[str], progress: ProgressFn | None = None,
              cancel: threading.Event | None = None, enrich: bool = True) -> IndexReport:
        """Bring the library in line with `paths`; then, with `enrich`, run the stages after the parse."""
        resources = self._resources
        report = Indexer(resources.db, resources.settings.index, self.stages).run(paths, progress, cancel, enrich)
        if report.stages[resources.visual.stage.name].done or report.removed or report.updated:
            resources.visual.catch_up()
        return report

    def watch(self, paths: list[str], progress: ProgressFn | None = None,
              stop: threading.Event | None = None, on_report=None, on_error=None) -> None:
        """Index now, then keep the index in step with the folders until `stop` is set.

        The database is closed between bursts so that other docqa processes can read it.
        """
        stop = stop or threading.Event()
        roots = [normalise(p) for p in paths]
        missing = [r for r in roots if not os.path.exists(r)]
        if missing:
            raise FileNotFoundError(f"cannot watch {', '.join(missing)}: no such file or folder")

        def sync(_changed=None):
            try:
                report = self.index(roots, progress, stop)
                settings = self._resources.settings
                if settings.ask.prepare_after_index and (report.added or report.updated) and not stop.is_set():
                    self._prepare(progress=progress, cancel=stop)  # resumable: only new pages are prepared
            finally:
                self._resources.close()
            if on_report:
                on_report(report)

        watch_folders(roots, sync, stop, self._resources.settings.index.settle_seconds, on_error=on_error, first=sync)

    def remove(self, path: str) -> int:
        return Indexer(self._resources.db, self._resources.settings.index).remove(path)

    def repair(self, force: bool = False, more_paths: list[str] = (),
               progress: ProgressFn | None = None) -> RepairReport:
        """Set a damaged database aside and rebuild it: history and summaries copied where readable, the
        rest indexed again from the library folders (and `more_paths`)."""
        self._resources.close()
        return repair_database(self.database_path, lambda: self._resources.db,
                               lambda paths: self.index(paths, progress), force, more_paths)

    # -- what there is -------------------------------------------------------------------------

    def status(self) -> list[FileEntry]:
        return catalog.file_entries(self._resources.db.cursor())

    def totals(self) -> dict[str, int]:
        return catalog.totals(self._resources.db.cursor())

    def libraries(self) -> list[str]:
        return catalog.libraries(self._resources.db.cursor())

    def enrichment(self) -> list[StageStatus]:
        """Each index stage's done and pending work (keyword search comes with indexing, the rest are background
        passes), then each method's work prepared ahead of questions (SimpleDoc's page summaries): what a question
        running now does for it, or off when questions go to another method."""
        db = self._resources.db
        cur, artifacts = db.cursor(), ArtifactStore(db)
        running = {method: (step, purpose) for method, step, purpose in self._running()}
        prepared = [(spec, spec.prepared(artifacts)) for spec in METHODS.values() if spec.prepared]
        return ([stage.status(cur, self._resources.settings.index) for stage in self.stages]
                + [self._prepared_row(spec, row, running) for spec, row in prepared])

    def _prepared_row(self, spec: MethodSpec, row: StageStatus,
                      running: dict[str, tuple[Progress | None, str]]) -> StageStatus:
        if spec.name in running:  # asked for by name, whatever the default method: needed now
            step, purpose = running[spec.name]
            if step is not None and step.phase == WRITING_STEP.get(row.stage):
                return dataclasses.replace(row, now=f"{spec.title} is writing them {purpose} "
                                                    f"({step.done} / {step.total} {step.unit})")
            return row
        current = self._current_method()
        if spec.name == current:
            return row
        return dataclasses.replace(
            row, off=True, note=f"not needed by the current method ({METHODS[current].title})",
            hint=f"{spec.title} writes them at its first question, or `docqa prepare --method {spec.name}`")

    def onnx_providers(self) -> list[str]:
        """The onnxruntime execution providers layout and OCR use here, preferred first."""
        return onnx_device.execution_providers(self._resources.settings.index.device)

    def onnx_device(self) -> str:
        return onnx_device.describe(self._resources.settings.index.device)
