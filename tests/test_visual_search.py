"""Visual retrieval end to end with a tiny random-weight ColQwen2.5 (built offline, tests/tiny_colqwen.py):
real corpus pages rendered and embedded by the indexer, stored in DuckDB, cached, searched, fused, scoped,
removed, resumed after a crash."""
from __future__ import annotations

import dataclasses
import json
import re
import shutil

import duckdb
import numpy as np
import pymupdf
import pytest

from conftest import REPORT_15 as SECOND, SMALL_PAPER, corpus_pdf, make_settings
from docqa_desktop.cli import main
from docqa_desktop.retrieval.page_retriever import VisualUnavailable
from docqa_desktop.service import Service
from docqa_desktop.store import catalog, page_vectors
from docqa_desktop.visual import stage
from docqa_desktop.vectors.page_embedder import EmbedderError, PageEmbedder
from docqa_desktop.pdf.page_images import page_images




def visual_service(home, tiny_embedder_folder, **index_changes) -> Service:
    settings = make_settings(home, layout=False, dense=False, ocr=False, visual="on", visual_tokens=256,
                             visual_commit_pages=3, **index_changes)
    service = Service(settings)
    service.models.import_file(tiny_embedder_folder, name="tiny-colqwen")
    return service


def stored_rows(service: Service) -> list[tuple]:
    return service.resources.db.cursor().execute(
        "SELECT doc_id, page, model, vector_count, grid_rows, grid_cols, octet_length(int8), "
        "octet_length(patch_rows) FROM page_vectors ORDER BY doc_id, page").fetchall()


def exact_ranking(service: Service, query: str, paths: list[str]) -> list[tuple[str, int, float]]:
    """Brute force with a fresh float32 embedding of every page: what the quantized search must reproduce."""
    embedder = service.resources.visual.embedder()
    q = embedder.embed_query(query)
    scores = []
    for path in paths:
        with pymupdf.open(path) as doc:
            count = doc.page_count
        for page, image in page_images(path, range(1, count + 1), embedder.visual_tokens):
            vectors = embedder.embed_pages([image])[0].vectors
            scores.append((path.rsplit("/", 1)[-1], page, float((q @ vectors.T).max(axis=1).sum())))
    return sorted(scores, key=lambda s: -s[2])


def test_indexing_stores_page_embeddings_and_visual_search_matches_exact_maxsim(home, paper,
                                                                                tiny_embedder_folder):
    with visual_service(home, tiny_embedder_folder) as service:
        report = service.library.index([str(paper)])
        assert report.stages["page images"].note == "" and report.stages["page images"].done == 8 == report.pages
        rows = stored_rows(service)
        assert len(rows) == 8 and {r[2] for r in rows} == {"tiny-colqwen"}
        for _doc, _page, _model, count, grid_rows, grid_cols, int8_bytes, patch_bytes in rows:
            assert int8_bytes == count * 128 and patch_bytes == grid_rows * grid_cols * 4
            assert grid_rows * grid_cols <= 256 + 32 and count > grid_rows * grid_cols  # + the prompt's tokens
        assert service.library.totals()["pages_with_image_embeddings"] == 8

        query = "How does the model compare with the baseline in the results table?"
        hits = service.pages.search(query, k=5, mode="visual")
        exact = exact_ranking(service, query, [str(paper / SMALL_PAPER)])
        assert [h.page for h in hits] == [page for _, page, _ in exact[:5]]
        for hit, (_, _, score) in zip(hits, exact):
            assert hit.score == pytest.approx(score, rel=0.02)  # int8 vs float32 scoring
            x0, y0, x1, y1 = hit.region
            assert 0 <= x0 < x1 <= 1 and 0 <= y0 < y1 <= 1

        hybrid = service.pages.search(query, k=8, mode="hybrid")
        assert {h.page for h in hybrid} == set(range(1, 9))
        assert service.pages.search(query, k=5)[0].page == hybrid[0].page  # auto = hybrid once pages are embedded
        assert all(h.region is None for h in service.pages.search(query, k=5, mode="text"))

    # a new process: the cache folder is reloaded; without it, rebuilt from the database
    with visual_service(home, tiny_embedder_folder) as again:
        assert [(h.page, round(h.score, 5)) for h in again.pages.search(query, k=5, mode="visual")] == \
            [(h.page, round(h.score, 5)) for h in hits]
        shutil.rmtree(again.settings.locations.cache_dir / "visual")
        assert [h.page for h in again.pages.search(query, k=5, mode="visual")] == [h.page for h in hits]


