"""M3DocRAG (Cho et al., 2024) as the baseline: the retriever's top pages go to one model call."""
from __future__ import annotations

from ..answers import AnswerStatus
from ..llm import Message, Options
from .base import MethodContext
from .citations import cite
from .prompts import ANSWER_IMAGE_NOTE, DIRECT_ANSWER, direct_answer_schema

ANSWER_TOKENS = 300


class M3DocRag:
    name = "m3docrag"

    def run(self, ctx: MethodContext) -> None:
        answer = ctx.answer
        answer.iterations = 1
        ctx.progress("retrieving pages")
        pages = ctx.readable(ctx.retrieve(ctx.question, ctx.settings.max_pages))
        if not pages:
            answer.status, answer.text = AnswerStatus.NOT_ANSWERABLE, "No indexed page matches the question."
            return
        model = ctx.reader
        ctx.progress("reading pages " + ", ".join(str(p.page) for p in pages))
        options = Options(max_tokens=ANSWER_TOKENS, schema=direct_answer_schema(list(range(1, len(pages) + 1))))
        page_list, page_text, images = ctx.page_block(
            pages, model, ctx.text_budget(model, options, len(pages) if model.info.vision else 0))
        prompt = DIRECT_ANSWER.format(page_list=page_list, page_text=page_text, question=ctx.question,
                                      image_note=ANSWER_IMAGE_NOTE if images else "")
        reply = ctx.call("answer", model, [Message("user", prompt, images)], options, pages).parsed
        answer.pages_used = pages
        if reply["answerable"] and reply["answer"].strip():
            answer.status, answer.text = AnswerStatus.ANSWERED, reply["answer"].strip()
            evidence = [(pages[e["page"] - 1], e["quote"]) for e in reply["evidence"]]
            answer.citations = cite(ctx.pages, evidence, answer.text, pages)
        else:
            answer.status, answer.text = AnswerStatus.NOT_ANSWERABLE, "Not answerable from the documents."
