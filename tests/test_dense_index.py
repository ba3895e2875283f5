"""Dense retrieval over quantized chunk vectors: close to exact float32 cosine, and kept in step with the store."""
from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from docqa_desktop.vectors.text_embedder import default_embedder
from docqa_desktop.retrieval import dense
from docqa_desktop.service import Service

from conftest import EVAL_FILE, REPORT_15, SMALL_PAPER, corpus_pdf, make_settings, write_pdf

pytestmark = pytest.mark.model  # MiniLM embeds real corpus chunks

QUESTIONS = [json.loads(line)["question"] for line in EVAL_FILE.read_text().splitlines()[:30]]


def exact_top(db, query: np.ndarray, k: int) -> list[int]:
    rows = db.cursor().execute("SELECT id, embedding FROM chunk_vectors").fetchall()
    ids = np.array([i for i, _ in rows])
    vectors = np.array([v for _, v in rows], np.float32)
    return list(ids[np.argsort(-(vectors @ query), kind="stable")[:k]])


def recall_at(k: int, found: list[int], exact: list[int]) -> float:
    return len(set(found[:k]) & set(exact[:k])) / k


@pytest.fixture(scope="module")
def embedded(tmp_path_factory):
    home = tmp_path_factory.mktemp("dense")
    folder = home / "lib"
    folder.mkdir()
    for name in (SMALL_PAPER, REPORT_15):
        shutil.copy(corpus_pdf(name), folder)
    with Service(make_settings(home / "home", layout=False)) as service:
        service.library.index([str(folder)])
        yield service, folder


def test_quantized_scores_keep_the_exact_top_ten(embedded, monkeypatch):
    service, _ = embedded
    db = service.resources.db
    queries = default_embedder().embed(QUESTIONS)
    int8_recall, shortlist_recall = [], []
    for query in queries:
        exact = exact_top(db, query, 10)
        int8_recall.append(recall_at(10, [i for i, _ in dense.search_chunks(db, query, None, 10)], exact))
        # the Hamming stage on a library this small: a shortlist of a quarter of the chunks
        with monkeypatch.context() as m:
            m.setattr(dense, "EXACT_ROWS", 0)
            m.setattr(dense, "shortlist_size", lambda rows, wanted: rows // 4)
            shortlist_recall.append(recall_at(10, [i for i, _ in dense.search_chunks(db, query, None, 10)], exact))
    assert np.mean(int8_recall) >= 0.99
    assert np.mean(shortlist_recall) >= 0.9  # a random quarter would keep 0.25 of them


def test_chunk_vectors_follow_added_and_removed_documents(embedded):
    service, folder = embedded
    db = service.resources.db
    query = default_embedder().embed(["ferries leave the harbour every hour"])[0]
    dense.search_pages(db, query, None, 5)  # loaded
    write_pdf(folder / "ferries.pdf", ["Ferries leave the harbour every hour, all year round."])
    service.library.index([str(folder)])
    top = dense.search_pages(db, query, None, 5)
    ferries = [e.doc_id for e in service.library.status() if e.name == "ferries.pdf"][0]
    assert top[0][0] == (ferries, 1)
    (folder / "ferries.pdf").unlink()
    service.library.index([str(folder)])
    assert all(doc != ferries for (doc, _), _ in dense.search_pages(db, query, None, 50))
    kept = dense._indexes(db)
    fresh = dense.ChunkVectors()
    fresh.refresh(db)
    live = {e.doc_id for e in service.library.status()}
    assert list(kept.scored(query, live, 20)[2]) == list(fresh.scored(query, live, 20)[2])
