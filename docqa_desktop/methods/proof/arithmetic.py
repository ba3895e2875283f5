"""Safe arithmetic for a model's proof.

Beside its value, a model writes the computation over numbers it quoted from the pages, e.g.
"(56.8 - 51.5) / 51.5 * 100", and the app evaluates it itself to check the value. The text is untrusted, so a
small tokenizer and recursive-descent parser read it (never eval, compile or ast); they know only numbers,
+ - * / (and × ÷ − –), ( ) [ ] and round, abs, min, max, sum, avg, mean. Values are Decimals, so numbers
add up as written ("round(2.675, 2)" is 2.68).

Numbers (numbers.LITERAL): 12, 12.5, .5; a leading $ € £ ¥ is ignored; a '%' right after the number divides by 100.
Scientific notation ("1e5") is rejected: pages do not print it, and it is the short road to inf.
Comma rule: a comma right after a run of 1-3 digits (or an earlier group), followed by exactly three digits
and then a non-digit, is a thousands separator ("1,234,567.89"). Any other comma separates a function's
arguments ("round(56.789, 2)", "max(1,23)") and is rejected outside a call. So "max(1,234)" is the one
number 1234, "max(1, 234)" two numbers.
A trailing "= 20" or "≈ 20.1" (the model's own result) must be arithmetic too; only the left side counts.
Positions in messages are 1-based characters.
"""
from __future__ import annotations

import decimal
import operator
import re
from decimal import Decimal
from typing import NamedTuple

from ...numbers import CURRENCY, LITERAL

MAX_CHARS, MAX_DEPTH, MAX_NUMBERS = 300, 30, 60
_LIMIT = Decimal("1e300")  # a larger value is on its way to a float inf
_CONTEXT = decimal.Context(prec=28, rounding=decimal.ROUND_HALF_UP)
_WORD = re.compile(r"[^\W\d]\w*")
_KINDS = {"+": "+", "-": "-", "−": "-", "–": "-", "*": "*", "×": "*", "/": "/", "÷": "/",
          "(": "(", "[": "(", ")": ")", "]": ")", ",": ",", "=": "=", "≈": "="}
_REFUSED = {"**": "no exponents: '**'", "^": "no exponents: '^'", "%": "'%' not right after a number (no modulo)",
            ".": "'.' outside a number (no attribute access)",
            **dict.fromkeys(CURRENCY, "currency sign not before a number"),
            **dict.fromkeys("'\"‘’“”`", "quotes (text) are not allowed")}
_FUNCTIONS = {"round", "abs", "min", "max", "sum", "avg", "mean"}
_APPLY = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv}


class ArithmeticRejected(ValueError):
    """The text is not plain arithmetic; the message says why (it is shown to the model in a repair round)."""


class Token(NamedTuple):
    kind: str  # "num", "fn", or the operator / bracket / comma / "=" it stands for
    text: str
    pos: int


def _token(text: str, i: int) -> Token:
    if number := LITERAL.match(text, i):
        if re.match(r"[eE][-+]?[0-9]", text[number.end():number.end() + 3]):
            raise ArithmeticRejected(f"scientific notation at position {i + 1}; write the number out")
        return Token("num", number.group(), i + 1)
    if word := _WORD.match(text, i):
        name = word.group()
        if "_" in name or name.lower() not in _FUNCTIONS:
            why = "underscore in" if "_" in name else "unknown word"
            raise ArithmeticRejected(f"{why} '{name}' at position {i + 1}")
        return Token("fn", name, i + 1)
    for sign in (text[i:i + 2], text[i]):
        if sign in _REFUSED:
            raise ArithmeticRejected(f"{_REFUSED[sign]} at position {i + 1}")
    if text[i] in _KINDS:
        return Token(_KINDS[text[i]], text[i], i + 1)
    raise ArithmeticRejected(f"unexpected character '{text[i]}' at position {i + 1}")


def _tokens(text: str) -> list[Token]:
    tokens: list[Token] = []
    i = 0
    while i < len(text):
        if text[i].isspace():
            i += 1
            continue
        tokens.append(_token(text, i))
        i += len(tokens[-1].text)
    return tokens


def _value(tok: Token) -> Decimal:
    """A number's value as written: no currency sign, commas or '%'."""
    return Decimal(tok.text.lstrip(CURRENCY).rstrip("%").replace(",", ""))


def _checked(value: Decimal) -> Decimal:
    if not value.is_finite() or abs(value) > _LIMIT:
        raise ArithmeticRejected("result is too large (beyond 1e300)")
    return value


def _call(name: str, args: list[Decimal], pos: int) -> Decimal:
    if (name == "abs" and len(args) != 1) or (name == "round" and len(args) > 2):
        takes = "one argument" if name == "abs" else "1 or 2 arguments"
        raise ArithmeticRejected(f"{name} at position {pos} takes {takes}, not {len(args)}")
    if name == "round":
        digits = args[1] if len(args) == 2 else Decimal(0)
        if digits != digits.to_integral_value() or not 0 <= digits <= 10:
            raise ArithmeticRejected(f"round's digits must be a whole number from 0 to 10, not {digits}")
        if args[0].adjusted() + int(digits) >= _CONTEXT.prec:
            return args[0]  # more digits than Decimal keeps: nothing that fine to round
        return args[0].quantize(Decimal(1).scaleb(-int(digits)))  # the context rounds half away from zero
    if name in ("abs", "min", "max"):
        return abs(args[0]) if name == "abs" else min(args) if name == "min" else max(args)
    total = _checked(sum(args, Decimal(0)))
    return total if name == "sum" else total / len(args)  # avg and mean


