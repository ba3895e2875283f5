"""Libraries (watched folders), files (paths on disk) and documents (distinct contents)."""
from __future__ import annotations

import os

from ..domain import DocumentInfo, FileEntry, FileStatus
from . import versions

def listed(ids) -> str:
    """Integer ids written into SQL as constants ("3, 7, 12"). Filtering a large table by a list parameter joined
    as a subquery makes DuckDB read every row; constants let it use the primary-key index, or skip the blocks of
    other documents (stored in document order): 7 ms instead of 380 ms for 64 of 200,000 chunks."""
    return ", ".join(str(int(i)) for i in ids) or "NULL"


# documents at least one path on disk still refers to: what searches see
LIVE_DOCUMENTS = "SELECT doc_id FROM files WHERE doc_id IS NOT NULL"


def live_documents(cur) -> set[int]:
    return {r[0] for r in cur.execute(LIVE_DOCUMENTS).fetchall()}


def add_library(cur, root: str) -> int:
    row = cur.execute("SELECT id FROM libraries WHERE root = ?", [root]).fetchone()
    if row:
        return row[0]
    return cur.execute("INSERT INTO libraries (root) VALUES (?) RETURNING id", [root]).fetchone()[0]


def libraries(cur) -> list[str]:
    return [r[0] for r in cur.execute("SELECT root FROM libraries ORDER BY root").fetchall()]


def remove_library(cur, root: str) -> None:
    cur.execute("DELETE FROM libraries WHERE root = ?", [root])


def known_files(cur, under: str | None = None) -> dict[str, tuple[int | None, float | None, str, int | None]]:
    """path -> (size, mtime, status, parser_version of its document), optionally only below a folder."""
    sql = ("SELECT f.path, f.size, f.mtime, f.status, d.parser_version FROM files f "
           "LEFT JOIN documents d ON d.id = f.doc_id")
    args = []
    if under is not None:
        sql += " WHERE f.path = ? OR starts_with(f.path, ?)"
        args = [under, under.rstrip(os.sep) + os.sep]
    return {r[0]: (r[1], r[2], r[3], r[4]) for r in cur.execute(sql, args).fetchall()}


def document_by_hash(cur, sha256: str, parser_version: int) -> int | None:
    row = cur.execute("SELECT id FROM documents WHERE sha256 = ? AND parser_version = ? "
                      "ORDER BY id DESC LIMIT 1", [sha256, parser_version]).fetchone()
    return row[0] if row else None


def set_file(cur, path: str, *, library_id: int | None, doc_id: int | None, size: int | None,
             mtime: float | None, status: FileStatus, error: str | None = None) -> None:
    cur.execute(
        "INSERT OR REPLACE INTO files (path, library_id, doc_id, size, mtime, status, error, updated_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, current_timestamp)",
        [path, library_id, doc_id, size, mtime, status.value, error])


def set_file_keeping_document(cur, path: str, *, library_id: int | None, size, mtime, status: FileStatus,
                              error: str | None = None) -> None:
    """Change a file's status (pending, error) but keep its last good document (if any) searchable."""
    row = cur.execute("SELECT doc_id FROM files WHERE path = ?", [path]).fetchone()
    set_file(cur, path, library_id=library_id, doc_id=row[0] if row else None, size=size, mtime=mtime,
             status=status, error=error)


def remove_file(cur, path: str) -> None:
    cur.execute("DELETE FROM files WHERE path = ?", [path])


def drop_orphan_documents(cur) -> int:
    """Delete every document no path refers to any more, with all its rows."""
    orphans = [r[0] for r in cur.execute(
        f"SELECT id FROM documents WHERE id NOT IN ({LIVE_DOCUMENTS})"
    ).fetchall()]
    for table in ("pages", "words", "elements", "chunks", "chunk_vectors", "page_vectors", "artifacts", "tree_nodes",
                  "tree_builds", "keyword_postings", "keyword_pages", "enrichment", "document_info", "page_tables",
                  "table_cells"):
        cur.execute(f"DELETE FROM {table} WHERE doc_id IN ({listed(orphans)})")
    cur.execute(f"DELETE FROM documents WHERE id IN ({listed(orphans)})")
    if orphans:
        versions.bump(cur, versions.KEYWORDS)
        versions.bump(cur, versions.CHUNKS)
    return len(orphans)