def test_scope_new_documents_and_deleted_documents(home, paper, tiny_embedder_folder):
    with visual_service(home, tiny_embedder_folder) as service:
        service.library.index([str(paper)])
        shutil.copy(corpus_pdf(SECOND), paper / SECOND)
        report = service.library.index([str(paper)])
        second = report.pages
        assert report.added == 1 and report.stages["page images"].done == second  # only the new document
        query = "a chart of accuracy by model size"
        assert {h.doc for h in service.pages.search(query, k=50, mode="visual")} == {SMALL_PAPER, SECOND}
        only = service.pages.search(query, [SECOND], k=50, mode="visual")
        assert {h.doc for h in only} == {SECOND} and len(only) == second

        (paper / SECOND).unlink()
        service.library.index([str(paper)])
        assert {h.doc for h in service.pages.search(query, k=50, mode="visual")} == {SMALL_PAPER}
        assert len(stored_rows(service)) == 8  # the deleted document's vectors left the database too


def test_a_crash_during_the_embedding_stage_resumes_with_the_missing_pages(home, paper,
                                                                           tiny_embedder_folder, monkeypatch):
    with visual_service(home, tiny_embedder_folder) as service:
        real = PageEmbedder.embed_prepared  # what the stage calls, with pages prepared on its worker thread
        calls = []

        def crashing(self, prepared):
            calls.append(len(prepared.images))
            if len(calls) == 5:
                raise RuntimeError("simulated crash of the embedding model")
            return real(self, prepared)

        monkeypatch.setattr(PageEmbedder, "embed_prepared", crashing)
        with pytest.raises(RuntimeError, match="simulated crash"):
            service.library.index([str(paper)])
        kept = len(stored_rows(service))
        assert kept == 3  # the committed batch (commit every 3 pages) survived; the 4th page was not committed

        monkeypatch.setattr(PageEmbedder, "embed_prepared", real)
        report = service.library.index([str(paper)])
        assert report.unchanged == 1 and report.stages["page images"].done == 8 - kept
        assert [r[1] for r in stored_rows(service)] == list(range(1, 9))


def test_the_stage_is_skipped_and_says_why(home, paper, tiny_embedder_folder, monkeypatch):
    settings = make_settings(home, layout=False, dense=False, ocr=False)
    with Service(settings) as service:
        report = service.library.index([str(paper)])
        assert report.stages["page images"].note == stage.NO_EMBEDDER and report.stages["page images"].done == 0
        with pytest.raises(VisualUnavailable, match="no page images are embedded"):
            service.pages.search("anything", mode="visual")
        assert service.pages.search("transformer", k=3)  # auto falls back to text

        service.models.import_file(tiny_embedder_folder, name="tiny-colqwen")
        monkeypatch.setattr(stage, "_has_cuda", lambda: False)
        (paper / "copy.pdf").write_bytes((paper / SMALL_PAPER).read_bytes())
        report = service.library.index([str(paper)])  # default "auto": a CPU does not embed page images
        assert report.stages["page images"].note == stage.NO_GPU and not stored_rows(service)

        service.apply_settings(dataclasses.replace(settings, index=dataclasses.replace(settings.index, visual="off")))
        assert service.library.index([str(paper)]).stages["page images"].note.startswith("off")


