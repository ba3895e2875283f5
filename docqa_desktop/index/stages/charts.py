"""Charts read as tables (issue 55) on the pages of documents that have none read yet, a document per commit.

A born-digital page is read for charts from its vector marks and printed words (index/charts.py) when the layout
found a picture on it or it draws a few filled shapes (index/chart_pages.py: the cheap test that keeps the stage
quick on pages of text). Its charts are stored as the tables are (store/tables.py, numbered after them), so the
reader, the viewer and `docqa tables` see them like tables; the tables stage and this one never wipe each other's.
Raster charts — pictures without vector marks, on born-digital pages or scans — are read by the vision model where
index.chart_model lets it (index/chart_model.py: on with a vision model and a GPU by default), a mark of their own
recording that they were: a model installed later reads the pictures of documents done before. With the layout
stage on, a document waits for its layout (its pictures). Resumable like the tables stage.
"""
from __future__ import annotations

import dataclasses
import time

from ...domain import Reported, StageStatus
from ...errors import ModelError
from ...settings import ChartModel, IndexSettings
from ...store import catalog, content, enrichment, tables
from ..chart_model import VisionReader, read_pictures, why_off
from ..parse_task import ChartsResult, RasterPass, read_charts
from .base import StageContext, switch_status
from .document_pass import read_documents


class Charts:
    name = "charts"
    unit = "pages"
    phase = "charts"
    phase_text = "Searchable now; reading the charts of {name} — {done}/{total} pages{eta}"
    bar_text = "charts {docs_done}/{docs_total} docs {done}/{total} pages"
    reported = Reported(json_count="pages_with_charts_read")

    def __init__(self, vision: VisionReader | None = None):
        self.vision = vision  # the service's vision model (engines do not import each other); None: none

    def seeing(self, vision: VisionReader | None) -> Charts:
        """This stage with the vision model `vision` to read raster charts with."""
        return Charts(vision)

    def enabled(self, settings: IndexSettings) -> str | None:
        return None if settings.charts else "switched off (index.charts)"

    def status(self, cur, settings: IndexSettings) -> StageStatus:
        model_off = why_off(settings.chart_model, self.vision)
        row = switch_status(self, enrichment.pages_finished(cur, *self._marks(model_off)), settings)
        if row.off or settings.chart_model == ChartModel.OFF or not model_off:  # off by choice: nothing to explain
            return row
        return dataclasses.replace(row, hint=model_off)  # it runs, without the model: said on its line

    @staticmethod
    def _marks(model_off: str | None) -> tuple[str, ...]:
        return (tables.CHARTS,) if model_off else (tables.CHARTS, tables.CHARTS_BY_MODEL)

    def run(self, ctx: StageContext) -> int:
        """Read the charts of the pending documents; returns how many pages were done."""
        cur = ctx.db.cursor()
        model_off = why_off(ctx.settings.chart_model, self.vision)
        paths = catalog.doc_paths(cur)
        awaiting_layout = {d for d, _ in enrichment.documents_without(cur, enrichment.LAYOUT)} \
            if ctx.settings.layout else set()
        todo = [(doc_id, pages) for doc_id, pages in enrichment.documents_without(cur, *self._marks(model_off))
                if doc_id in paths and doc_id not in awaiting_layout]  # its pictures come with its layout
        if not todo:
            return 0
        model = _ModelReading(self.vision, ctx) if model_off is None else None

        def store(doc_id: int, result: ChartsResult) -> bool:
            charts, by_model = dict(result.charts), False
            if model is not None:
                read = model.read(paths[doc_id], result)
                if read is None:
                    return False  # cancelled while the model read: the document is done again next run
                by_model = model.working
                for page, found in read.items():
                    charts[page] = charts.get(page, []) + found
            with ctx.db.transaction() as write:
                tables.insert_charts(ctx.db, write, doc_id, charts)
                enrichment.mark_done(write, doc_id, tables.CHARTS)
                if by_model:
                    enrichment.mark_done(write, doc_id, tables.CHARTS_BY_MODEL)
            return True

        args = [(paths[doc_id], *_pages(cur, doc_id, ctx.settings, model is not None)) for doc_id, _ in todo]
        return read_documents(ctx, self.name, self.phase, "reading charts", todo, paths, read_charts, args,
                              lambda error: ChartsResult(error=error), store)


class _ModelReading:
    """The vision model over a run's raster pictures; a model that fails stops being asked for the rest of the run
    (the documents it did not read keep their vector charts, and it is asked again next run)."""

    def __init__(self, vision: VisionReader, ctx: StageContext):
        self.vision, self.ctx, self.working = vision, ctx, True

    def read(self, path: str, result: ChartsResult) -> dict | None:
        if not self.working or not result.pictures:
            return {}
        started = time.perf_counter()
        try:
            return read_pictures(self.vision, result.pictures, self.ctx.cancel)
        except ModelError as exc:
            self.working = False
            self.ctx.errors[path] = f"charts: the vision model could not read its raster charts: {exc}"
            return {}
        finally:
            self.ctx.add_time({"chart model": time.perf_counter() - started})


def _pages(cur, doc_id: int, settings: IndexSettings, raster: bool) -> tuple[dict, RasterPass | None]:
    """({born-digital page: the layout's picture boxes}, what the worker prepares for the vision model: the pictures
    of the pages read by OCR, with their words; None without the model)."""
    layer, scanned = tables.pages_by_source(cur, doc_id)
    pictures = tables.picture_regions(cur, doc_id)
    pages = {page: pictures.get(page, []) for page in layer}
    if not raster:
        return pages, None
    scans = {page: (pictures[page], content.page_word_boxes(cur, doc_id, page)) for page in scanned if page in pictures}
    return pages, RasterPass(scans, settings.device if settings.ocr else None)
