"""The numbered candidates a model chooses among when the quoted reader is not sure: values of the asked kind in
the sentences read, the table cells nearest the question by their labels, and (when those are few, or no single
value is asked) the best sentences, of which the model copies a span. Everything offered is on a cited page, so
whatever is chosen can be quoted and checked.
"""
from __future__ import annotations

from dataclasses import dataclass
from string import ascii_uppercase
from typing import Callable

from ...answers import PageRef
from ...domain import BBox
from ..extractive.question import UNQUOTABLE, Question
from ..extractive.reader import Reading
from ..proof.quotes import number_values

VALUES, CELLS, PASSAGES = 8, 8, 4  # the most of each kind offered
FEW = 4  # fewer values and cells than this: the best sentences are offered too
CONTEXT_CHARS = 240  # a sentence shown around its value
LABELS = ascii_uppercase[:13]  # A..M: one token each, so the first step's probabilities are the choice's
RELATED = 0.25  # a sentence offered must hold this share of the question's words (quoted's related_coverage)


@dataclass(frozen=True)
class Option:
    label: str  # "A": how the prompt numbers it
    ref: PageRef
    value: str  # what choosing it answers ("$46,298 million"); "" for a sentence the model copies a span from
    context: str  # the sentence, or the cell's "row — column: text": the quote cited
    box: BBox | None = None  # a cell's box on the page

    @property
    def numbers(self) -> list[float]:
        return number_values(self.value)

    def line(self) -> str:
        """How the prompt lists it: the value first, then where it was read (the passage first for a sentence
        without a value, so that a span copied from the line's start is the passage's, not its page's name)."""
        where = f"{self.ref.source}" + (", a table" if self.box is not None else "")
        if not self.value:
            return f"{self.label}. “{self.context}” ({where})"
        return f"{self.label}. {self.value} — from “{self.context}” ({where})"


def options(question: Question, reading: Reading, fits: Callable[[list[Option]], bool]) -> list[Option]:
    """The candidates, best first, lettered, as many as `fits` (the prompt's token budget) allows."""
    drafts: list[tuple[PageRef, str, str, BBox | None]] = []
    seen: set[tuple[str, str]] = set()

    def offer(ref: PageRef, value: str, context: str, box: BBox | None = None) -> None:
        if (value, context) not in seen:
            seen.add((value, context))
            drafts.append((ref, value, context, box))

    if question.kind not in UNQUOTABLE:
        for found in [f for f in reading.found if not f.rejected][:VALUES]:
            candidate = found.scored.candidate
            offer(candidate.ref, found.value.text, _around(candidate.sentence.text, found.value.start))
        for cell in reading.near_cells[:CELLS]:
            offer(cell.ref, cell.value, cell.quote, cell.cell.bbox)
    if len(drafts) < FEW or question.kind is None:
        related = [s for s in reading.sentences if s.coverage >= RELATED]
        for scored in related[:PASSAGES]:
            offer(scored.candidate.ref, "", _around(scored.candidate.sentence.text, 0))
    chosen: list[Option] = []
    for (ref, value, context, box), label in zip(drafts, LABELS):
        trial = [*chosen, Option(label, ref, value, context, box)]
        if not fits(trial):
            break
        chosen = trial
    return chosen


def _around(sentence: str, at: int) -> str:
    """The sentence, or CONTEXT_CHARS of it around character `at` (a long table row read as a sentence)."""
    if len(sentence) <= CONTEXT_CHARS:
        return sentence
    start = max(0, min(at - CONTEXT_CHARS // 2, len(sentence) - CONTEXT_CHARS))
    return ("…" if start else "") + sentence[start:start + CONTEXT_CHARS].strip() + \
        ("…" if start + CONTEXT_CHARS < len(sentence) else "")
