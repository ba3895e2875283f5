"""Hybrid text retrieval over pages: BM25 and dense, fused, with neighbouring pages and page references."""
from __future__ import annotations

import os
from enum import Enum

from ..domain import SearchHit
from ..vectors.text_embedder import MiniLMEmbedder, default_embedder
from ..settings import SearchSettings
from ..store import catalog, content
from ..store.database import Database
from . import bm25, dense, page_refs
from .fusion import PageKey, convex_fusion, min_max, ranked, reciprocal_rank_fusion, with_neighbours
from .snippets import best_window, matched_words


class Mode(str, Enum):
    BM25 = "bm25"
    DENSE = "dense"
    FUSED = "fused"


class TextRetriever:
    def __init__(self, db: Database, settings: SearchSettings, embedder: MiniLMEmbedder | None = None):
        self.db = db
        self.settings = settings
        self._embedder = embedder

    @property
    def embedder(self):
        if self._embedder is None:
            self._embedder = default_embedder()
        return self._embedder

    def search(self, query: str, doc_ids: list[int] | None = None, k: int | None = None,
               mode: Mode = Mode.FUSED) -> list[SearchHit]:
        return self.hits(self.ranked(query, doc_ids, k or self.settings.k, mode), query)

    def ranked(self, query: str, doc_ids: list[int] | None, k: int, mode: Mode = Mode.FUSED) -> list[tuple[PageKey, float]]:
        """The k best ((doc_id, page), score), best first."""
        if doc_ids is not None and not doc_ids:
            return []
        scores = self._scores(query, doc_ids, mode)
        scores = with_neighbours(scores, self.settings.neighbour_weight, self._page_counts({d for d, _ in scores}))
        top = max(scores.values(), default=1.0)
        for key in page_refs.resolve(self.db.cursor(), page_refs.referenced_labels(query), doc_ids):
            scores[key] = scores.get(key, 0.0) + top  # a page the question names comes first
        return ranked(scores)[:k]

    def _scores(self, query: str, doc_ids: list[int] | None, mode: Mode) -> dict:
        pool = self.settings.candidates
        lexical = (bm25.search_pages(self.db, bm25.with_ocr_spellings(self.db, query), doc_ids, pool)
                   if mode is not Mode.DENSE else [])
        semantic = []
        if mode is not Mode.BM25 and dense.has_vectors(self.db):  # no query embedding for nothing
            semantic = dense.search_pages(self.db, self.embedder.embed([query])[0], doc_ids, pool)
        if mode is Mode.BM25:
            return min_max(lexical)
        if mode is Mode.DENSE:
            return min_max(semantic)
        if self.settings.fusion == "rrf":
            return reciprocal_rank_fusion([[key for key, _ in lexical], [key for key, _ in semantic]],
                                          self.settings.rrf_k)
        return convex_fusion(lexical, semantic, self.settings.bm25_weight)

    def _page_counts(self, doc_ids: set[int]) -> dict[int, int]:
        """Page counts of the documents that scored (not of the whole library: 10,000 rows a query add up)."""
        return dict(self.db.cursor().execute(f"SELECT id, pages FROM documents WHERE id IN ({catalog.listed(doc_ids)})"
                                             ).fetchall())

    def hits(self, ranked_pages, query: str, regions: dict | None = None) -> list[SearchHit]:
        """Search hits with file names and snippets (and, where known, the best-matching page region)."""
        cur = self.db.cursor()
        paths = catalog.doc_paths(cur, sorted({doc for (doc, _), _ in ranked_pages})) if ranked_pages else {}
        texts = content.page_texts(cur, [key for key, _ in ranked_pages])
        hits = []
        for (doc_id, page), score in ranked_pages:
            path = paths.get(doc_id, "")
            text = texts.get((doc_id, page), "")
            snippet = best_window(text, query)
            hits.append(SearchHit(doc_id, os.path.basename(path), path, page, score, snippet,
                                  (regions or {}).get((doc_id, page)), matched_words(snippet, query)))
        return hits
