"""Bringing the store in line with folders on disk: new, changed, moved, duplicate and deleted PDFs.

Each document is written in one transaction, so a crash (even kill -9) leaves either the old
or the new version, and the next run resumes with what is still pending.
"""
from __future__ import annotations

import logging
import os
import threading
import time
from dataclasses import dataclass, field
from collections.abc import Sequence

from ..documents import open_document
from ..domain import FileStatus, IndexReport, StageResult, StageSkipped
from ..errors import DocumentError
from ..files import sha256_of
from ..progress import Cancelled, ProgressFn
from ..settings import IndexSettings
from ..store import catalog, content, keywords
from ..store.database import Database, StoreError
from .parse_task import TaskResult, parse_pages
from .describe import describe_parsed, describe_pending
from .pipeline import OrderedPool, Task
from .scan import FileState, find_documents, normalise
from .stages import Stage, StageContext
from ..progress import ProgressTracker, index_progress

log = logging.getLogger(__name__)

# bump when parsing changes: every document is parsed again (3: column-by-column reading order; 4: boxes in the
# page as shown, /Rotate applied, and turned text read upright — pdf/orientation.py)
PARSER_VERSION = 4


class FileChanged(Exception):
    pass


@dataclass
class _Candidate:
    path: str
    library_id: int | None
    state: FileState
    known: bool


@dataclass
class _Job:
    """One distinct content to parse, with every path that holds it."""
    sha256: str
    paths: list[_Candidate]
    pages: int
    title: str | None
    tasks: list[int] = field(default_factory=list)


