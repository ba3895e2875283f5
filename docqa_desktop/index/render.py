"""Page images on demand, and a disk cache of thumbnails keyed by document content."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pymupdf

from .pdf import PdfError, open_pdf

THUMBNAIL_SIDE = 256


def render_page(path: str, page: int, max_side: int = 1600) -> bytes:
    """PNG of a 1-based page, scaled so its longer side is `max_side` pixels."""
    try:
        doc = open_pdf(path)
    except PdfError as exc:
        raise PdfError(f"{path}: {exc}") from None
    with doc:
        if not 1 <= page <= doc.page_count:
            raise ValueError(f"{path}: page {page} out of range 1..{doc.page_count}")
        pdf_page = doc[page - 1]
        scale = max_side / max(pdf_page.rect.width, pdf_page.rect.height)
        pix = pdf_page.get_pixmap(matrix=pymupdf.Matrix(scale, scale), alpha=False)
        return pix.tobytes("png")


class ThumbnailCache:
    """Thumbnails under cache/thumbnails/<sha256>/<page>-<side>.png: shared by copies, dropped with the cache."""

    def __init__(self, folder: Path):
        self.folder = Path(folder)

    def get(self, sha256: str, path: str, page: int, side: int = THUMBNAIL_SIDE) -> Path:
        target = self.folder / sha256 / f"{page}-{side}.png"
        if not target.exists():
            data = render_page(path, page, side)
            target.parent.mkdir(parents=True, exist_ok=True)
            # write then rename: a reader never sees half a PNG, even with two renderers racing
            fd, tmp = tempfile.mkstemp(dir=target.parent, suffix=".part")
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            os.replace(tmp, target)
        return target
