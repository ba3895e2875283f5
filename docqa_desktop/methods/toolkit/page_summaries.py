"""Page summaries: a short summary of each page, written once per page and model and kept as artifacts.

SimpleDoc re-ranks retrieved pages by them; DocLens's navigator may read them instead of the pages. They are
made on demand for the pages a question brings up and kept, so a page is summarised once; a prepare step
(`docqa prepare --method simpledoc` or `doclens`) writes them ahead for whole documents. A page's summary is
redone when its document changes (a new document id) or the summarising model changes.

The prompt is SimpleDoc's (paper appendix A.6). Beyond the paper, for small models: a summary begins with what
the page contains (a short summary is cut at its token limit, and a re-ranker needs the tables and figures
named, not the prose).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ...answers import PageRef
from ...domain import StageStatus
from ...llm import Message, Options
from ...llm.budget import trim_to_tokens
from ...llm.runtime import Runtime
from ...errors import PageGone
from ...progress import StepsFn, uncounted
from ..ports import Artifacts, Pages

if TYPE_CHECKING:
    from ..base import PrepareContext

PAGE_INDEX = """You are tasked with creating a comprehensive summary of a given page from a document. Your summary should focus on extracting and describing the main content, tables, figures, and images present on the page.
{image_note}
Raw text extracted from the page (without visual information):
<page_text>
{page_text}
</page_text>

Please follow these steps to create your summary:
1. Carefully read and analyze the page content.
2. Identify the main topics, key points, and important details presented on the page.
3. Note any tables, figures, charts, diagrams, or images on the page and briefly describe their content and purpose.
4. Create a structured summary that captures the essential textual information, descriptions of any visual elements (tables, figures, images) and any particularly notable or unique information.

The summary should be concise yet comprehensive, typically 5-8 sentences for text-only pages, with additional sentences as needed to describe visual elements. Begin with what the page contains: its title or topic, each table, chart and figure with what it measures, and the main names, years and figures it gives. Write only the summary."""

PAGE_INDEX_IMAGE_NOTE = "The page image is attached; read it together with the extracted text below.\n"

# the kind keeps the name it had when SimpleDoc alone wrote summaries: existing databases hold it
PAGE_SUMMARY = "simpledoc.page-summary"
WRITING = "writing page summaries"  # what the user is told while they are written


class Summarizer:
    def __init__(self, artifacts: Artifacts, pages: Pages, runtime: Runtime, max_tokens: int = 160,
                 image_side: int = 1280, page_tokens: int = 1200):
        self.artifacts, self.pages, self.runtime = artifacts, pages, runtime
        self.max_tokens, self.image_side, self.page_tokens = max_tokens, image_side, page_tokens

    @property
    def model(self) -> str:
        return self.runtime.info.name

    def stored(self, refs: list[PageRef]) -> dict[tuple[int, int], str]:
        """{(doc_id, page): summary} of the pages of `refs` this model has summarised already."""
        found = self.artifacts.get(PAGE_SUMMARY, [(*r.key(), 0) for r in refs], self.model)
        return {(d, p): text for (d, p, _), text in found.items()}

    def ensure(self, refs: list[PageRef], call, steps: StepsFn = uncounted) -> dict[tuple[int, int], str]:
        """{(doc_id, page): summary} for `refs`, writing the missing ones with `call` (ctx.call-like), each
        announced through `steps` (ctx.counted): a model call a page, the longest wait of a first question."""
        known = self.stored(refs)
        for ref in steps(WRITING, [ref for ref in refs if ref.key() not in known], "pages"):
            try:
                summary = self._summarize(ref, call)
            except PageGone:
                continue
            self.artifacts.put(PAGE_SUMMARY, (ref.doc_id, ref.page, 0), self.model, summary)
            known[ref.key()] = summary
        return known

    def _summarize(self, ref: PageRef, call) -> str:
        text = trim_to_tokens(self.runtime, self.pages.text(ref), self.page_tokens)
        images = (self.pages.image(ref, self.image_side),) if self.runtime.info.vision else ()
        prompt = PAGE_INDEX.format(page_text=text or "(no text on this page)",
                                   image_note=PAGE_INDEX_IMAGE_NOTE if images else "")
        completion = call(f"summary {ref.doc} p.{ref.page}", self.runtime, [Message("user", prompt, images)],
                          Options(max_tokens=self.max_tokens, repeat_penalty=1.1), [ref])
        return _clean(completion.text) or text[:400]


def summarizer_for(artifacts: Artifacts, pages: Pages, runtime: Runtime, settings,
                   image_side: int) -> Summarizer:
    return Summarizer(artifacts, pages, runtime, settings.summary_tokens, image_side, settings.page_tokens)


def prepare_summaries(ctx: PrepareContext) -> int:
    """SimpleDoc's offline stage: every page of the documents summarised (resumable: pages already summarised
    by this model are skipped). Returns the pages written."""
    summarizer = summarizer_for(ctx.artifacts, ctx.pages, ctx.vision_model or ctx.text_model, ctx.settings,
                                ctx.image_side)
    todo = ctx.pages.refs_for(ctx.artifacts.missing(PAGE_SUMMARY, ctx.doc_ids, summarizer.model))
    summarizer.ensure(todo, ctx.call, ctx.counted)  # ctx.call stops at a cancel, between two pages
    return len(todo)


def summary_status(artifacts: Artifacts) -> StageStatus:
    """`docqa status`'s row for the page summaries: pages of the live library summarised, by any model."""
    done, pending = artifacts.page_counts(PAGE_SUMMARY)
    return StageStatus("summaries", done, pending, "pages", "written by `docqa prepare` or the first SimpleDoc question")


def _clean(text: str) -> str:
    for tag in ("<summary>", "</summary>"):
        text = text.replace(tag, "")
    return text.strip()
