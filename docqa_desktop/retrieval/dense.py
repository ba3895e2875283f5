"""Dense retrieval: cosine similarity between the query and the chunks in scope; a page scores its best chunk.

Chunk embeddings live in RAM quantized the way page-image vectors are (visual/codes.py): int8 with one scale per
vector (a 384-d chunk: 388 bytes instead of 1,536) and 1-bit sign codes (48 bytes). A small library is scored
in full from the int8 codes; a large one first ranks every chunk by the Hamming distance of its sign code to
the query's, then scores only the best of those from the int8 codes. The top 64 are scored again from their float32
vectors in the store. benchmarks/library_scale.py measures
recall@10 against exact float32 cosine (the target is 0.99) and the latency at 100,000 pages.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np

from ..store import catalog, content, versions
from ..store.database import Database
from ..visual.codes import quantize_int8, sign_codes
from .fusion import PageKey

DIM = 384
EXACT_HEAD = 64  # the top chunks rescored in float32
EXACT_ROWS = 20_000  # up to this many chunks in scope (~3,000 pages), every one is scored from its int8 codes


def shortlist_size(rows: int, wanted: int) -> int:
    """Chunks the Hamming stage hands to int8 scoring: 1 in 100 of those in scope, and at least 40 per wanted
    result (1-bit codes of 384-d vectors tie often; fewer lost recall@10 at 600,000 chunks)."""
    return min(rows, max(4000, 40 * wanted, rows // 100))


@dataclass
class _Block:
    """One load of chunk rows; the index is a list of these, appended as documents arrive."""
    docs: np.ndarray  # int64
    pages: np.ndarray  # int64
    ids: np.ndarray  # int64
    codes: np.ndarray  # [n, 384] int8
    scales: np.ndarray  # [n] float32
    signs: np.ndarray  # [n, 6] uint64

    @classmethod
    def from_table(cls, table) -> "_Block":
        flat = table.column("embedding").combine_chunks().values.to_numpy(zero_copy_only=False)
        vectors = flat.reshape(table.num_rows, -1) if table.num_rows else np.zeros((0, DIM), np.float32)
        codes, scales = quantize_int8(vectors)
        return cls(table.column("doc_id").to_numpy().astype(np.int64), table.column("page").to_numpy().astype(np.int64),
                   table.column("id").to_numpy().astype(np.int64), codes, scales, sign_codes(vectors))

    @classmethod
    def joined(cls, blocks: list["_Block"], keep: np.ndarray | None = None) -> "_Block":
        parts = {name: np.concatenate([getattr(b, name) for b in blocks]) if blocks else None
                 for name in ("docs", "pages", "ids", "codes", "scales", "signs")}
        if not blocks:
            return cls(np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64),
                       np.zeros((0, DIM), np.int8), np.zeros(0, np.float32), np.zeros((0, DIM // 64), np.uint64))
        if keep is not None:
            parts = {name: value[keep] for name, value in parts.items()}
        return cls(**parts)


class ChunkVectors:
    """Every embedded chunk, quantized, kept in step with the store a document at a time: a document whose
    embedded-chunk count changed is masked out and read again; one that is gone is masked out."""

    def __init__(self):
        self._lock = threading.Lock()
        self.block = _Block.joined([])
        self.alive = np.zeros(0, bool)
        self.counts: dict[int, int] = {}  # doc id -> embedded chunks loaded
        self.version: str | None | object = _NEVER  # the store's chunk counter when last caught up

    def refresh(self, db: Database) -> None:
        cur = db.cursor()
        version = versions.current(cur, versions.CHUNKS)
        if version == self.version:
            return
        stored = dict(cur.execute("SELECT doc_id, count(*) FROM chunks WHERE embedding IS NOT NULL "
                                  "GROUP BY doc_id").fetchall())
        with self._lock:
            changed = {d for d, n in self.counts.items() if stored.get(d) != n}
            fresh = sorted(changed | (set(stored) - set(self.counts)))
            fresh = [d for d in fresh if d in stored]
            self.version = version
            if not changed and not fresh:
                return
            alive = self.alive.copy()
            if changed:
                alive[np.isin(self.block.docs, list(changed))] = False
            for doc_id in changed:
                self.counts.pop(doc_id)
            blocks = [self.block]
            if fresh:
                only = "" if not self.counts else f"AND doc_id IN ({catalog.listed(fresh)}) "
                table = cur.execute("SELECT doc_id, page, embedding, id FROM chunks WHERE embedding IS NOT NULL "
                                    f"{only}ORDER BY id").fetch_arrow_table()
                added = _Block.from_table(table)
                blocks.append(added)
                alive = np.concatenate([alive, np.ones(len(added.ids), bool)])
                self.counts.update({d: stored[d] for d in fresh})
            dead = int((~alive).sum())
            if dead > len(alive) - dead:  # compact: masked rows outnumber live ones
                self.block, self.alive = _Block.joined(blocks, alive), np.ones(len(alive) - dead, bool)
            else:
                self.block, self.alive = _Block.joined(blocks), alive

    def scored(self, query: np.ndarray, doc_ids: set[int] | None, wanted: int):
        """(doc ids, pages, chunk ids, approximate cosine) of the best chunks in scope, best first: all of them
        when few, else the int8-scored shortlist of the Hamming stage."""
        with self._lock:
            block, alive = self.block, self.alive
        scope = alive if doc_ids is None else alive & _in_documents(block.docs, doc_ids)
        in_scope = int(scope.sum())
        query = np.asarray(query, np.float32)
        if in_scope > EXACT_ROWS:
            # over every row (a gather of the rows in scope would cost more than it saves), out of scope last
            distance = np.bitwise_count(block.signs ^ sign_codes(query[None, :])).sum(axis=1, dtype=np.int32)
            distance[~scope] = DIM + 1
            keep = shortlist_size(in_scope, wanted)
            rows = np.argpartition(distance, keep - 1)[:keep]
        else:
            rows = np.flatnonzero(scope)
        scores = (block.codes[rows].astype(np.float32) @ query) * block.scales[rows]
        order = np.argsort(-scores, kind="stable")
        rows = rows[order]
        return block.docs[rows], block.pages[rows], block.ids[rows], scores[order]


def _in_documents(docs: np.ndarray, doc_ids) -> np.ndarray:
    if not doc_ids:
        return np.zeros(len(docs), bool)
    return np.isin(docs, np.fromiter(doc_ids, np.int64), kind="table")  # a lookup table: O(n), not a sort


_NEVER = object()
_indexes: dict[str, ChunkVectors] = {}
_indexes_guard = threading.Lock()


def _index(db: Database) -> ChunkVectors:
    with _indexes_guard:
        index = _indexes.setdefault(str(db.path), ChunkVectors())
    index.refresh(db)
    return index


def has_vectors(db: Database) -> bool:
    return bool(_index(db).alive.any())


def _scored_chunks(db: Database, query_vector: np.ndarray, doc_ids: list[int] | None, wanted: int):
    # the whole library needs no filter: a document's chunks go in the transaction that drops the document
    docs, pages, ids, scores = _index(db).scored(query_vector, None if doc_ids is None else set(doc_ids), wanted)
    return _exact_head(db, query_vector, docs, pages, ids, scores)


def _exact_head(db: Database, query: np.ndarray, docs, pages, ids, scores):
    """The best EXACT_HEAD chunks scored again from their float32 vectors in the store: int8 rounding moves a
    score by ~0.002, enough to swap near-ties at the top of a large library (recall@10 0.97 without this on
    benchmarks/library_scale.py's vectors)."""
    head = min(len(ids), EXACT_HEAD)
    if not head:
        return docs, pages, ids, scores
    vectors = content.chunk_embeddings(db.cursor(), [int(i) for i in ids[:head]])
    exact = np.array([float(np.dot(vectors[int(i)], query)) if int(i) in vectors else scores[n]
                      for n, i in enumerate(ids[:head])], np.float32)
    order = np.concatenate([np.argsort(-exact, kind="stable"), np.arange(head, len(ids))])
    scores = np.concatenate([exact, scores[head:]])
    return docs[order], pages[order], ids[order], scores[order]


def search_pages(db: Database, query_vector: np.ndarray, doc_ids: list[int] | None,
                 limit: int) -> list[tuple[PageKey, float]]:
    """Best pages by their best chunk's cosine similarity, highest first."""
    docs, pages, _, scores = _scored_chunks(db, query_vector, doc_ids, limit)
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
    _, _, ids, scores = _scored_chunks(db, query_vector, doc_ids, limit)
    return [(int(i), float(s)) for i, s in zip(ids[:limit], scores[:limit])]
