"""Reading retrieved pages for a question: their sentences ranked, the values of the asked kind found in them, and
the one the reader is sure of (None when none passes the thresholds, or two stand equally near the question)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from ...answers import PageRef
from ...domain import TableOnPage
from ..base import MethodContext
from .cell_arithmetic import Computed, compute
from .matching import WordSet, stem
from .qualifiers import subject_names
from .question import Question, parse_question
from .scoring import Candidate, Found, Ranking, Scored, rank, value_candidates
from .sentences import sentences
from .table_answers import CellAnswer, TableReading, candidate_cells, label_words, read_tables

NAMES_CHECKED = 40  # the best sentences looked at for the question's names
TABLE_PAGES = 5  # pages whose tables' row labels name the question's words, read beside the retrieved ones
TITLE_CHARS = 200  # a page's first characters, its title, name what its tables are about ("Consolidated …")
AMBIGUITY = 0.05  # two values of one sentence this close in affinity cannot be told apart
NEAR_CELLS = 12  # cells kept by their labels' nearness to the question, for a model to choose among


@dataclass(frozen=True)
class ReaderSettings:
    min_coverage: float = 0.5  # the weighted share of the question's words an answering sentence must hold
    min_similarity: float = 0.2  # the least cosine similarity (MiniLM) between question and answering sentence
    min_affinity: float = 0.4  # the weighted share of the question's words that must stand near the value
    max_sentences: int = 600  # sentences scored at most (the retrieved pages' first ones, best page first)


class Reading(NamedTuple):
    sentences: list[Scored]  # the pages' sentences, most relevant first
    found: list[Found]  # values of the asked kind in them, most confident first (rejected ones last)
    best: Found | None  # the value of a sentence the reader is sure of
    table: TableReading  # what the pages' tables, read as tables, answer
    key_terms: tuple[str, ...]  # the question's most specific words that the pages hold (none: not about it)
    computed: Computed | None  # a difference of two cells the question names, computed by the app
    near_cells: tuple[CellAnswer, ...]  # the cells nearest the question by their labels, nearest first
    ranking: Ranking  # the question's word weights among the sentences, and its core words (evidence.py)
    subjects: frozenset[str]  # the question's names that the documents are about (qualifiers.subject_names)
    tables: list[tuple[PageRef, TableOnPage, str]]  # the tables read: (page, table, the page's first lines)
    pages: list[PageRef]  # the pages read, best first


def read(ctx: MethodContext, question: Question, pages: list[PageRef],
         settings: ReaderSettings = ReaderSettings()) -> Reading:
    """The pages' sentences ranked for the question, the values found in them, and the one that answers."""
    candidates, tables = [], []
    for rank_, ref in enumerate(pages):
        text = ctx.pages.text_or_empty(ref)
        page_words = WordSet(text)
        candidates += [Candidate(ref, sentence, rank_, page_words) for sentence in sentences(text)]
        tables += [(ref, table, text[:TITLE_CHARS]) for table in ctx.pages.tables(ref)] if text else []
    ranking = rank(question, candidates[:settings.max_sentences], ctx.embed)
    subjects = subject_names(question, [ref.doc for ref in pages])
    found = value_candidates(question, ranking, subjects)
    best = next((f for f in found if passes(f, settings)), None)
    table = read_tables(question, tables, subjects)
    if table.answer is None and (extra := _table_pages(ctx, question, subjects, pages)):
        tables += [(ref, t, ctx.pages.text_or_empty(ref)[:TITLE_CHARS]) for ref in extra for t in ctx.pages.tables(ref)]
        table = read_tables(question, tables, subjects)
    computed = None if table.answer else compute(question, lambda q: read_tables(q, tables, subjects))
    return Reading(ranking.sentences, found, None if best is None or _ambiguous(best, found) else best,
                   table, tuple(word for _, word in ranking.core) + _names_held(question, ranking.sentences),
                   computed, tuple(candidate_cells(question, tables, subjects, NEAR_CELLS)), ranking, subjects,
                   tables, pages)


def _names_held(question: Question, ranked: list[Scored]) -> tuple[str, ...]:
    """The question's names that a sentence read holds ("Director", "Political Research" are all the words of
    "Who is the Director of Political Research?"): the pages are about it even when no topic word is left."""
    return tuple(word for word in sorted(question.name_words)
                 if any(s.words.has(stem(word), word) for s in ranked[:NAMES_CHECKED]))


def _table_pages(ctx: MethodContext, question: Question, subjects: frozenset[str],
                 read_already: list[PageRef]) -> list[PageRef]:
    """Pages whose tables' row labels hold the question's words, beyond those retrieved: an income statement's
    few words weigh little among a 10-K's hundred pages of text, yet its row labels are the question's."""
    words = label_words(question, subjects)
    if not words:
        return []
    seen = {ref.key() for ref in read_already}
    return [ref for ref in ctx.search.table_pages(words, TABLE_PAGES) if ref.key() not in seen]


def confident_value(ctx: MethodContext, question: str, pages: list[PageRef]) -> Found | None:
    """The value the reader is sure of for `question` on `pages`, or None: what a written answer's refusal and
    its value are checked against (methods/proof)."""
    return read(ctx, parse_question(question), pages).best


def passes(found: Found, settings: ReaderSettings) -> bool:
    return (not found.rejected and found.scored.coverage >= settings.min_coverage and
            found.scored.similarity >= settings.min_similarity and found.affinity >= settings.min_affinity)


def _ambiguous(best: Found, found: list[Found]) -> bool:
    """Another value of the sentence stands as near the question's words ("Semantic error 29% 38% 77%" with
    no column to tell them apart): which one is meant cannot be read off the words."""
    return any(f.scored is best.scored and f.value.text != best.value.text and not f.rejected and
               f.affinity >= best.affinity - AMBIGUITY - 1e-9 for f in found)  # 1e-9: an exact tie is a tie
