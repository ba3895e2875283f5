"""A difference of two table cells, computed by the app, when the question names both operands.

"By how much did revenue fall from fiscal 2022 to fiscal 2023?" names one row and two periods; "How many points
higher is PaLM-2L + Step-Back than GPT-4 on TimeQA?" names two rows and one column; "What is the difference
between gross profit and operating income in fiscal 2023?" two rows. Each operand is the question asked about it
alone, and must be answered by exactly one cell (table_answers.read_tables), both of the same table; the app's
arithmetic evaluator computes the difference, and the answer shows the computation with both cells cited.
A question naming one operand only ("How much did revenue fall in 2023?") is no computation: the reader says
nothing rather than guess the other.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Callable

from ..proof.arithmetic import evaluate
from .question import NUMBER, Question, parse_question
from .table_answers import CellAnswer, TableReading

_GIVEN = re.compile(r"\s*\((?:[$€£]?\s?[\d.,]+\s?(?:%|million|billion)?[^)]{0,20})\)")  # "(68.7%)", "($51,761 million)"
_PERIODS = re.compile(r"\bfrom\s+((?:fiscal\s+|FY\s?)?(?:19|20)\d\d)\b(.*?)\s+to\s+((?:fiscal\s+|FY\s?)?(?:19|20)\d\d)\b",
                      re.I)
_THAN = re.compile(r"\b(?:how many (?:percentage )?points|how much) (higher|lower|more|less|greater|larger|smaller)"
                   r"\s+(?:is|was|are|were|does|did)\s+(.+?)\s+than\s+(.+?)(?=[,?]|\s+on\s|\s+in\s|$)", re.I)
_BETWEEN = re.compile(r"\bdifference between\s+(.+?)\s+and\s+(.+?)(?=[,?]|\s+(?:in|on|for)\s|$)", re.I)
_CHANGE = re.compile(r"\b(?:change|changed|increase|increased|decrease|decreased|rise|rose|fall|fell|grow|grew|"
                     r"decline|declined|drop|dropped|gain|gained)\b", re.I)


@dataclass(frozen=True)
class Computed:
    shown: str  # the answer as shown, the difference's size: "5,463"
    expression: str  # "51,761 − 46,298 = 5,463"
    operands: tuple[CellAnswer, CellAnswer]


def compute(question: Question, read: Callable[[Question], TableReading]) -> Computed | None:
    """The difference the question asks for, from the two cells it names, or None."""
    operands = _operand_questions(question)
    if operands is None:
        return None
    first, second = (read(q).answer for q in operands)
    if first is None or second is None or first.table is not second.table or first.cell == second.cell or \
            first.cell.number is None or second.cell.number is None:
        return None
    a, b = first.cell.number, second.cell.number
    value = evaluate(f"({a!r}) - ({b!r})")
    expression = f"{_figure(a)} − {_figure(b)} = {_figure(value)}"
    return Computed(_figure(abs(value)), expression, (first, second))


def _operand_questions(question: Question) -> tuple[Question, Question] | None:
    text = _GIVEN.sub("", question.text)
    periods = _PERIODS.search(text)
    if periods and _CHANGE.search(text):  # one row, two periods: later minus earlier
        earlier, later = (text[:periods.start()] + f"in {year}" + periods.group(2) + text[periods.end():]
                          for year in (periods.group(1), periods.group(3)))
        return _asked(later), _asked(earlier)
    than = _THAN.search(text)
    if than:
        a, b = than.group(2), than.group(3)
        rest = text[:than.start()] + "what is" + text[than.end():]
        return _asked(f"{rest.rstrip('?')} {a}?"), _asked(f"{rest.rstrip('?')} {b}?")
    between = _BETWEEN.search(text)
    if between:
        a, b = between.group(1), between.group(2)
        rest = text[:between.start()] + text[between.end():]
        return _asked(f"What was {a} {rest.strip(' ?')}?"), _asked(f"What was {b} {rest.strip(' ?')}?")
    return None


def _asked(text: str) -> Question:
    """An operand's question, asking for a number whatever kind the whole one asked."""
    question = parse_question(text)
    return question if question.kind else replace(question, kind=NUMBER)


def _figure(value: float) -> str:
    return f"{value:,.2f}".rstrip("0").rstrip(".") if value != int(value) else f"{int(value):,}"
