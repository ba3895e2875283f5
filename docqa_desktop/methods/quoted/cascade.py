"""The default answer ("auto"): quoted, then the model chooses.

a. The quoted reader answers when it is sure (no model; about a second).
b. Otherwise, with a text model at or above the floor (ctx.chooser), the model gets the question and a short
   lettered list of candidates from the pages read (candidates.py) and makes one grammar-constrained choice
   (choice.py): a candidate, a span of one, an operation over two values that the app computes, or none.
c. The choice stands only when what it quotes is on its cited page and the model's margin holds: its probability
   for the reply at least `min_probability`. (Agreement with the reader's first value is no margin: that value is
   listed first, and the 1.5B chose the first candidate in most lists; on dev.jsonl the three choices agreement let
   through were all wrong.)
d. Otherwise the quoted verdict stays: the closest passages (with the model's lean said to be one), or not found.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, replace

from ...answers import AnswerStatus, Citation
from ...llm import ModelError
from ..base import MethodContext
from ..citations import cite
from ..proof.quotes import number_values
from . import choice as choosing
from .candidates import LABELS, Option, options
from .method import QuotedSettings, Read, answer_quoted

WHOLE_PASSAGE = 0.7  # a span with more of its passage's words than this share is the passage, not an answer
# one candidate or none is a yes/no on it, which the 1.5B says yes to (p ≈ 0.9) whatever it is: on facts.jsonl's
# unseen documents 4 of the 5 such choices were wrong ("7", "1", "2" for 67, 72 %, 730); reversing one changes nothing
SINGLE = "a single candidate: the model had nothing to choose between"
PROMPT_TOKENS = 1200  # the choice's prompt at most: a laptop's model reads it in about ten seconds


@dataclass(frozen=True)
class CascadeSettings(QuotedSettings):
    # the least probability the model's first step gives its reply, among the replies allowed, for the choice to
    # stand (set on dev.jsonl with the 1.5B, benchmarks/cascade.py: at 0.6 two choices went through, both wrong)
    min_probability: float = 0.7
    prompt_tokens: int = PROMPT_TOKENS
    # ask again with the candidates in reverse order and trust only the same choice: a small model favours the
    # first letter (the 1.5B replied "A" to 87 of 123 lists on facts.jsonl, and at 0.7 four of the five choices it
    # was sure of on the unseen documents were wrong)
    order_check: bool = True


def run(ctx: MethodContext) -> None:
    started = time.perf_counter()
    read = answer_quoted(ctx)
    answer = ctx.answer
    if read is None or answer.status is AnswerStatus.ANSWERED:
        _say_step(ctx, "quoted", started)
        return
    if ctx.chooser is None or answer.status is not AnswerStatus.PASSAGES:
        return  # no model that may choose, or no page read is about the question: quoted's verdict stands
    _choose(ctx, read, started)


def _choose(ctx: MethodContext, read: Read, started: float) -> None:
    chooser, settings, answer = ctx.chooser, ctx.settings, ctx.answer
    reserve = sum(chooser.count_tokens(m.text) for m in choosing.messages(ctx.question, [], True))  # as asked

    def fits(trial: list[Option]) -> bool:
        return reserve + sum(chooser.count_tokens(o.line()) + 1 for o in trial) <= settings.prompt_tokens

    offered = options(read.question, read.reading, fits)
    if not offered:
        answer.notes.append("cascade: no candidate to choose among")
        return
    operations = choosing.operations_allowed(offered)
    answer.notes += [f"cascade: candidate {o.line()[:200]}" for o in offered]
    ctx.step(f"the model chooses among {len(offered)} candidates")
    chosen = _ask(ctx, "choose among candidates", offered, operations, read)
    if chosen is None or chosen.none:
        return  # the quoted verdict stands
    unproven = _unproven(ctx, chosen)
    if unproven:  # what it chose is not what the page says: no lean to show either
        answer.notes.append(f"cascade: the choice is not trusted: {unproven}")
        return
    problem = _unsure(chosen, settings) or (SINGLE if len(offered) < 2 else "")
    if not problem and settings.order_check:
        ctx.step("the model chooses again, the candidates in reverse order")
        again = _ask(ctx, "choose again, candidates reversed", _reversed(offered), operations, read)
        problem = ("the model failed on the second asking" if again is None else
                   _inconsistent(chosen, again) or _unsure(again, settings))
        chosen = chosen if again is None else replace(chosen, probability=min(chosen.probability, again.probability))
    if problem:
        answer.notes.append(f"cascade: the choice is not trusted: {problem}")
        _lean(ctx, chosen, problem)
        return
    _answered(ctx, chosen, len(offered), started)


def _ask(ctx: MethodContext, step: str, offered: list[Option], operations: bool, read: Read) -> choosing.Choice | None:
    """The model's choice among `offered`, noted in the trace; None when the call fails (noted: the quoted verdict
    stands, the failure is not the answer's)."""
    try:
        completion = ctx.call(step, ctx.chooser, choosing.messages(ctx.question, offered, operations),
                              choosing.reply_options(offered, operations), read.pages)
    except ModelError as exc:
        ctx.answer.notes.append(f"cascade: the model failed ({exc}); the passages stand")
        return None
    chosen = choosing.parse(completion.text, offered, completion.choice_probabilities)
    ctx.answer.notes.append(f"cascade: the model replied {chosen.reply!r}" + ("" if chosen.none else f", the value "
                            f"{_value(chosen)!r},") + f" with probability {chosen.probability:.3f}")
    if chosen.none:
        ctx.answer.notes.append("cascade: the model found none of the candidates an answer; the passages stand")
    return chosen


