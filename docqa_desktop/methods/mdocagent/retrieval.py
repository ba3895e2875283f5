"""MDocAgent's multi-modal context retrieval (paper §3.2, Algorithm 1): the top-k text segments and, side by side,
the top-k page images, and how they are shown to the agents.

Text segments are passages (`segment_unit = "chunk"`, the paper's segments) or whole pages cut to the passages
that match the question ("page"). Page images come from ColQwen2.5 page-image search when the documents'
pages are embedded; otherwise the text ranking's top pages are rendered as images, and the trace says so.
Every page either retrieval found gets one number, the same in every agent's prompt, so that an agent's quotes
can be cited whichever agent wrote them.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ...answers import PageRef
from ...llm.runtime import Runtime
from ..base import MethodContext, PageGone, VisualUnavailable, page_label
from ..toolkit.batches import multi_document
from ..toolkit.passages import fit_all_to_question
from .prompts import IMAGE_EVIDENCE, TEXT_EVIDENCE


@dataclass(frozen=True)
class Segment:
    page: PageRef
    text: str


@dataclass
class Retrieved:
    """Both retrievals' results. `pages` numbers every page either found from 1 (segments' pages first), and
    a page both found is one PageRef, so the agents' page lists compare by identity."""
    segments: list[Segment]  # T_q, best first
    images: list[PageRef]  # I_q, best first (empty when no agent can read images)
    pages: list[PageRef] = field(init=False)

    def __post_init__(self):
        by_key: dict = {}
        for ref in [s.page for s in self.segments] + self.images:
            by_key.setdefault(ref.key(), ref)
        self.pages = list(by_key.values())
        self.segments = [Segment(by_key[s.page.key()], s.text) for s in self.segments]
        self.images = [by_key[ref.key()] for ref in self.images]

    @property
    def segment_pages(self) -> list[PageRef]:
        return [p for p in self.pages if any(s.page is p for s in self.segments)]

    def number(self, ref: PageRef) -> int:
        return next(i for i, p in enumerate(self.pages, 1) if p is ref)

    def label(self, ref: PageRef) -> str:
        return page_label(self.number(ref), ref, multi_document(self.pages))


def retrieve_segments(ctx: MethodContext) -> list[Segment]:
    """The top `text_k` text segments, best first."""
    settings = ctx.settings
    if settings.segment_unit == "page":
        refs = ctx.readable(ctx.retrieve(ctx.question, settings.text_k, "text"))
        return [Segment(ref, text) for ref in refs if (text := _page_text(ctx, ref))]
    segments = []
    for chunk in ctx.retrieve_chunks(ctx.question, settings.text_k):
        ref = ctx.page_of(chunk)
        if ref is not None and ctx.readable([ref]):
            segments.append(Segment(ref, chunk.text))
    return segments


def retrieve_images(ctx: MethodContext) -> list[PageRef]:
    """The top `image_k` pages by their page images, best first; by their text when no page is embedded."""
    k = ctx.settings.image_k
    try:
        found = ctx.retrieve(ctx.question, k, "visual")
    except VisualUnavailable:
        found = []
    if not found:
        ctx.answer.notes.append("image retrieval: these pages have no page-image embeddings (ColQwen2.5), so the "
                                f"text ranking's top {k} pages are read as images")
        found = ctx.retrieve(ctx.question, k, "text")
    return ctx.readable(found)


def text_evidence(retrieved: Retrieved, runtime: Runtime, budget: int, segment_tokens: int, question: str) -> str:
    """The segments, each labelled with its page, within `budget` tokens (a long one keeps the passages that
    match the question)."""
    texts = fit_all_to_question(runtime, [s.text for s in retrieved.segments], segment_tokens, budget, question)
    blocks = [f"[Segment {i}, {retrieved.label(s.page)}]\n{text}"
              for i, (s, text) in enumerate(zip(retrieved.segments, texts), 1)]
    return TEXT_EVIDENCE.format(segments="\n\n".join(blocks))


def image_evidence(retrieved: Retrieved) -> str:
    return IMAGE_EVIDENCE.format(pages="; ".join(retrieved.label(ref) for ref in retrieved.images))


def _page_text(ctx: MethodContext, ref: PageRef) -> str:
    try:
        return ctx.pages.text(ref)
    except PageGone:
        return ""
