"""The page-image index stage: embed every page the current page embedder has not embedded yet.

It has the shape of index/stages (engines do not import each other: the service hands it to the indexer) and
runs last, after text indexing, so documents are searchable by text first. Commits every few pages: a crash or
a cancel loses at most those, and the next run resumes with the pages still missing — new or changed documents
only, since a changed document gets new page rows and a removed one takes its vectors with it.
"""
from __future__ import annotations

import logging
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from dataclasses import dataclass
from itertools import groupby
from typing import TYPE_CHECKING, Protocol

from ..components import is_installed, missing_message
from ..domain import Reported, StageSkipped, StageStatus
from ..errors import ModelError
from ..host import nvidia_driver_present
from ..errors import DocumentError
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
NOT_INSTALLED = "off (visual retrieval is not installed)"
NOT_INSTALLED_HINT = missing_message("visual")
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
        if not is_installed("visual"):
            return NOT_INSTALLED
        return None if self.models.resolved() else NO_EMBEDDER

    def status(self, cur, settings: IndexSettings) -> StageStatus:
        resolved = self.models.resolved()
        done, pending = enrichment.pages_embedded(cur, resolved.name if resolved else None)
        why_not = self.enabled(settings)
        if why_not is None and settings.visual == "auto" and pending and not _gpu_likely():
            why_not = NO_GPU  # what run() will find (without importing torch here to ask)
        hint = {NOT_INSTALLED: NOT_INSTALLED_HINT, NO_EMBEDDER: EMBEDDER_HINT, NO_GPU: GPU_HINT}.get(why_not or "", "")
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


@dataclass(frozen=True)
class _PendingPage:
    doc_id: int
    page: int
    image: Image


@dataclass(frozen=True)
class _Unreadable:
    """A document whose remaining pages cannot be rendered any more (vanished or damaged since text indexing:
    the watcher will see to it)."""
    doc_id: int
    path: str | None
    pages_left: int
    reason: str


def _pending_images(todo: list[tuple[int, int]], paths: dict[int, str], visual_tokens: int
                    ) -> Iterator[_PendingPage | _Unreadable]:
    """Every pending page's image, document after document, rendered as it is iterated; a document that fails
    ends with an _Unreadable in its place and the stream goes on with the next."""
    for doc_id, group in groupby(todo, key=lambda item: item[0]):
        pages = [page for _, page in group]
        path, rendered = paths.get(doc_id), 0
        try:
            if path is None:
                raise OSError("no file on disk refers to this document any more")
            with closing(page_images(path, pages, visual_tokens)) as images:  # closes the PDF, even on a cancel
                for number, image in images:
                    rendered += 1
                    yield _PendingPage(doc_id, number, image)
        except (DocumentError, OSError) as exc:
            yield _Unreadable(doc_id, path, len(pages) - rendered, f"page images not embedded: {exc}")


class _PageEmbedding:
    """One run's embedding of `todo` pages, committing every few pages. Batches run across documents: a library
    of short documents fills the GPU's batch as well as one long one (the H200 check's 64 pages from 20 documents
    went through in batches of ~3 pages when each document was batched on its own)."""

    def __init__(self, db: Database, embedder: PageEmbedder, commit_pages: int = 8):
        self.db, self.embedder, self.commit_pages = db, embedder, max(1, commit_pages)

    def run(self, todo: list[tuple[int, int]], emit: ProgressFn, cancel: threading.Event,
            errors: dict[str, str]) -> int:
        paths = catalog.doc_paths(self.db.cursor())
        progress = _DocumentProgress(paths, ProgressTracker(
            len({doc for doc, _ in todo}), len(todo), emit, phase=PageImages.phase, unit="page images",
            rate_by_work=True))
        stored = 0
        waiting: list[page_vectors.StoredPage] = []
        images = _pending_images(todo, paths, self.embedder.visual_tokens)  # iterated on the worker thread
        with PrefetchedBatches(images, self.embedder) as prefetched:
            for batch in prefetched:
                if cancel.is_set():
                    break
                started = time.perf_counter()
                try:
                    embedded = self.embedder.embed_prepared(batch.prepared) if batch.pages else []
                except Cancelled:
                    break
                waiting += [stored_page(p.doc_id, p.page, vectors) for p, vectors in zip(batch.pages, embedded)]
                progress.batch_done(batch, time.perf_counter() - started, errors)
                if len(waiting) >= self.commit_pages:
                    stored += self._commit(waiting)
                    waiting = []
        progress.finish()
        return stored + self._commit(waiting)  # a cancel keeps what was embedded

    def _commit(self, batch: list[page_vectors.StoredPage]) -> int:
        if batch:
            with self.db.transaction() as cur:
                page_vectors.save(self.db, cur, self.embedder.name, batch)
        return len(batch)


