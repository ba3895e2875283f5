"""DocLens (Zhu et al., 2025; ../shared/papers/doclens.txt, Algorithm 1 in appendix D): a Lens Module — the Page
Navigator looks over every page and names the useful ones, the Element Localizer zooms into their figures and
tables — then a Reasoning Module — the Answer Sampler answers T_a times over that evidence, the Adjudicator
picks one answer from the (analysis, answer) pairs without seeing the document.

What a local context changes, each recorded in the trace: the pages chosen must fit one answer prompt with
their screenshots and crops (and `max_read_pages`, 6 in the CPU preset); when they do not, the pages fewest
navigator samples chose are left out first (the paper sends every located page to a 1M-token context).

The chosen sample carries its proof (quotes by page, the arithmetic for a computed value); after the
adjudicator the app checks it (methods/proof): one repair round on that sample's prompt, else an unverified draft.
"""
from __future__ import annotations

from ...answers import PageRef
from ...llm import Options
from ...llm.jsonout import output_token_bound
from ..base import IMAGE_TOKENS, PROMPT_RESERVE_TOKENS, MethodContext
from ..toolkit.aggregate import NOT_ANSWERABLE, Candidate, aggregate
from ..toolkit.final_answer import FinalAnswer, reasoned_answer_schema
from ..toolkit.page_content import PageElement
from ..toolkit.prompt_layout import evidence_first
from .localizer import PageEvidence, localize, zoom_elements
from .navigator import Navigation, navigate
from .prompts import SAMPLER_IMAGE_NOTE, SAMPLER_INSTRUCTIONS, SAMPLER_PAGES, SAMPLER_REQUEST

MIN_PAGE_TEXT_TOKENS = 150  # the least text a page keeps in the answer prompt: below this it is left out


def run(ctx: MethodContext) -> None:
    answer, settings = ctx.answer, ctx.settings
    answer.iterations = 1
    navigation = navigate(ctx)
    model = ctx.reader
    located = ctx.readable(navigation.evidence)
    if not located:
        ctx.decline("No indexed page to read in the documents asked about.")
        return
    ctx.step("zooming in on figures and tables")
    plan = _fit_evidence(ctx, located, navigation, _answer_options(settings, len(located)))
    pages = list(plan)
    options = _answer_options(settings, len(pages))  # quotes may name only the pages read
    evidence = {ref: localize(ctx, ref, model.info.vision, elements) for ref, elements in plan.items()}
    answer.note_stage("read", pages)
    answer.pages_used = pages
    replies = _sample_answers(ctx, pages, evidence, options)
    finals = [FinalAnswer.from_reply(reply) for reply in replies]
    candidates = [Candidate(final.comparable, reply["analysis"], f"sample {i}")
                  for i, (reply, final) in enumerate(zip(replies, finals), 1)]
    ctx.step("adjudicating between the sampled answers")
    verdict = aggregate(ctx.question, candidates, ctx.text_model, ctx.call, step="adjudicate",
                        skip_unanimous=settings.skip_unanimous, frequency="ignore")
    if not any(call.step == "adjudicate" for call in answer.calls):
        answer.notes.append(f"adjudicate: no call, {verdict.reasoning}")
    if verdict.chosen is None or verdict.answer == NOT_ANSWERABLE:
        ctx.conclude(FinalAnswer.declined(), pages)  # withheld: no sample stands
        return
    ctx.conclude(finals[verdict.chosen], pages)


def _answer_options(settings, pages: int) -> Options:
    return Options(max_tokens=settings.answer_tokens, temperature=settings.navigator_temperature,
                   schema=reasoned_answer_schema(list(range(1, pages + 1))))


def _fit_evidence(ctx: MethodContext, located: list[PageRef], navigation: Navigation,
                  options: Options) -> dict[PageRef, list[PageElement]]:
    """{page: elements to zoom into} for the chosen pages that fit one answer prompt (and `max_read_pages`),
    in document order. Pages are kept in order of priority — named by the question, the retriever's floor,
    then navigator votes — while each keeps its screenshot (vision model) and MIN_PAGE_TEXT_TOKENS of text;
    the room left goes to crops, in the same order."""
    settings, model = ctx.settings, ctx.reader
    vision = model.info.vision
    reply = max(options.max_tokens, output_token_bound(options.schema) or 0)
    room = model.info.context - reply - PROMPT_RESERVE_TOKENS
    per_page = MIN_PAGE_TEXT_TOKENS + (IMAGE_TOKENS if vision else 0)
    by_priority = sorted(located, key=lambda r: (r not in navigation.named, r not in navigation.floor,
                                                 -navigation.votes[r.key()]))
    most = max(1, room // per_page)
    if settings.max_read_pages > 0:
        most = min(most, settings.max_read_pages)
    kept = by_priority[:most]
    if len(kept) < len(located):
        left_out = ", ".join(f"p.{r.page}" for r in by_priority[len(kept):])
        ctx.answer.notes.append(f"answer: read {len(kept)} of the {len(located)} chosen pages (the context or "
                                f"max_read_pages); left out, fewest navigator votes: {left_out}")
    crops_left = (room - per_page * len(kept)) // IMAGE_TOKENS if vision else len(kept) * settings.crops_per_page
    plan: dict[PageRef, list[PageElement]] = {}
    for ref in kept:
        wanted = zoom_elements(ctx, ref, settings.crops_per_page) if settings.zoom_in else []
        plan[ref] = wanted[:max(0, crops_left)]
        crops_left -= len(plan[ref])
    return {ref: plan[ref] for ref in located if ref in plan}


def _sample_answers(ctx: MethodContext, pages: list[PageRef], evidence: dict[PageRef, PageEvidence],
                    options: Options) -> list[dict]:
    """T_a (analysis, evidence, answer) replies over the evidence: one prompt, its KV cache reused by every
    sample."""
    model = ctx.reader
    images_count = sum(len(e.images) for e in evidence.values())
    page_list, page_text, images = ctx.page_block(
        pages, model, ctx.text_budget(model, options, images_count), ctx.settings.page_tokens, ctx.question,
        text_of=lambda ref: evidence[ref].text, images_of=lambda ref: evidence[ref].images)
    block = SAMPLER_PAGES.format(page_list=page_list, page_text=page_text,
                                 image_note=SAMPLER_IMAGE_NOTE if images else "")
    ctx.step(f"answering from {len(pages)} page{'s' if len(pages) != 1 else ''} "
             f"({ctx.settings.answer_samples} samples)")
    completions = ctx.sample("answer sample", model, evidence_first(
        SAMPLER_INSTRUCTIONS, block, SAMPLER_REQUEST.format(question=ctx.question), images), options,
        ctx.settings.answer_samples, pages)
    # a sample cut short or malformed is left out (the runtime fails the call only when none parses)
    return [completion.parsed for completion in completions if completion.parsed is not None]

