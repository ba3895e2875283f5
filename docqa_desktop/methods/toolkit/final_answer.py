"""The typed last step every method ends with: room to reason, then the long answer, the short answer and its
format (MMLongBench-Doc's Str / Int / Float / List / None), so scoring reads the method's own short answer
instead of a regex guessing one out of a sentence.
"""
from __future__ import annotations

from dataclasses import dataclass, field

FORMATS = ("Str", "Int", "Float", "List", "None")
NOT_ANSWERABLE = "Not answerable"

ANSWER_RULES = """Answer the question that is asked: for "which", "what" or "who" name the thing, for "how many" or "how much" give the number, and answer yes or no only to a yes/no question. A value worked out from numbers on the pages (a difference, ratio, percentage, total or count) is an answer; say the documents do not contain the answer only when the pages do not have the information."""

# the typed parts alone, for a method whose paper has its own answering rules (DocLens's sampler)
FINAL_PARTS = """Finish with the final answer and its proof:
- "answer": a complete, concise answer in a sentence or two;
- "proof": one or two quotes copied word for word from the pages, each with its page number, that contain the answer's value (or the numbers it is worked out from); the app checks them against the pages. Empty when the documents do not contain the answer;
- "computation": when the value is worked out from numbers on the pages, the arithmetic over the quoted numbers, e.g. "(56.8 - 51.5) / 51.5 * 100"; the app computes it. Otherwise "";
- "short_answer": only the answer itself: a number (digits, no words), a name or short phrase, or several items written as ["a", "b"];
- "answer_format": Int (a whole number), Float (a number with decimals, or a percentage), Str (a word, name or phrase), List (several items), or None when the documents do not contain the answer (then short_answer is "Not answerable")."""

INSTRUCTIONS = f"{ANSWER_RULES}\n\n{FINAL_PARTS}"


# the final parts in the order the model writes them: the proof before the short answer, so that the value
# is copied from a quote rather than quoted to fit a value (methods/proof checks both)
FINAL_FIELDS = ("answer", "proof", "computation", "short_answer", "answer_format")
PROOF_QUOTES, PROOF_QUOTE_CHARS, COMPUTATION_CHARS = 2, 160, 100


def final_answer_properties(page_numbers: list[int], answer_chars: int = 300) -> dict:
    """JSON-schema properties for the final parts (FINAL_FIELDS), to append after a method's own (reasoning
    first); `page_numbers`: the pages as numbered in the prompt, which the proof's quotes name."""
    return {"answer": {"type": "string", "maxLength": answer_chars},
            "proof": quotes_schema(page_numbers, PROOF_QUOTES, PROOF_QUOTE_CHARS),
            "computation": {"type": "string", "maxLength": COMPUTATION_CHARS},
            "short_answer": {"type": "string", "maxLength": 80},
            "answer_format": {"type": "string", "enum": list(FORMATS)}}


def quotes_schema(page_numbers: list[int], quotes: int, chars: int) -> dict:
    """Up to `quotes` passages, each with the number of the page it is on (as numbered in the prompt)."""
    return {"type": "array", "maxItems": quotes,
            "items": {"type": "object",
                      "properties": {"page": {"type": "integer", "enum": page_numbers},
                                     "quote": {"type": "string", "maxLength": chars}},
                      "required": ["page", "quote"], "additionalProperties": False}}


def evidence_schema(page_numbers: list[int], quotes: int = 3) -> dict:
    """Quotes the model says support its answer, by the page numbers shown to it (citations.cite checks them)."""
    return quotes_schema(page_numbers, quotes, 120)


def reasoned_answer_schema(page_numbers: list[int], analysis_chars: int = 600) -> dict:
    """A reply that reasons first ("analysis"), quotes its evidence by page number, then gives the three parts."""
    return {"type": "object",
            "properties": {"analysis": {"type": "string", "maxLength": analysis_chars},
                           "evidence": evidence_schema(page_numbers),
                           **final_answer_properties(page_numbers)},
            "required": ["analysis", "evidence", *FINAL_FIELDS],
            "additionalProperties": False}


@dataclass(frozen=True)
class FinalAnswer:
    answer: str
    short_answer: str
    answer_format: str
    proof: tuple[tuple[int, str], ...] = ()  # (page number in the prompt, quote) as the model wrote them
    computation: str = ""
    reply: dict | None = field(default=None, compare=False, repr=False)  # the parsed reply it was read from

    @property
    def answerable(self) -> bool:
        return (self.answer_format != "None" and bool(self.answer.strip() or self.short_answer.strip())
                and self.short_answer.strip().lower() != NOT_ANSWERABLE.lower())

    @property
    def comparable(self) -> str:
        """What an aggregator compares: the short answer (so "6" and "There are 6 figures." agree), or
        Not answerable."""
        return (self.short_answer or self.answer) if self.answerable else NOT_ANSWERABLE

    @classmethod
    def from_reply(cls, reply: dict) -> "FinalAnswer":
        proof = tuple((q["page"], q["quote"].strip()) for q in reply.get("proof", ()) if q.get("quote", "").strip())
        return cls(reply.get("answer", "").strip(), reply.get("short_answer", "").strip(),
                   reply.get("answer_format", "Str"), proof, reply.get("computation", "").strip(), reply)

    @classmethod
    def declined(cls, reply: dict | None = None) -> "FinalAnswer":
        """No answer; `reply`: the model's reply that declined (so the proof check can ask it again)."""
        return cls("", NOT_ANSWERABLE, "None", reply=reply)

