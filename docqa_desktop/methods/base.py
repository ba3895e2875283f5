"""What every answering method gets (one context object) and gives back (an Answer).

A method is a class with a `name` and `run(ctx) -> None` that fills `ctx.answer`; everything it needs —
retrieval, page text and images, summaries, the models, settings, progress, cancellation — comes
through the context, and every model call goes through `ctx.call` so the trace records it.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Callable, Protocol

from ..answers import Answer, LlmCall, PageRef
from ..llm import Message, Options
from ..llm.budget import share_budget, trim_to_tokens
from ..llm.runtime import Runtime
from ..settings import AskSettings
from .evidence import PageGone, PageSource

ProgressFn = Callable[[str], None]
RetrieveFn = Callable[[str, int], list[PageRef]]
PROMPT_RESERVE_TOKENS = 1200  # instructions, question and memory around the page texts


class Cancelled(Exception):
    pass


@dataclass
class MethodContext:
    question: str
    answer: Answer
    retrieve: RetrieveFn  # (query, k) -> pages, already scoped to the question's documents
    pages: PageSource
    text_model: Runtime
    vision_model: Runtime | None
    settings: AskSettings
    summaries: "object"  # methods.summaries.Summarizer
    progress: ProgressFn = lambda message: None
    cancel: threading.Event | None = None
    gone: list[PageRef] = field(default_factory=list)  # pages dropped because their document vanished

    @property
    def reader(self) -> Runtime:
        """The model that answers: the vision model when there is one."""
        return self.vision_model or self.text_model

    def check_cancel(self) -> None:
        if self.cancel is not None and self.cancel.is_set():
            raise Cancelled()

    def call(self, step: str, runtime: Runtime, messages: list[Message], options: Options,
             pages: list[PageRef] = ()):
        """A model call, recorded in the trace with its tokens and time."""
        self.check_cancel()
        completion = runtime.chat(messages, options, cancel=self.cancel)
        self.answer.calls.append(LlmCall(step, runtime.info.name, completion.usage.prompt_tokens,
                                         completion.usage.output_tokens, round(completion.usage.seconds, 3),
                                         [f"{p.doc} p.{p.page}" for p in pages], completion.text[:2000]))
        if completion.finish_reason == "cancelled":
            raise Cancelled()
        return completion

    def readable(self, refs: list[PageRef]) -> list[PageRef]:
        """The pages still indexed and on disk; the rest are noted as gone."""
        present, gone = self.pages.still_there(refs)
        self.gone.extend(gone)
        return present

    def page_block(self, refs: list[PageRef], runtime: Runtime, budget: int) -> tuple[str, str, tuple[bytes, ...]]:
        """(numbered page list, their texts within `budget` tokens, their images if the model reads them)."""
        labels = [page_label(i, ref, self.multi_document(refs)) for i, ref in enumerate(refs, 1)]
        texts = []
        for ref in refs:
            try:
                texts.append(trim_to_tokens(runtime, self.pages.text(ref), self.settings.page_tokens))
            except PageGone:
                texts.append("")
        texts = share_budget(runtime, texts, budget)
        body = "\n\n".join(f"[{label}]\n{text}" for label, text in zip(labels, texts))
        images = ()
        if runtime.info.vision:
            images = tuple(self.pages.image(ref, self.settings.image_side) for ref in refs)
        return "; ".join(labels), body, images

    def text_budget(self, runtime: Runtime, options: Options, images: int = 0) -> int:
        """Tokens left for page text once instructions, images and the reply are counted."""
        image_tokens = images * 1300  # a page image at the default pixel budget
        return max(200, runtime.info.context - options.max_tokens - PROMPT_RESERVE_TOKENS - image_tokens)

    @staticmethod
    def multi_document(refs: list[PageRef]) -> bool:
        return len({r.doc_id for r in refs}) > 1


def page_label(number: int, ref: PageRef, with_document: bool) -> str:
    """How a page is named to the model: its number in this prompt, with the document when several."""
    printed = f" (printed {ref.label})" if ref.label and ref.label != str(ref.page) else ""
    where = f"{ref.doc}, page {ref.page}" if with_document else f"page {ref.page}"
    return f"Page {number}: {where}{printed}"


class Method(Protocol):
    name: str

    def run(self, ctx: MethodContext) -> None: ...
