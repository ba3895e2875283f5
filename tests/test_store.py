import duckdb
import numpy as np
import pytest

from docqa_desktop.store import Database, StoreBusy, StoreError
from docqa_desktop.store import artifacts, catalog, migrations
from docqa_desktop.domain import FileStatus


def test_fresh_database_reaches_latest_schema_and_reopens(tmp_path):
    path = tmp_path / "lib.duckdb"
    with Database(path) as db:
        assert migrations.current_version(db.con) == migrations.LATEST
        tables = {r[0] for r in db.con.execute("SELECT table_name FROM information_schema.tables").fetchall()}
    assert {"libraries", "documents", "files", "pages", "words", "elements", "chunks",
            "page_vectors", "artifacts", "answers"} <= tables
    assert "page_summaries" not in tables  # moved into artifacts in schema v3
    with Database(path) as db:  # migrating twice is a no-op
        assert migrations.current_version(db.con) == migrations.LATEST


def test_newer_schema_is_refused(tmp_path):
    path = tmp_path / "lib.duckdb"
    Database(path).close()
    con = duckdb.connect(str(path))
    con.execute("UPDATE meta SET value = '999' WHERE key = 'schema_version'")
    con.close()
    with pytest.raises(StoreError, match="newer than this program"):
        Database(path)


def test_transaction_rolls_back_on_error(tmp_path):
    with Database(tmp_path / "lib.duckdb") as db:
        with pytest.raises(ZeroDivisionError):
            with db.transaction() as cur:
                cur.execute("INSERT INTO libraries (root) VALUES ('/x')")
                1 / 0
        assert db.con.execute("SELECT count(*) FROM libraries").fetchone()[0] == 0


