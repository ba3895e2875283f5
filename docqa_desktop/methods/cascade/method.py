"""The default answer ("auto"): quoted, then the text model reads the passages.

a. The quoted reader answers when it is sure (no model; about a second).
b. Otherwise, with a text model at or above the floor (ctx.chooser), the model reads the passages the app would
   show and writes a short span that answers, or "none"; the span is kept only where a passage holds it word for
   word (reading.py).
c. The model then checks each value, its span and the learned scorer's best ones, one by one: the probability it
   gives "yes, the passages state that this is the answer".
d. With `model_answers` (off by default: measured, the 1.5B's checks are not precise enough), a value answers when
   its check clears `min_yes` and no other value checked clears it too; else the quoted verdict stays (the closest
   passages), with the value the model leans to said as such.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, replace

from ...answers import AnswerStatus, Citation, PageRef
from ...llm import ModelError
from ..base import Decided, MethodContext
from ..citations import cite
from ..extractive.passages import closest
from ..extractive.scorer import each_value_once, first_of_each_value, value_key
from ..quoted.method import QuotedSettings, Read, answer_quoted
from . import reading
from .reading import Passage

PROMPT_TOKENS = 1200  # the passages' prompt at most: a laptop's model reads it in a few seconds
SPAN = "span"  # Checked.origin: the model wrote it; else the scorer's rank ("scorer 1", …)
LEANS = 0.5  # a check at or above this is said above the passages as the model's lean


@dataclass(frozen=True)
class CascadeSettings(QuotedSettings):
    read_passages: int = 5  # the closest sentences the model reads (those the app shows, and two more)
    checked: int = 2  # the learned scorer's best values the model checks beside its own span
    # whether a value the model's check is sure of answers; off: with the 1.5B no min_yes kept 93 % of its answers
    # right on documents it never saw (benchmarks/reader/model_reader.py: 188 questions over 95 documents, at 0.8
    # 3 of 8 right), so its value is said as its lean above the passages. On for a stronger model, measured first
    model_answers: bool = False
    min_yes: float = 0.9  # the least probability of "yes" for a value to answer (with model_answers)
    prompt_tokens: int = PROMPT_TOKENS


@dataclass(frozen=True)
class Checked:
    """A value the model checked: where it stands, and the model's probability that the passages state it."""
    value: str
    origin: str  # SPAN, or "scorer N"
    ref: PageRef
    quote: str  # the passage (or the cell's labels) it is quoted from
    yes: float = 0.0  # set by the check
    box: tuple | None = None  # a cell's box on its page


def run(ctx: MethodContext) -> None:
    started = time.perf_counter()
    read = answer_quoted(ctx)
    draft = ctx.decided
    if read is None or draft is None or draft.answers:
        _say_step(ctx, "quoted", started)
        return
    if ctx.chooser is None or draft.status is not AnswerStatus.PASSAGES:
        return  # no model that may read, or no page read is about the question: quoted's verdict stands
    settings = ctx.settings
    checked = _model_reads(ctx, read)
    ctx.answer.checked = checked
    sure = [c for c in checked if c.yes >= settings.min_yes]
    values = {value_key(c.value) for c in sure}
    if len(values) == 1 and settings.model_answers:
        ctx.decide(_answered(ctx, max(sure, key=lambda c: c.yes), started))
    elif len(values) > 1:
        ctx.answer.notes.append("cascade: the model finds more than one value stated as the answer: "
                                + ", ".join(sorted({c.value for c in sure})))
        ctx.decide(_lean(draft, max(sure, key=lambda c: c.yes), "it finds another value stated as well"))
    elif checked and max(c.yes for c in checked) >= LEANS:
        best = max(checked, key=lambda c: c.yes)
        ctx.decide(_lean(draft, best, f"its check {best.yes:.2f} is under {settings.min_yes}" if not sure else
                         f"its check {best.yes:.2f}; the model's checks do not answer: cascade.model_answers is off"))


