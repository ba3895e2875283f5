"""MDocAgent (Han et al., 2025; ../shared/papers/mdocagent.txt, Algorithms 1-2, prompts in appendix A.4): text
segments and page images retrieved side by side, then five agents — the general agent answers from both, the
critical agent names what matters in each modality, the text and image agents answer from their own modality
guided by those clues, and the summarizing agent reconciles their answers without seeing the evidence.

Models: the general, critical and image agents run on the vision model when one is installed (the paper's
Qwen2-VL), the text agent and the summarizing agent on the text model (the paper's Llama-3.1 for the text
agent); with a text model only, every agent runs on it, the general agent reads the text alone and the image
agent is skipped, noted in the trace. The final answer is the answer of the agents the summarizer sided with:
its typed form is theirs, and it cites the quotes they gave from the pages they read.

The answer the summarizing agent sides with carries that agent's proof (quotes by page, the arithmetic for a
computed value); after the summary the app checks it (methods/proof): one repair round on that agent's prompt, else
an unverified draft.
"""
from __future__ import annotations

from dataclasses import dataclass

from ...answers import PageRef
from ...llm import Options
from ...llm.runtime import Runtime
from ...settings import SettingsError
from ..base import MethodContext
from ..toolkit.aggregate import NOT_ANSWERABLE, Candidate, aggregate, supporters
from ..toolkit.final_answer import FinalAnswer, reasoned_answer_schema
from ..toolkit.prompt_layout import evidence_first
from .prompts import (ANSWER_FORMAT, CLUE, CRITICAL_AGENT, CRITICAL_FORMATS, GENERAL_AGENT, GENERAL_AGENT_TEXT_ONLY,
                      GENERAL_ANSWER, IMAGE_AGENT, PREAMBLE, QUESTION, TEXT_AGENT, critical_schema)
from .retrieval import Retrieved, image_evidence, retrieve_images, retrieve_segments, text_evidence
from .settings import IMAGE_AGENT_MODES, SEGMENT_UNITS


@dataclass(frozen=True)
class AgentAnswer:
    agent: str  # its trace step: "general agent", "text agent", "image agent"
    reply: dict  # analysis, evidence quotes, the typed final answer
    pages: list[PageRef]  # the pages it read

    @property
    def final(self) -> FinalAnswer:
        return FinalAnswer.from_reply(self.reply)


@dataclass(frozen=True)
class Evidence:
    """What the agents read, rendered once so that every prompt over the same evidence starts the same way."""
    retrieved: Retrieved
    text: str  # the text segments block ("" when there are none)
    images: tuple[bytes, ...]  # the page images, in retrieval order
    image_note: str  # the list of attached page images ("" when none)


def run(ctx: MethodContext) -> None:
    settings, answer = ctx.settings, ctx.answer
    _check(settings)
    answer.iterations = 1
    ctx.step("retrieving text segments and page images")
    reads_images = ctx.vision_model is not None and settings.image_k > 0
    retrieved = Retrieved(retrieve_segments(ctx) if settings.text_k > 0 else [],
                          retrieve_images(ctx) if reads_images else [])
    answer.note_stage("text retrieved", retrieved.segment_pages)
    if reads_images:
        answer.note_stage("image retrieved", retrieved.images)
    answer.note_stage("retrieved", retrieved.pages)
    if not retrieved.pages:
        ctx.decline("No indexed page matches the question.")
        return
    evidence = _render(ctx, retrieved)
    image_agent = _image_agent_runs(ctx, evidence)

    ctx.step("general agent: a first answer from the text and the images")
    general = _answering_agent(ctx, "general agent", ctx.reader, evidence, _general_role(evidence),
                               with_text=True, with_images=True)
    ctx.step("critical agent: what to look for in each modality")
    clues = _critical_clues(ctx, evidence, general, image_agent)
    agents = [general]
    if evidence.text:
        ctx.step("text agent: reading the text segments")
        agents.append(_answering_agent(ctx, "text agent", ctx.text_model, evidence, TEXT_AGENT, with_text=True,
                                       with_images=False, clue=clues.get("text", "")))
    else:
        answer.notes.append("text agent: skipped, no text segment was retrieved")
    if image_agent:
        ctx.step("image agent: reading the page images")
        agents.append(_answering_agent(ctx, "image agent", ctx.vision_model, evidence, IMAGE_AGENT,
                                       with_text=False, with_images=True, clue=clues.get("image", "")))
    agents = [a for a in agents if a is not None]
    read = [p for p in retrieved.pages if any(_has(a.pages, p) for a in agents)]
    answer.pages_used = read
    answer.note_stage("read", read)
    _summarize(ctx, agents, retrieved)


def _check(settings) -> None:
    for name, allowed in (("segment_unit", SEGMENT_UNITS), ("image_agent", IMAGE_AGENT_MODES)):
        if getattr(settings, name) not in allowed:
            raise SettingsError(f"mdocagent {name} must be one of {', '.join(allowed)}, "
                                f"not {getattr(settings, name)!r}")


def _render(ctx: MethodContext, retrieved: Retrieved) -> Evidence:
    """The text block fits the smallest room any agent reading it has: the reader's with the images, and the
    text model's; the same block then opens the general, critical and text agents' prompts."""
    options = Options(max_tokens=ctx.settings.agent_tokens, schema=reasoned_answer_schema(
        list(range(1, len(retrieved.pages) + 1))))
    budget = min(ctx.text_budget(ctx.reader, options, len(retrieved.images)),
                 ctx.text_budget(ctx.text_model, options))
    text = text_evidence(retrieved, ctx.reader, budget, ctx.settings.segment_tokens, ctx.question) \
        if retrieved.segments else ""
    images = tuple(ctx.pages.image(ref, ctx.image_side) for ref in retrieved.images)
    return Evidence(retrieved, text, images, image_evidence(retrieved) if images else "")


