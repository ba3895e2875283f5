"""Matching the question's words to a page's words the way OCR leaves them.

The recogniser splits words ("German wings") and joins them ("GERMANWINGS4U9525"); it reads the zeros of a
thousand as letters ("60, ooo"). A sentence's words are matched as written, as adjacent pairs joined, and,
for a long run-together token, by the question word standing inside it.
"""
from __future__ import annotations

import re

from ...retrieval.snippets import stem

TOKEN = re.compile(r"\w+")  # a word or number, as the scorer counts distances
_OCR_THOUSANDS = re.compile(r"(?<=\d)([,.])\s?([oO0]{3})(?![\w])")
RUN_TOGETHER = 10  # a token this long may be words the recogniser joined ("germanwings4u9525")
INSIDE = 5  # a question word this long may be found inside such a token


def repair_numbers(text: str) -> str:
    """ "60, ooo" -> "60,000": OCR's letter o for a zero in the thousands of a number."""
    return _OCR_THOUSANDS.sub(lambda m: m.group(1) + "000", text)


class WordSet:
    """The words of a text as stems, with OCR's split and joined words also findable."""

    def __init__(self, text: str):
        words = TOKEN.findall(text.lower())
        self.stems = {stem(w) for w in words} | {stem(a + b) for a, b in zip(words, words[1:])}
        self.long = [w for w in words if len(w) >= RUN_TOGETHER]

    def has(self, term: str, word: str = "") -> bool:
        """Whether the stemmed `term` (of the question's `word`, when known) is among these words."""
        if term in self.stems:
            return True
        return len(word) >= INSIDE and any(word in token for token in self.long)
