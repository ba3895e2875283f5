"""How tall the text in a region of a page stands: what a viewer zooms by so that a cited region reads at a
readable size on screen."""
from __future__ import annotations

import statistics

from ..domain import BBox


def text_height(words: list[tuple[str, BBox]], region: BBox) -> float | None:
    """The median height, in PDF points, of the words whose middle lies in `region` (a table cell's value, a
    quoted sentence's lines); None when no word does (a figure, a scan read without OCR). The median: a tall
    bracket or a superscript among the words does not set the size."""
    x0, y0, x1, y1 = region
    heights = [by1 - by0 for _, (bx0, by0, bx1, by1) in words
               if x0 <= (bx0 + bx1) / 2 <= x1 and y0 <= (by0 + by1) / 2 <= y1 and by1 > by0]
    return statistics.median(heights) if heights else None
