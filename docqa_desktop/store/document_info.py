"""What a library lists a document by: its title, authors and year (found by pdf/metadata.py), one row per
document, replaced when the heuristics that found them change."""
from __future__ import annotations

from ..domain import DocumentInfo, Word
from .catalog import LIVE_DOCUMENTS


def save(cur, doc_id: int, info: DocumentInfo, version: int) -> None:
    cur.execute("INSERT OR REPLACE INTO document_info (doc_id, title, authors, year, version) VALUES (?, ?, ?, ?, ?)",
                [doc_id, info.title, info.authors, info.year, version])


def undescribed(cur, version: int) -> list[tuple[int, str, bool]]:
    """(doc_id, a path holding it, whether its page 1 was read by OCR) of each live document without info of
    `version`: indexed before the table existed, or by older heuristics."""
    return cur.execute(
        "SELECT d.id, min(f.path), any_value(p.text_source = 'ocr') FROM documents d "
        "JOIN files f ON f.doc_id = d.id LEFT JOIN pages p ON p.doc_id = d.id AND p.page = 1 "
        "LEFT JOIN document_info i ON i.doc_id = d.id "
        f"WHERE d.id IN ({LIVE_DOCUMENTS}) AND (i.version IS NULL OR i.version <> ?) GROUP BY d.id ORDER BY d.id",
        [version]).fetchall()


def first_page_words(cur, doc_id: int) -> list[Word]:
    """Page 1's words with their lines, as stored (OCR words, where page 1 had no text layer)."""
    rows = cur.execute("SELECT text, x0, y0, x1, y1, line FROM words WHERE doc_id = ? AND page = 1 ORDER BY seq",
                       [doc_id]).fetchall()
    return [Word(text, (x0, y0, x1, y1), line) for text, x0, y0, x1, y1, line in rows]
