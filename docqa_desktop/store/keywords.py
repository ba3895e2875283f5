"""The keyword index's store of record: each page's terms and their counts, written with the page itself.

Tokens are made the way DuckDB's full-text-search extension makes them (lower case, accents stripped, split on
everything but a-z and 0-9, English stopwords dropped, Porter stems), so scores match its match_bm25. Unlike
its index, which is a snapshot rebuilt over the whole library after every change (52 s at 100,000 pages,
benchmarks/fts_rebuild.py), these rows are added and deleted with their document in the same transaction:
a document is searchable the moment it commits, and a change costs what the document costs.

Tables (schema v5): keyword_terms (id, term), keyword_postings (doc_id, page, term_id, tf), keyword_pages
(doc_id, page, length in terms), keyword_stopwords. The in-RAM search structure is retrieval/keyword_index.py.
"""
from __future__ import annotations

import functools
from pathlib import Path

import numpy as np

from . import versions
from .catalog import listed
from .snapshot import snapshot

STOPWORDS_FILE = Path(__file__).with_name("english_stopwords.txt")  # DuckDB FTS's 'english' list

_TOKENS = """
    SELECT {keys}, stem(token, 'porter') AS term
    FROM (SELECT {keys}, unnest(string_split_regex(
              regexp_replace(lower(strip_accents(CAST({text} AS VARCHAR))), '(\\.|[^a-z0-9])+', ' ', 'g'), '\\s+'))
              AS token
          FROM {source})
    WHERE token <> '' {and_not_stopword}
"""
_NOT_STOPWORD = "AND token NOT IN (SELECT word FROM keyword_stopwords)"


@functools.cache
def stopwords() -> frozenset[str]:
    """The words the keyword index leaves out ("the", "what", "which")."""
    return frozenset(w for w in STOPWORDS_FILE.read_text().split("\n") if w)


def stopwords_sql() -> str:
    words = sorted(stopwords())
    return "INSERT INTO keyword_stopwords VALUES " + ", ".join("('" + w.replace("'", "''") + "')" for w in words)


def index_pages_sql(source: str) -> str:
    """Statements adding the terms of every page in `source` (a table or subquery with doc_id, page, text), and
    telling the in-RAM index (store/versions.py)."""
    tokens = _TOKENS.format(keys="doc_id, page", text="text", source=source, and_not_stopword=_NOT_STOPWORD)
    return f"""
        CREATE OR REPLACE TEMP TABLE _page_terms AS {tokens};
        INSERT INTO keyword_terms (term)
            SELECT DISTINCT term FROM _page_terms WHERE term NOT IN (SELECT term FROM keyword_terms);
        INSERT INTO keyword_postings (doc_id, page, term_id, tf)
            SELECT p.doc_id, p.page, k.id, count(*) FROM _page_terms p JOIN keyword_terms k ON k.term = p.term
            GROUP BY ALL;
        INSERT INTO keyword_pages (doc_id, page, length)
            SELECT s.doc_id, s.page, count(t.term) FROM {source} s
            LEFT JOIN _page_terms t ON t.doc_id = s.doc_id AND t.page = s.page GROUP BY ALL;
        DROP TABLE _page_terms;
        {versions.bump_sql(versions.KEYWORDS)};
    """


def index_document(cur, doc_id: int) -> None:
    """Add the keyword rows of one document's pages (inside the transaction that wrote them)."""
    cur.execute(index_pages_sql(f"(SELECT doc_id, page, text FROM pages WHERE doc_id = {int(doc_id)})"))


def index_missing_documents(cur) -> int:
    """Add the keyword rows of every document that has pages but none yet (a database from before v5)."""
    missing = "(SELECT doc_id, page, text FROM pages WHERE doc_id NOT IN (SELECT doc_id FROM keyword_pages))"
    count = cur.execute(f"SELECT count(DISTINCT doc_id) FROM {missing}").fetchone()[0]
    if count:
        cur.execute(index_pages_sql(missing))
    return count


def query_terms(cur, query: str) -> list[tuple[int, str]]:
    """(term id, term) of the query's distinct terms that occur somewhere in the library. As in DuckDB FTS, the
    query keeps its stopwords: one whose stem is also a page term's ("first", from "firsts") matches it."""
    tokens = _TOKENS.format(keys="0 AS q", text="?", source="(SELECT 1)", and_not_stopword="")
    return cur.execute(f"SELECT k.id, k.term FROM keyword_terms k WHERE k.term IN (SELECT term FROM ({tokens}))",
                       [query]).fetchall()


def terms_containing(cur, word: str, limit: int = 20) -> list[str]:
    """Longer terms of the library that hold `word` (a-z0-9 only), e.g. OCR's glued "germanwings4u9525"."""
    return [t for (t,) in cur.execute("SELECT term FROM keyword_terms WHERE contains(term, ?) AND length(term) > ? "
                                      "LIMIT ?", [word, len(word) + 2, limit]).fetchall()]


def indexed_documents(cur) -> set[int]:
    return {d for (d,) in cur.execute("SELECT DISTINCT doc_id FROM keyword_pages").fetchall()}


POSTINGS_SLICES = 8  # a whole library's postings are read in this many term ranges, each sorted on its own


def postings(cur, doc_ids: list[int] | None = None):
    """(pages, term_ids, slots, tf) for the given documents (all when None), read in one snapshot. pages is an
    arrow table of doc_id, page, length in (doc_id, page) order; the three numpy arrays are every posting in
    (term, slot) order, slot being the page's position in pages: what a search structure needs.

    DuckDB joins and sorts them (numpy's sort held every row twice: 1.5 GB at 100,000 pages), a range of terms
    at a time (what one sort of all 15 million postings allocated stayed resident for seconds), into arrays
    sized beforehand (collecting the ranges and joining them held three copies)."""
    where = "" if doc_ids is None else f"WHERE doc_id IN ({listed(doc_ids)})"
    with snapshot(cur):  # slots are positions in `pages`: both must see the same documents
        pages = cur.execute(f"SELECT doc_id, page, length FROM keyword_pages {where} ORDER BY doc_id, page"
                            ).fetch_arrow_table()
        count, last_term = cur.execute(f"SELECT count(*), coalesce(max(term_id), 0) FROM keyword_postings {where}"
                                       ).fetchone()
        term_ids, slots, tf = np.empty(count, np.int32), np.empty(count, np.int32), np.empty(count, np.float32)
        step = last_term // (POSTINGS_SLICES if doc_ids is None else 1) + 1
        page_slots = (f"SELECT doc_id, page, row_number() OVER (ORDER BY doc_id, page) - 1 AS slot "
                      f"FROM keyword_pages {where}")
        at = 0
        for low in range(0, last_term + 1, step):
            part = cur.execute(
                f"SELECT p.term_id, s.slot::INTEGER AS slot, p.tf FROM keyword_postings p JOIN ({page_slots}) s "
                f"USING (doc_id, page) WHERE p.term_id >= {low} AND p.term_id < {low + step} "
                "ORDER BY p.term_id, slot").fetch_arrow_table()
            for array, column in ((term_ids, "term_id"), (slots, "slot"), (tf, "tf")):
                array[at:at + part.num_rows] = part.column(column).to_numpy()
            at += part.num_rows
    return pages, term_ids, slots, tf
