"""Which sentence answers the question: its share of the question's words, its meaning, and the kind of value.

Three signals, each in [0, 1], all from what ships with the app (no language model):
- coverage: the share of the question's content words the sentence holds, each word weighted by its rarity
  among the candidate sentences (so "revenue" on every line of a 10-K counts less than "Gull");
- similarity: the cosine of the question's and the sentence's MiniLM embeddings (the index's own embedder);
- kind: whether the sentence holds a value of the kind the question asks for (answer_types).
A sentence is a confident answer only when enough of the question is in it, it means something close, and it
holds the asked kind of value; otherwise the method declines and shows the closest sentence.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ...answers import PageRef
from ...retrieval.snippets import stem
from ..toolkit.passages import QUESTION_WORDS
from .answer_types import answer_kind, spans
from .sentences import Sentence

KIND_WEIGHT = 0.3  # a sentence holding the asked kind of value ranks above one that only repeats the question
PAGE_WEIGHT = 0.1  # the retriever's order breaks near-ties between pages
_WORD = re.compile(r"\w+")
# "Please write down the answer in float format": how to answer, not what about
_FORMAT_REQUEST = re.compile(r"\s*\bplease (write|answer|give|provide|respond|reply|use)\b.*$", re.I | re.S)


@dataclass(frozen=True)
class Candidate:
    ref: PageRef
    sentence: Sentence
    page_rank: int  # the page's place in the retrieval, 0 = best


@dataclass(frozen=True)
class Scored:
    candidate: Candidate
    coverage: float
    similarity: float
    span: str  # the first value of the asked kind ("" when the question asks for none or the sentence has none)
    score: float
    confident: bool


def rank(question: str, candidates: list[Candidate], embed: Callable[[list[str]], np.ndarray],
         min_coverage: float, min_similarity: float) -> list[Scored]:
    """The candidates best first, each with its signals and whether it answers confidently."""
    question = _FORMAT_REQUEST.sub("", question) or question
    terms = content_stems(question)
    if not candidates:
        return []
    stems = [set(map(stem, _WORD.findall(c.sentence.context.lower()))) for c in candidates]
    weights = {t: math.log(1 + len(candidates) / (1 + sum(t in s for s in stems))) for t in terms}
    vectors = embed([question] + [c.sentence.context for c in candidates])
    similarities = vectors[1:] @ vectors[0]
    kind = answer_kind(question)
    scored = []
    for candidate, words, similarity in zip(candidates, stems, similarities):
        coverage = sum(w for t, w in weights.items() if t in words) / (sum(weights.values()) or 1.0)
        found = spans(kind, candidate.sentence.text, question) if kind else []
        has_kind = kind is None or bool(found)
        score = (coverage + float(similarity) + KIND_WEIGHT * (kind is not None and has_kind)
                 + PAGE_WEIGHT / (1 + candidate.page_rank))
        scored.append(Scored(candidate, coverage, float(similarity), found[0] if found else "", score,
                             coverage >= min_coverage and similarity >= min_similarity and has_kind))
    return sorted(scored, key=lambda s: -s.score)


def content_stems(question: str) -> set[str]:
    """The question's words that say what it is about (not "what", "does", "the"), stemmed."""
    return {stem(w) for w in _WORD.findall(question.lower()) if w not in QUESTION_WORDS and len(w) > 1}
