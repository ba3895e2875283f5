"""Combining page rankings: score fusion, rank fusion, and neighbouring-page context."""
from __future__ import annotations

from collections.abc import Hashable, Sequence

PageKey = tuple[int, int]  # (doc_id, page)


def min_max(scored: Sequence[tuple[Hashable, float]]) -> dict[Hashable, float]:
    """Scores rescaled to 0..1 within one result list (BM25 and cosine live on different scales)."""
    if not scored:
        return {}
    values = [s for _, s in scored]
    lo, hi = min(values), max(values)
    if hi == lo:  # one hit, or all tied: each is as good as the best
        return {key: 1.0 for key, _ in scored}
    return {key: (s - lo) / (hi - lo) for key, s in scored}


def convex_fusion(lexical: Sequence[tuple[Hashable, float]], semantic: Sequence[tuple[Hashable, float]],
                  lexical_weight: float) -> dict[Hashable, float]:
    """w·BM25 + (1-w)·dense on normalised scores: unlike rank fusion, a weak retriever cannot
    outvote a confident one."""
    a, b = min_max(lexical), min_max(semantic)
    return {k: lexical_weight * a.get(k, 0.0) + (1 - lexical_weight) * b.get(k, 0.0) for k in a.keys() | b.keys()}


def reciprocal_rank_fusion(rankings: Sequence[Sequence[Hashable]], k: int = 60) -> dict[Hashable, float]:
    """Cormack, Clarke & Buettcher (2009)."""
    scores: dict[Hashable, float] = {}
    for ranking in rankings:
        for rank, key in enumerate(ranking, start=1):
            scores[key] = scores.get(key, 0.0) + 1.0 / (k + rank)
    return scores


def with_neighbours(scores: dict[PageKey, float], weight: float, page_counts: dict[int, int]) -> dict[PageKey, float]:
    """Each page also earns `weight` × the score of the pages before and after it.

    Tables, lists and arguments run across page breaks; the continuation of a strong page
    often holds the rest of the evidence while sharing few of the query's words.
    """
    if weight <= 0:
        return dict(scores)
    out: dict[PageKey, float] = {}
    for (doc, page), score in scores.items():
        out[(doc, page)] = out.get((doc, page), 0.0) + score
        for neighbour in (page - 1, page + 1):
            if 1 <= neighbour <= page_counts.get(doc, 0):
                out[(doc, neighbour)] = out.get((doc, neighbour), 0.0) + weight * score
    return out


def ranked(scores: dict[PageKey, float]) -> list[tuple[PageKey, float]]:
    return sorted(scores.items(), key=lambda item: (-item[1], item[0]))
