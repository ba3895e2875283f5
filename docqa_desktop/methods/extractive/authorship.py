"""Questions about who wrote a document, which its title block answers and the library index already holds
(index/describe.py reads each document's authors from its metadata or its first page)."""
from __future__ import annotations

import re

FIRST, ALL = "first", "all"
_FIRST = re.compile(r"\bwho\b.*\b(?:first|lead|leading|main|principal)\s+author\b|\b(?:first|lead)\s+author\s+of\b",
                    re.I)
_ALL = re.compile(r"\bwho\s+(?:are|were)\s+the\s+authors\b|\bwho\s+(?:wrote|authored)\s+(?:the|this)\s+"
                  r"(?:paper|article|report|survey|study|document)\b|\blist\s+the\s+authors\b", re.I)


def authors_asked(question: str) -> str | None:
    """FIRST for "Who is the first author of the paper?", ALL for "Who wrote the paper?", else None."""
    if _FIRST.search(question):
        return FIRST
    return ALL if _ALL.search(question) else None


def author_names(authors: str) -> list[str]:
    """ "Ann Lee, Bo Chen and Cy Dee" -> the three names."""
    return [name.strip() for name in re.split(r",\s*|\s+and\s+|;\s*", authors) if name.strip()]
