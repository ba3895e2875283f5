"""Which sentence answers the question, and which value in it: relevance first, then the value's own place.

A sentence's relevance, each signal in [0, 1], from what ships with the app (no language model):
- coverage: the share of the question's content words the sentence holds, each word weighted by its rarity
  among the candidate sentences (so "revenue" on every line of a 10-K counts less than "Gull"), matched the
  way OCR leaves words (matching.WordSet);
- similarity: the cosine of the question's and the sentence's MiniLM embeddings (the index's own embedder).
Then each value of the asked kind in the best sentences gets its affinity: the share of the question's words
that stand near it (or, for a table cell, in its row label and column header), so that in "Six in ten
seniors—59%—go online, against 86% of all adults" the seniors' question takes 59 %. A value is rejected, with
the reason, when the sentence does not match a qualifier of the question: another year next to the value, a
part of the group the question asks about as a whole, a name the page never mentions, another unit.
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
from .matching import WordSet
from .question import MONEY, NUMBER, UNQUOTABLE, YEAR, Question, content_stems, content_words
from .sentences import Sentence
from .values import Value, carries_unit, find_values, normal, values_of_kind

PAGE_WEIGHT = 0.1  # the retriever's order breaks near-ties between pages
VALUE_SENTENCES = 20  # the most relevant sentences searched for a value
EMBEDDED = 40  # sentences compared with the question by meaning, the best by word coverage
NEAR = 4  # tokens from a value within which a question word fully counts; beyond, its weight halves every NEAR
YEAR_REACH = 8  # tokens from a value within which a year dates it
_TOKEN = re.compile(r"\w+")
_CURRENCY = re.compile(r"[$€£¥]|\b(dollars|euros|usd|eur|gbp|inr|rupees)\b", re.I)
_YEAR = re.compile(r"^(?:1[89]|20)\d\d$")
# words that may stand before a group noun without narrowing it ("all U.S. adults", "the total revenue")
_DATING_WORDS = frozenset("in for during fiscal fy of since by year end as".split())  # "… in fiscal 2023"
# a range or bound that narrows a figure to part of a group: "65-69", "ages 18", "65+", "75 and older"
_SUBGROUP = re.compile(r"\b(?:early|mid|late)?[-\s]?\d0s\b|\b\d+\s?[-–]\s?\d+\b(?![-–])|\bages?\s+\d+|\b\d+\s?\+|\$?\d[\d,]*\s+(?:and|or)\s+(?:older|"
                       r"over|above|up|younger|under|more|less|higher|lower|fewer)\b", re.I)
# "Among seniors who have not attended college, 40% go online": the opening phrase scopes the whole sentence
_SCOPE = re.compile(r"^(?:among|for|of)\s+([^,;]{3,100}),", re.I)
# "up from the 53%", "compared with 86%": a figure the sentence compares against, not the one it reports
_BASELINE = re.compile(r"\b(?:from|than|vs\.?|versus|compared (?:with|to))\s+(?:the\s+|just\s+|only\s+|about\s+|some\s+)?$",
                       re.I)
_WHOLE_ROW = re.compile(r"^(total|all|overall)\b", re.I)
GROUP_REACH = 8  # tokens either side of a value within which the group it is said of stands
_WHOLE_WORDS = frozenset("all overall total every national average".split())
_NEUTRAL_MODIFIERS = frozenset("all overall total every the of among u s us american americans".split())


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


@dataclass(frozen=True)
class Found:
    """A value of the asked kind in a relevant sentence."""
    scored: Scored
    value: Value
    affinity: float  # the question's weighted words near the value, or in its table row and column
    confidence: float  # in [0, 1]: coverage, similarity and affinity together
    quote: str  # the sentence, or for a table cell "row label — column header: value"
    rejected: str  # why it cannot be the answer (a qualifier it does not match), or ""


def rank(question: Question, candidates: list[Candidate],
         embed: Callable[[list[str]], np.ndarray]) -> tuple[list[Scored], dict[tuple[str, str], float]]:
    """The candidates, most relevant first, and the question's word weights among them. Only the EMBEDDED
    best by coverage are embedded (MiniLM costs ~10 ms a sentence on a CPU); the rest keep similarity 0 and
    could not have been answers anyway."""
    words = [WordSet(c.sentence.context) for c in candidates]
    weights = term_weights(question, words)
    if not candidates:
        return [], weights
    coverages = [_coverage(weights, w) for w in words]
    order = sorted(range(len(candidates)), key=lambda i: (-coverages[i], candidates[i].page_rank))
    embedded = order[:EMBEDDED]
    vectors = embed([question.text] + [candidates[i].sentence.context for i in embedded])
    similarities = dict(zip(embedded, (vectors[1:] @ vectors[0]).tolist()))
    scored = [Scored(c, coverages[i], similarities.get(i, 0.0),
                     coverages[i] + similarities.get(i, 0.0) + PAGE_WEIGHT / (1 + c.page_rank))
              for i, c in enumerate(candidates)]
    return sorted(scored, key=lambda s: -s.score), weights


def term_weights(question: Question, words: list[WordSet]) -> dict[tuple[str, str], float]:
    """(stem, word) -> weight: rarer among the candidate sentences, heavier."""
    pairs = {(stem(w), w) for w in content_words(question.text)}
    return {(t, w): math.log(1 + len(words) / (1 + sum(s.has(t, w) for s in words))) for t, w in pairs}


def value_candidates(question: Question, ranked: list[Scored], weights: dict[tuple[str, str], float]) -> list[Found]:
    """The values of the asked kind in the most relevant sentences, most confident first (rejected ones too,
    with their reasons, after the others)."""
    if question.kind is None or question.kind in UNQUOTABLE:
        return []
    stated = {normal(v.text) for v in values_of_kind(question.kind, question.text)}
    found = []
    for scored in ranked[:VALUE_SENTENCES]:
        sentence = scored.candidate.sentence
        for value in values_of_kind(_kind_in(question.kind, sentence), sentence.text, stated):
            if _in_question(value, question):
                continue
            column = _column_of(sentence, value)
            affinity = (_cell_affinity(weights, sentence, column) if column is not None
                        else _text_affinity(weights, sentence.text, value))
            confidence = 0.35 * scored.coverage + 0.25 * max(scored.similarity, 0.0) + 0.4 * affinity
            found.append(Found(scored, value, affinity, confidence, _quote(sentence, value, column),
                               _rejection(question, scored.candidate, value, column)))
    return sorted(found, key=lambda f: (bool(f.rejected), -f.confidence))


def _kind_in(kind: str, sentence: Sentence) -> str:
    """A money question takes a table's plain numbers when its header names the currency ("($ in millions)")."""
    return NUMBER if kind == MONEY and sentence.cells and _CURRENCY.search(sentence.context) else kind


