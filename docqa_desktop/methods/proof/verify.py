"""The check after a model method's last step: its answer stands only with a proof that holds, and its refusal
only when no page it read states a confident value. It decides; methods/verdict.py writes the verdict.

- An answer whose proof checks out (check.py) is *answered*, cited to its quotes as found on the pages.
- One that does not gets one repair round: the model is told what did not check out and replies again in the
  same JSON; if that holds it is answered, else it is an *unverified* draft shown beside the passages read.
- A refusal ("not answerable") while the quoted answers' reader finds a confident value on a page read gets
  one repair round with that passage shown; a second refusal leaves that passage as the closest one.
Confidence, for eval's risk–coverage: a checked answer that the extractive reader agrees with ranks highest.
"""
from __future__ import annotations

import json
from dataclasses import dataclass

from ...answers import PageRef
from ...llm import Message, ModelError
from ...progress import Cancelled
from ..base import Concluded, MethodContext, ModelReply
from ..conversation import thread_query
from ..extractive.reader import confident_value
from ..extractive.scoring import Found
from ..toolkit.final_answer import FinalAnswer
from .check import ProofCheck, same_number, scaled_numbers, check_proof

CONFIDENCE = {"agreed": 0.9, "checked": 0.7, "repaired": 0.6}  # ranks answers for eval's risk–coverage table

REPAIR = """The app checked your answer's proof against the pages and it did not hold:
{problems}
Read the pages again and reply in the same JSON. Copy each quote word for word from the page it names; when the value is worked out from numbers, put the arithmetic over the quoted numbers in "computation" (the app computes it); if the pages do not state the answer, say that the documents do not contain it."""

REFUSAL = """You said the documents do not contain the answer, but page {number} ({source}) says: “{sentence}”
If this answers the question, reply again in the same JSON with the answer and this passage quoted as its proof. If it does not, say again that the documents do not contain the answer."""


ANSWERED, UNVERIFIED, DECLINED = "answered", "unverified", "declined"


@dataclass(frozen=True)
class Decision:
    """What the check decided about a draft: `answered` (cited to `quotes`, its proof's quotes as found),
    `unverified` (cited to `quotes`, the quotes it checked, or to the pages read when None) or `declined` (the
    model's refusal; `passage`: a page read states a value the model would not take, `asked`: it was asked
    again). `seen`: the pages the quotes may be on (None: the pages the draft numbered)."""
    verdict: str
    final: FinalAnswer
    quotes: list[tuple[PageRef, str]] | None = None
    check: str = ""
    confidence: float | None = None
    passage: Found | None = None
    asked: bool = False
    seen: list[PageRef] | None = None


def unchecked(concluded: Concluded) -> Decision:
    """The method's own verdict, its proof not checked (ask.check_proofs off): cited as the method said."""
    return Decision(ANSWERED if concluded.final.answerable else DECLINED, concluded.final, concluded.quotes,
                    seen=concluded.seen)


def verify(ctx: MethodContext, concluded: Concluded) -> Decision:
    """Check the draft's proof, repairing it once if needed (a second model call), and say what it proves."""
    answer = ctx.answer
    final, numbered = concluded.final, concluded.numbered
    answer.notes.append("proof: the method's own verdict: " + ("answered" if final.answerable else "not_found")
                        + (f", short answer {final.short_answer or final.answer!r}" if final.answerable else ""))
    question = thread_query(ctx.question, ctx.conversation)  # a follow-up read with its thread
    # on the pages of the call that concluded, which its proof and a second reply can name
    extractive = confident_value(ctx, question, numbered) if numbered else None
    asked_again = not final.answerable
    if asked_again:
        if extractive is None:
            return Decision(DECLINED, final)
        second = _reconsidered(ctx, final, extractive, numbered)
        if second is None or not second.answerable:
            return Decision(DECLINED, second or final, passage=extractive, asked=second is not None)
        final = second
    checked = _checked(ctx, question, final, numbered)
    if not checked.ok and checked.checkable and not asked_again:
        ctx.step("the proof did not check out: asking the model to repair it")
        second = _repair(ctx, final, REPAIR.format(problems="\n".join(f"- {p}" for p in checked.problems)))
        if second is not None and not second.answerable:
            answer.notes.append("proof: after the repair round the model says the documents do not tell")
            return Decision(DECLINED, second, asked=True)
        if second is not None:
            final, checked, asked_again = second, _checked(ctx, question, second, numbered), True
    if checked.ok:
        return _accepted(final, checked, extractive, asked_again)
    return Decision(UNVERIFIED, final, [(q.ref, q.quote) for q in checked.quotes] or None, checked.summary())


def _reconsidered(ctx: MethodContext, final: FinalAnswer, extractive: Found,
                  numbered: list[PageRef]) -> FinalAnswer | None:
    """The model's answer after it is shown the passage that states a confident value, when it declined (None:
    the call is not on record, or failed)."""
    ctx.step("a page read states a value: asking the model again")
    candidate = extractive.scored.candidate
    return _repair(ctx, final, REFUSAL.format(number=numbered.index(candidate.ref) + 1,
                                              source=candidate.ref.source, sentence=candidate.sentence.text))


def _checked(ctx: MethodContext, question: str, final: FinalAnswer, numbered: list[PageRef]) -> ProofCheck:
    checked = check_proof(question, final, numbered, ctx.pages.text_or_empty, ctx.pages.tables)
    ctx.answer.notes += [f"proof: quote p.{q.number} match {q.match.score:.2f}"
                         + (f", numbers not on the page: {', '.join(q.match.missing_numbers)}"
                            if q.match.missing_numbers else "") for q in checked.quotes]
    ctx.answer.notes.append(f"proof: {checked.summary()}")
    return checked


def _repair(ctx: MethodContext, final: FinalAnswer, request: str) -> FinalAnswer | None:
    """The model's second reply to its own final call, told `request`; None when the call is not on record, or
    fails or is stopped: the first reply then stands as it checked (a draft is never lost to its repair)."""
    origin: ModelReply | None = ctx.reply_origin(final.reply)
    if origin is None:
        return None
    messages = [*origin.messages, Message("assistant", json.dumps(origin.reply, ensure_ascii=False)),
                Message("user", request)]
    shown = ctx.streamed
    try:
        reply = ctx.call("repair proof", origin.runtime, messages, origin.options, origin.pages, shows="answer")
    except (ModelError, Cancelled) as exc:
        ctx.answer.notes.append(f"proof: no second reply ({'stopped' if isinstance(exc, Cancelled) else exc})")
        ctx.streamed = shown
        return None
    return FinalAnswer.from_reply(reply.parsed)


def _accepted(final: FinalAnswer, checked: ProofCheck, extractive: Found | None, repaired: bool) -> Decision:
    """The answer stands, cited to its proof's quotes as found on the pages."""
    agreed = extractive is not None and _agrees(extractive, final.short_answer)
    return Decision(ANSWERED, final, [(q.ref, q.match.excerpt) for q in checked.found],
                    checked.summary() + ("; the extractive reader found the same value" if agreed else ""),
                    CONFIDENCE["agreed" if agreed else "repaired" if repaired else "checked"])


def _agrees(extractive: Found, short_answer: str) -> bool:
    """Whether the extractive reader's value is the model's short answer (as numbers, or as words)."""
    theirs = [r for readings in scaled_numbers(extractive.value.text) for r in readings]
    ours = [r for readings in scaled_numbers(short_answer) for r in readings]
    if theirs and ours:
        return any(same_number(t, o, short_answer) for t in theirs for o in ours)
    return extractive.value.text.strip().lower() == short_answer.strip().lower()
