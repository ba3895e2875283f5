"""What the background passes have done and still owe, and the order they take documents in.

A document is keyword-searchable when its parse commits; the passes that follow (layout, chunk embeddings,
page-image embeddings, page summaries) each record their progress in the rows they write, so a pass stopped by
a cancel, a crash or a restart resumes with what is still missing. Layout records a finished document in the
`enrichment` table; the others are known by their own rows (chunk_vectors, page_vectors, artifacts).
"""
from __future__ import annotations

from .catalog import LIVE_DOCUMENTS

LAYOUT = "layout"

# Documents in the order the passes take them: those the user's answers cited (most recently asked first), then
# the most recently indexed.
PRIORITY = f"""
    SELECT d.id AS doc_id, row_number() OVER (ORDER BY asked.at DESC NULLS LAST, d.indexed_at DESC, d.id DESC) AS rank
    FROM documents d
    LEFT JOIN (SELECT f.doc_id, max(a.created_at) AS at
               FROM (SELECT created_at, unnest(json_extract_string(record, '$.citations[*].path')) AS path
                     FROM answers) a
               JOIN files f ON f.path = a.path GROUP BY f.doc_id) asked ON asked.doc_id = d.id
    WHERE d.id IN ({LIVE_DOCUMENTS})
"""


def priority_order(cur) -> list[int]:
    return [d for (d,) in cur.execute(f"SELECT doc_id FROM ({PRIORITY}) ORDER BY rank").fetchall()]


def documents_without(cur, stage: str) -> list[tuple[int, int]]:
    """(doc_id, pages) of live documents the pass `stage` has not finished, in priority order."""
    return cur.execute(
        f"SELECT p.doc_id, d.pages FROM ({PRIORITY}) p JOIN documents d ON d.id = p.doc_id "
        "WHERE p.doc_id NOT IN (SELECT doc_id FROM enrichment WHERE stage = ?) ORDER BY p.rank", [stage]).fetchall()


def mark_done(cur, doc_id: int, stage: str) -> None:
    cur.execute("INSERT OR REPLACE INTO enrichment (doc_id, stage) VALUES (?, ?)", [doc_id, stage])


def stage_counts(cur, page_embedder: str | None, summary_kind: str) -> dict[str, tuple[int, int]]:
    """{stage: (done, pending)}: pages for layout, page images and summaries; chunks for embeddings."""
    live = f"doc_id IN ({LIVE_DOCUMENTS})"
    pages = cur.execute(f"SELECT count(*) FROM pages WHERE {live}").fetchone()[0]
    layout = cur.execute(f"SELECT count(*) FROM pages WHERE {live} AND doc_id IN "
                         "(SELECT doc_id FROM enrichment WHERE stage = ?)", [LAYOUT]).fetchone()[0]
    chunks = cur.execute(f"SELECT count(*) FROM chunks WHERE {live}").fetchone()[0]
    embedded = cur.execute(f"SELECT count(*) FROM chunk_vectors WHERE {live}").fetchone()[0]
    images = cur.execute(f"SELECT count(DISTINCT (doc_id, page)) FROM page_vectors WHERE {live} AND model = ?",
                         [page_embedder or ""]).fetchone()[0]
    summaries = cur.execute(f"SELECT count(DISTINCT (doc_id, page)) FROM artifacts WHERE {live} AND kind = ? "
                            "AND item = 0", [summary_kind]).fetchone()[0]
    return {"keywords": (pages, 0), "layout": (layout, pages - layout), "embeddings": (embedded, chunks - embedded),
            "page images": (images, pages - images), "summaries": (summaries, pages - summaries)}
