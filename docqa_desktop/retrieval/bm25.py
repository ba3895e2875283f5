"""BM25 over page terms, searched in RAM and kept in step with the store one document at a time.

The store (store/keywords.py) holds every page's term counts. This index reads them once, then on each search
catches up with the documents added and removed since: added ones become a new segment, removed ones are
masked out. Segments are merged when they pile up, and the whole index is read again when masked pages
outnumber live ones. Statistics (page count, average length, document frequency) are those of the live pages
at search time, so the ranking equals that of an index built from scratch: DuckDB FTS's BM25 (k1 1.2, b 0.75,
idf log10((N - df + 0.5) / (df + 0.5) + 1)).

A query costs the postings of its own terms (at 100,000 pages, benchmarks/library_scale.py), not a pass
over the library.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np

from ..store import keywords, versions
from ..store.database import Database
from .fusion import PageKey
from .in_ram import NEVER, PerLibrary
from .ocr_words import ocr_variants

K1 = 1.2
B = 0.75
MAX_SEGMENTS = 8  # past this, the segments added since the first are merged into one


@dataclass
class _Segment:
    """Postings of some documents, grouped by term: term_ids[i]'s postings are rows[starts[i]:starts[i+1]]."""
    term_ids: np.ndarray  # int32, ascending
    starts: np.ndarray  # int64, len(term_ids) + 1
    rows: np.ndarray  # int32: the page's slot in the index
    tf: np.ndarray  # float32

    @classmethod
    def build(cls, term_ids: np.ndarray, rows: np.ndarray, tf: np.ndarray) -> "_Segment":
        order = np.argsort(term_ids, kind="stable")
        return cls.from_sorted(term_ids[order], rows[order], tf[order])

    @classmethod
    def from_sorted(cls, term_ids: np.ndarray, rows: np.ndarray, tf: np.ndarray) -> "_Segment":
        """From postings already in term order."""
        first = np.flatnonzero(np.diff(term_ids)) + 1
        starts = np.concatenate([[0], first, [len(term_ids)]]) if len(term_ids) else np.zeros(1, np.int64)
        unique = term_ids[starts[:-1]]
        return cls(unique.astype(np.int32), starts.astype(np.int64), rows.astype(np.int32, copy=False),
                   tf.astype(np.float32, copy=False))

    @classmethod
    def merged(cls, parts: list["_Segment"]) -> "_Segment":
        term_ids = np.concatenate([np.repeat(p.term_ids, np.diff(p.starts)) for p in parts])
        return cls.build(term_ids, np.concatenate([p.rows for p in parts]), np.concatenate([p.tf for p in parts]))

    def postings(self, term_id: int) -> tuple[np.ndarray, np.ndarray]:
        at = int(np.searchsorted(self.term_ids, term_id))
        if at == len(self.term_ids) or self.term_ids[at] != term_id:
            return _EMPTY_ROWS, _EMPTY_TF
        return self.rows[self.starts[at]:self.starts[at + 1]], self.tf[self.starts[at]:self.starts[at + 1]]


_EMPTY_ROWS = np.zeros(0, np.int32)
_EMPTY_TF = np.zeros(0, np.float32)


