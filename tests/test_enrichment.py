"""Searchable first, enriched later: documents are keyword-searchable when their text commits; layout and
embeddings follow as background passes in priority order, resumable, cancellable, counted in the status."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from docqa_desktop.answers import Answer, AnswerStatus, Citation
from docqa_desktop.service import Service
from docqa_desktop.store import answers as answers_store
from docqa_desktop.methods.toolkit.page_summaries import PAGE_SUMMARY
from docqa_desktop.store import artifacts, content, enrichment

from conftest import ROOT, assert_consistent, make_settings, write_pdf

pytestmark = pytest.mark.slow  # layout analysis (pymupdf4llm) in worker processes


def library(folder, count: int, pages: int = 2) -> list[str]:
    """`count` PDFs, written oldest first (names sort in the same order)."""
    folder.mkdir(exist_ok=True)
    names = []
    for i in range(count):
        name = f"report-{i}.pdf"
        write_pdf(folder / name, [f"Report {i} page {p}: the heron colony counted {i * 10 + p} nests." for p in
                                  range(1, pages + 1)])
        names.append(name)
    return names


def doc_ids(service: Service) -> dict[str, int]:
    return {e.name: e.doc_id for e in service.library.status()}


def stages(service: Service) -> dict[str, tuple[int, int]]:
    return {s.stage: (s.done, s.pending) for s in service.library.enrichment()}


def cite(service: Service, path: str) -> None:
    answer = Answer(id=f"a-{os.path.basename(path)}", question="How many nests?", method="quoted",
                    text="Twelve.", status=AnswerStatus.ANSWERED,
                    citations=[Citation(doc=os.path.basename(path), path=path, page=1, label="1", quote="nests")])
    with service.resources.db.transaction() as cur:
        answers_store.save_answer(cur, answer)


def test_passes_take_asked_about_documents_first_then_the_newest(tmp_path):
    folder = tmp_path / "lib"
    with Service(make_settings(tmp_path / "home", layout=False, dense=False)) as service:
        for name in library(folder, 3):  # one indexing run each: indexed_at follows the names
            service.library.index([str(folder / name)])
        ids = doc_ids(service)
        assert enrichment.priority_order(service.resources.db.cursor()) == [ids["report-2.pdf"], ids["report-1.pdf"],
                                                                  ids["report-0.pdf"]]
        cite(service, str(folder / "report-0.pdf"))  # the user asked about the oldest one
        order = enrichment.priority_order(service.resources.db.cursor())
        assert order == [ids["report-0.pdf"], ids["report-2.pdf"], ids["report-1.pdf"]]
        # the passes' own queues follow that order
        assert [d for d, _ in enrichment.documents_without(service.resources.db.cursor(), enrichment.LAYOUT)] == order
        chunk_docs = [service.resources.db.cursor().execute("SELECT doc_id FROM chunks WHERE id = ?", [i]).fetchone()[0]
                      for i in content.pending_chunks(service.resources.db.cursor())]
        assert list(dict.fromkeys(chunk_docs)) == order
        summary_docs = [d for d, _ in artifacts.missing_pages(service.resources.db.cursor(), PAGE_SUMMARY, None, "any")]
        assert list(dict.fromkeys(summary_docs)) == order


def test_searchable_before_layout_and_a_cancelled_pass_resumes(tmp_path):
    folder = tmp_path / "lib"
    library(folder, 4)
    cancel = threading.Event()
    seen = []

    def progress(p):
        seen.append(p.phase)
        if p.phase == "layout" and p.docs_done >= 1:
            cancel.set()  # after the first document's layout committed

    with Service(make_settings(tmp_path / "home", dense=False)) as service:
        report = service.library.index([str(folder)], progress, cancel)
        assert report.cancelled and report.added == 4
        assert seen.index("layout") > max(i for i, phase in enumerate(seen) if phase == "indexing")
        assert [h.doc for h in service.pages.search("heron colony 31 nests", k=1, mode="bm25")] == ["report-3.pdf"]
        done, pending = stages(service)["layout"]
        assert done >= 2 and pending >= 2 and done + pending == 8  # pages: some analysed, the rest waiting
        report = service.library.index([str(folder)])  # nothing changed on disk: only the pass resumes
        assert not report.cancelled and report.added == 0 and report.stages["layout"].done == pending
        assert stages(service)["layout"] == (8, 0)
        elements = service.resources.db.cursor().execute("SELECT count(DISTINCT doc_id) FROM elements").fetchone()[0]
        assert elements == 4


def test_status_counts_each_stage(tmp_path):
    folder = tmp_path / "lib"
    library(folder, 2, pages=3)
    with Service(make_settings(tmp_path / "home", layout=False)) as service:
        service.library.index([str(folder)])
        counted = {s.stage: s for s in service.library.enrichment()}
        assert (counted["keywords"].done, counted["keywords"].pending) == (6, 0)
        assert (counted["layout"].done, counted["layout"].pending) == (0, 6)
        assert "switched off" in counted["layout"].note
        chunks = service.resources.db.cursor().execute("SELECT count(*) FROM chunks").fetchone()[0]
        assert (counted["embeddings"].done, counted["embeddings"].pending) == (chunks, 0)
        assert counted["page images"].pending == 6 and "no page embedder" in counted["page images"].note
        assert counted["summaries"].done == 0


def test_a_kill_during_the_layout_pass_keeps_the_library_searchable_and_the_next_run_finishes(tmp_path):
    folder = tmp_path / "lib"
    library(folder, 6, pages=3)
    home = tmp_path / "home"
    env = {**os.environ, "DOCQA_INDEX_DENSE": "0", "DOCQA_INDEX_PAGES_PER_TASK": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "docqa_desktop", "index", str(folder), "--home", str(home)],
                            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=env, cwd=ROOT,
                            start_new_session=True)
    deadline = time.monotonic() + 600
    line = ""
    while time.monotonic() < deadline and "layout 1/6 docs" not in line:
        line = proc.stderr.readline()
        assert line or proc.poll() is None, "the index ended before the layout pass finished a document"
    os.killpg(proc.pid, signal.SIGKILL)  # docqa and its layout workers, mid-pass
    proc.wait()
    assert_consistent(home / "data" / "library.duckdb")
    status = json.loads(subprocess.run([sys.executable, "-m", "docqa_desktop", "status", "--json", "--home",
                                        str(home)], capture_output=True, text=True, env=env, cwd=ROOT,
                                       check=True).stdout)
    by_stage = {s["stage"]: s for s in status["stages"]}
    assert by_stage["keywords"]["done"] == 18  # every document searchable, though the run was killed
    assert 3 <= by_stage["layout"]["done"] < 18 and by_stage["layout"]["pending"] == 18 - by_stage["layout"]["done"]
    subprocess.run([sys.executable, "-m", "docqa_desktop", "index", str(folder), "--home", str(home)],
                   capture_output=True, text=True, env=env, cwd=ROOT, check=True)
    with Service(make_settings(home, dense=False)) as service:
        assert stages(service)["layout"] == (18, 0)


def test_searchable_only_stops_before_the_passes_and_the_next_index_runs_them(tmp_path, monkeypatch, capsys):
    from docqa_desktop.cli import main

    folder = tmp_path / "lib"
    library(folder, 2)
    home = tmp_path / "home"
    monkeypatch.setenv("DOCQA_INDEX_VISUAL", "off")
    assert main(["index", str(folder), "--searchable-only", "--json", "--home", str(home)]) == 0
    assert json.loads(capsys.readouterr().out)["added"] == 2
    assert main(["status", "--json", "--home", str(home)]) == 0
    by_stage = {s["stage"]: s for s in json.loads(capsys.readouterr().out)["stages"]}
    assert by_stage["keywords"]["done"] == 4 and by_stage["layout"]["pending"] == 4
    assert by_stage["embeddings"]["done"] == 0 and by_stage["embeddings"]["pending"] > 0
    assert main(["search", "heron colony 11 nests", "--mode", "bm25", "--json", "--home", str(home)]) == 0
    assert json.loads(capsys.readouterr().out)[0]["doc"] == "report-1.pdf"
    assert main(["index", str(folder), "--json", "--home", str(home)]) == 0  # nothing new: the passes catch up
    report = json.loads(capsys.readouterr().out)
    assert report["added"] == 0 and report["pages_with_layout"] == 4 and report["chunks_embedded"] > 0
