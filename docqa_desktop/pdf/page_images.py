"""Page images sized for the page embedder: rendered at the zoom that fills its visual-token budget."""
from __future__ import annotations

import math
from collections.abc import Iterable, Iterator

import pymupdf
from PIL import Image

from .document import PdfError, open_pdf

PIXELS_PER_TOKEN = 28 * 28  # a visual token covers a 2x2 block of 14-pixel patches


def zoom_for(width_pt: float, height_pt: float, visual_tokens: int) -> float:
    """Pixels per PDF point whose image holds about `visual_tokens` tokens: rendering larger only for the
    processor to shrink it again wastes time."""
    return math.sqrt(visual_tokens * PIXELS_PER_TOKEN / max(1.0, width_pt * height_pt))


def page_images(path: str, pages: Iterable[int], visual_tokens: int) -> Iterator[tuple[int, Image.Image]]:
    """(1-based page, RGB image) for each requested page."""
    try:
        doc = open_pdf(path)
    except PdfError as exc:
        raise PdfError(f"{path}: {exc}") from None
    with doc:
        for number in pages:
            page = doc[number - 1]
            zoom = zoom_for(page.rect.width, page.rect.height, visual_tokens)
            pix = page.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), alpha=False)
            yield number, Image.frombytes("RGB", (pix.width, pix.height), pix.samples)