def _reversed(offered: list[Option]) -> list[Option]:
    """The candidates in reverse order, lettered again: a model that favours a letter chooses differently."""
    return [replace(option, label=label) for option, label in zip(reversed(offered), LABELS)]


def _inconsistent(first: choosing.Choice, second: choosing.Choice) -> str:
    def content(choice: choosing.Choice):
        return (choice.operation, choice.span, [(o.ref.key(), o.value, o.context) for o in choice.options])

    return "" if content(first) == content(second) else \
        f"asked again with the candidates in reverse order, the model chose otherwise ({second.reply!r})"


def _unsure(chosen: choosing.Choice, settings: "CascadeSettings") -> str:
    return (f"its probability {chosen.probability:.2f} is under {settings.min_probability}"
            if chosen.probability < settings.min_probability else "")


def _unproven(ctx: MethodContext, chosen: choosing.Choice) -> str:
    """Why the choice's quote does not hold on its page ("" when it does): a span copied from its candidate, and
    each value among the numbers (or words) of the page it is cited to."""
    if chosen.span and " ".join(chosen.span.split()).lower() not in " ".join(chosen.options[0].context.split()).lower():
        return f"the span {chosen.span!r} is not copied word for word from candidate {chosen.options[0].label}"
    if chosen.span and len(chosen.span.split()) > WHOLE_PASSAGE * len(chosen.options[0].context.split()):
        return f"the span is most of candidate {chosen.options[0].label}: the passage, not an answer in it"
    for option in chosen.options:
        page = ctx.pages.text_or_empty(option.ref)
        values = number_values(option.value)
        if values and not set(values) <= set(number_values(page)):
            return f"{option.value!r} is not on {option.ref.source}"
    return ""


def _answered(ctx: MethodContext, chosen: choosing.Choice, offered: int, started: float) -> None:
    answer = ctx.answer
    answer.status, answer.confidence = AnswerStatus.ANSWERED, round(chosen.probability, 3)
    sources = " and ".join(f"{o.ref.source}: “{o.context}”" for o in chosen.options)
    value = _value(chosen)
    if chosen.operation:
        answer.short_answer, answer.answer_format, answer.computation = value, "Float", chosen.expression
        answer.text = f"{value}\n\nComputed by the app ({chosen.operation}) from the values the model chose: {sources}"
        how = f"computed by the app from 2 of {offered} candidates the model chose"
    else:
        answer.short_answer, answer.answer_format, answer.computation = value, "Str", ""
        answer.text = f"{value}\n\nChosen by the model among {offered} candidates from the pages: {sources}"
        how = f"chosen by the model among {offered} candidates"
    answer.citations = [c for o in chosen.options for c in _citations(ctx, o, value)]
    answer.check = f"{how} (probability {chosen.probability:.2f}); {_elapsed(started)}"


def _lean(ctx: MethodContext, chosen: choosing.Choice, why: str) -> None:
    """The passages stay the answer; the model's choice is shown above them, said to be uncertain."""
    answer = ctx.answer
    lean = _value(chosen)
    where = ", ".join(o.ref.source for o in chosen.options)
    answer.text = f"The model leans to “{lean}” ({where}), but not surely enough to answer ({why}).\n\n{answer.text}"


def _citations(ctx: MethodContext, option: Option, value: str) -> list[Citation]:
    ref = option.ref
    if option.box is not None:  # a cell: its box
        return [Citation(ref.doc, ref.path, ref.page, ref.label, option.context, option.box)]
    return cite(ctx.pages, [(ref, option.context)], value, [ref])


def _value(chosen: choosing.Choice) -> str:
    """What the choice answers: the computed value, the span, or the candidate's value."""
    return _shown(chosen) if chosen.operation else chosen.span or chosen.options[0].value


def _shown(chosen: choosing.Choice) -> str:
    text = f"{chosen.computed:,.2f}".rstrip("0").rstrip(".")
    return f"{text}%" if chosen.operation == "change" else text


def _say_step(ctx: MethodContext, step: str, started: float) -> None:
    answer = ctx.answer
    said = f"{step}; {_elapsed(started)}"
    answer.check = f"{said}; {answer.check}" if answer.check else said


def _elapsed(started: float) -> str:
    return f"{time.perf_counter() - started:.1f} s"