def _model_reads(ctx: MethodContext, read: Read) -> list[Checked]:
    """The model's span (when a passage holds it) and the scorer's best values, each with the model's check."""
    settings, answer = ctx.settings, ctx.answer
    passages = _fitting(ctx, [Passage(s.candidate.ref, s.candidate.sentence.text)
                              for s in closest(read.reading.sentences, settings.read_passages,
                                               settings.related_coverage)])
    if not passages:
        return []
    try:
        ctx.step("the model reads the passages")
        written = ctx.call("write the answer's words", ctx.chooser, reading.span_messages(ctx.question, passages),
                           reading.span_options(), read.pages).text.strip()
        source = reading.copied_from(written, passages)
        answer.notes.append(f"cascade: the model wrote {written!r}" + (f", found in {source.ref.source}" if source
                            else ", which no passage holds word for word" if written != reading.NONE else ""))
        proposed = [Checked(written, SPAN, source.ref, source.text)] if source else []
        proposed += [Checked(e.value, f"scorer {n}", e.ref, e.quote, box=e.cell.cell.bbox if e.cell else None)
                     for n, (e, _) in enumerate(each_value_once(answer.candidates), 1)
                     if e.computed is None][:settings.checked]  # a computation is checked by the app, not read
        # each value once, where it was proposed first (the model's own words before the scorer's)
        return [_check(ctx, read, passages, value) for value in first_of_each_value(proposed, lambda c: c.value)]
    except ModelError as exc:
        answer.notes.append(f"cascade: the model failed ({exc}); the passages stand")
        return []


def _check(ctx: MethodContext, read: Read, passages: list[Passage], proposed: Checked) -> Checked:
    """`proposed` with the model's probability that the passages state it as the answer."""
    value, ref = proposed.value, proposed.ref
    ctx.step(f"the model checks {value!r}")
    on_a_passage = any(p.text == proposed.quote for p in passages)
    shown = value if on_a_passage else f"{value} (from {ref.source}: “{proposed.quote}”)"  # a cell, another line
    completion = ctx.call(f"check {value!r}", ctx.chooser, reading.check_messages(ctx.question, passages, shown),
                          reading.check_options(), read.pages)
    yes = reading.yes_probability(completion)
    ctx.answer.notes.append(f"cascade: {proposed.origin} {value!r}: the model's check says yes with p = {yes:.2f}")
    return replace(proposed, yes=round(yes, 4))


def _fitting(ctx: MethodContext, passages: list[Passage]) -> list[Passage]:
    """The closest passages whose prompt fits `prompt_tokens` (the last ones dropped first)."""
    while passages and ctx.chooser.count_tokens(
            "".join(m.text for m in reading.span_messages(ctx.question, passages))) > ctx.settings.prompt_tokens:
        passages = passages[:-1]
    return passages


def _answered(ctx: MethodContext, best: Checked, started: float) -> Decided:
    how = "written by the model from the passages" if best.origin == SPAN else "the reader's value"
    citations = ([Citation(best.ref.doc, best.ref.path, best.ref.page, best.ref.label, best.quote, best.box)]
                 if best.box is not None else cite(ctx.pages, [(best.ref, best.quote)], best.value, [best.ref]))
    return replace(Decided.answered(best.value, f"{best.value}\n\nQuoted from {best.ref.source}: “{best.quote}”",
                                    citations, confidence=round(best.yes, 3)),
                   check=f"{how}; the model's check: the passages state it (p = {best.yes:.2f}); "
                         f"{time.perf_counter() - started:.1f} s")


def _lean(draft: Decided, best: Checked, why: str) -> Decided:
    """The passages stay the answer; the value the model leans to is said above them, as uncertain."""
    return replace(draft, text=f"The model leans to “{best.value}” ({best.ref.source}), but not surely enough to "
                               f"answer ({why}).\n\n{draft.text}")


def _say_step(ctx: MethodContext, step: str, started: float) -> None:
    # the quoted answer's own verdict stands: the time it took is added to its check (rendered after the method)
    if ctx.decided is not None:
        said = f"{step}; {time.perf_counter() - started:.1f} s"
        ctx.decide(replace(ctx.decided, check=f"{said}; {ctx.decided.check}" if ctx.decided.check else said))
