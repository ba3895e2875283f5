"""`docqa repair`: set a damaged database file aside and rebuild a fresh one.

Everything derived from the PDFs (documents, pages, words, chunks, embeddings) is rebuilt by indexing the
library folders again; what cannot be rebuilt — question history, and the page summaries and descriptions
written by language models (store/artifacts.py) — is copied over from the damaged file where its tables can
still be read. The damaged file is kept
beside the new one (<db>.damaged-<time>) and never deleted here.
"""
from __future__ import annotations

import logging
import os
import shutil
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import duckdb
import pyarrow as pa

from ..domain import IndexReport
from .database import Database, DatabaseDamaged, is_damage
from .migrations import V3_PAGE_SUMMARY_KIND

log = logging.getLogger(__name__)

HISTORY, ARTIFACTS, LIBRARIES, SINGLE_FILES = ("answers in the history", "page summaries and descriptions",
                                               "library folders", "single files")
# what is read from the damaged file, by the name the user is told; a tuple lists the queries for each older
# schema, tried in order until one finds its table
SALVAGED: dict[str, str | tuple[str, ...]] = {
    HISTORY: "SELECT id, question, method, record, created_at FROM answers",
    # keyed by document id, which a rebuild renumbers: the content hash finds them again
    ARTIFACTS: ("SELECT a.kind, d.sha256, a.page, a.item, a.model, a.value, a.created_at FROM artifacts a "
                "JOIN documents d ON d.id = a.doc_id",
                # schema v1-v2: page summaries had a table of their own; they get the kind v3 gave them
                f"SELECT '{V3_PAGE_SUMMARY_KIND}', d.sha256, s.page, 0, s.model, s.summary, s.created_at "
                "FROM page_summaries s JOIN documents d ON d.id = s.doc_id "
                "WHERE s.model IS NOT NULL AND s.summary IS NOT NULL"),
    LIBRARIES: "SELECT root FROM libraries",
    # files indexed on their own (`docqa index FILE.pdf`), not through a library folder
    SINGLE_FILES: "SELECT path FROM files WHERE library_id IS NULL",
}


@dataclass
class RepairReport:
    damage: str | None  # why the file was rebuilt; None: it was fine and nothing was done
    set_aside: Path | None = None
    kept: dict[str, int] = field(default_factory=dict)  # what was copied over, and how many rows
    unreadable: dict[str, str] = field(default_factory=dict)  # what could not be read, and why
    missing_paths: list[str] = field(default_factory=list)  # library folders no longer on disk
    reindexed: IndexReport | None = None  # the rebuild's indexing run


def damage_of(path: Path) -> str | None:
    """Why the database cannot be used, or None when every table of it reads.

    Reads everything (seconds for a large library): opening checks only the small tables, so a damaged block
    in a large one is found here, not when a later search reaches it.
    """
    try:
        db = Database(path, wait_seconds=0)
    except DatabaseDamaged as exc:
        return str(exc.__cause__ or exc)
    try:
        cur = db.cursor()
        tables = cur.execute("SELECT schema_name, table_name FROM duckdb_tables() "
                             "WHERE database_name = current_database()").fetchall()
        for schema, table in tables:
            cur.execute(f'SELECT bit_xor(hash(t)) FROM "{schema}"."{table}" t').fetchall()
    except duckdb.Error as exc:
        if is_damage(exc):
            return str(exc)
        raise
    finally:
        db.close()
    return None


def repair(path: Path, open_db: Callable[[], Database], reindex: Callable[[list[str]], IndexReport],
           force: bool = False, more_paths: list[str] = ()) -> RepairReport:
    """Rebuild the database at `path` if it is damaged (or `force`): set it aside, salvage, re-index.

    `open_db` opens the fresh database at `path`; `reindex` indexes folders and files into it (the index
    layer sits above the store, so the caller supplies it). `more_paths` are indexed too: when the list of
    library folders cannot be read from the damaged file, the user names them.
    """
    damage = damage_of(path) if path.exists() else None
    if damage is None and not force:
        return RepairReport(damage=None)
    report = RepairReport(damage=damage or "rebuilt on request (--force)")
    if path.exists():
        report.set_aside = _set_aside(path)
        rows = _salvage(report.set_aside, report.unreadable)
    else:
        rows = {}
    db = open_db()  # a new, empty file at the old name
    if HISTORY in rows:
        with db.transaction() as cur:
            report.kept[HISTORY] = _restore_history(db, cur, rows[HISTORY])
    roots = [r for (r,) in rows.get(LIBRARIES, [])] + [p for (p,) in rows.get(SINGLE_FILES, [])]
    roots = list(dict.fromkeys(roots + [os.path.abspath(p) for p in more_paths]))
    report.missing_paths = [p for p in roots if not os.path.exists(p)]
    present = [p for p in roots if os.path.exists(p)]
    report.kept[LIBRARIES] = len(rows.get(LIBRARIES, []))
    if present:
        report.reindexed = reindex(present)
    if ARTIFACTS in rows:  # after the re-index: they attach to the rebuilt documents
        with db.transaction() as cur:
            report.kept[ARTIFACTS] = _restore_artifacts(db, cur, rows[ARTIFACTS])
    log.warning("repaired %s: %s", path, report)
    return report


