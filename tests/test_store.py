import duckdb
import pytest

from docqa_desktop.store import Database, StoreBusy, StoreError
from docqa_desktop.store import migrations


def test_fresh_database_reaches_latest_schema_and_reopens(tmp_path):
    path = tmp_path / "lib.duckdb"
    with Database(path) as db:
        assert migrations.current_version(db.con) == migrations.LATEST
        tables = {r[0] for r in db.con.execute("SELECT table_name FROM information_schema.tables").fetchall()}
    assert {"libraries", "documents", "files", "pages", "words", "elements", "chunks",
            "page_vectors", "page_summaries", "answers"} <= tables
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


def test_two_handles_in_one_process_rebuild_the_text_index_without_racing(tmp_path):
    """The watcher and a reader (GUI, CLI in the same process) open the same file: DuckDB shares
    the instance, so concurrent FTS rebuilds used to collide with "fts_main_pages already exists"."""
    import threading
    path = tmp_path / "lib.duckdb"
    with Database(path) as first, Database(path) as second:
        with first.transaction() as cur:
            cur.execute("INSERT INTO pages (doc_id, page, label, width, height, text, text_source) "
                        "SELECT 1, i, i::VARCHAR, 600, 800, repeat('heron solar panel ', 200), 'layer' "
                        "FROM range(1, 400) t(i)")
        errors = []

        def rebuild(db):
            try:
                for _ in range(8):
                    db.rebuild_text_index()
            except Exception as exc:  # collected: an exception in a thread would otherwise vanish
                errors.append(exc)

        threads = [threading.Thread(target=rebuild, args=(db,)) for db in (first, second)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert errors == []
        assert not first.text_index_stale() and not second.text_index_stale()


def test_searches_during_a_text_index_rebuild_see_the_previous_index(tmp_path):
    """The rebuild is one transaction: a search in another thread never meets a half-built index
    (it used to fail with "match_bm25 does not exist" while the watcher rebuilt)."""
    import threading
    from docqa_desktop.retrieval import bm25
    with Database(tmp_path / "lib.duckdb") as db:
        with db.transaction() as cur:
            cur.execute("INSERT INTO pages (doc_id, page, label, width, height, text, text_source) "
                        "SELECT 1, i, i::VARCHAR, 600, 800, repeat('heron megawatt panel ', 100), 'layer' "
                        "FROM range(1, 300) t(i)")
        db.rebuild_text_index()
        done, errors, hits = threading.Event(), [], []

        def search():
            while not done.is_set():
                try:
                    hits.append(len(bm25.search_pages(db, "megawatt", [1], 5)))
                except Exception as exc:  # collected: an exception in a thread would otherwise vanish
                    errors.append(exc)

        reader = threading.Thread(target=search)
        reader.start()
        for _ in range(6):
            db.rebuild_text_index()
        done.set()
        reader.join()
        assert errors == [] and hits and set(hits) == {5}
