"""Passage retrieval: the best chunks (not pages) for a query, for methods that read passages.

Candidates are the best chunks by dense similarity plus every chunk of the best BM25 pages; each is
scored by BM25 over the candidates' own text (the page index cannot rank passages within a page) and by
its cosine similarity, fused like page search (settings.bm25_weight).
"""
from __future__ import annotations

import math
import re
from collections import Counter

from ..domain import ChunkHit
from ..settings import SearchSettings
from ..store import content
from ..store.database import Database
from . import bm25, dense
from .fusion import convex_fusion

_TOKEN = re.compile(r"\w+")
BM25_K1, BM25_B = 1.2, 0.75
CHUNKS_PER_PAGE_POOL = 4  # BM25 pages taken per wanted chunk, as candidate sources


def search_chunks(db: Database, settings: SearchSettings, embedder, query: str, doc_ids: list[int] | None,
                  k: int) -> list[ChunkHit]:
    if (doc_ids is not None and not doc_ids) or not query.strip():
        return []
    cur = db.cursor()
    semantic = []
    if dense.has_vectors(db):
        semantic = dense.search_chunks(db, embedder.embed([query])[0], doc_ids, max(k, settings.candidates))
    pages = [key for key, _ in bm25.search_pages(db, query, doc_ids, max(k, 1) * CHUNKS_PER_PAGE_POOL)]
    candidates = {i: (d, p, t) for i, d, p, t in content.chunks_of_pages(cur, pages)}
    candidates.update(content.chunks_by_id(cur, [i for i, _ in semantic if i not in candidates]))
    lexical = lexical_scores(query, {i: text for i, (_, _, text) in candidates.items()})
    fused = convex_fusion(lexical, semantic, settings.bm25_weight if semantic else 1.0)
    best = sorted((i for i in fused if i in candidates), key=lambda i: (-fused[i], i))[:k]
    return [ChunkHit(i, candidates[i][0], candidates[i][1], candidates[i][2], round(fused[i], 6)) for i in best]


def lexical_scores(query: str, texts: dict[int, str]) -> list[tuple[int, float]]:
    """Okapi BM25 of each text against the query, with document frequencies from these texts; zeros left out."""
    terms = set(_tokens(query))
    docs = {i: Counter(_tokens(t)) for i, t in texts.items()}
    if not terms or not docs:
        return []
    average = sum(sum(c.values()) for c in docs.values()) / len(docs) or 1.0
    frequency = {t: sum(1 for c in docs.values() if t in c) for t in terms}
    scored = []
    for i, counts in docs.items():
        length = sum(counts.values())
        score = 0.0
        for term in terms:
            tf = counts.get(term, 0)
            if tf:
                idf = math.log(1 + (len(docs) - frequency[term] + 0.5) / (frequency[term] + 0.5))
                score += idf * tf * (BM25_K1 + 1) / (tf + BM25_K1 * (1 - BM25_B + BM25_B * length / average))
        if score > 0:
            scored.append((i, score))
    return scored


def _tokens(text: str) -> list[str]:
    return [t for t in _TOKEN.findall(text.lower()) if len(t) > 1]