def _set_aside(path: Path) -> Path:
    """Rename the file (and its write-ahead log) to <db>.damaged-<time>: kept for inspection, out of the way."""
    stamp = time.strftime('%Y%m%d-%H%M%S')
    aside = path.with_name(f"{path.name}.damaged-{stamp}")
    n = 1
    while aside.exists():  # never overwrite an earlier set-aside file
        n += 1
        aside = path.with_name(f"{path.name}.damaged-{stamp}-{n}")
    os.replace(path, aside)
    wal = path.with_name(path.name + ".wal")
    if wal.exists():
        os.replace(wal, aside.with_name(aside.name + ".wal"))
    return aside


def _salvage(damaged: Path, unreadable: dict[str, str]) -> dict[str, list[tuple]]:
    """Rows of each SALVAGED table that can still be read; a table that cannot is noted, not fatal."""
    with _open_readable(damaged, unreadable) as con:
        if con is None:
            return {}
        rows = {}
        for what, queries in SALVAGED.items():
            for sql in (queries,) if isinstance(queries, str) else queries:
                try:
                    rows[what] = con.execute(sql).fetchall()
                    unreadable.pop(what, None)
                    break
                except duckdb.CatalogException as exc:  # not in this schema version: try the older one
                    unreadable[what] = str(exc)
                except duckdb.Error as exc:
                    unreadable[what] = str(exc)
                    break
        return rows


@contextmanager
def _open_readable(damaged: Path, unreadable: dict[str, str]):
    """A read-only connection to the damaged file, or None. When replaying its write-ahead log is what fails,
    the main file alone (as of the last checkpoint) is opened from a temporary copy."""
    con, scratch = None, None
    try:
        con = duckdb.connect(str(damaged), read_only=True)
    except duckdb.Error as exc:
        failure = str(exc)
    if con is None and damaged.with_name(damaged.name + ".wal").exists():
        scratch = tempfile.mkdtemp(prefix="docqa-repair-")
        copy = os.path.join(scratch, "without-wal.duckdb")
        shutil.copyfile(damaged, copy)
        try:
            con = duckdb.connect(copy, read_only=True)
            unreadable["changes since the last checkpoint"] = failure
        except duckdb.Error as exc:
            failure = f"{failure}; without its write-ahead log: {exc}"
    if con is None:
        unreadable["the whole file"] = failure
    try:
        yield con
    finally:
        if con is not None:
            con.close()
        if scratch:
            shutil.rmtree(scratch, ignore_errors=True)


def _restore_history(db: Database, cur, rows: list[tuple]) -> int:
    ids, questions, methods, records, created = zip(*rows) if rows else ([],) * 5
    db.insert_arrow(cur, "answers", pa.table({"id": ids, "question": questions, "method": methods,
                                              "record": records, "created_at": created}))
    return len(rows)


def _restore_artifacts(db: Database, cur, rows: list[tuple]) -> int:
    """Back onto the rebuilt documents with the same content; pages of documents gone from disk are dropped."""
    if not rows:
        return 0
    kind, sha, page, item, model, value, created = zip(*rows)
    cur.register("_old_artifacts", pa.table({"kind": kind, "sha256": sha, "page": page, "item": item,
                                             "model": model, "value": value, "created_at": created}))
    try:
        cur.execute(
            "INSERT INTO artifacts (kind, doc_id, page, item, model, value, created_at) "
            "SELECT DISTINCT ON (o.kind, p.doc_id, p.page, o.item) o.kind, p.doc_id, p.page, o.item, o.model, "
            "o.value, o.created_at FROM _old_artifacts o JOIN documents d ON d.sha256 = o.sha256 "
            "JOIN pages p ON p.doc_id = d.id AND p.page = o.page "
            "ORDER BY o.kind, p.doc_id, p.page, o.item, o.created_at DESC")
        return cur.execute("SELECT count(*) FROM artifacts").fetchone()[0]
    finally:
        cur.unregister("_old_artifacts")
