"""Whether a value matches the question's qualifiers: its year, the whole group it asks about, the subgroups it
does not name, the figure a sentence reports rather than compares against, the names it uses, its unit.

Each rule reads only the sentence (or the table cell's row and column) and the question, so it holds for any
document: "74% of seniors in the 65-69 age group" is not the seniors' figure, "$51.8 billion in fiscal 2022"
is not 2023's, "up from the 53%" is not today's.
"""
from __future__ import annotations

import re

from ...retrieval.snippets import stem
from ..toolkit.passages import QUESTION_WORDS
from .matching import TOKEN, WordSet
from .question import YEAR, YEAR_PATTERN, Question, content_words
from .sentences import Sentence
from .values import Value, carries_unit, find_values, normal

YEAR_REACH = 8  # tokens from a value within which a year dates it
_YEAR = re.compile(rf"^{YEAR_PATTERN}$")
# words that may stand before a group noun without narrowing it ("all U.S. adults", "the total revenue")
_DATING_WORDS = frozenset("in for during fiscal fy of since by year end as".split())  # "… in fiscal 2023"
# a range or bound that narrows a figure to part of a group: "65-69", "ages 18", "65+", "75 and older"
_SUBGROUP = re.compile(r"\b(?:early|mid|late)?[-\s]?\d0s\b|\b\d+\s?[-–]\s?\d+\b(?![-–])|\bages?\s+\d+|\b\d+\s?\+|\$?\d[\d,]*\s+(?:and|or)\s+(?:older|"
                       r"over|above|up|younger|under|more|less|higher|lower|fewer)\b", re.I)
# "Among seniors who have not attended college, 40% go online": the opening phrase scopes the whole sentence
_SCOPE = re.compile(r"^(?:among|for|of)\s+([^,;]{3,100}),", re.I)
# "up from the 53%", "compared with 86%": a figure the sentence compares against, not the one it reports
_DISCOURSE_OPENERS = frozenset("example instance instances course these those this that all each both".split())
_AFTER_MONTH = re.compile(r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s*$", re.I)
_BASELINE = re.compile(r"\b(?:from|than|vs\.?|versus|compared (?:with|to))\s+(?:the\s+|just\s+|only\s+|about\s+|some\s+)?$",
                       re.I)
_WHOLE_ROW = re.compile(r"^(total|all|overall)\b", re.I)
GROUP_REACH = 8  # tokens either side of a value within which the group it is said of stands
_WHOLE_WORDS = frozenset("all overall total every national average".split())
_NEUTRAL_MODIFIERS = frozenset("all overall total every the of among u s us american americans".split())


def rejection(question: Question, sentence: Sentence, page_words: WordSet | None, value: Value,
              column: int | None) -> str:
    """Why the value cannot answer the question (a qualifier it does not match), or ""."""
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
    if column is None and _BASELINE.search(sentence.text[:value.start]) and \
            not set(_years_of(sentence.text, value)) & set(question.years):
        return "a figure the sentence compares against, not the one it reports"
    missing = [n for n in question.names if not _named(n, page_words or WordSet(sentence.context))]
    return f"the page does not name {', '.join(missing)}" if missing else ""


def _cell_year_mismatch(question: Question, sentence: Sentence, column: int) -> str:
    labels = " ".join(sentence.labels(column))
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
    tokens = list(TOKEN.finditer(text))
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
    tokens = [t.group(0).lower() for t in TOKEN.finditer(text)]
    at = _token_index(list(TOKEN.finditer(text)), value.start)
    asked = {w.lower() for w in TOKEN.findall(question.text)}
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
        places = [m for m in _SUBGROUP.finditer(sentence.text) if not value.start <= m.start() < value.end
                  and not _is_span_of_time(sentence.text, m)]
    asked = normal(question.text)
    ranged = next((m.group(0) for m in places if normal(m.group(0)) not in asked), "")
    return ranged or (_unasked_scope(question, sentence.text) if column is None else "")


def _is_span_of_time(text: str, match: re.Match) -> bool:
    """"2019-2020", "Sept. 17-22": a range of years or days, not of people."""
    return bool(_YEAR.match(match.group(0)[:4])) or bool(_AFTER_MONTH.search(text[:match.start()]))


def _unasked_scope(question: Question, text: str) -> str:
    """The opening "Among …," of the sentence when it holds words the question does not use ("For example,"
    and a dating phrase with the asked year do not scope anything)."""
    scope = _SCOPE.match(text)
    if not scope or scope.group(1).split()[0].lower() in _DISCOURSE_OPENERS or \
            any(year in scope.group(1) for year in question.years):
        return ""
    extra = [w for w in content_words(scope.group(1)) if stem(w) not in question.terms]
    return scope.group(1) if extra else ""


def _named(name: str, words: WordSet) -> bool:
    stems = [w for w in TOKEN.findall(name.lower()) if len(w) > 1]
    return all(words.has(stem(w), w) for w in stems)


def _token_index(tokens: list[re.Match], position: int) -> int:
    return next((i for i, t in enumerate(tokens) if t.end() > position), len(tokens))
