"""The text model reads the passages the app shows: it writes a short span that answers (a candidate, kept only
where it is copied from a passage), and says, candidate by candidate, whether the passages state it as the answer
(the probability of "yes": no letters, so no position bias).

Measured before this design (issue 53, the 80 hidden everyday questions): given only the passages the app shows,
the 1.5B wrote the right answer for 29 of 67 answerable questions, and also wrote one to 9 of 13 unanswerable ones;
its own check let through 17 at p ≥ 0.9, 15 of them right. A strong piece of evidence, not a verdict by itself.

Both prompts share their beginning (the instructions, the passages, the question), so llama.cpp reuses the
span's prompt for every check (its prefix cache).
"""
from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from ...answers import PageRef
from ...llm import Message, Options

NONE = "none"
YES, NO = "yes", "no"  # the check's two replies
SPAN_CHARS = 60  # an answer's words, not its passage: the 1.5B copies whole sentences when it can
SPAN_TOKENS = 30

INSTRUCTIONS = ("You read passages from the user's documents to answer a question. Use only what the passages "
                "say; a passage about another year, group, place or measure does not answer it.")
WRITE = ("Reply with only the few words of one passage that answer the question, copied exactly (a number with "
         f"its unit, a name, a date or a short phrase), or {NONE} when the passages do not answer it.\nAnswer:")
CHECK = ("Proposed answer: {value}\nDo the passages state that this is the answer to the question? Reply yes or "
         "no.\nReply:")


@dataclass(frozen=True)
class Passage:
    ref: PageRef
    text: str

    def line(self, number: int) -> str:
        return f"[{number}] {self.ref.source}: “{self.text}”"


def messages(question: str, passages: list[Passage], ask: str) -> list[Message]:
    listed = "\n".join(p.line(n) for n, p in enumerate(passages, 1))
    return [Message("system", INSTRUCTIONS),
            Message("user", f"Passages:\n{listed}\n\nQuestion: {question}\n\n{ask}")]


def span_messages(question: str, passages: list[Passage]) -> list[Message]:
    return messages(question, passages, WRITE)


def check_messages(question: str, passages: list[Passage], value: str) -> list[Message]:
    return messages(question, passages, CHECK.format(value=value))


def span_options() -> Options:
    """A short line without quotation marks (the words, not the passage quoted), or "none"."""
    grammar = f'root ::= "{NONE}" | span\nspan ::= [^\\n"“”]{{1,{SPAN_CHARS}}}\n'
    return Options(max_tokens=SPAN_TOKENS, temperature=0.0, grammar=grammar)


def check_options() -> Options:
    """YES or NO, the probability of each read at the first step."""
    return Options(max_tokens=2, temperature=0.0, grammar=f'root ::= "{YES}" | "{NO}"\n', choices=(YES, NO))


def yes_probability(completion) -> float:
    """The check's probability of YES (from the reply alone when the backend gives no probabilities)."""
    return completion.choice_probabilities.get(YES, 1.0 if completion.text.strip() == YES else 0.0)


def copied_from(span: str, passages: list[Passage]) -> Passage | None:
    """The first passage the span is copied from (spaces, case and accents aside); None: the model wrote words
    no passage holds, or none."""
    wanted = _plain(span)
    if not wanted or wanted == NONE:
        return None
    return next((p for p in passages if wanted in _plain(p.text)), None)


def _plain(text: str) -> str:
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    return " ".join(folded.split()).strip(" .,;:\"'")
