"""BM25 over page text with DuckDB's full-text-search extension (porter stemming, English stopwords)."""
from __future__ import annotations

from ..store.database import Database
from .fusion import PageKey
from .scope import scope_clause


def search_pages(db: Database, query: str, doc_ids: list[int] | None, limit: int) -> list[tuple[PageKey, float]]:
    if not query.strip():
        return []
    db.refresh_text_index_if_idle()
    cur = db.cursor()
    db.load_fts(cur)
    where, args = scope_clause(doc_ids)
    rows = cur.execute(
        f"SELECT doc_id, page, score FROM (SELECT doc_id, page, fts_main_pages.match_bm25(id, ?) AS score "
        f"FROM pages WHERE {where}) WHERE score IS NOT NULL ORDER BY score DESC, doc_id, page LIMIT ?",
        [query, *args, limit]).fetchall()
    return [((d, p), float(s)) for d, p, s in rows]
