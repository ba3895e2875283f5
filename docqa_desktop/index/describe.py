"""Each document's title, authors and year for the library's list (pdf/metadata.py finds them).

A new document gets them with its parse, in its own transaction; documents indexed before (or by older
heuristics: INFO_VERSION) get them at the next index run, a few milliseconds each (page 1 and the metadata only).
A file that cannot be read now keeps none and is tried again at the next run.
"""
from __future__ import annotations

import logging
import threading

from ..domain import DocumentInfo, ParsedPage, TextSource
from ..errors import DocumentError
from ..pdf.metadata import document_info
from ..store import document_info as stored
from ..store.database import Database

log = logging.getLogger(__name__)

INFO_VERSION = 3  # bump when pdf/metadata.py finds differently: every document is described again
COMMIT_EVERY = 50


def describe_parsed(cur, doc_id: int, path: str, first_page: ParsedPage | None) -> None:
    """Store the info of a document being written (inside its transaction)."""
    ocr = first_page.words if first_page and first_page.text_source == TextSource.OCR else None
    _save(cur, doc_id, path, ocr)


def describe_pending(db: Database, cancel: threading.Event) -> int:
    """Describe the documents without info of this version; returns how many were described."""
    todo = stored.undescribed(db.cursor(), INFO_VERSION)
    done = 0
    for start in range(0, len(todo), COMMIT_EVERY):
        if cancel.is_set():
            break
        with db.transaction() as cur:
            for doc_id, path, ocr in todo[start:start + COMMIT_EVERY]:
                done += _save(cur, doc_id, path, stored.first_page_words(cur, doc_id) if ocr else None)
    return done


def _save(cur, doc_id: int, path: str, ocr_words) -> bool:
    try:
        info = document_info(path, ocr_words)
    except (DocumentError, OSError) as exc:
        log.info("no title for %s: %s", path, exc)
        return False
    except Exception as exc:  # a heuristic tripped by an odd page must never cost the document its index
        log.warning("no title for %s: %s: %s", path, type(exc).__name__, exc)
        info = DocumentInfo()
    stored.save(cur, doc_id, info, INFO_VERSION)
    return True
