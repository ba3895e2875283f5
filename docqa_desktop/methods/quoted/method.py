"""Quoted answers: the sentence of the retrieved pages that best answers the question, quoted with its place.

What the app answers with while only the built-in models are installed: a 135M model writes fluent text
that is rarely right, a quotation is right or visibly beside the point. No language model is called; the
answer is labelled as quoted, and a question no sentence answers closely is declined with the nearest one.
"""
from __future__ import annotations

from dataclasses import dataclass

from ...answers import AnswerStatus
from ..base import MethodContext
from ..citations import cite
from ..conversation import thread_query
from ..toolkit.final_answer import NOT_ANSWERABLE
from .scoring import Candidate, Scored, rank
from .sentences import sentences

TRACED_SENTENCES = 3  # the best sentences listed in the trace with their signals


@dataclass(frozen=True)
class QuotedSettings:
    k: int = 5  # pages retrieved and searched for the sentence
    quotes: int = 2  # most sentences cited (the best one, then confident runners-up from elsewhere)
    min_coverage: float = 0.5  # the weighted share of the question's words a quoted sentence must hold
    min_similarity: float = 0.3  # the least cosine similarity (MiniLM) between question and quoted sentence
    max_sentences: int = 600  # sentences scored at most (the retrieved pages' first ones, best page first)


def run(ctx: MethodContext) -> None:
    answer, settings = ctx.answer, ctx.settings
    answer.iterations = 1
    ctx.step("retrieving pages")
    pages = ctx.readable(ctx.retrieve(thread_query(ctx.question, ctx.conversation), settings.k))
    answer.note_stage("retrieved", pages)
    ctx.step("finding the sentences that answer")
    candidates = [Candidate(ref, sentence, rank_) for rank_, ref in enumerate(pages)
                  for sentence in sentences(ctx.pages.text_or_empty(ref))][:settings.max_sentences]
    ranked = rank(ctx.question, candidates, ctx.embed, settings.min_coverage, settings.min_similarity)
    answer.pages_used = pages
    answer.note_stage("read", pages)
    for i, scored in enumerate(ranked[:TRACED_SENTENCES], 1):
        answer.notes.append(_trace_line(i, scored))
    if not ranked or not ranked[0].confident:
        _decline(ctx, ranked[0] if ranked else None, len(pages))
        return
    best = ranked[0]
    quoted = [best] + [s for s in ranked[1:] if s.confident and s.candidate.ref != best.candidate.ref][:settings.quotes - 1]
    ref, text = best.candidate.ref, best.candidate.sentence.text
    answer.status = AnswerStatus.ANSWERED
    answer.text = (f"{best.span}\n\n" if best.span else "") + f"Quoted from {ref.source}: “{text}”"
    answer.short_answer, answer.answer_format = best.span or text, "Str"
    answer.citations = cite(ctx.pages, [(s.candidate.ref, s.candidate.sentence.text) for s in quoted],
                            text, pages)


def _decline(ctx: MethodContext, closest: Scored | None, searched: int) -> None:
    answer = ctx.answer
    answer.status, answer.short_answer, answer.answer_format = AnswerStatus.NOT_FOUND, NOT_ANSWERABLE, "None"
    if closest is None:
        answer.text = "No indexed page matches the question."
        return
    answer.text = (f"No sentence in the {searched} pages searched answers this closely enough to quote. The closest, "
                   f"from {closest.candidate.ref.source}: “{closest.candidate.sentence.text}”")


def _trace_line(number: int, scored: Scored) -> str:
    ref = scored.candidate.ref
    return (f"sentence {number}: {ref.doc} p.{ref.page} coverage {scored.coverage:.2f} similarity "
            f"{scored.similarity:.2f} value {scored.span or '-'} score {scored.score:.2f}"
            f"{' (confident)' if scored.confident else ''}: {scored.candidate.sentence.text[:160]}")
