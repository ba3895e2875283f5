"""Faults: a damaged, locked, read-only or half-migrated database, a PDF replaced mid-parse, a broken model file.

Each ends in a clear message naming the file and the reason, and the documents indexed before stay searchable.
(A full disk has its own module: test_disk_full.py.)
"""
import os
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path

import duckdb
import pytest

from conftest import ROOT, SAMPLES, entries_by_name, make_settings, write_pdf
from docqa_desktop import settings as settings_file
from docqa_desktop.answers import Answer, AnswerStatus
from docqa_desktop.cli import main
from docqa_desktop.domain import FileStatus
from docqa_desktop.llm import ModelError
from docqa_desktop.methods.toolkit.page_summaries import PAGE_SUMMARY
from docqa_desktop.service import Service
from docqa_desktop.settings import Settings
from docqa_desktop.store import StoreBusy, StoreError
from docqa_desktop.store import answers as answers_store
from docqa_desktop.store import migrations
from docqa_desktop.store import artifacts
from docqa_desktop.store.database import Database, DatabaseDamaged

FAST = dict(layout=False, dense=False, ocr=False)
DB_NAME = "library.duckdb"


@pytest.fixture(scope="module")
def indexed(tmp_path_factory):
    """A home with one indexed document, an answer in the history and a page summary; tests get copies."""
    base = tmp_path_factory.mktemp("faults")
    library = base / "library"
    library.mkdir()
    shutil.copy(SAMPLES / "harbour-solar-report.pdf", library / "report.pdf")
    settings = make_settings(base / "home", **FAST)
    settings_file.save(settings)  # the CLI run on a copy uses the same fast pipeline
    with Service(settings) as service:
        service.library.index([str(library)])
        doc_id = service.library.status()[0].doc_id
        with service.resources.db.transaction() as cur:
            answers_store.save_answer(cur, Answer(id="a1", question="How much power?", method="simpledoc",
                                                  text="161 megawatt hours", status=AnswerStatus.ANSWERED))
            artifacts.put(cur, PAGE_SUMMARY, doc_id, 3, 0, "smollm2", "Output and finances of the solar park.")
        service.resources.db.con.execute("CHECKPOINT")  # everything in the main file: the tests damage that file
    return base / "home", library


@pytest.fixture
def home(indexed, tmp_path) -> Path:
    copy = tmp_path / "home"
    shutil.copytree(indexed[0], copy)
    return copy


@pytest.fixture
def library(indexed) -> Path:
    return indexed[1]


def database(home: Path) -> Path:
    return home / "data" / DB_NAME


def open_service(home: Path) -> Service:
    return Service(make_settings(home, **FAST))


def assert_earlier_document_searchable(home: Path) -> None:
    with open_service(home) as service:
        hits = service.pages.search("megawatt", k=1)
        assert hits and hits[0].doc == "report.pdf"


def docqa(capsys, home: Path, *args) -> tuple[int, str, str]:
    code = main([*args, "--home", str(home)])
    out = capsys.readouterr()
    return code, out.out, out.err


# -- a damaged database file -------------------------------------------------------------------------

def overwrite_block_of(db: Path, table: str) -> None:
    """Junk bytes over a storage block holding `table` (DuckDB checksums every block it reads)."""
    with duckdb.connect(str(db), read_only=True) as con:
        block = con.execute(f"SELECT min(block_id) FROM pragma_storage_info('{table}') WHERE block_id >= 0"
                            ).fetchone()[0]
    header, block_size = 3 * 4096, 256 * 1024
    with open(db, "r+b") as fh:
        fh.seek(header + block * block_size + 64)
        fh.write(os.urandom(4096))


