"""DocLens's Element Localizer (paper §3.1): the figures, charts and tables of the chosen pages, sharp.

A vision model gets each page's screenshot followed by crops of its largest picture and table elements
(rendered from the PDF at up to `crop_pixels`), announced in the page's text under the paper's
"---- Zoomed-in Figures and Charts of this page ----". A text model cannot look at a crop: the page's
Markdown already holds its tables, and each picture's placeholder is followed by its description (written
earlier by a vision model, else the OCR or text-layer words inside the picture's box). Every crop and
description is noted in the answer's trace.
"""
from __future__ import annotations

from dataclasses import dataclass

from ...answers import PageRef
from ..base import MethodContext
from ..base import PageGone
from ..toolkit import page_content
from ..toolkit.page_content import PageElement

ZOOM_KINDS = {"picture", "table"}
ZOOM_HEADER = "---- Zoomed-in Figures and Charts of this page ----"
MIN_AREA_SHARE = 0.02  # an element smaller than 2 % of the page (a logo, an icon) is not worth a crop


@dataclass(frozen=True)
class PageEvidence:
    ref: PageRef
    text: str  # the page as Markdown, with picture descriptions (text model) or the list of its crops
    images: tuple[bytes, ...]  # its screenshot then its crops (vision model); empty for a text model


def localize(ctx: MethodContext, ref: PageRef, vision: bool, elements: list[PageElement]) -> PageEvidence:
    """The page's evidence for the Answer Sampler, zooming into `elements` (zoom_elements): crops for a vision
    model, descriptions of the pictures among them for a text model."""
    if not vision:
        return PageEvidence(ref, ctx.described_markdown(ref, elements), ())
    images = [ctx.pages.image(ref, ctx.image_side)]
    listed = []
    for element in elements:
        images.append(ctx.pages.crop(ref, element.box, ctx.settings.crop_pixels))
        listed.append(f"- image {len(images) - 1} after the screenshot: {element.kind} #{element.seq}")
        ctx.answer.notes.append(f"crop {_name(ref, element)} at up to {ctx.settings.crop_pixels:,} pixels")
    text = page_content.page_markdown(ctx.pages, ref)
    if listed:
        text += f"\n{ZOOM_HEADER}\n" + "\n".join(listed)
    return PageEvidence(ref, text, tuple(images))


def zoom_elements(ctx: MethodContext, ref: PageRef, limit: int) -> list[PageElement]:
    """The page's `limit` largest pictures and tables (each at least MIN_AREA_SHARE of the page), in
    reading order."""
    if limit <= 0:
        return []
    try:
        width, height = ctx.pages.size(ref)
    except PageGone:
        return []
    candidates = [e for e in page_content.elements(ctx.pages, ref, ZOOM_KINDS)
                  if _area(e) >= MIN_AREA_SHARE * width * height]
    largest = sorted(candidates, key=_area, reverse=True)[:limit]
    return sorted(largest, key=lambda e: e.seq)


def _area(element: PageElement) -> float:
    x0, y0, x1, y1 = element.box
    return max(0.0, x1 - x0) * max(0.0, y1 - y0)


def _name(ref: PageRef, element: PageElement) -> str:
    return f"{ref.doc} p.{ref.page} {element.kind} #{element.seq}"
