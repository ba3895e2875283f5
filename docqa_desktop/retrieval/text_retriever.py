"""Hybrid text retrieval over pages: BM25 and dense, fused by reciprocal rank."""
from __future__ import annotations

import os
from enum import Enum

from ..domain import SearchHit
from ..settings import SearchSettings
from ..store import catalog, content
from ..store.database import Database
from . import bm25, dense
from .embedder import default_embedder
from .fusion import reciprocal_rank_fusion
from .snippets import best_window


class Mode(str, Enum):
    BM25 = "bm25"
    DENSE = "dense"
    FUSED = "fused"


class TextRetriever:
    def __init__(self, db: Database, settings: SearchSettings, embedder=None):
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
        k = k or self.settings.k
        if doc_ids is not None and not doc_ids:
            return []
        pool = max(k, self.settings.candidates)
        rankings, scores = [], {}
        if mode in (Mode.BM25, Mode.FUSED):
            lexical = bm25.search_pages(self.db, query, doc_ids, pool)
            rankings.append([key for key, _ in lexical])
            scores.update({key: s for key, s in lexical})
        if mode in (Mode.DENSE, Mode.FUSED):
            semantic = dense.search_pages(self.db, self.embedder.embed([query])[0], doc_ids, pool)
            rankings.append([key for key, _, _ in semantic])
            if mode is Mode.DENSE:
                scores.update({key: s for key, s, _ in semantic})
        if mode is Mode.FUSED:
            ranked = reciprocal_rank_fusion(rankings, self.settings.rrf_k)
        else:
            ranked = [(key, scores[key]) for key in rankings[0]]
        return self._hits(ranked[:k], query)

    def _hits(self, ranked, query: str) -> list[SearchHit]:
        if not ranked:
            return []
        cur = self.db.cursor()
        paths = catalog.doc_paths(cur)
        hits = []
        for (doc_id, page), score in ranked:
            path = paths.get(doc_id, "")
            text = content.page_text(cur, doc_id, page) or ""
            hits.append(SearchHit(doc_id, os.path.basename(path), path, page, score, best_window(text, query)))
        return hits
