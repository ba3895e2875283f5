"""SimpleDoc (Jain et al., 2025; ../shared/papers/simpledoc.txt, Algorithm 1): dual-cue retrieval —
top-k pages by the retriever, re-ranked by an LLM over their summaries — then a reasoner that answers,
declares the question not answerable, or writes a query update with notes for its working memory,
for at most L rounds.

Beyond the paper: over several documents the candidates come from all of them, each page is labelled
with its document, and citations name it.
"""
from __future__ import annotations

from ..answers import AnswerStatus, PageRef
from ..llm import Message, Options
from .base import MethodContext
from .citations import cite
from .prompts import (ANSWER_IMAGE_NOTE, PAGE_RETRIEVAL, QUESTION_ANSWERING, reasoner_schema,
                      selection_schema)

SUMMARY_CHARS = 700  # of each page summary in the selection prompt
REASONER_TOKENS = 400


class SimpleDoc:
    name = "simpledoc"

    def run(self, ctx: MethodContext) -> None:
        answer, query, memory = ctx.answer, ctx.question, []
        for iteration in range(1, ctx.settings.iterations + 1):
            answer.iterations = iteration
            ctx.progress(f"iteration {iteration}: retrieving pages")
            candidates = ctx.readable(ctx.retrieve(query, ctx.settings.k))
            if not candidates:
                break
            document_summary, selected = self._select(ctx, query, candidates)
            memory.append(document_summary)  # M ← M ∪ s_doc
            pages = ctx.readable(selected)
            if not pages:
                continue
            ctx.progress(f"iteration {iteration}: reading pages "
                         + ", ".join(f"{p.page}" for p in pages))
            reply = self._reason(ctx, pages, memory)
            answer.pages_used.extend(p for p in pages if p not in answer.pages_used)
            if reply["response"] == "answer" and reply["answer"].strip():
                answer.text, answer.status = reply["answer"].strip(), AnswerStatus.ANSWERED
                evidence = [(pages[e["page"] - 1], e["quote"]) for e in reply["evidence"]]
                answer.citations = cite(ctx.pages, evidence, answer.text, pages)
                break
            if reply["response"] == "not_answerable":
                break
            notes = reply["notes"].strip() or reply["scratchpad"].strip()
            if notes:
                memory.append(notes)  # M ← M ∪ {m'}
            query = reply["query_update"].strip() or query
        if answer.status is not AnswerStatus.ANSWERED:
            answer.status = AnswerStatus.NOT_ANSWERABLE
            answer.text = answer.text or "Not answerable from the documents."
        answer.notes = memory

    def _select(self, ctx: MethodContext, query: str, candidates: list[PageRef]) -> tuple[str, list[PageRef]]:
        """The paper's page-retrieval step: an LLM reads the candidates' summaries, keeps and orders pages."""
        summaries = ctx.summaries.ensure(candidates, ctx.call)
        several = ctx.multi_document(candidates)
        listing = "\n".join(
            f"Page {i}{f' ({ref.doc}, page {ref.page})' if several else f' (page {ref.page})'}: "
            f"{summaries.get(ref.key(), '(no summary)')[:SUMMARY_CHARS]}"
            for i, ref in enumerate(candidates, 1))
        numbers = list(range(1, len(candidates) + 1))
        completion = ctx.call("select pages", ctx.text_model,
                              [Message("user", PAGE_RETRIEVAL.format(page_summaries=listing, query=query))],
                              Options(max_tokens=400, schema=selection_schema(numbers, ctx.settings.max_pages)),
                              candidates)
        chosen = list(dict.fromkeys(completion.parsed["selected_pages"]))[: ctx.settings.max_pages]
        return completion.parsed["document_summary"].strip(), [candidates[n - 1] for n in chosen]

    def _reason(self, ctx: MethodContext, pages: list[PageRef], memory: list[str]) -> dict:
        model = ctx.reader
        options = Options(max_tokens=REASONER_TOKENS, schema=reasoner_schema(list(range(1, len(pages) + 1))))
        page_list, page_text, images = ctx.page_block(
            pages, model, ctx.text_budget(model, options, len(pages) if model.info.vision else 0))
        prompt = QUESTION_ANSWERING.format(question=ctx.question, memory="\n\n".join(memory) or "(none yet)",
                                           page_list=page_list, page_text=page_text,
                                           image_note=ANSWER_IMAGE_NOTE if images else "")
        completion = ctx.call(f"reason {ctx.answer.iterations}", model, [Message("user", prompt, images)],
                              options, pages)
        return completion.parsed
