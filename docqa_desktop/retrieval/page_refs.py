"""Pages a question names outright: "the figure on page 6985", "pages 51-53", "p. 12"."""
from __future__ import annotations

import re

from ..store.catalog import listed

_NUMBER = r"([0-9]+|[ivxlcdm]+)\b"
_REF = re.compile(r"\b(?:pages?|pp?\.)\s*" + _NUMBER + r"(?:\s*(?:-|–|to|and)\s*" + _NUMBER + ")?", re.IGNORECASE)
MAX_RANGE = 20


def referenced_labels(question: str) -> list[str]:
    """Page labels as written in the question; numeric ranges expanded."""
    labels: list[str] = []
    for first, last in _REF.findall(question):
        if last and first.isdigit() and last.isdigit() and 0 <= int(last) - int(first) <= MAX_RANGE:
            labels.extend(str(n) for n in range(int(first), int(last) + 1))
        else:
            labels.extend(x for x in (first, last) if x)
    return [label.lower() for label in labels]


def resolve(cur, labels: list[str], doc_ids: list[int] | None) -> list[tuple[int, int]]:
    """(doc_id, page) for each label: a printed label match first, else the 1-based page index."""
    from .scope import scope_clause

    if not labels:
        return []
    where, args = scope_clause(doc_ids)
    numbers = [int(label) for label in labels if label.isdigit()]
    # only the pages that can match, not every label of the library (100,000 rows: 30 ms)
    rows = cur.execute(f"SELECT doc_id, page, lower(label) FROM pages WHERE {where} AND (lower(label) IN "
                       f"(SELECT unnest(?::VARCHAR[])) OR page IN ({listed(numbers)}))", args + [labels]).fetchall()
    by_label: dict[str, list[tuple[int, int]]] = {}
    by_index: dict[str, list[tuple[int, int]]] = {}
    for doc, page, label in rows:
        by_label.setdefault(label, []).append((doc, page))
        by_index.setdefault(str(page), []).append((doc, page))
    found: list[tuple[int, int]] = []
    for label in labels:
        for key in by_label.get(label) or by_index.get(label, []):
            if key not in found:
                found.append(key)
    return found
