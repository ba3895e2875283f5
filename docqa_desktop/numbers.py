"""Written numbers: the one grammar by which pages, answers, quotes and computations are read for their numbers.

A number is written "1,138" (a comma only between groups of three digits: "1,2" is two numbers), "3.14", ".5",
"-5" or "−5" (U+2212), "$46.3", "12.5%" or "46.3 billion" / "1.2bn"; it stands alone, never the end of a word or
code ("FY2023", "A320") nor a piece of a version or a date ("1.2.3", "3.5.2020"). Its value is read with its sign
and as written: "12.5%" is 12.5 and "$46.3 billion" 46.3, with the percent, currency and scale beside it for
the callers that apply them. A table's cell is read as one number (value()), where "(1,234)" is -1234 the
accountants' way; a computation's tokenizer reads its literals with LITERAL (no sign: a minus is an operator).
"""
from __future__ import annotations

import re
from decimal import Decimal
from typing import Iterator, NamedTuple

MINUS = "-−"  # hyphen-minus and U+2212, the typeset minus
CURRENCY = "$€£¥"
GROUPED = r"\d{1,3}(?:,\d{3})+"  # digits grouped by three: 1,138 or 12,345,678
FRACTION = r"(?:\.\d+)?"
# what a scale word after a number multiplies it by. NUMBER notes every one and applies none (Number.scaled does,
# for the proof: an answer's "$5m" is a page's 5,000,000); SCALE_WORD, for the extractive reader's values in
# prose, leaves out "k", "m" and "b", as often a unit there ("5 m" is five metres)
SCALES = {"million": 1e6, "billion": 1e9, "thousand": 1e3, "trillion": 1e12, "bn": 1e9, "mn": 1e6,
          "k": 1e3, "m": 1e6, "b": 1e9}
SCALE_WORD = "(?:" + "|".join(word for word in SCALES if len(word) > 1) + ")"

# the grouped digits need the lookahead "(?!\d)": "1,2345" is 1 and 2345, as in a computation; the atomic group
# keeps "1,234.5.6" from being read as its first digit after the lookahead "(?!\.?\d)" fails
NUMBER = re.compile(
    rf"(?<![\w.])(?P<sign>[{MINUS}])?(?:(?P<currency>[{CURRENCY}])\s?)?"
    rf"(?P<digits>(?>(?:{GROUPED}(?!\d)|\d+){FRACTION}|\.\d+))(?!\.?\d)"
    rf"(?:(?P<percent>\s?%)|\s*(?P<scale>{'|'.join(SCALES)})\b)?", re.IGNORECASE)

# a number literal as a computation writes it, read where the tokenizer stands: no sign (the parser's unary
# minus), no lookbehind, "%" right after it, "5." as well as ".5", and ASCII digits only
LITERAL = re.compile(rf"[{CURRENCY}]?(?:(?:{GROUPED}(?!\d)|\d+)(?:\.\d*)?|\.\d+)%?", re.ASCII)


class Number(NamedTuple):
    """A number as found in a text (find) or read from a cell (value)."""
    text: str  # as written: its sign, currency, "%" and scale word included
    value: Decimal  # signed, as written: "12.5%" is 12.5, "46.3 billion" 46.3
    start: int  # its place in the text read
    end: int
    percent: bool = False
    currency: str = ""
    scale: float = 1.0  # what its scale word multiplies it by ("billion" 1e9), 1.0 without one

    @property
    def scaled(self) -> float:
        """The value with its scale word applied: "$46.3 billion" 4.63e10."""
        return float(self.value) * self.scale


def find(text: str) -> Iterator[Number]:
    """Every number written in `text`, in order."""
    return map(_read, NUMBER.finditer(text))


def value(written: str) -> Number | None:
    """`written` as one number, the whole of it, as a table's cell prints it: "46,298", "$6.31", "77%", "−12",
    "–12" (a dash before a figure is its minus) and, the accountants' way, "(34)", "$ (5)" or "(2.3)%" negative;
    the ")" may hang in the next cell ("(34" is -34 too). None for anything else: "—", "$", "1,2", "5." and a
    number with a scale word ("7B" heads a model's column, it is no figure)."""
    text = written.strip()
    currency = text[:1] if text[:1] in CURRENCY else ""
    body = text[len(currency):].strip()
    bracketed, percent = body.startswith("("), body.endswith("%")
    body = body.removeprefix("(").removesuffix("%").rstrip().removesuffix(")").strip()
    if body.startswith("–"):
        body = "-" + body[1:]
    match = NUMBER.fullmatch(currency + body + "%" * percent)
    if not match or match.group("scale"):
        return None
    number = _read(match)._replace(text=written, start=0, end=len(written))
    return number._replace(value=number.value.copy_abs().copy_negate()) if bracketed else number


def _read(match: re.Match) -> Number:
    digits = Decimal(match.group("digits").replace(",", ""))
    signed = digits.copy_negate() if match.group("sign") else digits  # copy_negate: "-0" stays -0, as float("-0")
    scale = SCALES[match.group("scale").lower()] if match.group("scale") else 1.0
    return Number(match.group(), signed, match.start(), match.end(), bool(match.group("percent")),
                  match.group("currency") or "", scale)
