"""Page summaries (SimpleDoc's page index), kept with the model that wrote them.

A thin layer over store/artifacts.py (kind PAGE_SUMMARY, item 0) until SimpleDoc reads artifacts itself.
"""
from __future__ import annotations

from . import artifacts

PAGE_SUMMARY = "simpledoc.page-summary"


def summaries_for(cur, pages: list[tuple[int, int]], model: str) -> dict[tuple[int, int], str]:
    """{(doc_id, page): summary} for the pages that have one written by `model`."""
    found = artifacts.get_many(cur, PAGE_SUMMARY, [(d, p, 0) for d, p in pages], model)
    return {(d, p): text for (d, p, _), text in found.items()}


def save_summary(cur, doc_id: int, page: int, model: str, summary: str) -> None:
    """One page's summary, replacing any older one (by another model, or for a re-parsed page)."""
    artifacts.put(cur, PAGE_SUMMARY, doc_id, page, 0, model, summary)


def pages_without_summary(cur, doc_ids: list[int] | None, model: str) -> list[tuple[int, int]]:
    return artifacts.missing_pages(cur, PAGE_SUMMARY, doc_ids, model)