def file_entries(cur) -> list[FileEntry]:
    rows = cur.execute(
        "SELECT f.path, f.status, d.pages, f.error, f.doc_id, i.title, i.authors, i.year FROM files f "
        "LEFT JOIN documents d ON d.id = f.doc_id LEFT JOIN document_info i ON i.doc_id = f.doc_id "
        "ORDER BY f.path").fetchall()
    return [FileEntry(path=p, name=os.path.basename(p), status=FileStatus(s), pages=n, error=e, doc_id=d,
                      info=DocumentInfo(title or "", authors or "", year))
            for p, s, n, e, d, title, authors, year in rows]


def resolve_documents(cur, names: list[str]) -> dict[str, list[int]]:
    """Map each --doc argument (file name, path, or a unique part of a name) to document ids."""
    entries = [e for e in file_entries(cur) if e.doc_id is not None]
    resolved = {}
    for name in names:
        as_path = os.path.abspath(os.path.expanduser(name))
        exact = {e.doc_id for e in entries if name == e.name or as_path == e.path}
        partial = {e.doc_id for e in entries if name.lower() in e.name.lower()}
        resolved[name] = sorted(exact or partial)
    return resolved


def current_document(cur, path: str, size: int, mtime: float) -> tuple[int, int] | None:
    """(doc_id, pages) of the document indexed from `path`, when the file is still as it was indexed (same size
    and mtime, as the scan compares them); None for a file not indexed, failed, or changed since."""
    return cur.execute("SELECT d.id, d.pages FROM files f JOIN documents d ON d.id = f.doc_id WHERE f.path = ? "
                       "AND f.status = ? AND f.size = ? AND f.mtime = ?",
                       [path, FileStatus.INDEXED.value, size, mtime]).fetchone()


def doc_paths(cur, doc_ids: list[int] | None = None) -> dict[int, str]:
    """One representative path per document (the first alphabetically) for display; of `doc_ids` only, if given."""
    if doc_ids is not None:
        return dict(cur.execute(f"SELECT doc_id, min(path) FROM files WHERE doc_id IN ({listed(doc_ids)}) "
                                "GROUP BY doc_id").fetchall())
    rows = cur.execute("SELECT doc_id, min(path) FROM files WHERE doc_id IS NOT NULL GROUP BY doc_id").fetchall()
    return dict(rows)


def doc_names(cur) -> dict[int, str]:
    """Each document's file name (of its representative path), as the trace and the prompts name it."""
    return {doc_id: os.path.basename(path) for doc_id, path in doc_paths(cur).items()}


def document_sources(cur, doc_id: int) -> tuple[str, list[str]]:
    """(sha256, every path holding the document) for reading its pages from disk."""
    row = cur.execute("SELECT sha256 FROM documents WHERE id = ?", [doc_id]).fetchone()
    if row is None:
        raise KeyError(doc_id)
    paths = [r[0] for r in cur.execute("SELECT path FROM files WHERE doc_id = ? ORDER BY path", [doc_id]).fetchall()]
    return row[0], paths


def totals(cur) -> dict[str, int]:
    """Library-wide counts for `docqa status`."""
    docs, pages = cur.execute(f"SELECT count(*), coalesce(sum(pages), 0) FROM documents "
                              f"WHERE id IN ({LIVE_DOCUMENTS})").fetchone()
    chunks, waiting = cur.execute("SELECT count(*), count(*) - (SELECT count(*) FROM chunk_vectors) FROM chunks"
                                  ).fetchone()
    visual = cur.execute(f"SELECT count(*) FROM page_vectors WHERE doc_id IN ({LIVE_DOCUMENTS})").fetchone()[0]
    return {"documents": docs, "pages": pages, "chunks": chunks, "chunks_without_embedding": waiting,
            "pages_with_image_embeddings": visual}
