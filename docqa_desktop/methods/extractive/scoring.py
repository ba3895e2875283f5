"""Which sentence answers the question, and which value in it: relevance first, then the value's own place.

A sentence's relevance, each signal in [0, 1], from what ships with the app (no language model):
- coverage: the share of the question's content words the sentence holds, each word weighted by its rarity
  among the candidate sentences (so "revenue" on every line of a 10-K counts less than "Gull"), matched the
  way OCR leaves words (matching.WordSet);
- similarity: the cosine of the question's and the sentence's MiniLM embeddings (the index's own embedder).
Then each value of the asked kind in the best sentences gets its affinity: the share of the question's words
that stand near it (or, for a table cell, in its row label and column header), so that in "Six in ten
seniors—59%—go online, against 86% of all adults" the seniors' question takes 59 %. A value is rejected, with
the reason, when the sentence does not match a qualifier of the question (qualifiers.py).
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Callable, NamedTuple

import numpy as np

from ...answers import PageRef
from .matching import TOKEN, WordSet, glued, stem
from .qualifiers import rejection
from .question import KIND_WORDS, LIST, MONEY, THING, YES_NO, Question, content_words
from .sentences import Sentence
from .values import AMOUNT, Value, find_values, normal, values_of_kind

PAGE_WEIGHT = 0.1  # the retriever's order breaks near-ties between pages
VALUE_SENTENCES = 20  # the most relevant sentences searched for a value
ACRONYM = 5  # a name in capitals this long at most is an acronym ("NATO"); longer, a heading
CORE_SHARE = 0.8  # a question word this close to the rarest one's weight is one an answer's sentence must hold
CORE_WORDS = 2  # ... the two rarest such at most: a long question has many rare words a paraphrase drops
EMBEDDED = 40  # sentences compared with the question by meaning, the best by word coverage
NEAR = 4  # a question word's weight halves every NEAR tokens away from the value
_CLAUSE_BREAK = re.compile(r";|,(?!\d)|\b(?:and|but|while|whereas)\b")
_WORDS_BETWEEN = re.compile(r"[^\W\d_]")  # a letter: figures with none between them stand side by side
_CURRENCY = re.compile(r"[$€£¥]|\b(dollars|euros|usd|eur|gbp|inr|rupees)\b", re.I)


@dataclass(frozen=True)
class Candidate:
    ref: PageRef
    sentence: Sentence
    page_rank: int  # the page's place in the retrieval, 0 = best
    page_words: WordSet | None = None  # the whole page's words: names the question asks about must be there


@dataclass(frozen=True)
class Scored:
    candidate: Candidate
    coverage: float
    similarity: float
    score: float
    words: WordSet  # the sentence's words (with its table header), made once for every check that reads them


@dataclass(frozen=True)
class Found:
    """A value of the asked kind in a relevant sentence."""
    scored: Scored
    value: Value
    affinity: float  # the question's weighted words near the value, or in its table row and column
    confidence: float  # in [0, 1]: coverage, similarity and affinity together
    quote: str  # the sentence, or for a table cell "row label — column header: value"
    rejected: str  # why it cannot be the answer (a qualifier it does not match), or ""


class Ranking(NamedTuple):
    sentences: list[Scored]  # most relevant first
    weights: dict[tuple[str, str], float]  # the question's words: (stem, word) -> weight among the candidates
    core: list[tuple[str, str]]  # the words an answer's sentence must hold (core_terms)


def rank(question: Question, candidates: list[Candidate], embed: Callable[[list[str]], np.ndarray]) -> Ranking:
    """The candidates, most relevant first, with the question's word weights among them. Only the EMBEDDED
    best by coverage are embedded (MiniLM costs ~10 ms a sentence on a CPU); the rest keep similarity 0 and
    could not have been answers anyway."""
    words = [WordSet(c.sentence.context) for c in candidates]
    weights, core = term_weights(question, words), core_terms(question, words)
    if not candidates:
        return Ranking([], weights, core)
    coverages = [_coverage(weights, w) for w in words]
    order = sorted(range(len(candidates)), key=lambda i: (-coverages[i], candidates[i].page_rank))
    embedded = order[:EMBEDDED]
    vectors = embed([question.text] + [candidates[i].sentence.context for i in embedded])
    similarities = dict(zip(embedded, (vectors[1:] @ vectors[0]).tolist()))
    scored = [Scored(c, coverages[i], similarities.get(i, 0.0),
                     coverages[i] + similarities.get(i, 0.0) + PAGE_WEIGHT / (1 + c.page_rank), words[i])
              for i, c in enumerate(candidates)]
    return Ranking(sorted(scored, key=lambda s: -s.score), weights, core)


def term_weights(question: Question, words: list[WordSet]) -> dict[tuple[str, str], float]:
    """(stem, word) -> weight: rarer among the candidate sentences, heavier."""
    return {key: math.log(1 + len(words) / (1 + found)) for key, found in _frequencies(question, words).items()}


def core_terms(question: Question, words: list[WordSet]) -> list[tuple[str, str]]:
    """The question's most specific words that the pages use: those at least CORE_SHARE as rare as the rarest
    one found in some candidate sentence. An answer's sentence must hold them all ("blogs" in "how many blogs
    mentioned Germanwings", "Appliances" in "the comparable sales change for Appliances"). A word no sentence
    holds says nothing of which one answers (a synonym, a paraphrase)."""
    # codes mixing letters and digits ("4U9525") name what the page is about, like names: not a topic word
    found = {key: n for key, n in _frequencies(question, words).items()
             if n and not (any(c.isdigit() for c in key[1]) and any(c.isalpha() for c in key[1]))}
    if not found:
        return []
    rarest = min(found.values())
    close = [key for key, n in found.items() if math.log(1 + len(words) / (1 + n)) >=
             CORE_SHARE * math.log(1 + len(words) / (1 + rarest))]
    return sorted(close, key=lambda key: (found[key], -len(key[1])))[:CORE_WORDS]


def _frequencies(question: Question, words: list[WordSet]) -> dict[tuple[str, str], int]:
    pairs = {(stem(w), w) for w in content_words(question.text)
             if w not in question.name_words and w not in KIND_WORDS}
    return {(t, w): sum(s.has(t, w) for s in words) for t, w in pairs}


def value_candidates(question: Question, ranking: Ranking, subjects: frozenset[str] = frozenset()) -> list[Found]:
    """The values of the asked kind in the most relevant sentences, most confident first (rejected ones too,
    with their reasons, after the others). `subjects`: see qualifiers.rejection."""
    weights = ranking.weights
    if question.kind is None or question.kind == YES_NO:
        return []
    # the question's own figures and years are what it asks about, never its answer
    stated = {normal(v.text) for v in find_values(question.text)} | set(question.years)
    found = []
    for scored in ranking.sentences[:VALUE_SENTENCES]:
        sentence = scored.candidate.sentence
        lacking = [word for term, word in ranking.core if not scored.words.has(term, word)]
        for value in values_of_kind(_kind_in(question.kind, sentence), sentence.text, stated):
            value = _less_asked(value, question) if question.kind == THING else value
            if value is None or _in_question(value, question):
                continue
            column = _column_of(sentence, value)
            affinity = (_cell_affinity(weights, scored, column) if column is not None
                        else _text_affinity(weights, sentence.text, value))
            confidence = 0.35 * scored.coverage + 0.25 * max(scored.similarity, 0.0) + 0.4 * affinity
            why = (f"the sentence does not mention {', '.join(lacking)}" if lacking else
                   _miscounted(question, value) or
                   rejection(question, sentence, scored.candidate.page_words, value, column, subjects))
            found.append(Found(scored, value, affinity, confidence, _quote(sentence, value, column), why))
    return sorted(found, key=lambda f: (bool(f.rejected), -f.confidence))


def _kind_in(kind: str, sentence: Sentence) -> str:
    """A money question takes a table's plain numbers when its header names the currency ("($ in millions)")."""
    return AMOUNT if kind == MONEY and sentence.cells and _CURRENCY.search(sentence.context) else kind


