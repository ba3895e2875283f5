"""Dense retrieval: cosine similarity between the query and the chunks in scope; a page scores its best chunk.

Chunk embeddings live in RAM quantized the way page-image vectors are (vectors/codes.py): int8 with one scale per
vector (a 384-d chunk: 388 bytes instead of 1,536) and 1-bit sign codes (48 bytes). A small library is scored
in full from the int8 codes; a large one first ranks every chunk by the Hamming distance of its sign code to
the query's, then scores only the best of those from the int8 codes. The top 64 are scored again from their float32
vectors in the store.

The chunks' sign codes are taken after subtracting the library's mean chunk vector m: MiniLM's embeddings share a
large common component, which uncentred signs spend their bits on. The query's code is not centred: q·v ranks
chunks as q·(v - m) does, so q against the centred chunks is what the ranking needs (at 711,000 of
benchmarks/library_scale.py's vectors, the 60 dev questions, the top 64 rescored, a 1-in-50 shortlist: recall@10
0.987 uncentred, 0.995 centred; centring the query too gave 0.86 instead of 0.90 on a two-document library).
"""
from __future__ import annotations

import dataclasses
import threading
from dataclasses import dataclass

import numpy as np

from ..store import catalog, content, versions
from ..store.database import Database
from ..store.snapshot import snapshot
from ..vectors.codes import quantize_int8, sign_codes
from .fusion import PageKey
from .in_ram import NEVER, PerLibrary

DIM = 384
EXACT_HEAD = 64  # the top chunks rescored in float32
EXACT_ROWS = 20_000  # up to this many chunks in scope (~3,000 pages), every one is scored from its int8 codes
LOAD_BATCH = 16_384  # chunk rows quantized at a time: the float32 vectors of a whole library never sit in RAM
RECENTRE_GROWTH = 2  # the mean is taken again once the library has this many times the chunks it was taken from


