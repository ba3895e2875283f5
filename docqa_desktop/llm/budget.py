"""Fitting page text into a context window: trim one text, or share a token budget between pages."""
from __future__ import annotations

from typing import Callable, Protocol

TRIM_MARK = " […]"


class TokenCounter(Protocol):
    def count_tokens(self, text: str) -> int: ...


def trim_to_tokens(counter: TokenCounter, text: str, limit: int) -> str:
    """`text` cut (at a word boundary, marked) so it counts at most `limit` tokens."""
    if limit <= 0:
        return ""
    if counter.count_tokens(text) <= limit:
        return text
    words = text.split()
    low, high = 0, len(words)  # binary search on the number of words kept
    while low < high:
        middle = (low + high + 1) // 2
        if counter.count_tokens(" ".join(words[:middle]) + TRIM_MARK) <= limit:
            low = middle
        else:
            high = middle - 1
    return " ".join(words[:low]) + TRIM_MARK if low else ""


def share_budget(counter: TokenCounter, texts: list[str], budget: int,
                 trim: Callable[[TokenCounter, str, int], str] = trim_to_tokens) -> list[str]:
    """Trim several page texts to fit `budget` tokens together: short pages stay whole and the long
    ones share what is left equally (water-filling), so one long page cannot crowd out the others.
    `trim` cuts one text to its share (by default its first tokens)."""
    sizes = [counter.count_tokens(t) for t in texts]
    if sum(sizes) <= budget:
        return list(texts)
    limits = [0] * len(texts)
    remaining, open_pages = budget, sorted(range(len(texts)), key=lambda i: sizes[i])
    while open_pages:
        share = remaining // len(open_pages)
        smallest = open_pages[0]
        if sizes[smallest] <= share:  # fits whole: give it what it needs, split the rest among the others
            limits[smallest] = sizes[smallest]
            remaining -= sizes[smallest]
            open_pages.pop(0)
        else:
            for i in open_pages:
                limits[i] = share
            break
    return [t if limits[i] >= sizes[i] else trim(counter, t, limits[i]) for i, t in enumerate(texts)]
