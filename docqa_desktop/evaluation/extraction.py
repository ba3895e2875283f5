"""A method's answer reduced to a short answer in the format the question asks for.

MMLongBench-Doc has GPT-4o do this step; offline we do it by rules, so scores are reproducible and
cost nothing: refusals become "Not answerable", Int/Float take the first number, List takes a
bracketed list or splits an enumeration, Str keeps the first line without filler.
"""
from __future__ import annotations

import re

from .. import numbers
from .scoring import NOT_ANSWERABLE, as_list

_REFUSALS = re.compile(
    r"not answerable|cannot be (?:answered|determined)|can't be (?:answered|determined)|no (?:relevant )?information"
    r"|not (?:mentioned|provided|stated|specified|available) in|does not (?:mention|provide|contain|say)",
    re.IGNORECASE)
_ITEM_SEPARATOR = re.compile(r"\s*(?:(?<!\d),|,(?!\d{3}(?!\d))|;|\band\b)\s*")  # not the comma inside 1,138
_WORDS = {w: i for i, w in enumerate("zero one two three four five six seven eight nine ten eleven twelve".split())}
_WORD_NUMBER = re.compile(r"\b(" + "|".join(_WORDS) + r")\b", re.IGNORECASE)
_FILLER = re.compile(r"^(?:final answer|short answer|answer|the answer is|it is|they are)\b\s*[:\-]?\s*",
                     re.IGNORECASE)


def extract(text: str, answered: bool, answer_format: str) -> str | list[str]:
    """Short answer for scoring.score; a method that declined gets "Not answerable"."""
    if not answered or not text.strip() or _REFUSALS.search(text):
        return NOT_ANSWERABLE
    if answer_format in ("Int", "Float"):
        number = first_number(text)
        if number is None:
            return _first_line(text)
        return str(int(round(number))) if answer_format == "Int" and number == int(number) else _plain(number)
    if answer_format == "List":
        return list_items(text)
    return _first_line(text)


def first_number(text: str) -> float | None:
    """The first number written in `text`, signed and as written ("1,138" 1138, "12.5%" 12.5, "$46.3 billion"
    46.3), else a number word ("three")."""
    number = next(numbers.find(text), None)
    if number:
        return float(number.value)
    word = _WORD_NUMBER.search(text)
    return float(_WORDS[word.group(1).lower()]) if word else None


def _plain(number: float) -> str:
    return str(int(number)) if number == int(number) else repr(number)


def list_items(text: str) -> list[str]:
    bracketed = re.search(r"\[[^\[\]]*\]", text)
    if bracketed:
        items = as_list(bracketed.group())
        if items == [bracketed.group()]:  # not a Python literal: [a, b]
            items = bracketed.group()[1:-1].split(",")
        return [_tidy(str(i)) for i in items if _tidy(str(i))]
    body = _FILLER.sub("", text.strip())
    lines = [re.sub(r"^\s*(?:[-*•]|\d+[.)])\s*", "", line) for line in body.splitlines() if line.strip()]
    if len(lines) > 1:
        return [_tidy(line) for line in lines]
    parts = _ITEM_SEPARATOR.split(lines[0] if lines else "")
    return [_tidy(p) for p in parts if _tidy(p)]


def _first_line(text: str) -> str:
    line = next((line for line in text.strip().splitlines() if line.strip()), "")
    return _tidy(_FILLER.sub("", line.strip()))


def _tidy(text: str) -> str:
    return text.strip().strip("\"'“”").rstrip(".").strip()
