"""The charts stage over a real library (issue 55): a bar chart drawn in a PDF is read as a table and stored with the
tables, after them; the pass resumes after a cancel, never wipes the tables (nor they it), counts itself in the
status, and a file that fails is named while what was indexed stays. Raster charts: a picture read by a vision model
(a scripted one here; the tiny random model in test_chart_model.py) keeps only the values the page prints."""
from __future__ import annotations

import dataclasses
import json
import os
import threading
from pathlib import Path

import pymupdf
import pytest

from docqa_desktop.index.chart_model import NO_VISION_MODEL, PROMPT
from docqa_desktop.index.indexer import Indexer
from docqa_desktop.index.parse_task import read_charts
from docqa_desktop.index.stages import STAGES, seeing
from docqa_desktop.service import Service
from docqa_desktop.table_export import tables_json
from docqa_desktop.settings import ChartModel, TablesGate
from docqa_desktop.store import enrichment
from docqa_desktop.store.tables import (CHART_NUMBERS, CHARTS, CHARTS_BY_MODEL, TABLES, insert_charts, insert_tables,
                                        tables_of_page)

from chart_pdf import BARS, draw_bar_chart, write_chart_pdf, write_raster_chart_pdf
from conftest import make_settings
from table_pdf import write_table_pdf

pytestmark = pytest.mark.slow  # each test indexes PDFs: a worker pool for the text, the tables and the charts

# no layout model, OCR or embeddings: the tables stage reads every page whole; the charts stage needs no layout
QUICK = {"layout": False, "ocr": False, "dense": False, "tables_gate": TablesGate.NONE}


def settings(home: Path, **changes):
    return make_settings(home, **{**QUICK, **changes})


def stage_rows(service: Service) -> dict:
    return {s.stage: s for s in service.library.enrichment()}


def doc_id_of(service: Service, name: str) -> int:
    return next(e.doc_id for e in service.library.status() if e.name == name)


def kinds_on(service: Service, doc_id: int, page: int) -> list[tuple[int, str]]:
    return service.resources.db.cursor().execute(
        "SELECT table_no, chart FROM page_tables WHERE doc_id = ? AND page = ? ORDER BY table_no",
        [doc_id, page]).fetchall()


