"""Whether a value matches the question's qualifiers: its year, the whole group it asks about, the subgroups it
does not name, the figure a sentence reports rather than compares against, the names it uses, its unit.

Each rule reads only the sentence (or the table cell's row and column) and the question, so it holds for any
document: "74% of seniors in the 65-69 age group" is not the seniors' figure, "$51.8 billion in fiscal 2022"
is not 2023's, "up from the 53%" is not today's.
"""
from __future__ import annotations

import re

from ..toolkit.passages import QUESTION_WORDS
from .matching import TOKEN, WordSet, stem
from .question import UNITS, YEAR, YEAR_PATTERN, Question, content_words
from .sentences import Sentence
from .values import Value, carries_unit, find_values, normal

# three bare figures in a row inside the text ("Research May 2018 19 26 54 Center"): a chart's column of data
_FIGURE_RUN = re.compile(r"[A-Za-z]\S*(?:\s+\d+(?:\.\d+)?){3,}\s+[A-Za-z]")
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
COUNT_REACH = 60  # characters either side of a value within which a count of things qualifies it
NUMBER_WORDS = {w: n for n, w in enumerate("zero one two three four five six seven eight nine ten eleven twelve "
                                           "thirteen fourteen fifteen sixteen seventeen eighteen nineteen "
                                           "twenty".split())}
_COUNT_OF = re.compile(r"\b(\d[\d,]*|" + "|".join(NUMBER_WORDS) + r")\s+(?:largest\s+|biggest\s+|top\s+|"
                       r"most\s+)?([a-z]{3,})\b", re.I)
