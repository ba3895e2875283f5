"""The one owner of an answer's verdict: a method ends with a draft (ctx.conclude: its final answer, the pages it
read, its quotes) and `finish` runs it, then decides once: the proof check (methods/proof), the model floor,
Stop and failure, and it alone sets a model method's status and citations.

The rule is the same for every method: an answer that stands is answered (cited to its proof, or as the method
said with the check off); one whose proof does not hold, or that a model below the method's floor wrote, is an
unverified draft beside the passages read; a model's refusal, or a draft withheld, ends as the closest passages
read, cited, unless no page read shares the question's key terms: then, only then, "not found". The quoted
answers (methods/quoted, the cascade) read the pages themselves and reach their verdict by the same rule: they
record it (ctx.decide, a `Decided`), and `finish` renders it. No other module sets an answer's status
(tests/test_layers.py: test_only_the_verdict_sets_a_status).
"""
from __future__ import annotations

import time
from dataclasses import replace
from typing import Callable

from ..answers import Answer, AnswerStatus
from ..llm import ModelError
from ..llm.gguf_file import ModelSize, size_text
from ..progress import Cancelled
from .base import Concluded, Decided, MethodContext, MethodSpec
from .citations import cite
from .conversation import thread_query
from .extractive.passages import about_question, closest, listed
from .extractive.question import parse_question
from .extractive.reader import read
from .proof.verify import ANSWERED, DECLINED, Decision, unchecked, verify
from .toolkit.final_answer import FinalAnswer

NOT_ANSWERED = "Not answerable from the documents."


def finish(spec: MethodSpec, ctx: MethodContext, check_proofs: bool = True,
           writers: Callable[[Answer], list[ModelSize]] | None = None) -> None:
    """Run a method on ctx.answer and set its verdict, once: failures and Stop end up in the answer's status, not
    as exceptions; a draft is checked (with `check_proofs`), judged and cited; `writers(answer)`: the sizes of the
    models that wrote it, weighed against the method's floor (MethodSpec.min_model_params)."""
    started = time.perf_counter()
    answer = ctx.answer
    try:
        spec.run(ctx)
        if ctx.decided is not None:
            render(answer, ctx.decided)
        elif ctx.concluded is not None:
            _judge(ctx, ctx.concluded, verify(ctx, ctx.concluded) if check_proofs else unchecked(ctx.concluded))
    except Cancelled:
        # what was already streamed stays: Stop ends the answer, it does not take it back
        answer.status = AnswerStatus.CANCELLED
        answer.text = ctx.streamed or "Stopped before an answer was found."
    except ModelError as exc:
        answer.status, answer.error = AnswerStatus.FAILED, str(exc)
        answer.text = f"The model failed: {exc}"
    answer.seconds = time.perf_counter() - started
    if ctx.gone:
        answer.notes.append("Skipped pages whose document was removed while answering: "
                            + ", ".join(f"{p.doc} p.{p.page}" for p in ctx.gone))
    if writers is not None:
        below_floor(answer, spec, writers(answer))


def _judge(ctx: MethodContext, concluded: Concluded, decision: Decision) -> None:
    answer = ctx.answer
    if decision.verdict == DECLINED:
        _declined(ctx, concluded, decision)
        return
    final = decision.final
    record(answer, final)
    answer.check, answer.confidence = decision.check, decision.confidence
    text = final.answer or final.short_answer
    if decision.verdict == ANSWERED:
        quotes = decision.quotes
        if quotes is None:  # the method's own: its reply's evidence, by page number
            numbered = concluded.numbered
            quotes = [(numbered[e["page"] - 1], e["quote"]) for e in (final.reply or {}).get("evidence", [])
                      if 0 < e["page"] <= len(numbered)]
        answer.citations = cite(ctx.pages, quotes, text, decision.seen or concluded.numbered)
        return
    read_pages = answer.pages_used or concluded.numbered
    answer.status = AnswerStatus.UNVERIFIED
    answer.citations = cite(ctx.pages, decision.quotes or [(ref, "") for ref in read_pages], text, read_pages)


