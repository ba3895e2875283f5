"""Structured output: the strict grammar, repair of the JSON models write without one, schema checks."""
from __future__ import annotations

import json

import pytest

from docqa_desktop.llm import InvalidOutput, Message, Options
from docqa_desktop.llm.jsonout import output_token_bound, parse_json, schema_grammar, schema_violation

ANSWER = {"type": "object",
          "properties": {"answer": {"type": "string", "maxLength": 50},
                         "pages": {"type": "array", "items": {"type": "integer"}, "maxItems": 5}},
          "required": ["answer", "pages"]}


@pytest.mark.parametrize("raw", [
    '{"answer": "42 %", "pages": [3, 4]}',
    'Sure! Here is the JSON:\n```json\n{"answer": "42 %", "pages": [3, 4]}\n```\nHope this helps.',
    'The result is {"answer": "42 %", "pages": [3, 4],} as requested.',
    "{'answer': '42 %', 'pages': [3, 4]}".replace("'", '"'),
    '{"answer": "42 %", "pages": [3, 4]',  # cut off before the last brace
    '{"answer": "42 %", "pages": [3, 4',
])
def test_common_slips_are_repaired(raw):
    assert parse_json(raw, ANSWER) == {"answer": "42 %", "pages": [3, 4]}


def test_python_literals_become_json():
    assert parse_json('{"ok": True, "missing": None}') == {"ok": True, "missing": None}


@pytest.mark.parametrize("raw, reason", [
    ("I could not find the answer in these pages.", "not valid JSON"),
    ('{"answer": "x"}', "lacks pages"),
    ('{"answer": 7, "pages": []}', "answer should be string"),
    ('{"answer": "x", "pages": ["three"]}', r"pages\[0\] should be integer"),
    ('{"answer": "x", "pages": [1, 2, 3, 4, 5, 6]}', "more than 5 items"),
])
def test_hopeless_output_is_a_clear_failure(raw, reason):
    with pytest.raises(InvalidOutput, match=reason):
        parse_json(raw, ANSWER)


def test_enum_and_integer_checks():
    schema = {"type": "integer", "enum": [1, 2, 3]}
    assert schema_violation(2, schema) is None
    assert "one of" in schema_violation(7, schema)
    assert schema_violation(True, {"type": "integer"})  # a bool is not a page number
    assert schema_violation(2.5, {"type": "integer"})


def test_grammar_keeps_control_characters_out_of_strings():
    grammar = schema_grammar(ANSWER)
    assert "\\x00-\\x1F" in grammar


def test_token_bound_covers_the_longest_valid_output():
    bound = output_token_bound(ANSWER)
    longest = json.dumps({"answer": "x" * 50, "pages": [-(10**15)] * 5})
    assert bound >= len(longest)  # a token is at least one character
    assert output_token_bound({"type": "string"}) is None  # unbounded: no promise


def test_small_model_without_grammar_is_repaired_or_refused_clearly(smollm2):
    """SmolLM2 asked for JSON in words only (no grammar): the result parses, or fails naming the problem."""
    outcomes = []
    for seed in range(5):
        completion = smollm2.chat([Message("user", 'Reply only with JSON like {"answer": "...", "pages": [1]}: '
                                                   "what colour is the sky?")],
                                  Options(max_tokens=60, temperature=0.8, seed=seed))
        try:
            value = parse_json(completion.text, ANSWER)
        except InvalidOutput as exc:
            assert "JSON" in str(exc) or "schema" in str(exc)
            outcomes.append("refused")
        else:
            assert schema_violation(value, ANSWER) is None
            outcomes.append("parsed")
    assert len(outcomes) == 5