_FROM = re.compile(r"\bfrom\s+(?:the\s+|just\s+|only\s+|about\s+|some\s+)?$", re.I)
_TO_A_FIGURE = re.compile(r"^[^.;]{0,60}?\bto\s+(?:about\s+|just\s+|only\s+)?[$€£]?\d", re.I)
_DISCOURSE_OPENERS = frozenset("example instance instances course these those this that all each both".split())
_AFTER_PAGES = re.compile(r"(?:\bpp?\.|\bpages?|§|¶)\s*$", re.I)
_AFTER_MONTH = re.compile(r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s*$", re.I)
_BASELINE = re.compile(r"\b(?:from|(?<!more\s)(?<!less\s)(?<!fewer\s)(?<!greater\s)than|vs\.?|versus|compared (?:with|to))\s+(?:the\s+|just\s+|only\s+|about\s+|some\s+)?$",
                       re.I)
_OF_A_PART = re.compile(r"^\s+of\s+((?:the\s+)?time|these|those|them|which|the\s+(?:chosen|selected|remaining|"
                        r"rest|latter|former))\b", re.I)
_WHOLE_ROW = re.compile(r"^(total|all|overall)\b", re.I)
GROUP_REACH = 8  # tokens either side of a value within which the group it is said of stands
_WHOLE_WORDS = frozenset("all overall total every national average".split())
_NEUTRAL_MODIFIERS = frozenset("all overall total every the of among u s us american americans".split())


def rejection(question: Question, sentence: Sentence, page_words: WordSet | None, value: Value,
              column: int | None, subjects: frozenset[str] = frozenset()) -> str:
    """Why the value cannot answer the question (a qualifier it does not match), or "". `subjects`: the names
    of the question that most retrieved pages mention (the document's subject: "Best Buy" in its 10-K), which
    the value's page must name; its other names the sentence itself must."""
    if question.unit and not carries_unit(sentence.text, value, question.unit) and \
            not (column is not None and _mentions_unit(sentence.context, question.unit)):
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
    if column is None and _chart_residue(sentence.text):
        return "its sentence has a chart's figures run into it"
    part = _share_of_a_part(question, sentence.text, value) if column is None else ""
    if part:
        return f"a share of a part named before it (“{part}”), not of the whole"
    if column is None and _compared_against(question, sentence.text, value):
        return "a figure the sentence compares against, not the one it reports"
    other = _other_count(question, sentence.text, value) if column is None else ""
    if other:
        return f"for {other}, not what the question counts"
    if column is not None and not _labels_say_what(question, sentence, column):
        return "its row and column name nothing the question asks about but its names and years"
    said = WordSet(sentence.context)
    missing = [n for n in question.names if not _named(n, (page_words or said) if n in subjects else said)]
    if missing:
        return f"the {'page' if set(missing) <= subjects else 'sentence'} does not name {', '.join(missing)}"
    joint = _named_jointly(question, sentence.text)
    return f"for {joint} together" if joint else ""


def subject_names(question: Question, files: list[str]) -> frozenset[str]:
    """The question's names that are what the documents are about: half their words or more in a retrieved
    document's file name ("Best Buy" in "BESTBUY_2023_10K.pdf", "Harbour Solar Cooperative" in
    "harbour-solar-report.pdf"). Not "on every page retrieved": retrieval found those pages by that word."""
    named_files = [WordSet(re.sub(r"[_.-]+", " ", name)) for name in dict.fromkeys(files)]
    return frozenset(n for n in question.names if any(_mostly_named(n, f) for f in named_files))


def _mostly_named(name: str, words: WordSet) -> bool:
    parts = [w for w in TOKEN.findall(name.lower()) if len(w) > 1]
    return _named(name, words) or (bool(parts) and sum(words.has(stem(w), w) for w in parts) * 2 >= len(parts))


def _mentions_unit(text: str, unit: str) -> bool:
    """A table's header or row naming the unit its cells are in ("Output (MWh)")."""
    return any(UNITS.get(w) == unit for w in TOKEN.findall(text.lower()))


def _compared_against(question: Question, text: str, value: Value) -> bool:
    """"up from the 53%", "than 86%": the figure compared against, unless dated with the asked year; always
    the start of "from 141 days … to 92 days"."""
    if not _BASELINE.search(text[:value.start]):
        return False
    if _FROM.search(text[:value.start]) and _TO_A_FIGURE.search(text[value.end:]):
        return True
    return not set(_years_of(text, value)) & set(question.years)


def _chart_residue(text: str) -> bool:
    """A "sentence" with a chart's data run into it: three bare figures in a row between words ("… by Pew
    Research May 2018 19 26 54 Center, conducted …"), which pairs no figure with its words."""
    return bool(_FIGURE_RUN.search(text))


def _share_of_a_part(question: Question, text: str, value: Value) -> str:
    """ "15% of the tokens are chosen; a chosen token is replaced by [MASK] 80% of the time": 80% is a share of
    the chosen ones, which answers a question about them ("… of the time", "of those") and no other."""
    match = _OF_A_PART.match(text[value.end:])
    if not match or re.search(rf"\b{re.escape(match.group(1))}\b", question.text, re.I):
        return ""
    return match.group(0).strip()


def _other_count(question: Question, text: str, value: Value) -> str:
    """"our 20 largest suppliers accounted for 79%" asked about the five largest: a count of the same thing
    next to the value that is not the question's."""
    asked = {stem(thing): number for number, thing in _counted(question.text)}
    if not asked:
        return ""
    near = text[max(0, value.start - COUNT_REACH):value.end + COUNT_REACH]
    for number, thing in _counted(near):
        if stem(thing) in asked and number != asked[stem(thing)]:
            return f"{number} {thing}"
    return ""


def _counted(text: str) -> list[tuple[int, str]]:
    found = []
    for match in _COUNT_OF.finditer(text):
        word = match.group(1).lower()
        number = int(word.replace(",", "")) if word[0].isdigit() else NUMBER_WORDS[word]
        found.append((number, match.group(2)))
    return found


def _labels_say_what(question: Question, sentence: Sentence, column: int) -> bool:
    """A table cell's row label and column header hold a question word that is neither one of its names nor
    a year ("Best Buy — 2023: 1" says nothing of stores)."""
    named = {stem(w) for w in question.name_words} | set(question.years)
    labels = WordSet(" ".join(sentence.labels(column)))
    return any(labels.has(stem(w), w) for w in content_words(question.text) if stem(w) not in named)


def _named_jointly(question: Question, text: str) -> str:
    """"in the U.S. and Canada" asked about Canada: a figure for two places (or firms) together."""
    for name in question.names:
        for pattern in (rf"((?:[A-Z][\w.]*\s)*[A-Z][\w.]*)\s+(?:and|&)\s+(?:the\s+)?{re.escape(name)}\b",
                        rf"\b{re.escape(name)}\s+(?:and|&)\s+(?:the\s+)?([A-Z][\w.]*(?:\s[A-Z][\w.]*)*)"):
            match = re.search(pattern, text)
            if match and match.group(1).rstrip(".") not in question.names:
                return match.group(0)
    return ""


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
    """"2019-2020", "Sept. 17-22", "pp. 484–506": a range of years, days or pages, not of people."""
    return (bool(_YEAR.match(match.group(0)[:4])) or bool(_AFTER_MONTH.search(text[:match.start()])) or
            bool(_AFTER_PAGES.search(text[:match.start()])))


def _unasked_scope(question: Question, text: str) -> str:
    """The opening "Among …," of the sentence when it holds words the question does not use ("For example,"
    and a dating phrase with the asked year do not scope anything)."""
    scope = _SCOPE.match(text)
    if not scope or scope.group(1).split()[0].lower() in _DISCOURSE_OPENERS or \
            any(year in scope.group(1) for year in question.years) or \
            any(_named(name, WordSet(scope.group(1))) for name in question.names):  # "For Ro→De, …" asked of Ro→De
        return ""
    extra = [w for w in content_words(scope.group(1)) if stem(w) not in question.terms]
    return scope.group(1) if extra else ""


def _named(name: str, words: WordSet) -> bool:
    """Whether the words hold the name, word by word or run together ("Best Buy" in "BESTBUY_2023_10K")."""
    parts = [w for w in TOKEN.findall(name.lower()) if len(w) > 1]
    joined = "".join(parts)
    return all(words.has(stem(w), w) for w in parts) or words.has(stem(joined), joined)


def _token_index(tokens: list[re.Match], position: int) -> int:
    return next((i for i, t in enumerate(tokens) if t.end() > position), len(tokens))
