"""M3DocRAG (Cho et al., 2024) as the baseline: the retriever's top pages go to one model call.

The final answer carries its proof (quotes by page, and the arithmetic for a computed value); after the
call the app checks it (methods/proof): one repair round, else the answer is an unverified draft.
"""
from __future__ import annotations

from dataclasses import dataclass

from ...llm import Options
from ..base import MethodContext, pages_named
from ..toolkit.final_answer import FinalAnswer
from ..toolkit.prompt_layout import PAGE_IMAGES_NOTE, evidence_first
from .prompts import INSTRUCTIONS, PAGES, REQUEST, answer_schema


@dataclass(frozen=True)
class M3DocRagSettings:
    k: int = 4  # pages retrieved and read: the paper's top-4
    page_tokens: int = 1200  # most text tokens of one page (a vision model reads the page images as well)
    answer_tokens: int = 500


CPU_PRESET = {"k": 3, "page_tokens": 400}


def run(ctx: MethodContext) -> None:
    answer = ctx.answer
    answer.iterations = 1
    ctx.step("retrieving pages")
    pages = ctx.readable(ctx.retrieve(ctx.question, ctx.settings.k))
    answer.note_stage("retrieved", pages)
    if not pages:
        ctx.decline("No indexed page matches the question.")
        return
    model = ctx.reader
    ctx.step(f"reading {pages_named(pages)}")
    options = Options(max_tokens=ctx.settings.answer_tokens, schema=answer_schema(list(range(1, len(pages) + 1))))
    page_list, page_text, images = ctx.page_block(
        pages, model, ctx.text_budget(model, options, len(pages) if model.info.vision else 0),
        ctx.settings.page_tokens, ctx.question)
    evidence = PAGES.format(page_list=page_list, page_text=page_text, image_note=PAGE_IMAGES_NOTE if images else "")
    reply = ctx.call("answer", model, evidence_first(INSTRUCTIONS, evidence, REQUEST.format(question=ctx.question),
                                                     images), options, pages, shows="answer").parsed
    answer.pages_used = pages
    answer.note_stage("read", pages)
    ctx.conclude(FinalAnswer.from_reply(reply), pages)
