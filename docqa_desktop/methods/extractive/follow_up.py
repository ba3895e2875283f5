"""A follow-up read as a standalone question: its pronouns and what it leaves out taken from the thread.

After "How many stores did Best Buy have at the end of fiscal 2023?", "And how many employees did it have?" is
about Best Buy at the end of fiscal 2023; read alone, it finds store tables (the words it shares with the
thread) or nothing. `standalone(follow_up, previous)` writes it out in full against the previous question as it
was read (itself a standalone question, so a chain of follow-ups keeps its subject):

- a pronoun for the subject ("it", "its", "they", "their", "the company", "this firm", "did this have")
  becomes the previous question's subject, the name it is about ("Best Buy": the owner of a possessive, the
  name after "did"/"does", else its first name), and the previous question's period ("at the end of fiscal
  2023") is added when the follow-up names none ("that year" and "the year before" are read against it);
- an elision ("And in 2012?", "What about Walmart?", "And employees?", "And the year before?") is the previous
  question with the period, the subject or the thing counted put in its place; a thing that has no place to
  go ("What about net income?" after "How many stores …") is asked with the subject and the period added.

A follow-up that names its own subject, or has neither a pronoun of the subject nor an elision, stands on its
own and is returned as asked; so is one whose previous question names no subject to resolve it against.
"Them" is left as asked: it is as often what was counted ("when did they open them?"). No model is asked:
plain patterns, so the result is the same every time, and shown to the reader ("Read as").
"""
from __future__ import annotations

import re

from .question import (COUNT, LIST, MONEY, NUMBER, PERCENT, PERSON, YEAR_PATTERN, YES_NO, content_words,
                       parse_question)

_LEAD = re.compile(r"^\s*(?:(?:and|but|so|also|then|ok(?:ay)?|well|now|right)\b[\s,]*)+", re.I)
_ABOUT = re.compile(r"^(?:(?:and\s+)?(?:what|how)\s+about|what\s+of|(?:and\s+)?(?:the\s+)?same\s+(?:question\s+)?"
                    r"for)\b\s*", re.I)
_ELIDED_WORDS = 3  # a follow-up of at most this many words of its own leaves the rest to the thread ("In 2012?")

_MONTHS = "january february march april may june july august september october november december".split()
_DAYS = "monday tuesday wednesday thursday friday saturday sunday".split()
_PREPOSITION = r"(?:at the (?:end|start|beginning|close) of|as of|in|during|for|by|over|through|from|since|on)\s+"
_QUALIFIER = (r"(?:the\s+)?(?:(?:fiscal|financial|calendar|school|academic|tax|model)\s+(?:year\s+)?|FY\s?'?|"
              r"(?:Q[1-4]|H[12]|(?:first|second|third|fourth) quarter(?:\s+of)?|(?:first|second) half(?:\s+of)?)\s+"
              r"(?:(?:fiscal|FY)\s?)?|(?:" + "|".join(_MONTHS) + r")\s+(?:\d{1,2},?\s+)?)")
_PERIOD = re.compile(rf"\b(?:{_PREPOSITION})?(?:{_QUALIFIER})?{YEAR_PATTERN}\b"
                     rf"(?:\s*[-–/]\s*(?:{YEAR_PATTERN}|\d\d)\b)?", re.I)
_YEAR = re.compile(rf"(?<!\d){YEAR_PATTERN}(?!\d)")
_BARE_YEAR = re.compile(rf"^(?:{_PREPOSITION})?(?:the\s+)?(?:fiscal\s+(?:year\s+)?|FY\s?'?)?{YEAR_PATTERN}$", re.I)
_HAS_PREPOSITION = re.compile(rf"^{_PREPOSITION}", re.I)
# periods named against the previous question's: "the year before" (-1), "the following year" (+1), "that year" (0)
_RELATIVE = [(-1, re.compile(r"\b(?:(?:in|for|during)\s+)?(?:the\s+)?(?:fiscal\s+)?year\s+before(?:\s+that)?\b|"
                             r"\b(?:(?:in|for|during)\s+)?the\s+(?:previous|prior|preceding)\s+(?:fiscal\s+)?year\b|"
                             r"\ba\s+year\s+(?:earlier|before)\b", re.I)),
             (1, re.compile(r"\b(?:(?:in|for|during)\s+)?the\s+(?:next|following)\s+(?:fiscal\s+)?year\b|"
                            r"\b(?:(?:in|for|during)\s+)?the\s+(?:fiscal\s+)?year\s+after(?:\s+that)?\b|"
                            r"\ba\s+year\s+later\b", re.I)),
             (0, re.compile(r"\b(?:(?:in|for|during|at|by)\s+)?(?:that|the\s+same)\s+(?:fiscal\s+)?"
                            r"(?:year|period|quarter|time)\b", re.I))]

