"""MMRAG-DocQA's multi-granularity retrieval (eq. 10-16): parent pages of the best chunks, re-ranked by the LLM,
and the summary-tree nodes nearest the question.

Parent-page retrieval: the top `chunk_k` chunks (the in-page index: passages ranked by BM25 and dense scores,
fused) lead to their pages; each page's retrieval score is its best chunk's. The LLM scores every candidate
page 0–1 (toolkit page judge with the paper's re-ranking prompt and scale), and pages are ranked by
llm_weight × LLM score + (1 − llm_weight) × retrieval score (the authors' code: 0.7; eq. 12 is 1.0).

Summary retrieval: cosine similarity between the question and every written node of the documents' trees by the
text model — all layers, plus the leaves (the documents' chunks) as in RAPTOR's collapsed tree when
`tree_leaves` — best first.
"""
from __future__ import annotations

from dataclasses import dataclass

from ...answers import PageRef
from ..base import MethodContext
from ..toolkit.page_judge import judge_pages
from .prompts import rerank_rubric


@dataclass(frozen=True)
class RankedPage:
    ref: PageRef
    retrieval: float  # its best chunk's fused score
    llm: float  # the re-ranker's 0–1 score
    combined: float
    reason: str


@dataclass(frozen=True)
class TreeHit:
    layer: int  # 0: a leaf (a chunk)
    doc_id: int
    pages: list[int]
    text: str
    score: float


def parent_pages(ctx: MethodContext) -> list[tuple[PageRef, float]]:
    """The pages of the top chunk_k chunks with their best chunk's score, best first."""
    best: dict[tuple[int, int], float] = {}
    for hit in ctx.retrieve_chunks(ctx.question, ctx.settings.chunk_k):
        key = (hit.doc_id, hit.page)
        best[key] = max(best.get(key, 0.0), hit.score)
    refs = ctx.readable(ctx.pages.refs_for(list(best)))
    return sorted(((ref, best[ref.key()]) for ref in refs), key=lambda pair: -pair[1])


def rerank(ctx: MethodContext, candidates: list[tuple[PageRef, float]]) -> list[RankedPage]:
    """Every candidate scored by the LLM and ranked by the blend, best first (ties keep retrieval order)."""
    settings = ctx.settings
    refs = [ref for ref, _ in candidates]
    rubric = rerank_rubric(settings.rerank_reason_chars)
    # the prompt's budget: the context less the longest reply a full batch may need and the chat template
    budget = ctx.text_model.info.context - rubric.reply_tokens_per_page * settings.rerank_batch_pages - 64
    verdicts = judge_pages(ctx.question, refs, ctx.pages.text_or_empty, ctx.text_model, ctx.call, budget,
                           settings.rerank_page_tokens, step="rerank", max_batch_pages=settings.rerank_batch_pages,
                           rubric=rubric, steps=ctx.counted, phase=f"re-ranking {len(refs)} pages")
    weight = settings.llm_weight
    ranked = [RankedPage(ref, retrieval, verdict.score, weight * verdict.score + (1 - weight) * retrieval,
                         verdict.reason) for (ref, retrieval), verdict in zip(candidates, verdicts)]
    return sorted(ranked, key=lambda page: -page.combined)


def tree_hits(ctx: MethodContext, doc_ids: list[int], k: int) -> list[TreeHit]:
    """The k tree nodes of the documents' trees by the text model (with tree_leaves, passages too) most similar
    to the question, best first; none when no tree node is written yet."""
    nodes = ctx.trees.written_nodes(doc_ids, ctx.text_model.info.name)
    if not nodes:
        return []
    query = ctx.embed([ctx.question])[0]
    scores = ctx.trees.node_vectors([node.id for node in nodes]) @ query
    hits = [TreeHit(node.layer, node.doc_id, node.pages, node.text or "", float(score))
            for node, score in zip(nodes, scores)]
    if ctx.settings.tree_leaves:
        hits += [TreeHit(0, chunk.doc_id, [chunk.page], chunk.text, chunk.score)
                 for chunk in ctx.similar_chunks(query, k)]
    return sorted(hits, key=lambda hit: -hit.score)[:k]
