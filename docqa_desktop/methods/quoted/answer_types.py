"""What kind of answer a question asks for (a time, a date, a number), and the spans of a sentence that are one.

A sentence that matches the question's words but holds no value of the asked kind ("The ferry timetable
changed in winter" for "When does the last ferry leave?") is not an answer; the span of that kind is the
short answer a quotation leads with.
"""
from __future__ import annotations

import re

TIME, DATE, NUMBER = "time", "date", "number"

_MONTH = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?"
          r"|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?")
PATTERNS = {
    TIME: re.compile(r"\b(?:[01]?\d|2[0-3]):[0-5]\d(?:\s?[ap]\.?m\.?)?(?!\d)|\b(?:1[0-2]|0?[1-9])(?:\.[0-5]\d)?\s?"
                     r"[ap]\.?m\.?(?!\w)|\b(?:noon|midnight)\b", re.I),
    DATE: re.compile(rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s+{_MONTH}(?:,?\s+\d{{4}})?\b|\b{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?"
                     rf"(?:,?\s+\d{{4}})?\b|\b{_MONTH}\s+\d{{4}}\b|\b\d{{4}}-\d{{2}}-\d{{2}}\b|\b(?:19|20)\d{{2}}\b", re.I),
    NUMBER: re.compile(r"[-−]?[$€£]?\d+(?:,\d{3})*(?:\.\d+)?(?:\s?(?:%|percent|per cent|million|billion|thousand|"
                       r"bn|m|k)\b|%)?", re.I),
}
_KINDS = [  # first match wins: "what time" before "what", "how many" before "how"
    (TIME, re.compile(r"\bwhat time\b|\bat what hour\b|\bwhen\b.*\b(leave|leaves|depart|departs|arrive|arrives|open|"
                      r"opens|close|closes|start|starts|begin|begins|end|ends|run|runs)\b", re.I)),
    (DATE, re.compile(r"\bwhen\b|\bwhat (year|date|month|day)\b|\bwhich (year|date|month|day)\b|\bin what year\b", re.I)),
    (NUMBER, re.compile(r"\bhow (many|much|long|old|far|big|large|high|tall|often)\b|\bwhat (is|was|were|are) the "
                        r"(number|total|amount|percentage|share|ratio|rate|proportion|value|cost|price|size)\b|"
                        r"\bwhat (percentage|percent|proportion|share|fraction|number|amount)\b", re.I)),
]


def answer_kind(question: str) -> str | None:
    """time | date | number, or None when the question asks for something else (a name, a reason, a list)."""
    return next((kind for kind, pattern in _KINDS if pattern.search(question)), None)


def spans(kind: str, text: str, question: str = "") -> list[str]:
    """The values of `kind` in `text` that the question does not already state, in order. A time question
    also takes dates (and a date question times) when nothing of its own kind is there."""
    stated = {_normal(s) for s in _find(kind, question)}
    own = [s for s in _find(kind, text) if _normal(s) not in stated]
    if own or kind == NUMBER:
        return own
    other = DATE if kind == TIME else TIME
    return [s for s in _find(other, text) if _normal(s) not in {_normal(q) for q in _find(other, question)}]


def _find(kind: str, text: str) -> list[str]:
    found = [m.group(0).strip() for m in PATTERNS[kind].finditer(text)]
    return [s for s in found if any(ch.isdigit() for ch in s) or kind == TIME]


def _normal(span: str) -> str:
    return re.sub(r"[\s,.$€£]", "", span.lower())
