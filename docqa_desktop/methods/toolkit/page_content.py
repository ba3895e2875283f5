"""A page's content as methods read it: layout elements with their boxes and the page as Markdown in reading
order (sharp crops of regions, a table or a chart, for vision models come from the page port: Pages.crop).

Boxes are (x0, y0, x1, y1) in PDF points, origin top-left, as the layout stage stored them (index/layout.py).
Element kinds are the layout model's classes: text, section-header, title, table, picture, caption, formula,
list-item, footnote, code, page-header, page-footer.
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from ...answers import PageRef
from ...domain import BBox
from ..ports import Pages

# left out of the Markdown: running heads and page numbers repeat on every page and say nothing about it
DROPPED_KINDS = frozenset({"page-header", "page-footer"})
PICTURE_KINDS = frozenset({"picture"})


@dataclass(frozen=True)
class PageElement:
    seq: int  # position in the page's reading order (the key of its description)
    kind: str
    box: BBox
    markdown: str  # the stored text: tables as Markdown tables, empty for most pictures


def elements(pages: Pages, ref: PageRef, kinds: set[str] | None = None) -> list[PageElement]:
    """The page's layout elements in reading order, optionally of some kinds only; none when layout analysis
    was off or skipped for the page."""
    return [PageElement(seq, kind, box, text) for seq, kind, box, text in pages.layout(ref, kinds)]


def placeholder(page: int, element: PageElement) -> str:
    """The line standing for a picture in page_markdown; a description can replace it."""
    return f"[{element.kind} p.{page} #{element.seq}]"


def page_markdown(pages: Pages, ref: PageRef, descriptions: Mapping[int, str] | None = None) -> str:
    """The page in reading order as Markdown: headings as `## `, tables as Markdown tables, each picture as a
    placeholder line (followed by its description when `descriptions` has one for its seq), other text as
    paragraphs; page headers and footers are left out. A page whose elements carry no text (layout off or
    skipped, or a scan whose words came from OCR) gets its plain text after them. Raises PageGone when the
    page is no longer indexed."""
    plain = pages.text(ref, with_tables=False)
    blocks, has_text = [], False
    for element in elements(pages, ref):
        if element.kind in DROPPED_KINDS:
            continue
        text = element.markdown.strip()
        if element.kind in PICTURE_KINDS:
            text = _picture_text(text)
            described = (descriptions or {}).get(element.seq, "").strip()
            blocks.append(placeholder(ref.page, element) + (f"\n{described}" if described else ""))
            if text:  # words the layout pass found inside the picture
                blocks.append(text)
                has_text = True
            continue
        if not text:
            continue
        has_text = True
        if element.kind in ("section-header", "title"):
            blocks.append(("# " if element.kind == "title" else "## ") + _heading_text(text))
        else:
            blocks.append(text)
    if not has_text and plain.strip():
        blocks.append(plain.strip())
    return "\n\n".join(blocks)


def _picture_text(text: str) -> str:
    """Words the layout pass found inside a picture, without its HTML markers and line breaks."""
    text = re.sub(r"<!--.*?-->", "", text, flags=re.S)
    return "\n".join(line.strip() for line in re.split(r"<br\s*/?>|\n", text) if line.strip())


def _heading_text(text: str) -> str:
    """'# **Results**' -> 'Results': the layout pass writes its own heading level and emphasis."""
    text = re.sub(r"^#+\s*", "", " ".join(text.split()))
    bold = re.fullmatch(r"\*\*(.+)\*\*|__(.+)__", text)
    return (bold.group(1) or bold.group(2)).strip() if bold else text

