"""A short passage of a page that shows why it matched."""
from __future__ import annotations

import re

from ..domain import BBox
from ..store.keywords import stopwords

_WORD = re.compile(r"\w+", re.UNICODE)


def stem(word: str) -> str:
    return word.lower()[:5]  # crude, stemmer-free match: "revenues" ~ "revenue"


def query_stems(query: str) -> set[str]:
    """The stems a page's words are matched against: the query's words of three letters or more, stopwords
    ("what", "which") left out as the keyword index leaves them out."""
    return {stem(w) for w in _WORD.findall(query) if len(w) > 2 and w.lower() not in stopwords()}


def holds(text: str, wanted: set[str]) -> bool:
    """Whether a word of `text` (a page's word, with its punctuation) has one of the `wanted` stems."""
    return any(stem(t) in wanted for t in _WORD.findall(text))


def matching_words(words: list[tuple[str, BBox]], query: str) -> list[BBox]:
    """The boxes of `words` (text, box) holding a word of the query, as best_window counts them."""
    wanted = query_stems(query)
    return [box for text, box in words if holds(text, wanted)]


def matched_words(text: str, query: str) -> frozenset[str]:
    """The words of `text` (lower case) that match a word of the query."""
    wanted = query_stems(query)
    return frozenset(w.lower() for w in _WORD.findall(text) if stem(w) in wanted)


def best_window(text: str, query: str, width: int = 30) -> str:
    """The `width`-word window of `text` holding the most distinct query words."""
    words = text.split()
    if len(words) <= width:
        return " ".join(words)
    wanted = query_stems(query)
    matched: dict[str, bool] = {}  # pages repeat their words: each distinct one is tokenised once
    hits = []
    for w in words:
        hit = matched.get(w)
        if hit is None:
            hit = matched[w] = holds(w, wanted)
        hits.append(hit)
    best_start, best_score, score = 0, -1, sum(hits[:width])
    for start in range(0, len(words) - width + 1):
        if start:
            score += hits[start + width - 1] - hits[start - 1]
        if score > best_score:
            best_start, best_score = start, score
    snippet = " ".join(words[best_start:best_start + width])
    prefix = "… " if best_start else ""
    suffix = " …" if best_start + width < len(words) else ""
    return prefix + snippet + suffix