def _coverage(weights: dict[tuple[str, str], float], words: WordSet) -> float:
    return sum(w for (t, word), w in weights.items() if words.has(t, word)) / (sum(weights.values()) or 1.0)


def _in_question(value: Value, question: Question) -> bool:
    """A name sharing a word with the question ("Germanwings", "QUICK FACTS STRATEGIES" for "… Germanwings, on
    the quick facts slide?") is what it asks about, not its answer; a heading in capitals is no name. A list
    naming one of those is no answer either."""
    if value.kind == LIST:  # its items may be in capitals: datasets are ("HOVER and FEVEROUS")
        return any({stem(w) for w in TOKEN.findall(item.lower())} & _asked_stems(question) for item in value.items)
    if value.kind != "name":
        return False
    words = {stem(w) for w in TOKEN.findall(value.text.lower())}
    return bool(words & _asked_stems(question)) or (value.text.isupper() and len(value.text) > ACRONYM)


def _asked_stems(question: Question) -> set[str]:
    return set(question.terms) | {stem(w) for w in question.name_words}


def _less_asked(value: Value, question: Question) -> Value | None:
    """A thing's name less the words the question names at its start ("Germanwings Airbus A320" asked about the
    Germanwings crash: "Airbus A320"); None when nothing is left."""
    asked = _asked_stems(question)
    tokens = list(TOKEN.finditer(value.text))
    first = next((i for i, t in enumerate(tokens) if stem(t.group(0)) not in asked), None)
    if first is None:
        return None
    start = tokens[first].start()
    return Value(value.text[start:], value.kind, value.start + start, value.end) if start else value


