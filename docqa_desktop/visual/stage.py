"""The indexer's page-image stage: embed every page the current page embedder has not embedded yet.

Runs after text indexing (so documents are searchable by text first). Commits every few pages: a crash or a
cancel loses at most those, and the next run resumes with the pages still missing — new or changed documents
only, since a changed document gets new page rows and a removed one takes its vectors with it.
"""
from __future__ import annotations

import logging
import threading
import time
from itertools import groupby

from ..index.pdf import PdfError
from ..progress import Cancelled, Progress, ProgressFn
from ..store import catalog, page_vectors
from ..store.database import Database
from .embedder import PageEmbedder, PageVectors
from .page_images import page_images
from .search_index import EncodedPage

log = logging.getLogger(__name__)

PHASE = "visual"


def stored_page(doc_id: int, page: int, embedded: PageVectors) -> page_vectors.StoredPage:
    encoded = EncodedPage.from_vectors(embedded.vectors)
    return page_vectors.StoredPage(doc_id, page, encoded.int8, encoded.scales, encoded.pooled_signs, embedded.grid,
                                   embedded.patch_rows)


class VisualStage:
    def __init__(self, db: Database, embedder: PageEmbedder, commit_pages: int = 8):
        self.db, self.embedder, self.commit_pages = db, embedder, max(1, commit_pages)

    def pending(self) -> list[tuple[int, int]]:
        return page_vectors.pages_without_vectors(self.db.cursor(), self.embedder.name)

    def run(self, progress: ProgressFn, cancel: threading.Event, errors: dict[str, str]) -> int:
        """Embed the pending pages; returns how many were stored. Unreadable files go to `errors`."""
        todo = self.pending()
        if not todo:
            return 0
        self.embedder.cancel = cancel
        try:
            return self._run(todo, progress, cancel, errors)
        finally:
            self.embedder.cancel = None

    def _run(self, todo, emit, cancel, errors) -> int:
        paths = catalog.doc_paths(self.db.cursor())
        docs = {doc for doc, _ in todo}
        progress = _ProgressTracker(len(docs), len(todo), emit)
        done = 0
        for doc_id, group in groupby(todo, key=lambda item: item[0]):
            if cancel.is_set():
                break
            pages = [page for _, page in group]
            path = paths.get(doc_id)
            progress.document(path)
            try:
                done += self._embed_document(doc_id, path, pages, progress, cancel)
            except (PdfError, OSError) as exc:  # vanished or damaged since text indexing: the watcher will see
                errors[path or str(doc_id)] = f"page images not embedded: {exc}"
                progress.skip(len(pages))
            progress.document_done()
        return done

    def _embed_document(self, doc_id: int, path: str | None, pages: list[int], progress: "_ProgressTracker",
                        cancel: threading.Event) -> int:
        if path is None:
            raise OSError("no file on disk refers to this document any more")
        stored = 0
        batch: list[page_vectors.StoredPage] = []
        images = page_images(path, pages, self.embedder.visual_tokens)
        while not cancel.is_set():
            chunk = [item for _, item in zip(range(self.embedder.batch_size), images)]
            if not chunk:
                break
            started = time.perf_counter()
            try:
                embedded = self.embedder.embed_pages([image for _, image in chunk])
            except Cancelled:
                break
            batch += [stored_page(doc_id, page, vectors) for (page, _), vectors in zip(chunk, embedded)]
            progress.pages(len(chunk), time.perf_counter() - started)
            if len(batch) >= self.commit_pages:
                stored += self._commit(batch)
                batch = []
        return stored + self._commit(batch)  # a cancel keeps what was embedded

    def _commit(self, batch: list[page_vectors.StoredPage]) -> int:
        if batch:
            with self.db.transaction() as cur:
                page_vectors.save(self.db, cur, self.embedder.name, batch)
        return len(batch)


class _ProgressTracker:
    """Progress with an ETA from the embedding time per page measured so far (the stage's only real cost)."""

    def __init__(self, docs_total: int, pages_total: int, emit: ProgressFn):
        self.docs_total, self.pages_total, self.emit = docs_total, pages_total, emit
        self.docs_done = self.pages_done = 0
        self.seconds = 0.0
        self.current: str | None = None

    def document(self, path: str | None) -> None:
        self.current = path
        self._send()

    def pages(self, count: int, seconds: float) -> None:
        self.pages_done += count
        self.seconds += seconds
        self._send()

    def skip(self, count: int) -> None:
        self.pages_total -= count
        self._send()

    def document_done(self) -> None:
        self.docs_done += 1
        self._send()

    def _send(self) -> None:
        rate = self.pages_done / self.seconds if self.seconds > 0 else 0.0
        eta = (self.pages_total - self.pages_done) / rate if rate > 0 else None
        self.emit(Progress("index", PHASE, self.pages_done, self.pages_total, "page images", self.current,
                           round(rate, 3), None if eta is None else round(eta, 1), self.docs_done, self.docs_total))
