"""Dense retrieval: cosine similarity between the query and every chunk in scope; a page scores its best chunk."""
from __future__ import annotations

import threading

import numpy as np

from ..store import catalog
from ..store.database import Database
from .fusion import PageKey


class ChunkMatrix:
    """All chunk embeddings in RAM, reloaded only when the chunks table changes.

    Reading them from DuckDB costs ~0.4 s per query on a few hundred pages; the matrix costs
    1.5 KB per chunk (a 10k-page library: ~100k chunks, ~150 MB).
    """

    def __init__(self):
        self._key = None
        self._lock = threading.Lock()
        # (doc ids, pages, vectors, chunk ids), replaced as one tuple so readers never see a mix of versions
        self.rows = (np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros((0, 384), np.float32),
                     np.zeros(0, np.int64))

    def refresh(self, db: Database) -> None:
        cur = db.cursor()
        key = cur.execute("SELECT count(*), max(id) FROM chunks WHERE embedding IS NOT NULL").fetchone()
        with self._lock:
            if key == self._key:
                return
            table = cur.execute("SELECT doc_id, page, embedding, id FROM chunks WHERE embedding IS NOT NULL "
                                "ORDER BY id").fetch_arrow_table()
            flat = table.column("embedding").combine_chunks().values.to_numpy(zero_copy_only=False)
            vectors = flat.reshape(table.num_rows, -1) if table.num_rows else np.zeros((0, 384), np.float32)
            self.rows = (table.column("doc_id").to_numpy(), table.column("page").to_numpy(), vectors,
                         table.column("id").to_numpy())
            self._key = key


_matrices: dict[str, ChunkMatrix] = {}


def has_vectors(db: Database) -> bool:
    return db.cursor().execute("SELECT count(embedding) > 0 FROM chunks").fetchone()[0]


def _scored_chunks(db: Database, query_vector: np.ndarray, doc_ids: list[int] | None):
    """(doc ids, pages, chunk ids, cosine scores) of the chunks in scope, best first."""
    matrix = _matrices.setdefault(str(db.path), ChunkMatrix())
    matrix.refresh(db)
    docs, pages, vectors, ids = matrix.rows
    live = catalog.live_documents(db.cursor()) if doc_ids is None else set(doc_ids)
    rows = np.flatnonzero(np.isin(docs, list(live))) if len(docs) else np.zeros(0, np.int64)
    scores = vectors[rows] @ query_vector.astype(np.float32)
    order = np.argsort(-scores)
    return docs[rows][order], pages[rows][order], ids[rows][order], scores[order]


def search_pages(db: Database, query_vector: np.ndarray, doc_ids: list[int] | None,
                 limit: int) -> list[tuple[PageKey, float]]:
    """Best pages by their best chunk's cosine similarity, highest first."""
    docs, pages, _, scores = _scored_chunks(db, query_vector, doc_ids)
    best: dict[PageKey, float] = {}
    for doc, page, score in zip(docs, pages, scores):
        key = (int(doc), int(page))
        if key not in best:
            best[key] = float(score)
            if len(best) >= limit:
                break
    return list(best.items())


def search_chunks(db: Database, query_vector: np.ndarray, doc_ids: list[int] | None,
                  limit: int) -> list[tuple[int, float]]:
    """The best (chunk id, cosine similarity), highest first."""
    _, _, ids, scores = _scored_chunks(db, query_vector, doc_ids)
    return [(int(i), float(s)) for i, s in zip(ids[:limit], scores[:limit])]

