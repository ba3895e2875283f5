"""What the background passes have done and still owe, and the order they take documents in.

A document is keyword-searchable when its parse commits; the passes that follow (layout, chunk embeddings,
page-image embeddings, page summaries) each record their progress in the rows they write, so a pass stopped by
a cancel, a crash or a restart resumes with what is still missing. Layout records a finished document in the
`enrichment` table; the others are known by their own rows (chunk_vectors, page_vectors, artifacts).
"""
from __future__ import annotations

from .catalog import LIVE_DOCUMENTS

LAYOUT = "layout"
_LIVE = f"doc_id IN ({LIVE_DOCUMENTS})"

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


# Documents every one of a list of passes has finished; parameters: the stages, then how many there are
_FINISHING_ALL = ("SELECT doc_id FROM enrichment WHERE list_contains(?::VARCHAR[], stage) "
                  "GROUP BY doc_id HAVING count(DISTINCT stage) = ?")


def priority_order(cur) -> list[int]:
    return [d for (d,) in cur.execute(f"SELECT doc_id FROM ({PRIORITY}) ORDER BY rank").fetchall()]


def documents_without(cur, *stages: str) -> list[tuple[int, int]]:
    """(doc_id, pages) of live documents that one of the passes `stages` has not finished, in priority order."""
    return cur.execute(
        f"SELECT p.doc_id, d.pages FROM ({PRIORITY}) p JOIN documents d ON d.id = p.doc_id "
        f"WHERE p.doc_id NOT IN ({_FINISHING_ALL}) ORDER BY p.rank", [list(stages), len(stages)]).fetchall()


def finished(cur, doc_id: int, stage: str) -> bool:
    """Whether the pass `stage` has finished the document (mark_done)."""
    return cur.execute("SELECT count(*) > 0 FROM enrichment WHERE doc_id = ? AND stage = ?", [doc_id, stage]
                       ).fetchone()[0]


def mark_done(cur, doc_id: int, stage: str) -> None:
    cur.execute("INSERT OR REPLACE INTO enrichment (doc_id, stage) VALUES (?, ?)", [doc_id, stage])


# (done, pending) over the live library, for each stage's row in `docqa status` (index/stages)

def live_pages(cur) -> int:
    return cur.execute(f"SELECT count(*) FROM pages WHERE {_LIVE}").fetchone()[0]


def pages_finished(cur, *stages: str) -> tuple[int, int]:
    """Pages of the documents every pass of `stages` has finished (mark_done), and of the rest."""
    done = cur.execute(f"SELECT count(*) FROM pages WHERE {_LIVE} AND doc_id IN ({_FINISHING_ALL})",
                       [list(stages), len(stages)]).fetchone()[0]
    return done, live_pages(cur) - done


def chunks_embedded(cur) -> tuple[int, int]:
    chunks = cur.execute(f"SELECT count(*) FROM chunks WHERE {_LIVE}").fetchone()[0]
    embedded = cur.execute(f"SELECT count(*) FROM chunk_vectors WHERE {_LIVE}").fetchone()[0]
    return embedded, chunks - embedded


def pages_embedded(cur, page_embedder: str | None) -> tuple[int, int]:
    """Pages with page-image vectors by `page_embedder` (None: no embedder, none done)."""
    done = cur.execute(f"SELECT count(DISTINCT (doc_id, page)) FROM page_vectors WHERE {_LIVE} AND model = ?",
                       [page_embedder or ""]).fetchone()[0]
    return done, live_pages(cur) - done
