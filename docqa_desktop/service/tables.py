"""The facade's tables part: a PDF's tables as the product reads them (cells, header rows, spans, boxes), its charts
read as tables after them — from the index when the file is indexed as it is now and its tables stage has run, else
read from the file on the spot.
The exports (table_export.py) and `docqa tables` take them from here."""
from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field

import pymupdf

from ..documents import UnsupportedDocument, open_document
from ..domain import TableOnPage, TextSource
from ..errors import DocQAError, InvalidRequest
from ..index.parse_task import ChartsResult, read_charts, read_tables
from ..index.scan import FileState, normalise
from ..pdf.document import has_text_layer
from ..store import catalog, content, enrichment
from ..store.tables import TABLES, tables_of_document
from .resources import Resources

PageTable = tuple[int, TableOnPage]  # (1-based page, a table of it)


@dataclass(frozen=True)
class FileTables:
    """A file's tables, page by page, and what kept some pages' tables from being read."""
    path: str
    tables: list[PageTable]  # in page order, each page's in reading order
    from_index: bool  # False: read from the file now (not indexed, changed since, or its tables not read yet)
    notes: list[str] = field(default_factory=list)  # pages whose tables cannot be read, and why
    error: str | None = None  # a damaged page ended the reading: the pages before it keep their tables


class Tables:
    def __init__(self, resources: Resources):
        self._resources = resources

    def of_file(self, path: str, pages: Iterable[int] | None = None) -> FileTables:
        """The tables of `pages` (1-based; None: every page) of the PDF at `path`. A missing file, a file that is
        no PDF, or a page beyond the document is an error that names the file and why."""
        path = normalise(path)
        _require_file(path)
        cur = self._resources.db.cursor()
        indexed = catalog.current_document(cur, path, *_state(path))
        if indexed is not None and enrichment.finished(cur, indexed[0], TABLES):
            return _from_index(cur, path, *indexed, pages)
        return _read_now(path, pages, self._resources.settings.index.charts)


def _require_file(path: str) -> None:
    if os.path.isdir(path):
        raise IsADirectoryError(f"cannot read the tables of {path}: it is a folder, not a PDF")
    if not os.path.exists(path):
        raise FileNotFoundError(f"cannot read the tables of {path}: no such file")


def _state(path: str) -> tuple[int, float]:
    state = FileState.of(path)
    return state.size, state.mtime


def _from_index(cur, path: str, doc_id: int, page_count: int, pages: Iterable[int] | None) -> FileTables:
    chosen = _chosen(pages, page_count, path)
    stored = tables_of_document(cur, doc_id, chosen)
    tables = [(page, table) for page in chosen for table in stored.get(page, [])]
    sources = content.text_sources(cur, doc_id)
    return FileTables(path, tables, True, _notes({page: sources[page] for page in chosen}, tables))


def _read_now(path: str, pages: Iterable[int] | None, charts: bool) -> FileTables:
    """The tables the tables stage would read with no layout regions to go by (every page whole), then the charts
    the charts stage would read from their vector marks (with `charts`), on the text layer: a page without one
    waits for the index's OCR."""
    with _opened(path) as doc:
        chosen = _chosen(pages, doc.page_count, path)
        sources = {page: TextSource.LAYER if has_text_layer(doc[page - 1]) else TextSource.NONE for page in chosen}
    layer = [page for page, source in sources.items() if source is TextSource.LAYER]
    read = read_tables(path, {page: None for page in layer})
    drawn = read_charts(path, {page: [] for page in layer}) if charts else ChartsResult()
    tables = [(page, table) for page in sorted(set(read.tables) | set(drawn.charts))
              for table in read.tables.get(page, []) + drawn.charts.get(page, [])]
    failure = read.error or drawn.error
    error = f"{path}: {failure}" if failure else None
    return FileTables(path, tables, False, _notes(sources, tables), error)


def _opened(path: str) -> pymupdf.Document:
    try:
        return open_document(path)
    except UnsupportedDocument:
        raise  # its message names the file and the kinds that are read
    except DocQAError as exc:  # the opener's reason ("not a PDF: …"), said of this file
        raise InvalidRequest(f"cannot read the tables of {path}: {exc}") from None


def _chosen(pages: Iterable[int] | None, page_count: int, path: str) -> list[int]:
    """The pages asked for, in order, each once; every page when none are."""
    if pages is None:
        return list(range(1, page_count + 1))
    chosen = sorted(set(pages))
    beyond = [page for page in chosen if not 1 <= page <= page_count]
    if beyond:
        raise InvalidRequest(f"{path} has {page_count} page{'s' * (page_count != 1)}: no page "
                             f"{', '.join(map(str, beyond))}")
    return chosen


def _notes(sources: dict[int, TextSource], tables: list[PageTable]) -> list[str]:
    """Why pages show no table although they may hold one: no text to read them from, or only OCR's."""
    with_tables = {page for page, _ in tables}
    unread = [page for page, source in sources.items() if source is TextSource.NONE]
    scans = [page for page, source in sources.items() if source is TextSource.OCR and page not in with_tables]
    notes = []
    if unread:
        notes.append(f"no text layer on {_pages_said(unread)}: tables there are read only once the file is indexed "
                     "with OCR (`docqa index FILE`; setting index.ocr)")
    if scans:
        notes.append(f"no table was read from the OCR of {_pages_said(scans)} (scanned)")
    return notes


def _pages_said(pages: list[int]) -> str:
    """[3] -> "page 3"; [3, 4, 5, 9] -> "pages 3-5, 9" (in order, runs as ranges)."""
    runs: list[list[int]] = []
    for page in pages:
        if runs and page == runs[-1][-1] + 1:
            runs[-1].append(page)
        else:
            runs.append([page])
    said = ", ".join(str(run[0]) if len(run) == 1 else f"{run[0]}-{run[-1]}" for run in runs)
    return f"page{'s' * (len(pages) > 1)} {said}"
