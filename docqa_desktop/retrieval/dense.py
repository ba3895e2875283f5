"""Dense retrieval: cosine similarity between the query and every chunk in scope; a page scores its best chunk."""
from __future__ import annotations

import numpy as np

from ..store.database import Database
from .bm25 import PageKey
from .scope import scope_clause


def search_pages(db: Database, query_vector: np.ndarray, doc_ids: list[int] | None,
                 limit: int) -> list[tuple[PageKey, float, str]]:
    """Best pages with their score and best chunk text, highest first."""
    where, args = scope_clause(doc_ids)
    table = db.cursor().execute(
        f"SELECT doc_id, page, text, embedding FROM chunks WHERE embedding IS NOT NULL AND {where}", args).fetch_arrow_table()
    if table.num_rows == 0:
        return []
    vectors = table.column("embedding").combine_chunks().values.to_numpy(zero_copy_only=False)
    vectors = vectors.reshape(table.num_rows, -1)
    scores = vectors @ query_vector.astype(np.float32)
    docs = table.column("doc_id").to_numpy()
    pages = table.column("page").to_numpy()
    texts = table.column("text")
    best: dict[PageKey, tuple[float, int]] = {}
    for i in np.argsort(-scores):
        key = (int(docs[i]), int(pages[i]))
        if key not in best:
            best[key] = (float(scores[i]), int(i))
            if len(best) >= limit:
                break
    return [(key, score, texts[i].as_py()) for key, (score, i) in best.items()]
