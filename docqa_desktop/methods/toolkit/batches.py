"""Pages packed into prompts that fit a model's context: greedily, in order, each batch as full as it can be.

Used by every step that shows a model more pages than one prompt holds: the page judge (MMRAG-DocQA's
re-ranking, Doc-React's filter) and DocLens's Page Navigator, which reads a whole document in chunks of at
most K pages (paper appendix D.1).
"""
from __future__ import annotations

from typing import Callable

from ...answers import PageRef
from ...llm.budget import trim_to_tokens
from ...llm.runtime import Runtime


def pack_in_order(count: int, fits: Callable[[list[int]], bool], max_size: int | None = None) -> list[list[int]]:
    """The indices 0..count-1 in consecutive batches: an item joins the current batch while `fits(batch)` holds
    and the batch has fewer than `max_size` items, else it starts the next one. An item that does not fit even
    alone still gets a batch of its own: trim it first (shrink_to_fit)."""
    batches: list[list[int]] = []
    current: list[int] = []
    for i in range(count):
        full = max_size is not None and len(current) >= max_size
        if current and not full and fits(current + [i]):
            current.append(i)
            continue
        if current:
            batches.append(current)
        current = [i]
    if current:
        batches.append(current)
    return batches


def shrink_to_fit(runtime: Runtime, text: str, prompt_with: Callable[[str], str], budget: int,
                  extra_tokens: int = 0) -> str:
    """`text` trimmed so that `prompt_with(text)` counts at most `budget` tokens (plus `extra_tokens` the
    prompt carries besides its text, e.g. images). ValueError when even an empty text is over budget."""
    overhead = runtime.count_tokens(prompt_with("")) + extra_tokens
    if overhead > budget:
        raise ValueError(f"budget_tokens={budget} is smaller than the prompt around the page "
                         f"({overhead} tokens with an empty page)")
    limit = budget - overhead
    while True:  # token counts are not quite additive at the seams: shrink until the whole prompt fits
        trimmed = trim_to_tokens(runtime, text, limit)
        excess = runtime.count_tokens(prompt_with(trimmed)) + extra_tokens - budget
        if excess <= 0 or not trimmed:
            return trimmed
        limit -= excess


def page_ids(pages: list[PageRef]) -> list[int]:
    """The numbers a model names pages by: their page numbers when those are distinct (one document, the
    usual case, and the paper's "page indices starting from 1"), else their 1-based positions in `pages`
    (pages of several documents can share a number). Fixed for the whole list, so batch prompts do not
    depend on how the pages were packed."""
    numbers = [ref.page for ref in pages]
    return numbers if len(set(numbers)) == len(numbers) else list(range(1, len(pages) + 1))


def multi_document(pages: list[PageRef]) -> bool:
    return len({ref.doc_id for ref in pages}) > 1


def page_name(page_id: int, ref: PageRef, with_document: bool) -> str:
    """"Page 7", with the document and page when the id is a position, and the printed label when it differs."""
    printed = f", printed {ref.label}" if ref.label and ref.label != str(ref.page) else ""
    where = f": {ref.doc}, page {ref.page}" if with_document else ""
    return f"Page {page_id}{where}{printed}"
