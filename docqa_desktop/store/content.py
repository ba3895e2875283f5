"""Per-page content of a document: pages, words, layout elements, chunks with embeddings."""
from __future__ import annotations

import numpy as np
import pyarrow as pa

from ..domain import ParsedPage, TextSource, Word
from . import enrichment, versions
from .catalog import listed


def insert_document(cur, *, sha256: str, size: int, title: str | None, page_count: int,
                    parser_version: int) -> int:
    return cur.execute(
        "INSERT INTO documents (sha256, size, pages, title, parser_version) VALUES (?, ?, ?, ?, ?) RETURNING id",
        [sha256, size, page_count, title, parser_version]).fetchone()[0]


def insert_pages(db, cur, doc_id: int, pages: list[ParsedPage]) -> None:
    """Write a batch of parsed pages (called repeatedly inside one document transaction)."""
    if not pages:
        return
    db.insert_arrow(cur, "pages", pa.table({
        "doc_id": pa.array([doc_id] * len(pages), pa.int64()),
        "page": pa.array([p.number for p in pages], pa.int32()),
        "label": [p.label for p in pages],
        "width": pa.array([p.width for p in pages], pa.float32()),
        "height": pa.array([p.height for p in pages], pa.float32()),
        "text": [p.text for p in pages],
        "text_source": [p.text_source.value for p in pages],
    }))
    words = [(p.number, i, w) for p in pages for i, w in enumerate(p.words)]
    db.insert_arrow(cur, "words", pa.table({
        "doc_id": pa.array([doc_id] * len(words), pa.int64()),
        "page": pa.array([n for n, _, _ in words], pa.int32()),
        "seq": pa.array([i for _, i, _ in words], pa.int32()),
        "line": pa.array([w.line for _, _, w in words], pa.int32()),
        "text": [w.text for _, _, w in words],
        **box_columns([w.bbox for _, _, w in words]),
    }))
    insert_elements(db, cur, doc_id, {p.number: p.elements for p in pages})


def insert_elements(db, cur, doc_id: int, by_page: dict) -> None:
    """Layout elements, {page number: [Element]}, in reading order per page."""
    elements = [(number, i, e) for number, found in by_page.items() for i, e in enumerate(found)]
    db.insert_arrow(cur, "elements", pa.table({
        "doc_id": pa.array([doc_id] * len(elements), pa.int64()),
        "page": pa.array([n for n, _, _ in elements], pa.int32()),
        "seq": pa.array([i for _, i, _ in elements], pa.int32()),
        "kind": [e.kind for _, _, e in elements],
        **box_columns([e.bbox for _, _, e in elements]),
        "text": [e.text for _, _, e in elements],
    }))


def insert_chunks(db, cur, doc_id: int, chunks) -> None:
    """Chunks without embeddings: those are added by a later, resumable pass (see pending_chunks)."""
    if not chunks:
        return
    versions.bump(cur, versions.CHUNKS)
    db.insert_arrow(cur, "chunks", pa.table({
        "doc_id": pa.array([doc_id] * len(chunks), pa.int64()),
        "page": pa.array([c.page for c in chunks], pa.int32()),
        "seq": pa.array([c.seq for c in chunks], pa.int32()),
        "text": [c.text for c in chunks],
    }))


def pending_chunks(cur) -> list[int]:
    """Ids of the chunks still waiting for an embedding, in the background passes' document order."""
    return [i for (i,) in cur.execute(
        f"SELECT c.id FROM chunks c JOIN ({enrichment.PRIORITY}) o ON o.doc_id = c.doc_id "
        "WHERE c.id NOT IN (SELECT id FROM chunk_vectors) ORDER BY o.rank, c.id").fetchall()]


def chunk_texts(cur, chunk_ids: list[int]) -> list[str]:
    """The chunks' texts, in the order of `chunk_ids` (each must exist)."""
    texts = dict(cur.execute(f"SELECT id, text FROM chunks WHERE id IN ({listed(chunk_ids)})").fetchall())
    return [texts[i] for i in chunk_ids]


def set_embeddings(db, cur, chunk_ids: list[int], vectors: np.ndarray) -> None:
    batch = pa.table({
        "id": pa.array(chunk_ids, pa.int64()),
        "embedding": pa.FixedSizeListArray.from_arrays(
            pa.array(np.ascontiguousarray(vectors, dtype=np.float32).ravel()), vectors.shape[1]),
    })
    versions.bump(cur, versions.CHUNKS)
    cur.register("_vectors", batch)
    try:
        # the id list lets DuckDB look the chunks up instead of joining the whole table
        cur.execute("INSERT INTO chunk_vectors SELECT c.id, c.doc_id, c.page, v.embedding FROM _vectors v "
                    f"JOIN chunks c ON c.id = v.id WHERE c.id IN ({listed(chunk_ids)})")
    finally:
        cur.unregister("_vectors")


def box_columns(boxes) -> dict:
    arr = np.asarray(boxes, dtype=np.float32).reshape(-1, 4)
    return {name: pa.array(arr[:, i]) for i, name in enumerate(("x0", "y0", "x1", "y1"))}


POINT_LOOKUPS = 20  # up to this many pages, one index lookup each: 8 ms for 10 of 100,000 pages instead of 24


