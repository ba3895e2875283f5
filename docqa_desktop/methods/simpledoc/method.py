"""SimpleDoc (Jain et al., 2025; ../shared/papers/simpledoc.txt, Algorithm 1): dual-cue retrieval —
top-k pages by the retriever, re-ranked by an LLM over their summaries — then a reasoner that answers,
declares the question not answerable, or writes a query update with notes for its working memory,
for at most L rounds.

Beyond the paper: over several documents the candidates come from all of them, each page is labelled
with its document, and citations name it.

Settings that make a small model (1.5B on a CPU) keep the evidence the retriever found, each documented in
settings.py with the value that gives the paper's exact behaviour:
- the re-ranker's choice adds to a floor instead of being the whole list: the retriever's top `keep_top`
  pages are always read and the retriever's order fills the reading list up to `min_pages` (a 1.5B
  re-ranker keeps under two pages and drops evidence the retriever had ranked first: replayed on the 1.5B
  bench's recorded selections, benchmarks/selection_policies.py, its picks alone held every evidence page
  for 16.7 % of answerable questions, picks + the retriever's best 25.0 %, the retriever's top 3 58.3 %);
- a later round reads new pages first: its candidates are the new query's pages and earlier candidates not
  read yet, then the pages already read (the re-ranker may still pick those, as in the paper);
- `read_before_declining`: "not answerable" in round 1 while the retriever has unread candidates becomes a
  query update (the round's pages are noted in memory as not answering), so the next round reads them.

The reasoner's answering reply carries its proof (quotes by page, the arithmetic for a computed value); after
the last round the app checks it (methods/proof): one repair round on the same prompt, else an unverified draft;
a refusal while a page read states a confident value is asked again with that passage.
"""
from __future__ import annotations

from ...answers import PageRef
from ...llm import Message, Options
from ..base import MethodContext, pages_named
from ..conversation import memory_lines, thread_query
from ..toolkit.batches import multi_document
from ..toolkit.final_answer import FinalAnswer
from ..toolkit.prompt_layout import PAGE_IMAGES_NOTE, evidence_first
from .prompts import (PAGE_RETRIEVAL, REASONER_INSTRUCTIONS, REASONER_PAGES, REASONER_REQUEST, reasoner_schema,
                      selection_schema)
from ..toolkit.page_summaries import summarizer_for


def run(ctx: MethodContext) -> None:
    settings, answer = ctx.settings, ctx.answer
    # a follow-up starts from the thread: its earlier turns are the first entry of the working memory
    memory = [f"Earlier in this conversation:\n{memory_lines(ctx.conversation)}"] if ctx.conversation else []
    query, final, final_pages = thread_query(ctx.question, ctx.conversation), FinalAnswer.declined(), []
    read: list[PageRef] = []  # every page the reasoner has seen
    unread: list[PageRef] = []  # earlier rounds' candidates it has not
    for iteration in range(1, settings.iterations + 1):
        answer.iterations = iteration
        ctx.step(f"{_round(iteration, settings)}retrieving pages")
        retrieved = ctx.readable(ctx.retrieve(query, settings.k))
        if iteration == 1:
            answer.note_stage("retrieved", retrieved)  # the retriever's own top k for the question
        # pages not read yet first (earlier rounds' leftovers too), then the retrieved ones already read
        candidates = ([r for r in dict.fromkeys(retrieved + unread) if r not in read]
                      + [r for r in retrieved if r in read])
        answer.note_stage("candidates", candidates)
        if not candidates:
            break
        document_summary, picks = _select(ctx, query, candidates, _round(iteration, settings))
        answer.note_stage("selected", picks)
        memory.append(document_summary)  # M ← M ∪ s_doc
        pages = ctx.readable(reading_list(candidates, picks, settings))
        if not pages:
            continue
        answer.note_stage("read", pages)
        read += pages
        unread = [r for r in candidates if r not in read]
        ctx.step(f"{_round(iteration, settings)}reading {pages_named(pages)}")
        reply = _reason(ctx, pages, memory, query)
        answer.pages_used.extend(p for p in pages if p not in answer.pages_used)
        if reply["response"] == "answer":
            final, final_pages = FinalAnswer.from_reply(reply), pages
            if final.answerable:
                break
        if reply["response"] == "not_answerable":
            final, final_pages = FinalAnswer.declined(reply), pages
            if not (settings.read_before_declining and iteration == 1 and unread and settings.iterations > 1):
                break
            # a small model declines on the first pages it sees; the retriever's other candidates come first
            memory.append(f"Pages {', '.join(str(p.page) for p in pages)} did not answer the question.")
        notes = reply["notes"].strip() or reply["scratchpad"].strip()
        if notes:
            memory.append(notes)  # M ← M ∪ {m'}
        query = reply["query_update"].strip() or query
    ctx.conclude(final, final_pages)
    answer.notes = memory


