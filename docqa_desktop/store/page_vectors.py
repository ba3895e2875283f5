"""Visual page embeddings in the database: the source of truth the search cache (visual/library_index.py) is
built from. One row per (page, embedder); a page re-embedded by another embedder replaces its row."""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from . import enrichment
from .catalog import LIVE_DOCUMENTS

PAGE_BITS = 20  # search keys pack (doc_id, page) as doc_id << 20 | page: a million pages per document


def page_key(doc_id: int, page: int) -> int:
    return (int(doc_id) << PAGE_BITS) | int(page)


def split_key(key: int) -> tuple[int, int]:
    return int(key) >> PAGE_BITS, int(key) & ((1 << PAGE_BITS) - 1)


@dataclass(frozen=True)
class StoredPage:
    doc_id: int
    page: int
    int8: np.ndarray  # [n, 128] int8
    scales: np.ndarray  # [n] float32
    pooled_signs: np.ndarray  # [m, 2] uint64
    grid: tuple[int, int]
    patch_rows: np.ndarray  # [rows * cols] int32

    @property
    def key(self) -> int:
        return page_key(self.doc_id, self.page)

    def vectors(self) -> np.ndarray:
        """The float32 vectors the int8 codes stand for."""
        return self.int8.astype(np.float32) * self.scales[:, None]


def pages_without_vectors(cur, model: str) -> list[tuple[int, int]]:
    """(doc_id, page) of every indexed page that `model` has not embedded, in the background passes' document
    order (store/enrichment.py), a document's pages together."""
    return [tuple(r) for r in cur.execute(
        f"SELECT p.doc_id, p.page FROM pages p JOIN ({enrichment.PRIORITY}) o ON o.doc_id = p.doc_id "
        "LEFT JOIN page_vectors v ON v.doc_id = p.doc_id AND v.page = p.page AND v.model = ? "
        "WHERE v.doc_id IS NULL ORDER BY o.rank, p.page", [model]).fetchall()]


def save(db, cur, model: str, pages: list[StoredPage]) -> None:
    if not pages:
        return
    cur.execute("DELETE FROM page_vectors USING (SELECT unnest(?::BIGINT[]) AS doc_id, unnest(?::INTEGER[]) AS page) w "
                "WHERE page_vectors.doc_id = w.doc_id AND page_vectors.page = w.page",
                [[p.doc_id for p in pages], [p.page for p in pages]])
    db.insert_arrow(cur, "page_vectors", pa.table({
        "doc_id": pa.array([p.doc_id for p in pages], pa.int64()),
        "page": pa.array([p.page for p in pages], pa.int32()),
        "model": [model] * len(pages),
        "vector_count": pa.array([len(p.int8) for p in pages], pa.int32()),
        "grid_rows": pa.array([p.grid[0] for p in pages], pa.int32()),
        "grid_cols": pa.array([p.grid[1] for p in pages], pa.int32()),
        "int8": pa.array([np.ascontiguousarray(p.int8, np.int8).tobytes() for p in pages], pa.binary()),
        "scales": pa.array([np.ascontiguousarray(p.scales, np.float32).tobytes() for p in pages], pa.binary()),
        "pooled_signs": pa.array([np.ascontiguousarray(p.pooled_signs, np.uint64).tobytes() for p in pages],
                                 pa.binary()),
        "patch_rows": pa.array([np.ascontiguousarray(p.patch_rows, np.int32).tobytes() for p in pages], pa.binary()),
    }))


def keys(cur, model: str) -> np.ndarray:
    """Search keys of the live pages `model` has embedded."""
    rows = cur.execute(f"SELECT doc_id, page FROM page_vectors WHERE model = ? AND doc_id IN ({LIVE_DOCUMENTS})",
                       [model]).fetchnumpy()
    return (rows["doc_id"].astype(np.int64) << PAGE_BITS) | rows["page"].astype(np.int64)


def load(cur, model: str, wanted: list[int], batch: int = 512) -> Iterator[list[StoredPage]]:
    """The stored pages for these search keys, a batch at a time (a large library does not fit in RAM twice)."""
    for start in range(0, len(wanted), batch):
        part = [split_key(k) for k in wanted[start:start + batch]]
        rows = cur.execute(
            "SELECT v.doc_id, v.page, v.int8, v.scales, v.pooled_signs, v.grid_rows, v.grid_cols, v.patch_rows "
            "FROM page_vectors v JOIN (SELECT unnest(?::BIGINT[]) AS doc_id, unnest(?::INTEGER[]) AS page) w "
            "ON v.doc_id = w.doc_id AND v.page = w.page WHERE v.model = ?",
            [[d for d, _ in part], [p for _, p in part], model]).fetchall()
        yield [_stored(row) for row in rows]


def counts(cur) -> dict[str, int]:
    """Pages embedded, by embedder."""
    return dict(cur.execute(f"SELECT model, count(*) FROM page_vectors WHERE doc_id IN ({LIVE_DOCUMENTS}) "
                            "GROUP BY model").fetchall())


def _stored(row) -> StoredPage:
    doc_id, page_number, int8, scales, pooled, grid_rows, grid_cols, patch_rows = row
    return StoredPage(doc_id, page_number, np.frombuffer(int8, np.int8).reshape(-1, 128),
                      np.frombuffer(scales, np.float32), np.frombuffer(pooled, np.uint64).reshape(-1, 2),
                      (grid_rows, grid_cols), np.frombuffer(patch_rows, np.int32))