def page_texts(cur, pages: list[tuple[int, int]]) -> dict[tuple[int, int], str]:
    """{(doc_id, page): text} in one query. A few pages are looked up one by one through the (doc_id, page) index,
    joined by UNION ALL; more are read by document, as a filter over the table, which decompresses the text of
    every row near a wanted one: its cost grows slowly with the pages wanted, a lookup's by ~0.8 ms a page."""
    wanted = list(dict.fromkeys(pages))
    if not wanted:
        return {}
    if len(wanted) <= POINT_LOOKUPS:
        sql = " UNION ALL ".join(f"SELECT doc_id, page, text FROM pages WHERE doc_id = {int(d)} AND page = {int(p)}"
                                 for d, p in wanted)
    else:
        sql = f"SELECT doc_id, page, text FROM pages WHERE doc_id IN ({listed(d for d, _ in wanted)})"
    keep = set(wanted)
    return {(d, p): t for d, p, t in cur.execute(sql).fetchall() if (d, p) in keep}


def page_text(cur, doc_id: int, page: int) -> str | None:
    row = cur.execute("SELECT text FROM pages WHERE doc_id = ? AND page = ?", [doc_id, page]).fetchone()
    return row[0] if row else None


def chunk_embeddings(cur, chunk_ids: list[int]) -> dict[int, np.ndarray]:
    """{chunk id: float32 embedding} of those that have one."""
    if not chunk_ids:
        return {}
    rows = cur.execute(f"SELECT id, embedding FROM chunk_vectors WHERE id IN ({listed(chunk_ids)})").fetchall()
    return {i: np.asarray(v, np.float32) for i, v in rows}


def chunks_by_id(cur, chunk_ids: list[int]) -> dict[int, tuple[int, int, str]]:
    """{chunk id: (doc_id, page, text)}."""
    if not chunk_ids:
        return {}
    rows = cur.execute("SELECT id, doc_id, page, text FROM chunks WHERE id IN (SELECT unnest(?::BIGINT[]))",
                       [list(chunk_ids)]).fetchall()
    return {i: (d, p, t) for i, d, p, t in rows}


def chunks_of_pages(cur, pages: list[tuple[int, int]]) -> list[tuple[int, int, int, str]]:
    """(chunk id, doc_id, page, text) of every chunk on the given (doc_id, page) pages."""
    if not pages:
        return []
    return cur.execute(
        "SELECT c.id, c.doc_id, c.page, c.text FROM chunks c JOIN (SELECT unnest(?::BIGINT[]) AS doc_id, "
        "unnest(?::INTEGER[]) AS page) w ON c.doc_id = w.doc_id AND c.page = w.page ORDER BY c.id",
        [[d for d, _ in pages], [p for _, p in pages]]).fetchall()


def page_labels(cur, pages: list[tuple[int, int]]) -> dict[tuple[int, int], str]:
    """{(doc_id, page): printed label}."""
    if not pages:
        return {}
    return {(d, p): label for d, p, label in cur.execute(
        "SELECT doc_id, page, label FROM pages WHERE (doc_id, page) IN "
        "(SELECT (unnest(?::BIGINT[]), unnest(?::INTEGER[])))",
        [[d for d, _ in pages], [p for _, p in pages]]).fetchall()}


def page_tables(cur, doc_id: int, page: int) -> list[str]:
    """The Markdown of the page's non-empty tables, in reading order."""
    return [t for (t,) in cur.execute(
        "SELECT text FROM elements WHERE doc_id = ? AND page = ? AND kind = 'table' ORDER BY seq",
        [doc_id, page]).fetchall() if t.strip()]


def page_size(cur, doc_id: int, page: int) -> tuple[float, float] | None:
    """(width, height) in PDF points."""
    return cur.execute("SELECT width, height FROM pages WHERE doc_id = ? AND page = ?", [doc_id, page]).fetchone()


def text_sources(cur, doc_id: int) -> dict[int, TextSource]:
    """{page: where its text came from}: the PDF's text layer, OCR, or nowhere."""
    return {page: TextSource(source) for page, source in cur.execute(
        "SELECT page, text_source FROM pages WHERE doc_id = ? ORDER BY page", [doc_id]).fetchall()}


def page_word_boxes(cur, doc_id: int, page: int) -> list[Word]:
    """The page's words with their boxes and line numbers, in reading order."""
    return [Word(text, (x0, y0, x1, y1), line) for text, x0, y0, x1, y1, line in cur.execute(
        "SELECT text, x0, y0, x1, y1, line FROM words WHERE doc_id = ? AND page = ? ORDER BY seq",
        [doc_id, page]).fetchall()]


def page_words(cur, doc_id: int, page: int) -> list[tuple[str, tuple[float, float, float, float]]]:
    rows = cur.execute("SELECT text, x0, y0, x1, y1 FROM words WHERE doc_id = ? AND page = ? ORDER BY seq",
                       [doc_id, page]).fetchall()
    return [(t, (x0, y0, x1, y1)) for t, x0, y0, x1, y1 in rows]


def pages_in_scope(cur, doc_ids: list[int] | None) -> list[tuple[int, int]]:
    """(doc_id, page) of every page of the live documents among `doc_ids` (None: the whole library), in
    document then page order."""
    scope = "" if doc_ids is None else " AND p.doc_id IN (SELECT unnest(?::BIGINT[]))"
    return cur.execute(
        f"SELECT p.doc_id, p.page FROM pages p WHERE p.doc_id IN (SELECT doc_id FROM files "
        f"WHERE doc_id IS NOT NULL){scope} ORDER BY p.doc_id, p.page",
        [] if doc_ids is None else [list(doc_ids)]).fetchall()