@pytest.fixture
def chart_folder(tmp_path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    write_chart_pdf(folder / "relations.pdf")
    return folder


def test_a_drawn_bar_chart_is_read_as_a_table_and_stored_with_the_tables(chart_folder, tmp_path):
    pdf = chart_folder / "relations.pdf"
    expected = read_charts(str(pdf), {1: [], 2: []}).charts  # the reader, in this process: what the stage stores
    assert expected[2] == []  # a page of text: no chart
    (chart,) = expected[1]
    assert chart.chart == "bar chart" and not chart.by_model
    assert {c.row_path: c.number for c in chart.body if c.number is not None} == dict(BARS)
    with Service(settings(tmp_path / "home")) as service:
        report = service.library.index([str(chart_folder)])
        assert report.stages["charts"].done == 2 and not report.errors
        doc_id = doc_id_of(service, "relations.pdf")
        assert tables_of_page(service.resources.db.cursor(), doc_id, 1) == expected[1]
        assert kinds_on(service, doc_id, 1) == [(CHART_NUMBERS, "bar chart")]
        row = stage_rows(service)["charts"]
        assert (row.done, row.pending, row.off) == (2, 0, False)
        assert row.hint == NO_VISION_MODEL  # it runs; raster charts do not, and its line says why
        found = service.tables.of_file(str(pdf))  # what `docqa tables` and the viewer get
        assert found.from_index and [(page, t.chart) for page, t in found.tables] == [(1, "bar chart")]
        (exported,) = json.loads(tables_json(found.tables))["tables"]
        assert (exported["chart"], exported["by_model"]) == ("bar chart", False)


def test_switched_off_the_stage_reads_nothing_and_says_so(chart_folder, tmp_path):
    with Service(settings(tmp_path / "home", charts=False)) as service:
        report = service.library.index([str(chart_folder)])
        assert report.stages["charts"].done == 0 and report.stages["charts"].note == "switched off (index.charts)"
        row = stage_rows(service)["charts"]
        assert (row.done, row.pending, row.off, row.note) == (0, 2, True, "switched off (index.charts)")
        assert service.resources.db.cursor().execute("SELECT count(*) FROM page_tables").fetchone()[0] == 0


def test_a_cancelled_charts_pass_resumes_where_it_stopped(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    for n in range(3):
        write_chart_pdf(folder / f"survey-{n}.pdf")
    cancel = threading.Event()

    def progress(p):
        if p.phase == "charts" and p.docs_done >= 1:
            cancel.set()  # after the first document's charts committed

    with Service(settings(tmp_path / "home")) as service:
        report = service.library.index([str(folder)], progress, cancel)
        assert report.cancelled and report.added == 3
        row = stage_rows(service)["charts"]
        assert 2 <= row.done < 6 and row.done + row.pending == 6
        again = service.library.index([str(folder)])  # nothing changed on disk: only the pass resumes
        assert not again.cancelled and again.added == 0 and again.stages["charts"].done == row.pending
        row = stage_rows(service)["charts"]
        assert (row.done, row.pending) == (6, 0)
        charts = service.resources.db.cursor().execute(
            "SELECT count(DISTINCT doc_id) FROM page_tables WHERE chart = 'bar chart'").fetchone()[0]
        assert charts == 3


def _statement_with_a_chart(path: Path) -> Path:
    """The income statement of table_pdf.py with the bar chart drawn under it: a table and a chart on one page."""
    write_table_pdf(path.with_name("plain.pdf"))
    with pymupdf.open(path.with_name("plain.pdf")) as doc:
        draw_bar_chart(doc[0], top=420)
        doc.save(path)
    path.with_name("plain.pdf").unlink()
    return path


def test_the_tables_and_charts_stages_never_wipe_each_others_rows(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    _statement_with_a_chart(folder / "statements.pdf")
    with Service(settings(tmp_path / "home")) as service:
        service.library.index([str(folder)])
        db, doc_id = service.resources.db, doc_id_of(service, "statements.pdf")
        both = kinds_on(service, doc_id, 1)
        assert both[0] == (0, "") and (CHART_NUMBERS, "bar chart") in both  # the page's tables first, then its charts
        cells = db.cursor().execute("SELECT count(*) FROM table_cells WHERE doc_id = ?", [doc_id]).fetchone()[0]
        for stage in (TABLES, CHARTS):  # each stage read again alone
            with db.transaction() as write:
                write.execute("DELETE FROM enrichment WHERE doc_id = ? AND stage = ?", [doc_id, stage])
            report = service.library.index([str(folder)])
            assert report.stages[stage].done == 3 and not report.errors
            assert kinds_on(service, doc_id, 1) == both
            assert db.cursor().execute("SELECT count(*) FROM table_cells WHERE doc_id = ?",
                                       [doc_id]).fetchone()[0] == cells
        # and replaced by hand: each writer replaces only its kind, cells with their table
        page_tables = tables_of_page(db.cursor(), doc_id, 1)
        chart = next(t for t in page_tables if t.chart)
        with db.transaction() as write:
            insert_tables(db, write, doc_id, {})
        assert tables_of_page(db.cursor(), doc_id, 1) == [chart]
        with db.transaction() as write:
            insert_charts(db, write, doc_id, {2: [chart]})
        assert tables_of_page(db.cursor(), doc_id, 1) == [] and tables_of_page(db.cursor(), doc_id, 2) == [chart]
        assert db.cursor().execute("SELECT count(*) FROM table_cells WHERE doc_id = ?",
                                   [doc_id]).fetchone()[0] == len(chart.cells)


def test_a_file_that_fails_is_named_and_keeps_what_was_indexed(chart_folder, tmp_path):
    pdf = chart_folder / "relations.pdf"
    home = tmp_path / "home"
    with Service(settings(home, charts=False)) as service:
        service.library.index([str(chart_folder)])
    state = os.stat(pdf)
    pdf.write_bytes(b"\0" * state.st_size)  # damaged in place, size and time kept: the index sees no change
    os.utime(pdf, ns=(state.st_atime_ns, state.st_mtime_ns))
    with Service(settings(home)) as service:
        report = service.library.index([str(chart_folder)])
        assert report.errors == {str(pdf): "charts: not a PDF: the file does not start with a %PDF- header"}
        assert [e.status.value for e in service.library.status()] == ["indexed"]
        assert [h.doc for h in service.pages.search("relations improved over the decade", k=1, mode="bm25")] == [
            "relations.pdf"]
        row = stage_rows(service)["charts"]
        assert (row.done, row.pending) == (2, 0)  # tried once; the file is read again once it changes


class ScriptedVision:
    """A vision model that answers every picture with the same table, and remembers what it was asked."""

    def __init__(self, reply: str, quick: bool = True):
        self.reply, self.is_quick, self.asked = reply, quick, []

    def installed(self) -> bool:
        return True

    def quick(self) -> bool:
        return self.is_quick

    def read(self, image: bytes, prompt: str, cancel=None) -> str:
        self.asked.append((prompt, image))
        return self.reply


REPLY = "\n".join(["TITLE | Share who say relations are good", "TYPE | bar chart", "Country | Share",
                   *(f"{category} | {value}%" for category, value in BARS), "Portugal | 99%"])


def test_a_raster_chart_is_read_by_the_vision_model_with_only_its_printed_values(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    pdf, box = write_raster_chart_pdf(folder / "deck.pdf", labels=True)
    home = tmp_path / "home"
    with Service(settings(home, charts=False)) as service:
        service.library.index([str(folder)])
        db, doc_id = service.resources.db, doc_id_of(service, "deck.pdf")
        with db.transaction() as write:  # the layout stage's picture (it is off here, to stay quick)
            write.execute("INSERT INTO elements VALUES (?, 1, 0, 'picture', ?, ?, ?, ?, '')", [doc_id, *box])
        vision = ScriptedVision(REPLY, quick=False)
        on = settings(home, chart_model=ChartModel.ON).index
        report = Indexer(db, on, seeing(STAGES, vision)).run([str(folder)])
        assert report.stages["charts"].done == 1 and not report.errors
        ((prompt, image),) = vision.asked  # once per picture, with the picture
        assert prompt == PROMPT and image.startswith(b"\x89PNG")
        (chart,) = tables_of_page(db.cursor(), doc_id, 1)
        assert chart.by_model and chart.chart == "bar chart" and chart.caption == "Share who say relations are good"
        values = {c.row_path: c.number for c in chart.body if c.number is not None}
        assert values == dict(BARS)  # "Portugal | 99%" is printed nowhere: dropped
        assert all(box[0] <= c.bbox[0] and c.bbox[2] <= box[2] + 40 for c in chart.body)
        cur = db.cursor()
        assert enrichment.finished(cur, doc_id, CHARTS) and enrichment.finished(cur, doc_id, CHARTS_BY_MODEL)
        # auto on a machine without a GPU: not read, and the line says why; the mark stays from the run above
        auto = dataclasses.replace(on, chart_model=ChartModel.AUTO)
        charts_stage = next(s for s in seeing(STAGES, vision) if s.name == "charts")
        assert "no GPU" in charts_stage.status(cur, auto).hint
