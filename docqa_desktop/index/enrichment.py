"""The background passes that follow parsing: layout analysis and chunk embeddings (page images are the visual
stage's, visual/stage.py). Documents are keyword-searchable before any of them runs.

Each pass takes documents in priority order (store/enrichment.py: asked-about, then newest), commits as it
goes, stops at a cancel, and on the next run resumes with what is still missing, whatever happened in between.
"""
from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from typing import Callable

from ..progress import ProgressFn
from ..settings import IndexSettings
from ..store import catalog, content, enrichment
from ..store.database import Database, StoreError
from .parse_task import LayoutResult, analyse_layout, embed_texts
from .pipeline import OrderedPool, Task
from ..progress import ProgressTracker

log = logging.getLogger(__name__)

StageTimer = Callable[[dict[str, float]], None]  # adds worker seconds per stage to the run's report


class LayoutPass:
    """Layout elements (tables, figures, headers) of every document that has none yet, a document per commit."""

    def __init__(self, db: Database, settings: IndexSettings, add_time: StageTimer):
        self.db, self.settings, self.add_time = db, settings, add_time

    def run(self, emit: ProgressFn, cancel: threading.Event, errors: dict[str, str]) -> int:
        """Analyse the pending documents; returns how many pages were analysed."""
        cur = self.db.cursor()
        paths = catalog.doc_paths(cur)
        todo = [(doc_id, pages) for doc_id, pages in enrichment.documents_without(cur, enrichment.LAYOUT)
                if doc_id in paths]
        if not todo:
            return 0
        s = self.settings
        tasks, by_doc = [], {}
        for index, (doc_id, pages) in enumerate(todo):
            by_doc[doc_id] = []
            for first in range(1, pages + 1, s.pages_per_task):
                by_doc[doc_id].append(len(tasks))
                tasks.append(Task(index, (paths[doc_id], first, min(pages, first + s.pages_per_task - 1), s.device)))
        pool = OrderedPool(analyse_layout, tasks, s.workers,
                           on_crash=lambda: LayoutResult(error="the layout process crashed on this file"),
                           timeout=s.task_timeout_seconds,
                           on_timeout=lambda: LayoutResult(error="layout analysis took over "
                                                                 f"{s.task_timeout_seconds:.0f} s"))
        progress = ProgressTracker(len(todo), sum(pages for _, pages in todo), emit, phase="layout")
        done = 0
        try:
            for doc_id, pages in todo:
                if cancel.is_set():
                    break
                progress.start_document(paths[doc_id])
                results = [pool.result(i) for i in by_doc[doc_id]]
                self.add_time({"layout": sum(r.seconds for r in results)})
                for failed in (r.error for r in results if r.error):
                    # the document stays searchable by its text; its other pages keep their elements
                    errors[paths[doc_id]] = f"layout: {failed}"
                    log.warning("layout of %s: %s", paths[doc_id], failed)
                with self.db.transaction() as write:
                    write.execute("DELETE FROM elements WHERE doc_id = ?", [doc_id])
                    content.insert_elements(self.db, write, doc_id,
                                            {n: found for r in results for n, found in r.elements.items()})
                    enrichment.mark_done(write, doc_id, enrichment.LAYOUT)
                done += pages
                progress.pages_parsed(pages)
                progress.finish_document()
        finally:
            pool.close(kill=cancel.is_set())
        return done


class EmbeddingPass:
    """An embedding for every chunk still without one, a committed batch at a time."""

    def __init__(self, db: Database, settings: IndexSettings, add_time: StageTimer):
        self.db, self.settings, self.add_time = db, settings, add_time

    def run(self, emit: ProgressFn, cancel: threading.Event) -> int:
        """Embed the pending chunks; returns how many were embedded."""
        pending = content.pending_chunks(self.db.cursor())
        if not pending:
            return 0
        size = self.settings.embed_batch
        ids = [pending[start:start + size] for start in range(0, len(pending), size)]
        pool = OrderedPool(embed_texts, _TextBatches(self.db, ids), self.settings.workers,
                           on_crash=lambda: (None, 0.0))
        progress = ProgressTracker(1, len(pending), emit, phase="embedding", unit="chunks")
        done = 0
        try:
            for index, chunk_ids in enumerate(ids):
                if cancel.is_set():
                    break
                vectors, seconds = pool.result(index)
                if vectors is None:
                    raise StoreError("the embedding process crashed; run the index again to resume")
                self.add_time({"embed": seconds})
                with self.db.transaction() as write:
                    content.set_embeddings(self.db, write, chunk_ids, vectors)
                done += len(chunk_ids)
                progress.pages_parsed(len(chunk_ids))
        finally:
            pool.close(kill=cancel.is_set())
        return done


class _TextBatches(Sequence[Task]):
    """The embedding tasks, each batch's texts read from the store when the pool gets to it: the pending chunks
    of a large import are too many to hold (~0.5 KB of text each, 711,000 at 100,000 pages)."""

    def __init__(self, db: Database, batches: list[list[int]]):
        self.db, self.batches = db, batches
        self._last: Task | None = None  # the pool looks at a task twice: whether to skip it, then to submit it

    def __len__(self) -> int:
        return len(self.batches)

    def __getitem__(self, index: int) -> Task:
        if self._last is None or self._last.job != index:
            self._last = Task(index, (content.chunk_texts(self.db.cursor(), self.batches[index]),))
        return self._last