def _miscounted(question: Question, value: Value) -> str:
    """A list of another length than the question asks for ("which two datasets")."""
    if value.kind == LIST and question.count and len(value.items) != question.count:
        return f"the sentence lists {len(value.items)}, the question asks for {question.count}"
    return ""


def _column_of(sentence: Sentence, value: Value) -> int | None:
    """The table column whose cell holds the value, or None for running text."""
    if not sentence.cells:
        return None
    position = 0
    for column, cell in enumerate(sentence.cells):
        if not cell:
            continue
        start = sentence.text.find(cell, position)
        if start <= value.start < start + len(cell):
            return column
        position = start + len(cell)
    return None


def _cell_affinity(weights: dict[tuple[str, str], float], scored: Scored, column: int) -> float:
    """Of the question's words the row holds (with its header), the share in the cell's own row label and
    column header."""
    held = _coverage(weights, scored.words)
    labels = WordSet(" ".join(scored.candidate.sentence.labels(column)))
    return _coverage(weights, labels) / held if held else 0.0


def _text_affinity(weights: dict[tuple[str, str], float], text: str, value: Value) -> float:
    """Of the question's words the sentence holds, the share that stands next to the value: each counts fully
    beside it and half every NEAR tokens further (the nearest place of each word)."""
    tokens = list(TOKEN.finditer(text))
    lowered = [t.group(0).lower() for t in tokens]
    stems = [stem(t) for t in lowered]
    start, end = _run_of(text, value)
    first = next((i for i, t in enumerate(tokens) if t.end() > start), len(tokens))
    last = max(first, next((i for i in range(len(tokens) - 1, -1, -1) if tokens[i].start() < end), first))
    near = held = 0.0
    for (term, word), weight in weights.items():
        places = [i for i in range(len(tokens)) if not first <= i <= last and
                  (stems[i] == term or glued(lowered[i], word))]
        if places:
            distance = min((first - i if i < first else i - last) +
                           NEAR * _clauses_between(text, tokens[i].start(), start, end) for i in places)
            near += weight * 0.5 ** ((distance - 1) / NEAR)
            held += weight
    return near / held if held else 0.0


def _clauses_between(text: str, position: int, start: int, end: int) -> int:
    """Clause breaks (";", a comma not inside a number, "and", "but", "while") between a word and a value: in
    "1,000 sentences as the test set and the 2,000 sentences as the validation set", "test" is 1,000's."""
    between = text[position:start] if position < start else text[end:position]
    return len(_CLAUSE_BREAK.findall(between))


def _run_of(text: str, value: Value) -> tuple[int, int]:
    """The span of the run of figures standing side by side that the value is part of ("Semantic error 29% 38%
    77%": all three stand as near the label), or the value's own span."""
    values = find_values(text)
    start = min((v.start for v in values if v.end <= value.start and not _WORDS_BETWEEN.search(text[v.end:value.start])),
                default=value.start)
    end = max((v.end for v in values if v.start >= value.end and not _WORDS_BETWEEN.search(text[value.end:v.start])),
              default=value.end)
    return start, end


def _quote(sentence: Sentence, value: Value, column: int | None) -> str:
    if column is None:
        return sentence.text
    return " — ".join(sentence.labels(column)) + f": {sentence.cells[column]}"
