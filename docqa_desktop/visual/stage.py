"""The page-image index stage: embed every page the current page embedder has not embedded yet.

It has the shape of index/stages (engines do not import each other: the service hands it to the indexer) and
runs last, after text indexing, so documents are searchable by text first. Commits every few pages: a crash or
a cancel loses at most those, and the next run resumes with the pages still missing — new or changed documents
only, since a changed document gets new page rows and a removed one takes its vectors with it.
"""
from __future__ import annotations

import logging
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from itertools import groupby, islice
from typing import TYPE_CHECKING, Protocol

from ..domain import Reported, StageSkipped, StageStatus
from ..errors import ModelError
from ..pdf.document import PdfError
from ..progress import ProgressTracker
from ..progress import Cancelled, ProgressFn
from ..settings import IndexSettings
from ..store import catalog, enrichment, page_vectors
from ..store.database import Database
from ..vectors.page_embedder import PageEmbedder, PageVectors, PreparedPages
from ..pdf.page_images import page_images
from .search_index import EncodedPage

if TYPE_CHECKING:
    from PIL.Image import Image

    from .provider import VisualModels

log = logging.getLogger(__name__)

# Why the stage is off, in plain words (its row in `docqa status` and the app, its line in the index report), and
# how to turn it on.
NO_EMBEDDER = "off (no page embedder installed)"
EMBEDDER_HINT = "`docqa models pull colqwen2.5-v0.2`, or import a folder"
NO_GPU = "off (no GPU)"
GPU_HINT = ("the page embedder needs ~20-70 s per page on a CPU, ~7-25 s with index.visual_cpu_int8; "
            "set index.visual = \"on\" to embed anyway, resumably")
SWITCHED_OFF = "off (index.visual = \"off\")"


class RunContext(Protocol):
    """What this stage uses of the indexer's index.stages.StageContext."""
    db: Database
    settings: IndexSettings
    progress: ProgressFn
    cancel: threading.Event
    errors: dict[str, str]
    add_time: Callable[[dict[str, float]], None]


class PageImages:
    name = "page images"
    unit = "pages"
    phase = "visual"
    phase_text = "Embedding page images of {name} — {done}/{total}{eta}"
    bar_text = "embedding {done}/{total} {unit}"
    reported = Reported(json_count="pages_embedded_visually", json_note="visual_stage",
                        line="page images: {done} embedded")

    def __init__(self, models: VisualModels):
        self.models = models  # the service's page embedder, loaded once and shared with visual search

    def enabled(self, settings: IndexSettings) -> str | None:
        if settings.visual == "off":
            return SWITCHED_OFF
        return None if self.models.resolved() else NO_EMBEDDER

    def status(self, cur, settings: IndexSettings) -> StageStatus:
        resolved = self.models.resolved()
        done, pending = enrichment.pages_embedded(cur, resolved.name if resolved else None)
        why_not = self.enabled(settings)
        if why_not is None and settings.visual == "auto" and pending and not _gpu_likely():
            why_not = NO_GPU  # what run() will find (without importing torch here to ask)
        hint = {NO_EMBEDDER: EMBEDDER_HINT, NO_GPU: GPU_HINT}.get(why_not or "", "")
        return StageStatus(self.name, done, pending, self.unit, why_not or "", off=why_not is not None, hint=hint)

    def run(self, ctx: RunContext) -> int:
        """Embed the pending pages; returns how many were stored. Unreadable files go to `ctx.errors`."""
        todo = page_vectors.pages_without_vectors(ctx.db.cursor(), self.models.resolved().name)
        if not todo:
            return 0  # up to date: no need to load the model
        if ctx.settings.visual == "auto" and not _has_cuda():
            raise StageSkipped(NO_GPU)
        try:
            embedder = self.models.embedder()
        except ModelError as exc:  # a broken model must not fail the text indexing that already happened
            raise StageSkipped(f"failed: {exc}") from exc
        started = time.monotonic()
        embedder.cancel = ctx.cancel
        try:
            done = _PageEmbedding(ctx.db, embedder, ctx.settings.visual_commit_pages).run(
                todo, ctx.progress, ctx.cancel, ctx.errors)
        finally:
            embedder.cancel = None
        ctx.add_time({"visual": time.monotonic() - started})
        return done