def shortlist_size(rows: int, wanted: int) -> int:
    """Chunks the Hamming stage hands to int8 scoring: 1 in 50 of those in scope, at least 8,000 and at least 40
    per wanted result (1-bit codes of 384-d vectors tie often: 1 in 100 gave recall@10 0.968 at 711,000 chunks,
    1 in 50 0.995; at 71,000 a floor of 4,000 gave 0.99 on one library)."""
    return min(rows, max(8000, 40 * wanted, rows // 50))


def centred_signs(codes: np.ndarray, scales: np.ndarray, centre: np.ndarray) -> np.ndarray:
    """Sign codes of the dequantized vectors minus `centre`, a batch at a time, as word planes [6, n]: the
    Hamming pass reads each word of every chunk from one contiguous array (5 ms instead of 27 at 711,000)."""
    out = np.empty((DIM // 64, len(codes)), np.uint64)
    for start in range(0, len(codes), LOAD_BATCH):
        part = slice(start, start + LOAD_BATCH)
        out[:, part] = sign_codes(codes[part] * scales[part, None] - centre).T
    return out


def hamming(planes: np.ndarray, query_signs: np.ndarray) -> np.ndarray:
    """Bits in which each chunk's code differs from the query's: int32 [n]."""
    distance = np.zeros(planes.shape[1], np.int32)
    for word, query_word in zip(planes, query_signs):
        distance += np.bitwise_count(word ^ query_word)
    return distance


@dataclass
class _Block:
    """One load of chunk rows; the index is a list of these, appended as documents arrive."""
    docs: np.ndarray  # int64
    pages: np.ndarray  # int64
    ids: np.ndarray  # int64
    codes: np.ndarray  # [n, 384] int8
    scales: np.ndarray  # [n] float32
    signs: np.ndarray  # [6, n] uint64 word planes, centred

    @classmethod
    def read(cls, cur, condition: str, centre: np.ndarray | None) -> "_Block":
        """The embedded chunks matching the SQL `condition`, quantized batch by batch; signs centred on `centre`,
        or on these chunks' own mean when None.

        A batch is a query for a range of chunk ids, written into arrays sized beforehand: one query sorted by
        id needed DuckDB memory for every vector (1 GB at 100,000 pages, out of memory at a 256 MB limit), one
        streamed unsorted left the process 0.3 GB fuller, and joining per-batch arrays held the codes twice.
        Ties are broken by chunk id when scoring, so rows need no order."""
        with snapshot(cur):  # the count and the batches see the same rows
            count, low, high = cur.execute(f"SELECT count(*), coalesce(min(id), 0), coalesce(max(id), -1) "
                                           f"FROM chunk_vectors WHERE {condition}").fetchone()
            block = cls(np.empty(count, np.int64), np.empty(count, np.int64), np.empty(count, np.int64),
                        np.empty((count, DIM), np.int8), np.empty(count, np.float32), _NO_SIGNS)
            at = 0
            for start in range(low, high + 1, LOAD_BATCH):
                batch = cur.execute(f"SELECT doc_id, page, id, embedding FROM chunk_vectors WHERE {condition} "
                                    f"AND id >= {start} AND id < {start + LOAD_BATCH}").fetch_arrow_table()
                rows = slice(at, at + batch.num_rows)
                flat = batch.column(3).combine_chunks().values.to_numpy(zero_copy_only=False)
                block.codes[rows], block.scales[rows] = quantize_int8(flat.reshape(batch.num_rows, DIM))
                for array, column in ((block.docs, 0), (block.pages, 1), (block.ids, 2)):
                    array[rows] = batch.column(column).to_numpy()
                at += batch.num_rows
        return block.centred(block.mean() if centre is None else centre)

    def mean(self) -> np.ndarray:
        total = np.zeros(DIM, np.float64)
        for start in range(0, len(self.codes), LOAD_BATCH):
            part = slice(start, start + LOAD_BATCH)
            total += (self.codes[part] * self.scales[part, None]).sum(axis=0)
        return (total / max(len(self.codes), 1)).astype(np.float32)

    def centred(self, centre: np.ndarray) -> "_Block":
        return dataclasses.replace(self, signs=centred_signs(self.codes, self.scales, centre))

    @classmethod
    def joined(cls, blocks: list["_Block"], keep: np.ndarray | None = None) -> "_Block":
        if not blocks:
            return cls(np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64),
                       np.zeros((0, DIM), np.int8), np.zeros(0, np.float32), _NO_SIGNS)
        # rows run along the first axis, but along the last one of the sign planes
        parts = {field.name: np.concatenate([getattr(b, field.name) for b in blocks],
                                            axis=-1 if field.name == "signs" else 0)
                 for field in dataclasses.fields(cls)}
        if keep is not None:
            parts = {name: value[..., keep] if name == "signs" else value[keep] for name, value in parts.items()}
        return cls(**parts)


_NO_SIGNS = np.zeros((DIM // 64, 0), np.uint64)


class ChunkVectors:
    """Every embedded chunk, quantized, kept in step with the store a document at a time: a document whose
    embedded-chunk count changed is masked out and read again; one that is gone is masked out."""

    def __init__(self):
        self._lock = threading.Lock()
        self.block = _Block.joined([])
        self.alive = np.zeros(0, bool)
        self.centre = np.zeros(DIM, np.float32)  # what the sign codes are taken relative to
        self.centred_rows = 0  # live chunks when the centre was taken
        self.counts: dict[int, int] = {}  # doc id -> embedded chunks loaded
        self.version: str | None | object = NEVER  # the store's chunk counter when last caught up

    def refresh(self, db: Database) -> None:
        cur = db.cursor()
        version = versions.current(cur, versions.CHUNKS)
        if version == self.version:
            return
        stored = dict(cur.execute("SELECT doc_id, count(*) FROM chunk_vectors GROUP BY doc_id").fetchall())
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
                first_load = not self.counts
                only = "true" if first_load else f"doc_id IN ({catalog.listed(fresh)})"
                added = _Block.read(cur, only, None if first_load else self.centre)
                if first_load:
                    self.centre, self.centred_rows = added.mean(), len(added.ids)
                blocks.append(added)
                alive = np.concatenate([alive, np.ones(len(added.ids), bool)])
                self.counts.update({d: stored[d] for d in fresh})
            blocks = [b for b in blocks if len(b.ids)]  # a first load is used as read, not copied
            dead = int((~alive).sum())
            if dead > len(alive) - dead:  # compact: masked rows outnumber live ones
                block, alive = _Block.joined(blocks, alive), np.ones(len(alive) - dead, bool)
            else:
                block = blocks[0] if len(blocks) == 1 else _Block.joined(blocks)
            if len(block.ids) > RECENTRE_GROWTH * max(self.centred_rows, 1):
                # grown from a small start: its first mean no longer describes it
                self.centre, self.centred_rows = block.mean(), len(block.ids)
                block = block.centred(self.centre)
            self.block, self.alive = block, alive

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
            distance = hamming(block.signs, sign_codes(query[None, :])[0])
            distance[~scope] = DIM + 1
            keep = shortlist_size(in_scope, wanted)
            rows = np.argpartition(distance, keep - 1)[:keep]
        else:
            rows = np.flatnonzero(scope)
        scores = (block.codes[rows].astype(np.float32) @ query) * block.scales[rows]
        order = np.lexsort((block.ids[rows], -scores))  # best first, equal scores by chunk id: rows have no order
        rows = rows[order]
        return block.docs[rows], block.pages[rows], block.ids[rows], scores[order]


def _in_documents(docs: np.ndarray, doc_ids) -> np.ndarray:
    if not doc_ids:
        return np.zeros(len(docs), bool)
    return np.isin(docs, np.fromiter(doc_ids, np.int64), kind="table")  # a lookup table: O(n), not a sort


_indexes = PerLibrary(ChunkVectors)


def _index(db: Database) -> ChunkVectors:
    index = _indexes(db)
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