def test_cli_search_modes_and_a_broken_embedder_folder(home, paper, tiny_embedder_folder, capsys, tmp_path):
    with visual_service(home, tiny_embedder_folder) as service:
        service.library.index([str(paper)])
    for mode in ("visual", "hybrid", "text"):
        assert main(["--home", str(home), "search", "results table", "--mode", mode, "--k", "3", "--json"]) == 0
        hits = json.loads(capsys.readouterr().out)
        assert len(hits) == 3 and all(("region" in h) == (mode != "text") for h in hits)
    assert main(["--home", str(home), "search", "results table", "--mode", "visual", "--k", "3"]) == 0
    spans = re.findall(r"region x ([\d.]+)-([\d.]+) y ([\d.]+)-([\d.]+)", capsys.readouterr().out)
    assert len(spans) == 3 and all(float(x0) < float(x1) and float(y0) < float(y1) for x0, x1, y0, y1 in spans)

    broken = tmp_path / "broken-embedder"
    shutil.copytree(tiny_embedder_folder, broken)
    (broken / "model.safetensors").write_bytes(b"not a safetensors file")
    with pytest.raises(EmbedderError, match="broken-embedder"):
        PageEmbedder.load(broken)
    empty = tmp_path / "not-a-model"
    empty.mkdir()
    assert main(["--home", str(home), "models", "import", str(empty)]) == 2
    assert "neither a model" in capsys.readouterr().err


def test_stored_vectors_decode_to_what_the_embedder_produced(home, paper, tiny_embedder_folder):
    with visual_service(home, tiny_embedder_folder) as service:
        service.library.index([str(paper)])
        doc_id = stored_rows(service)[0][0]
        [stored] = next(page_vectors.load(service.resources.db.cursor(), "tiny-colqwen", [page_vectors.page_key(doc_id, 2)]))
        embedder = service.resources.visual.embedder()
        image = next(page_images(str(paper / SMALL_PAPER), [2], embedder.visual_tokens))[1]
        fresh = embedder.embed_pages([image])[0]
        assert np.abs(stored.vectors() - fresh.vectors).max() < 0.01  # int8 with a per-vector scale
        assert stored.grid == fresh.grid and np.array_equal(stored.patch_rows, fresh.patch_rows)
    duckdb.connect(str(home / "data" / "library.duckdb")).close()  # the file is closed and reopens cleanly


def test_cancel_stops_the_stage_inside_a_page_and_keeps_what_was_embedded(home, paper,
                                                                          tiny_embedder_folder):
    import threading

    cancel = threading.Event()
    seen = []

    def progress(p):
        if p.phase == "visual":
            seen.append(p)
            if p.done == 4:
                cancel.set()  # the next page's forward pass stops at its first layer

    with visual_service(home, tiny_embedder_folder) as service:
        report = service.library.index([str(paper)], progress, cancel)
        assert report.cancelled and report.stages["page images"].done == 4 == len(stored_rows(service))
        assert seen[0].unit == "page images" and seen[-1].eta_seconds is not None
        assert service.library.index([str(paper)]).stages["page images"].done == 4


def test_a_picture_without_text_is_cited_by_the_region_image_search_matched(home, tmp_path, tiny_embedder_folder):
    from docqa_desktop.presentation import cited_line
    from docqa_desktop.methods.citations import cite
    from docqa_desktop.retrieval.page_source import PageSource

    folder = tmp_path / "pictures"
    folder.mkdir()
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    for i, colour in enumerate([(1, 0, 0), (0, 0.6, 0), (0, 0, 1)]):  # a bar chart without a single word
        page.draw_rect(pymupdf.Rect(100 + 120 * i, 600 - 150 * (i + 1), 180 + 120 * i, 600), color=colour,
                       fill=colour)
    doc.save(folder / "chart.pdf")
    with visual_service(home, tiny_embedder_folder) as service:
        service.library.index([str(folder)])
        hit = service.pages.search("the tallest bar", k=1, mode="visual")[0]
        source = PageSource(service.resources.db)
        ref = source.refs([hit])[0]
        assert ref.region == hit.region and source.words(ref) == []
        [citation] = cite(source, [(ref, "the blue bar is the tallest")], "Blue.", [ref])
        x0, y0, x1, y1 = citation.bbox
        assert citation.quote == "" and 0 <= x0 < x1 <= 612 and 0 <= y0 < y1 <= 792
        assert (x1 - x0, y1 - y0) == pytest.approx((306, 198), abs=40)  # half the width, a quarter of the height
        assert cited_line(1, citation) == "[1] chart.pdf, page 1 (the highlighted region)"


