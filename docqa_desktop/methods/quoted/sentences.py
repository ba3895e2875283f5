"""Page text as sentences: the units a quoted answer is made of.

PDF text breaks lines in mid-sentence, so lines are joined into paragraphs before splitting at sentence ends;
a line that ends a sentence ends its paragraph, and so does a short line without closing punctuation (a
heading such as "MEMO - Port Ellery Ferry Service") when the next line starts anew with a capital letter.
Each Markdown table row is one unit, scored together with its table's header row so that its numbers keep
their column names.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

MAX_WORDS = 60  # a longer run (a list without punctuation, OCR noise) is cut into windows of this many words
HEADING_WORDS = 8  # a line this short without closing punctuation stands alone
# words whose trailing full stop does not end a sentence
ABBREVIATIONS = frozenset("""e.g i.e etc fig figs no nos vs al mr mrs ms dr prof inc co corp ltd st jan feb mar apr
jun jul aug sep sept oct nov dec approx est dept u.s u.k p pp vol eq sec""".split())
_SENTENCE_END = re.compile(r"[.!?][\"”’)\]]*\s+(?=[\"“‘(\[]?[A-Z0-9])")
_TABLE_SEPARATOR = re.compile(r"^\|?[\s:|-]+\|?$")


@dataclass(frozen=True)
class Sentence:
    text: str  # what is quoted (as on the page, whitespace collapsed)
    context: str  # what is scored: the text, preceded by its table's header row for a table row


def sentences(page_text: str) -> list[Sentence]:
    """The page's sentences and table rows, in reading order."""
    found: list[Sentence] = []
    paragraph: list[str] = []
    header = ""

    def flush() -> None:
        found.extend(Sentence(s, s) for s in split_sentences(" ".join(paragraph)))
        paragraph.clear()

    lines = [" ".join(raw.split()) for raw in page_text.splitlines()]
    for line, following in zip(lines, lines[1:] + [""]):
        if line.startswith("|"):
            flush()
            if _TABLE_SEPARATOR.match(line):
                continue
            cells = " ".join(c.strip() for c in line.strip("|").split("|") if c.strip())
            if not header:
                header = cells
            if cells:
                found.append(Sentence(cells, cells if cells == header else f"{header} {cells}"))
            continue
        header = ""
        if not line or line == "[…]":
            flush()
            continue
        paragraph.append(line)
        if line[-1] in ".!?:" or _heading(line, following):
            flush()
    flush()
    return found


def _heading(line: str, following: str) -> bool:
    """A short line without closing punctuation, followed by one that starts anew (not "on / 3 November.")."""
    return (len(line.split()) <= HEADING_WORDS and line[-1] not in ",;-(" and
            (not following or following[0].isupper() or following.startswith("|")))


def split_sentences(text: str) -> list[str]:
    """`text` cut at sentence ends (not after an abbreviation or an initial), long runs cut into windows."""
    pieces, start = [], 0
    for match in _SENTENCE_END.finditer(text):
        before = text[start:match.start()].rsplit(None, 1)
        word = before[-1].lower().rstrip(".") if before else ""
        if word in ABBREVIATIONS or (len(word) == 1 and word.isalpha()):
            continue
        pieces.append(text[start:match.end()].strip())
        start = match.end()
    pieces.append(text[start:].strip())
    windows = []
    for piece in filter(None, pieces):
        words = piece.split()
        windows += [" ".join(words[i:i + MAX_WORDS]) for i in range(0, len(words), MAX_WORDS)]
    return windows
