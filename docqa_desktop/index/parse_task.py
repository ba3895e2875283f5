"""The units of work worker processes run: a range of pages of one PDF parsed and chunked, or analysed for
layout; a batch of chunks embedded.

Runs in worker processes (spawned: torch/BLAS threads in the parent do not survive fork well).
Large PDFs become many tasks, so memory stays bounded and both cores work on one big file.
"""
from __future__ import annotations

import os
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from ..domain import BBox, Chunk, Element, ParsedPage, TableOnPage, Word
from ..host import PARSER_WORKER_MEMORY, limit_memory
from ..settings import IndexSettings

if TYPE_CHECKING:
    from .chart_model import Picture


@dataclass
class TaskResult:
    pages: list[ParsedPage] = field(default_factory=list)
    chunks: list[Chunk] = field(default_factory=list)
    error: str | None = None
    seconds: dict[str, float] = field(default_factory=dict)  # stage -> time, for the benchmarks


WORKER_NICENESS = 10  # background work: the app and whatever the user is doing come first


def init_worker(cores: int = 1) -> None:
    """Keep workers quiet (stdout carries --json output), to their share of the cores (BLAS single-threaded,
    ONNX models on `cores` threads) and at a lower priority, so that on a busy CPU the scheduler prefers the
    app's own threads."""
    from threadpoolctl import threadpool_limits

    from .onnx_device import share_cores

    if hasattr(os, "nice"):
        os.nice(WORKER_NICENESS)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.close(devnull)
    threadpool_limits(1)  # workers spawned after the first miss the environment the pool set
    share_cores(cores)
    _exit_with_parent()


def _exit_with_parent(poll_seconds: float = 1.0) -> None:
    """A worker whose docqa process was killed (kill -9, a crash) must not live on holding memory."""
    import multiprocessing
    import threading

    # the pid the pool started us from, not getppid(): a parent killed while this worker was still starting
    # (importing) has already handed it to init, and watching init would keep it alive for good
    spawned_by = multiprocessing.parent_process()
    parent = spawned_by.pid if spawned_by is not None else os.getppid()

    def watch():
        while os.getppid() == parent:
            time.sleep(poll_seconds)
        os._exit(1)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()


# The memory a parser worker may use (host.py says why 4 GB, and how each system limits it)
PARSER_ADDRESS_SPACE = PARSER_WORKER_MEMORY


def _limit_memory() -> None:
    """In worker processes only: a caller parsing in its own process (tests, tools) keeps its limits."""
    import multiprocessing

    if multiprocessing.parent_process() is not None:
        limit_memory(PARSER_ADDRESS_SPACE)


def parse_pages(path: str, first: int, last: int, options: IndexSettings) -> TaskResult:
    """Parse pages first..last (1-based, inclusive). Never raises: errors come back in the result."""
    from .chunking import chunk_page
    from ..documents import open_document
    from ..errors import DocumentError
    from ..pdf.document import page_failure, parse_page

    _limit_memory()  # here, not in init_worker: the embedding workers (torch) share that initializer
    result = TaskResult()
    seconds = result.seconds
    try:
        doc = open_document(path)
    except DocumentError as exc:
        result.error = str(exc)
        return result
    where = {"pages": f"page {first}", "stage": "text extraction"}  # named in the error if a step fails
    try:
        ocr = None
        if options.ocr:
            from .ocr import ocr_page

            def ocr(page):
                where["stage"] = "OCR"
                with _timed(seconds, "ocr"):
                    found = ocr_page(page, options.ocr_dpi, options.device)
                where["stage"] = "text extraction"
                return found
        for number in range(first, min(last, doc.page_count) + 1):
            where["pages"] = f"page {number}"
            ocr_before = seconds.get("ocr", 0.0)
            with _timed(seconds, "text"):
                result.pages.append(parse_page(doc[number - 1], ocr))
            seconds["text"] -= seconds.get("ocr", 0.0) - ocr_before  # text stage excludes OCR
        where["pages"] = f"pages {first}-{last}" if last > first else f"page {first}"
        where["stage"] = "chunking"
        for page in result.pages:
            result.chunks.extend(chunk_page(page.number, page.text, options.chunk_words, options.chunk_overlap))
    except Exception as exc:  # a damaged page: report it for this file, keep the worker alive
        result.error = page_failure(exc, where["pages"], where["stage"])
    finally:
        doc.close()
    return result


@dataclass
class LayoutResult:
    elements: dict[int, list[Element]] = field(default_factory=dict)  # page number -> elements
    error: str | None = None
    seconds: float = 0.0


def analyse_layout(path: str, first: int, last: int, device: str = "auto") -> LayoutResult:
    """Layout elements of pages first..last (1-based, inclusive): the background layout pass's unit of work.
    Never raises: errors come back in the result."""
    from .layout import layout_elements

    def work(doc, result: LayoutResult) -> None:
        result.elements = layout_elements(doc, list(range(first, min(last, doc.page_count) + 1)), device)

    return _background_pass(path, LayoutResult(), work, f"pages {first}-{last}", "layout analysis")


