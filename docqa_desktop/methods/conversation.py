"""Follow-up questions: how a thread's earlier questions and answers reach a method.

A method that keeps a memory (SimpleDoc's working memory) or asks no model (quoted answers) reads
ctx.conversation itself (MethodSpec.follow_ups = "conversation"); every other method gets the earlier turns
written into the question it is asked (follow_ups = "question", the default), so its
prompts show them and its retrieval matches the words the follow-up leaves out ("and on weekends?").

Every method is asked the follow-up as a standalone question first (standalone_question): "And how many
employees did it have?" after "How many stores did Best Buy have at the end of fiscal 2023?" is asked as "How
many employees did Best Buy have at the end of fiscal 2023?". A thread's turns carry their questions as they
were read, so the next follow-up is resolved against the last one written out.
"""
from __future__ import annotations

from .base import Turn
from .extractive.follow_up import standalone


def standalone_question(question: str, turns: list[Turn]) -> str:
    """The question as it is read: a follow-up with the pronouns and elisions of its thread resolved against the
    last turn's question (its subject, its period; extractive.follow_up), else the question as asked."""
    return standalone(question, turns[-1].question) if turns else question


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