def _coverage(weights: dict[tuple[str, str], float], words: WordSet) -> float:
    return sum(w for (t, word), w in weights.items() if words.has(t, word)) / (sum(weights.values()) or 1.0)


def _in_question(value: Value, question: Question) -> bool:
    """A name the question itself uses ("Germanwings" for "Which airline … Germanwings?") is not its answer."""
    return value.kind == "name" and set(content_stems(value.text)) <= question.terms


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


def _cell_affinity(weights: dict[tuple[str, str], float], sentence: Sentence, column: int) -> float:
    """The question's words in the cell's row label and its column header."""
    return _coverage(weights, WordSet(" ".join(_cell_labels(sentence, column))))


def _cell_labels(sentence: Sentence, column: int) -> list[str]:
    row_label = next((c for c in sentence.cells[:column] if c), "")
    header = sentence.header[column] if column < len(sentence.header) and sentence.header != sentence.cells else ""
    return [label for label in (row_label, header) if label]


def _text_affinity(weights: dict[tuple[str, str], float], text: str, value: Value) -> float:
    """The question's words weighted by how near the value they stand (in tokens)."""
    tokens = list(_TOKEN.finditer(text))
    first = next((i for i, t in enumerate(tokens) if t.end() > value.start), len(tokens))
    last = max(first, next((i for i in range(len(tokens) - 1, -1, -1) if tokens[i].start() < value.end), first))
    near = 0.0
    for (term, word), weight in weights.items():
        places = [i for i, t in enumerate(tokens) if not first <= i <= last and
                  (stem(t.group(0).lower()) == term or (len(word) >= 5 and word in t.group(0).lower()))]
        if places:
            distance = min(first - i if i < first else i - last for i in places)
            near += weight * (1.0 if distance <= NEAR else 0.5 ** ((distance - NEAR) / NEAR))
    return near / (sum(weights.values()) or 1.0)


def _rejection(question: Question, candidate: Candidate, value: Value, column: int | None) -> str:
    sentence = candidate.sentence
    if question.unit and not carries_unit(sentence.text, value, question.unit):
        return f"not given in {question.unit}"
    if question.years:
        why = (_cell_year_mismatch(question, sentence, column) if column is not None
               else _text_year_mismatch(question, sentence.text, value))
        if why:
            return why
    if column is None:
        narrowed = _narrowed_group(question, sentence.text, value)
        if narrowed:
            return narrowed
    subgroup = _unasked_subgroup(question, sentence, value, column)
    if subgroup:
        return f"for {subgroup} only, which the question does not ask about"
    if column is None and _BASELINE.search(sentence.text[:value.start]) and not question.years:
        return "a figure the sentence compares against, not the one it reports"
    missing = [n for n in question.names if not _named(n, candidate)]
    return f"the page does not name {', '.join(missing)}" if missing else ""


def _cell_year_mismatch(question: Question, sentence: Sentence, column: int) -> str:
    labels = " ".join(_cell_labels(sentence, column))
    if all(year in labels for year in question.years):
        return ""
    return f"its row and column do not say {', '.join(question.years)}"