@dataclass
class TablesResult:
    tables: dict[int, list[TableOnPage]] = field(default_factory=dict)  # page number -> tables read
    error: str | None = None
    seconds: float = 0.0


def read_tables(path: str, regions: dict[int, list[BBox] | None],
                scanned: dict[int, list[Word]] | None = None) -> TablesResult:
    """The tables of the pages in `regions` ({page: the layout model's table boxes, or None for the whole page}):
    the background tables pass's unit of work; a page in `scanned` (its OCR words) is read from those words.
    Never raises: errors come back in the result; the pages read before a damaged one keep their tables."""
    from .tables import scanned_tables, tables_on

    def work(doc, result: TablesResult) -> None:
        for number, boxes in sorted(regions.items()):
            if scanned and number in scanned:
                result.tables[number] = scanned_tables(scanned[number], boxes)
            elif number <= doc.page_count:
                result.tables[number] = tables_on(doc[number - 1], boxes)

    return _background_pass(path, TablesResult(), work, "a page", "reading its tables")


@dataclass
class ChartsResult:
    charts: dict[int, list[TableOnPage]] = field(default_factory=dict)  # page number -> charts read from their marks
    pictures: dict[int, list[Picture]] = field(default_factory=dict)  # page number -> raster charts, for the model
    error: str | None = None
    seconds: float = 0.0


@dataclass(frozen=True)
class RasterPass:
    """What the worker prepares for the vision model besides the vector charts (chart_model.py)."""
    scanned: dict[int, tuple[list[BBox], list[Word]]]  # pages read by OCR: their pictures, and their OCR words
    ocr_device: str | None  # a born-digital page's raster picture is OCR'd on it for its printed numbers; None: not


def read_charts(path: str, pages: dict[int, list[BBox]], raster: RasterPass | None = None) -> ChartsResult:
    """The charts of the born-digital pages in `pages` ({page: the layout's picture boxes}) read from their vector
    marks: the background charts pass's unit of work. With `raster`, the pictures that may be raster charts (those
    pages' pictures with no vector marks, and the scanned pages' pictures) are rendered with their printed words,
    for the vision model. Never raises: errors come back in the result; the pages read before a damaged one keep
    their charts."""
    from .chart_pages import layer_words, picture, raster_pictures, vector_charts

    def work(doc, result: ChartsResult) -> None:
        for number, pictures in sorted(pages.items()):
            if number > doc.page_count:
                continue
            page = doc[number - 1]
            drawings = page.get_cdrawings()
            result.charts[number] = vector_charts(page, pictures, drawings)
            boxes = raster_pictures(page, pictures, drawings, result.charts[number]) if raster else []
            if boxes:
                words = layer_words(page) + _ocr_words(page, boxes, raster.ocr_device)
                result.pictures[number] = [p for p in (picture(page, box, words) for box in boxes) if p]
        for number, (boxes, words) in sorted(raster.scanned.items() if raster else ()):
            if number <= doc.page_count:
                page = doc[number - 1]
                result.pictures[number] = [p for p in (picture(page, box, words) for box in boxes) if p]

    return _background_pass(path, ChartsResult(), work, "a page", "reading its charts")


def _ocr_words(page, boxes: list[BBox], device: str | None) -> list[Word]:
    if device is None:
        return []
    from .ocr import ocr_region

    return [word for box in boxes for word in ocr_region(page, box, device=device)]


def _background_pass(path: str, result, work, pages: str, stage: str):
    """`work(doc, result)` on the opened document; a document that will not open, or a page that fails, ends it
    with `result.error` set (the document keeps its text). `result.seconds`: the time it took."""
    from ..documents import open_document
    from ..errors import DocumentError
    from ..pdf.document import page_failure

    _limit_memory()
    started = time.perf_counter()
    try:
        doc = open_document(path)
    except DocumentError as exc:
        result.error = str(exc)
        return result
    try:
        work(doc, result)
    except Exception as exc:  # a damaged page
        result.error = page_failure(exc, pages, stage)
    finally:
        doc.close()
        result.seconds = time.perf_counter() - started
    return result


def embed_texts(texts: list[str]) -> tuple[np.ndarray, float]:
    """Embeddings of a batch of chunk texts, and the seconds they took."""
    from ..vectors.text_embedder import bulk_embedder

    started = time.perf_counter()
    vectors = bulk_embedder().embed(texts)
    return vectors, time.perf_counter() - started


@contextmanager
def _timed(seconds: dict[str, float], stage: str):
    started = time.perf_counter()
    try:
        yield
    finally:
        seconds[stage] = seconds.get(stage, 0.0) + time.perf_counter() - started
