"""Which documents a search looks at: the whole library, one document, or a set."""
from __future__ import annotations


from ..store.catalog import LIVE_DOCUMENTS


def scope_clause(doc_ids: list[int] | None, column: str = "doc_id") -> tuple[str, list]:
    """SQL condition and parameters; None means every indexed document."""
    if doc_ids is None:
        return f"{column} IN ({LIVE_DOCUMENTS})", []
    return f"{column} IN (SELECT unnest(?::BIGINT[]))", [list(doc_ids)]
