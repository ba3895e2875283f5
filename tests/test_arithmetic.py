"""The proof's arithmetic evaluator: a model's computation over quoted numbers is evaluated by the app, and
anything but arithmetic is rejected with a message the model can act on."""
import random
import re

import pytest

from docqa_desktop.methods.proof.arithmetic import ArithmeticRejected, evaluate, operands


def test_percentage_change():
    assert evaluate("(56.8 - 51.5) / 51.5 * 100") == pytest.approx(10.2912621)


def test_ratio_and_average():
    assert evaluate("1,250 / 500") == pytest.approx(2.5)
    assert evaluate("avg(12.5, 13.5, 14)") == pytest.approx(13.333333)
    assert evaluate("mean(1, 2, 3, 4)") == 2.5


def test_sum_of_a_column_with_thousands_commas():
    assert evaluate("1,234,567.89 + 2,000 + 345") == pytest.approx(1236912.89)
    assert evaluate("sum(1,234, 5,678, 10)") == 6922.0


def test_round_is_half_away_from_zero_on_the_written_value():
    assert evaluate("round(56.789, 2)") == 56.79
    assert evaluate("round(2.675, 2)") == 2.68  # float rounding would give 2.67
    assert evaluate("round(2.5)") == 3.0 and evaluate("round(-2.5)") == -3.0
    assert evaluate("round(12.5 / 3, 1)") == 4.2


def test_percent_literals_and_currency():
    assert evaluate("12% * 200") == 24.0
    assert evaluate("$1,200 - €200 + £50 + ¥1") == 1051.0
    assert evaluate("-$5 * 2") == -10.0


def test_typographic_operators_and_brackets():
    assert evaluate("3 × 4 ÷ 2 − 1 – 1") == 4.0
    assert evaluate("[1 + 2] * (3 + [4])") == 21.0


def test_written_result_is_ignored():
    assert evaluate("(56.8 - 51.5) / 51.5 * 100 ≈ 10.3") == pytest.approx(10.2912621)
    assert evaluate("5 + 5 = 20") == 10.0  # the caller compares; the model's own number does not count
    assert evaluate("5 + 5 =") == 10.0


def test_precedence_and_unary_minus():
    assert evaluate("2 + 3 * 4") == 14.0
    assert evaluate("(2 + 3) * 4") == 20.0
    assert evaluate("10 - 4 - 3") == 3.0 and evaluate("24 / 4 / 2") == 3.0
    assert evaluate("-3 * -2") == 6.0 and evaluate("--3") == 3.0 and evaluate("+-+3") == -3.0
    assert evaluate("-(2 - 5)") == 3.0 and evaluate("2 * -abs(-3)") == -6.0
    assert evaluate(".5 + 5.") == 5.5
    assert evaluate("max(3, 1, 2) - min(3, 1, 2)") == 2.0


def test_comma_rule_thousands_versus_arguments():
    # a comma then exactly three digits then a non-digit is a thousands separator, also inside a call
    assert evaluate("max(1,234)") == 1234.0
    assert evaluate("max(1, 234)") == 234.0
    assert evaluate("round(56.789,2)") == 56.79  # ",2" is not a group of three: an argument separator
    assert evaluate("max(1,23)") == 23.0
    assert evaluate("sum(1234,567)") == 1801.0  # a group needs 1-3 digits before the first comma
    for text in ("1,23", "1,2345", "1234,567", "(1, 2)"):
        with pytest.raises(ArithmeticRejected, match="comma outside a function call"):
            evaluate(text)


def test_operands_in_order_as_written():
    assert operands("(56.8 - 51.5) / 51.5 * 100") == [56.8, 51.5, 51.5, 100.0]
    assert operands("12% * $1,234.5") == [12.0, 1234.5]
    assert operands("round(avg(1,200, 3), 2) = 601.5") == [1200.0, 3.0, 2.0]  # not the written result
    assert operands("-7 + 2") == [7.0, 2.0]


def test_operands_rejects_like_evaluate():
    with pytest.raises(ArithmeticRejected, match="unknown word 'revenue' at position 3"):
        operands("1 revenue")


@pytest.mark.parametrize("text, message", [
    ("__import__('os').system('x')", "underscore in '__import__'"),
    ("().__class__", "attribute access"),
    ("2**10", "no exponents: '**'"),
    ("2^3", "no exponents: '^'"),
    ("open('f')", "unknown word 'open' at position 1"),
    ("a + 1", "unknown word 'a'"),
    ('"1" + 2', "quotes"),
    ("1/0", "division by zero at position 2"),
    ("1 / (2 - 2)", "division by zero"),
    ("1e309*10", "scientific notation"),  # not allowed at all: pages do not print it
    ("2.5E3", "scientific notation"),
    ("(1 + 2", "unmatched '(' at position 1"),
    ("1 + 2)", "unmatched ')'"),
    ("(1 + 2]", "closed by ']'"),
    ("max()", "empty brackets"),
    ("1" * 301, "longer than 300 characters"),
    ("(" * 31 + "1" + ")" * 31, "nesting deeper than 30"),
    ("round(" * 31 + "1" + ")" * 31, "nesting deeper than 30"),
    ("+".join(["1"] * 61), "more than 60 numbers"),
    ("", "empty expression"),
    ("  = 5", "empty expression"),
    ("1 +", "ends too early"),
    ("2 (3)", "missing operator before '('"),
    ("7 % 2", "no modulo"),
    ("$ 5", "currency sign"),
    ("round(1.5, 11)", "from 0 to 10"),
    ("round(1.5, 1.5)", "whole number"),
    ("abs(1, 2)", "one argument"),
    ("round", "needs '('"),
    ("lambda: 1", "unknown word 'lambda'"),
    ("1 + 2 = about 3", "unknown word 'about'"),
    ("0x10", "unknown word 'x10'"),
    ("{1}", "unexpected character '{'"),
])
def test_rejections(text, message):
    with pytest.raises(ArithmeticRejected, match=re.escape(message)):
        evaluate(text)


def test_limits_are_inclusive():
    assert evaluate("(" * 30 + "1" + ")" * 30) == 1.0
    assert evaluate("+".join(["1"] * 60)) == 60.0
    assert evaluate("1" * 300) == pytest.approx(float("1" * 300))


def test_non_text_is_rejected():
    with pytest.raises(ArithmeticRejected, match="must be text"):
        evaluate(None)  # type: ignore[arg-type]


def test_no_other_exception_type_on_garbage():
    # untrusted model output: whatever it writes gives a float or ArithmeticRejected, never another error
    pieces = list("0123456789.,%$€ +-−–*/×÷()[]=≈^'_aeEx") + [
        "round(", "max(", "avg(", "sum(", "abs(", "1,234", "12%", ", ", "**", ".5", "1e9", "9" * 40, "0.0001"]
    rng = random.Random(7)
    for _ in range(3000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 30)))
        try:
            value = evaluate(text)
        except ArithmeticRejected:
            continue
        assert value == value and abs(value) < float("inf")
