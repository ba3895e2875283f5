"""The keyword index: kept in step one document at a time, it ranks exactly as an index built from scratch
and as DuckDB FTS's BM25 over the same pages."""
from __future__ import annotations

import json
import shutil
import threading

import duckdb
import pytest

from docqa_desktop.retrieval import bm25
from docqa_desktop.store import keywords, migrations
from docqa_desktop.store.database import Database

from conftest import EVAL_FILE, REPORT_15, SMALL_PAPER, corpus_pdf, write_pdf

QUERIES = [json.loads(line)["question"] for line in EVAL_FILE.read_text().splitlines()[:25]] + [
    "megawatt 2019", "Table 3", "résumé café", "the of and", ""]


def fresh_ranking(db: Database, query: str, doc_ids=None, limit: int = 20):
    """What an index read from the store in full ranks (no earlier state)."""
    cur = db.cursor()
    index = bm25.KeywordIndex()
    index.refresh(cur)
    return index.search([t for t, _ in keywords.query_terms(cur, query)], doc_ids, limit)


def fts_ranking(db: Database, query: str, limit: int = 20):
    """DuckDB FTS's own BM25 over the same pages, built now."""
    cur = db.cursor()
    cur.execute("PRAGMA create_fts_index('pages', 'id', 'text', stemmer='porter', stopwords='english', "
                "ignore='(\\.|[^a-z0-9])+', strip_accents=1, lower=1, overwrite=1)")
    return [((d, p), s) for d, p, s in cur.execute(
        "SELECT doc_id, page, score FROM (SELECT doc_id, page, fts_main_pages.match_bm25(id, ?) AS score FROM pages) "
        "WHERE score IS NOT NULL ORDER BY score DESC, doc_id, page LIMIT ?", [query, limit]).fetchall()]


def same(ours, theirs) -> bool:
    return [k for k, _ in ours] == [k for k, _ in theirs] and all(
        abs(a - b) <= 1e-4 * max(1.0, abs(b)) for (_, a), (_, b) in zip(ours, theirs))


@pytest.mark.slow
def test_an_index_kept_in_step_ranks_like_a_fresh_one_and_like_duckdb_fts(fast_service, tmp_path, monkeypatch):
    monkeypatch.setattr(bm25, "MAX_SEGMENTS", 2)  # merges happen within this short history too
    folder = tmp_path / "lib"
    folder.mkdir()
    shutil.copy(corpus_pdf(SMALL_PAPER), folder)

    def change(step):
        step()
        fast_service.library.index([str(folder)])
        assert fast_service.pages.search("harbour pivot language", k=3)  # the kept index follows each change

    change(lambda: None)
    change(lambda: (write_pdf(folder / "ferries.pdf", ["Ferries leave the harbour every hour.",
                                                       "A café sells résumé paper."]),
                    shutil.copy(corpus_pdf(REPORT_15), folder)))
    change(lambda: ((folder / "ferries.pdf").unlink(),
                    write_pdf(folder / "tides.pdf", ["Tides at the harbour turn every six hours; Table 3 lists them."])))
    change(lambda: write_pdf(folder / "late.pdf", ["A late megawatt count for 2019."]))

    db = fast_service.resources.db
    kept = bm25._indexes(db)
    kept.refresh(db.cursor())
    assert len(kept.segments) <= 3 and not kept.alive.all()  # merged, and the removed document masked
    docs = sorted(keywords.indexed_documents(db.cursor()))
    assert len(docs) == 4
    for query in QUERIES:
        ours = bm25.search_pages(db, query, None, 20)
        assert same(ours, fresh_ranking(db, query)), query
        assert same(ours, fts_ranking(db, query)), query
        scoped = bm25.search_pages(db, query, docs[:2], 20)
        assert same(scoped, fresh_ranking(db, query, docs[:2])), query
        assert {key[0] for key, _ in scoped} <= set(docs[:2])
    assert bm25.search_pages(db, "ferries harbour hour", None, 5)[0][0][0] != min(docs)  # the removed text is gone


