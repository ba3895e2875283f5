"""Follow-up questions: how a thread's earlier questions and answers reach a method.

A method that keeps a memory (SimpleDoc's working memory) or asks no model (quoted answers) reads
ctx.conversation itself (MethodSpec.follow_ups = "conversation"); every other method gets the earlier turns
written into the question it is asked (follow_ups = "question", the default), so its
prompts show them and its retrieval matches the words the follow-up leaves out ("and on weekends?").
"""
from __future__ import annotations

from .base import Turn


def question_in_context(question: str, turns: list[Turn]) -> str:
    """The follow-up, then the thread so far, as one question. The follow-up comes first: retrieval embeds this
    text and a sentence embedder reads only its first 256 tokens."""
    if not turns:
        return question
    return f"{question}\n\n(A follow-up. Earlier in this conversation:\n{memory_lines(turns)})"


def memory_lines(turns: list[Turn]) -> str:
    return "\n".join(f"Q: {turn.question.strip()}\nA: {turn.answer.strip()}" for turn in turns)


def thread_query(question: str, turns: list[Turn], earlier: int = 1) -> str:
    """What to search for: the follow-up with the `earlier` last questions of the thread before it (a
    follow-up often names nothing itself: "and the year before?")."""
    return " ".join([t.question.strip() for t in turns[-earlier:]] + [question]) if turns and earlier else question
