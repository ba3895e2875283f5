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

from ..pdf.document import PdfError
from ..progress import ProgressTracker
from ..progress import Cancelled, ProgressFn
from ..store import catalog, page_vectors
from ..store.database import Database
from ..vectors.page_embedder import PageEmbedder, PageVectors
from ..pdf.page_images import page_images
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
        progress = ProgressTracker(len(docs), len(todo), emit, phase=PHASE, unit="page images",
                                   rate_by_work=True)
        done = 0
        for doc_id, group in groupby(todo, key=lambda item: item[0]):
            if cancel.is_set():
                break
            pages = [page for _, page in group]
            path = paths.get(doc_id)
            progress.start_document(path)
            try:
                done += self._embed_document(doc_id, path, pages, progress, cancel)
            except (PdfError, OSError) as exc:  # vanished or damaged since text indexing: the watcher will see
                errors[path or str(doc_id)] = f"page images not embedded: {exc}"
                progress.skip(len(pages))
            progress.finish_document()
        return done

    def _embed_document(self, doc_id: int, path: str | None, pages: list[int], progress: ProgressTracker,
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
            progress.pages_parsed(len(chunk), time.perf_counter() - started)
            if len(batch) >= self.commit_pages:
                stored += self._commit(batch)
                batch = []
        return stored + self._commit(batch)  # a cancel keeps what was embedded

    def _commit(self, batch: list[page_vectors.StoredPage]) -> int:
        if batch:
            with self.db.transaction() as cur:
                page_vectors.save(self.db, cur, self.embedder.name, batch)
        return len(batch)
