"""Page 1 as lines of text with their size and place: what the title, author and year heuristics read
(pdf/metadata.py).

From the text layer a line's size is its font size, superscripts (footnote and affiliation marks) left out of
its text and kept as breaks between its parts; from OCR words (a scanned cover, a slide) it is the height of the
words' boxes. Only the proportions between lines matter, so the two compare alike.
"""
from __future__ import annotations

import re
import statistics
from dataclasses import dataclass

import pymupdf

from ..domain import Word

SUPERSCRIPT = 1  # pymupdf span flag
MARK_SIZE = 0.8  # a span smaller than this share of its line's largest is a mark (¹, †, a) between names
GAP_EMS = 1.0  # words further apart than this many line heights are separate parts (names in a row)
SPACE_EMS = 0.15  # spans further apart than this share of their size have a space between them
RAISED = 0.2  # a smaller span whose baseline is raised by this share of the line's size is a superscript
SPARSE_PAGE_CHARS = 200
PARTS = re.compile(r"\s{2,}")  # a run of spaces inside one span also separates parts


@dataclass(frozen=True, slots=True)
class Line:
    text: str  # marks left out
    parts: tuple[str, ...]  # the text cut at marks and wide gaps: one name each, in an author line
    size: float  # font size (text layer) or word height (OCR)
    top: float
    bottom: float


def text_layer_lines(page: pymupdf.Page) -> list[Line]:
    """The horizontal lines of the page's text layer, top to bottom."""
    lines = []
    for block in page.get_text("dict", flags=pymupdf.TEXT_MEDIABOX_CLIP)["blocks"]:
        for raw in block.get("lines", ()):
            if abs(raw["dir"][1]) > 0.01:
                continue  # vertical text: an arXiv stamp in the margin, an axis title
            spans = [s for s in raw["spans"] if s["text"].strip()]
            if not spans:
                continue
            size = max(s["size"] for s in spans)
            baseline = max(s["origin"][1] for s in spans if s["size"] == size)
            parts, current, right = [], "", None
            for span in spans:
                if _is_mark(span, size, baseline):
                    parts.append(current)
                    current, right = "", None
                    continue
                if right is not None and span["bbox"][0] - right > SPACE_EMS * span["size"]:
                    current += " "  # words set as separate spans, without a space character between them
                current += span["text"]
                right = span["bbox"][2]
            parts.append(current)
            lines.append(_line(parts, size, raw["bbox"][1], raw["bbox"][3]))
    return _top_down(lines)


def _is_mark(span: dict, size: float, baseline: float) -> bool:
    """A superscript: flagged so, or smaller and raised (small capitals are smaller but sit on the baseline)."""
    if span["flags"] & SUPERSCRIPT:
        return True
    return span["size"] < MARK_SIZE * size and baseline - span["origin"][1] > RAISED * size


def ocr_lines(words: list[Word]) -> list[Line]:
    """Lines of OCR words (Word.line groups them), each sized by its words' median height."""
    grouped: dict[int, list[Word]] = {}
    for word in words:
        grouped.setdefault(word.line, []).append(word)
    lines = []
    for group in grouped.values():
        height = statistics.median(w.bbox[3] - w.bbox[1] for w in group)
        parts, current, right = [], [], None
        for word in sorted(group, key=lambda w: w.bbox[0]):
            if right is not None and word.bbox[0] - right > GAP_EMS * height:
                parts.append(" ".join(current))
                current = []
            current.append(word.text)
            right = word.bbox[2]
        parts.append(" ".join(current))
        lines.append(_line(parts, height, min(w.bbox[1] for w in group), max(w.bbox[3] for w in group)))
    return _top_down(lines)


def _line(raw_parts: list[str], size: float, top: float, bottom: float) -> Line:
    parts = tuple(p.strip() for raw in raw_parts for p in PARTS.split(raw) if p.strip())
    return Line(" ".join(parts), parts, size, top, bottom)


def _top_down(lines: list[Line]) -> list[Line]:
    return sorted((line for line in lines if line.text), key=lambda line: (round(line.top), line.top))


def body_size(lines: list[Line]) -> float:
    """The size most of the page's characters are set in; on a page of a few lines (a cover, a slide), the
    smallest, so that its largest type still stands out."""
    if sum(len(line.text) for line in lines) < SPARSE_PAGE_CHARS:
        return min((line.size for line in lines), default=0.0)
    half, seen = sum(len(line.text) for line in lines) / 2, 0
    for line in sorted(lines, key=lambda line: line.size):  # the median character's size
        seen += len(line.text)
        if seen >= half:
            return line.size
    return 0.0
