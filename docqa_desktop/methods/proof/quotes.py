"""Finding a model's quote on a page, the way the page's text layer or OCR wrote it.

A quote is compared letter by letter over its letters and digits only, so whitespace, line breaks, hyphenation
at a line end, ligatures (NFKC), case, punctuation and words OCR split or joined do not count against it. The
score is the share of the quote's letters found in order within one stretch of the page not much longer than
the quote; a quote passes at QUOTE_TOLERANCE, and every number in it must stand on the page as a whole number
in that stretch (a small model copies words faithfully and numbers wrongly).
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from difflib import SequenceMatcher

from ... import numbers
from ..extractive.matching import repair_numbers

# the least share of a quote's letters found in order on the page: measured on the 1.5B bench's quotes
# (benchmarks/proof_trust.py, "quote match" figures): copied quotes score >= 0.9 save a dropped word or two,
# invented ones <= 0.7
QUOTE_TOLERANCE = 0.85
MIN_RUN = 4  # letters in a row that count as copied: shorter common runs ("the", "ing") match anything
STRETCH = 1.3  # the stretch of page a quote may spread over, in multiples of its own length (dropped words)
_LINE_END_HYPHEN = re.compile(r"(\w)[-\u00ad]\s*\n\s*(\w)")
_NOT_LETTER = re.compile(r"[^a-z0-9]")


def normalised(text: str) -> str:
    """Lower case, ligatures unfolded, line-end hyphenation joined, OCR's "60, ooo" read as 60,000."""
    text = unicodedata.normalize("NFKC", text)
    return repair_numbers(_LINE_END_HYPHEN.sub(r"\1\2", text)).lower()


def number_values(text: str) -> list[float]:
    """The numbers written in `text`, signed, as values (numbers.find: "1,138" is 1138, "1,2" two numbers, "1.2bn"
    1.2)."""
    return [float(number.value) for number in numbers.find(unicodedata.normalize("NFKC", text))]


@dataclass(frozen=True)
class QuoteMatch:
    score: float  # share of the quote's letters found in order in one stretch of the page
    missing_numbers: tuple[str, ...]  # numbers of the quote not written in that stretch
    excerpt: str  # the page's own text where the quote matches best (what a citation shows)
    numbers: tuple[float, ...] = ()  # the numbers written in the excerpt (OCR's "60, ooo" read as 60,000)

    @property
    def found(self) -> bool:
        return self.score >= QUOTE_TOLERANCE and not self.missing_numbers


def locate(quote: str, page_text: str) -> QuoteMatch:
    """Where `quote` stands on a page whose text is `page_text`, and how faithfully."""
    wanted, page_letters, position = letters(quote), *_letters_with_positions(page_text)
    if not wanted or not page_letters:
        return QuoteMatch(0.0, (), "")
    matcher = SequenceMatcher(None, wanted, page_letters, autojunk=False)
    blocks = [b for b in matcher.get_matching_blocks() if b.size >= min(MIN_RUN, len(wanted))]
    if not blocks:
        return QuoteMatch(0.0, (), "")
    anchor = max(blocks, key=lambda b: b.size)
    reach = int(len(wanted) * STRETCH)
    near = [b for b in blocks if b.b >= anchor.b - reach and b.b + b.size <= anchor.b + anchor.size + reach]
    start, end = position[near[0].b], position[near[-1].b + near[-1].size - 1] + 1
    excerpt = _whole_words(page_text, start, end)
    on_page = tuple(number_values(repair_numbers(excerpt)))
    missing = tuple(f"{v:g}" for v in number_values(repair_numbers(quote)) if v not in on_page and -v not in on_page)
    return QuoteMatch(round(sum(b.size for b in near) / len(wanted), 3), missing, " ".join(excerpt.split()), on_page)


def letters(text: str) -> str:
    """The text's letters and digits alone, as quotes are compared."""
    return _NOT_LETTER.sub("", normalised(text))


def _letters_with_positions(text: str) -> tuple[str, list[int]]:
    """The page's letters and digits (ligatures unfolded), with each one's index in `text` (to cut the excerpt
    from the page as written)."""
    kept = [(ch, i) for i, original in enumerate(text) for ch in unicodedata.normalize("NFKC", original).lower()
            if "a" <= ch <= "z" or "0" <= ch <= "9"]
    return "".join(ch for ch, _ in kept), [i for _, i in kept]


def _whole_words(text: str, start: int, end: int) -> str:
    """text[start:end] widened to whole words."""
    while start > 0 and not text[start - 1].isspace():
        start -= 1
    while end < len(text) and not text[end].isspace():
        end += 1
    return text[start:end]
