"""One grammar-constrained choice among lettered candidates: a letter, a letter and a span copied from that
candidate, an operation over two candidates' values (the app computes it), or "none".

Small models are poor writers and fair choosers (issue 44: on the Best Buy income statement the 1.5B writing the
value was right 6 of 10 times and once invented a value; choosing under a grammar, 7 of 10 and nothing invented).
The reply is a few tokens; the model's margin is the probability its first step gave the chosen reply's first
token, renormalised over every reply the grammar allowed (llm Options.choices).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from ...llm import Message, Options
from ..proof.arithmetic import ArithmeticRejected, evaluate
from .candidates import Option

NONE = "none"
# name -> (how the prompt explains it, the arithmetic over the two operands' values a and b)
OPERATIONS = {"difference": ("difference(A, B) is A − B", "{a} - {b}"),
              "sum": ("sum(A, B) is A + B", "{a} + {b}"),
              "ratio": ("ratio(A, B) is A ÷ B", "{a} / {b}"),
              "change": ("change(A, B) is the percentage change from B to A", "({a} - {b}) / {b} * 100")}
SPAN_CHARS = 60  # an answer's words, not its passage: the 1.5B copied whole sentences when it could
REPLY_TOKENS = 30  # a span of SPAN_CHARS, or "difference(A, B)"

INSTRUCTIONS = """You answer a question about the user's documents by choosing among candidates that the app found on their pages. Reply with one of these and nothing else:
- the letter of the candidate whose value answers the question, e.g. B
- for a candidate shown without a value, its letter, a colon and only the few words of it that answer, copied exactly, e.g. D: the Hubble telescope
{operations}- none, when no candidate answers the question (a candidate about another year, group or measure does not answer it)."""
OPERATIONS_LINE = ("- when the answer must be computed from two candidates' values, an operation over their letters: "
                   "{explained}\n")


@dataclass(frozen=True)
class Choice:
    reply: str  # as the model wrote it
    options: tuple[Option, ...]  # the candidates chosen (two for an operation); none for "none"
    probability: float  # the model's margin: its first step's probability of this reply among all allowed
    span: str = ""  # the words copied from a candidate without a value
    operation: str = ""  # OPERATIONS' name, for a computed answer
    expression: str = ""  # the arithmetic the app evaluated ("46298 - 51761")
    computed: float | None = None

    @property
    def none(self) -> bool:
        return not self.options


def messages(question: str, options: list[Option], operations: bool) -> list[Message]:
    ops = OPERATIONS_LINE.format(explained="; ".join(text for text, _ in OPERATIONS.values())) if operations else ""
    listed = "\n".join(option.line() for option in options)
    return [Message("system", INSTRUCTIONS.format(operations=ops)),
            Message("user", f"Question: {question}\n\nCandidates:\n{listed}\n\nWhich candidate answers: {question}\n"
                            "Reply:")]


def reply_options(options: list[Option], operations: bool) -> Options:
    """The decoding: the grammar of the replies allowed, and the choices whose first-step probabilities are read."""
    picks = [f'"{o.label}"' if o.value else f'"{o.label}: " span' for o in options]
    rules = [f"root ::= {' | '.join([*picks, f'{chr(34)}{NONE}{chr(34)}', *(['op'] if operations else [])])}",
             f"span ::= [^\\n\"“”]{{1,{SPAN_CHARS}}}"]  # no quotation marks: the words, not the passage quoted
    valued = [o.label for o in options if o.value]
    if operations:
        rules += [f"op ::= ({' | '.join(f'{chr(34)}{name}{chr(34)}' for name in OPERATIONS)}) \"(\" operand "
                  f"\", \" operand \")\"", f"operand ::= {' | '.join(f'{chr(34)}{label}{chr(34)}' for label in valued)}"]
    choices = (*(o.label for o in options), NONE, *(OPERATIONS if operations else ()))
    return Options(max_tokens=REPLY_TOKENS, temperature=0.0, grammar="\n".join(rules) + "\n", choices=choices)


def operations_allowed(options: list[Option]) -> bool:
    return sum(1 for o in options if o.value and len(o.numbers) == 1) >= 2


_OPERATION = re.compile(r"^(\w+)\(([A-Z]), ([A-Z])\)$")


def parse(reply: str, options: list[Option], probabilities: dict[str, float]) -> Choice:
    """What the reply chose; "none" for anything the grammar should not have let through (a server may ignore it)."""
    text = reply.strip()
    by_label = {o.label: o for o in options}
    declined = Choice(text, (), probabilities.get(NONE, 0.0))
    if (match := _OPERATION.match(text)) and match.group(1) in OPERATIONS:
        name, first, second = match.groups()
        operands = [by_label.get(first), by_label.get(second)]
        if any(o is None or len(o.numbers) != 1 for o in operands):
            return declined
        expression = OPERATIONS[name][1].format(a=_plain(operands[0].numbers[0]), b=_plain(operands[1].numbers[0]))
        try:
            computed = evaluate(expression)
        except (ArithmeticRejected, ZeroDivisionError):
            return declined
        return Choice(text, tuple(operands), probabilities.get(name, 0.0), operation=name, expression=expression,
                      computed=computed)
    label, _, span = text.partition(":")
    option = by_label.get(label.strip())
    if option is None or bool(span.strip()) == bool(option.value):
        return declined
    return Choice(text, (option,), probabilities.get(option.label, 0.0), span=span.strip().strip("\"“”").strip())


def _plain(number: float) -> str:
    return f"{number:.10g}" if number != int(number) else str(int(number))
