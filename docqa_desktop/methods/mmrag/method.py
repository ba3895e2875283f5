"""MMRAG-DocQA (Gong et al., 2026; ../shared/papers/mmrag-docqa.txt): parent pages of the best in-page chunks,
re-ranked by the LLM, with the summary-tree nodes nearest the question, answered with the paper's
chain-of-thought and structured output.

Steps: retrieve `chunk_k` chunks → their parent pages ("retrieved") → the LLM scores each page 0–1 ("rerank"
calls) → the top `pages` by the blended score ("selected") → the top `tree_nodes` summary-tree nodes → one
answer call ("answer") over the pages' text and tables, each picture's description (a vision model's, else the
words inside it), the page images when the reader is a vision model, and the nodes. The reply's relevant pages
are the citations, located on the page by the answer's words. Without a summary tree by the text model (built
by `docqa prepare --method mmrag`), the answer is made without tree nodes and the trace says so.

The paper's V_q^final = LVLM(Q, V_q) (eq. 14) describes the pages' pictures for the question; here a picture's
description is the toolkit's, written once per picture by a vision model and cached (else the words inside the
picture), and a vision model also gets the page images with the answer prompt.

The answer carries its proof (quotes by page, the arithmetic for a computed value) beside the paper's four
parts; after the call the app checks it (methods/proof): one repair round, else an unverified draft.
"""
from __future__ import annotations


from ...llm import Options
from ...llm.budget import trim_to_tokens
from ..base import PROMPT_RESERVE_TOKENS, MethodContext, pages_named
from ..toolkit.final_answer import FinalAnswer
from ..toolkit.prompt_layout import PAGE_IMAGES_NOTE, evidence_first
from .prompts import CONTEXT, EXAMPLES, GUIDELINES, QUESTION, REQUEST, RESPONSE_FORMAT, SUMMARIES, answer_schema
from .retrieval import TreeHit, parent_pages, rerank, tree_hits
from .settings import check_settings

INSTRUCTIONS = f"{GUIDELINES}\n\n{RESPONSE_FORMAT}\n\n{EXAMPLES}"


def run(ctx: MethodContext) -> None:
    settings, answer = ctx.settings, ctx.answer
    check_settings(settings)
    answer.iterations = 1
    ctx.step(f"retrieving the {settings.chunk_k} best passages and their pages")
    candidates = parent_pages(ctx)
    answer.note_stage("retrieved", [ref for ref, _ in candidates])
    if not candidates:
        ctx.decline("No indexed page matches the question.")
        return
    ranked = rerank(ctx, candidates)
    selected = [page.ref for page in ranked[:settings.pages]]
    answer.notes.extend(f"rerank: {page.ref.doc} p.{page.ref.page} llm {page.llm:.1f}, retrieval "
                        f"{page.retrieval:.3f} → {page.combined:.3f}" for page in ranked)
    answer.note_stage("selected", selected)
    nodes = _tree_nodes(ctx)
    _answer(ctx, selected, nodes)


def _tree_nodes(ctx: MethodContext) -> list[TreeHit]:
    """The nearest tree nodes, with a note on the documents that have no finished tree yet."""
    if ctx.settings.tree_nodes <= 0:
        ctx.answer.notes.append("tree: summary retrieval is off (tree_nodes = 0)")
        return []
    doc_ids = ctx.search.documents()
    model = ctx.text_model.info.name
    finished = ctx.trees.finished(doc_ids, model)
    unfinished = [d for d in doc_ids if d not in finished]
    if unfinished:
        names = ctx.pages.document_names()
        listed = ", ".join(names.get(d, str(d)) for d in unfinished[:5])
        more = f" and {len(unfinished) - 5} more" if len(unfinished) > 5 else ""
        ctx.answer.notes.append(f"tree: no finished summary tree by {model} for {listed}{more}; answering with "
                                f"the nodes written so far (docqa prepare --method mmrag builds them)")
    hits = tree_hits(ctx, doc_ids, ctx.settings.tree_nodes)
    summaries = sum(hit.layer > 0 for hit in hits)
    ctx.answer.notes.append(f"tree: {len(hits)} nodes retrieved ({summaries} summaries, {len(hits) - summaries} "
                            f"leaves)")
    return hits


def _answer(ctx: MethodContext, pages, nodes: list[TreeHit]) -> None:
    settings, answer = ctx.settings, ctx.answer
    model = ctx.reader
    numbers = list(range(1, len(pages) + 1))
    options = Options(max_tokens=settings.answer_tokens,
                      schema=answer_schema(numbers, settings.analysis_steps, settings.step_chars))
    node_block = _node_block(ctx, nodes, pages)
    request = REQUEST.format(question=QUESTION.format(question=ctx.question))
    # text_budget keeps PROMPT_RESERVE_TOKENS for the instructions; the paper's, with its four examples, are longer
    around = model.count_tokens(INSTRUCTIONS + request + CONTEXT + SUMMARIES) - PROMPT_RESERVE_TOKENS
    budget = ctx.text_budget(model, options, len(pages) if model.info.vision else 0) - max(0, around)
    node_block = trim_to_tokens(model, node_block, budget // 3)  # the pages come first
    # the pages' pictures are described first (a vision model's call each, announced with counts)
    _, page_text, images = ctx.page_block(pages, model, max(100, budget - model.count_tokens(node_block)),
                                          settings.page_tokens, ctx.question, text_of=ctx.described_markdown)
    ctx.step(f"reading {pages_named(pages)}")
    context = CONTEXT.format(pages=page_text, summaries=SUMMARIES.format(nodes=node_block) if node_block else "")
    if images:
        context += "\n" + PAGE_IMAGES_NOTE
    reply = ctx.call("answer", model, evidence_first(INSTRUCTIONS, context, request, images), options, pages,
                     shows="answer").parsed
    answer.pages_used = list(pages)
    answer.note_stage("read", pages)
    relevant = [pages[n - 1] for n in dict.fromkeys(reply["relevant_pages"])]
    ctx.conclude(FinalAnswer.from_reply(reply), pages, [(ref, "") for ref in relevant], relevant or pages)


def _node_block(ctx: MethodContext, nodes: list[TreeHit], pages) -> str:
    """The tree nodes, each with the pages it covers, cut to node_tokens each."""
    several = len({hit.doc_id for hit in nodes} | {ref.doc_id for ref in pages}) > 1
    names = ctx.pages.document_names() if several else {}
    lines = []
    for hit in nodes:
        covered = ", ".join(str(p) for p in hit.pages[:12]) + (" …" if len(hit.pages) > 12 else "")
        where = f"{names.get(hit.doc_id, '')}, " if several else ""
        kind = "summary" if hit.layer else "passage"
        text = trim_to_tokens(ctx.text_model, hit.text, ctx.settings.node_tokens)
        lines.append(f"[{kind} of {where}document page{'s' if len(hit.pages) > 1 else ''} {covered}]\n{text}")
    return "\n\n".join(lines)
