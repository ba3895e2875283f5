"""What a question asks: the kind of value, the words it is about, and the qualifiers an answer must match.

"What percentage of all adults had broadband in 2013?" asks for a percentage, about adults/broadband, and
qualifies it twice: the group ("all adults", not "older adults") and the year (2013, not 2012). A value that
is of another kind, or a sentence that drops a qualifier, is not its answer, however many words it shares.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from ..toolkit.passages import QUESTION_WORDS
from .matching import stem

PERCENT, MONEY, COUNT, NUMBER = "percent", "money", "count", "number"
YEAR, DATE, TIME, WHEN = "year", "date", "time", "when"
PERSON, ORGANISATION, PLACE = "person", "organisation", "place"
THING = "thing"  # the name of a thing: an aircraft type, a product, a dataset, a tool ("Airbus A320", "HOVER")
FREQUENCY = "frequency"  # how often: "twice a year", "every spring", "daily"
YES_NO, LIST = "yes/no", "list"
NAME_KINDS = (PERSON, ORGANISATION, PLACE, THING)
# kinds no extracted value can answer: whether something holds, or several things at once
UNQUOTABLE = (YES_NO, LIST)

_MONEY_WORDS = (r"revenues?|sales|income|costs?|price|profits?|earnings|fares?|fees?|spend\w*|budget|salary|"
                r"salaries|paid|pay|dividends?|expenses?|cash|worth|assets|debt|dollars?|euros?|valuation")
# what a number measures: "what accuracy does X achieve", "what was the growth rate", "what BLEU score"
_MEASURES = (r"score|scores|accuracy|f1|bleu|recall|precision|rate|ratio|change|growth|increase|decrease|decline|"
             r"margin|return|yield|speed|distance|duration|size")
_KINDS = [  # first match wins: "what time" before "when", "how many percent" before "how many"
    (YES_NO, r"^(is|are|was|were|do|does|did|can|could|has|have|had|will|would|should|shall)\b"),
    (LIST, r"^(list|name (all|the))\b|\bwhat are (the|all)\b.*\b(names|types|kinds)\b|"
           r"\bwhich \w+[^s\W]s (are|were|does|do|did|is|was)\b|\b(which|what) (two|three|four|five|six) \w+"),
    (TIME, r"\bwhat time\b|\bat what hour\b"),
    (YEAR, r"\b(what|which|in what|in which) year\b"),
    (DATE, r"\b(what|which|on what|on which) (date|dates|month|day)\b"),
    (WHEN, r"^\s*when\b"),  # a time, a date or a year: "when does the ferry leave", "when did the war end"
    (FREQUENCY, r"\bhow (often|frequently)\b|\bat what (interval|frequency)\b"),
    (PERCENT, r"\bpercent(age)?s?\b|%|\bwhat (share|proportion|fraction)\b|\bhow many percent\b"),
    # "what was the comparable sales change": a change or a rate of money is not an amount of money
    (NUMBER, rf"\b(what|how much)\b[^?]*\b({_MEASURES})\b"),
    (MONEY, rf"\bhow much\b.*\b({_MONEY_WORDS})\b|\bwhat (is|was|were|are)\b[^?]{{0,40}}\b({_MONEY_WORDS})\b"),
    (COUNT, r"\bhow many\b|\b(what|which) (is|was) the number\b|\bnumber of\b"),
    (NUMBER, r"\bhow (much|long|old|far|big|large|high|tall|often|fast|heavy)\b|\bwhat (is|was|were|are)\b"
             r"[^?]{0,40}\b(total|amount|value|size|average|median|capacity|length|height|weight|area|population|"
             r"output|count|valuation|gmv)\b"),
    (PERSON, r"^who\b|\bwho (is|was|were|are)\b|\bwhose\b|\bwhich (\w+ )?(person|people|author|leader|ceo|"
             r"president|minister|editor|officer|executive|founder|chair|chairman|chairwoman|director|manager)\b"),
    (ORGANISATION, r"\bwhich (company|companies|organi[sz]ation|firm|agency|airline|university|institution|bank|"
                   r"brand|manufacturer|newspaper|party|team)\b"),
    (PLACE, r"^where\b|\bwhere (is|was|were|are|did|does|do)\b|\b(which|what|in which|in what) (city|country|"
            r"state|place|town|region|airport|location|continent|province)\b"),
    (THING, r"\b(which|what) (\w+ )?(aircraft|airplane|plane|model|product|dataset|tool|software|algorithm|"
            r"device|vehicle|engine|framework|library|benchmark|drug|vaccine|ship|car|phone|chip|processor)\b|"
            r"\b(which|what) (type|kind|make|brand) of\b"),
]
_KIND_PATTERNS = [(kind, re.compile(pattern, re.I)) for kind, pattern in _KINDS]
# "Please write down the answer in float format": how to answer, not what about
_FORMAT_REQUEST = re.compile(r"\s*\bplease (write|answer|give|provide|respond|reply|use)\b.*$|"
                             r"(?<=\?)\s*(?:answer|round|write|give|express|provide|keep)\b[^?]*$", re.I | re.S)
YEAR_PATTERN = r"(?:1[89]|20)\d\d"  # a year as written: 1800-2099
_YEAR = re.compile(rf"(?:\bFY\s?|\b)({YEAR_PATTERN})\b")  # "2023", "FY2023"
# "all adults", "overall revenue": the whole group, which a sentence about a part of it ("older adults") is not
_WHOLE_GROUP = re.compile(r"\b(?:all|overall|total|every)\s+(?:the\s+)?(?:u\.s\.\s+)?([a-z]{3,})", re.I)
# words that say how to find or hedge the answer, not what it is about ("according to the survey, about how …")
FILLER_WORDS = frozenset("""according approximately roughly about around nearly almost exactly just also now currently
say says said state states stated report reported reports mention mentioned list listed give given show shown shows
document paper article deck slide slides chart graph page table figure use used uses using achieve achieves achieved
reach reaches reached obtain obtained get gets got make makes made come comes came take takes took ending ended
more than less most""".split())
# words that say what kind of value is asked, or of how much of a group: never what an answer's sentence must name
KIND_WORDS = frozenset("""percentage percent percentages share proportion fraction number numbers amount total value
figure count many much all overall every each date time year years score scores accuracy rate ratio change growth
size""".split())
# "every year", "the total number": a measure or a span of time, not a group of people or things
MEASURE_NOUNS = frozenset("number amount amounts year years day days week weeks month months time times hour hours "
                          "quarter quarters period".split())
_WORD = re.compile(r"\w+")
_NAME = re.compile(r"\b[A-Z][\w&'’.-]*[\w]")
_REFERENCE_WORDS = frozenset("table figure fig section chapter appendix page slide exhibit item part".split())
_POSSESSIVE = re.compile(r"['’]s$")
# measurement units a question can ask its value in; the value must carry the same one
UNITS = {unit: group for group, units in {
    "km": "km kilometre kilometres kilometer kilometers", "mile": "mile miles mi",
    "kg": "kg kilogram kilograms kilo kilos", "tonne": "t tonne tonnes ton tons",
    "hour": "h hr hrs hour hours", "minute": "min mins minute minutes", "second": "s sec secs second seconds",
    "day": "day days", "week": "week weeks", "month": "month months",
    "mw": "mw megawatt megawatts", "gw": "gw gigawatt gigawatts", "kw": "kw kilowatt kilowatts",
    "mwh": "mwh", "gwh": "gwh", "kwh": "kwh",
    "m2": "m2 m² sqm", "ha": "ha hectare hectares", "acre": "acre acres",
    "litre": "l litre litres liter liters", "gb": "gb gigabyte gigabytes", "tb": "tb terabyte terabytes",
    "mb": "mb megabyte megabytes",
}.items() for unit in units.split()}
COUNT_WORDS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "both": 2}
_COUNT_ASKED = re.compile(r"\b(?:which|what|name|list)\s+(?:the\s+)?(two|three|four|five|six)\b", re.I)
CITED = re.compile(r"\([^()]*\bet al\.?,?\s*(?:19|20)\d\d[a-z]?\)")
_UNIT_IN_QUESTION = re.compile(r"\b(?:in|how many)\s+(\w+)\b", re.I)


@dataclass(frozen=True)
class Question:
    text: str  # as asked, less any request about the answer's format
    kind: str | None  # one of the kinds above; None: a question no single value answers ("why", "what is")
    terms: frozenset[str]  # its content words, stemmed
    years: tuple[str, ...]  # years it names ("revenue in 2023"): the answer's sentence or table must name them
    whole_groups: tuple[str, ...]  # nouns it asks about as a whole ("all adults" -> "adults")
    names: tuple[str, ...]  # proper nouns it names (places, organisations), which the answer's page must name
    unit: str | None  # a unit it asks the value in ("how many kilometres"), as UNITS' key
    count: int | None = None  # how many things a list question asks for ("which two datasets"): 2

    @property
    def name_words(self) -> frozenset[str]:
        """The words of its names, lower case: checked as names (qualifiers), not weighed as topic words."""
        return frozenset(w.lower() for name in self.names for w in _WORD.findall(name))


def parse_question(asked: str) -> Question:
    text = _FORMAT_REQUEST.sub("", asked).strip() or asked.strip()
    kind = next((k for k, pattern in _KIND_PATTERNS if pattern.search(text)), None)
    uncited = CITED.sub("", text)  # "(Ni et al., 2023)" names a paper, not a year the answer is for
    years = () if kind in (YEAR, DATE, WHEN) else tuple(dict.fromkeys(_YEAR.findall(uncited)))
    groups = (m.group(1).lower() for m in _WHOLE_GROUP.finditer(text))
    return Question(text, kind, frozenset(content_stems(text)), years,
                    tuple(dict.fromkeys(g for g in groups if g not in MEASURE_NOUNS)),
                    _names(text), _unit(text), _count(text) if kind == LIST else None)


def content_words(text: str) -> list[str]:
    """The words that say what a text is about (not "what", "does", "the"; digits do: the 4 of "4-hop"), in order."""
    return [w for w in _WORD.findall(text.lower())
            if w not in QUESTION_WORDS and w not in FILLER_WORDS and (len(w) > 1 or w.isdigit())]


def content_stems(text: str) -> list[str]:
    return [stem(w) for w in content_words(text)]


def _names(text: str) -> tuple[str, ...]:
    """Runs of capitalised words after the first word (capitalised anyway): "Best Buy", "Port Ellery", "HOVER";
    less question words and codes with digits ("FY2023", "GPT-4": figures and labels, not names)."""
    first = _WORD.search(text)
    runs: list[list[re.Match]] = []
    for match in _NAME.finditer(text):
        if (first and match.start() <= first.start()) or match.group(0).lower() in QUESTION_WORDS or \
                match.group(0) in ("I", "A") or any(ch.isdigit() for ch in match.group(0)) or \
                match.group(0).lower() in _REFERENCE_WORDS:
            continue
        if runs and text[runs[-1][-1].end():match.start()] == " ":
            runs[-1].append(match)
        else:
            runs.append([match])
    found = (_POSSESSIVE.sub("", text[run[0].start():run[-1].end()]) for run in runs)
    return tuple(dict.fromkeys(found))


def _count(text: str) -> int | None:
    """ "Which two datasets …": 2."""
    match = _COUNT_ASKED.search(text)
    return COUNT_WORDS[match.group(1).lower()] if match else None


def _unit(text: str) -> str | None:
    for match in _UNIT_IN_QUESTION.finditer(text):
        unit = UNITS.get(match.group(1).lower())
        if unit:
            return unit
    return None
