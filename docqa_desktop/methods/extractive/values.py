"""The values a sentence states — percentages, money, counts, years, dates, times, names — each a whole token.

A value is only what the sentence says as a value: "late-60s" holds no number (the digits are part of a
word), "(Wang et al., 2022)" holds no year of anything (a citation) and "Table 3" no count (a label); a
chart's axis ticks never reach a sentence (sentences.py drops them). Everything else is found with its place in the sentence, so
the scorer can tell which words of the sentence belong to which value.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from ...numbers import CURRENCY, FRACTION, GROUPED, MINUS, SCALE_WORD
from .question import (
    COUNT, DATE, FREQUENCY, LIST, MONEY, NAME_KINDS, NUMBER, PERCENT, PERSON, THING, TIME, UNITS, WHEN, YEAR,
    YEAR_PATTERN,
)
from ..toolkit.passages import QUESTION_WORDS

# no lookahead after the grouped digits: a value must be a whole token (_whole_token), so "1,2345" is none
_NUM = rf"{GROUPED}{FRACTION}|\d+{FRACTION}"
_MONTH = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?"
          r"|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?")
_YEAR_RE = YEAR_PATTERN
AMOUNT = "amount"  # a plain number (no %), what a money question takes from a table whose header names the currency
# the order is the priority where two overlap: "3 November 2024" is a date, not a count and a year
_PATTERNS = [
    (DATE, rf"\d{{1,2}}(?:st|nd|rd|th)?\s+{_MONTH}(?:,?\s+{_YEAR_RE})?|{_MONTH}\s+\d{{1,2}}(?!\d)(?:st|nd|rd|th)?"
           rf"(?:\s?[-–]\s?\d{{1,2}}(?!\d))?"
           rf"(?:,?\s+{_YEAR_RE})?|{_MONTH}\s+{_YEAR_RE}|{_YEAR_RE}-\d\d-\d\d"),
    (TIME, r"(?:[01]?\d|2[0-3]):[0-5]\d(?:\s?[ap]\.?m\.?)?|(?:1[0-2]|0?[1-9])(?:\.[0-5]\d)?\s?[ap]\.?m\.?|noon|midnight"),
    (MONEY, rf"[{MINUS}]?[{CURRENCY}]\s?(?:{_NUM})(?:\s?{SCALE_WORD}|\s?[mk]\b)?|(?:{_NUM})\s?(?:{SCALE_WORD}\s)?"
            rf"(?:dollars|euros|usd|eur|gbp)"),
    (PERCENT, rf"[{MINUS}]?(?:{_NUM})\s?(?:%|percentage points?|per cent|percent)"),
    (YEAR, _YEAR_RE),
    (NUMBER, rf"[{MINUS}]?(?:{_NUM})(?:\s{SCALE_WORD})?"),
]
_FIND = re.compile("|".join(f"(?P<{kind}>{pattern})" for kind, pattern in _PATTERNS), re.I)
# a value starts after a space or an opening mark, not inside a word ("late-60s", "COVID-19", "B2B")
_OPEN = set(" \t\n([{\"“‘'/:=~—")
_CLOSE = set(" \t\n)]}\"”’'/.,;:!?…—–")
# words that make the number after them a label, not a value: "Table 3", "page 12", "Eq. 4"
_SENTENCE_END_AFTER_M = re.compile(r"(?<![.\s])m\.$", re.I)
LABEL_WORDS = frozenset("""table tables figure figures fig figs section sections sec chapter chapters eq equation
equations appendix page pages p pp step steps line lines item items note notes footnote vol no nos part article
articles rule rules version v q question questions""".split())
_CITATION = re.compile(r"et al\.?|[A-Z][A-Za-z-]+,?\s+(?:and\s+[A-Z][A-Za-z-]+,?\s+)?" + _YEAR_RE + r"[a-z]?\b|;")
# words after which a year-like number is a year
_YEAR_WORDS = frozenset("in since by from until till to during of year years fiscal fy early late mid".split())
_NAME_WORD = re.compile(r"(?<!\w)(?:[A-Z][\w&'’.-]*\w|[A-Z])")
_CODE_WORD = re.compile(r"(?<!\w)(?:[A-Z][\w&'’.-]*\w|[A-Z]|\d+[A-Z][\w-]*\w)")  # "A320", "2WikiMultiHopQA"
# capitalised only because they open the sentence: "However", "The", "In"
_OPENING_WORDS = frozenset("however the in on at this these those there it its our we they he she his her as after "
                           "before since while although although but also finally first second third today "
                           "yesterday".split())
# words of a job title, not of a person's name: "Executive Vice President"
_TITLE_WORDS = frozenset("chief executive officer president vice director manager chairman chair counsel head "
                         "senior general secretary treasurer controller founder editor professor minister".split())
_RATIO = re.compile(r"\b\d+\s+(?:in|out of)\s+(?:every\s+)?\d+\b", re.I)
_LIST_GAP = re.compile(r"\s*(?:,|,?\s+and|,?\s+&)\s*")
_PERIOD = r"(?:day|week|fortnight|month|quarter|year|decade|hour|minute|season|spring|summer|autumn|fall|winter)"
_FREQUENCY = re.compile(
    rf"\b(?:once|twice|thrice|(?:one|two|three|four|five|six|\d+)\s+times)\s+(?:a|an|per|each|every)\s+"
    rf"(?:\d+\s+)?{_PERIOD}s?\b|\b(?:once\s+|twice\s+)?every\s+(?:other\s+|\w+\s+)?(?:\d+\s+)?{_PERIOD}s?\b|"
    rf"\b(?:daily|weekly|fortnightly|monthly|quarterly|annually|yearly|biannually|hourly|nightly)\b", re.I)
NAME_JOINERS = frozenset("of de du la le van von der den da di & the for".split())


@dataclass(frozen=True)
class Value:
    text: str  # as the sentence writes it
    kind: str  # percent | money | year | date | time | number | name
    start: int  # its place in the sentence (characters)
    end: int
    counts: bool = False  # a year-like number that counts things ("1835 claims"), not a year
    items: tuple[str, ...] = ()  # a list's names, in the sentence's order ("HOVER and FEVEROUS")


def find_values(sentence: str) -> list[Value]:
    """Every value the sentence states, in order (no names: see names())."""
    found = []
    for match in _FIND.finditer(sentence):
        kind = match.lastgroup
        start, end = match.span()
        text = match.group(0)
        if not _whole_token(sentence, start, end) or _is_label(sentence, start):
            continue
        if kind == YEAR and _in_citation(sentence, start, end):
            continue
        if kind == NUMBER and _in_reference_brackets(sentence, start, end):
            continue
        if kind == TIME and _SENTENCE_END_AFTER_M.search(text):
            text, end = text[:-1], end - 1  # "10.30am." ends the sentence: its full stop is not the time's
        found.append(Value(text.strip(), kind, start, end, kind == YEAR and _counts_things(sentence, start, end)))
    return found


def values_of_kind(kind: str, sentence: str, exclude: set[str] = frozenset()) -> list[Value]:
    """The values of the sentence that answer a question asking for `kind`, less those the question states
    itself (`exclude`, normalised with normal())."""
    if kind == LIST:
        candidates = name_lists(sentence)
    elif kind == FREQUENCY:
        candidates = frequencies(sentence)
    elif kind in NAME_KINDS:
        candidates = names(sentence, prefer_people=kind == PERSON, codes=kind == THING)
    else:
        ratios = [m.span() for m in _RATIO.finditer(sentence)]  # "9 in 10 graduates": neither is a count
        candidates = [v for v in (_as_kind(kind, v) for v in find_values(sentence)) if v is not None and
                      not any(start <= v.start < end for start, end in ratios)]
    return [v for v in candidates if normal(v.text) not in exclude]


def _as_kind(kind: str, value: Value) -> Value | None:
    """The value as an answer of `kind`, or None: a year question takes a date's year, a count takes plain
    numbers only, a number takes any amount."""
    if kind == PERCENT:
        return value if value.kind == PERCENT else None
    if kind == MONEY:
        return value if value.kind == MONEY else None
    if kind == COUNT:
        return value if (value.kind == NUMBER or value.counts) and not value.text.startswith(("-", "−")) else None
    if kind == AMOUNT:
        return value if value.kind == NUMBER else None
    if kind == NUMBER:
        return value if value.kind in (NUMBER, PERCENT, MONEY) or value.counts else None
    if kind == YEAR:
        if value.kind == YEAR:
            return None if value.counts else value
        year = re.search(_YEAR_RE, value.text) if value.kind == DATE else None
        return Value(year.group(0), YEAR, value.start + year.start(), value.start + year.end()) if year else None
    if kind == DATE:
        return value if value.kind == DATE else None
    if kind == TIME:
        return value if value.kind == TIME else None
    if kind == WHEN:
        return value if value.kind in (TIME, DATE) or (value.kind == YEAR and not value.counts) else None
    return None


def names(sentence: str, prefer_people: bool = False, codes: bool = False) -> list[Value]:
    """Runs of capitalised words ("Bernard Vincent", "Port Ellery Ferry Service"), joined by "of", "de" and the
    like; the sentence's first word only when it is not a common word. For people, runs of two or more words.
    With `codes`, a name may hold digits ("Airbus A320", "GPT-4": the names of things)."""
    words = list((_CODE_WORD if codes else _NAME_WORD).finditer(sentence))
    runs, run = [], []
    for i, match in enumerate(words):
        gap = sentence[run[-1].end():match.start()] if run else ""
        joined = run and (gap == " " or (gap.strip().lower() in NAME_JOINERS and len(gap.split()) == 1))
        if run and not joined:
            runs.append(run)
            run = []
        opens = match.start() == 0 or sentence[match.start() - 1] in "\"“‘('"
        if not run and opens and match.group(0).lower() in QUESTION_WORDS | NAME_JOINERS | _OPENING_WORDS:
            continue
        if re.fullmatch(_MONTH, match.group(0), re.I):  # "Sept" opens a date, not a name
            if run:
                runs.append(run)
                run = []
            continue
        run.append(match)
    if run:
        runs.append(run)
    found = [Value(sentence[r[0].start():r[-1].end()], "name", r[0].start(), r[-1].end()) for r in runs]
    return [v for v in found if len(v.text) > 1 and not sentence[v.end:].startswith(":")  # "Source:" is a label
            and not _in_citation(sentence, v.start, v.end)  # "(Dyer, Chahuneau, and Smith 2013)": a reference
            and (codes or not any(ch.isdigit() for ch in v.text))  # "4U9525": a code, not a person
            and (v.start > 0 or len(v.text.split()) > 1)  # one capitalised word opening a sentence says little
            and (not prefer_people or (len(v.text.split()) >= 2 and not _TITLE_WORDS & set(v.text.lower().split())))]


def name_lists(sentence: str) -> list[Value]:
    """Names listed together: "HOVER and FEVEROUS", "HotpotQA, 2WikiMultiHopQA and MuSiQue" (two or more names
    joined by commas and a last "and"), each list one value with its items."""
    found = names(sentence, codes=True)
    lists, run = [], []
    for value in found:
        if run and _LIST_GAP.fullmatch(sentence[run[-1].end:value.start]):
            run.append(value)
            continue
        if len(run) > 1:
            lists.append(run)
        run = [value]
    if len(run) > 1:
        lists.append(run)
    return [Value(sentence[r[0].start:r[-1].end], LIST, r[0].start, r[-1].end, items=tuple(v.text for v in r))
            for r in lists if " and " in sentence[r[-2].end:r[-1].start] or "&" in sentence[r[-2].end:r[-1].start]]


def frequencies(sentence: str) -> list[Value]:
    """How often, as the sentence says it: "twice a year", "every spring", "once every 3 months", "daily"."""
    return [Value(m.group(0), FREQUENCY, m.start(), m.end()) for m in _FREQUENCY.finditer(sentence)
            if _whole_token(sentence, m.start(), m.end())]


def carries_unit(sentence: str, value: Value, unit: str) -> bool:
    """Whether the value is given in `unit` (a key of question.UNITS): its own text or the word after it."""
    after = sentence[value.end:].split()
    words = value.text.lower().split()[1:] + ([after[0].lower().strip(".,;:)")] if after else [])
    return any(UNITS.get(w) == unit for w in words) or any(value.text.lower().endswith(u) and UNITS[u] == unit
                                                           for u in UNITS if len(u) > 1)


def normal(text: str) -> str:
    """A value's spelling without spaces, commas, currency signs, a closing full stop and case, for comparing
    values ("1.5" stays apart from "15")."""
    return re.sub(r"[\s,$€£¥]", "", text.lower()).rstrip(".")


def _whole_token(sentence: str, start: int, end: int) -> bool:
    before = sentence[start - 1] if start else " "
    after = sentence[end] if end < len(sentence) else " "
    if before in "-−–" and (start < 2 or sentence[start - 2].isalnum()):
        return False  # "late-60s", "COVID-19": part of a hyphenated word
    if before not in _OPEN and not (before in "-−–" and sentence[start].isdigit()):
        return False
    if after == "." and end + 1 < len(sentence) and sentence[end + 1].isalnum():
        return False
    if after in ",/:–-" and end + 1 < len(sentence) and sentence[end + 1].isdigit():
        return False  # "24/7", "05/01/2023", "2019–2020", "1:3": part of a longer figure
    if start >= 2 and before in "/:–" and sentence[start - 2].isdigit():
        return False
    return after in _CLOSE


def _counts_things(sentence: str, start: int, end: int) -> bool:
    """"1835 three-hop claims": a year-like number followed by the things it counts, not after "in", "since"…"""
    before = sentence[:start].split()
    after = sentence[end:].split()
    return (bool(after) and after[0][:1].islower() and not re.match(_MONTH, after[0], re.I) and
            not (before and before[-1].lower() in _YEAR_WORDS))


def _is_label(sentence: str, start: int) -> bool:
    before = sentence[:start].split()
    return bool(before) and (before[-1].lower().strip(".:#(") in LABEL_WORDS or before[-1].lstrip("(") in ("§", "¶"))


def _in_citation(sentence: str, start: int, end: int) -> bool:
    """A year inside a parenthesised citation ("(Chen et al., 2022; Wang, 2021)") or right after "et al."."""
    opened = sentence.rfind("(", 0, start)
    closed = sentence.rfind(")", 0, start)
    if opened > closed:
        close = sentence.find(")", end)
        inside = sentence[opened + 1:close if close != -1 else len(sentence)]
        if _CITATION.search(inside):
            return True
    return bool(re.search(r"et al\.?,?\s*$", sentence[max(0, start - 30):start]))


def _in_reference_brackets(sentence: str, start: int, end: int) -> bool:
    """A reference number: "[12]", "[3, 14-16]"."""
    opened = sentence.rfind("[", 0, start)
    closed = sentence.find("]", end)
    return opened != -1 and closed != -1 and re.fullmatch(r"[\d,\s–-]+", sentence[opened + 1:closed]) is not None
