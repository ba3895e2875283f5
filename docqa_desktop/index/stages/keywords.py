"""The keyword index, written by the parse itself: a document is keyword-searchable the moment it commits
(Indexer._write_job), so nothing is ever left for after the parse."""
from __future__ import annotations

from ...domain import Reported, StageStatus
from ...settings import IndexSettings
from ...store import enrichment
from .base import StageContext, switch_status


class Keywords:
    name = "keywords"
    unit = "pages"
    phase = "indexing"  # the parse's phase (ProgressTracker's default)
    phase_text = ("Indexing {name} — {docs_done}/{docs_total} documents, {done}/{total} {unit}, "
                  "{rate:.1f}/s{eta}")
    bar_text = "{docs_done}/{docs_total} docs {done}/{total} pages"
    reported = Reported()  # the report's "pages" are the parse's

    def enabled(self, settings: IndexSettings) -> str | None:
        return None

    def status(self, cur, settings: IndexSettings) -> StageStatus:
        return switch_status(self, (enrichment.live_pages(cur), 0), settings)

    def run(self, ctx: StageContext) -> int:
        return 0  # done with each document's parse
