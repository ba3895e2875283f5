"""Pages as answering methods read them: references, text (with table markdown), layout elements, word boxes,
rendered images and crops of regions, and the documents' names.

Documents can vanish while a question runs (the watcher removes a deleted file); every read raises
PageGone then, and methods drop that page instead of failing the whole answer.
"""
from __future__ import annotations

import os

from ..answers import PageRef
from ..domain import BBox, SearchHit, TableOnPage
from ..errors import PageGone
from ..pdf.render import MAX_REGION_ZOOM, render_page, render_region
from ..store import catalog, content, page_content, tables
from ..store.database import Database

__all__ = ["PageGone", "PageSource"]  # PageGone: what every read raises (errors.py)

# A crop of about a megapixel keeps a chart's axis labels and a table's digits legible (a half-page figure
# reaches the 4x zoom cap below it) at a cost a vision model can take in one image.
DEFAULT_CROP_PIXELS = 1024 * 1024


class PageSource:
    """The pages as a method gets them (`ctx.pages`: the Pages port, methods/ports.py); the database stays
    private."""

    def __init__(self, db: Database):
        self._db = db

    def refs(self, hits: list[SearchHit]) -> list[PageRef]:
        """PageRefs (with printed labels and the retriever's scores) for search hits, in the same order."""
        labels = content.page_labels(self._db.cursor(), [(h.doc_id, h.page) for h in hits])
        return [PageRef(h.doc_id, h.doc, h.path, h.page, labels.get((h.doc_id, h.page), str(h.page)), h.region,
                        h.score) for h in hits]

    def refs_for(self, pages: list[tuple[int, int]]) -> list[PageRef]:
        """PageRefs for (doc_id, page) pairs, named by each document's first path."""
        names = {}
        for doc_id in {d for d, _ in pages}:
            try:
                _, paths = catalog.document_sources(self._db.cursor(), doc_id)
            except KeyError:
                continue
            if paths:
                names[doc_id] = paths[0]
        hits = [SearchHit(d, os.path.basename(names[d]), names[d], p, 0.0, "") for d, p in pages if d in names]
        return self.refs(hits)

    def text(self, ref: PageRef, with_tables: bool = True) -> str:
        """The page's text (text layer or OCR), followed by its tables as Markdown."""
        cur = self._db.cursor()
        text = content.page_text(cur, ref.doc_id, ref.page)
        if text is None:
            raise PageGone(f"{ref.doc} is no longer indexed")
        tables = content.page_tables(cur, ref.doc_id, ref.page) if with_tables else []
        return text + ("\n\nTables on this page:\n" + "\n\n".join(tables) if tables else "")

    def text_or_empty(self, ref: PageRef) -> str:
        """text(), or "" for a page whose document is gone (a judge or navigator then sees an empty page)."""
        try:
            return self.text(ref)
        except PageGone:
            return ""

    def tables(self, ref: PageRef) -> list[TableOnPage]:
        """The page's tables read as tables (the tables stage), in reading order; none before it has run."""
        return tables.tables_of_page(self._db.cursor(), ref.doc_id, ref.page)

    def size(self, ref: PageRef) -> tuple[float, float]:
        """The page's width and height in PDF points."""
        size = content.page_size(self._db.cursor(), ref.doc_id, ref.page)
        if size is None:
            raise PageGone(f"{ref.doc} page {ref.page} is no longer indexed")
        return size

    def words(self, ref: PageRef) -> list[tuple[str, tuple[float, float, float, float]]]:
        return content.page_words(self._db.cursor(), ref.doc_id, ref.page)

    def words_in_box(self, ref: PageRef, box: BBox) -> list[tuple[int, str]]:
        """(line, word) of the page's words (text layer or OCR) whose centre is inside `box`, in reading order."""
        return page_content.words_in_box(self._db.cursor(), ref.doc_id, ref.page, box)

    def layout(self, ref: PageRef, kinds: set[str] | None = None) -> list[tuple[int, str, BBox, str]]:
        """(seq, kind, box, markdown) of the page's layout elements in reading order, optionally of some kinds;
        none when layout analysis was off or skipped for the page."""
        return page_content.elements(self._db.cursor(), ref.doc_id, ref.page, kinds)

    def document_names(self) -> dict[int, str]:
        """{doc_id: file name} of every document, as the trace and the prompts name it."""
        return catalog.doc_names(self._db.cursor())

    def live_documents(self) -> list[int]:
        """Every live document's id, in order."""
        return sorted(catalog.live_documents(self._db.cursor()))

    def image(self, ref: PageRef, max_side: int) -> bytes:
        return render_page(self.path_on_disk(ref), ref.page, max_side)

    def crop(self, ref: PageRef, box: BBox, max_pixels: int = DEFAULT_CROP_PIXELS,
             max_zoom: float = MAX_REGION_ZOOM) -> bytes:
        """PNG of a region of the page: rendered at the zoom that gives it at most `max_pixels` pixels (as close
        to it as whole pixels allow), but never more than `max_zoom` pixels per point (4 = 288 dpi by default).
        The box is clipped to the page; a box with nothing of the page inside raises ValueError naming the
        page."""
        return render_region(self.path_on_disk(ref), ref.page, box, max_pixels, max_zoom).png

    def path_on_disk(self, ref: PageRef) -> str:
        try:
            _, paths = catalog.document_sources(self._db.cursor(), ref.doc_id)
        except KeyError:
            raise PageGone(f"{ref.doc} is no longer indexed") from None
        for path in [ref.path] + paths:
            if os.path.exists(path):
                return path
        raise PageGone(f"{ref.doc} is no longer on disk")

    def still_there(self, refs: list[PageRef]) -> tuple[list[PageRef], list[PageRef]]:
        """(pages whose document is still indexed and on disk, pages that are gone)."""
        present, gone = [], []
        for ref in refs:
            try:
                self.path_on_disk(ref)
                present.append(ref)
            except PageGone:
                gone.append(ref)
        return present, gone
