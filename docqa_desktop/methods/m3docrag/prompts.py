"""M3DocRAG's single call: the retrieved pages, then the question, then the typed final answer."""
from __future__ import annotations

from ..toolkit.final_answer import INSTRUCTIONS as FINAL_ANSWER, FINAL_FIELDS, evidence_schema, final_answer_properties

INSTRUCTIONS = f"""Answer the question using only the document pages you are given. First quote, in "evidence", the page numbers and short passages that bear on the question; then reason briefly in "reasoning" about what they say.

{FINAL_ANSWER}

Reply in JSON with the keys evidence, reasoning, answer, proof, computation, short_answer, answer_format."""

PAGES = """Pages: {page_list}

<page_text>
{page_text}
</page_text>
{image_note}"""

REQUEST = "<question>{question}</question>"


def answer_schema(page_numbers: list[int]) -> dict:
    return {"type": "object",
            "properties": {"evidence": evidence_schema(page_numbers),
                           "reasoning": {"type": "string", "maxLength": 400},
                           **final_answer_properties(page_numbers)},
            "required": ["evidence", "reasoning", *FINAL_FIELDS],
            "additionalProperties": False}