def render(answer: Answer, decided: Decided) -> None:
    """Set a verdict's parts on the answer: its status, text, short answer and format, citations, computation,
    confidence, likeliest value and check."""
    answer.status, answer.text, answer.citations = decided.status, decided.text, list(decided.citations)
    answer.short_answer, answer.answer_format = decided.short_answer, decided.answer_format
    answer.computation, answer.confidence, answer.likeliest = decided.computation, decided.confidence, decided.likeliest
    answer.check = decided.check


def record(answer: Answer, final: FinalAnswer) -> bool:
    """Put a final answer's parts on `answer` (status, long and short text, format); True when it answers."""
    if final.answerable:
        render(answer, Decided.answered(final.short_answer or final.answer, final.answer or final.short_answer, (),
                                        final.answer_format, final.computation))
        return True
    render(answer, Decided.not_found(NOT_ANSWERED))
    return False


def _declined(ctx: MethodContext, concluded: Concluded, decision: Decision) -> None:
    """A refusal or a withheld draft: the passage a page read states a value in, else the closest passages, else
    (no page read shares the question's key terms) not found."""
    answer = ctx.answer
    if decision.passage is not None:
        render(answer, _passage_stated(ctx, decision))
        return
    pages = answer.pages_used or concluded.numbered or concluded.seen or []
    if not pages:
        render(answer, Decided.not_found(concluded.unread or NOT_ANSWERED))
        return
    asked = answer.standalone_question or answer.question or ctx.question
    question = asked if answer.standalone_question or not ctx.conversation else thread_query(asked, ctx.conversation)
    reading = read(ctx, parse_question(question), pages)
    shown = closest(reading.sentences) if about_question(asked, reading) else []
    if not shown:
        render(answer, Decided.not_found(f"Not found: none of the {len(pages)} page{'s' if len(pages) != 1 else ''} "
                                         "read is about this question."))
        return
    text = "The model found no answer; the closest passages (read them to judge):\n" + listed(shown)
    render(answer, Decided.passages(text, cite(ctx.pages, [(s.candidate.ref, s.candidate.sentence.text)
                                                           for s in shown], text, pages)))


def _passage_stated(ctx: MethodContext, decision: Decision) -> Decided:
    """The model keeps refusing a page that states a value: that passage is shown as the closest one."""
    found = decision.passage
    candidate = found.scored.candidate
    citations = cite(ctx.pages, [(candidate.ref, candidate.sentence.text)], candidate.sentence.text, [candidate.ref])
    return replace(Decided.passages(f"The model found no answer, but this passage may hold one (read it to judge):\n"
                                    f"[1] {candidate.ref.source}: “{candidate.sentence.text}”", citations),
                   check=f"The model declined{' twice' if decision.asked else ''} although {candidate.ref.source} "
                         f"states {found.value.text!r}")


def below_floor(answer: Answer, spec: MethodSpec, writers: list[ModelSize]) -> None:
    """An answer that a model below the method's floor (MethodSpec.min_model_params) helped write is no answer
    to stand behind: "answered" becomes an unverified draft, saying which model wrote it (a draft already
    unverified, its proof not checking out, says so too)."""
    below = [size for size in writers if size.below(spec.min_model_params)]
    if not below or answer.status not in (AnswerStatus.ANSWERED, AnswerStatus.UNVERIFIED):
        return
    size = min(below, key=lambda s: s.billions)
    writer = f"a {size.label} model" if size.label else "the built-in model"
    note = (f"unverified — written by {writer} (this method needs about {size_text(spec.min_model_params)} "
            "parameters or more)")
    answer.status = AnswerStatus.UNVERIFIED
    answer.check = f"{note}; {answer.check}" if answer.check else note