DAMAGE = {
    "header zeroed": lambda db: db.write_bytes(b"\0" * 4096 + db.read_bytes()[4096:]),
    "truncated": lambda db: os.truncate(db, db.stat().st_size // 2),
    "files table overwritten": lambda db: overwrite_block_of(db, "files"),
}


@pytest.mark.parametrize("damage", DAMAGE)
def test_a_damaged_database_is_detected_on_open_and_named(home, capsys, damage):
    DAMAGE[damage](database(home))
    with pytest.raises(DatabaseDamaged) as raised:
        Database(database(home))
    message = str(raised.value)
    assert str(database(home)) in message and "is damaged" in message and "`docqa repair`" in message
    code, _, err = docqa(capsys, home, "status")
    assert code == 2 and f"{database(home)} is damaged" in err and "docqa repair" in err


@pytest.mark.gui
def test_the_app_says_the_database_is_damaged_instead_of_crashing(home, monkeypatch):
    from docqa_desktop.ui import app

    shown = []
    monkeypatch.setattr(app.QMessageBox, "critical", lambda parent, title, text: shown.append(text))
    DAMAGE["truncated"](database(home))
    assert app.run(make_settings(home, **FAST)) == 2
    assert len(shown) == 1 and f"{database(home)} is damaged" in shown[0] and "`docqa repair`" in shown[0]


def test_damage_in_a_large_table_is_named_when_a_search_reaches_it(home, capsys):
    """Opening reads only the small tables (milliseconds); a damaged page-text block surfaces on use."""
    overwrite_block_of(database(home), "pages")
    Database(database(home)).close()  # the quick check on opening does not read page text
    code, _, err = docqa(capsys, home, "search", "megawatt")
    assert code == 2 and f"{database(home)} is damaged" in err and "docqa repair" in err


def test_repair_keeps_history_and_summaries_and_rebuilds_the_index(home, capsys):
    overwrite_block_of(database(home), "pages")
    code, out, err = docqa(capsys, home, "repair")
    assert code == 0, err
    assert "Corrupt database file" in out  # why it was rebuilt
    assert "kept — answers in the history: 1, library folders: 1, page summaries and descriptions: 1" in out
    assert "done: 1 added" in out  # the page text came back from the PDF
    aside = [p for p in database(home).parent.iterdir() if ".damaged-" in p.name]
    assert len(aside) == 1 and f"kept as {aside[0]}" in out  # never deleted
    assert_earlier_document_searchable(home)
    with open_service(home) as service:
        assert [a.id for a in service.answers.history()] == ["a1"]
        doc_id = service.library.status()[0].doc_id  # a new id: the summary followed the content, not the old id
        assert artifacts.get_many(service.resources.db.cursor(), PAGE_SUMMARY, [(doc_id, 3, 0)], "smollm2") == {
            (doc_id, 3, 0): "Output and finances of the solar park."}
    code, out, _ = docqa(capsys, home, "repair")
    assert code == 0 and "nothing to repair" in out


def test_repair_salvages_page_summaries_from_a_file_of_the_older_schema(tmp_path):
    """A damaged file written before schema v3 kept its page summaries in their own table: read from there."""
    from docqa_desktop.store import repair
    old = tmp_path / "old.duckdb"
    with duckdb.connect(str(old)) as con:
        con.execute(migrations.SCHEMA_V1)
        con.execute(migrations.SCHEMA_V2)
        con.execute("INSERT INTO meta VALUES ('schema_version', '2')")
        con.execute("INSERT INTO documents (id, sha256, size, pages, parser_version) VALUES (7, 'abc', 1, 3, 1)")
        con.execute("INSERT INTO page_summaries VALUES (7, 3, 'smollm2', 'Old summary.', '2026-01-01')")
    unreadable = {}
    rows = repair._salvage(old, unreadable)
    assert unreadable == {}
    assert [r[:6] for r in rows[repair.ARTIFACTS]] == [
        ("simpledoc.page-summary", "abc", 3, 0, "smollm2", "Old summary.")]


def test_repair_of_an_unreadable_file_indexes_the_folders_it_is_given(home, library, capsys):
    DAMAGE["header zeroed"](database(home))
    code, out, err = docqa(capsys, home, "repair", str(library))
    assert code == 0, err
    assert "could not read the whole file" in out and "not a valid DuckDB database file" in out
    assert "done: 1 added" in out
    assert_earlier_document_searchable(home)


def test_repair_of_a_damaged_write_ahead_log_keeps_the_last_checkpoint(home, capsys):
    db = database(home)
    with duckdb.connect(str(db)) as con:  # a change still only in the log, as after a crash
        con.execute("PRAGMA disable_checkpoint_on_shutdown")
        con.execute("INSERT INTO answers (id, question, method, record) VALUES ('a2', 'later', 'simpledoc', '{}')")
    wal = db.with_name(DB_NAME + ".wal")
    with open(wal, "r+b") as fh:
        fh.seek(40)
        fh.write(os.urandom(200))
    with pytest.raises(DatabaseDamaged, match="Corrupt WAL file"):
        Database(db)
    code, out, err = docqa(capsys, home, "repair")
    assert code == 0, err
    assert "could not read changes since the last checkpoint" in out
    assert "answers in the history: 1" in out  # a1, from the checkpoint; a2 was only in the damaged log
    assert_earlier_document_searchable(home)


# -- migrations: a backup first, and a kill or a failing step leaves a database that opens -------------

def downgrade_to_v2(db: Path) -> None:
    """The file as schema v2 left it (before the artifacts, summary-tree, keyword, chunk-vector, document-info and
    tables steps), with its indexed data and page summary."""
    with duckdb.connect(str(db)) as con:
        con.execute("DROP TABLE tree_nodes; DROP TABLE tree_builds; DROP SEQUENCE tree_node_ids")
        con.execute("DROP TABLE keyword_terms; DROP TABLE keyword_postings; DROP TABLE keyword_pages; "
                    "DROP TABLE keyword_stopwords; DROP SEQUENCE keyword_term_ids; DROP TABLE enrichment")
        con.execute("UPDATE chunks SET embedding = v.embedding FROM chunk_vectors v WHERE chunks.id = v.id")
        con.execute("DROP TABLE chunk_vectors; DROP TABLE document_info; DROP TABLE page_tables; DROP TABLE table_cells")
        con.execute("CREATE TABLE page_summaries (doc_id BIGINT, page INTEGER, model VARCHAR, summary VARCHAR, "
                    "created_at TIMESTAMP DEFAULT current_timestamp)")
        con.execute("INSERT INTO page_summaries SELECT doc_id, page, model, value, created_at FROM artifacts "
                    "WHERE kind = 'simpledoc.page-summary'")
        con.execute("DROP TABLE artifacts")
        con.execute("UPDATE meta SET value = '2' WHERE key = 'schema_version'")


def schema_version(db: Path) -> int:
    with duckdb.connect(str(db)) as con:  # read-write: replays what a killed process left in the WAL
        return migrations.current_version(con)


# Runs the real last migration step in a child process that SIGKILLs itself before the step commits.
KILLED_MID_MIGRATION = r"""
import os, signal, sys
import duckdb
from docqa_desktop.store import migrations
from docqa_desktop.store.database import Database

connect = duckdb.connect
def connect_with_kill(*args, **kwargs):
    con = connect(*args, **kwargs)
    con.create_function("kill_me", lambda: os.kill(os.getpid(), signal.SIGKILL), [], "INTEGER",
                        side_effects=True)
    return con
duckdb.connect = connect_with_kill
step, sql = migrations.MIGRATIONS[-1]
migrations.MIGRATIONS[-1] = (step, sql + "\nSELECT kill_me();")
Database(sys.argv[1])
"""


def test_a_kill_during_a_migration_leaves_a_database_that_opens(home):
    db = database(home)
    downgrade_to_v2(db)
    child = subprocess.run([sys.executable, "-c", KILLED_MID_MIGRATION, str(db)], cwd=ROOT,
                           capture_output=True, text=True, timeout=120)
    assert child.returncode == -signal.SIGKILL, child.stderr
    backup = db.with_name(f"{DB_NAME}.before-v2.bak")
    assert backup.exists() and schema_version(backup) == 2  # written before the step started
    # the steps before the last committed; the killed one left nothing behind: DuckDB rolled it back
    assert schema_version(db) == migrations.LATEST - 1
    with duckdb.connect(str(db)) as con:  # the step before the last gave table cells a from-the-axis flag
        assert con.execute("SELECT count(*) FROM duckdb_columns() WHERE table_name = 'table_cells' "
                           "AND column_name = 'from_axis'").fetchone()[0] == 1
    assert_earlier_document_searchable(home)  # opening again runs the migration to the end
    assert schema_version(db) == migrations.LATEST
    backup = db.with_name(f"{DB_NAME}.before-v{migrations.LATEST - 1}.bak")
    assert backup.exists()  # the last backup (from the reopening) is kept after a successful upgrade
    with open_service(home) as service:  # the page summary moved into the new table
        doc_id = service.library.status()[0].doc_id
        assert artifacts.get_many(service.resources.db.cursor(), PAGE_SUMMARY, [(doc_id, 3, 0)], "smollm2") == {
            (doc_id, 3, 0): "Output and finances of the solar park."}
    # restoring it (what the README says to do) gives back a database that opens and upgrades again
    shutil.copyfile(backup, db)
    assert_earlier_document_searchable(home)


def test_a_failing_migration_step_is_rolled_back_and_named(home, monkeypatch):
    db = database(home)
    broken = (migrations.LATEST + 1, "CREATE TABLE half_done (x INTEGER); SELECT * FROM no_such_table;")
    monkeypatch.setattr(migrations, "MIGRATIONS", migrations.MIGRATIONS + [broken])
    monkeypatch.setattr(migrations, "LATEST", broken[0])
    with pytest.raises(StoreError) as raised:
        Database(db)
    message = str(raised.value)
    backup = db.with_name(f"{DB_NAME}.before-v{broken[0] - 1}.bak")
    assert f"cannot upgrade {db} from schema v{broken[0] - 1}" in message and "no_such_table" in message
    assert f"rolled back; a copy from before the upgrade is at {backup}" in message and backup.exists()
    monkeypatch.undo()
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM duckdb_tables() WHERE table_name = 'half_done'").fetchone()[0] == 0
    assert_earlier_document_searchable(home)


# -- a read-only database folder, a database locked by another process --------------------------------

@pytest.fixture
def read_only_data_folder(home):
    """home/data on its own tmpfs, so it can be made read-only (root ignores file permissions)."""
    data = home / "data"
    saved = home / "data-files"
    data.rename(saved)
    data.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=20m", "tmpfs", str(data)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here (needs root): {done.stderr.decode().strip()}")
    for f in saved.iterdir():
        shutil.copy(f, data / f.name)
    subprocess.run(["mount", "-o", "remount,ro", str(data)], check=True)
    yield data
    subprocess.run(["umount", "-l", str(data)], check=False)