def stored_page(doc_id: int, page: int, embedded: PageVectors) -> page_vectors.StoredPage:
    encoded = EncodedPage.from_vectors(embedded.vectors)
    return page_vectors.StoredPage(doc_id, page, encoded.int8, encoded.scales, encoded.pooled_signs, embedded.grid,
                                   embedded.patch_rows)


class _PageEmbedding:
    """One run's embedding of `todo` pages, a document at a time, committing every few pages."""

    def __init__(self, db: Database, embedder: PageEmbedder, commit_pages: int = 8):
        self.db, self.embedder, self.commit_pages = db, embedder, max(1, commit_pages)

    def run(self, todo: list[tuple[int, int]], emit: ProgressFn, cancel: threading.Event,
            errors: dict[str, str]) -> int:
        paths = catalog.doc_paths(self.db.cursor())
        docs = {doc for doc, _ in todo}
        progress = ProgressTracker(len(docs), len(todo), emit, phase=PageImages.phase, unit="page images",
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
        images = page_images(path, pages, self.embedder.visual_tokens)  # runs on the worker thread, lazily
        with PrefetchedBatches(images, self.embedder) as prefetched:
            for numbers, prepared in prefetched:
                if cancel.is_set():
                    break
                started = time.perf_counter()
                try:
                    embedded = self.embedder.embed_prepared(prepared)
                except Cancelled:
                    break
                batch += [stored_page(doc_id, page, vectors) for page, vectors in zip(numbers, embedded)]
                progress.pages_parsed(len(numbers), time.perf_counter() - started)
                if len(batch) >= self.commit_pages:
                    stored += self._commit(batch)
                    batch = []
        return stored + self._commit(batch)  # a cancel keeps what was embedded

    def _commit(self, batch: list[page_vectors.StoredPage]) -> int:
        if batch:
            with self.db.transaction() as cur:
                page_vectors.save(self.db, cur, self.embedder.name, batch)
        return len(batch)


class PrefetchedBatches:
    """(page numbers, prepared pages) in batches of the embedder's batch size, each batch's images drawn from
    `images` ((page, PIL image) pairs, e.g. page_images, which renders as it is iterated) and put through the
    processor on a worker thread while the model embeds the batch before: on a GPU that CPU work would otherwise
    leave it idle. The worker thread alone iterates `images`, so it alone opens and closes the PDF."""

    def __init__(self, images: Iterator[tuple[int, Image]], embedder: PageEmbedder):
        self._embedder = embedder
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="page-prefetch")
        self._images = iter(images)
        self._next = self._pool.submit(self._load)

    def _load(self) -> tuple[list[int], PreparedPages | None]:
        chunk = list(islice(self._images, self._embedder.batch_size))
        prepared = self._embedder.prepare([image for _, image in chunk]) if chunk else None
        return [page for page, _ in chunk], prepared

    def __iter__(self) -> Iterator[tuple[list[int], PreparedPages]]:
        while True:
            numbers, prepared = self._next.result()
            if not numbers:
                return
            self._next = self._pool.submit(self._load)
            yield numbers, prepared

    def __enter__(self) -> "PrefetchedBatches":
        return self

    def __exit__(self, *_exc) -> None:
        self._next.cancel()  # a batch being prepared finishes first: the close below waits for it
        close = getattr(self._images, "close", None)  # a generator's: page_images closes its PDF
        if close is not None:
            self._pool.submit(close).result()
        self._pool.shutdown()


def _gpu_likely() -> bool:
    """Whether run() will find a CUDA GPU, asked cheaply: torch's answer if it is loaded already, else whether
    an NVIDIA driver is there at all."""
    torch = sys.modules.get("torch")
    if torch is not None:
        return torch.cuda.is_available()
    return os.path.exists("/proc/driver/nvidia/version") or os.path.exists("/dev/nvidia0")


def _has_cuda() -> bool:
    from ..vectors.torch_runtime import import_torchvision

    import_torchvision()
    import torch

    return torch.cuda.is_available()