def test_a_document_is_searchable_when_it_commits_and_gone_when_removed(fast_service, tmp_path):
    folder = tmp_path / "lib"
    folder.mkdir()
    write_pdf(folder / "a.pdf", ["Heron nests line the estuary."])
    fast_service.library.index([str(folder)])
    assert fast_service.pages.search("estuary", k=3)
    write_pdf(folder / "b.pdf", ["Kingfishers dive for minnows."])
    fast_service.library.index([str(folder)])
    assert [h.doc for h in fast_service.pages.search("kingfishers minnows", k=3, mode="bm25")] == ["b.pdf"]
    fast_service.library.remove(str(folder / "b.pdf"))
    assert fast_service.pages.search("kingfishers minnows", k=3, mode="bm25") == []
    rows = fast_service.resources.db.cursor().execute("SELECT count(*) FROM keyword_postings").fetchone()[0]
    assert rows == fresh_rows(fast_service.resources.db)  # nothing of b.pdf left behind


def fresh_rows(db: Database) -> int:
    cur = db.cursor()
    return cur.execute(f"SELECT count(*) FROM ({keywords_tokens_per_page()})").fetchone()[0]


def keywords_tokens_per_page() -> str:
    return ("SELECT doc_id, page, term FROM (" + keywords._TOKENS.format(
        keys="doc_id, page", text="text", source="pages", and_not_stopword=keywords._NOT_STOPWORD) + ") GROUP BY ALL")


def test_searches_while_documents_are_written_never_fail(tmp_path):
    with Database(tmp_path / "lib.duckdb") as db:
        errors, counts, done = [], [], threading.Event()

        def search():
            while not done.is_set():
                try:
                    counts.append(len(bm25.search_pages(db, "megawatt heron", None, 500)))
                except Exception as exc:  # collected: an exception in a thread would otherwise vanish
                    errors.append(exc)

        reader = threading.Thread(target=search)
        reader.start()
        for doc_id in range(1, 13):
            with db.transaction() as cur:
                cur.execute("INSERT INTO pages (doc_id, page, label, width, height, text, text_source) "
                            "SELECT ?, i, i::VARCHAR, 600, 800, repeat('heron megawatt panel ', 20), 'layer' "
                            "FROM range(1, 21) t(i)", [doc_id])
                keywords.index_document(cur, doc_id)
        done.set()
        reader.join()
        assert errors == [] and counts
        assert counts == sorted(counts) and all(c % 20 == 0 for c in counts)  # whole documents, never a part
        assert len(bm25.search_pages(db, "megawatt heron", None, 500)) == 240


def test_the_v5_migration_indexes_the_pages_already_stored(tmp_path):
    path = tmp_path / "old.duckdb"
    con = duckdb.connect(str(path))
    for version, sql in migrations.MIGRATIONS[:4]:
        con.execute(sql)
    con.execute("INSERT INTO meta VALUES ('schema_version', '4')")
    con.execute("INSERT INTO pages (doc_id, page, label, width, height, text, text_source) VALUES "
                "(7, 1, '1', 600, 800, 'Osprey counts rose in 2019.', 'layer'), "
                "(7, 2, '2', 600, 800, 'Nothing here.', 'layer')")
    con.close()
    with Database(path) as db:
        assert migrations.current_version(db.con) == migrations.LATEST
        assert bm25.search_pages(db, "osprey 2019", None, 5)[0][0] == (7, 1)
        assert db.cursor().execute("SELECT count(*) FROM keyword_pages").fetchone()[0] == 2


def test_a_query_also_finds_ocr_split_and_glued_spellings():
    from docqa_desktop.retrieval.ocr_words import ocr_variants
    library = {"german", "wings", "crash", "germanwings4u9525", "quick", "facts"}
    expanded = ocr_variants("Germanwings crash quickfacts", lambda w: w in library,
                            lambda w: [t for t in library if w in t and len(t) > len(w) + 2])
    words = expanded.split()
    assert {"german", "wings", "germanwings4u9525", "quick", "facts"} <= set(words)
    assert "crashquickfacts" in words  # adjacent words joined (a term only if the library has it)
    assert ocr_variants("revenue", lambda w: True, lambda w: []) == "revenue"  # nothing to add
