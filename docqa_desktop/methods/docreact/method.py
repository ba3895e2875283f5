"""Doc-React (Wu et al., 2025; ../shared/papers/doc-react.txt, algorithm 1): rounds of Thought and Action; a
Search[sub-query] scores candidate evidence sets by information gain over the model's uncertainty when extracting
from them (selection.py) and keeps the best set's extraction as the Observation; Lookup[request] extracts again
from the last chosen pages; Finish[answer], or the last of `rounds` rounds, ends the search, and one answer call
turns the observations into the typed final answer, cited to the chosen sets' pages.

Choices where the paper is silent, each visible in the trace:
- round 1's only action is Search (the grammar offers Lookup and Finish once there is an observation), so an
  answer always rests on evidence; in all of appendix E's examples the first action is a Search;
- a Search's candidates leave out pages an earlier round chose (Lookup is the way back to them);
- an extraction that comes back empty never wins (its entropy counts as infinite);
- decoding is greedy (appendix C.3: temperature 0), so a page read again for the same request in a later round
  (a small model often repeats its sub-query) reuses the earlier extraction instead of running it again;
- the answer after Finish is written from all observations like the forced one (appendix B), with the Finish
  argument in the trajectory it reads, so that it is typed and cited.

The final answer carries its proof (quotes by page, the arithmetic for a computed value); the quotes must be
on the chosen pages themselves, not only in the observations extracted from them: after the call the app checks
them (methods/proof): one repair round, else an unverified draft.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ...answers import PageRef
from ...llm import Completion, Message, Options
from ..base import MethodContext, page_label
from ..toolkit.batches import multi_document
from ..toolkit.final_answer import FinalAnswer, reasoned_answer_schema
from ..toolkit.prompt_layout import PAGE_IMAGES_NOTE
from .candidates import CandidateSet, candidate_sets
from .prompts import (ANSWER, ANSWER_REQUEST, EXAMPLES, EXTRACT, EXTRACT_REQUEST, REACT, REACT_REQUEST,
                      step_schema)
from .selection import Scored, best, best_by_gain, score_sets
from .settings import check_settings

ACTIONS = ("Search", "Lookup", "Finish")


@dataclass
class Round:
    """One Thought/Action/Observation of the trajectory, with the pages the observation came from."""
    thought: str
    action: str
    argument: str
    observation: str = ""
    pages: tuple[PageRef, ...] = ()


def run(ctx: MethodContext) -> None:
    settings, answer = ctx.settings, ctx.answer
    check_settings(settings)
    retrieved = ctx.readable(ctx.retrieve(ctx.question, settings.candidate_sets * settings.pages_per_set))
    answer.note_stage("retrieved", retrieved)
    if not retrieved:
        ctx.decline("No indexed page matches the question.")
        return
    answer.notes.append(_entropy_source(ctx))
    trajectory: list[Round] = []
    chosen: list[PageRef] = []  # π: the pages of every chosen set, in the order chosen
    extractor = Extractor(ctx)
    for number in range(1, settings.rounds + 1):
        answer.iterations = number
        ctx.step(f"round {number}: thinking")
        step = _think(ctx, trajectory, number)
        trajectory.append(step)
        if step.action == "Finish":
            break
        last = next((r.pages for r in reversed(trajectory) if r.pages), ())
        if step.action == "Lookup" and last:
            completion = extractor.extract(last, step.argument, f"extract {number} lookup")
            answer.notes.append(f"extract {number}: lookup in {_where(last)}, H {_entropy(completion):.2f}")
            step.observation, step.pages = completion.text.strip(), last
        else:
            _search(ctx, extractor, step, number, chosen)
        chosen.extend(ref for ref in step.pages if ref not in chosen)
        answer.note_stage("read", list(step.pages))
    _answer(ctx, trajectory, chosen)


def _entropy_source(ctx: MethodContext) -> str:
    if ctx.reader.info.backend == "remote":
        return "entropy: estimated from the server's top-5 log-probabilities of each token (remote model)"
    return "entropy: exact, from the full next-token distribution at each token (local model)"


def _think(ctx: MethodContext, trajectory: list[Round], number: int) -> Round:
    """Thought and Action for this round; before any observation the only action is Search."""
    settings = ctx.settings
    actions = list(ACTIONS) if any(r.observation for r in trajectory) else ["Search"]
    prompt = "\n\n".join([REACT, *EXAMPLES[:settings.examples],
                          REACT_REQUEST.format(trajectory=_render(ctx.question, trajectory), round=number,
                                               actions=", ".join(actions))])
    options = Options(max_tokens=settings.thought_chars + settings.query_chars,
                      schema=step_schema(actions, settings.thought_chars, settings.query_chars))
    reply = ctx.call(f"thought {number}", ctx.text_model, [Message("user", prompt)], options).parsed
    argument = reply["argument"].strip()
    if reply["action"] == "Search" and not argument:
        argument = ctx.question  # an empty search asks the question itself
    return Round(reply["thought"].strip(), reply["action"], argument)


def _search(ctx: MethodContext, extractor: Extractor, step: Round, number: int, chosen: list[PageRef]) -> None:
    """Score Ω′ for the step's sub-query (eq. 4-7) and keep the best set's extraction as the observation."""
    settings, answer = ctx.settings, ctx.answer
    sets = candidate_sets(ctx, step.argument, {ref.key() for ref in chosen})
    answer.note_stage("candidates", [ref for s in sets for ref in s.pages])
    if not sets:
        step.observation = "No page matches the search."
        return
    extractions = []
    reading = ctx.counted(lambda candidate: f"round {number}: reading candidate {_where(candidate.pages)}", sets,
                          "candidate sets")
    for i, candidate in enumerate(reading, 1):
        extractions.append(extractor.extract(candidate.pages, step.argument,
                                             f"extract {number} [candidate {i}/{len(sets)}]"))
    scored = score_sets([s.retrieval for s in sets], [_entropy(c) for c in extractions],
                        settings.score_temperature, settings.gain_numerator)
    winner, by_gain = best(scored), best_by_gain(scored)
    answer.notes.extend(_candidate_note(number, candidate, score, i == winner)
                        for i, (candidate, score) in enumerate(zip(sets, scored)))
    answer.notes.append(f"extract {number}: chose {_where(sets[winner].pages)}; gain alone: "
                        + ("the same" if winner == by_gain else _where(sets[by_gain].pages)))
    step.observation, step.pages = extractions[winner].text.strip(), sets[winner].pages


class Extractor:
    """μ(S′, Q): free text from pages for the question and a request, with its token entropies; the same pages
    and request give the same greedy extraction, so it runs once per question."""

    def __init__(self, ctx: MethodContext):
        self.ctx = ctx
        self.done: dict[tuple, Completion] = {}

    def extract(self, pages: tuple[PageRef, ...], request: str, step: str) -> Completion:
        key = (tuple(ref.key() for ref in pages), request)
        if key in self.done:
            self.ctx.answer.notes.append(f"{step}: {_where(pages)} was read for this request before; "
                                         "its extraction is reused")
        else:
            self.done[key] = self._run(pages, request, step)
        return self.done[key]

    def _run(self, pages: tuple[PageRef, ...], request: str, step: str) -> Completion:
        ctx = self.ctx
        settings, model = ctx.settings, ctx.reader
        options = Options(max_tokens=settings.extract_tokens, logprobs=True)
        refs = list(pages)
        budget = ctx.text_budget(model, options, len(refs) if model.info.vision else 0)
        _, body, images = ctx.page_block(refs, model, budget, settings.page_tokens, f"{ctx.question} {request}")
        # instructions and request first: the candidates of one sub-query share that prefix in llama.cpp's cache
        text = "\n\n".join([EXTRACT, EXTRACT_REQUEST.format(question=ctx.question, sub_query=request), body])
        return ctx.call(step, model, [Message("user", text + (PAGE_IMAGES_NOTE if images else ""), images)],
                        options, refs)


def _entropy(completion: Completion) -> float:
    """Mean per-token entropy; an empty extraction says nothing and must not win."""
    return completion.mean_entropy if completion.text.strip() else math.inf


def _candidate_note(number: int, candidate: CandidateSet, score: Scored, chosen: bool) -> str:
    return (f"extract {number}: {_where(candidate.pages)} f {score.retrieval:.3f} gain {score.gain:+.2f} "
            f"p {score.probability:.2f} H {score.entropy:.2f} Δ {score.score:.3f}" + (" ← chosen" if chosen else ""))


def _where(pages: tuple[PageRef, ...]) -> str:
    return ", ".join(f"{ref.doc} p.{ref.page}" for ref in pages)


def _render(question: str, trajectory: list[Round], labels: dict[tuple[int, int], str] | None = None) -> str:
    """The trajectory as in appendix E; with `labels`, each observation names the pages it came from."""
    lines = [f"Question: {question}"]
    for number, step in enumerate(trajectory, 1):
        lines += [f"Thought {number}: {step.thought}", f"Action {number}: {step.action}[{step.argument}]"]
        if step.action != "Finish":
            source = f" (from {'; '.join(labels[ref.key()] for ref in step.pages)})" if labels and step.pages else ""
            lines.append(f"Observation {number}{source}: {step.observation or '(nothing)'}")
    return "\n".join(lines)


def _answer(ctx: MethodContext, trajectory: list[Round], chosen: list[PageRef]) -> None:
    """The typed final answer from every observation (appendix B), cited to the chosen pages."""
    answer = ctx.answer
    answer.pages_used = list(chosen)
    if not chosen:
        ctx.decline("No page answered the searches.")
        return
    several = multi_document(chosen)
    labels = {ref.key(): page_label(i, ref, several) for i, ref in enumerate(chosen, 1)}
    options = Options(max_tokens=ctx.settings.answer_tokens,
                      schema=reasoned_answer_schema(list(range(1, len(chosen) + 1))))
    ctx.step("answering from the observations")
    request = ANSWER_REQUEST.format(trajectory=_render(ctx.question, trajectory, labels))
    reply = ctx.call("answer", ctx.text_model, [Message("user", f"{ANSWER}\n\n{request}")], options, chosen,
                     shows="answer").parsed
    ctx.conclude(FinalAnswer.from_reply(reply), chosen)
