"""Written numbers (docqa_desktop/numbers.py), one table for the grammar every reader of numbers shares: what
find() reads in a text (each value signed and as written, then with its scale word applied), what value() reads
as a table's cell, and the literal a computation's tokenizer reads at the start."""
from __future__ import annotations

import pytest

from docqa_desktop import numbers

# written, find(): values, find(): scaled, value(): a cell, LITERAL at 0
CASES = [
    ("1,138", [1138], [1138], 1138, "1,138"),
    ("-5", [-5], [-5], -5, None),  # a computation's minus is its parser's operator
    ("−5", [-5], [-5], -5, None),  # U+2212
    ("–5", [5], [5], -5, None),  # an en dash is a range in prose ("2019–2020"), a minus before a cell's figure
    ("(1,234)", [1234], [1234], -1234, None),  # brackets in prose; the accountants' minus in a cell
    ("$ (5)", [5], [5], -5, None),
    ("(2.3)%", [2.3], [2.3], -2.3, None),
    ("(34", [34], [34], -34, None),  # the ")" hangs in the next cell
    ("12.5%", [12.5], [12.5], 12.5, "12.5%"),
    ("12 %", [12], [12], 12, "12"),
    ("$46.3 billion", [46.3], [46.3e9], None, "$46.3"),  # a cell's scale is its caption's ("$ in millions")
    ("1.2bn", [1.2], [1.2e9], None, "1.2"),
    ("7B", [7], [7e9], None, "7"),  # a model's size heading a column: no figure
    ("2019", [2019], [2019], 2019, "2019"),  # a year is a plain number here; values.py tells years apart
    (".5", [0.5], [0.5], 0.5, ".5"),
    ("5.", [5], [5], None, "5."),  # a sentence's full stop; "5." is a number only in a computation
    ("3.14", [3.14], [3.14], 3.14, "3.14"),
    ("1,2", [1, 2], [1, 2], None, "1"),  # two numbers, not 12
    ("1,2345", [1, 2345], [1, 2345], None, "1"),
    ("1234,567", [1234, 567], [1234, 567], None, "1234"),
    ("1,234,567.89", [1234567.89], [1234567.89], 1234567.89, "1,234,567.89"),
    ("-$5", [-5], [-5], -5, None),
    ("€1,200", [1200], [1200], 1200, "€1,200"),
    ("FY2023 and A320", [], [], None, None),  # the end of a word or a code
    ("version 1.2.3 of 3.5.2020", [], [], None, None),
    ("10-5", [10, 5], [10, 5], None, "10"),  # a minus after a number is an operator, not a sign
    ("(-5)", [-5], [-5], -5, None),
    ("Sales rose 12.5% to $46.3 billion in 2023 (from $41.2 billion).", [12.5, 46.3, 2023, 41.2],
     [12.5, 46.3e9, 2023, 41.2e9], None, None),
    ("—", [], [], None, None),
    ("$", [], [], None, None),
]


@pytest.mark.parametrize("written, found, scaled, cell, literal", CASES)
def test_a_written_number_reads_the_same_everywhere(written, found, scaled, cell, literal):
    assert [float(n.value) for n in numbers.find(written)] == pytest.approx(found)
    assert [n.scaled for n in numbers.find(written)] == pytest.approx(scaled)
    number = numbers.value(written)
    assert (float(number.value) if number else None) == (pytest.approx(cell) if cell is not None else None)
    match = numbers.LITERAL.match(written)
    assert (match.group() if match else None) == literal


def test_what_is_written_beside_a_number_is_kept_apart_from_its_value():
    (rose, sales) = numbers.find("up 12.5% to $46.3 billion")
    assert (rose.text, rose.value, rose.percent, rose.currency, rose.scale) == ("12.5%", 12.5, True, "", 1.0)
    assert (sales.text, sales.currency, sales.scale) == ("$46.3 billion", "$", 1e9)
    assert "up 12.5% to $46.3 billion"[sales.start:sales.end] == sales.text