def _text_year_mismatch(question: Question, text: str, value: Value) -> str:
    if not all(re.search(rf"\b{year}\b", text) for year in question.years):
        return f"the sentence does not say {', '.join(question.years)}"
    dated = _years_of(text, value)
    if dated and not set(dated) & set(question.years):
        return f"the value is for {', '.join(dated)}, not {', '.join(question.years)}"
    return ""


def _years_of(text: str, value: Value) -> list[str]:
    """The years in the sentence that date this value: a year after "in", "fiscal", "for"… dates the nearest
    value before it ("$46.3 billion in fiscal 2023"), any other year the nearest value either side."""
    tokens = list(_TOKEN.finditer(text))
    spans = [(_token_index(tokens, v.start), _token_index(tokens, v.end - 1)) for v in find_values(text)
             if v.kind != YEAR and not v.start <= value.start < v.end] + \
        [(_token_index(tokens, value.start), _token_index(tokens, value.end - 1))]
    mine = spans[-1]
    dated = []
    for i, token in enumerate(tokens):
        if not _YEAR.match(token.group(0)) or value.start <= token.start() < value.end:
            continue
        before = [s for s in spans if s[1] < i and i - s[1] <= YEAR_REACH]
        looks_back = {t.group(0).lower() for t in tokens[max(0, i - 2):i]} & _DATING_WORDS
        near = (max(before, key=lambda s: s[1]) if looks_back and before else
                min((s for s in spans if min(abs(i - s[0]), abs(i - s[1])) <= YEAR_REACH),
                    key=lambda s: min(abs(i - s[0]), abs(i - s[1])), default=None))
        if near == mine:
            dated.append(token.group(0))
    return dated


def _narrowed_group(question: Question, text: str, value: Value) -> str:
    """Where the question asks about a whole group ("all adults"), the value must be said of it: the group word
    near the value without a modifier the question does not use ("older adults" is not all adults), or "all",
    "overall", "total" near it ("91% of all Americans"); a figure said of another group ("77% of seniors") is
    not the whole group's."""
    tokens = [t.group(0).lower() for t in _TOKEN.finditer(text)]
    at = _token_index(list(_TOKEN.finditer(text)), value.start)
    asked = {w.lower() for w in _TOKEN.findall(question.text)}
    near = range(max(0, at - GROUP_REACH), min(len(tokens), at + GROUP_REACH + 1))
    for group in question.whole_groups:
        places = [i for i in near if stem(tokens[i]) == stem(group)]
        if not places:
            if not any(tokens[i] in _WHOLE_WORDS for i in near):
                return f"not said of all {group}"
            continue
        nearest = min(places, key=lambda i: abs(i - at))
        modifier = tokens[nearest - 1] if nearest else ""
        if modifier and modifier not in _NEUTRAL_MODIFIERS and modifier not in asked and \
                modifier not in QUESTION_WORDS and not modifier.isdigit():
            return f"about {modifier} {tokens[nearest]}, not all {group}"
    return ""


def _unasked_subgroup(question: Question, sentence: Sentence, value: Value, column: int | None) -> str:
    """A range the question does not name, next to the value ("74% of seniors in the 65-69 age group") or as its
    table row ("65-69"), unless the row is the total ("Total for all 65+")."""
    if column is not None:
        label = next((c for c in sentence.cells[:column] if c), "")
        if _WHOLE_ROW.match(label):
            return ""
        places = [m for m in _SUBGROUP.finditer(label)]
    else:  # a range anywhere in the sentence scopes all its figures ("Among seniors earning $75,000 or more, …")
        places = [m for m in _SUBGROUP.finditer(sentence.text) if not value.start <= m.start() < value.end]
    asked = normal(question.text)
    ranged = next((m.group(0) for m in places if normal(m.group(0)) not in asked), "")
    return ranged or (_unasked_scope(question, sentence.text) if column is None else "")


def _unasked_scope(question: Question, text: str) -> str:
    """The opening "Among …," of the sentence when it holds words the question does not use."""
    scope = _SCOPE.match(text)
    if not scope:
        return ""
    extra = [w for w in content_words(scope.group(1)) if stem(w) not in question.terms]
    return scope.group(1) if extra else ""


def _named(name: str, candidate: Candidate) -> bool:
    words = candidate.page_words or WordSet(candidate.sentence.context)
    stems = [w for w in _TOKEN.findall(name.lower()) if len(w) > 1]
    return all(words.has(stem(w), w) for w in stems)


def _token_index(tokens: list[re.Match], position: int) -> int:
    return next((i for i, t in enumerate(tokens) if t.end() > position), len(tokens))


def _quote(sentence: Sentence, value: Value, column: int | None) -> str:
    if column is None:
        return sentence.text
    return " — ".join(_cell_labels(sentence, column)) + f": {sentence.cells[column]}"
