"""The candidate evidence sets Ω′ of a sub-query and their retrieval scores f(S′, [Q, A′]) (eq. 6).

The paper draws Ω′ at random from the subsets of the document; here Ω′ is drawn from scored retrieval: the best
pages for the sub-query and for the question, taken in turn, without the pages an earlier round already chose
(Lookup re-reads those), grouped `pages_per_set` at a time into `candidate_sets` sets. All candidates are then
scored against one query, the question with the sub-query (the paper's [Q, A′_t]), so their scores compare:
each page's retrieval score is min-max scaled over the best SCORE_POOL pages for that query (0..1, where the
page stands in the library's ranking, whichever retrieval mode is on), a page outside them scores 0, and a set
scores the mean of its pages.
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import chain, zip_longest

from ...answers import PageRef
from ..base import MethodContext

SCORE_POOL = 50  # pages ranked for [question, sub-query] to place each candidate's score


@dataclass(frozen=True)
class CandidateSet:
    pages: tuple[PageRef, ...]
    retrieval: float  # f before the temperature: 0..1


def candidate_sets(ctx: MethodContext, sub_query: str, chosen: set[tuple[int, int]]) -> list[CandidateSet]:
    """Ω′ for `sub_query`, best-retrieved first; pages in `chosen` only when nothing else is left."""
    settings = ctx.settings
    wanted = settings.candidate_sets * settings.pages_per_set
    depth = wanted + len(chosen)
    by_query = ctx.readable(ctx.retrieve(sub_query, depth))
    by_question = ctx.readable(ctx.retrieve(ctx.question, depth)) if sub_query != ctx.question else []
    pool = list(dict.fromkeys(ref for ref in chain.from_iterable(zip_longest(by_query, by_question))
                              if ref is not None))
    fresh = [ref for ref in pool if ref.key() not in chosen]
    pool = (fresh or pool)[:wanted]
    scores = combined_scores(ctx, f"{ctx.question} {sub_query}" if sub_query != ctx.question else sub_query)
    groups = [pool[i:i + settings.pages_per_set] for i in range(0, len(pool), settings.pages_per_set)]
    sets = [CandidateSet(tuple(group), sum(scores.get(ref.key(), 0.0) for ref in group) / len(group))
            for group in groups]
    return sorted(sets, key=lambda s: -s.retrieval)


def combined_scores(ctx: MethodContext, query: str) -> dict[tuple[int, int], float]:
    """{(doc id, page): score 0..1} of the best SCORE_POOL pages for `query`."""
    ranked = ctx.retrieve(query, SCORE_POOL)
    if not ranked:
        return {}
    low, high = min(ref.score for ref in ranked), max(ref.score for ref in ranked)
    spread = high - low
    return {ref.key(): (ref.score - low) / spread if spread else 1.0 for ref in ranked}