_SUBJECT_NOUNS = (r"company|firm|business|retailer|corporation|organi[sz]ation|enterprise|manufacturer|airline|bank|"
                  r"brand|chain|insurer|operator")
_SUBJECT_PHRASE = re.compile(rf"\b(?:the|this|that)\s+(?:{_SUBJECT_NOUNS})\b", re.I)
_AUX = r"did|does|do|has|had|have|is|was|were|are|will|would|can|could"
# "this"/"that" standing for the subject: after an auxiliary, before a verb or the end ("how many did this have?")
_BARE_DEMONSTRATIVE = re.compile(
    rf"\b({_AUX})\s+(?:this|that)\b(?=\s+(?:have|has|had|employ\w*|report\w*|sell|sold|earn\w*|make|made|spend|"
    r"spent|own|operate|open|close|pay|paid|generate|record|post|achieve|hold|serve)\b|\s*\?|\s*$)", re.I)
# "it" that stands for no one: "how long did it take", "is it true that"
_DUMMY_IT = re.compile(r"\bit\s+(?:takes?|took|means?|meant|seems?|seemed|rains?|matters?)\b|"
                       r"\b(?:is|was)\s+it\s+(?:true|possible|likely|the case)\b|"
                       r"\bit\s+(?:is|was)\s+(?:true|possible|likely|the case)\b", re.I)
_THEY_BEFORE = {"do": "does", "are": "is", "were": "was", "have": "has"}  # "do they" -> "does Best Buy"
_THEY_AFTER = {"have": "has", "are": "is", "were": "was", "do": "does"}  # "they have" -> "Best Buy has"
_PRONOUN = re.compile(r"\b(?:it|its|they|their)\b", re.I)
_TITLES = frozenset("ceo cfo coo cto cio cmo chief executive officer president vice chairman chairwoman chair "
                    "director founder board md".split())
_OWNED = re.compile(rf"^(?:its|their|(?:the|this|that)\s+(?:{_SUBJECT_NOUNS})['’]s)\s+", re.I)  # "its net income"
# kinds of value that change from period to period: a follow-up asking one is asked for the thread's period
_PERIODIC = (COUNT, MONEY, PERCENT, NUMBER, PERSON, YES_NO, LIST)
_COUNTABLE_KINDS = (COUNT, None)  # "what about employees?" fits "how many stores"; "what about net income?" not

# where the thing asked about sits in a question: "how many STORES did", "what was X's REVENUE in"
_HOW_MANY_THING = re.compile(rf"\b(how (?:many|much))\s+((?:[\w-]+\s+){{0,3}}?)(?=(?:{_AUX})\b)", re.I)
_MEASURE_AFTER_OWNER = re.compile(r"['’]s\s+((?:[\w-]+\s+){0,3}?[\w-]+)"
                                  r"(?=\s+(?:in|at|for|of|as|during|by|on)\b|\s*\?|$)")
_MEASURE_BEFORE_OF = re.compile(rf"\b(?:what|how much)\s+(?:is|was|were|are)\s+the\s+((?:[\w-]+\s+){{0,3}}?)"
                                r"(?=(?:of|for|at)\s)", re.I)
_CLAUSE = re.compile(rf"\b(?:{_AUX}|what|which|who|whom|whose|how|when|where|why|there)\b", re.I)  # not a thing
_THING_LEAD = re.compile(r"^(?:how (?:many|much)|the (?:number|count|amount|total) of|the)\s+", re.I)


def standalone(follow_up: str, previous: str) -> str:
    """The follow-up as a question that stands alone, read against `previous` (the thread's last question as
    it was read); the follow-up itself when it already stands alone or there is nothing to resolve it with."""
    asked = follow_up.strip()
    if not asked or not previous.strip():
        return follow_up
    body = _LEAD.sub("", asked)
    about = _ABOUT.match(body)
    led = body != asked  # "And …": its first word is not capitalised for starting the question
    if about:
        rewritten = _elided(body[about.end():], asked, previous, True)
    elif not _CLAUSE.match(body) and parse_question(body).kind is None:
        rewritten = _elided(body, asked, previous, led)  # "And in 2012?", "And its net income?", "Employees?"
    elif _own_names(body, led):
        return follow_up  # names its own subject
    elif _refers_to_subject(body):
        rewritten = _resolved(body, previous)
    elif led or len(content_words(body)) <= _ELIDED_WORDS:
        rewritten = _elided(body, asked, previous, led)  # "How many employees?", "And what was the revenue?"
    else:
        return follow_up
    return rewritten if rewritten and _normal(rewritten) != _normal(asked) else follow_up