def test_batches_are_rendered_and_prepared_on_a_worker_thread_while_the_model_embeds(home, paper,
                                                                                    tiny_embedder_folder, monkeypatch):
    import threading

    threads, sizes = set(), []
    real_prepare, real_embed = PageEmbedder.prepare, PageEmbedder.embed_prepared

    def prepare(self, images):
        threads.add(threading.current_thread().name)
        return real_prepare(self, images)

    def embed(self, prepared):
        sizes.append(len(prepared.images))
        threads.add(("model", threading.current_thread().name))
        return real_embed(self, prepared)

    monkeypatch.setattr(PageEmbedder, "prepare", prepare)
    monkeypatch.setattr(PageEmbedder, "embed_prepared", embed)
    with visual_service(home, tiny_embedder_folder) as service:
        service.resources.visual.embedder().batch_size = 3  # as on a GPU
        assert service.library.index([str(paper)]).stages["page images"].done == 8
        assert sizes == [3, 3, 2]
        [worker] = {t for t in threads if isinstance(t, str)}
        [(_, model_thread)] = {t for t in threads if isinstance(t, tuple)}
        assert worker.startswith("page-prefetch") and model_thread != worker
        doc_id = stored_rows(service)[0][0]
        [stored] = next(page_vectors.load(service.resources.db.cursor(), "tiny-colqwen",
                                          [page_vectors.page_key(doc_id, 5)]))
        image = next(page_images(str(paper / SMALL_PAPER), [5], 256))[1]
        fresh = service.resources.visual.embedder().embed_pages([image])[0]
        assert np.abs(stored.vectors() - fresh.vectors).max() < 0.01 and stored.grid == fresh.grid


def test_batches_run_across_documents_and_a_document_that_fails_midway_is_reported(home, tmp_path,
                                                                                   tiny_embedder_folder,
                                                                                   monkeypatch):
    """A library of short documents fills the batch as one long document does; a document whose rendering fails
    after its first page keeps that page, is named in the errors, and the next document goes on."""
    folder = tmp_path / "short"
    folder.mkdir()
    for name in ("a", "b", "c"):
        doc = pymupdf.open()
        for n in (1, 2):
            doc.new_page().insert_text((72, 72), f"document {name}, page {n}: quarterly revenue by region")
        doc.save(folder / f"{name}.pdf")
    real_images = stage.page_images

    def failing_midway(path, pages, visual_tokens):
        for i, item in enumerate(real_images(path, pages, visual_tokens)):
            if path.endswith("b.pdf") and i == 1:
                raise OSError("the file was truncated while being read")
            yield item

    monkeypatch.setattr(stage, "page_images", failing_midway)
    sizes, seen = [], []
    real_embed = PageEmbedder.embed_prepared

    def embed(self, prepared):
        sizes.append(len(prepared.images))
        return real_embed(self, prepared)

    monkeypatch.setattr(PageEmbedder, "embed_prepared", embed)
    with visual_service(home, tiny_embedder_folder) as service:
        service.resources.visual.embedder().batch_size = 3
        report = service.library.index([str(folder)], lambda p: seen.append(p) if p.phase == "visual" else None)
        assert sizes == [3, 2]  # was [2, 2]: a batch per document, and b.pdf's first page lost with it
        assert report.stages["page images"].done == 5
        assert [key for key in report.errors if "page images not embedded" in report.errors[key]] == \
            [str(folder / "b.pdf")]
        assert "truncated" in report.errors[str(folder / "b.pdf")]
        paths = catalog.doc_paths(service.resources.db.cursor())
        assert sorted((paths[doc].rsplit("/", 1)[-1], page) for doc, page, *_ in stored_rows(service)) == \
            [("a.pdf", 1), ("a.pdf", 2), ("b.pdf", 1), ("c.pdf", 1), ("c.pdf", 2)]  # b's first page is kept
        last = seen[-1]
        assert (last.done, last.total, last.docs_done, last.docs_total) == (5, 5, 3, 3)
        assert {p.item.rsplit("/", 1)[-1] for p in seen if p.item} == {"a.pdf", "b.pdf", "c.pdf"}