def reading_list(candidates: list[PageRef], picks: list[PageRef], settings) -> list[PageRef]:
    """The pages the reasoner reads this round, at most `max_pages`: the retriever's best `keep_top` pages
    whatever the re-ranker thought of them, the re-ranker's picks in the room left, then the retriever's
    order up to `min_pages`."""
    kept = candidates[:min(settings.keep_top, settings.max_pages)]
    room = settings.max_pages - sum(r not in picks for r in kept)
    pages = list(dict.fromkeys(picks[:room] + kept))
    pages += [r for r in candidates if r not in pages][:max(settings.min_pages - len(pages), 0)]
    return pages[:settings.max_pages]


def _round(iteration: int, settings) -> str:
    """The prefix of a round's steps: "round 2 of 3: " (nothing when the method runs one round)."""
    return f"round {iteration} of {settings.iterations}: " if settings.iterations > 1 else ""


def _select(ctx: MethodContext, query: str, candidates: list[PageRef], round_: str) -> tuple[str, list[PageRef]]:
    """The paper's page-retrieval step: an LLM reads the candidates' summaries, keeps and orders pages. The
    summaries missing are written first, a model call a page (the first question's longest wait)."""
    settings = ctx.settings
    summarizer = summarizer_for(ctx.artifacts, ctx.pages, ctx.reader, settings, ctx.image_side)
    summaries = summarizer.ensure(candidates, ctx.call, ctx.counted)
    ctx.step(f"{round_}choosing pages from {len(candidates)} summaries")
    several = multi_document(candidates)
    listing = "\n".join(
        f"Page {i}{f' ({ref.doc}, page {ref.page})' if several else f' (page {ref.page})'}: "
        f"{summaries.get(ref.key(), '(no summary)')[:settings.summary_chars]}"
        for i, ref in enumerate(candidates, 1))
    numbers = list(range(1, len(candidates) + 1))
    completion = ctx.call("select pages", ctx.text_model,
                          [Message("user", PAGE_RETRIEVAL.format(page_summaries=listing, query=query))],
                          Options(max_tokens=400, schema=selection_schema(numbers, settings.max_pages)),
                          candidates)
    chosen = list(dict.fromkeys(completion.parsed["selected_pages"]))
    return completion.parsed["document_summary"].strip(), [candidates[n - 1] for n in chosen]


def _reason(ctx: MethodContext, pages: list[PageRef], memory: list[str], query: str) -> dict:
    model = ctx.reader
    options = Options(max_tokens=ctx.settings.reasoner_tokens,
                      schema=reasoner_schema(list(range(1, len(pages) + 1))))
    page_list, page_text, images = ctx.page_block(
        pages, model, ctx.text_budget(model, options, len(pages) if model.info.vision else 0),
        ctx.settings.page_tokens, ctx.question if query == ctx.question else f"{ctx.question} {query}")
    evidence = REASONER_PAGES.format(page_list=page_list, page_text=page_text,
                                     image_note=PAGE_IMAGES_NOTE if images else "")
    request = REASONER_REQUEST.format(question=ctx.question, memory="\n\n".join(memory) or "(none yet)")
    completion = ctx.call(f"reason {ctx.answer.iterations}", model,
                          evidence_first(REASONER_INSTRUCTIONS, evidence, request, images), options, pages,
                          shows="answer", shows_when=("response", "answer"))
    return completion.parsed
