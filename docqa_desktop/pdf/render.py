"""Page images on demand, and a disk cache of thumbnails keyed by document content."""
from __future__ import annotations

import contextlib
import math
from dataclasses import dataclass
from pathlib import Path

import pymupdf

from ..files import write_atomically
from .document import PdfError, open_pdf

THUMBNAIL_SIDE = 256
# Regions are rendered at most 4 pixels per point (288 dpi): past that a born-digital page only gets blurrier
# and a scanned one has no more detail to give, while the pixels (and a vision model's image tokens) keep growing.
MAX_REGION_ZOOM = 4.0


@dataclass(frozen=True)
class RenderedPage:
    png: bytes
    width: float  # page size in PDF points: the scale for drawing boxes given in points
    height: float
    page_count: int


@contextlib.contextmanager
def _page(path: str, page: int):
    """A 1-based page of the PDF at `path`, open for the duration; errors name the file."""
    try:
        doc = open_pdf(path)
    except PdfError as exc:
        raise PdfError(f"{path}: {exc}") from None
    with doc:
        if not 1 <= page <= doc.page_count:
            raise ValueError(f"{path}: page {page} out of range 1..{doc.page_count}")
        yield doc[page - 1]


def render(path: str, page: int, max_width: int = 1600, max_height: int | None = None) -> RenderedPage:
    """A 1-based page as PNG, scaled to fit `max_width` x `max_height` pixels (a square by default)."""
    with _page(path, page) as pdf_page:
        rect = pdf_page.rect
        scale = min(max_width / rect.width, (max_height or max_width) / rect.height)
        pix = pdf_page.get_pixmap(matrix=pymupdf.Matrix(scale, scale), alpha=False)
        return RenderedPage(pix.tobytes("png"), rect.width, rect.height, pdf_page.parent.page_count)


@dataclass(frozen=True)
class RenderedRegion:
    png: bytes
    box: tuple[float, float, float, float]  # the region rendered (the box clipped to the page), in PDF points
    zoom: float  # pixels per PDF point
    width: int  # pixels
    height: int


def render_region(path: str, page: int, box: tuple[float, float, float, float], max_pixels: int,
                  max_zoom: float = MAX_REGION_ZOOM) -> RenderedRegion:
    """A region of a 1-based page as PNG, as sharp as `max_pixels` pixels allow (at most `max_zoom` pixels per
    point). `box` is x0, y0, x1, y1 in PDF points, origin top-left, in the page as shown (its /Rotate applied:
    pdf/orientation.py), where words, tables and layout elements are stored; it is clipped to the page, and a box
    with nothing of the page inside raises ValueError."""
    with _page(path, page) as pdf_page:
        clip = pymupdf.Rect(box) & pdf_page.rect
        if clip.is_empty or clip.width < 0.5 or clip.height < 0.5:
            raise ValueError(f"{path}: box {tuple(round(v, 1) for v in box)} has nothing of page {page} "
                             f"(0, 0, {pdf_page.rect.width:.0f}, {pdf_page.rect.height:.0f}) inside")
        if max_pixels < 1:
            raise ValueError(f"max_pixels must be positive, not {max_pixels}")
        zoom = _region_zoom(clip, max_pixels, max_zoom)
        pix = pdf_page.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), clip=clip, alpha=False)
        return RenderedRegion(pix.tobytes("png"), tuple(clip), zoom, pix.width, pix.height)


def _region_zoom(clip: pymupdf.Rect, max_pixels: int, max_zoom: float) -> float:
    """The largest zoom (at most max_zoom) at which the clip renders to at most max_pixels pixels. mupdf rounds
    the scaled clip outwards to whole pixels (what Rect.round() computes), so the zoom that gives exactly
    max_pixels of area can give a pixel row or column too many: the largest one that fits is searched for."""
    def pixels(z: float) -> int:
        size = (clip * pymupdf.Matrix(z, z)).round()
        return size.width * size.height

    high = min(max_zoom, math.sqrt(max_pixels / (clip.width * clip.height)))
    if pixels(high) <= max_pixels:
        return high
    low = high * 0.5
    while pixels(low) > max_pixels and low > 1e-4:
        low *= 0.5
    for _ in range(40):
        middle = (low + high) / 2
        low, high = (middle, high) if pixels(middle) <= max_pixels else (low, middle)
    return low


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
