"""Page summaries (SimpleDoc's page index), kept with the model that wrote them."""
from __future__ import annotations


def summaries_for(cur, pages: list[tuple[int, int]], model: str) -> dict[tuple[int, int], str]:
    """{(doc_id, page): summary} for the pages that have one written by `model`."""
    if not pages:
        return {}
    rows = cur.execute(
        "SELECT s.doc_id, s.page, s.summary FROM page_summaries s "
        "JOIN (SELECT unnest(?::BIGINT[]) AS doc_id, unnest(?::INTEGER[]) AS page) w "
        "ON s.doc_id = w.doc_id AND s.page = w.page WHERE s.model = ?",
        [[d for d, _ in pages], [p for _, p in pages], model]).fetchall()
    return {(d, p): s for d, p, s in rows}


def save_summary(cur, doc_id: int, page: int, model: str, summary: str) -> None:
    """One page's summary, replacing any older one (by another model, or for a re-parsed page)."""
    cur.execute("DELETE FROM page_summaries WHERE doc_id = ? AND page = ?", [doc_id, page])
    cur.execute("INSERT INTO page_summaries (doc_id, page, model, summary) VALUES (?, ?, ?, ?)",
                [doc_id, page, model, summary])


def pages_without_summary(cur, doc_ids: list[int] | None, model: str) -> list[tuple[int, int]]:
    scope = "" if doc_ids is None else "AND p.doc_id IN (SELECT unnest(?::BIGINT[]))"
    params = [model] + ([doc_ids] if doc_ids is not None else [])
    return [tuple(r) for r in cur.execute(
        "SELECT p.doc_id, p.page FROM pages p LEFT JOIN page_summaries s "
        f"ON s.doc_id = p.doc_id AND s.page = p.page AND s.model = ? WHERE s.doc_id IS NULL {scope} "
        "ORDER BY p.doc_id, p.page", params).fetchall()]
