"""Tables read as tables (index/tables.py) on every born-digital page of documents that have none read yet, a
document per commit.

Gated by the layout stage (index.tables_gate = "layout", the default): only the regions the layout model calls
tables are searched for a grid, so one layout pass serves both and a page without a table costs nothing (with the
layout stage switched off, so is this one). With the gate off ("none") every page is searched whole. A page read
by OCR is read from its OCR words' boxes (inside the layout's table regions, or whole when the layout found none
there), its tables marked as read from the scan. Resumable like the layout stage: documents in priority order, each
committed with its mark.
"""
from __future__ import annotations

from ...domain import Reported, StageStatus
from ...settings import IndexSettings, TablesGate
from ...store import catalog, content, enrichment, tables
from ..parse_task import TablesResult, read_tables
from .base import StageContext, switch_status
from .document_pass import read_documents


class Tables:
    name = "tables"
    unit = "pages"
    phase = "tables"
    phase_text = "Searchable now; reading the tables of {name} — {done}/{total} pages{eta}"
    bar_text = "tables {docs_done}/{docs_total} docs {done}/{total} pages"
    reported = Reported(json_count="pages_with_tables_read")

    def enabled(self, settings: IndexSettings) -> str | None:
        if not settings.tables:
            return "switched off (index.tables)"
        if settings.tables_gate == TablesGate.LAYOUT and not settings.layout:
            return "off with the layout stage (index.layout; or index.tables_gate = \"none\": every page, slower)"
        return None

    def status(self, cur, settings: IndexSettings) -> StageStatus:
        return switch_status(self, enrichment.pages_finished(cur, tables.TABLES), settings)

    def run(self, ctx: StageContext) -> int:
        """Read the tables of the pending documents; returns how many pages were done."""
        cur = ctx.db.cursor()
        paths = catalog.doc_paths(cur)
        gated = ctx.settings.tables_gate == TablesGate.LAYOUT
        awaiting_layout = {d for d, _ in enrichment.documents_without(cur, enrichment.LAYOUT)} if gated else set()
        todo = [(doc_id, pages) for doc_id, pages in enrichment.documents_without(cur, tables.TABLES)
                if doc_id in paths and doc_id not in awaiting_layout]  # gated: a document waits for its layout
        if not todo:
            return 0

        def store(doc_id: int, result: TablesResult) -> bool:
            with ctx.db.transaction() as write:
                tables.insert_tables(ctx.db, write, doc_id, result.tables)
                enrichment.mark_done(write, doc_id, tables.TABLES)
            return True

        args = [(paths[doc_id], *_pages(cur, doc_id, gated)) for doc_id, _ in todo]
        return read_documents(ctx, self.name, self.phase, "reading tables", todo, paths, read_tables, args,
                              lambda error: TablesResult(error=error), store)


def _pages(cur, doc_id: int, gated: bool) -> tuple[dict, dict]:
    """({page: where to look}, {page: its OCR words}): the layout's table boxes of a page with a text layer, or
    the page whole; a page read by OCR, with its words, inside the layout's table boxes or whole when it has none
    (the layout model may see no table in a scan)."""
    layer, scanned = tables.pages_by_source(cur, doc_id)
    found = tables.table_regions(cur, doc_id) if gated else {}
    regions = {page: found[page] for page in layer if page in found} if gated else {page: None for page in layer}
    regions.update({page: found.get(page) for page in scanned})
    return regions, {page: content.page_word_boxes(cur, doc_id, page) for page in scanned}