class _DocumentProgress:
    """The tracker's documents as batches that span several of them go by: a document starts with its first
    page or failure in the stream and is finished when the next one starts."""

    def __init__(self, paths: dict[int, str], tracker: ProgressTracker):
        self.paths, self.tracker = paths, tracker
        self.current: int | None = None

    def batch_done(self, batch: "_Batch", seconds: float, errors: dict[str, str]) -> None:
        share = seconds / max(1, len(batch.pages))  # the embedding's time, shared out by pages
        for item in batch.items:
            self._enter(item.doc_id)
            if isinstance(item, _Unreadable):
                errors[item.path or str(item.doc_id)] = item.reason
                self.tracker.skip(item.pages_left)
            else:
                self.tracker.pages_parsed(1, share)

    def _enter(self, doc_id: int) -> None:
        if doc_id != self.current:
            self.finish()
            self.current = doc_id
            self.tracker.start_document(self.paths.get(doc_id))

    def finish(self) -> None:
        if self.current is not None:
            self.tracker.finish_document()
            self.current = None


@dataclass(frozen=True)
class _Batch:
    items: list[_PendingPage | _Unreadable]  # in stream order
    pages: list[_PendingPage]  # the items that are pages
    prepared: PreparedPages | None  # the pages' images through the processor; None when there are none


class PrefetchedBatches:
    """Batches of up to the embedder's batch size of pages from `items` (_pending_images, which renders as it is
    iterated), each put through the processor on a worker thread while the model embeds the batch before: on a
    GPU that CPU work would otherwise leave it idle. The worker thread alone iterates `items`, so it alone opens
    and closes the PDFs."""

    def __init__(self, items: Iterator[_PendingPage | _Unreadable], embedder: PageEmbedder):
        self._embedder = embedder
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="page-prefetch")
        self._items = iter(items)
        self._next = self._pool.submit(self._load)

    def _load(self) -> _Batch:
        items: list[_PendingPage | _Unreadable] = []
        pages: list[_PendingPage] = []
        for item in self._items:
            items.append(item)
            if isinstance(item, _PendingPage):
                pages.append(item)
                if len(pages) >= self._embedder.batch_size:
                    break
        return _Batch(items, pages, self._embedder.prepare([p.image for p in pages]) if pages else None)

    def __iter__(self) -> Iterator[_Batch]:
        while True:
            batch = self._next.result()
            if not batch.items:
                return
            self._next = self._pool.submit(self._load)
            yield batch

    def __enter__(self) -> "PrefetchedBatches":
        return self

    def __exit__(self, *_exc) -> None:
        self._next.cancel()  # a batch being prepared finishes first: the close below waits for it
        close = getattr(self._items, "close", None)  # a generator's: closes the PDF being rendered
        if close is not None:
            self._pool.submit(close).result()
        self._pool.shutdown()


def _gpu_likely() -> bool:
    """Whether run() will find a CUDA GPU, asked cheaply: torch's answer if it is loaded already, else whether
    an NVIDIA driver is there at all."""
    torch = sys.modules.get("torch")
    if torch is not None:
        return torch.cuda.is_available()
    return nvidia_driver_present()


def _has_cuda() -> bool:
    from ..vectors.torch_runtime import import_torchvision

    import_torchvision()
    import torch

    return torch.cuda.is_available()