def subject(question: str) -> str:
    """The name a question is about: the owner of a possessive ("Best Buy's revenue"), else the name after an
    auxiliary ("did Best Buy have"), else its first name; "" when it names none."""
    names = [n for n in _names(question, True) if n.lower() not in _MONTHS and n.lower() not in _DAYS]
    for pattern in (r"{}['’]s\b", r"\b(?:" + _AUX + r")\s+{}\b"):
        owner = next((n for n in names if re.search(pattern.format(re.escape(n)), question, re.I)), None)
        if owner:
            return owner
    return names[0] if names else ""


def _names(text: str, first_counts: bool = False) -> tuple[str, ...]:
    """The names `text` holds; its first word is one only where `first_counts` (it does not start the question:
    "What about Walmart?"), parse_question skipping a question's first word (capitalised anyway)."""
    return parse_question(f"About {text}" if first_counts else text).names


def _own_names(text: str, first_counts: bool) -> list[str]:
    """The names in a follow-up that may be its own subject (not a title: "Who was its CEO?")."""
    return [n for n in _names(text, first_counts) if not set(n.lower().split()) <= _TITLES]


def _refers_to_subject(text: str) -> bool:
    dummy_free = _DUMMY_IT.sub(" ", text)
    return bool(_PRONOUN.search(dummy_free) or _SUBJECT_PHRASE.search(text) or _BARE_DEMONSTRATIVE.search(text))


def _resolved(body: str, previous: str) -> str | None:
    """The follow-up with its pronouns of the subject replaced by the previous question's subject, and the
    previous question's period added when it names none."""
    name = subject(previous)
    if not name:
        return None
    owner = f"{name}'s"
    text = _SUBJECT_PHRASE.sub(name, body)
    text = _BARE_DEMONSTRATIVE.sub(lambda m: f"{m.group(1)} {name}", text)
    text = re.sub(r"\b(its|their)\b", owner, text, flags=re.I)
    text = re.sub(rf"\b({'|'.join(_THEY_BEFORE)})\s+they\b",
                  lambda m: f"{_cased(_THEY_BEFORE[m.group(1).lower()], m.group(1))} {name}", text, flags=re.I)
    text = re.sub(rf"\bthey\s+({'|'.join(_THEY_AFTER)})\b", lambda m: f"{name} {_THEY_AFTER[m.group(1).lower()]}",
                  text, flags=re.I)
    text = re.sub(r"\bthey\b", name, text, flags=re.I)  # "them" is as often what was counted ("open them")
    kept = []  # the dummy "it"s stay as asked
    text = _DUMMY_IT.sub(lambda m: kept.append(m.group(0)) or f"\x00{len(kept) - 1}\x00", text)
    text = re.sub(r"\bit\b", name, text, flags=re.I)
    text = re.sub(r"\x00(\d+)\x00", lambda m: kept[int(m.group(1))], text)
    return _capitalised(_with_period_of(text, previous))


def _elided(rest: str, asked: str, previous: str, first_counts: bool) -> str | None:
    """The previous question with what the follow-up names put in its place: a period, a subject, a thing
    (`first_counts`: whether rest's first word may be a name, not the capital that starts the question)."""
    rest = _OWNED.sub("", rest.strip().rstrip("?.!").strip())
    if not rest:
        return None
    question = previous.strip()
    period, relative = _PERIOD.search(rest), _relative(rest)
    if period:
        question = _with_period(question, period.group(0))
        rest = _cut(rest, period)
    elif relative:
        shift, match = relative
        question = _shifted(question, shift) if _PERIOD.search(question) else None
        rest = _cut(rest, match)
        if question is None:
            return None
    names = _names(rest, first_counts) if rest else ()
    if names:
        old = subject(previous)
        if not old:
            return None
        question = re.sub(rf"\b{re.escape(old)}\b", lambda m: names[0], question)
        rest = rest.replace(names[0], " ").strip()
    rest = re.sub(r"^(?:(?:in|for|at|of|with|on|about|during)\b\s*)+|\b(?:in|for|at|of|with|on)\s*$", "", rest,
                  flags=re.I).strip(" ,")
    if content_words(rest):
        thing = _THING_LEAD.sub("", rest).strip()
        if not first_counts and thing[:1].isupper() and not thing[:2].isupper():
            thing = thing[0].lower() + thing[1:]  # "Employees?": capitalised for starting the question
        replaced = _with_thing(question, thing) if thing and not _CLAUSE.search(thing) else None
        if replaced:
            return replaced
        name = subject(previous)  # the thing has no place in the question before it: asked with its subject
        if not name:
            return None
        said = _LEAD.sub("", asked).strip().rstrip("?.!").strip()
        if not _ABOUT.match(said) and not _CLAUSE.match(said):
            said = f"What about {_OWNED.sub('', said)}"
        return _capitalised(_with_period_of(f"{said} for {name}?", previous, always=True))
    return question if question != previous.strip() else None


