"""Page text as sentences: the units a quoted answer is made of.

PDF text breaks lines in mid-sentence, so lines are joined into paragraphs before splitting at sentence ends;
a line that ends a sentence ends its paragraph, and so does a short line without closing punctuation (a
heading such as "MEMO - Port Ellery Ferry Service") when the next line starts anew with a capital letter.
Each Markdown table row is one unit, scored together with its table's header row so that its numbers keep
their column names, and carrying its cells and the header's so that a cell can be quoted with its row and
column. OCR's misread thousands ("60, ooo") are repaired (matching.repair_numbers).
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

from .matching import repair_numbers

MAX_WORDS = 60  # a longer run (a list without punctuation, OCR noise) is cut into windows of this many words
HEADING_WORDS = 8  # a line this short without closing punctuation stands alone
# words whose trailing full stop does not end a sentence
ABBREVIATIONS = frozenset("""e.g i.e etc fig figs no nos vs al mr mrs ms dr prof inc co corp ltd st jan feb mar apr
jun jul aug sep sept oct nov dec approx est dept u.s u.k p pp vol eq sec""".split())
_SENTENCE_END = re.compile(r"[.!?][\"”’)\]]*\s+(?=[\"“‘(\[]?[A-Z0-9])")
MIN_TICKS = 4  # 0 and three more steps: an axis, not a run of data labels
_NUMBER_TOKEN = re.compile(r"\d+(?:\.\d+)?%?")
_PRIVATE_USE = re.compile("[\ue000-\uf8ff]")
_MARKUP = re.compile(r"\*\*|__|<sup>.*?</sup>|</?\w+>")  # a table cell's emphasis, footnote marks and tags
_HYPHENATED = re.compile(r"[a-z]-$")
_SPACED_PERCENT = re.compile(r"(?<=\d) %")
_TABLE_SEPARATOR = re.compile(r"^\|?[\s:|-]+\|?$")


@dataclass(frozen=True)
class Sentence:
    text: str  # what is quoted (as on the page, whitespace collapsed)
    context: str  # what is scored: the text, preceded by its table's header row for a table row
    cells: tuple[str, ...] = ()  # a table row's cells (empty for running text)
    header: tuple[str, ...] = ()  # its table's header cells, by column

    def labels(self, column: int) -> list[str]:
        """A table cell's row label (the row's first cell left of it) and column header, those there are."""
        row_label = next((c for c in self.cells[:column] if c), "")
        header = self.header[column] if column < len(self.header) and self.header != self.cells else ""
        return [label for label in (row_label, header) if label]


def sentences(page_text: str) -> list[Sentence]:
    """The page's sentences and table rows, in reading order."""
    found: list[Sentence] = []
    paragraph: list[str] = []
    header, header_cells = "", ()

    def flush() -> None:
        found.extend(Sentence(s, s) for s in split_sentences(join_lines(paragraph)))
        paragraph.clear()

    text = _PRIVATE_USE.sub("", repair_numbers(page_text))  # a font's bullet glyphs, no letters
    lines = _without_axis_ticks([" ".join(raw.split()) for raw in text.splitlines()])
    for line, following in zip(lines, lines[1:] + [""]):
        if line.startswith("|"):
            flush()
            if _TABLE_SEPARATOR.match(line):
                continue
            row = tuple(_MARKUP.sub("", c).strip() for c in line.strip().strip("|").split("|"))
            cells = " ".join(c for c in row if c)
            if not header:
                header, header_cells = cells, row
            if cells:
                found.append(Sentence(cells, cells, row, row) if cells == header else
                             Sentence(cells, f"{header} {cells}", row, header_cells))
            continue
        header, header_cells = "", ()
        if not line or line == "[…]":
            flush()
            continue
        paragraph.append(line)
        if line[-1] in ".!?:" or _heading(line, following):
            flush()
    flush()
    return found


def join_lines(lines: list[str]) -> str:
    """Lines as one text; a word hyphenated at a line's end is joined back ("few-" + "shot" -> "few-shot")."""
    text = ""
    for line in lines:
        text += line if _HYPHENATED.search(text) and line[:1].islower() else (" " if text else "") + line
    return text


def _without_axis_ticks(lines: list[str]) -> list[str]:
    """The lines less a chart's axis ticks: numbers ending a line or standing alone on it that make a run from 0
    at equal steps (0 20 40 60 80 100, or 0% 25% 50% 75% 100%). A chart beside a column of text shares its
    lines' heights, so its ticks end the text's lines ("… broadband at 100 %"); its data labels stay."""
    lines = [_SPACED_PERCENT.sub("%", line) for line in lines]
    tails = [_trailing_numbers(line) for line in lines]
    numbers = {_number(n) for tail in tails for n in tail}
    step = next((s for s in sorted(n for n in numbers if n > 0)
                 if _round(s) and all(s * k in numbers for k in range(MIN_TICKS))), None)
    if step is None:
        return lines
    ticks, k = set(), 0
    while step * k in numbers:
        ticks.add(step * k)
        k += 1
    kept = []
    for line, tail in zip(lines, tails):
        words = line.split()
        head = words[:len(words) - len(tail)]
        kept.append(" ".join(head + [n for n in tail if _number(n) not in ticks]))
    return kept


def _round(step: float) -> bool:
    """An axis's step: 1, 2, 2.5 or 5 times a power of ten (a table's 0% 19% 38% 57% is data)."""
    scale = 10 ** math.floor(math.log10(step))
    return round(step / scale, 6) in (1, 2, 2.5, 5)


def _trailing_numbers(line: str) -> list[str]:
    """The numbers that end a line ("… educational 80 74" -> ["80", "74"]), or all of a line of numbers."""
    tail: list[str] = []
    for word in reversed(line.split()):
        if not _NUMBER_TOKEN.fullmatch(word):
            break
        tail.insert(0, word)
    return tail


def _number(token: str) -> float:
    return float(token.rstrip("%"))


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
