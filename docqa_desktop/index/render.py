"""Page images on demand, and a disk cache of thumbnails keyed by document content."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pymupdf

from ..files import write_atomically
from .pdf import PdfError, open_pdf

THUMBNAIL_SIDE = 256


@dataclass(frozen=True)
class RenderedPage:
    png: bytes
    width: float  # page size in PDF points: the scale for drawing boxes given in points
    height: float
    page_count: int


def render(path: str, page: int, max_width: int = 1600, max_height: int | None = None) -> RenderedPage:
    """A 1-based page as PNG, scaled to fit `max_width` x `max_height` pixels (a square by default)."""
    try:
        doc = open_pdf(path)
    except PdfError as exc:
        raise PdfError(f"{path}: {exc}") from None
    with doc:
        if not 1 <= page <= doc.page_count:
            raise ValueError(f"{path}: page {page} out of range 1..{doc.page_count}")
        pdf_page = doc[page - 1]
        rect = pdf_page.rect
        scale = min(max_width / rect.width, (max_height or max_width) / rect.height)
        pix = pdf_page.get_pixmap(matrix=pymupdf.Matrix(scale, scale), alpha=False)
        return RenderedPage(pix.tobytes("png"), rect.width, rect.height, doc.page_count)


def render_page(path: str, page: int, max_side: int = 1600) -> bytes:
    return render(path, page, max_side).png


class ThumbnailCache:
    """Thumbnails under cache/thumbnails/<sha256>/<page>-<side>.png: shared by copies, dropped with the cache."""

    def __init__(self, folder: Path):
        self.folder = Path(folder)

    def get(self, sha256: str, path: str, page: int, side: int = THUMBNAIL_SIDE) -> Path:
        target = self.folder / sha256 / f"{page}-{side}.png"
        if not target.exists():
            data = render_page(path, page, side)
            target.parent.mkdir(parents=True, exist_ok=True)
            write_atomically(target, data)  # two renderers may race: each reader sees a whole PNG
        return target
