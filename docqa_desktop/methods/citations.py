"""Citations that can be checked: the quote is text found on the page, with its box (or, on a page without
text that page-image search found, the region it matched).

A model's "quote" is often a paraphrase; we look for it among the page's words and cite what is really
there (the exact span when it matches, otherwise the window of words that overlaps it most).
"""
from __future__ import annotations

import re

from ..answers import Citation, PageRef
from ..errors import PageGone
from .ports import Pages

MIN_WINDOW, MAX_WINDOW = 6, 40  # words in a cited span
_TOKEN = re.compile(r"[a-z0-9]+")


def cite(source: Pages, evidence: list[tuple[PageRef, str]], answer_text: str,
         pages_seen: list[PageRef]) -> list[Citation]:
    """Citations for (page, quote) pairs the model gave; pages it never saw are dropped. With no usable
    evidence, the seen page whose words best match the answer is cited."""
    seen = {ref.key() for ref in pages_seen}
    citations, cited = [], set()
    for ref, quote in evidence:
        if ref.key() not in seen or (ref.key(), quote) in cited:
            continue
        citation = _locate(source, ref, quote or answer_text)
        if citation is not None:
            citations.append(citation)
            cited.add((ref.key(), quote))
    if not citations and answer_text.strip():
        best = max((c for c in (_locate(source, ref, answer_text) for ref in pages_seen) if c is not None),
                   key=lambda c: _overlap(_tokens(c.quote), set(_tokens(answer_text))), default=None)
        if best is not None:
            citations.append(best)
    return citations


def _locate(source: Pages, ref: PageRef, target: str) -> Citation | None:
    try:
        words = source.words(ref)
    except PageGone:
        return None
    if not words:  # a picture without text: the region page-image search matched, if it found the page
        return _region_citation(source, ref)
    wanted = _tokens(target)
    normalised = [" ".join(_tokens(w)) for w, _ in words]
    start, end = _exact_span(normalised, wanted) or _best_window(normalised, set(wanted), len(wanted))
    span = words[start:end]
    boxes = [box for _, box in span if box and None not in box]
    bbox = (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes),
            max(b[3] for b in boxes)) if boxes else None
    return Citation(ref.doc, ref.path, ref.page, ref.label, " ".join(w for w, _ in span), bbox)


def _region_citation(source: Pages, ref: PageRef) -> Citation | None:
    if ref.region is None:
        return None
    try:
        width, height = source.size(ref)
    except PageGone:
        return None
    x0, y0, x1, y1 = ref.region
    return Citation(ref.doc, ref.path, ref.page, ref.label, "", (x0 * width, y0 * height, x1 * width, y1 * height))


def _exact_span(words: list[str], wanted: list[str]) -> tuple[int, int] | None:
    if not wanted:
        return None
    flat, owner = [], []
    for i, word in enumerate(words):
        for token in word.split():
            flat.append(token)
            owner.append(i)
    n = len(wanted)
    for i in range(len(flat) - n + 1):
        if flat[i:i + n] == wanted:
            return owner[i], owner[i + n - 1] + 1
    return None


def _best_window(words: list[str], wanted: set[str], length: int) -> tuple[int, int]:
    size = max(MIN_WINDOW, min(MAX_WINDOW, length))
    best, best_score = (0, min(size, len(words))), -1
    for start in range(max(1, len(words) - size + 1)):
        score = _overlap(" ".join(words[start:start + size]).split(), wanted)
        if score > best_score:
            best, best_score = (start, min(len(words), start + size)), score
    return best


def _overlap(tokens: list[str], wanted: set[str]) -> int:
    return len(set(tokens) & wanted)


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())