def _with_thing(question: str, thing: str) -> str | None:
    """The question asking about `thing` in place of what it asked about (None: no place for it)."""
    countable = parse_question(f"What is the {thing}?").kind in _COUNTABLE_KINDS
    for pattern in (_HOW_MANY_THING, _MEASURE_BEFORE_OF):
        match = pattern.search(question)
        if match and (countable or pattern is not _HOW_MANY_THING or match.group(1).lower() == "how much"):
            group = match.lastindex
            return question[:match.start(group)] + f"{thing} " + question[match.end(group):]
    match = _MEASURE_AFTER_OWNER.search(question)
    if match:
        return question[:match.start(1)] + thing + question[match.end(1):]
    return None


def _with_period_of(text: str, previous: str, always: bool = False) -> str:
    """`text` with the previous question's period: in place of "that year" / "the year before", or added when
    it names no period of its own and asks for a value that changes from period to period (not "when"), or
    `always` (an elision: the rest of the question is the previous one's)."""
    old = _PERIOD.search(previous)
    if _PERIOD.search(text):
        return text
    relative = _relative(text)
    if relative:
        if not old:
            return text
        shift, match = relative
        phrase = _prepositioned(_YEAR.sub(lambda y: str(int(y.group(0)) + shift), old.group(0)))
        return text[:match.start()] + phrase + text[match.end():]
    periodic = always or parse_question(text).kind in _PERIODIC
    return _appended(text, _prepositioned(old.group(0))) if old and periodic else text


def _with_period(question: str, period: str) -> str:
    """The question with `period` in place of its own (a bare year keeps the question's wording around it:
    "at the end of fiscal 2023" + "in 2012" -> "at the end of fiscal 2012"), or added."""
    old = _PERIOD.search(question)
    if not old:
        return _appended(question, _prepositioned(period))
    years = _YEAR.findall(period)
    if _BARE_YEAR.match(period.strip()) and len(_YEAR.findall(old.group(0))) == 1:
        phrase = _YEAR.sub(years[0], old.group(0))
    else:
        phrase = period if _HAS_PREPOSITION.match(period) or not _HAS_PREPOSITION.match(old.group(0)) \
            else _HAS_PREPOSITION.match(old.group(0)).group(0) + period
    return question[:old.start()] + phrase + question[old.end():]


def _shifted(question: str, shift: int) -> str:
    old = _PERIOD.search(question)
    phrase = _YEAR.sub(lambda y: str(int(y.group(0)) + shift), old.group(0))
    return question[:old.start()] + phrase + question[old.end():]


def _relative(text: str) -> tuple[int, re.Match] | None:
    for shift, pattern in _RELATIVE:
        match = pattern.search(text)
        if match:
            return shift, match
    return None


def _prepositioned(phrase: str) -> str:
    return phrase if _HAS_PREPOSITION.match(phrase) else f"in {phrase}"


def _appended(question: str, phrase: str) -> str:
    body = question.rstrip()
    end = "?" if body.endswith("?") else ""
    return f"{body.rstrip('?').rstrip()} {phrase}{end}"


def _cut(text: str, match: re.Match) -> str:
    return (text[:match.start()] + " " + text[match.end():]).strip()


def _cased(word: str, like: str) -> str:
    return word.capitalize() if like[:1].isupper() else word


def _capitalised(text: str) -> str:
    text = re.sub(r"\s+", " ", text).strip()
    text = re.sub(r"\s+([?,.!])", r"\1", text)
    return text[:1].upper() + text[1:]


def _normal(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().lower()
