"""Layout elements (tables, figures, headers) of every document that has none yet, a document per commit.

Takes documents in priority order (store/enrichment.py: asked-about, then newest), stops at a cancel, and on
the next run resumes with the documents still missing, whatever happened in between.
"""
from __future__ import annotations

import logging

from ...domain import Reported, StageStatus
from ...progress import ProgressTracker
from ...settings import IndexSettings
from ...store import catalog, content, enrichment
from ..parse_task import LayoutResult, analyse_layout
from ..pipeline import OrderedPool, Task
from .base import StageContext, switch_status

log = logging.getLogger(__name__)


class Layout:
    name = "layout"
    unit = "pages"
    phase = "layout"
    phase_text = "Searchable now; analysing the layout of {name} — {done}/{total} pages{eta}"
    bar_text = "layout {docs_done}/{docs_total} docs {done}/{total} pages"
    reported = Reported(json_count="pages_with_layout")

    def enabled(self, settings: IndexSettings) -> str | None:
        return None if settings.layout else "switched off (index.layout)"

    def status(self, cur, settings: IndexSettings) -> StageStatus:
        return switch_status(self, enrichment.pages_finished(cur, enrichment.LAYOUT), settings)

    def run(self, ctx: StageContext) -> int:
        """Analyse the pending documents; returns how many pages were analysed."""
        cur = ctx.db.cursor()
        paths = catalog.doc_paths(cur)
        todo = [(doc_id, pages) for doc_id, pages in enrichment.documents_without(cur, enrichment.LAYOUT)
                if doc_id in paths]
        if not todo:
            return 0
        s = ctx.settings
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
        progress = ProgressTracker(len(todo), sum(pages for _, pages in todo), ctx.progress, phase=self.phase)
        done = 0
        try:
            for doc_id, pages in todo:
                if ctx.cancel.is_set():
                    break
                progress.start_document(paths[doc_id])
                results = [pool.result(i) for i in by_doc[doc_id]]
                ctx.add_time({"layout": sum(r.seconds for r in results)})
                for failed in (r.error for r in results if r.error):
                    # the document stays searchable by its text; its other pages keep their elements
                    ctx.errors[paths[doc_id]] = f"layout: {failed}"
                    log.warning("layout of %s: %s", paths[doc_id], failed)
                with ctx.db.transaction() as write:
                    write.execute("DELETE FROM elements WHERE doc_id = ?", [doc_id])
                    content.insert_elements(ctx.db, write, doc_id,
                                            {n: found for r in results for n, found in r.elements.items()})
                    enrichment.mark_done(write, doc_id, enrichment.LAYOUT)
                done += pages
                progress.pages_parsed(pages)
                progress.finish_document()
        finally:
            pool.close(kill=ctx.cancel.is_set())
        return done
