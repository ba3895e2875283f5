"""One answer from several candidate answers (question + each candidate's answer and reasoning).

Used wherever a method ends with several answers to the same question: DocLens's Adjudicator over its
T_a sampled (reasoning, answer) pairs (paper §3.2, prompt "Answer Adjudicator" in appendix A), MDocAgent's
summarizing agent over the general, text and image agents' answers (§3.5, prompt in appendix A.4), and any
method that samples several answers (ctx.sample) and must settle on one.

The model may only pick: the distinct candidate answers (duplicates that differ in case, spacing or
sentence punctuation merged, their support counted) and "Not answerable" form a JSON-schema enum, so the
grammar cannot produce a new answer and a remote reply outside the set fails to parse. The reasoning key
comes first in the schema, so the model writes its comparison before it commits to a choice (DocLens's
adjudicator writes `analysis` before `prediction`).
"""
from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass
from typing import Callable

from ...llm import Completion, Message, Options
from ...llm.budget import trim_to_tokens
from ...llm.jsonout import parse_json
from ...llm.runtime import Runtime

NOT_ANSWERABLE = "Not answerable"
REASONING_CHARS = 400  # the adjudicator's own comparison: brief
REPLY_TOKENS = 256
CallFn = Callable[..., Completion]  # ctx.call(step, runtime, messages, options, pages, shows) -> Completion


@dataclass(frozen=True)
class Candidate:
    answer: str
    reasoning: str
    source: str  # who proposed it: "text agent", "sample 3", …


@dataclass(frozen=True)
class Aggregated:
    answer: str  # one of the distinct candidate answers (first spelling seen), or NOT_ANSWERABLE
    chosen: int | None  # index in `candidates` of the first candidate giving that answer; None when none did
    reasoning: str  # the model's comparison; for a shortcut, why no call was made


@dataclass
class _Group:
    answer: str  # display form: the first spelling seen, whitespace collapsed
    members: list[int]  # indices into the candidates


# Prompt after DocLens appendix A "Prompt used for the Answer Adjudicator" (judge, not executor; faithfulness
# towards "Not answerable"; common-sense reading of the question; analysis before the answer, the answer
# copied verbatim from an agent), with a rule on how to weigh the support counts shown (`frequency`).
ADJUDICATOR = """You are an expert in answering questions about long documents with text, tables, charts and images. Several agents read pages of a document and each proposed an answer to the question below, with the reasoning behind it. Your role is to judge their answers and pick the correct one.

Follow these instructions carefully:
- Judge, do not execute: the document is shown only to the agents, not to you. Do not solve the question from scratch; examine the agents' reasoning and find the correct answer among theirs.
- Check each reasoning: does it rest on facts the agent read in the document, does the logic hold, and does the answer respond to the question as asked? Note where the agents agree, where they disagree, and why.
{frequency_rule}
- Be faithful: the question may not be answerable from the document. Some agents then invent an answer or bend the question to make it answerable (for instance they answer for the closest year when the pages only cover other years, or describe a different item than the one asked about). In such cases choose "Not answerable".
- Use common sense: read the question as an ordinary user means it, not in an overly literal or technical way.
"""

# MDocAgent appendix A.4 "Summarizing Agent", verbatim but for the conclusion: it names one of the agents'
# answers (the enum), so that the typed answer and the citations come from an agent that read the pages.
SUMMARIZER = """You are tasked with summarizing and evaluating the collective responses provided by multiple agents. You have access to the following information:
Answers: The individual answers from all agents.

Your tasks:
- Analyze: Evaluate the quality, consistency, and relevance of each answer. Identify commonalities, discrepancies, or gaps in reasoning.
- Synthesize: Summarize the most accurate and reliable information based on the evidence provided by the agents and their discussions.
- Conclude: Provide a final, well-reasoned answer to the question or task. Your conclusion should reflect the consensus (if one exists) or the most credible and well-supported answer.
"""

CANDIDATES = """
<question>{question}</question>

The agents' answers ({agents} agents, {distinct} distinct answers, with how many agents gave each):
{candidates}

Reply in JSON: first "reasoning" (a brief comparison of the candidate answers, two or three sentences), then "answer": exactly one of the candidate answers above, copied verbatim, or "Not answerable"."""

ROLES = {"adjudicator": ADJUDICATOR, "summarizer": SUMMARIZER}

# how the adjudicator weighs support counts (the `frequency` argument of aggregate)
FREQUENCY_RULES = {
    "hint": "- Agreement is a hint, not proof: an answer is not correct because several agents repeat it, and one "
            "well-supported answer can beat a repeated one. Only when the reasoning behind two answers is "
            "equally sound, prefer the one more agents reached.",
    # DocLens appendix A: "Avoid Frequency Bias"
    "ignore": "- Avoid frequency bias: ignore how many agents gave an answer. An answer repeated by several "
              "agents is not more likely to be correct; judge only by the facts and logic of the reasoning.",
}


def normalise(answer: str) -> str:
    """The form under which two answers count as the same: case-folded, whitespace collapsed, quotes and
    brackets dropped, and sentence punctuation dropped except inside numbers ("3.5" and "35", "1,000" and
    "1 000" stay different; "Paris." and " paris" merge)."""
    text = unicodedata.normalize("NFKC", answer).casefold()
    text = re.sub(r"[.,](?!\d)", " ", text)  # a point or comma not followed by a digit ends a sentence/clause
    text = re.sub(r"[;:!?\"'`()\[\]{}“”‘’«»]", " ", text)
    return " ".join(text.split())


