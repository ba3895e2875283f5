"""Matching the question's words to a page's words the way OCR leaves them.

The recogniser splits words ("German wings") and joins them ("GERMANWINGS4U9525"); it reads the zeros of a
thousand as letters ("60, ooo"). A sentence's words are matched as written, as adjacent pairs joined, and,
for a long run-together token, by the question word standing inside it.
"""
from __future__ import annotations

import re

TOKEN = re.compile(r"\w+")  # a word or number, as the scorer counts distances
_OCR_THOUSANDS = re.compile(r"(?<=\d)([,.])\s?([oO0]{3})(?![\w])")
RUN_TOGETHER = 12  # a token this long, or one mixing letters and digits, may be words the recogniser joined
INSIDE = 5  # a question word this long may be found inside such a token
_SUFFIXES = (("ies", "y"), ("sses", "ss"), ("ing", ""), ("ed", ""), ("'s", ""), ("’s", ""), ("s", ""))


def stem(word: str) -> str:
    """A word without its inflection: "seniors" ~ "senior", "increased" ~ "increase", but "Germanwings" stays
    apart from "German" (a five-letter prefix would join them)."""
    word = word.lower()
    for suffix, replacement in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3 and not word.endswith("ss"):
            word = word[:-len(suffix)] + replacement
            break
    return word[:-1] if word.endswith("e") and len(word) > 3 else word


def glued(token: str, word: str) -> bool:
    """Whether the question's `word` stands inside `token` as OCR glues words: "germanwings" in
    "germanwings4u9525"."""
    return (len(word) >= INSIDE and len(token) >= len(word) + 4 and word in token and
            (len(token) >= RUN_TOGETHER or any(ch.isdigit() for ch in token)))


def repair_numbers(text: str) -> str:
    """ "60, ooo" -> "60,000": OCR's letter o for a zero in the thousands of a number."""
    return _OCR_THOUSANDS.sub(lambda m: m.group(1) + "000", text)


class WordSet:
    """The words of a text as stems, with OCR's split and joined words also findable."""

    def __init__(self, text: str):
        words = TOKEN.findall(text.lower())
        self.stems = {stem(w) for w in words} | {stem(a + b) for a, b in zip(words, words[1:])}
        self.long = [w for w in words if len(w) >= RUN_TOGETHER or (len(w) > INSIDE and not w.isalpha())]

    def has(self, term: str, word: str = "") -> bool:
        """Whether the stemmed `term` (of the question's `word`, when known) is among these words."""
        if term in self.stems:
            return True
        return any(glued(token, word) for token in self.long)
