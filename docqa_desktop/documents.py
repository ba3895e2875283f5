"""The kinds of file the library reads, in one table: each suffix with its opener.

The scanner and the watcher (which files to index), the library panel (which dropped files to take), the page
viewer (what to call the file), the exports (opening a cited page) and an evaluation's corpus all ask here, so a
new kind (.docx, .html) is one row of DOCUMENT_OPENERS and its opener. An opener returns what the engines read
pages from, a pymupdf.Document, and raises a DocumentError that says why when the file cannot be read. The index
opens documents only here (tests/test_layers.py holds that seam).
"""
from __future__ import annotations

import os
from typing import Callable

import pymupdf

from .errors import DocumentError
from .pdf.document import open_pdf

Opener = Callable[[str], pymupdf.Document]

# suffix (lower case, with its dot) -> opener; everything else that decides "is this a document" derives from it
DOCUMENT_OPENERS: dict[str, Opener] = {
    ".pdf": open_pdf,
}


class UnsupportedDocument(DocumentError, ValueError):
    """A file of a kind no row of DOCUMENT_OPENERS reads; the message names the file and the kinds that are read."""


def document_suffixes() -> tuple[str, ...]:
    """The suffixes the library reads, ('.pdf',): read from the table each time, so a row added later counts."""
    return tuple(DOCUMENT_OPENERS)


def _suffix(path: str | os.PathLike) -> str | None:
    # endswith, not splitext: a file named just ".pdf" counted before, and a suffix may hold two dots (".tar.gz")
    lower = os.fspath(path).lower()
    return next((suffix for suffix in DOCUMENT_OPENERS if lower.endswith(suffix)), None)


def is_document(path: str | os.PathLike) -> bool:
    """Whether the file's name is of a kind the library reads (the name only: the file is not opened)."""
    return _suffix(path) is not None


def _known_suffix(path: str | os.PathLike) -> str:
    suffix = _suffix(path)
    if suffix is None:
        name = os.fspath(path)
        kind = os.path.splitext(name)[1]
        why = f"{kind} files are not read" if kind else "a file without a suffix is not read"
        raise UnsupportedDocument(f"cannot open {name}: {why}; the library reads {', '.join(document_suffixes())} "
                                  "files")
    return suffix


def open_document(path: str | os.PathLike) -> pymupdf.Document:
    """The document opened by its kind's opener; UnsupportedDocument for a kind the library does not read, the
    opener's own DocumentError (PdfError for a PDF) for a file of that kind it cannot read."""
    return DOCUMENT_OPENERS[_known_suffix(path)](os.fspath(path))


def document_kind(path: str | os.PathLike) -> str:
    """The kind as the user is told it: "PDF" (its suffix, upper case); UnsupportedDocument for another kind."""
    return _known_suffix(path).lstrip(".").upper()