def _image_agent_runs(ctx: MethodContext, evidence: Evidence) -> bool:
    """Whether the image agent runs; when it does not, the trace says why."""
    if ctx.settings.image_agent == "off":
        reason = 'turned off (image_agent = "off")'
    elif ctx.vision_model is None:
        reason = "no vision model is installed to read page images"
    elif not evidence.images:
        reason = "no page image was retrieved"
    else:
        return True
    ctx.answer.notes.append(f"image agent: skipped, {reason}; the summarizing agent weighs the other agents' "
                            "answers")
    return False


def _general_role(evidence: Evidence) -> str:
    return GENERAL_AGENT if evidence.images else GENERAL_AGENT_TEXT_ONLY


def _prompt(evidence: Evidence, request: str, with_text: bool, with_images: bool):
    """Preamble, then the evidence this agent reads (text segments, then the list of images), then its request;
    the images themselves travel with the message."""
    blocks = [evidence.text if with_text else "", evidence.image_note if with_images else ""]
    return evidence_first(PREAMBLE, "\n\n".join(b for b in blocks if b), request,
                          evidence.images if with_images else ())


def _pages_read(evidence: Evidence, with_text: bool, with_images: bool) -> list[PageRef]:
    retrieved = evidence.retrieved
    wanted = (retrieved.segment_pages if with_text else []) + (retrieved.images if with_images else [])
    return [p for p in retrieved.pages if _has(wanted, p)]


def _has(pages: list[PageRef], ref: PageRef) -> bool:
    return any(p is ref for p in pages)


def _answering_agent(ctx: MethodContext, agent: str, runtime: Runtime, evidence: Evidence, role: str,
                     with_text: bool, with_images: bool, clue: str = "") -> AgentAnswer | None:
    """One agent's answer from the evidence it reads (None when its reply could not be parsed, noted)."""
    with_images = with_images and bool(evidence.images) and runtime.info.vision
    pages = _pages_read(evidence, with_text and bool(evidence.text), with_images)
    numbers = [evidence.retrieved.number(p) for p in pages]
    request = "\n\n".join([role, QUESTION.format(question=ctx.question.strip()),
                           *([CLUE.format(clue=clue.strip())] if clue.strip() else []), ANSWER_FORMAT])
    options = Options(max_tokens=ctx.settings.agent_tokens, schema=reasoned_answer_schema(numbers))
    reply = ctx.call(agent, runtime, _prompt(evidence, request, with_text, with_images), options, pages).parsed
    if reply is None:
        ctx.answer.notes.append(f"{agent}: its reply could not be read, left out of the summary")
        return None
    return AgentAnswer(agent, reply, pages)


def _critical_clues(ctx: MethodContext, evidence: Evidence, general: AgentAnswer | None,
                    image_agent: bool) -> dict[str, str]:
    """{"text": …, "image": …}: the critical information for each specialised agent that will run, from the
    question, the evidence and the general agent's answer."""
    keys = tuple(k for k, runs in (("text", bool(evidence.text)), ("image", image_agent)) if runs)
    if not keys:
        return {}
    which, shape = CRITICAL_FORMATS[keys]
    preliminary = (general.final.answer or general.final.short_answer) if general else "(none)"
    request = "\n\n".join([QUESTION.format(question=ctx.question.strip()), GENERAL_ANSWER.format(answer=preliminary),
                           CRITICAL_AGENT.format(which=which, format=shape)])
    options = Options(max_tokens=ctx.settings.critical_tokens, schema=critical_schema(keys))
    runtime = ctx.reader
    with_images = runtime.info.vision
    pages = _pages_read(evidence, True, with_images)
    reply = ctx.call("critical agent", runtime, _prompt(evidence, request, True, with_images), options,
                     pages).parsed
    return {key: str(value) for key, value in (reply or {}).items()}


def _summarize(ctx: MethodContext, agents: list[AgentAnswer], retrieved: Retrieved) -> None:
    """The summarizing agent sees the question and the agents' answers only and sides with one answer; the
    final answer is those agents' typed answer, citing their quotes from the pages they read."""
    answer = ctx.answer
    candidates = [Candidate(a.final.comparable, a.reply.get("analysis", ""), a.agent) for a in agents]
    ctx.step("summarizing agent: reconciling the agents' answers")
    verdict = aggregate(ctx.question, candidates, ctx.text_model, ctx.call, step="summarize",
                        skip_unanimous=ctx.settings.skip_unanimous, frequency="hint", role="summarizer")
    if not any(call.step == "summarize" for call in answer.calls):
        answer.notes.append(f"summarize: no call, {verdict.reasoning}")
    if verdict.answer == NOT_ANSWERABLE:
        ctx.conclude(FinalAnswer.declined(), retrieved.pages)  # withheld: no agent's answer stands
        return
    contributing = [agents[i] for i in supporters(candidates, verdict.answer)]
    answer.notes.append("summarize: sided with the " + ", ".join(a.agent for a in contributing))
    quotes = [(retrieved.pages[e["page"] - 1], e["quote"]) for a in contributing for e in a.reply["evidence"]]
    seen = [p for p in retrieved.pages if any(_has(a.pages, p) for a in contributing)]
    ctx.conclude(contributing[0].final, retrieved.pages, quotes, seen)
