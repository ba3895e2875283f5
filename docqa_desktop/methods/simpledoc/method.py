"""SimpleDoc (Jain et al., 2025; ../shared/papers/simpledoc.txt, Algorithm 1): dual-cue retrieval —
top-k pages by the retriever, re-ranked by an LLM over their summaries — then a reasoner that answers,
declares the question not answerable, or writes a query update with notes for its working memory,
for at most L rounds.

Beyond the paper: over several documents the candidates come from all of them, each page is labelled
with its document, and citations name it.
"""
from __future__ import annotations

from ...answers import PageRef
from ...llm import Message, Options
from ..base import MethodContext
from ..citations import cite
from ..toolkit.final_answer import FinalAnswer, record
from ..toolkit.prompt_layout import PAGE_IMAGES_NOTE, evidence_first
from .prompts import (PAGE_RETRIEVAL, REASONER_INSTRUCTIONS, REASONER_PAGES, REASONER_REQUEST, reasoner_schema,
                      selection_schema)
from .summaries import summarizer_for


def run(ctx: MethodContext) -> None:
    settings, answer = ctx.settings, ctx.answer
    query, memory, final = ctx.question, [], FinalAnswer.declined()
    for iteration in range(1, settings.iterations + 1):
        answer.iterations = iteration
        ctx.step(f"iteration {iteration}: retrieving pages", iteration, settings.iterations)
        candidates = ctx.readable(ctx.retrieve(query, settings.k))
        if iteration == 1:
            answer.note_stage("retrieved", candidates)  # the retriever's own top k for the question
        answer.note_stage("candidates", candidates)
        if not candidates:
            break
        document_summary, selected = _select(ctx, query, candidates)
        answer.note_stage("selected", selected)
        memory.append(document_summary)  # M ← M ∪ s_doc
        pages = ctx.readable(selected)
        if not pages:
            continue
        answer.note_stage("read", pages)
        ctx.step(f"iteration {iteration}: reading pages " + ", ".join(f"{p.page}" for p in pages),
                 iteration, settings.iterations)
        reply = _reason(ctx, pages, memory)
        answer.pages_used.extend(p for p in pages if p not in answer.pages_used)
        if reply["response"] == "answer":
            final = FinalAnswer.from_reply(reply)
            if final.answerable:
                evidence = [(pages[e["page"] - 1], e["quote"]) for e in reply["evidence"]]
                answer.citations = cite(ctx.pages, evidence, final.answer or final.short_answer, pages)
                break
        if reply["response"] == "not_answerable":
            break
        notes = reply["notes"].strip() or reply["scratchpad"].strip()
        if notes:
            memory.append(notes)  # M ← M ∪ {m'}
        query = reply["query_update"].strip() or query
    record(answer, final)
    answer.notes = memory


def _select(ctx: MethodContext, query: str, candidates: list[PageRef]) -> tuple[str, list[PageRef]]:
    """The paper's page-retrieval step: an LLM reads the candidates' summaries, keeps and orders pages."""
    settings = ctx.settings
    summaries = summarizer_for(ctx.db, ctx.pages, ctx.reader, settings, ctx.image_side).ensure(candidates, ctx.call)
    several = ctx.multi_document(candidates)
    listing = "\n".join(
        f"Page {i}{f' ({ref.doc}, page {ref.page})' if several else f' (page {ref.page})'}: "
        f"{summaries.get(ref.key(), '(no summary)')[:settings.summary_chars]}"
        for i, ref in enumerate(candidates, 1))
    numbers = list(range(1, len(candidates) + 1))
    completion = ctx.call("select pages", ctx.text_model,
                          [Message("user", PAGE_RETRIEVAL.format(page_summaries=listing, query=query))],
                          Options(max_tokens=400, schema=selection_schema(numbers, settings.max_pages)),
                          candidates)
    chosen = list(dict.fromkeys(completion.parsed["selected_pages"]))[: settings.max_pages]
    return completion.parsed["document_summary"].strip(), [candidates[n - 1] for n in chosen]


def _reason(ctx: MethodContext, pages: list[PageRef], memory: list[str]) -> dict:
    model = ctx.reader
    options = Options(max_tokens=ctx.settings.reasoner_tokens,
                      schema=reasoner_schema(list(range(1, len(pages) + 1))))
    page_list, page_text, images = ctx.page_block(
        pages, model, ctx.text_budget(model, options, len(pages) if model.info.vision else 0),
        ctx.settings.page_tokens)
    evidence = REASONER_PAGES.format(page_list=page_list, page_text=page_text,
                                     image_note=PAGE_IMAGES_NOTE if images else "")
    request = REASONER_REQUEST.format(question=ctx.question, memory="\n\n".join(memory) or "(none yet)")
    completion = ctx.call(f"reason {ctx.answer.iterations}", model,
                          evidence_first(REASONER_INSTRUCTIONS, evidence, request, images), options, pages)
    return completion.parsed
