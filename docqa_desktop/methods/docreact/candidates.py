"""The candidate evidence sets Ω′ of a sub-query and their retrieval scores f(S′, [Q, A′]) (eq. 6).

The paper draws Ω′ at random from the subsets of the document; here Ω′ comes from scored retrieval: the best
pages for the sub-query and the best pages for the question, less the pages an earlier round already chose
(Lookup re-reads those), ranked by f — their score for one query, the question with the sub-query (the paper's
[Q, A′_t]) — and grouped `pages_per_set` at a time into `candidate_sets` sets. A page's f is its retrieval score
min-max scaled over the best SCORE_POOL pages for that query (0..1: where the page stands in the library's
ranking, whichever retrieval mode is on); a page outside them scores 0, and a set scores the mean of its pages.

Ranking the union by f rather than taking the two lists in turn keeps the question's own best pages when a
small model's sub-query retrieves worse: replaying the 1.5B bench's recorded sub-queries (9 answerable dev
questions, 3 one-page sets), the candidates held 50.0 % of the evidence pages this way, 27.8 % in turn.
"""
from __future__ import annotations

from dataclasses import dataclass

from ...answers import PageRef
from ..base import MethodContext

SCORE_POOL = 50  # pages ranked for [question, sub-query] to place each candidate's score


@dataclass(frozen=True)
class CandidateSet:
    pages: tuple[PageRef, ...]
    retrieval: float  # f before the temperature: 0..1


def candidate_sets(ctx: MethodContext, sub_query: str, chosen: set[tuple[int, int]]) -> list[CandidateSet]:
    """Ω′ for `sub_query`, best f first; pages in `chosen` only when nothing else is left."""
    settings = ctx.settings
    wanted = settings.candidate_sets * settings.pages_per_set
    depth = wanted + len(chosen)
    pool = ctx.readable(ctx.retrieve(sub_query, depth))
    if sub_query != ctx.question:
        pool = list(dict.fromkeys(pool + ctx.readable(ctx.retrieve(ctx.question, depth))))
    fresh = [ref for ref in pool if ref.key() not in chosen] or pool
    scores = combined_scores(ctx, f"{ctx.question} {sub_query}" if sub_query != ctx.question else sub_query)
    ranked = sorted(fresh, key=lambda ref: -scores.get(ref.key(), 0.0))[:wanted]
    groups = [ranked[i:i + settings.pages_per_set] for i in range(0, len(ranked), settings.pages_per_set)]
    return [CandidateSet(tuple(group), sum(scores.get(ref.key(), 0.0) for ref in group) / len(group))
            for group in groups]


def combined_scores(ctx: MethodContext, query: str) -> dict[tuple[int, int], float]:
    """{(doc id, page): score 0..1} of the best SCORE_POOL pages for `query`."""
    ranked = ctx.retrieve(query, SCORE_POOL)
    if not ranked:
        return {}
    low, high = min(ref.score for ref in ranked), max(ref.score for ref in ranked)
    spread = high - low
    return {ref.key(): (ref.score - low) / spread if spread else 1.0 for ref in ranked}
