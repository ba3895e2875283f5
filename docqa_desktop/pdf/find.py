"""Find in a document: where a text occurs among a page's words (its text layer's, or OCR's on a scanned page),
as the boxes a viewer highlights."""
from __future__ import annotations

import bisect
from dataclasses import dataclass

from ..domain import BBox

Match = tuple[BBox, ...]  # one occurrence: a box per line it spans, in PDF points


@dataclass(frozen=True)
class PageMatches:
    page: int  # 1-based
    matches: tuple[Match, ...]  # in reading order


def wanted_text(text: str) -> str:
    """What is looked for: case ignored, and any run of spaces or line breaks read as one space (a phrase may
    break across lines)."""
    return " ".join(text.lower().split())


def might_contain(page_text: str, wanted: str) -> bool:
    """A quick test on a page's whole text: every word of `wanted` is in it. Never False for a page where
    find_in_words finds `wanted`, so only the pages it passes need their words read."""
    lowered = page_text.lower()
    return all(part in lowered for part in wanted.split())


def find_in_words(words: list[tuple[str, BBox]], wanted: str) -> tuple[Match, ...]:
    """Each occurrence of `wanted` (as wanted_text gives it) in the words read in order, one space between them,
    a match inside a word included ("ferry" in "ferryman"): the part of each word it covers (a word's box shared
    out evenly among its letters), joined into one box per line."""
    texts, boxes, starts = [], [], []
    at = 0
    for text, box in words:
        text = wanted_text(text)
        if text:
            texts.append(text)
            boxes.append(box)
            starts.append(at)
            at += len(text) + 1
    line = " ".join(texts)
    found = []
    start = line.find(wanted) if wanted else -1
    while start >= 0:
        end = start + len(wanted)
        parts = []
        for i in range(bisect.bisect_right(starts, start) - 1, len(texts)):
            if starts[i] >= end:
                break
            letters = len(texts[i])
            parts.append(_covered(boxes[i], letters, max(start - starts[i], 0), min(end - starts[i], letters)))
        found.append(_by_line(parts))
        start = line.find(wanted, end)
    return tuple(found)


def _covered(box: BBox, letters: int, first: int, last: int) -> BBox:
    """The part of a word's box from letter `first` up to `last` (not included)."""
    x0, y0, x1, y1 = box
    per_letter = (x1 - x0) / letters
    return (x0 + first * per_letter, y0, x0 + last * per_letter, y1)


def _by_line(parts: list[BBox]) -> Match:
    """Word parts joined into one box while the next stands beside the last (their heights overlap by half)."""
    joined: list[BBox] = []
    for box in parts:
        if joined and _same_line(joined[-1], box):
            x0, y0, x1, y1 = joined[-1]
            joined[-1] = (min(x0, box[0]), min(y0, box[1]), max(x1, box[2]), max(y1, box[3]))
        else:
            joined.append(box)
    return tuple(joined)


def _same_line(a: BBox, b: BBox) -> bool:
    """Their heights overlap by half; or, both taller than wide, their widths do (a line running up or down the
    page as shown: pdf/orientation.py)."""
    overlap = min(a[3], b[3]) - max(a[1], b[1])
    if overlap > 0.5 * min(a[3] - a[1], b[3] - b[1]):
        return True
    if all(box[3] - box[1] > box[2] - box[0] for box in (a, b)):
        return min(a[2], b[2]) - max(a[0], b[0]) > 0.5 * min(a[2] - a[0], b[2] - b[0])
    return False
