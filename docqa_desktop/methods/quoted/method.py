"""Quoted answers: a value the page states, chosen among candidates by a scorer learned from labelled questions, or
the closest passages, or nothing.

What the app answers with while only the built-in models are installed: a 135M model writes fluent text that is
rarely right, while a value the page states next to the question's words is right or visibly beside the point. No
language model is called. The reader (methods/extractive) gathers candidates with their evidence (evidence.py), the
learned scorer ranks them and says how likely the best is to be right (scorer.py). Three verdicts:
- answered: the best candidate when its probability clears the threshold that kept 95 % of answers right on
  documents the scorer never trained on, or (with `verdict = "rules"`, the default) when the hand-written rules pass;
- passages: the one to three closest sentences, cited and highlighted, led by the likeliest value said as such;
- not found: nothing retrieved is about the question.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import NamedTuple

from ...answers import Citation, PageRef, sureness
from ..base import Decided, MethodContext
from ..citations import cite
from ..conversation import thread_query
from ..extractive.library_questions import parse_library_question
from ..extractive.passages import about_question, closest, listed
from ..extractive.question import COUNT, UNQUOTABLE, Question, parse_question
from ..extractive.authorship import authors_asked
from ..extractive.cell_arithmetic import Computed
from ..extractive.evidence import CELL, COMPUTED, SENTENCE, Chain, Evidence, gather
from ..extractive.reader import Reading, ReaderSettings, passes, read
from ..extractive.scorer import each_value_once, shipped
from ..extractive.scoring import Found, Scored
from ..extractive.table_answers import CellAnswer
from ..proof.quotes import number_values
from .authors import answer_authors
from .library import answer_library_question

TRACED = 3  # the best sentences and values listed in the trace with their signals
RULES = "rules"  # QuotedSettings.verdict that lets the hand-written rules answer too ("learned": the scorer alone)
FOLLOW_UP_WORDS = 2  # a follow-up with fewer words of its own is read with the thread's last question


@dataclass(frozen=True)
class QuotedSettings:
    k: int = 5  # pages retrieved and searched for the sentence
    passages: int = 3  # closest sentences shown when no value answers with certainty
    min_coverage: float = 0.5  # the weighted share of the question's words an answering sentence must hold
    min_similarity: float = 0.2  # the least cosine similarity (MiniLM) between question and answering sentence
    min_affinity: float = 0.4  # the weighted share of the question's words that must stand near the value
    related_coverage: float = 0.25  # below this share of its words in any sentence, nothing is about the question
    max_sentences: int = 600  # sentences scored at most (the retrieved pages' first ones, best page first)
    # rules: answered when the learned scorer's probability clears the threshold that kept 95 % of answers right on
    # documents it never trained on (issue 53), or when the hand-written rules of issues 32-44 pass (on facts.jsonl's
    # seen documents 100 % precise; out of fold on 793 questions over 97 documents 70 %, on facts_unseen 0 of 3) |
    # learned: the scorer alone (100 % precise out of fold, but it answers 2.5 % of answerable questions, and 5 %
    # of facts.jsonl's seen ones where the rules answer 29.5 %: not yet the default, a decision left open by issue 53)
    verdict: str = "rules"


class Read(NamedTuple):
    """What the reader read for a question, for a step after it (the cascade's choice)."""
    question: Question
    reading: Reading
    pages: list[PageRef]


def run(ctx: MethodContext) -> None:
    answer_quoted(ctx)


def answer_quoted(ctx: MethodContext) -> Read | None:
    """The quoted verdict, recorded on ctx (ctx.decided); what was read, or None when the index answered (a library
    question, a title block's authors)."""
    answer, settings = ctx.answer, ctx.settings
    answer.iterations = 1
    question = _asked(ctx)
    library_question = parse_library_question(ctx.question)
    if library_question is not None:  # "which of my files mention …": the index answers, exactly
        answer_library_question(ctx, library_question)
        return None
    ctx.step("retrieving pages")
    pages = ctx.readable(ctx.retrieve(question.text, settings.k))
    answer.note_stage("retrieved", pages)
    authors = authors_asked(ctx.question)
    if authors and answer_authors(ctx, authors, pages):  # the title block, as the library index read it
        return None
    ctx.step("finding the sentences that answer")
    reading = read(ctx, question, pages, _reader_settings(settings))
    answer.pages_used = pages
    answer.note_stage("read", pages)
    answer.notes += _trace(question, reading, settings)
    _conclude(ctx, question, reading, pages)
    return Read(question, reading, pages)


def _conclude(ctx: MethodContext, question: Question, reading: Reading, pages: list[PageRef]) -> None:
    """The one verdict: the learned scorer's best candidate when its probability clears the threshold that kept
    95 % of answers right on documents it never trained on; else the closest passages with the likeliest value
    marked as such, when a page shares the question's key words; else not found."""
    scorer, answer, settings = shipped(), ctx.answer, ctx.settings
    evidence = gather(question, reading, _chain(ctx), ctx.embed)
    answer.candidates = scorer.ranked(evidence)  # every candidate: the reader's training data
    ranked = each_value_once(answer.candidates)
    probability = scorer.probability(ranked)
    answer.notes += [f"candidate {e.value!r} ({e.source}, {e.ref.doc} p.{e.ref.page}): score {score:.2f}"
                     for e, score in ranked[:TRACED]]
    by_rules = _rules_answer(answer, evidence) if settings.verdict == RULES else None
    if ranked and probability >= scorer.threshold:
        ctx.decide(replace(_answered_by(ctx, ranked[0][0], question, pages), confidence=round(probability, 3)))
    elif by_rules is not None:
        ctx.decide(_answered_by(ctx, by_rules, question, pages))
        answer.notes.append(f"answered by the hand-written rules (verdict = {RULES}); the scorer's probability for "
                            f"its best candidate: {probability:.2f}")
    elif reading.table.tied or about_question(ctx.question, reading, settings.related_coverage):
        # a page that shares the question's key words may hold its answer in words quoting cannot pick out
        table = reading.table  # its tied cells, else the cell it read (when the rules or the scorer doubt it)
        cells = list(table.tied[:settings.passages]) or ([table.answer] if table.answer is not None else [])
        shown = _passages(ctx, reading.sentences, question, pages, cells)
        ctx.decide(_likeliest(shown, ranked[0][0], probability) if ranked else shown)
    else:
        ctx.decide(_not_found(len(pages)))


def _rules_answer(answer, evidence: list[Evidence]) -> Evidence | None:
    """The value the hand-written rules answer with: a computed difference, else the table reader's cell, else the
    sentence's value; None when they answer nothing, or a cell and a sentence disagree (noted)."""
    passing = {e.source: e for e in evidence if e.feature("passes_rules")}
    if COMPUTED in passing:
        return passing[COMPUTED]
    cell, sentence = passing.get(CELL), passing.get(SENTENCE)
    if cell is not None and sentence is not None and not _same_value(sentence.found, cell.cell):
        answer.notes.append(f"the table says {cell.value!r} and a sentence {sentence.value!r}: not certain")
        return None
    return cell or sentence


def _same_value(found: Found, cell: CellAnswer) -> bool:
    return cell.cell.number is not None and any(
        abs(v - cell.cell.number) < 1e-9 for v in number_values(found.value.text))


def _chain(ctx: MethodContext) -> Chain:
    """The context levels of the pages read: each page's text, and its document's first page."""
    def first_page(ref: PageRef) -> str:
        first = ctx.pages.refs_for([(ref.doc_id, 1)])
        return ctx.pages.text_or_empty(first[0]) if first else ""
    return Chain(ctx.pages.text_or_empty, first_page)


def _answered_by(ctx: MethodContext, best: Evidence, question: Question, pages: list[PageRef]) -> Decided:
    if best.computed is not None:
        return _answered_by_computing(best.computed)
    if best.cell is not None:
        return _answered_by_cell(best.cell)
    return _answered(ctx, best, question, pages)


def _likeliest(shown: Decided, best: Evidence, probability: float) -> Decided:
    """The passages stay the answer; the likeliest value is said above them, as a value the app is not sure of."""
    return replace(shown, likeliest=best.value, confidence=round(probability, 3),
                   text=f"Likeliest: {best.value} ({best.ref.source}) — not sure enough to answer "
                        f"({sureness(probability)}).\n\n{shown.text}")


def _trace(question: Question, reading: Reading, settings: QuotedSettings) -> list[str]:
    """What was asked and what the reader weighed: the best sentences, values and cells with their signals."""
    qualifiers = question.years + question.whole_groups + question.names
    lines = [f"asked for: {question.kind or 'no single value'}" +
             (f"; qualifiers: {', '.join(qualifiers)}" if qualifiers else "")]
    lines += [_sentence_line(i, s) for i, s in enumerate(reading.sentences[:TRACED], 1)]
    lines += [_value_line(f) for f in reading.found[:TRACED]]
    passing = next((f for f in reading.found if passes(f, _reader_settings(settings))), None)
    if reading.best is None and passing is not None:
        lines.append(f"value {passing.value.text!r} not certain: its sentence holds another as close to the "
                     "question")
    table = reading.table
    lines += [_cell_line("table cell", a) for a in ([table.answer] if table.answer else [])]
    return lines + [_cell_line("tied table cell", a) for a in table.tied[:TRACED]] + list(table.notes)


def _reader_settings(settings: QuotedSettings) -> ReaderSettings:
    return ReaderSettings(settings.min_coverage, settings.min_similarity, settings.min_affinity,
                          settings.max_sentences)


def _asked(ctx: MethodContext) -> Question:
    """The question as asked; a follow-up that names too little itself ("And in 2012?") is read with the
    thread's last question, keeping its own kind of value where it asks one. A follow-up that stands on its own
    is read alone: the thread's words would pull in the last topic's pages and kind ("what time …"); so is one
    the service wrote out as a standalone question (ctx.question: its subject and period from the thread)."""
    own = parse_question(ctx.question)
    if not ctx.conversation or ctx.answer.standalone_question or (own.kind and len(own.terms) >= FOLLOW_UP_WORDS):
        return own
    thread = parse_question(thread_query(ctx.question, ctx.conversation))
    return replace(thread, kind=own.kind or thread.kind)


def _answered(ctx: MethodContext, best: Evidence, question: Question, pages) -> Decided:
    """A value of a sentence or of a form line, quoted with the line and cited where it stands."""
    ref = best.ref
    items = best.found.value.items if best.found is not None else ()
    answer_format = ("List" if items else
                     "Int" if question.kind == COUNT and best.value.replace(",", "").isdigit() else "Str")
    line = best.found.scored.candidate.sentence.text if best.found is not None else best.quote
    return Decided.answered(json.dumps(list(items)) if items else best.value,
                            f"{best.value}\n\nQuoted from {ref.source}: “{best.quote}”",
                            cite(ctx.pages, [(ref, line)], line, pages), answer_format)


def _answered_by_cell(cell: CellAnswer) -> Decided:
    """A table cell whose row and column name what is asked: quoted with its labels, its box cited."""
    return Decided.answered(cell.value, f"{cell.value}\n\n{read_from(cell)}: “{cell.quote}”", [_cell_citation(cell)])


def read_from(cell: CellAnswer) -> str:
    """Where a cell was read: "Read from the table on p. 7", "Read from the bar chart ‘…’ on p. 7", with how sure
    its reading is (a scan's OCR, the vision model, a value read off the chart's axis)."""
    table = cell.table
    if not table.chart:
        return f"Read from the table on {cell.ref.source}{_scanned(cell)}"
    title = table.caption.split(" — ")[0]
    how = [why for why, said in (("read by the vision model", table.by_model),
                                 ("read from the axis, so about", cell.cell.from_axis)) if said]
    return f"Read from the {table.chart}{f' ‘{title}’' if title else ''} on {cell.ref.source}" + \
        (f" ({'; '.join(how)})" if how else "")


def _scanned(cell: CellAnswer) -> str:
    """Said of a cell of a table read from a page's OCR: it is as sure as the OCR."""
    return " (read from the scan)" if cell.table.from_scan else ""


def _answered_by_computing(computed: Computed) -> Decided:
    """A difference of the two cells the question names: the app's computation shown, both cells cited."""
    return Decided.answered(computed.shown, f"{computed.shown}\n\nComputed by the app: {computed.expression}, from " +
                            " and ".join(f"{c.ref.source}: “{c.quote}”" for c in computed.operands),
                            [_cell_citation(c) for c in computed.operands])


def _cell_citation(cell: CellAnswer) -> Citation:
    ref = cell.ref
    return Citation(ref.doc, ref.path, ref.page, ref.label, cell.quote, cell.cell.bbox)


def _passages(ctx: MethodContext, ranked: list[Scored], question: Question, pages,
              cells: list[CellAnswer] = ()) -> Decided:
    """The closest sentences (each once), and the table cells the reader weighed, cited (a cell at its box) and
    highlighted, said to be passages and not an answer."""
    settings = ctx.settings
    shown = closest(ranked, settings.passages, settings.related_coverage)
    why = ("a yes/no or a list needs reading, which quoting cannot do" if question.kind in UNQUOTABLE
           else "no sentence states a value of the kind asked next to the question's words"
           if question.kind else "the question asks for more than one value")
    text = f"The closest passages ({why}; read them to judge):\n" + listed(shown)
    text += "".join(f"\n[{n}] {c.ref.source}, {_weighed(c)}: “{c.quote}”"
                    for n, c in enumerate(cells, len(shown) + 1))
    return Decided.passages(text, cite(ctx.pages, [(s.candidate.ref, s.candidate.sentence.text) for s in shown],
                                       text, pages) + [_cell_citation(c) for c in cells])


def _weighed(cell: CellAnswer) -> str:
    """A weighed cell as the passages name it: "table cell", "table cell (read from the scan)", "bar chart value"."""
    return f"{cell.table.chart} value" if cell.table.chart else f"table cell{_scanned(cell)}"


def _not_found(searched: int) -> Decided:
    return Decided.not_found(f"Not found: none of the {searched} pages searched is about this question." if searched
                             else "Not found: no indexed page matches the question.")


def _sentence_line(number: int, scored: Scored) -> str:
    ref = scored.candidate.ref
    return (f"sentence {number}: {ref.doc} p.{ref.page} coverage {scored.coverage:.2f} similarity "
            f"{scored.similarity:.2f} score {scored.score:.2f}: {scored.candidate.sentence.text[:160]}")


def _cell_line(what: str, cell: CellAnswer) -> str:
    return f"{what} {cell.value!r} ({cell.ref.doc} p.{cell.ref.page}): fit {cell.fit:.2f}: {cell.quote[:160]}"


def _value_line(found: Found) -> str:
    ref = found.scored.candidate.ref
    return (f"value {found.value.text!r} ({ref.doc} p.{ref.page}): affinity {found.affinity:.2f} confidence "
            f"{found.confidence:.2f}{' rejected: ' + found.rejected if found.rejected else ''}")
