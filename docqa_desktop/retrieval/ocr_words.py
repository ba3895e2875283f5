"""Keyword queries that find OCR'd pages despite the recogniser's split and joined words.

OCR reads "Germanwings" as "German wings" on one slide and glues a line into "germanwings4u9525" on another.
A query word the library does not hold whole is also searched as two halves the library does hold; adjacent
query words are also searched joined; and a long query word also matches the longer terms that contain it.
"""
from __future__ import annotations

import re
from typing import Callable

MIN_SPLIT = 8  # a query word this long may have been split by OCR
MIN_PART = 3  # the shortest half of a split word
MIN_INSIDE = 8  # a query word this long is also looked for inside glued terms (a scan of the vocabulary)
_WORD = re.compile(r"\w+")


def ocr_variants(query: str, known: Callable[[str], bool], containing: Callable[[str], list[str]]) -> str:
    """The query with its OCR spellings added: `known(word)` says whether the library holds a word,
    `containing(word)` lists the library's longer terms that hold it."""
    words = list(dict.fromkeys(_WORD.findall(query.lower())))
    extra = [a + b for a, b in zip(words, words[1:])]
    for word in words:
        if len(word) >= MIN_SPLIT and not known(word):
            extra += next(([word[:i], word[i:]] for i in range(MIN_PART, len(word) - MIN_PART + 1)
                           if known(word[:i]) and known(word[i:])), [])
        if len(word) >= MIN_INSIDE:
            extra += containing(word)
    return " ".join([query] + list(dict.fromkeys(extra)))