class KeywordIndex:
    def __init__(self):
        self._lock = threading.Lock()
        self._reset()

    def _reset(self) -> None:
        self.segments: list[_Segment] = []
        self.doc_of = np.zeros(0, np.int64)  # per page slot
        self.page_of = np.zeros(0, np.int32)
        self.length = np.zeros(0, np.float32)
        self.alive = np.zeros(0, bool)
        self.slots: dict[int, np.ndarray] = {}  # doc id -> its page slots
        self.version: str | None | object = NEVER  # the store's keyword counter when last caught up

    # -- keeping in step with the store ---------------------------------------------------------------

    def refresh(self, cur) -> None:
        """Take in the documents added and removed since the last search."""
        version = versions.current(cur, versions.KEYWORDS)
        if version == self.version:
            return
        stored = keywords.indexed_documents(cur)
        with self._lock:
            self.version = version
            known = set(self.slots)
            removed, added = known - stored, stored - known
            if removed and self._mostly_dead(removed):
                self._reset()
                removed, added = set(), stored
            if removed:  # a new mask, not an edit of the one a running search holds
                alive = self.alive.copy()
                for doc_id in removed:
                    alive[self.slots.pop(doc_id)] = False
                self.alive = alive
            if added:
                self._add(cur, sorted(added))
            if len(self.segments) > MAX_SEGMENTS:
                self.segments = [self.segments[0], _Segment.merged(self.segments[1:])]

    def _mostly_dead(self, removed: set[int]) -> bool:
        dead = int((~self.alive).sum()) + sum(len(self.slots[d]) for d in removed)
        return dead > len(self.alive) - dead

    def _add(self, cur, doc_ids: list[int]) -> None:
        pages, term_ids, rows, tf = keywords.postings(cur, None if not self.slots else doc_ids)
        first = len(self.doc_of)
        docs = pages.column("doc_id").to_numpy()
        numbers = pages.column("page").to_numpy()
        self.doc_of = np.concatenate([self.doc_of, docs])
        self.page_of = np.concatenate([self.page_of, numbers.astype(np.int32)])
        self.length = np.concatenate([self.length, pages.column("length").to_numpy().astype(np.float32)])
        self.alive = np.concatenate([self.alive, np.ones(len(docs), bool)])
        for doc_id, (start, stop) in _runs(docs).items():
            self.slots[int(doc_id)] = np.arange(first + start, first + stop)
        if len(term_ids):
            rows += first
            self.segments.append(_Segment.from_sorted(term_ids, rows, tf))

    # -- searching ----------------------------------------------------------------------------------------

    def search(self, term_ids: list[int], doc_ids: list[int] | None, limit: int) -> list[tuple[PageKey, float]]:
        with self._lock:
            segments, alive, length = list(self.segments), self.alive, self.length
            doc_of, page_of = self.doc_of, self.page_of
        live = alive if doc_ids is None else alive & np.isin(doc_of, doc_ids)
        pages = int(alive.sum())
        if not pages or not term_ids:
            return []
        # statistics of the whole library, as a full rebuild would have them; the scope only filters
        average = float(length[alive].sum()) / pages
        norm = K1 * (1 - B + B * length / max(average, 1e-9))
        scores = np.zeros(len(alive), np.float32)
        for term_id in dict.fromkeys(term_ids):
            parts = [s.postings(term_id) for s in segments]
            rows = np.concatenate([r for r, _ in parts])
            tf = np.concatenate([t for _, t in parts])
            keep = alive[rows]
            rows, tf = rows[keep], tf[keep]
            df = len(rows)
            if not df:
                continue
            idf = np.log10((pages - df + 0.5) / (df + 0.5) + 1.0)  # DuckDB FTS: log() is base 10
            scores[rows] += idf * tf * (K1 + 1) / (tf + norm[rows])
        scores[~live] = 0.0
        hits = np.flatnonzero(scores > 0)
        if len(hits) > limit:
            hits = hits[np.argpartition(-scores[hits], limit - 1)[:limit]]
        # best first; ties by document and page, like the SQL ranking it replaces
        order = sorted(hits, key=lambda r: (-float(scores[r]), int(doc_of[r]), int(page_of[r])))
        return [((int(doc_of[r]), int(page_of[r])), float(scores[r])) for r in order]


def _runs(values: np.ndarray) -> dict[int, tuple[int, int]]:
    """value -> (start, stop) of its run in an array sorted by value."""
    if not len(values):
        return {}
    edges = np.flatnonzero(np.diff(values)) + 1
    starts = np.concatenate([[0], edges])
    stops = np.concatenate([edges, [len(values)]])
    return {int(values[a]): (int(a), int(b)) for a, b in zip(starts, stops)}


_indexes = PerLibrary(KeywordIndex)


def search_pages(db: Database, query: str, doc_ids: list[int] | None, limit: int) -> list[tuple[PageKey, float]]:
    if not query.strip():
        return []
    index = _indexes(db)
    cur = db.cursor()
    index.refresh(cur)
    return index.search([term_id for term_id, _ in keywords.query_terms(cur, query)], doc_ids, limit)


def with_ocr_spellings(db: Database, query: str) -> str:
    """The query plus the spellings OCR may have given its words in this library (ocr_words)."""
    cur = db.cursor()
    return ocr_variants(query, lambda word: bool(keywords.query_terms(cur, word)),
                        lambda word: keywords.terms_containing(cur, word))