def test_a_read_only_database_folder_still_searches_and_says_why_it_cannot_index(
        home, library, read_only_data_folder, capsys):
    with open_service(home) as service:
        assert service.pages.search("megawatt", k=1)[0].doc == "report.pdf"  # opened read-only
        with pytest.raises(StoreError) as raised:
            service.library.index([str(library)])
    message = str(raised.value)
    assert f"its folder {read_only_data_folder} is read-only" in message
    code, _, err = docqa(capsys, home, "index", str(library))
    assert code == 2 and f"cannot write {database(home)}: its folder {read_only_data_folder} is read-only" in err
    subprocess.run(["mount", "-o", "remount,rw", str(read_only_data_folder)], check=True)
    assert_earlier_document_searchable(home)
    with open_service(home) as service:
        assert entries_by_name(service)["report.pdf"].status is FileStatus.INDEXED


HOLD_DATABASE = "import duckdb, sys, time; con = duckdb.connect(sys.argv[1]); print('holding', flush=True); " \
                "time.sleep(120)"


def test_a_database_locked_by_another_process_is_named_and_waited_for(home):
    db = database(home)
    holder = subprocess.Popen([sys.executable, "-c", HOLD_DATABASE, str(db)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "holding"
        with pytest.raises(StoreBusy) as raised:
            Database(db, wait_seconds=0.5)
        message = str(raised.value)
        assert f"{db} is in use by another docqa process" in message and "stop it or wait" in message
        threading.Timer(1.0, holder.kill).start()  # the other process ends while this one waits
        Database(db, wait_seconds=60).close()
    finally:
        holder.kill()
        holder.wait()
    assert_earlier_document_searchable(home)


# -- a PDF replaced while it is parsed ------------------------------------------------------------------

@pytest.mark.parametrize("replacement", ["another PDF", "garbage"])
def test_a_pdf_replaced_mid_parse_is_reported_changed_and_indexed_next_run(home, tmp_path, replacement):
    folder = tmp_path / "new"
    folder.mkdir()
    target = write_pdf(folder / "minutes.pdf", [f"Page {i}: the otters of the harbour." for i in range(12)])
    swapped = []

    def replace_after_the_first_batch(p):
        # one worker, two pages a task: the later batches are parsed after the swap
        if p.item == str(target) and p.done >= 2 and not swapped:
            if replacement == "garbage":
                target.write_bytes(b"%PDF-1.7\n" + os.urandom(5000))
            else:
                write_pdf(target, ["The beavers built a dam."])
            swapped.append(True)

    with Service(make_settings(home, **FAST, pages_per_task=2, workers=1)) as service:
        report = service.library.index([str(folder)], replace_after_the_first_batch)
        entry = entries_by_name(service)["minutes.pdf"]
        assert swapped and entry.status is FileStatus.PENDING
        assert entry.error == "file changed while it was being indexed; it will be indexed again"
        assert report.errors == {str(target): entry.error}
        assert service.pages.search("otters", k=5) == []  # nothing of the half-parsed version was kept
        service.library.index([str(folder)])  # the next run takes the new content
        entry = entries_by_name(service)["minutes.pdf"]
        if replacement == "garbage":
            assert entry.status is FileStatus.ERROR and entry.error  # what it is now: a broken file
        else:
            assert entry.status is FileStatus.INDEXED
            assert service.pages.search("beavers", k=1)[0].doc == "minutes.pdf"
    assert_earlier_document_searchable(home)


# -- a model file truncated or swapped -----------------------------------------------------------------

@pytest.fixture
def imported_model(home, smollm2_path, tmp_path, capsys) -> Path:
    model = tmp_path / "models" / "mine.gguf"
    model.parent.mkdir()
    shutil.copyfile(smollm2_path, model)
    # linked: the file the test damages is the one the app uses (an import copies it otherwise)
    code, _, err = docqa(capsys, home, "models", "import", str(model), "--name", "mine", "--link")
    assert code == 0, err
    return model


MODEL_FAULTS = {
    "truncated": (lambda m: os.truncate(m, m.stat().st_size // 2), "is truncated"),
    "swapped for a PDF": (lambda m: shutil.copyfile(SAMPLES / "harbour-solar-report.pdf", m),
                          "is not a GGUF model"),
}


@pytest.mark.parametrize("fault", MODEL_FAULTS)
def test_a_broken_model_file_is_named_by_verify_and_by_ask(home, imported_model, capsys, monkeypatch, fault):
    damage, reason = MODEL_FAULTS[fault]
    damage(imported_model)
    code, out, _ = docqa(capsys, home, "models", "verify", "mine")
    assert code == 1 and f"BROKEN mine: model file {imported_model} {reason}" in out
    monkeypatch.setenv("DOCQA_LLM_TEXT_MODEL", "mine")
    code, _, err = docqa(capsys, home, "ask", "How much power did the park produce?")
    assert code == 2 and f"model file {imported_model} {reason}" in err
    with Service(Settings.load(home)) as service, pytest.raises(ModelError, match=str(imported_model)):
        service.answers.ask("How much power?")
    assert_earlier_document_searchable(home)


def test_a_model_file_swapped_for_another_model_is_named_by_verify(home, imported_model, tiny_vlm_files, capsys):
    shutil.copyfile(tiny_vlm_files[0], imported_model)  # a valid GGUF, but not the one imported
    code, out, _ = docqa(capsys, home, "models", "verify", "mine")
    assert code == 1 and f"BROKEN mine: {imported_model} changed since it was installed (checksum differs)" in out
    assert_earlier_document_searchable(home)