def test_busy_database_gives_a_clear_error(tmp_path):
    path = tmp_path / "lib.duckdb"
    Database(path).close()
    import subprocess, sys, textwrap
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import duckdb, sys, time
        con = duckdb.connect({str(path)!r})
        print("locked", flush=True)
        time.sleep(30)
    """)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        with pytest.raises(StoreBusy, match="in use by another docqa process"):
            Database(path, wait_seconds=0.5)
    finally:
        holder.kill()


def test_corrupt_database_file_is_reported(tmp_path):
    path = tmp_path / "lib.duckdb"
    path.write_bytes(b"this is not a database" * 100)
    with pytest.raises(StoreError, match=str(path.name)):
        Database(path)


# -- artifacts: text models derived from pages and page elements --------------------------------------

def add_pages(cur, doc_id: int, pages: int) -> None:
    cur.execute("INSERT INTO pages (doc_id, page, label, width, height, text, text_source) "
                "SELECT ?, i, i::VARCHAR, 600, 800, 'text', 'layer' FROM range(1, ? + 1) t(i)", [doc_id, pages])


def test_artifacts_put_get_and_replace_whatever_the_model(tmp_path):
    with Database(tmp_path / "lib.duckdb") as db:
        with db.transaction() as cur:
            artifacts.put(cur, "element-description", 1, 2, 5, "qwen2-vl", "A bar chart.")
            artifacts.put(cur, "element-description", 1, 2, 6, "qwen2-vl", "A photo.")
            artifacts.put(cur, "simpledoc.page-summary", 1, 2, 0, "qwen2-vl", "A page summary.")
        cur = db.cursor()
        keys = [(1, 2, 5), (1, 2, 6), (1, 2, 7)]
        assert artifacts.get_many(cur, "element-description", keys, "qwen2-vl") == {
            (1, 2, 5): "A bar chart.", (1, 2, 6): "A photo."}
        assert artifacts.get_many(cur, "element-description", keys, "smolvlm") == {}
        assert artifacts.get_many(cur, "element-description", [], "qwen2-vl") == {}
        with db.transaction() as cur:  # the same key by another model replaces the row
            artifacts.put(cur, "element-description", 1, 2, 5, "smolvlm", "A chart of output.")
        cur = db.cursor()
        assert artifacts.get_many(cur, "element-description", keys, "qwen2-vl") == {(1, 2, 6): "A photo."}
        assert artifacts.get_many(cur, "element-description", keys, "smolvlm") == {(1, 2, 5): "A chart of output."}
        assert artifacts.latest(cur, "element-description", keys) == {
            (1, 2, 5): ("smolvlm", "A chart of output."), (1, 2, 6): ("qwen2-vl", "A photo.")}
        assert artifacts.count(cur, "element-description", None, None) == 2
        assert artifacts.count(cur, "element-description", [1], "smolvlm") == 1
        assert artifacts.count(cur, "element-description", [2], None) == 0
        assert artifacts.count(cur, "simpledoc.page-summary", None, "qwen2-vl") == 1  # kinds are apart


def test_artifacts_missing_pages_by_kind_and_model(tmp_path):
    with Database(tmp_path / "lib.duckdb") as db:
        with db.transaction() as cur:
            add_pages(cur, 1, 3)
            add_pages(cur, 2, 2)
            artifacts.put(cur, "simpledoc.page-summary", 1, 1, 0, "m", "one")
            artifacts.put(cur, "simpledoc.page-summary", 1, 3, 0, "m", "three")
            artifacts.put(cur, "simpledoc.page-summary", 2, 1, 0, "other", "by another model")
            artifacts.put(cur, "element-description", 2, 2, 4, "m", "another kind")
        cur = db.cursor()
        assert artifacts.missing_pages(cur, "simpledoc.page-summary", [1], "m") == [(1, 2)]
        assert artifacts.missing_pages(cur, "simpledoc.page-summary", None, "m") == [(1, 2), (2, 1), (2, 2)]
        assert artifacts.missing_pages(cur, "simpledoc.page-summary", [2], "other") == [(2, 2)]
        assert artifacts.missing_pages(cur, "element-description", [2], "m") == [(2, 1)]
        assert artifacts.missing_pages(cur, "simpledoc.page-summary", [], "m") == []
        assert artifacts.get_many(cur, "simpledoc.page-summary", [(1, 1, 0), (1, 2, 0)], "m") == {(1, 1, 0): "one"}


def test_artifacts_go_with_their_document(tmp_path):
    with Database(tmp_path / "lib.duckdb") as db:
        with db.transaction() as cur:
            kept, removed = (cur.execute("INSERT INTO documents (sha256, size, pages, parser_version) "
                                         "VALUES (?, 1, 1, 1) RETURNING id", [sha]).fetchone()[0]
                             for sha in ("aa", "bb"))
            for doc_id, path in ((kept, "/lib/kept.pdf"), (removed, "/lib/removed.pdf")):
                catalog.set_file(cur, path, library_id=None, doc_id=doc_id, size=1, mtime=0.0,
                                 status=FileStatus.INDEXED)
                add_pages(cur, doc_id, 1)
                artifacts.put(cur, "simpledoc.page-summary", doc_id, 1, 0, "m", "summary")
                artifacts.put(cur, "element-description", doc_id, 1, 3, "v", "description")
        with db.transaction() as cur:
            catalog.remove_file(cur, "/lib/removed.pdf")
            assert catalog.drop_orphan_documents(cur) == 1
        rows = db.cursor().execute("SELECT DISTINCT doc_id FROM artifacts").fetchall()
        assert rows == [(kept,)]
        assert artifacts.count(db.cursor(), "element-description", None, None) == 1


def test_migration_to_v3_moves_page_summaries_into_artifacts(tmp_path):
    """A schema v2 database (built with the v1 and v2 steps, as docqa wrote it) keeps its page summaries."""
    path = tmp_path / "lib.duckdb"
    con = duckdb.connect(str(path))
    con.execute(migrations.SCHEMA_V1)
    con.execute(migrations.SCHEMA_V2)
    con.execute("INSERT INTO meta VALUES ('schema_version', '2')")
    con.execute("INSERT INTO page_summaries (doc_id, page, model, summary, created_at) VALUES "
                "(1, 1, 'smollm2', 'Old summary.', '2026-01-01'), (1, 1, 'qwen', 'Newer summary.', '2026-02-01'), "
                "(1, 2, 'smollm2', 'Page two.', '2026-01-01'), (2, 5, NULL, 'no model: not kept', NULL)")
    con.close()
    with Database(path) as db:
        assert migrations.current_version(db.con) == migrations.LATEST
        cur = db.cursor()
        rows = cur.execute("SELECT kind, doc_id, page, item, model, value, created_at::VARCHAR FROM artifacts "
                           "ORDER BY doc_id, page").fetchall()
        assert rows == [("simpledoc.page-summary", 1, 1, 0, "qwen", "Newer summary.", "2026-02-01 00:00:00"),
                        ("simpledoc.page-summary", 1, 2, 0, "smollm2", "Page two.", "2026-01-01 00:00:00")]
        assert artifacts.get_many(cur, "simpledoc.page-summary", [(1, 1, 0), (1, 2, 0)], "smollm2") == {
            (1, 2, 0): "Page two."}
        assert cur.execute("SELECT count(*) FROM duckdb_tables() WHERE table_name = 'page_summaries'"
                           ).fetchone()[0] == 0
        assert cur.execute("SELECT count(*) FROM duckdb_indexes() WHERE index_name = 'artifacts_page'"
                           ).fetchone()[0] == 1
    backup = path.with_name(f"{path.name}.before-v2.bak")
    with duckdb.connect(str(backup), read_only=True) as old:  # the file as it was, kept beside
        assert migrations.current_version(old) == 2
        assert old.execute("SELECT count(*) FROM page_summaries").fetchone()[0] == 4


def test_migration_to_v6_moves_chunk_embeddings_into_their_own_table(tmp_path):
    """A v5 library's chunk embeddings move to chunk_vectors: the embedding pass takes the chunks without one,
    dense search finds the ones with one, and the old column is emptied."""
    from docqa_desktop.retrieval import dense
    from docqa_desktop.store import content

    path = tmp_path / "lib.duckdb"
    Database(path).close()
    con = duckdb.connect(str(path))  # back to v5
    con.execute("DROP TABLE chunk_vectors; UPDATE meta SET value = '5' WHERE key = 'schema_version'")
    vector = [1.0] + [0.0] * 383
    con.execute("INSERT INTO documents (id, sha256, size, pages, parser_version) VALUES (4, 'x', 1, 1, 2)")
    con.execute("INSERT INTO files (path, doc_id, status) VALUES ('/lib/a.pdf', 4, 'indexed')")
    con.execute("INSERT INTO chunks (id, doc_id, page, seq, text, embedding) VALUES "
                "(1, 4, 1, 0, 'embedded already', ?::FLOAT[384]), (2, 4, 1, 1, 'still waiting', NULL)", [vector])
    con.close()
    query = np.array(vector, np.float32)
    with Database(path) as db:
        cur = db.cursor()
        assert cur.execute("SELECT id, doc_id, page FROM chunk_vectors").fetchall() == [(1, 4, 1)]
        assert cur.execute("SELECT count(embedding) FROM chunks").fetchone()[0] == 0
        assert content.pending_chunks(cur) == [2]
        assert content.chunk_texts(cur, [2, 1]) == ["still waiting", "embedded already"]
        assert [i for i, _ in dense.search_chunks(db, query, None, 5)] == [1]
        with db.transaction() as write:
            content.set_embeddings(db, write, [2], np.array([vector], np.float32))
        assert content.pending_chunks(cur) == []
        assert sorted(i for i, _ in dense.search_chunks(db, query, None, 5)) == [1, 2]
        assert catalog.totals(cur)["chunks_without_embedding"] == 0
