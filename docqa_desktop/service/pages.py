"""The facade's pages part: naming documents, drawing their pages (whole, fitted, thumbnails), finding pages
by text, by page image, or both, and finding a text in one document (its occurrences, boxed)."""
from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Callable

from ..domain import BBox, DocumentFilter, SearchHit
from ..errors import InvalidRequest, UnknownDocument
from ..pdf.find import PageMatches, find_in_words, might_contain, wanted_text
from ..pdf.render import RenderedPage, ThumbnailCache, render
from ..pdf.text_height import text_height
from ..progress import Progress, ProgressFn
from ..retrieval.page_retriever import PageRetriever, SearchMode
from ..retrieval.snippets import matching_words
from ..store import catalog, content
from .resources import Resources

FIND_PROGRESS_PAGES = 50  # pages read between two progress reports of a find


class Pages:
    def __init__(self, resources: Resources):
        self._resources = resources

    def resolve_documents(self, names: list[str] | None) -> list[int] | None:
        """Document ids for --doc arguments; None (whole library) when no names are given."""
        if not names:
            return None
        resolved = catalog.resolve_documents(self._resources.db.cursor(), names)
        missing = [name for name, ids in resolved.items() if not ids]
        if missing:
            raise UnknownDocument(f"no indexed document matches {', '.join(map(repr, missing))}")
        return sorted({i for ids in resolved.values() for i in ids})

    def page_image(self, doc: str, page: int, max_side: int = 1600) -> bytes:
        """PNG of a page of an indexed document, rendered from whichever of its paths still exists."""
        return self.rendered_page(doc, page, max_side).png

    def rendered_page(self, doc: str, page: int, max_width: int = 1600, max_height: int | None = None) -> RenderedPage:
        """The page image, fitted to the given pixels, with the page's size in points and the document's
        page count (for viewers)."""
        _, path = self._document_on_disk(doc)
        return render(path, page, max_width, max_height)

    def thumbnail(self, doc: str, page: int) -> Path:
        sha, path = self._document_on_disk(doc)
        return ThumbnailCache(self._resources.settings.locations.thumbnails).get(sha, path, page)

    def find(self, doc: str, text: str, progress: ProgressFn | None = None, cancel: threading.Event | None = None,
             found: Callable[[PageMatches], None] | None = None) -> list[PageMatches]:
        """Every occurrence of `text` in a document, case and line breaks ignored, page by page from the first,
        boxed in PDF points. It reads the words the index read (the text layer, or OCR's on a scanned page), so a
        scan is searchable too. `found` hears of each page with matches as soon as it is read; once `cancel` is
        set it stops, with what it found so far."""
        wanted = wanted_text(text)
        if not wanted:
            raise InvalidRequest("the text to find is empty")
        doc_id = self._one_document(doc)
        cur = self._resources.db.cursor()
        pages = content.pages_in_scope(cur, [doc_id])
        texts = content.page_texts(cur, pages)  # one read of the whole text: most pages are ruled out on it
        candidates = [page for _, page in pages if might_contain(texts.get((doc_id, page)) or "", wanted)]
        matches: list[PageMatches] = []
        for done, page in enumerate(candidates, 1):
            if cancel is not None and cancel.is_set():
                break
            on_page = find_in_words(content.page_words(cur, doc_id, page), wanted)
            if on_page:
                matches.append(PageMatches(page, on_page))
                if found is not None:
                    found(matches[-1])
            if progress is not None and (done % FIND_PROGRESS_PAGES == 0 or done == len(candidates)):
                progress(Progress("find", "finding", done, len(candidates), "pages"))
        return matches

    def text_height(self, doc: str, page: int, region: BBox) -> float | None:
        """How tall the words in `region` of a page stand, in PDF points (the words the index read: a scan's OCR
        words too); None when the region holds none. A viewer zooms by it to show a citation readable."""
        return text_height(self._page_words(doc, page), region)

    def _one_document(self, doc: str) -> int:
        ids = self.resolve_documents([doc])
        if len(ids) > 1:
            raise UnknownDocument(f"{doc!r} matches {len(ids)} documents; give the full file name or path")
        return ids[0]

    def _document_on_disk(self, doc: str) -> tuple[str, str]:
        sha, paths = catalog.document_sources(self._resources.db.cursor(), self._one_document(doc))
        existing = [p for p in paths if os.path.exists(p)]
        if not existing:
            raise UnknownDocument(f"{doc!r} is indexed but no longer on disk ({', '.join(paths)})")
        return sha, existing[0]

    def search(self, query: str, docs: list[str] | None = None, k: int | None = None,
               mode: SearchMode | str | None = None, where: DocumentFilter | None = None) -> list[SearchHit]:
        """Pages for a query among `docs` (names or paths; None: the library) and the documents `where` admits;
        `mode` defaults to the search.mode setting (auto: hybrid once pages have visual embeddings, else text).
        An empty query is refused: it would rank pages at random."""
        if not query.strip():
            raise InvalidRequest("the search query is empty")
        settings = self._resources.settings
        return self.retriever().search(query, self._scope(docs, where), k, mode or settings.search.mode)

    def _scope(self, docs: list[str] | None, where: DocumentFilter | None) -> list[int] | None:
        doc_ids = self.resolve_documents(docs)
        if not where:
            return doc_ids
        admitted = {e.doc_id for e in catalog.file_entries(self._resources.db.cursor())
                    if e.doc_id is not None and where.admits(e)}
        scoped = sorted(admitted if doc_ids is None else admitted & set(doc_ids))
        if not scoped:
            raise UnknownDocument(f"no indexed document {'among those chosen ' if docs else ''}matches "
                                  f"{where.described()}")
        return scoped

    def query_words(self, doc: str, page: int, query: str) -> list[BBox]:
        """The boxes of the words of `page` that the query's words match (as a search hit's snippet shows them),
        for the viewer to highlight."""
        return matching_words(self._page_words(doc, page), query)

    def _page_words(self, doc: str, page: int) -> list[tuple[str, BBox]]:
        """The words the index read on a page of one document (its text layer's, or OCR's on a scan)."""
        return content.page_words(self._resources.db.cursor(), self._one_document(doc), page)

    def retriever(self) -> PageRetriever:
        """The library's page retriever (cheap: the models behind it load once per process)."""
        resources = self._resources
        return PageRetriever(resources.db, resources.settings.search, resources.visual)