class Indexer:
    def __init__(self, db: Database, settings: IndexSettings, stages: Sequence[Stage] = ()):
        """`stages`: the index stages in the order they run (index.stages.STAGES and the page images)."""
        self.db = db
        self.settings = settings
        self.stages = stages
        self.stage_seconds: dict[str, float] = {}

    def run(self, paths: list[str], progress: ProgressFn | None = None,
            cancel: threading.Event | None = None, enrich: bool = True) -> IndexReport:
        started = time.monotonic()
        cancel = cancel or threading.Event()
        report = IndexReport(stages={stage.name: StageResult(stage.reported) for stage in self.stages})
        emit = progress or (lambda _p: None)
        emit(index_progress("scanning"))

        candidates = self._scan(paths, report)
        jobs = self._plan(candidates, report, emit)
        if jobs and not cancel.is_set():
            self._parse(jobs, report, emit, cancel)
        if not cancel.is_set():
            describe_pending(self.db, cancel)  # titles of documents indexed before they were kept
        # searchable by keywords from here on (each document as it committed); the background passes follow
        if enrich:
            self._enrich(report, emit, cancel)
        report.cancelled = cancel.is_set()
        report.stage_seconds = {k: round(v, 3) for k, v in self.stage_seconds.items()}
        report.seconds = round(time.monotonic() - started, 3)
        log.info("index %s: %s", paths, {k: v for k, v in report.as_json().items() if k != "errors"})
        emit(index_progress("cancelled" if report.cancelled else "done", len(jobs), len(jobs),
                            report.pages, report.pages, eta_seconds=0.0))
        return report

    # -- scanning: what is on disk against what the store knows -------------------------------

    def _scan(self, paths: list[str], report: IndexReport) -> list[_Candidate]:
        candidates: list[_Candidate] = []
        with self.db.transaction() as cur:
            for raw in paths:
                root = normalise(raw)
                if not os.path.exists(root):
                    # never treat a missing (unmounted?) folder as "everything deleted"
                    report.errors[root] = "path not found"
                    continue
                library_id = catalog.add_library(cur, root) if os.path.isdir(root) else None
                on_disk, unreadable = find_documents(root)
                for folder in unreadable:
                    report.errors[folder] = "cannot list folder (permission denied?); its files are kept"
                known = catalog.known_files(cur, root)
                for gone in sorted(set(known) - set(on_disk)):
                    if any(gone.startswith(folder.rstrip(os.sep) + os.sep) for folder in unreadable):
                        continue
                    catalog.remove_file(cur, gone)
                    report.removed += 1
                for path in on_disk:
                    try:
                        state = FileState.of(path)
                    except OSError as exc:
                        report.errors[path] = f"cannot read file: {exc.strerror}"
                        continue
                    old = known.get(path)
                    if old and self._is_current(old, state):
                        report.unchanged += 1
                        continue
                    candidates.append(_Candidate(path, library_id, state, known=old is not None))
        return candidates

    @staticmethod
    def _is_current(known: tuple, state: FileState) -> bool:
        """Nothing to do: same size and mtime, and indexed by this parser (or failed, and not touched
        since: a broken file is not parsed again on every run; editing or `touch`ing it retries)."""
        size, mtime, status, parser_version = known
        if (size, mtime) != (state.size, state.mtime):
            return False
        return status == FileStatus.ERROR.value or (status == FileStatus.INDEXED.value
                                                    and parser_version == PARSER_VERSION)

    def _plan(self, candidates: list[_Candidate], report: IndexReport, emit: ProgressFn) -> list[_Job]:
        """Hash candidates; reuse documents already indexed (moves, renames, copies); queue the rest.

        Files are read before the transaction opens: hashing a large library must not hold the writer.
        """
        hashes: dict[str, str] = {}
        failures: dict[str, str] = {}
        for done, cand in enumerate(candidates):
            emit(index_progress("scanning", done, len(candidates), item=cand.path))
            try:
                hashes[cand.path] = sha256_of(cand.path)
            except FileNotFoundError:
                failures[cand.path] = ""  # vanished: handled like a deletion below
            except OSError as exc:
                failures[cand.path] = f"cannot read file: {exc.strerror or exc}"
        jobs: dict[str, _Job] = {}
        with self.db.transaction() as cur:
            for cand in candidates:
                if cand.path in failures:
                    if failures[cand.path]:
                        self._fail(cur, cand, failures[cand.path], report)
                    else:
                        catalog.remove_file(cur, cand.path)
                    continue
                sha = hashes[cand.path]
                existing = catalog.document_by_hash(cur, sha, PARSER_VERSION)
                if existing is not None:
                    catalog.set_file(cur, cand.path, library_id=cand.library_id, doc_id=existing,
                                     size=cand.state.size, mtime=cand.state.mtime, status=FileStatus.INDEXED)
                    self._count_done(cand, report)
                    continue
                if sha in jobs:
                    jobs[sha].paths.append(cand)
                    continue
                try:
                    with open_document(cand.path) as doc:
                        pages, title = doc.page_count, (doc.metadata or {}).get("title") or None
                except DocumentError as exc:
                    self._fail(cur, cand, str(exc), report)
                    continue
                jobs[sha] = _Job(sha, [cand], pages, title)
            for job in jobs.values():
                for cand in job.paths:  # visible as pending in `docqa status` while we work
                    catalog.set_file_keeping_document(cur, cand.path, library_id=cand.library_id,
                                                      size=cand.state.size, mtime=cand.state.mtime,
                                                      status=FileStatus.PENDING)
            catalog.drop_orphan_documents(cur)
        return list(jobs.values())

    # -- parsing and writing, one transaction per document ------------------------------------

    def _parse(self, jobs: list[_Job], report: IndexReport, emit: ProgressFn,
               cancel: threading.Event) -> None:
        s = self.settings
        tasks: list[Task] = []
        for index, job in enumerate(jobs):
            for first in range(1, job.pages + 1, s.pages_per_task):
                job.tasks.append(len(tasks))
                last = min(job.pages, first + s.pages_per_task - 1)
                tasks.append(Task(index, (job.paths[0].path, first, last, s)))
        pipeline = OrderedPool(
            parse_pages, tasks, s.workers,
            on_crash=lambda: TaskResult(error="the PDF parser process crashed on this file"),
            timeout=s.task_timeout_seconds,
            on_timeout=lambda: TaskResult(error=f"the PDF parser gave up on this file: {s.pages_per_task} pages took "
                                                f"over {s.task_timeout_seconds:.0f} s (index.task_timeout_seconds)"))
        progress = ProgressTracker(len(jobs), sum(j.pages for j in jobs), emit)
        try:
            for index, job in enumerate(jobs):
                if cancel.is_set():
                    break
                progress.start_document(job.paths[0].path)
                try:
                    self._write_job(job, pipeline, progress, cancel)
                except Cancelled:
                    pipeline.skip_job(index)
                    break
                except (DocumentError, FileChanged, OSError) as exc:
                    pipeline.skip_job(index)
                    self._record_failure(job, str(exc), report, changed=isinstance(exc, FileChanged))
                    continue
                except StoreError as exc:  # disk full, I/O error: this document rolled back; stop here
                    raise StoreError(f"{exc}; stopped while indexing {job.paths[0].path}, "
                                     "everything indexed before is kept") from exc
                report.pages += job.pages
                for cand in job.paths:
                    self._count_done(cand, report)
                progress.finish_document()
        finally:
            pipeline.close(kill=cancel.is_set())

    def _enrich(self, report: IndexReport, emit: ProgressFn, cancel: threading.Event) -> None:
        """The stages in order, each over whatever it still owes (this run's documents or earlier ones)."""
        ctx = StageContext(self.db, self.settings, emit, cancel, report.errors, self._add_stage_time)
        for stage in self.stages:
            if cancel.is_set():
                break
            result = report.stages[stage.name]
            result.note = stage.enabled(self.settings) or ""
            if result.note:
                continue
            try:
                result.done = stage.run(ctx)
            except StageSkipped as skipped:
                result.note = str(skipped)

    def _add_stage_time(self, seconds: dict[str, float]) -> None:
        for stage, spent in seconds.items():
            self.stage_seconds[stage] = self.stage_seconds.get(stage, 0.0) + spent

    def _write_job(self, job: _Job, pipeline: OrderedPool, progress: "ProgressTracker",
                   cancel: threading.Event) -> None:
        with self.db.transaction() as cur:
            doc_id = content.insert_document(cur, sha256=job.sha256, size=job.paths[0].state.size,
                                             title=job.title, page_count=job.pages, parser_version=PARSER_VERSION)
            first_page = None
            for task_index in job.tasks:
                result = pipeline.result(task_index)
                if result.error:
                    self._check_unchanged(job)  # a file replaced mid-parse is "changed", not broken
                    raise DocumentError(result.error)
                self._add_stage_time(result.seconds)
                first_page = first_page or next((p for p in result.pages if p.number == 1), None)
                content.insert_pages(self.db, cur, doc_id, result.pages)
                content.insert_chunks(self.db, cur, doc_id, result.chunks)
                progress.pages_parsed(len(result.pages))
                if cancel.is_set():
                    raise Cancelled()  # rolls this document back; it stays pending
            self._check_unchanged(job)
            describe_parsed(cur, doc_id, job.paths[0].path, first_page)
            for cand in job.paths:
                catalog.set_file(cur, cand.path, library_id=cand.library_id, doc_id=doc_id,
                                 size=cand.state.size, mtime=cand.state.mtime, status=FileStatus.INDEXED)
            keywords.index_document(cur, doc_id)  # searchable by keywords from this commit on
            catalog.drop_orphan_documents(cur)  # the previous version of a changed file

    @staticmethod
    def _check_unchanged(job: _Job) -> None:
        for cand in job.paths:
            try:
                now = FileState.of(cand.path)
            except FileNotFoundError:
                raise FileChanged("file vanished while it was being indexed") from None
            if now != cand.state:
                raise FileChanged("file changed while it was being indexed; it will be indexed again")

    def _record_failure(self, job: _Job, reason: str, report: IndexReport, changed: bool) -> None:
        with self.db.transaction() as cur:
            for cand in job.paths:
                if not os.path.exists(cand.path):
                    catalog.remove_file(cur, cand.path)  # gone: the index follows the disk
                    catalog.drop_orphan_documents(cur)
                    report.removed += 1
                elif changed:  # no size/mtime recorded: the next scan picks it up again
                    catalog.set_file_keeping_document(cur, cand.path, library_id=cand.library_id, size=None,
                                                      mtime=None, status=FileStatus.PENDING, error=reason)
                    report.errors[cand.path] = reason
                else:
                    self._fail(cur, cand, reason, report)

    @staticmethod
    def _fail(cur, cand: _Candidate, reason: str, report: IndexReport) -> None:
        log.warning("cannot index %s: %s", cand.path, reason)
        catalog.set_file_keeping_document(cur, cand.path, library_id=cand.library_id, size=cand.state.size,
                                          mtime=cand.state.mtime, status=FileStatus.ERROR, error=reason)
        report.failed += 1
        report.errors[cand.path] = reason

    @staticmethod
    def _count_done(cand: _Candidate, report: IndexReport) -> None:
        if cand.known:
            report.updated += 1
        else:
            report.added += 1

    def remove(self, path: str) -> int:
        """Forget a file or a whole folder (the files on disk are not touched)."""
        target = normalise(path)
        with self.db.transaction() as cur:
            known = catalog.known_files(cur, target)
            for p in known:
                catalog.remove_file(cur, p)
            catalog.remove_library(cur, target)
            catalog.drop_orphan_documents(cur)
        return len(known)