_NOT_ANSWERABLE_FORMS = {"", normalise(NOT_ANSWERABLE)}


def distinct_answers(candidates: list[Candidate]) -> tuple[list[_Group], list[int]]:
    """(the distinct real answers in order of first appearance, the indices of candidates that said
    "Not answerable" or nothing)."""
    groups: dict[str, _Group] = {}
    declined: list[int] = []
    for i, candidate in enumerate(candidates):
        key = _answer_key(candidate.answer)
        if not key:
            declined.append(i)
        elif key in groups:
            groups[key].members.append(i)
        else:
            groups[key] = _Group(" ".join(candidate.answer.split()), [i])
    return list(groups.values()), declined


def supporters(candidates: list[Candidate], answer: str) -> list[int]:
    """The indices of the candidates that gave `answer` (after normalisation; "" counts as Not answerable)."""
    key = _answer_key(answer)
    return [i for i, c in enumerate(candidates) if _answer_key(c.answer) == key]


def _answer_key(answer: str) -> str:
    """The normalised answer, "" for Not answerable or no answer."""
    key = normalise(answer)
    return "" if key in _NOT_ANSWERABLE_FORMS else key


def aggregate_schema(answers: list[str]) -> dict:
    """The reply: the reasoning first (generated before the choice), then one of `answers` or Not answerable."""
    return {"type": "object",
            "properties": {"reasoning": {"type": "string", "maxLength": REASONING_CHARS},
                           "answer": {"type": "string", "enum": [*answers, NOT_ANSWERABLE]}},
            "required": ["reasoning", "answer"], "additionalProperties": False}


def aggregate(question: str, candidates: list[Candidate], runtime: Runtime, call: CallFn,
              step: str = "aggregate", reasoning_tokens: int = 200, skip_unanimous: bool = True,
              frequency: str = "hint", role: str = "adjudicator") -> Aggregated:
    """The one answer the candidates support, chosen by `runtime` through `call` (ctx.call: traced and
    cancellable). No call when there is nothing to choose: no candidates, or every candidate answered
    "Not answerable" → Not answerable; every candidate giving the same answer (after normalisation) → that
    answer, unless `skip_unanimous` is False: then the judge still checks it and may choose "Not answerable"
    (DocLens always runs its adjudicator). Each candidate's reasoning is shown trimmed to `reasoning_tokens`.
    `role` is the judge's prompt: "adjudicator" (DocLens's, where `frequency`, "hint" or "ignore", says how
    it weighs how many agents agree) or "summarizer" (MDocAgent's analyse / synthesise / conclude)."""
    groups, declined = distinct_answers(candidates)
    if not candidates:
        return Aggregated(NOT_ANSWERABLE, None, "no candidate answers")
    if not groups:
        return Aggregated(NOT_ANSWERABLE, declined[0], "every candidate answered Not answerable")
    if len(groups) == 1 and not declined and skip_unanimous:
        return Aggregated(groups[0].answer, groups[0].members[0], "every candidate gave this answer")

    prompt = ROLES[role].format(frequency_rule=FREQUENCY_RULES[frequency]) + CANDIDATES.format(
        question=question.strip(), agents=len(candidates), distinct=len(groups) + bool(declined),
        candidates=_candidate_block(candidates, groups, declined, runtime, reasoning_tokens))
    schema = aggregate_schema([g.answer for g in groups])
    # a reply needs ~100 tokens of reasoning plus the answer; the backend raises this towards the schema's
    # bound when the context has room (jsonout.with_room_for_schema), so a long answer is not cut
    options = Options(max_tokens=REPLY_TOKENS, temperature=0.0, schema=schema)
    completion = call(step, runtime, [Message("user", prompt)], options, [], shows="answer")
    reply = completion.parsed if completion.parsed is not None else parse_json(completion.text, schema)
    reasoning = reply["reasoning"].strip()
    if reply["answer"] == NOT_ANSWERABLE:
        return Aggregated(NOT_ANSWERABLE, declined[0] if declined else None, reasoning)
    group = next(g for g in groups if g.answer == reply["answer"])
    return Aggregated(group.answer, group.members[0], reasoning)


def _candidate_block(candidates: list[Candidate], groups: list[_Group], declined: list[int],
                     runtime: Runtime, reasoning_tokens: int) -> str:
    """Each distinct answer with its support count, then the reasoning of every agent that gave it
    (DocLens's "Agent i / Analysis / Answer" list, grouped by answer so the counts are visible)."""
    total = len(candidates)
    listed = [(g.answer, g.members) for g in groups] + ([(NOT_ANSWERABLE, declined)] if declined else [])
    blocks = []
    for number, (answer, members) in enumerate(listed, 1):
        lines = [f"Answer {number}: {json.dumps(answer, ensure_ascii=False)} "
                 f"(given by {len(members)} of {total} agent{'s' if total != 1 else ''})"]
        for i in members:
            source = f" ({candidates[i].source})" if candidates[i].source else ""
            reasoning = " ".join(candidates[i].reasoning.split())
            reasoning = trim_to_tokens(runtime, reasoning, reasoning_tokens) or "(no reasoning given)"
            lines.append(f"- Agent {i + 1}{source}: {reasoning}")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)
