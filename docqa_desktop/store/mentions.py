"""What the index itself says about the library, for questions about it ("which of my files mention Port Ellery?",
"how many documents are from 2020?"): the pages of each document whose text holds a phrase as whole words, and
each document's catalogue entry (file, title, authors, year, pages, when it was indexed).

A phrase is looked for in every page's stored text (text layer or OCR), case- and accent-insensitively, as whole
words (a run of spaces or a line break between its words). The keyword index's postings narrow the pages first:
a page can hold the phrase only if it has every one of its indexed terms (the phrase's words made into terms the
way the index makes them, stopwords dropped), so only those pages' texts are read and matched.
"""
from __future__ import annotations

import os
import re
import unicodedata

from ..domain import CatalogueEntry
from .catalog import listed, live_documents
from .content import page_texts
# the keyword index's own tokenisation (lower case, accents stripped, split on all but a-z0-9, stopwords dropped,
# Porter stems): a phrase's terms must be made exactly as the pages' were
from .keywords import _NOT_STOPWORD, _TOKENS
from .snapshot import snapshot

READ_BATCH = 1024  # pages whose text is read at a time when a phrase has no term to narrow by
# combining marks (accents) left apart from their letters by NFKD
_MARKS = re.compile("[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]")


def in_scope(cur, doc_ids: list[int] | None) -> list[int]:
    """The live documents among `doc_ids` (None: every live document), in id order."""
    live = live_documents(cur)
    return sorted(live if doc_ids is None else live & {int(d) for d in doc_ids})


def plain(text: str) -> str:
    """`text` without accents, its ligatures ("ﬁ") as letters: how a phrase and a page are compared."""
    return text if text.isascii() else _MARKS.sub("", unicodedata.normalize("NFKD", text))


def _holds(pattern: re.Pattern, text: str) -> bool:
    """Whether `text` holds the phrase of `pattern`: as written, else without accents (plain() of a whole page is
    the costly part, 0.1 s a thousand pages, so only where the text as written does not)."""
    return pattern.search(text) is not None or (not text.isascii() and pattern.search(plain(text)) is not None)


def phrase_pattern(phrase: str) -> re.Pattern | None:
    """`phrase` as whole words (no letter, digit or underscore either side, any run of white space between its
    words), case-insensitive, for plain() text; None for a phrase with no word."""
    words = plain(phrase).split()
    if not words:
        return None
    return re.compile(r"(?<!\w)" + r"\s+".join(map(re.escape, words)) + r"(?!\w)", re.I)


def pages_mentioning(cur, phrase: str, doc_ids: list[int] | None) -> dict[int, list[int]]:
    """{doc_id: its pages in order} of the live documents among `doc_ids` (None: all) whose pages hold `phrase`
    as whole words (case- and accent-insensitive), documents in id order.

    The keyword postings give the pages that have all of the phrase's terms; only their texts are read and
    matched (DuckDB's regexp_matches over the same pages cost 10-20 times as much: it ran on every page of their
    documents before the page filter)."""
    pattern = phrase_pattern(phrase)
    if pattern is None:
        return {}
    with snapshot(cur):
        scope = in_scope(cur, doc_ids)
        if not scope:
            return {}
        candidates = _candidate_pages(cur, plain(phrase), scope, doc_ids is None)
        if candidates is None:  # no term to narrow by (a phrase of stopwords): every page in scope is read
            texts = cur.execute(f"SELECT doc_id, page, text FROM pages WHERE doc_id IN ({listed(scope)})")
            rows = [(d, p) for batch in iter(lambda: texts.fetchmany(READ_BATCH), [])
                    for d, p, text in batch if _holds(pattern, text)]
        else:
            rows = [key for key, text in page_texts(cur, candidates).items() if _holds(pattern, text)]
    found: dict[int, list[int]] = {}
    for doc_id, page in sorted(rows):
        found.setdefault(doc_id, []).append(page)
    return found


def _candidate_pages(cur, phrase: str, scope: list[int], whole_library: bool) -> list[tuple[int, int]] | None:
    """The pages of `scope` that have every indexed term of `phrase` (with every page of a document not yet in the
    keyword index); None when the phrase has no term the index keeps. Over the whole library the postings are read
    without a filter by document (a list of 3,000 ids cost a third more than the scan: 83 / 61 ms at 100,000
    pages)."""
    tokens = _TOKENS.format(keys="0 AS q", text="?", source="(SELECT 1)", and_not_stopword=_NOT_STOPWORD)
    terms = {t for (t,) in cur.execute(f"SELECT DISTINCT term FROM ({tokens})", [phrase]).fetchall()}
    if not terms:
        return None
    ids = [i for (i,) in cur.execute(f"SELECT id FROM keyword_terms WHERE term IN (SELECT term FROM ({tokens}))",
                                     [phrase]).fetchall()]
    in_documents = "" if whole_library else f" AND doc_id IN ({listed(scope)})"
    indexed = {d for (d,) in cur.execute(f"SELECT DISTINCT doc_id FROM keyword_pages WHERE true{in_documents}"
                                         ).fetchall()}
    pages = []
    if len(ids) == len(terms):  # else a term no page has: no indexed page holds the phrase
        wanted = set(scope)
        pages = [(d, p) for d, p in cur.execute(
            f"SELECT doc_id, page FROM keyword_postings WHERE term_id IN ({listed(ids)}){in_documents} "
            f"GROUP BY doc_id, page HAVING count(DISTINCT term_id) = {len(ids)}").fetchall() if d in wanted]
    unindexed = [d for d in scope if d not in indexed]
    if unindexed:
        pages += cur.execute(f"SELECT doc_id, page FROM pages WHERE doc_id IN ({listed(unindexed)})").fetchall()
    return pages


def catalogue(cur, doc_ids: list[int] | None) -> list[CatalogueEntry]:
    """The catalogue entry of each live document among `doc_ids` (None: all), by file name."""
    scope = in_scope(cur, doc_ids)
    if not scope:
        return []
    rows = cur.execute(
        "SELECT d.id, min(f.path), any_value(i.title), any_value(i.authors), any_value(i.year), any_value(d.pages), "
        "any_value(d.indexed_at) FROM documents d JOIN files f ON f.doc_id = d.id "
        f"LEFT JOIN document_info i ON i.doc_id = d.id WHERE d.id IN ({listed(scope)}) GROUP BY d.id").fetchall()
    entries = [CatalogueEntry(doc_id, os.path.basename(path), path, title or "", authors or "", year, pages,
                              indexed_at.isoformat(timespec="seconds") if indexed_at is not None else "")
               for doc_id, path, title, authors, year, pages, indexed_at in rows]
    return sorted(entries, key=lambda e: (e.name.lower(), e.doc_id))