class _Parser:
    """sum := product (+|- product)*; product := unary (*|/ unary)*; unary := (+|-)* atom;
    atom := number | (sum) | [sum] | function(sum, ...)."""

    def __init__(self, tokens: list[Token]) -> None:
        self.tokens, self.i, self.depth = tokens + [Token("end", "", 0)], 0, 0

    def take(self, *kinds: str) -> Token | None:
        tok = self.tokens[self.i]
        self.i += tok.kind in kinds
        return tok if tok.kind in kinds else None

    def parse(self) -> Decimal:
        value = self.binary(0)
        if self.tokens[self.i].kind != "end":
            raise self.unexpected()
        return value

    def binary(self, level: int) -> Decimal:
        value = self.binary(1) if level == 0 else self.unary()
        while op := self.take(*("+-" if level == 0 else "*/")):
            right = self.binary(1) if level == 0 else self.unary()
            if op.kind == "/" and right == 0:
                raise ArithmeticRejected(f"division by zero at position {op.pos}")
            value = _checked(_APPLY[op.kind](value, right))
        return value

    def unary(self) -> Decimal:
        negative = False
        while op := self.take("+", "-"):  # a loop, not recursion: "------1" costs no stack
            negative ^= op.kind == "-"
        value = self.atom()
        return -value if negative else value

    def atom(self) -> Decimal:
        if tok := self.take("num"):
            return +_value(tok) / 100 if tok.text.endswith("%") else +_value(tok)  # '+' rounds to the context
        if tok := self.take("("):
            return self.group(tok, call=False)[0]
        if tok := self.take("fn"):
            if not (opening := self.take("(")):
                raise ArithmeticRejected(f"'{tok.text}' at position {tok.pos} needs '(' and arguments")
            return _checked(_call(tok.text.lower(), self.group(opening, call=True), tok.pos))
        raise self.unexpected()

    def group(self, opening: Token, call: bool) -> list[Decimal]:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise ArithmeticRejected(f"nesting deeper than {MAX_DEPTH} brackets")
        args = [self.binary(0)]
        while call and self.take(","):  # commas separate arguments only in a call: "(1, 2)" is rejected
            args.append(self.binary(0))
        if not (closing := self.take(")")):
            if self.tokens[self.i].kind != "end":
                raise self.unexpected()
            raise ArithmeticRejected(f"unmatched '{opening.text}' at position {opening.pos}")
        if "([".index(opening.text) != ")]".index(closing.text):
            raise ArithmeticRejected(f"'{opening.text}' at position {opening.pos} closed by '{closing.text}'")
        self.depth -= 1
        return args

    def unexpected(self) -> ArithmeticRejected:
        tok = self.tokens[self.i]
        after_open = self.tokens[self.i - 1].kind == "(" if self.i else False
        why = {"end": "the expression ends too early", ",": "comma outside a function call",
               ")": "empty brackets" if after_open else f"unmatched '{tok.text}'"
               }.get(tok.kind, f"missing operator before '{tok.text}'" if tok.kind in ("num", "(", "fn")
                     else f"unexpected '{tok.text}'")
        return ArithmeticRejected(why + (f" at position {tok.pos}" if tok.pos else ""))


def _sides(expression: str) -> list[list[Token]]:
    """The tokens split at '=' and '≈': the computation, then the model's own result(s)."""
    if not isinstance(expression, str):
        raise ArithmeticRejected("the expression must be text")
    if len(expression) > MAX_CHARS:
        raise ArithmeticRejected(f"longer than {MAX_CHARS} characters ({len(expression)})")
    tokens = _tokens(expression)
    if sum(tok.kind == "num" for tok in tokens) > MAX_NUMBERS:
        raise ArithmeticRejected(f"more than {MAX_NUMBERS} numbers")
    sides: list[list[Token]] = [[]]
    for tok in tokens:
        if tok.kind == "=":
            sides.append([])
        else:
            sides[-1].append(tok)
    if not sides[0]:
        raise ArithmeticRejected("empty expression")
    return sides


def evaluate(expression: str) -> float:
    """The value of `expression`; ArithmeticRejected when it is anything but arithmetic."""
    sides = _sides(expression)
    try:
        with decimal.localcontext(_CONTEXT):
            # a written result must be arithmetic too ("= about 20" is not); a bare trailing '=' is harmless
            values = [_Parser(side).parse() for side in sides if side]
    except ArithmeticError as exc:  # decimal's own signals, which the checks above should prevent
        raise ArithmeticRejected(f"cannot compute this ({type(exc).__name__})") from None
    return float(values[0])


def operands(expression: str) -> list[float]:
    """The number literals of the computation (left of any '='), in order, as written: "12%" gives 12.0 and
    "$1,234.5" gives 1234.5, so the caller can check each was quoted from a page. ArithmeticRejected like
    evaluate."""
    evaluate(expression)
    return [float(_value(tok)) for tok in _sides(expression)[0] if tok.kind == "num"]
